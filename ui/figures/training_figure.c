#include "training_figure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../plot/plot.h"

enum { PANEL_LOSS, PANEL_ACCURACY, PANEL_LR, PANEL_STEP_TIME, PANEL_MEMORY, N_PANELS };
enum { SERIES_TRAIN, SERIES_VAL, N_SERIES };

static const char *const panel_titles[N_PANELS] = {"Loss", "Accuracy", "Learning rate", "Step time (s/step)",
                                                   "Memory"};

#define HOVER_RADIUS 20.0   /* device units: farther than this from every point reads nothing */
#define KEY_GREY ((rf_rgb){0.40, 0.40, 0.44})

/* One split's rows as columns (doubles), in step order. */
typedef struct columns {
    GArray *step, *loss, *accuracy, *lr, *step_seconds;
} columns;

/* A run's rows split into columns, rebuilt when its row count changes. */
typedef struct run_series {
    const rf_run_data *run;
    guint rows_seen;
    columns split[N_SERIES];
    double first_step, last_step;   /* NaN when the run has no rows */
} run_series;

struct rf_training_figure {
    GArray *series;                 /* run_series */
    GArray *scratch_x, *scratch_y;  /* the points one line draws */
    GArray *scratch_times;          /* visible step times, sorted for their median */
};

static GArray *double_array(void)
{
    return g_array_new(FALSE, FALSE, sizeof(double));
}

static void columns_init(columns *c)
{
    *c = (columns){double_array(), double_array(), double_array(), double_array(), double_array()};
}

static void columns_clear(columns *c)
{
    g_array_unref(c->step);
    g_array_unref(c->loss);
    g_array_unref(c->accuracy);
    g_array_unref(c->lr);
    g_array_unref(c->step_seconds);
}

static void series_clear(void *p)
{
    run_series *s = p;
    for (int k = 0; k < N_SERIES; k++)
        columns_clear(&s->split[k]);
}

rf_training_figure *rf_training_figure_new(void)
{
    rf_training_figure *f = g_new0(rf_training_figure, 1);
    f->series = g_array_new(FALSE, TRUE, sizeof(run_series));
    g_array_set_clear_func(f->series, series_clear);
    f->scratch_x = double_array();
    f->scratch_y = double_array();
    f->scratch_times = double_array();
    return f;
}

void rf_training_figure_free(rf_training_figure *f)
{
    if (f == NULL)
        return;
    g_array_unref(f->series);
    g_array_unref(f->scratch_x);
    g_array_unref(f->scratch_y);
    g_array_unref(f->scratch_times);
    g_free(f);
}

void rf_training_figure_set_runs(rf_training_figure *f, rf_run_data *const *runs, guint n)
{
    if (f->series->len > n)
        g_array_set_size(f->series, n);
    for (guint i = 0; i < n; i++) {
        if (i == f->series->len) {
            run_series fresh = {0};
            for (int k = 0; k < N_SERIES; k++)
                columns_init(&fresh.split[k]);
            g_array_append_val(f->series, fresh);
        }
        run_series *s = &g_array_index(f->series, run_series, i);
        if (s->run != runs[i]) {
            s->run = runs[i];
            s->rows_seen = G_MAXUINT;   /* rebuild at the next draw */
        }
    }
}

static void rebuild(run_series *s)
{
    for (int k = 0; k < N_SERIES; k++) {
        g_array_set_size(s->split[k].step, 0);
        g_array_set_size(s->split[k].loss, 0);
        g_array_set_size(s->split[k].accuracy, 0);
        g_array_set_size(s->split[k].lr, 0);
        g_array_set_size(s->split[k].step_seconds, 0);
    }
    s->first_step = s->last_step = NAN;
    const GArray *rows = s->run->rows;
    for (guint i = 0; i < rows->len; i++) {
        const rf_metrics *m = &g_array_index(rows, rf_metrics, i);
        double step = (double)m->step;
        s->first_step = isnan(s->first_step) ? step : fmin(s->first_step, step);
        s->last_step = isnan(s->last_step) ? step : fmax(s->last_step, step);
        if (m->split == RF_SPLIT_TEST)
            continue;
        columns *c = &s->split[m->split == RF_SPLIT_TRAIN ? SERIES_TRAIN : SERIES_VAL];
        g_array_append_val(c->step, step);
        g_array_append_val(c->loss, m->loss);
        g_array_append_val(c->accuracy, m->accuracy);
        g_array_append_val(c->lr, m->lr);
        g_array_append_val(c->step_seconds, m->step_seconds);
    }
    s->rows_seen = rows->len;
}

/* Rebuild the runs whose rows changed; true when any run has a row. */
static bool refresh(rf_training_figure *f)
{
    bool any = false;
    for (guint i = 0; i < f->series->len; i++) {
        run_series *s = &g_array_index(f->series, run_series, i);
        if (s->rows_seen != s->run->rows->len)
            rebuild(s);
        any = any || s->run->rows->len > 0;
    }
    return any;
}

/* The column a panel plots for a split, or NULL (val rows carry no learning
 * rate or step time worth a line). */
static GArray *panel_column(run_series *s, int panel, int split)
{
    columns *c = &s->split[split];
    switch (panel) {
    case PANEL_LOSS:
        return c->loss;
    case PANEL_ACCURACY:
        return c->accuracy;
    case PANEL_LR:
        return split == SERIES_TRAIN ? c->lr : NULL;
    case PANEL_STEP_TIME:
        return split == SERIES_TRAIN ? c->step_seconds : NULL;
    default:
        return NULL;
    }
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Include one run's step times in the axis: up to 4x its median, so its
 * first step (which allocates) and steps slowed by an evaluation do not
 * flatten the rest. Per run, because runs overlaid may differ by far more
 * than 4x (0.2 s and 3 s a step): each run's typical steps stay in view. */
static void include_step_times(rf_axis *y, GArray *times)
{
    if (times->len == 0)
        return;
    qsort(times->data, times->len, sizeof(double), compare_doubles);
    const double *t = (const double *)(void *)times->data;
    rf_axis_include(y, fmin(t[times->len - 1], 4 * t[times->len / 2]));
}

/* Value axes fitted to the rows inside the visible steps. */
static void fit_value_axes(rf_training_figure *f, const rf_axis *x, rf_axis y[N_PANELS])
{
    static const rf_axis_format formats[N_PANELS] = {RF_FORMAT_NUMBER, RF_FORMAT_PERCENT, RF_FORMAT_NUMBER,
                                                     RF_FORMAT_NUMBER, RF_FORMAT_BYTES};
    for (int p = 0; p < N_PANELS; p++)
        y[p] = (rf_axis){.min = NAN, .max = NAN, .scale = RF_AXIS_LINEAR, .format = formats[p]};
    GArray *times = f->scratch_times;
    for (guint i = 0; i < f->series->len; i++) {
        run_series *s = &g_array_index(f->series, run_series, i);
        g_array_set_size(times, 0);
        for (int p = PANEL_LOSS; p <= PANEL_STEP_TIME; p++)
            for (int k = 0; k < N_SERIES; k++) {
                GArray *col = panel_column(s, p, k);
                if (col == NULL)
                    continue;
                const double *st = (const double *)(void *)s->split[k].step->data;
                const double *v = (const double *)(void *)col->data;
                for (guint j = 0; j < col->len; j++) {
                    if (st[j] < x->min || st[j] > x->max)
                        continue;
                    if (p == PANEL_STEP_TIME) {
                        if (isfinite(v[j]))
                            g_array_append_val(times, v[j]);
                    } else {
                        rf_axis_include(&y[p], v[j]);
                    }
                }
            }
        include_step_times(&y[PANEL_STEP_TIME], times);
        bool visible = !(s->last_step < x->min || s->first_step > x->max);
        if (visible) {
            rf_axis_include(&y[PANEL_MEMORY], s->run->peak_bytes > 0 ? s->run->peak_bytes : NAN);
            rf_axis_include(&y[PANEL_MEMORY], s->run->planned_bytes > 0 ? s->run->planned_bytes : NAN);
        }
    }
    rf_axis_include(&y[PANEL_LR], 0);
    rf_axis_include(&y[PANEL_STEP_TIME], 0);
    rf_axis_include(&y[PANEL_MEMORY], 0);
    for (int p = 0; p < N_PANELS; p++)
        rf_axis_finish(&y[p], false);
    y[PANEL_ACCURACY].min = fmax(y[PANEL_ACCURACY].min, 0);
    y[PANEL_ACCURACY].max = fmin(y[PANEL_ACCURACY].max, 1);
    if (y[PANEL_ACCURACY].max <= y[PANEL_ACCURACY].min) {
        y[PANEL_ACCURACY].min = 0;
        y[PANEL_ACCURACY].max = 1;
    }
    for (int p = PANEL_LR; p <= PANEL_MEMORY; p++)
        y[p].min = fmax(y[p].min, 0);
}

/* The step axis over every run, zoomed. */
static rf_axis step_axis(rf_training_figure *f, const rf_zoom *zoom)
{
    rf_axis x = {.min = NAN, .max = NAN, .scale = RF_AXIS_LINEAR, .format = RF_FORMAT_NUMBER, .label = "step"};
    for (guint i = 0; i < f->series->len; i++) {
        run_series *s = &g_array_index(f->series, run_series, i);
        rf_axis_include(&x, s->first_step);
        rf_axis_include(&x, s->last_step);
    }
    rf_axis_finish(&x, true);
    if (x.min > 0 && x.min <= 0.2 * x.max)
        x.min = 0;   /* runs start at step 1: show the axis from 0 */
    return rf_axis_zoom(&x, zoom->x0, zoom->x1);
}

/* Two panels on top (loss, accuracy), three below. Each begins its panel
 * (background, grid, ticks), so hover can lay out without drawing data. */
static void layout(rf_training_figure *f, cairo_t *cr, double w, double h, const rf_zoom *zoom,
                   rf_plot plots[N_PANELS])
{
    rf_axis x = step_axis(f, zoom);
    rf_axis y[N_PANELS];
    fit_value_axes(f, &x, y);
    rf_axis top_x = x;
    top_x.label = NULL;   /* the bottom row names the shared axis */
    double top_h = floor(h * 0.56);
    rf_rect rects[N_PANELS] = {
        {0, 0, floor(w / 2), top_h},
        {floor(w / 2), 0, w - floor(w / 2), top_h},
        {0, top_h, floor(w / 3), h - top_h},
        {floor(w / 3), top_h, floor(2 * w / 3) - floor(w / 3), h - top_h},
        {floor(2 * w / 3), top_h, w - floor(2 * w / 3), h - top_h},
    };
    for (int p = 0; p < N_PANELS; p++)
        rf_plot_begin(&plots[p], cr, rects[p], p <= PANEL_ACCURACY ? &top_x : &x, &y[p], panel_titles[p]);
}

static rf_rgb lighter(rf_rgb c)
{
    return (rf_rgb){0.45 * c.r + 0.55, 0.45 * c.g + 0.55, 0.45 * c.b + 0.55};
}

/* The points of (xs, ys) that a line over the visible steps needs: the
 * visible ones and one on each side, reduced to the lowest and highest per
 * pixel column when there are more than two per column, so a run of 100k
 * steps draws as fast as a short one and keeps its noise band. */
static int visible_points(rf_training_figure *f, const rf_plot *p, const GArray *xs, const GArray *ys)
{
    const double *x = (const double *)(void *)xs->data, *y = (const double *)(void *)ys->data;
    guint n = xs->len, lo = 0, hi = n;
    while (lo < n && x[lo] < p->x.min)
        lo++;
    while (hi > lo && x[hi - 1] > p->x.max)
        hi--;
    lo = lo > 0 ? lo - 1 : 0;
    hi = hi < n ? hi + 1 : n;
    g_array_set_size(f->scratch_x, 0);
    g_array_set_size(f->scratch_y, 0);
    if (hi <= lo)
        return 0;
    bool reduce = hi - lo > 2 * (guint)fmax(p->frame.w, 1);
    for (guint i = lo; i < hi;) {
        if (!reduce) {
            g_array_append_val(f->scratch_x, x[i]);
            g_array_append_val(f->scratch_y, y[i]);
            i++;
            continue;
        }
        double column = floor(rf_plot_px(p, x[i]));
        guint lowest = i, highest = i;
        guint j = i;
        for (; j < hi && floor(rf_plot_px(p, x[j])) == column; j++) {
            if (!isfinite(y[j]))
                continue;
            if (!(y[j] >= y[lowest]))
                lowest = j;
            if (!(y[j] <= y[highest]))
                highest = j;
        }
        guint first = MIN(lowest, highest), second = MAX(lowest, highest);
        g_array_append_val(f->scratch_x, x[first]);
        g_array_append_val(f->scratch_y, y[first]);
        if (second != first) {
            g_array_append_val(f->scratch_x, x[second]);
            g_array_append_val(f->scratch_y, y[second]);
        }
        i = j;
    }
    return (int)f->scratch_x->len;
}

static void draw_column(rf_training_figure *f, rf_plot *p, const GArray *steps, const GArray *values, rf_rgb color,
                        double width, double point_radius)
{
    int n = visible_points(f, p, steps, values);
    const double *x = (const double *)(void *)f->scratch_x->data, *y = (const double *)(void *)f->scratch_y->data;
    rf_plot_line(p, x, y, n, color, width, 0);
    if (point_radius > 0)
        rf_plot_points(p, x, y, n, color, point_radius);
}

/* Memory: each run's measured peak (solid) and planned bytes (dashed)
 * across the steps it ran. */
static void draw_memory(rf_training_figure *f, rf_plot *p)
{
    bool any_peak = false, any_planned = false;
    for (guint i = 0; i < f->series->len; i++) {
        run_series *s = &g_array_index(f->series, run_series, i);
        double xs[2] = {s->first_step, s->last_step};
        rf_rgb c = rf_series_color((int)i);
        if (s->run->planned_bytes > 0) {
            double ys[2] = {s->run->planned_bytes, s->run->planned_bytes};
            rf_plot_line(p, xs, ys, 2, c, 1.5, 5);
            any_planned = true;
        }
        if (s->run->peak_bytes > 0) {
            double ys[2] = {s->run->peak_bytes, s->run->peak_bytes};
            rf_plot_line(p, xs, ys, 2, c, 2.5, 0);
            rf_plot_points(p, xs + 1, ys + 1, 1, c, 3.5);
            any_peak = true;
        }
    }
    cairo_t *cr = p->cr;
    cairo_save(cr);
    rf_set_color(cr, KEY_GREY, 1);
    const char *key = any_peak && any_planned ? "solid: peak · dashed: planned"
                      : any_peak              ? "measured peak"
                                              : "dashed: planned";
    if (any_peak || any_planned)
        rf_draw_text(cr, p->frame.x + p->frame.w - 6, p->frame.y + p->frame.h - 6, 1, 1, RF_PLOT_TEXT, false, key);
    else
        rf_draw_message(cr, p->frame, "Measured during a run");
    cairo_restore(cr);
}

static void draw_legend(rf_training_figure *f, rf_plot *p)
{
    guint n = f->series->len;
    g_autofree const char **labels = g_new(const char *, n);
    g_autofree rf_rgb *colors = g_new(rf_rgb, n);
    for (guint i = 0; i < n; i++) {
        labels[i] = g_array_index(f->series, run_series, i).run->name;
        colors[i] = rf_series_color((int)i);
    }
    rf_plot_legend(p, labels, colors, (int)n, RF_LEGEND_TOP_RIGHT);
}

static void draw(void *data, cairo_t *cr, double w, double h, const rf_zoom *zoom)
{
    rf_training_figure *f = data;
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_rectangle(cr, 0, 0, w, h);
    cairo_fill(cr);
    if (!refresh(f)) {
        rf_draw_message(cr, (rf_rect){0, 0, w, h}, "No runs yet — press Train");
        cairo_restore(cr);
        return;
    }
    rf_plot plots[N_PANELS];
    layout(f, cr, w, h, zoom, plots);
    for (guint i = 0; i < f->series->len; i++) {
        run_series *s = &g_array_index(f->series, run_series, i);
        rf_rgb c = rf_series_color((int)i);
        for (int p = PANEL_LOSS; p <= PANEL_STEP_TIME; p++) {
            GArray *train = panel_column(s, p, SERIES_TRAIN), *val = panel_column(s, p, SERIES_VAL);
            draw_column(f, &plots[p], s->split[SERIES_TRAIN].step, train, p <= PANEL_ACCURACY ? lighter(c) : c,
                        p <= PANEL_ACCURACY ? 1.0 : 1.5, 0);
            if (val != NULL)
                draw_column(f, &plots[p], s->split[SERIES_VAL].step, val, c, 2.5, 3.0);
        }
    }
    draw_memory(f, &plots[PANEL_MEMORY]);
    draw_legend(f, &plots[PANEL_LOSS]);
    rf_plot *acc = &plots[PANEL_ACCURACY];
    rf_set_color(cr, KEY_GREY, 1);
    rf_draw_text(cr, acc->frame.x + acc->frame.w - 6, acc->frame.y + acc->frame.h - 6, 1, 1, RF_PLOT_TEXT, false,
                 "thin: train · thick with points: validation");
    for (int p = 0; p < N_PANELS; p++)
        rf_plot_end(&plots[p]);
    cairo_restore(cr);
}

/* ---- hover ---- */

/* A step as "1,240". */
static void format_step(double step, char *buf, size_t size)
{
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%lld", (long long)llround(step));
    size_t o = 0;
    for (int i = 0; i < n && o + 2 < size; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
}

typedef struct nearest {
    double distance;
    guint run;
    int split;         /* SERIES_*, or -1 for a memory line */
    double step, value;
    bool peak;         /* memory: the peak line (else planned) */
} nearest;

static void consider(nearest *best, const rf_plot *p, double px, double py, double x, double y, guint run,
                     int split)
{
    if (!isfinite(x) || !isfinite(y) || x < p->x.min || x > p->x.max)
        return;
    double d = hypot(rf_plot_px(p, x) - px, rf_plot_py(p, y) - py);
    if (d < best->distance)
        *best = (nearest){d, run, split, x, y, false};
}

static void nearest_memory(rf_training_figure *f, const rf_plot *p, double px, double py, nearest *best)
{
    for (guint i = 0; i < f->series->len; i++) {
        run_series *s = &g_array_index(f->series, run_series, i);
        double x0 = rf_plot_px(p, fmax(s->first_step, p->x.min)), x1 = rf_plot_px(p, fmin(s->last_step, p->x.max));
        if (px < x0 - HOVER_RADIUS || px > x1 + HOVER_RADIUS)
            continue;
        double values[2] = {s->run->peak_bytes, s->run->planned_bytes};
        for (int k = 0; k < 2; k++) {
            if (!(values[k] > 0))
                continue;
            double d = fabs(rf_plot_py(p, values[k]) - py);
            if (d < best->distance)
                *best = (nearest){d, i, -1, rf_plot_x_at(p, px), values[k], k == 0};
        }
    }
}

static bool hover(void *data, double w, double h, const rf_zoom *zoom, double px, double py, char *text,
                  size_t size)
{
    rf_training_figure *f = data;
    if (!refresh(f))
        return false;
    /* Lay the panels out as draw() did, on a scratch surface. */
    cairo_surface_t *scratch = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *cr = cairo_create(scratch);
    rf_plot plots[N_PANELS];
    layout(f, cr, w, h, zoom, plots);
    cairo_destroy(cr);
    cairo_surface_destroy(scratch);

    int panel = -1;
    for (int p = 0; p < N_PANELS; p++)
        if (rf_plot_contains(&plots[p], px, py))
            panel = p;
    if (panel < 0)
        return false;
    const rf_plot *p = &plots[panel];
    nearest best = {.distance = HOVER_RADIUS};
    if (panel == PANEL_MEMORY) {
        nearest_memory(f, p, px, py, &best);
    } else {
        for (guint i = 0; i < f->series->len; i++) {
            run_series *s = &g_array_index(f->series, run_series, i);
            for (int k = 0; k < N_SERIES; k++) {
                GArray *col = panel_column(s, panel, k);
                if (col == NULL)
                    continue;
                const double *st = (const double *)(void *)s->split[k].step->data;
                const double *v = (const double *)(void *)col->data;
                for (guint j = 0; j < col->len; j++)
                    consider(&best, p, px, py, st[j], v[j], i, k);
            }
        }
    }
    if (best.distance >= HOVER_RADIUS)
        return false;

    const char *name = g_array_index(f->series, run_series, best.run).run->name;
    const char *split = best.split == SERIES_VAL ? "val" : "train";
    char step[32], value[48];
    format_step(best.step, step, sizeof step);
    switch (panel) {
    case PANEL_LOSS:
        snprintf(text, size, "step %s · %s loss %.4g (%s)", step, split, best.value, name);
        break;
    case PANEL_ACCURACY:
        snprintf(text, size, "step %s · %s acc %.1f %% (%s)", step, split, 100 * best.value, name);
        break;
    case PANEL_LR:
        snprintf(text, size, "step %s · learning rate %.3g (%s)", step, best.value, name);
        break;
    case PANEL_STEP_TIME:
        snprintf(text, size, "step %s · %.3g s/step (%s)", step, best.value, name);
        break;
    default:
        rf_format_bytes(best.value, value, sizeof value);
        snprintf(text, size, "%s %s (%s)", best.peak ? "measured peak" : "planned", value, name);
        break;
    }
    return true;
}

rf_figure rf_training_figure_figure(rf_training_figure *f)
{
    return (rf_figure){draw, hover, f};
}
