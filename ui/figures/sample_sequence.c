/* The sample figure for other sequences: token ids as points, a series as a
 * line, feature vectors as a heat strip with a colour bar. */
#include <glib.h>
#include <math.h>
#include <stdio.h>

#include "sample_figure_private.h"

#define COLORBAR_W (RF_MAP_LEGEND_W + 24)

void sample_sequence_clear(rf_sample_figure *f)
{
    g_clear_pointer(&f->seq, g_free);
    g_clear_pointer(&f->seq_x, g_free);
    g_clear_pointer(&f->seq_y, g_free);
    g_clear_pointer(&f->strip, g_free);
    rf_heatmap_clear(&f->strip_map);
    f->strip_map = (rf_heatmap){0};
    f->len = f->feat_dim = 0;
}

void rf_sample_figure_set_sequence(rf_sample_figure *f, const float *x, int len, int feat_dim)
{
    sample_reset(f, SAMPLE_SEQUENCE);
    int width = feat_dim > 0 ? feat_dim : 1;
    f->len = len;
    f->feat_dim = feat_dim;
    f->seq = g_memdup2(x, (size_t)len * width * sizeof *x);
    if (feat_dim <= 1) {
        f->seq_x = g_new(double, (size_t)len + 1);
        f->seq_y = g_new(double, (size_t)len + 1);
        for (int i = 0; i < len; i++) {
            f->seq_x[i] = i;
            f->seq_y[i] = x[i];
        }
        return;
    }
    /* Features up the y axis: feature 0 in the bottom row. */
    f->strip = g_new(float, (size_t)len * feat_dim);
    for (int t = 0; t < len; t++)
        for (int k = 0; k < feat_dim; k++)
            f->strip[(size_t)(feat_dim - 1 - k) * len + t] = x[(size_t)t * feat_dim + k];
    double lo, hi;
    rf_data_range(f->strip, (size_t)len * feat_dim, &lo, &hi);
    bool signed_values = lo < 0 && hi > 0;
    if (signed_values) {    /* diverging around 0, so the sign reads at a glance */
        hi = fmax(-lo, hi);
        lo = -hi;
    }
    rf_heatmap_set(&f->strip_map, f->strip, feat_dim, len, lo, hi);
    f->strip_map.colormap = signed_values ? RF_COLORMAP_DIVERGING : RF_COLORMAP_SEQUENTIAL;
}

typedef struct sequence_layout {
    rf_plot p;
    double r0, r1, c0, c1;      /* strip cells shown */
    rf_rect colorbar;
} sequence_layout;

static sequence_layout sequence_begin(const rf_sample_figure *f, cairo_t *cr, rf_rect body, const rf_zoom *z)
{
    sequence_layout l;
    rf_rect outer = {body.x, body.y + 6, body.w, body.h - 6};
    rf_axis x = {.min = z->x0 * f->len, .max = z->x1 * f->len, .label = "position", .whole = true};
    rf_axis y = {.min = NAN, .max = NAN, .label = f->feat_dim == 0 ? "token id" : "value"};
    const char *title = f->feat_dim == 0 ? "Token ids" : "Series";
    if (f->feat_dim > 1) {
        outer.w -= COLORBAR_W;
        l.c0 = z->x0 * f->len;
        l.c1 = z->x1 * f->len;
        l.r0 = z->y0 * f->feat_dim;
        l.r1 = z->y1 * f->feat_dim;
        y = (rf_axis){.min = f->feat_dim - l.r1, .max = f->feat_dim - l.r0, .label = "feature"};
        title = "Features per position";
    } else {
        for (int i = 0; i < f->len; i++)
            rf_axis_include(&y, f->seq_y[i]);
        if (f->feat_dim == 0)
            rf_axis_include(&y, 0);
    }
    rf_axis_finish(&x, true);
    rf_axis_finish(&y, f->feat_dim > 1);
    rf_plot_begin(&l.p, cr, outer, &x, &y, title);
    l.colorbar = (rf_rect){l.p.frame.x + l.p.frame.w + 20, l.p.frame.y + RF_MAP_LEGEND_ABOVE, 14,
                           fmax(10, l.p.frame.h - RF_MAP_LEGEND_ABOVE - RF_MAP_LEGEND_BELOW)};
    return l;
}

void sample_sequence_draw(rf_sample_figure *f, cairo_t *cr, rf_rect body, const rf_zoom *z)
{
    sequence_layout l = sequence_begin(f, cr, body, z);
    if (f->feat_dim > 1) {
        rf_heatmap_draw(&f->strip_map, cr, l.p.frame, l.r0, l.r1, l.c0, l.c1);
        rf_map_scale scale = {.vmin = f->strip_map.vmin, .vmax = f->strip_map.vmax,
                              .kind = f->strip_map.colormap, .quantity = "feature value"};
        rf_map_legend(cr, l.colorbar, &scale);
    } else if (f->feat_dim == 1) {
        rf_plot_line(&l.p, f->seq_x, f->seq_y, f->len, rf_series_color(0), 1.5, 0);
    } else {
        double visible = (z->x1 - z->x0) * f->len;
        double radius = fmax(1.0, fmin(3.0, 0.4 * l.p.frame.w / fmax(1, visible)));
        rf_plot_points(&l.p, f->seq_x, f->seq_y, f->len, rf_series_color(0), radius);
    }
    rf_plot_end(&l.p);
}

bool sample_sequence_hover(rf_sample_figure *f, rf_rect body, const rf_zoom *z, double x, double y, char *text,
                           size_t size)
{
    cairo_t *cr = sample_scratch_context();
    sequence_layout l = sequence_begin(f, cr, body, z);
    cairo_destroy(cr);
    if (f->feat_dim > 1) {
        int row, col;
        if (!rf_heatmap_cell_at(&f->strip_map, l.p.frame, l.r0, l.r1, l.c0, l.c1, x, y, &row, &col))
            return false;
        int feature = f->feat_dim - 1 - row;
        snprintf(text, size, "position %d, feature %d: %.4g", col, feature,
                 f->seq[(size_t)col * f->feat_dim + feature]);
        return true;
    }
    if (!rf_plot_contains(&l.p, x, y))
        return false;
    int i = (int)lround(rf_plot_x_at(&l.p, x));
    if (i < 0 || i >= f->len)
        return false;
    if (f->feat_dim == 0)
        snprintf(text, size, "position %d: token %d", i, (int)f->seq[i]);
    else
        snprintf(text, size, "position %d: %.4g", i, f->seq[i]);
    return true;
}
