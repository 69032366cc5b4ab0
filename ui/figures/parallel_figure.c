#include "parallel_figure.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../plot/plot.h"

#define MARGIN 12.0
#define TICK 4.0
#define MAX_TICKS 8

typedef struct axis {
    char *name;
    rf_parallel_scale scale;
    GPtrArray *categories;   /* char *, RF_PARALLEL_CATEGORY */
} axis;

typedef struct trial {
    char *label;
    char **values;           /* one per key axis */
    double metric;
    rf_parallel_status status;
} trial;

struct rf_parallel_figure {
    char *metric;
    bool higher_better;
    GArray *axes;            /* axis, the keys' */
    GArray *trials;          /* trial */
    char *highlighted;       /* the label of the trial drawn on top, thick; NULL: none */
};

/* Where the parts go at one size. */
typedef struct layout {
    rf_rect area;            /* the axes' vertical span and the room between the first and the last */
    rf_rect bar;             /* the colour bar */
    double key_y;            /* the line saying what dashes and grey mean */
} layout;

static void axis_clear(axis *a)
{
    g_free(a->name);
    if (a->categories != NULL)
        g_ptr_array_unref(a->categories);
}

static void trial_clear(trial *t)
{
    g_free(t->label);
    g_strfreev(t->values);
}

rf_parallel_figure *rf_parallel_figure_new(const char *metric, bool higher_better)
{
    rf_parallel_figure *f = g_new0(rf_parallel_figure, 1);
    f->metric = g_strdup(metric);
    f->higher_better = higher_better;
    f->axes = g_array_new(FALSE, TRUE, sizeof(axis));
    g_array_set_clear_func(f->axes, (GDestroyNotify)axis_clear);
    f->trials = g_array_new(FALSE, TRUE, sizeof(trial));
    g_array_set_clear_func(f->trials, (GDestroyNotify)trial_clear);
    return f;
}

void rf_parallel_figure_free(rf_parallel_figure *f)
{
    if (f == NULL)
        return;
    g_array_free(f->axes, TRUE);
    g_array_free(f->trials, TRUE);
    g_free(f->highlighted);
    g_free(f->metric);
    g_free(f);
}

void rf_parallel_figure_add_axis(rf_parallel_figure *f, const char *name, rf_parallel_scale scale,
                                 const char *const *categories)
{
    axis a = {.name = g_strdup(name), .scale = scale};
    if (scale == RF_PARALLEL_CATEGORY) {
        a.categories = g_ptr_array_new_with_free_func(g_free);
        for (const char *const *c = categories; c != NULL && *c != NULL; c++)
            g_ptr_array_add(a.categories, g_strdup(*c));
    }
    g_array_append_val(f->axes, a);
}

static gboolean has_category(const axis *a, const char *value)
{
    for (guint i = 0; i < a->categories->len; i++)
        if (strcmp(a->categories->pdata[i], value) == 0)
            return TRUE;
    return FALSE;
}

void rf_parallel_figure_add_trial(rf_parallel_figure *f, const char *label, const char *const *values, double metric,
                                  rf_parallel_status status)
{
    trial t = {.label = g_strdup(label), .values = g_new0(char *, f->axes->len + 1), .metric = metric,
               .status = status};
    for (guint i = 0; i < f->axes->len; i++) {
        t.values[i] = g_strdup(values[i]);
        axis *a = &g_array_index(f->axes, axis, i);
        if (a->scale == RF_PARALLEL_CATEGORY && !has_category(a, values[i]))
            g_ptr_array_add(a->categories, g_strdup(values[i]));
    }
    g_array_append_val(f->trials, t);
}

guint rf_parallel_figure_axis_count(const rf_parallel_figure *f)
{
    return f->axes->len + 1;
}

static double number(const char *text)
{
    char *end = NULL;
    double v = g_ascii_strtod(text, &end);
    return end != text && *end == '\0' ? v : NAN;
}

/* Key axis i's numeric range as an rf_axis (linear or log), or the metric's
 * when i is the last axis. */
static rf_axis numeric_axis(const rf_parallel_figure *f, guint i)
{
    bool metric = i == f->axes->len;
    rf_axis a = {.min = INFINITY, .max = -INFINITY,
                 .scale = !metric && g_array_index(f->axes, axis, i).scale == RF_PARALLEL_LOG ? RF_AXIS_LOG
                                                                                              : RF_AXIS_LINEAR};
    a.whole = !metric;   /* whole-number ticks for a key whose values are all whole (an int key) */
    for (guint t = 0; t < f->trials->len; t++) {
        const trial *tr = &g_array_index(f->trials, trial, t);
        double v = metric ? tr->metric : number(tr->values[i]);
        rf_axis_include(&a, v);
        a.whole = a.whole && (!isfinite(v) || v == floor(v));
    }
    rf_axis_finish(&a, false);
    return a;
}

/* Where value lands on axis i, 0 (bottom) to 1 (top); NaN: nowhere. */
static double position(const rf_parallel_figure *f, const rf_axis *numeric, guint i, const trial *t)
{
    if (i == f->axes->len || g_array_index(f->axes, axis, i).scale != RF_PARALLEL_CATEGORY) {
        double v = i == f->axes->len ? t->metric : number(t->values[i]);
        if (!isfinite(v) || (numeric->scale == RF_AXIS_LOG && v <= 0))
            return NAN;
        if (numeric->scale == RF_AXIS_LOG)
            return log(v / numeric->min) / log(numeric->max / numeric->min);
        return (v - numeric->min) / (numeric->max - numeric->min);
    }
    const axis *a = &g_array_index(f->axes, axis, i);
    for (guint c = 0; c < a->categories->len; c++)
        if (strcmp(a->categories->pdata[c], t->values[i]) == 0)
            return a->categories->len == 1 ? 0.5 : (double)c / (a->categories->len - 1);
    return NAN;
}

static bool any_dashed(const rf_parallel_figure *f)
{
    for (guint t = 0; t < f->trials->len; t++)
        if (g_array_index(f->trials, trial, t).status != RF_PARALLEL_FINISHED)
            return true;
    return false;
}

static layout lay_out(const rf_parallel_figure *f, cairo_t *cr, double width, double height)
{
    double text = rf_plot_text_size(cr), scale = rf_plot_text_scale(cr);
    double title = RF_PLOT_TITLE * scale * 1.4, names = text * 1.4;
    /* room left of the first axis for its widest tick label */
    double left = 0;
    if (f->axes->len > 0 && g_array_index(f->axes, axis, 0).scale == RF_PARALLEL_CATEGORY) {
        const axis *a = &g_array_index(f->axes, axis, 0);
        for (guint c = 0; c < a->categories->len; c++)
            left = fmax(left, rf_text_width(cr, RF_PLOT_TEXT, false, a->categories->pdata[c]));
    } else {
        left = rf_text_width(cr, RF_PLOT_TEXT, false, "0.0000");
    }
    /* the first axis's name is centred on it: leave half of it too */
    if (f->axes->len > 0)
        left = fmax(left, rf_text_width(cr, RF_PLOT_TEXT, true, g_array_index(f->axes, axis, 0).name) / 2);
    layout l;
    double top = MARGIN + title + names + 6, bottom = MARGIN + text * (any_dashed(f) ? 2.6 : 1.0);
    double legend_w = rf_map_legend_w(scale);
    l.area = (rf_rect){MARGIN + left + TICK + 4, top, 0, fmax(20, height - top - bottom)};
    l.area.w = fmax(20, width - legend_w - MARGIN - l.area.x -
                            rf_text_width(cr, RF_PLOT_TEXT, true, f->metric) / 2);
    double bar_top = top + rf_map_legend_above(scale);
    l.bar = (rf_rect){width - legend_w, bar_top, 14,
                      fmax(40, fmin(320, height - bar_top - MARGIN - rf_map_legend_below(scale)))};
    l.key_y = height - MARGIN - text * 0.5;
    return l;
}

static double axis_x(const rf_parallel_figure *f, const layout *l, guint i)
{
    guint n = rf_parallel_figure_axis_count(f);
    return n < 2 ? l->area.x : l->area.x + l->area.w * i / (n - 1);
}

double rf_parallel_figure_axis_x(const rf_parallel_figure *f, cairo_t *cr, double width, double height, guint i)
{
    layout l = lay_out(f, cr, width, height);
    return axis_x(f, &l, i);
}

static double metric_t(const rf_axis *m, double v)
{
    return isfinite(v) ? (v - m->min) / (m->max - m->min) : NAN;
}

static void draw_axis(const rf_parallel_figure *f, cairo_t *cr, const layout *l, guint i, const rf_axis *numeric)
{
    double x = axis_x(f, l, i), y0 = l->area.y, y1 = l->area.y + l->area.h;
    rf_set_color(cr, (rf_rgb){0.35, 0.35, 0.35}, 1);
    cairo_set_line_width(cr, 1.0);
    cairo_move_to(cr, round(x) + 0.5, y0);
    cairo_line_to(cr, round(x) + 0.5, y1);
    cairo_stroke(cr);
    bool metric = i == f->axes->len;
    g_autofree char *name = metric ? g_strdup_printf("%s %s", f->higher_better ? "↑" : "↓", f->metric)
                                   : g_strdup(g_array_index(f->axes, axis, i).name);
    rf_set_color(cr, (rf_rgb){0.1, 0.1, 0.1}, 1);
    rf_draw_text(cr, x, y0 - 8, 0.5, 1, RF_PLOT_TEXT, true, name);
    if (!metric && g_array_index(f->axes, axis, i).scale == RF_PARALLEL_CATEGORY) {
        const axis *a = &g_array_index(f->axes, axis, i);
        for (guint c = 0; c < a->categories->len; c++) {
            double t = a->categories->len == 1 ? 0.5 : (double)c / (a->categories->len - 1);
            double y = y1 - t * (y1 - y0);
            cairo_move_to(cr, x - TICK, y);
            cairo_line_to(cr, x, y);
            cairo_stroke(cr);
            rf_draw_text(cr, x - TICK - 3, y, 1, 0.5, RF_PLOT_TEXT, false, a->categories->pdata[c]);
        }
        return;
    }
    double ticks[MAX_TICKS];
    int n = rf_axis_ticks(numeric, ticks, MAX_TICKS);
    for (int k = 0; k < n; k++) {
        double t = numeric->scale == RF_AXIS_LOG ? log(ticks[k] / numeric->min) / log(numeric->max / numeric->min)
                                                 : (ticks[k] - numeric->min) / (numeric->max - numeric->min);
        double y = y1 - t * (y1 - y0);
        char label[32];
        rf_axis_format_value(numeric, ticks[k], label, sizeof label);
        cairo_move_to(cr, x - TICK, y);
        cairo_line_to(cr, x, y);
        cairo_stroke(cr);
        rf_draw_text(cr, x - TICK - 3, y, 1, 0.5, RF_PLOT_TEXT, false, label);
    }
}

/* One trial's polyline; a value that has no place breaks it. */
static void draw_trial(const rf_parallel_figure *f, cairo_t *cr, const layout *l, const rf_axis *numeric,
                       const trial *t, rf_rgb color, bool highlighted)
{
    cairo_new_path(cr);
    bool pen_down = false;
    for (guint i = 0; i < rf_parallel_figure_axis_count(f); i++) {
        double p = position(f, &numeric[i], i, t);
        if (!isfinite(p)) {
            pen_down = false;
            continue;
        }
        double x = axis_x(f, l, i), y = l->area.y + l->area.h * (1 - p);
        if (pen_down)
            cairo_line_to(cr, x, y);
        else
            cairo_move_to(cr, x, y);
        pen_down = true;
    }
    bool failed = t->status == RF_PARALLEL_FAILED || !isfinite(t->metric);
    double dash[] = {6, 4};
    cairo_set_dash(cr, dash, t->status == RF_PARALLEL_FINISHED && !failed ? 0 : 2, 0);
    if (highlighted) {   /* a dark casing under the line, so any colour stands out */
        rf_set_color(cr, (rf_rgb){0.05, 0.05, 0.05}, 1);
        cairo_set_line_width(cr, 7.0);
        cairo_stroke_preserve(cr);
    }
    rf_set_color(cr, failed ? (rf_rgb){0.6, 0.6, 0.6} : color, failed ? 0.9 : 1);
    cairo_set_line_width(cr, highlighted ? 4.0 : 2.0);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
}

/* Trials drawn worst first, so the best lie on top; grey ones first of all. */
static int drawing_rank(const rf_parallel_figure *f, const trial *t)
{
    if (f->highlighted != NULL && strcmp(t->label, f->highlighted) == 0)
        return 3;   /* the highlighted trial last of all */
    return t->status == RF_PARALLEL_FAILED || !isfinite(t->metric) ? 0 : t->status == RF_PARALLEL_STOPPED ? 1 : 2;
}

static int compare_order(gconstpointer a, gconstpointer b, gpointer data)
{
    const rf_parallel_figure *f = data;
    const trial *x = &g_array_index(f->trials, trial, *(const guint *)a);
    const trial *y = &g_array_index(f->trials, trial, *(const guint *)b);
    int rx = drawing_rank(f, x), ry = drawing_rank(f, y);
    if (rx != ry)
        return rx - ry;
    if (isfinite(x->metric) && isfinite(y->metric) && x->metric != y->metric)
        return (x->metric < y->metric) == f->higher_better ? -1 : 1;
    return (int)*(const guint *)a - (int)*(const guint *)b;
}

static void draw(void *data, cairo_t *cr, double width, double height, const rf_zoom *zoom)
{
    (void)zoom;
    rf_parallel_figure *f = data;
    rf_set_color(cr, (rf_rgb){1, 1, 1}, 1);
    cairo_paint(cr);
    layout l = lay_out(f, cr, width, height);
    guint n = rf_parallel_figure_axis_count(f);
    rf_axis *numeric = g_new(rf_axis, n);
    for (guint i = 0; i < n; i++)
        numeric[i] = numeric_axis(f, i);
    const rf_axis *m = &numeric[n - 1];
    g_autofree char *title = g_strdup_printf("%u trial%s: the swept keys and %s", f->trials->len,
                                             f->trials->len == 1 ? "" : "s", f->metric);
    rf_set_color(cr, (rf_rgb){0.1, 0.1, 0.1}, 1);
    rf_draw_text(cr, MARGIN, MARGIN, 0, 0, RF_PLOT_TITLE, true, title);
    for (guint i = 0; i < n; i++)
        draw_axis(f, cr, &l, i, &numeric[i]);
    GArray *order = g_array_new(FALSE, FALSE, sizeof(guint));
    for (guint t = 0; t < f->trials->len; t++)
        g_array_append_val(order, t);
    g_array_sort_with_data(order, compare_order, f);
    for (guint k = 0; k < order->len; k++) {
        const trial *t = &g_array_index(f->trials, trial, g_array_index(order, guint, k));
        draw_trial(f, cr, &l, numeric, t, rf_colormap(metric_t(m, t->metric)),
                   f->highlighted != NULL && strcmp(t->label, f->highlighted) == 0);
    }
    g_array_free(order, TRUE);
    rf_map_scale s = {.vmin = m->min, .vmax = m->max, .kind = RF_COLORMAP_SEQUENTIAL, .quantity = f->metric};
    rf_map_legend(cr, l.bar, &s);
    if (any_dashed(f)) {
        rf_set_color(cr, (rf_rgb){0.35, 0.35, 0.35}, 1);
        rf_draw_text(cr, MARGIN, l.key_y, 0, 0.5, RF_PLOT_TEXT, false,
                     "dashed: stopped early (its best so far) · grey: failed or not evaluated");
    }
    g_free(numeric);
}

/* The squared distance from (px, py) to the segment (x0, y0)-(x1, y1). */
static double segment_distance2(double px, double py, double x0, double y0, double x1, double y1)
{
    double dx = x1 - x0, dy = y1 - y0, len2 = dx * dx + dy * dy;
    double t = len2 > 0 ? fmax(0, fmin(1, ((px - x0) * dx + (py - y0) * dy) / len2)) : 0;
    double ex = x0 + t * dx - px, ey = y0 + t * dy - py;
    return ex * ex + ey * ey;
}

/* The trial whose polyline passes nearest (px, py), within 6 pixels: its
 * index, or -1. The one drawn on top wins a tie. */
static int trial_at(const rf_parallel_figure *f, double width, double height, double px, double py)
{
    cairo_surface_t *surface = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
    cairo_t *cr = cairo_create(surface);
    layout l = lay_out(f, cr, width, height);
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
    guint n = rf_parallel_figure_axis_count(f);
    rf_axis *numeric = g_new(rf_axis, n);
    for (guint i = 0; i < n; i++)
        numeric[i] = numeric_axis(f, i);
    GArray *order = g_array_new(FALSE, FALSE, sizeof(guint));
    for (guint t = 0; t < f->trials->len; t++)
        g_array_append_val(order, t);
    g_array_sort_with_data(order, compare_order, (gpointer)f);
    int best = -1;
    double best_d2 = 6.0 * 6.0;
    for (guint k = 0; k < order->len; k++) {
        guint index = g_array_index(order, guint, k);
        const trial *t = &g_array_index(f->trials, trial, index);
        for (guint i = 0; i + 1 < n; i++) {
            double p = position(f, &numeric[i], i, t), q = position(f, &numeric[i + 1], i + 1, t);
            if (!isfinite(p) || !isfinite(q))
                continue;
            double d2 = segment_distance2(px, py, axis_x(f, &l, i), l.area.y + l.area.h * (1 - p),
                                          axis_x(f, &l, i + 1), l.area.y + l.area.h * (1 - q));
            if (d2 <= best_d2) {
                best_d2 = d2;
                best = (int)index;
            }
        }
    }
    g_array_free(order, TRUE);
    g_free(numeric);
    return best;
}

int rf_parallel_figure_trial_at(const rf_parallel_figure *f, double width, double height, double px, double py)
{
    return trial_at(f, width, height, px, py);
}

guint rf_parallel_figure_trial_count(const rf_parallel_figure *f)
{
    return f->trials->len;
}

const char *rf_parallel_figure_trial_label(const rf_parallel_figure *f, guint i)
{
    return g_array_index(f->trials, trial, i).label;
}

void rf_parallel_figure_highlight(rf_parallel_figure *f, const char *label)
{
    char *copy = g_strdup(label);
    g_free(f->highlighted);
    f->highlighted = copy;
}

const char *rf_parallel_figure_highlighted(const rf_parallel_figure *f)
{
    return f->highlighted;
}

static bool hover(void *data, double width, double height, const rf_zoom *zoom, double px, double py, char *text,
                  size_t size)
{
    (void)zoom;
    rf_parallel_figure *f = data;
    int at = trial_at(f, width, height, px, py);
    if (at < 0)
        return false;
    const trial *near = &g_array_index(f->trials, trial, at);
    GString *out = g_string_new(near->label);
    for (guint i = 0; i < f->axes->len; i++)
        g_string_append_printf(out, "%s %s=%s", i == 0 ? ":" : ",", g_array_index(f->axes, axis, i).name,
                               near->values[i]);
    char v[32];
    rf_format_number(near->metric, v, sizeof v);
    g_string_append_printf(out, "; %s %s%s", f->metric, isfinite(near->metric) ? v : "none",
                           near->status == RF_PARALLEL_STOPPED  ? " (stopped early)"
                           : near->status == RF_PARALLEL_FAILED ? " (failed)"
                                                                : "");
    snprintf(text, size, "%s", out->str);
    g_string_free(out, TRUE);
    return true;
}

static bool empty(void *data, char *why, size_t size)
{
    rf_parallel_figure *f = data;
    if (f->trials->len > 0)
        return false;
    snprintf(why, size, "the sweep has no trials yet");
    return true;
}

rf_figure rf_parallel_figure_figure(rf_parallel_figure *f)
{
    return (rf_figure){.draw = draw, .hover = hover, .data = f, .empty = empty};
}
