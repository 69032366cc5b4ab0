/* Each run's lines cached as an image (issue 12 item 11): stroking ten
 * noisy runs took 50-70 ms, compositing their images takes a few. A layer
 * is drawn again only when what it shows changed (layer_key: the run's rows
 * or smoothing, its colour, step or wall time, a panel's frame or ranges,
 * the size or the device scale), so a redraw composites, and a run that got
 * rows is the only one stroked again while the axes stay. Hover reads the
 * data, never these images. SVG and PDF exports stroke vectors. */
#include <math.h>
#include <string.h>

#include "training_figure_private.h"

void rf_training_layer_clear(run_series *s)
{
    if (s->layer != NULL)
        cairo_surface_destroy(s->layer);
    s->layer = NULL;
}

/* The panels' frames together, in whole units. */
static void frames_box(const rf_plot plots[RF_TRAINING_N_PANELS], double box[4])
{
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (int p = 0; p < N_LINE_PANELS; p++) {
        const rf_rect *r = &plots[p].frame;
        x0 = fmin(x0, r->x);
        y0 = fmin(y0, r->y);
        x1 = fmax(x1, r->x + r->w);
        y1 = fmax(y1, r->y + r->h);
    }
    box[0] = floor(x0);
    box[1] = floor(y0);
    box[2] = ceil(x1) - box[0];
    box[3] = ceil(y1) - box[1];
}

static layer_key key_for(const rf_training_figure *f, const rf_plot plots[RF_TRAINING_N_PANELS],
                         const run_series *s, int color, double scale)
{
    layer_key k;
    memset(&k, 0, sizeof k);   /* padding too: keys compare with memcmp */
    k.version = s->version;
    k.color = color;
    k.x = f->x;
    for (int p = 0; p < N_LINE_PANELS; p++) {
        const rf_plot *pl = &plots[p];
        k.frames[p] = pl->frame;
        const double r[6] = {pl->x.min, pl->x.max, pl->x.scale, pl->y.min, pl->y.max, pl->y.scale};
        memcpy(k.ranges[p], r, sizeof r);
    }
    k.scale = scale;
    frames_box(plots, k.box);
    return k;
}

static void draw_layer(rf_training_figure *f, const rf_plot plots[RF_TRAINING_N_PANELS], run_series *s,
                       const layer_key *k)
{
    rf_training_layer_clear(s);
    int iw = (int)ceil(k->box[2] * k->scale), ih = (int)ceil(k->box[3] * k->scale);
    s->layer = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, MAX(iw, 1), MAX(ih, 1));
    /* the image's units are the figure's: draw and paint at the same coordinates */
    cairo_surface_set_device_scale(s->layer, k->scale, k->scale);
    cairo_surface_set_device_offset(s->layer, -k->box[0] * k->scale, -k->box[1] * k->scale);
    cairo_t *cr = cairo_create(s->layer);
    rf_plot on_layer[RF_TRAINING_N_PANELS];
    for (int p = 0; p < RF_TRAINING_N_PANELS; p++) {
        on_layer[p] = plots[p];
        on_layer[p].cr = cr;
    }
    rf_training_draw_run(f, on_layer, s, rf_series_color(k->color));
    cairo_destroy(cr);
    cairo_surface_flush(s->layer);
    s->layer_key = *k;
}

void rf_training_draw_run_layer(rf_training_figure *f, rf_plot plots[RF_TRAINING_N_PANELS], run_series *s,
                                int color)
{
    cairo_t *cr = plots[0].cr;
    double scale = rf_plot_raster_scale(cr);
    if (scale <= 0) {
        rf_training_draw_run(f, plots, s, rf_series_color(color));
        return;
    }
    layer_key k = key_for(f, plots, s, color, scale);
    if (s->layer == NULL || memcmp(&k, &s->layer_key, sizeof k) != 0)
        draw_layer(f, plots, s, &k);
    cairo_save(cr);
    cairo_set_source_surface(cr, s->layer, 0, 0);
    cairo_paint(cr);
    cairo_restore(cr);
}
