/* Each run's lines cached as images (issue 12 item 11): stroking ten noisy
 * runs took 50-70 ms, painting their images takes a few. A run's lines are
 * all in its colour (the faint raw rows are that colour at a quarter
 * opacity) except the light raw rows drawn without smoothing: so a run
 * keeps one coverage mask (A8) per colour, and a redraw paints the colour
 * through it, as the strokes would have. The masks are drawn again only
 * when what they show changed (layer_key: the run's rows or smoothing, step
 * or wall time, a panel's frame or ranges, the size or the device scale),
 * so a redraw paints masks and a run that got rows is the only one stroked
 * again while the axes stay. The first draw of a new key strokes
 * straight; the second in a row draws the masks. Hover reads the data, never these images; SVG
 * and PDF exports stroke vectors. */
#include <math.h>
#include <string.h>

#include "training_figure_private.h"

enum { LAYER_RUN_COLOR, LAYER_LIGHT };

void rf_training_layer_clear(run_series *s)
{
    for (int l = 0; l < 2; l++) {
        if (s->layers[l] != NULL)
            cairo_surface_destroy(s->layers[l]);
        s->layers[l] = NULL;
    }
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
                         const run_series *s, double scale)
{
    layer_key k;
    memset(&k, 0, sizeof k);   /* padding too: keys compare with memcmp */
    k.version = s->version;
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

/* Draw the `ink` lines into a mask for k: `reuse` (cleared) when it has
 * the size and place k needs (no fresh pages to fault in), else a new one. */
static cairo_surface_t *draw_mask(rf_training_figure *f, const rf_plot plots[RF_TRAINING_N_PANELS], run_series *s,
                                  const layer_key *k, line_ink ink, cairo_surface_t *reuse)
{
    int iw = MAX((int)ceil(k->box[2] * k->scale), 1), ih = MAX((int)ceil(k->box[3] * k->scale), 1);
    cairo_surface_t *mask = reuse;
    if (mask == NULL || cairo_image_surface_get_width(mask) != iw || cairo_image_surface_get_height(mask) != ih) {
        if (mask != NULL)
            cairo_surface_destroy(mask);
        mask = cairo_image_surface_create(CAIRO_FORMAT_A8, iw, ih);
    }
    /* the mask's units are the figure's: draw and paint at the same coordinates */
    cairo_surface_set_device_scale(mask, k->scale, k->scale);
    cairo_surface_set_device_offset(mask, -k->box[0] * k->scale, -k->box[1] * k->scale);
    cairo_t *cr = cairo_create(mask);
    if (mask == reuse) {
        cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR);
        cairo_paint(cr);
        cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
    }
    rf_plot on_mask[RF_TRAINING_N_PANELS];
    for (int p = 0; p < RF_TRAINING_N_PANELS; p++) {
        on_mask[p] = plots[p];
        on_mask[p].cr = cr;
    }
    rf_training_draw_run(f, on_mask, s, (rf_rgb){0, 0, 0}, ink);
    cairo_destroy(cr);
    cairo_surface_flush(mask);
    return mask;
}

static void paint_mask(cairo_t *cr, cairo_surface_t *mask, rf_rgb c)
{
    if (mask == NULL)
        return;
    cairo_save(cr);
    rf_set_color(cr, c, 1);
    cairo_mask_surface(cr, mask, 0, 0);
    cairo_restore(cr);
}

void rf_training_draw_run_layer(rf_training_figure *f, rf_plot plots[RF_TRAINING_N_PANELS], run_series *s,
                                rf_rgb c)
{
    cairo_t *cr = plots[0].cr;
    double scale = rf_plot_raster_scale(cr);
    if (scale <= 0) {
        rf_training_draw_run(f, plots, s, c, INK_ALL);
        return;
    }
    layer_key k = key_for(f, plots, s, scale);
    bool valid = s->layers[LAYER_RUN_COLOR] != NULL && memcmp(&k, &s->layer_key, sizeof k) == 0;
    if (!valid && memcmp(&k, &s->seen_key, sizeof k) != 0) {
        /* Drawing a mask costs a third more than stroking straight: while
         * the view moves (a pan, a zoom, a run growing the axes) every
         * draw is new, so a mask is drawn only for a key seen twice. */
        s->seen_key = k;
        rf_training_draw_run(f, plots, s, c, INK_ALL);
        return;
    }
    if (!valid) {
        s->layers[LAYER_RUN_COLOR] = draw_mask(f, plots, s, &k, INK_RUN_COLOR, s->layers[LAYER_RUN_COLOR]);
        if (!rf_training_smoothing_on(f)) {
            s->layers[LAYER_LIGHT] = draw_mask(f, plots, s, &k, INK_LIGHT, s->layers[LAYER_LIGHT]);
        } else if (s->layers[LAYER_LIGHT] != NULL) {
            cairo_surface_destroy(s->layers[LAYER_LIGHT]);
            s->layers[LAYER_LIGHT] = NULL;
        }
        s->layer_key = k;
    }
    /* the light raw rows lie under the lines in the run's colour */
    paint_mask(cr, s->layers[LAYER_LIGHT], rf_training_lighter(c));
    paint_mask(cr, s->layers[LAYER_RUN_COLOR], c);
}
