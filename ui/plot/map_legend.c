/* The heatmaps' one legend (see rf_map_legend in plot.h). */
#include <math.h>
#include <stdio.h>

#include "plot.h"

static const rf_rgb ink = {0.15, 0.15, 0.17};
static const rf_rgb muted = {0.40, 0.40, 0.44};

#define BAR_W 14.0
#define TICK_LEN 4.0
#define MIN_TICK_GAP 14.0    /* px between a nice tick's label and an end's */

/* The kind in two lines: drawn under the bar, where a line is short. */
static void kind_lines(const rf_map_scale *s, const char **first, const char **second)
{
    if (s->per_map) {
        *first = "each map: 0";
        *second = "to its max";
    } else if (s->kind == RF_COLORMAP_DIVERGING) {
        *first = "diverging,";
        *second = "white = 0";
    } else {
        *first = "sequential";
        *second = NULL;
    }
}

double rf_map_legend_w(double text_scale)
{
    return RF_MAP_LEGEND_W * text_scale;
}

double rf_map_legend_above(double text_scale)
{
    return RF_MAP_LEGEND_ABOVE * text_scale;
}

double rf_map_legend_below(double text_scale)
{
    return RF_MAP_LEGEND_BELOW * text_scale;
}

const char *rf_map_scale_kind_words(const rf_map_scale *s)
{
    return s->per_map                          ? "each map: 0 to its max"
           : s->kind == RF_COLORMAP_DIVERGING ? "diverging, white = 0"
                                               : "sequential";
}

static void tick(cairo_t *cr, rf_rect r, double py, const char *label)
{
    cairo_move_to(cr, r.x + BAR_W, round(py) + 0.5);
    cairo_line_to(cr, r.x + BAR_W + TICK_LEN, round(py) + 0.5);
    cairo_stroke(cr);
    rf_draw_text(cr, r.x + BAR_W + TICK_LEN + 2, py, 0, 0.5, RF_PLOT_TEXT, false, label);
}

void rf_map_legend(cairo_t *cr, rf_rect r, const rf_map_scale *s)
{
    cairo_save(cr);
    cairo_pattern_t *g = cairo_pattern_create_linear(0, r.y + r.h, 0, r.y);
    for (int i = 0; i <= 16; i++) {
        rf_rgb c = rf_colormap_of(s->kind, i / 16.0);
        cairo_pattern_add_color_stop_rgb(g, i / 16.0, c.r, c.g, c.b);
    }
    cairo_rectangle(cr, r.x, r.y, BAR_W, r.h);
    cairo_set_source(cr, g);
    cairo_fill(cr);
    cairo_pattern_destroy(g);
    rf_set_color(cr, muted, 1);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, r.x + 0.5, r.y + 0.5, BAR_W - 1, r.h - 1);
    cairo_stroke(cr);

    char buf[64];
    if (s->per_map) {
        tick(cr, r, r.y, "own max");
        tick(cr, r, r.y + r.h, "0");
    } else {
        double lo = s->vmin, hi = s->vmax > s->vmin ? s->vmax : s->vmin + 1;
        /* Both ends carry their exact values: the range is the legend's news. */
        rf_format_number(hi, buf, sizeof buf);
        tick(cr, r, r.y, buf);
        rf_format_number(lo, buf, sizeof buf);
        tick(cr, r, r.y + r.h, buf);
        rf_axis a = {.min = lo, .max = hi};
        double ticks[8];
        int n = rf_axis_ticks(&a, ticks, 5);
        for (int i = 0; i < n; i++) {
            double py = r.y + r.h * (1 - (ticks[i] - lo) / (hi - lo));
            if (py - r.y < MIN_TICK_GAP || r.y + r.h - py < MIN_TICK_GAP)
                continue;
            rf_format_number(ticks[i], buf, sizeof buf);
            tick(cr, r, py, buf);
        }
    }

    /* The quantity above the bar, its units on a line of their own when
     * both do not fit the legend's width. */
    /* a second line of text sits one scaled text size further out */
    double line = rf_plot_text_size(cr) + 3;
    /* the words clear the end ticks' labels, centred on the bar's ends */
    double gap = fmax(6, rf_plot_text_size(cr) / 2 + 4);
    rf_set_color(cr, ink, 1);
    const char *quantity = s->quantity != NULL ? s->quantity : "value";
    snprintf(buf, sizeof buf, "%s (%s)", quantity, s->units != NULL ? s->units : "");
    if (s->units == NULL) {
        rf_draw_text(cr, r.x, r.y - gap, 0, 1, RF_PLOT_TEXT, false, quantity);
    } else if (rf_text_width(cr, RF_PLOT_TEXT, false, buf) <= rf_map_legend_w(rf_plot_text_scale(cr))) {
        rf_draw_text(cr, r.x, r.y - gap, 0, 1, RF_PLOT_TEXT, false, buf);
    } else {
        snprintf(buf, sizeof buf, "(%s)", s->units);
        rf_draw_text(cr, r.x, r.y - gap - line, 0, 1, RF_PLOT_TEXT, false, quantity);
        rf_draw_text(cr, r.x, r.y - gap, 0, 1, RF_PLOT_TEXT, false, buf);
    }
    const char *first, *second;
    kind_lines(s, &first, &second);
    rf_set_color(cr, muted, 1);
    rf_draw_text(cr, r.x, r.y + r.h + gap, 0, 0, RF_PLOT_TEXT, false, first);
    if (second != NULL)
        rf_draw_text(cr, r.x, r.y + r.h + gap + line, 0, 0, RF_PLOT_TEXT, false, second);
    cairo_restore(cr);
}
