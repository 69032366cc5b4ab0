/* The training figure's series (each run's rows as columns, smoothed), axes,
 * layout and drawing; hover and clicks are in training_figure_hover.c. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../plot/smooth.h"
#include "training_figure_private.h"

static const char *const panel_titles[RF_TRAINING_N_PANELS] = {"Loss", "Accuracy", "Learning rate",
                                                               "Step time (s/step)", "Memory"};
static const char *const panel_names[RF_TRAINING_N_PANELS] = {"loss", "accuracy", "lr", "step_time", "memory"};

#define RAW_ALPHA 0.25       /* the raw train rows behind their smoothed line */
#define MARKER_ALPHA 0.55    /* the dotted line through a panel where a key changed */
#define LOG_BUTTON_W 30.0
#define LOG_BUTTON_H 17.0

static GArray *double_array(void)
{
    return g_array_new(FALSE, FALSE, sizeof(double));
}

static void columns_init(columns *c)
{
    *c = (columns){double_array(), double_array(), double_array(), double_array(), double_array(), double_array()};
}

static void columns_clear(columns *c)
{
    g_array_unref(c->step);
    g_array_unref(c->time);
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
    g_array_unref(s->smooth_loss);
    g_array_unref(s->smooth_accuracy);
    rf_training_layer_clear(s);
}

rf_training_figure *rf_training_figure_new(void)
{
    rf_training_figure *f = g_new0(rf_training_figure, 1);
    f->series = g_array_new(FALSE, TRUE, sizeof(run_series));
    g_array_set_clear_func(f->series, series_clear);
    f->smoothing = RF_TRAINING_SMOOTHING_DEFAULT;
    f->x = RF_TRAINING_X_STEP;
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
            run_series fresh = {.smooth_loss = double_array(), .smooth_accuracy = double_array()};
            for (int k = 0; k < N_SERIES; k++)
                columns_init(&fresh.split[k]);
            g_array_append_val(f->series, fresh);
        }
        run_series *s = &g_array_index(f->series, run_series, i);
        if (s->run != runs[i]) {
            s->run = runs[i];
            s->rows_seen = G_MAXUINT;   /* rebuild at the next draw */
            s->hidden = false;
        }
    }
}

guint rf_training_figure_get_run_count(const rf_training_figure *f)
{
    return f->series->len;
}

void rf_training_figure_set_smoothing(rf_training_figure *f, double weight)
{
    f->smoothing = isfinite(weight) ? fmin(fmax(weight, 0), RF_SMOOTH_MAX) : 0;
}

double rf_training_figure_get_smoothing(const rf_training_figure *f)
{
    return f->smoothing;
}

void rf_training_figure_set_x(rf_training_figure *f, rf_training_x x)
{
    f->x = x == RF_TRAINING_X_TIME ? RF_TRAINING_X_TIME : RF_TRAINING_X_STEP;
}

rf_training_x rf_training_figure_get_x(const rf_training_figure *f)
{
    return f->x;
}

bool rf_training_panel_can_log(int panel)
{
    return panel == RF_TRAINING_LOSS || panel == RF_TRAINING_LR || panel == RF_TRAINING_STEP_TIME ||
           panel == RF_TRAINING_MEMORY;
}

bool rf_training_figure_set_log(rf_training_figure *f, rf_training_panel panel, bool log)
{
    if (!rf_training_panel_can_log((int)panel))
        return false;
    f->log[panel] = log;
    f->log_chosen[panel] = true;
    return true;
}

bool rf_training_figure_get_log(const rf_training_figure *f, rf_training_panel panel)
{
    return panel < RF_TRAINING_N_PANELS && f->log[panel];
}

int rf_training_panel_from_name(const char *name)
{
    for (int p = 0; p < RF_TRAINING_N_PANELS; p++)
        if (strcmp(name, panel_names[p]) == 0)
            return p;
    return -1;
}

void rf_training_figure_set_hidden(rf_training_figure *f, guint run, bool hidden)
{
    if (run < f->series->len)
        g_array_index(f->series, run_series, run).hidden = hidden;
}

bool rf_training_figure_get_hidden(const rf_training_figure *f, guint run)
{
    return run < f->series->len && g_array_index(f->series, run_series, run).hidden;
}

run_series *rf_training_series(rf_training_figure *f, guint i)
{
    return &g_array_index(f->series, run_series, i);
}

bool rf_training_smoothing_on(const rf_training_figure *f)
{
    return f->smoothing > 0;
}

/* ---- columns ---- */

static void rebuild(run_series *s)
{
    for (int k = 0; k < N_SERIES; k++) {
        columns *c = &s->split[k];
        GArray *all[] = {c->step, c->time, c->loss, c->accuracy, c->lr, c->step_seconds};
        for (size_t j = 0; j < G_N_ELEMENTS(all); j++)
            g_array_set_size(all[j], 0);
    }
    for (int x = 0; x < 2; x++)
        s->first[x] = s->last[x] = NAN;
    /* `seconds` starts again from 0 when a run resumes: the segments are
     * laid end to end so wall time keeps growing. */
    double offset = 0, previous = 0;
    const GArray *rows = s->run->rows;
    for (guint i = 0; i < rows->len; i++) {
        const rf_metrics *m = &g_array_index(rows, rf_metrics, i);
        if (m->seconds < previous)
            offset += previous;
        if (isfinite(m->seconds))
            previous = m->seconds;
        double at[2] = {(double)m->step, m->seconds + offset};
        for (int x = 0; x < 2; x++) {
            s->first[x] = isnan(s->first[x]) ? at[x] : fmin(s->first[x], at[x]);
            s->last[x] = isnan(s->last[x]) ? at[x] : fmax(s->last[x], at[x]);
        }
        if (m->split == RF_SPLIT_TEST)
            continue;
        columns *c = &s->split[m->split == RF_SPLIT_TRAIN ? SERIES_TRAIN : SERIES_VAL];
        g_array_append_val(c->step, at[RF_TRAINING_X_STEP]);
        g_array_append_val(c->time, at[RF_TRAINING_X_TIME]);
        g_array_append_val(c->loss, m->loss);
        g_array_append_val(c->accuracy, m->accuracy);
        g_array_append_val(c->lr, m->lr);
        g_array_append_val(c->step_seconds, m->step_seconds);
    }
    s->rows_seen = rows->len;
    s->smoothed_with = NAN;
}

static void smooth_column(const GArray *raw, GArray *out, double weight)
{
    g_array_set_size(out, raw->len);
    rf_smooth_ema((const double *)(void *)raw->data, raw->len, weight, (double *)(void *)out->data);
}

bool rf_training_refresh(rf_training_figure *f)
{
    bool any = false;
    for (guint i = 0; i < f->series->len; i++) {
        run_series *s = rf_training_series(f, i);
        if (s->rows_seen != s->run->rows->len)
            rebuild(s);
        if (s->smoothed_with != f->smoothing) {
            smooth_column(s->split[SERIES_TRAIN].loss, s->smooth_loss, f->smoothing);
            smooth_column(s->split[SERIES_TRAIN].accuracy, s->smooth_accuracy, f->smoothing);
            s->smoothed_with = f->smoothing;
            s->version++;   /* every rebuild smooths again */
        }
        any = any || s->run->rows->len > 0;
    }
    return any;
}

GArray *rf_training_x_column(const rf_training_figure *f, run_series *s, int split)
{
    return f->x == RF_TRAINING_X_TIME ? s->split[split].time : s->split[split].step;
}

/* Val rows carry no learning rate or step time worth a line. */
GArray *rf_training_panel_column(run_series *s, int panel, int split, bool smoothed)
{
    columns *c = &s->split[split];
    bool train = split == SERIES_TRAIN;
    switch (panel) {
    case RF_TRAINING_LOSS:
        return smoothed ? (train ? s->smooth_loss : NULL) : c->loss;
    case RF_TRAINING_ACCURACY:
        return smoothed ? (train ? s->smooth_accuracy : NULL) : c->accuracy;
    case RF_TRAINING_LR:
        return train && !smoothed ? c->lr : NULL;
    case RF_TRAINING_STEP_TIME:
        return train && !smoothed ? c->step_seconds : NULL;
    default:
        return NULL;
    }
}

double rf_training_change_x(const rf_training_figure *f, run_series *s, const rf_run_change *c)
{
    if (c->step < 0)
        return NAN;
    if (f->x == RF_TRAINING_X_STEP)
        return (double)c->step;
    /* The time of the first train row at or after the step. */
    const GArray *steps = s->split[SERIES_TRAIN].step;
    const double *st = (const double *)(void *)steps->data;
    guint lo = 0, hi = steps->len;
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (st[mid] < (double)c->step)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < steps->len ? g_array_index(s->split[SERIES_TRAIN].time, double, lo) : NAN;
}

/* ---- axes ---- */

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

/* Whether the shown runs' memory (planned and measured) spans more than
 * 10x: then the memory panel is logarithmic until the user chooses. */
static bool memory_spans_decades(const rf_training_figure *f)
{
    double lo = INFINITY, hi = 0;
    for (guint i = 0; i < f->series->len; i++) {
        const run_series *s = &g_array_index(f->series, run_series, i);
        const double bytes[2] = {s->run->peak_bytes, s->run->planned_bytes};
        for (int k = 0; k < 2 && !s->hidden; k++)
            if (bytes[k] > 0) {
                lo = fmin(lo, bytes[k]);
                hi = fmax(hi, bytes[k]);
            }
    }
    return hi > 10 * lo;
}

/* Value axes fitted to the rows of the shown runs inside the visible part
 * of the x axis. */
static void fit_value_axes(rf_training_figure *f, const rf_axis *x, rf_axis y[RF_TRAINING_N_PANELS])
{
    if (!f->log_chosen[RF_TRAINING_MEMORY])
        f->log[RF_TRAINING_MEMORY] = memory_spans_decades(f);
    static const rf_axis_format formats[RF_TRAINING_N_PANELS] = {
        RF_FORMAT_NUMBER, RF_FORMAT_PERCENT, RF_FORMAT_NUMBER, RF_FORMAT_NUMBER, RF_FORMAT_BYTES};
    for (int p = 0; p < RF_TRAINING_N_PANELS; p++)
        y[p] = (rf_axis){.min = NAN, .max = NAN, .scale = f->log[p] ? RF_AXIS_LOG : RF_AXIS_LINEAR,
                         .format = formats[p], .whole = p == RF_TRAINING_MEMORY};   /* no "0.2 B" ticks */
    GArray *times = f->scratch_times;
    for (guint i = 0; i < f->series->len; i++) {
        run_series *s = rf_training_series(f, i);
        if (s->hidden)
            continue;
        g_array_set_size(times, 0);
        for (int p = RF_TRAINING_LOSS; p <= RF_TRAINING_STEP_TIME; p++)
            for (int k = 0; k < N_SERIES; k++) {
                GArray *col = rf_training_panel_column(s, p, k, false);
                if (col == NULL)
                    continue;
                const double *xs = (const double *)(void *)rf_training_x_column(f, s, k)->data;
                const double *v = (const double *)(void *)col->data;
                for (guint j = 0; j < col->len; j++) {
                    if (xs[j] < x->min || xs[j] > x->max)
                        continue;
                    if (p == RF_TRAINING_STEP_TIME) {
                        if (isfinite(v[j]) && (!f->log[p] || v[j] > 0))
                            g_array_append_val(times, v[j]);
                    } else {
                        rf_axis_include(&y[p], v[j]);
                    }
                }
            }
        include_step_times(&y[RF_TRAINING_STEP_TIME], times);
        bool visible = !(s->last[f->x] < x->min || s->first[f->x] > x->max);
        if (visible) {
            rf_axis_include(&y[RF_TRAINING_MEMORY], s->run->peak_bytes > 0 ? s->run->peak_bytes : NAN);
            rf_axis_include(&y[RF_TRAINING_MEMORY], s->run->planned_bytes > 0 ? s->run->planned_bytes : NAN);
            rf_axis_include(&y[RF_TRAINING_ACCURACY], s->run->baseline_majority);   /* NaN: nothing */
            rf_axis_include(&y[RF_TRAINING_ACCURACY], s->run->baseline_first_token);
        }
    }
    /* Linear axes of positive quantities start at 0 (log axes skip it). */
    rf_axis_include(&y[RF_TRAINING_LR], 0);
    rf_axis_include(&y[RF_TRAINING_STEP_TIME], 0);
    rf_axis_include(&y[RF_TRAINING_MEMORY], 0);
    for (int p = 0; p < RF_TRAINING_N_PANELS; p++)
        rf_axis_finish(&y[p], false);
    rf_axis *acc = &y[RF_TRAINING_ACCURACY];
    acc->min = fmax(acc->min, 0);
    acc->max = fmin(acc->max, 1);
    if (acc->max <= acc->min) {
        acc->min = 0;
        acc->max = 1;
    }
    for (int p = RF_TRAINING_LR; p <= RF_TRAINING_MEMORY; p++)
        if (!f->log[p])
            y[p].min = fmax(y[p].min, 0);
}

/* The shared axis (step or wall time) over every shown run, zoomed. */
static rf_axis x_axis(rf_training_figure *f, const rf_zoom *zoom)
{
    bool time = f->x == RF_TRAINING_X_TIME;
    rf_axis x = {.min = NAN, .max = NAN, .scale = RF_AXIS_LINEAR,
                 .format = time ? RF_FORMAT_DURATION : RF_FORMAT_NUMBER, .label = time ? "wall time" : "step",
                 .whole = !time};
    for (guint i = 0; i < f->series->len; i++) {
        run_series *s = rf_training_series(f, i);
        if (s->hidden)
            continue;
        rf_axis_include(&x, s->first[f->x]);
        rf_axis_include(&x, s->last[f->x]);
    }
    rf_axis_finish(&x, true);
    if (x.min > 0 && x.min <= 0.2 * x.max)
        x.min = 0;   /* runs start at step 1 (and a step's time in): show the axis from 0 */
    return rf_axis_zoom(&x, zoom->x0, zoom->x1);
}

/* Two panels on top (loss, accuracy), three below. Each begins its panel
 * (background, grid, ticks), so hover can lay out without drawing data. */
static void layout(rf_training_figure *f, cairo_t *cr, double w, double h, const rf_zoom *zoom,
                   rf_plot plots[RF_TRAINING_N_PANELS])
{
    rf_axis x = x_axis(f, zoom);
    rf_axis y[RF_TRAINING_N_PANELS];
    fit_value_axes(f, &x, y);
    rf_axis top_x = x;
    top_x.label = NULL;   /* the bottom row names the shared axis */
    double top_h = floor(h * 0.56);
    rf_rect rects[RF_TRAINING_N_PANELS] = {
        {0, 0, floor(w / 2), top_h},
        {floor(w / 2), 0, w - floor(w / 2), top_h},
        {0, top_h, floor(w / 3), h - top_h},
        {floor(w / 3), top_h, floor(2 * w / 3) - floor(w / 3), h - top_h},
        {floor(2 * w / 3), top_h, w - floor(2 * w / 3), h - top_h},
    };
    for (int p = 0; p < RF_TRAINING_N_PANELS; p++)
        rf_plot_begin(&plots[p], cr, rects[p], p <= RF_TRAINING_ACCURACY ? &top_x : &x, &y[p], panel_titles[p]);
}

void rf_training_lay_out(rf_training_figure *f, double w, double h, const rf_zoom *zoom, laid_out *out)
{
    out->scratch = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    out->cr = cairo_create(out->scratch);
    layout(f, out->cr, w, h, zoom, out->plots);
}

void rf_training_laid_out_clear(laid_out *l)
{
    cairo_destroy(l->cr);
    cairo_surface_destroy(l->scratch);
}

rf_rect rf_training_log_button(const rf_plot *p, int panel)
{
    if (!rf_training_panel_can_log(panel))
        return (rf_rect){0, 0, 0, 0};
    return (rf_rect){p->outer.x + p->outer.w - 16 - LOG_BUTTON_W, p->outer.y + 4, LOG_BUTTON_W, LOG_BUTTON_H};
}

/* ---- drawing ---- */

/* A panel's key, right-aligned in its title row (left of its log button
 * where there is one: not in an export):
 * above the data, so it never covers a line (the colour is the caller's).
 * Where the row is too short beside the title (a narrow export, a large
 * font size) the key's text shrinks to fit, down to 60 %, then is left out. */
static void draw_title_key(rf_plot *p, int panel, const char *key)
{
    rf_rect button = rf_training_log_button(p, panel);
    bool beside_button = button.w > 0 && !rf_plot_figure_only(p->cr);
    double right = beside_button ? button.x - 8 : p->frame.x + p->frame.w;
    double left = p->frame.x + rf_text_width(p->cr, RF_PLOT_TITLE, true, panel_titles[panel]) + 12;
    double width = rf_text_width(p->cr, RF_PLOT_TEXT, false, key), size = RF_PLOT_TEXT;
    if (width > right - left)
        size *= (right - left) / width;
    if (size < 0.6 * RF_PLOT_TEXT)
        return;
    rf_draw_text(p->cr, right, p->outer.y + 4, 1, 0, size, false, key);
}


rf_rgb rf_training_lighter(rf_rgb c)
{
    return (rf_rgb){0.45 * c.r + 0.55, 0.45 * c.g + 0.55, 0.45 * c.b + 0.55};
}

/* The points of (xs, ys) a line over the visible x range needs, reduced
 * per pixel column (rf_plot_line_points), in the scratch arrays: a run of
 * 100k steps draws as fast as a short one and keeps its noise band. */
static int visible_points(rf_training_figure *f, const rf_plot *p, const GArray *xs, const GArray *ys)
{
    g_array_set_size(f->scratch_x, xs->len);
    g_array_set_size(f->scratch_y, xs->len);
    size_t n = rf_plot_line_points(p, (const double *)(void *)xs->data, (const double *)(void *)ys->data, xs->len,
                                   (double *)(void *)f->scratch_x->data, (double *)(void *)f->scratch_y->data);
    return (int)n;
}

static void draw_column(rf_training_figure *f, rf_plot *p, const GArray *xs, const GArray *values, rf_rgb color,
                        double alpha, double width, double point_radius)
{
    int n = visible_points(f, p, xs, values);
    const double *x = (const double *)(void *)f->scratch_x->data, *y = (const double *)(void *)f->scratch_y->data;
    rf_plot_line_alpha(p, x, y, n, color, alpha, width, 0);
    /* a line of one point draws nothing: a single row shows as a dot */
    if (point_radius > 0 || n == 1)
        rf_plot_points(p, x, y, n, color, point_radius > 0 ? point_radius : width + 1.5);
}

rf_rgb rf_training_run_color(const run_series *s, guint i)
{
    return rf_series_color(s->run->color >= 0 ? s->run->color : (int)i);
}

/* One run's train rows in the loss to step time panels. Train loss and
 * accuracy: smoothed in the run's colour over the raw rows drawn faint, or
 * (no smoothing) thin and light. `ink` picks the lines in the run's
 * colour, the light ones, or both. */
void rf_training_draw_run(rf_training_figure *f, rf_plot plots[RF_TRAINING_N_PANELS], run_series *s, rf_rgb c,
                          line_ink ink)
{
    bool smoothing = rf_training_smoothing_on(f), dark = ink != INK_LIGHT, light = ink != INK_RUN_COLOR;
    GArray *train_x = rf_training_x_column(f, s, SERIES_TRAIN);
    for (int p = RF_TRAINING_LOSS; p <= RF_TRAINING_STEP_TIME; p++) {
        GArray *raw = rf_training_panel_column(s, p, SERIES_TRAIN, false);
        GArray *smooth = rf_training_panel_column(s, p, SERIES_TRAIN, true);
        if (smooth == NULL) {
            if (dark)
                draw_column(f, &plots[p], train_x, raw, c, 1, 1.5, 0);
        } else if (smoothing) {
            if (dark) {
                draw_column(f, &plots[p], train_x, raw, c, RAW_ALPHA, 1.0, 0);
                draw_column(f, &plots[p], train_x, smooth, c, 1, 1.5, 0);
            }
        } else if (light) {
            draw_column(f, &plots[p], train_x, raw, rf_training_lighter(c), 1, 1.0, 0);
        }
    }
}

static rf_rgb darker(rf_rgb c)
{
    return (rf_rgb){0.55 * c.r, 0.55 * c.g, 0.55 * c.b};
}

/* A run's validation rows: its hue darkened, thick, a white-ringed point
 * at every row (a single evaluation shows as its point), drawn over every
 * run's train lines so the train rows never hide them. */
static void draw_validation(rf_training_figure *f, rf_plot plots[RF_TRAINING_N_PANELS], run_series *s, rf_rgb c)
{
    rf_rgb dark = darker(c), white = {1, 1, 1};
    GArray *val_x = rf_training_x_column(f, s, SERIES_VAL);
    for (int p = RF_TRAINING_LOSS; p <= RF_TRAINING_STEP_TIME; p++) {
        GArray *val = rf_training_panel_column(s, p, SERIES_VAL, false);
        if (val == NULL || val->len == 0)
            continue;
        int n = visible_points(f, &plots[p], val_x, val);
        const double *x = (const double *)(void *)f->scratch_x->data, *y = (const double *)(void *)f->scratch_y->data;
        rf_plot_line(&plots[p], x, y, n, dark, 2.0, 0);
        rf_plot_points(&plots[p], x, y, n, white, 4.5);
        rf_plot_points(&plots[p], x, y, n, dark, 3.0);
    }
}

/* Where an optimiser key changed live: a dotted line through each panel
 * but memory and a small triangle on its x axis (hover names the change). */
static void draw_changes(rf_training_figure *f, rf_plot plots[RF_TRAINING_N_PANELS], run_series *s, rf_rgb c)
{
    for (guint j = 0; j < s->run->changes->len; j++) {
        double x = rf_training_change_x(f, s, &g_array_index(s->run->changes, rf_run_change, j));
        for (int p = RF_TRAINING_LOSS; p <= RF_TRAINING_STEP_TIME && isfinite(x); p++) {
            rf_plot *pl = &plots[p];
            if (x < pl->x.min || x > pl->x.max)
                continue;
            cairo_t *cr = pl->cr;
            double px = round(rf_plot_px(pl, x)) + 0.5, bottom = pl->frame.y + pl->frame.h;
            cairo_save(cr);
            rf_set_color(cr, c, MARKER_ALPHA);
            cairo_set_line_width(cr, 1);
            double dash[2] = {2, 3};
            cairo_set_dash(cr, dash, 2, 0);
            cairo_move_to(cr, px, pl->frame.y);
            cairo_line_to(cr, px, bottom - 7);
            cairo_stroke(cr);
            rf_set_color(cr, c, 1);
            cairo_move_to(cr, px, bottom - 8);
            cairo_line_to(cr, px + 5, bottom);
            cairo_line_to(cr, px - 5, bottom);
            cairo_close_path(cr);
            cairo_fill(cr);
            cairo_restore(cr);
        }
    }
}

/* Memory: each run's measured peak (solid) and planned bytes (dashed)
 * across the x range it ran; runs without either (a run folder keeps
 * neither) say so in words. */
static void draw_memory(rf_training_figure *f, rf_plot *p)
{
    bool any_peak = false, any_planned = false;
    for (guint i = 0; i < f->series->len; i++) {
        run_series *s = rf_training_series(f, i);
        if (s->hidden)
            continue;
        double xs[2] = {s->first[f->x], s->last[f->x]};
        rf_rgb c = rf_training_run_color(s, i);
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
        draw_title_key(p, RF_TRAINING_MEMORY, key);
    else
        rf_draw_message(cr, p->frame, "Not measured for these runs");
    cairo_restore(cr);
}

char **rf_training_legend_labels(rf_training_figure *f)
{
    char **labels = g_new0(char *, f->series->len + 1);
    for (guint i = 0; i < f->series->len; i++) {
        const rf_run_data *run = rf_training_series(f, i)->run;
        const rf_metrics *test = rf_run_data_last(run, RF_SPLIT_TEST);
        labels[i] = test != NULL && isfinite(test->accuracy)
                        ? g_strdup_printf("%s · test %.1f %%", run->name, 100 * test->accuracy)
                        : g_strdup(run->name);
    }
    return labels;
}

/* How much of a run's loss lines (raw, smoothed, validation) lies in r:
 * their points, and four points along each segment between them, so a
 * line crossing the box between two far-apart rows counts too. */
static int loss_points_in(rf_training_figure *f, run_series *s, const rf_plot *p, rf_rect r)
{
    int n = 0;
    for (int k = 0; k < N_SERIES; k++)
        for (int smoothed = 0; smoothed < 2; smoothed++) {
            GArray *col = rf_training_panel_column(s, RF_TRAINING_LOSS, k, smoothed);
            if (col == NULL)
                continue;
            const double *xs = (const double *)(void *)rf_training_x_column(f, s, k)->data;
            const double *v = (const double *)(void *)col->data;
            double px0 = NAN, py0 = NAN;
            for (guint j = 0; j < col->len; j++) {
                if (!isfinite(v[j]) || !isfinite(xs[j]))
                    continue;
                double px = rf_plot_px(p, xs[j]), py = rf_plot_py(p, v[j]);
                int parts = isfinite(px0) && fabs(px - px0) + fabs(py - py0) > 4 ? 4 : 1;
                for (int t = 1; t <= parts; t++) {
                    double x = parts == 1 ? px : px0 + (px - px0) * t / parts;
                    double y = parts == 1 ? py : py0 + (py - py0) * t / parts;
                    n += x >= r.x && x <= r.x + r.w && y >= r.y && y <= r.y + r.h;
                }
                px0 = px;
                py0 = py;
            }
        }
    return n;
}

rf_legend_corner rf_training_legend_corner(rf_training_figure *f, const rf_plot *loss, const char *const *labels)
{
    static const rf_legend_corner corners[] = {RF_LEGEND_TOP_RIGHT, RF_LEGEND_BOTTOM_RIGHT, RF_LEGEND_TOP_LEFT};
    rf_legend_corner best = RF_LEGEND_TOP_RIGHT;
    int fewest = INT_MAX;
    for (size_t c = 0; c < G_N_ELEMENTS(corners) && fewest > 0; c++) {
        rf_rect r = rf_plot_legend_rect(loss, labels, (int)f->series->len, corners[c]);
        int covered = 0;
        /* hidden runs count too, so hiding one never moves the legend
         * from under the pointer */
        for (guint i = 0; i < f->series->len; i++)
            covered += loss_points_in(f, rf_training_series(f, i), loss, r);
        if (covered < fewest) {
            fewest = covered;
            best = corners[c];
        }
    }
    return best;
}

static void draw_legend(rf_training_figure *f, rf_plot *p)
{
    guint n = f->series->len;
    g_auto(GStrv) labels = rf_training_legend_labels(f);
    g_autofree rf_rgb *colors = g_new(rf_rgb, n + 1);
    g_autofree bool *hidden = g_new(bool, n + 1);
    for (guint i = 0; i < n; i++) {
        colors[i] = rf_training_run_color(rf_training_series(f, i), i);
        hidden[i] = rf_training_series(f, i)->hidden;
    }
    rf_plot_legend_dimmed(p, (const char *const *)labels, colors, hidden, (int)n,
                          rf_training_legend_corner(f, p, (const char *const *)labels));
}

/* "log" in the title row: filled when the panel's axis is logarithmic. */
static void draw_log_button(rf_training_figure *f, rf_plot *p, int panel)
{
    rf_rect r = rf_training_log_button(p, panel);
    if (r.w <= 0)
        return;
    cairo_t *cr = p->cr;
    bool on = f->log[panel];
    cairo_save(cr);
    cairo_rectangle(cr, round(r.x) + 0.5, round(r.y) + 0.5, r.w, r.h);
    if (on) {
        rf_set_color(cr, KEY_GREY, 1);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 1, 1, 1);
    } else {
        rf_set_color(cr, KEY_GREY, 0.6);
        cairo_set_line_width(cr, 1);
        cairo_stroke(cr);
        rf_set_color(cr, KEY_GREY, 1);
    }
    rf_draw_text(cr, r.x + r.w / 2 + 0.5, r.y + r.h / 2 + 0.5, 0.5, 0.5, RF_PLOT_TEXT, on, "log");
    cairo_restore(cr);
}

static void draw_key(rf_training_figure *f, rf_plot *acc)
{
    char key[128];
    if (rf_training_smoothing_on(f))
        snprintf(key, sizeof key, "train: smoothed %.3g, faint: raw · dark with points: validation", f->smoothing);
    else
        snprintf(key, sizeof key, "thin: train · dark with points: validation");
    rf_set_color(acc->cr, KEY_GREY, 1);
    draw_title_key(acc, RF_TRAINING_ACCURACY, key);
}

/* Step times the axis leaves out (above 4x a run's median: the first
 * step, evaluations): a triangle in the run's colour on the top edge at
 * each one's x, and their count and largest value in the title row, so a
 * line leaving the top is not read as the axis being wrong. */
static void draw_step_times_above(rf_training_figure *f, rf_plot *p)
{
    int above = 0;
    double highest = 0;
    cairo_t *cr = p->cr;
    cairo_save(cr);
    for (guint i = 0; i < f->series->len; i++) {
        run_series *s = rf_training_series(f, i);
        GArray *col = s->hidden ? NULL : rf_training_panel_column(s, RF_TRAINING_STEP_TIME, SERIES_TRAIN, false);
        if (col == NULL)
            continue;
        const double *xs = (const double *)(void *)rf_training_x_column(f, s, SERIES_TRAIN)->data;
        const double *v = (const double *)(void *)col->data;
        rf_set_color(cr, rf_training_run_color(s, i), 1);
        double last_px = -INFINITY;
        for (guint j = 0; j < col->len; j++) {
            if (xs[j] < p->x.min || xs[j] > p->x.max || !isfinite(v[j]) || v[j] <= p->y.max)
                continue;
            above++;
            highest = fmax(highest, v[j]);
            double px = round(rf_plot_px(p, xs[j])) + 0.5;
            if (px - last_px < 4)   /* one triangle per few pixels however many steps */
                continue;
            last_px = px;
            cairo_move_to(cr, px, p->frame.y);
            cairo_line_to(cr, px + 5, p->frame.y + 7);
            cairo_line_to(cr, px - 5, p->frame.y + 7);
            cairo_close_path(cr);
            cairo_fill(cr);
        }
    }
    if (above > 0) {
        char value[32], key[96];
        rf_axis_format_value(&p->y, highest, value, sizeof value);
        snprintf(key, sizeof key, "↑ %d %s, max %s", above, above == 1 ? "step" : "steps", value);
        rf_set_color(cr, KEY_GREY, 1);
        draw_title_key(p, RF_TRAINING_STEP_TIME, key);
    }
    cairo_restore(cr);
}

static void draw(void *data, cairo_t *cr, double w, double h, const rf_zoom *zoom)
{
    rf_training_figure *f = data;
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_rectangle(cr, 0, 0, w, h);
    cairo_fill(cr);
    if (!rf_training_refresh(f)) {
        rf_draw_message(cr, (rf_rect){0, 0, w, h}, "No runs yet — press Train");
        cairo_restore(cr);
        return;
    }
    rf_plot plots[RF_TRAINING_N_PANELS];
    layout(f, cr, w, h, zoom, plots);
    rf_training_baselines baselines;
    rf_training_collect_baselines(f, &baselines);
    rf_training_draw_baseline_lines(&plots[RF_TRAINING_ACCURACY], &baselines);
    for (guint i = 0; i < f->series->len; i++) {
        run_series *s = rf_training_series(f, i);
        if (!s->hidden)
            rf_training_draw_run_layer(f, plots, s, rf_training_run_color(s, i));
    }
    for (guint i = 0; i < f->series->len; i++) {
        run_series *s = rf_training_series(f, i);
        if (!s->hidden)
            draw_validation(f, plots, s, rf_training_run_color(s, i));
    }
    for (guint i = 0; i < f->series->len; i++) {
        run_series *s = rf_training_series(f, i);
        if (!s->hidden)
            draw_changes(f, plots, s, rf_training_run_color(s, i));
    }
    rf_training_draw_baseline_labels(f, &plots[RF_TRAINING_ACCURACY], &baselines);
    draw_memory(f, &plots[RF_TRAINING_MEMORY]);
    draw_step_times_above(f, &plots[RF_TRAINING_STEP_TIME]);
    draw_legend(f, &plots[RF_TRAINING_LOSS]);
    draw_key(f, &plots[RF_TRAINING_ACCURACY]);
    bool buttons = !rf_plot_figure_only(cr);
    for (int p = 0; p < RF_TRAINING_N_PANELS; p++) {
        if (buttons)
            draw_log_button(f, &plots[p], p);
        rf_plot_end(&plots[p]);
    }
    cairo_restore(cr);
}

static bool empty(void *data, char *why, size_t size)
{
    if (rf_training_refresh(data))
        return false;
    snprintf(why, size, "there are no runs to plot yet: train one, or pick runs in the Runs view");
    return true;
}

rf_figure rf_training_figure_figure(rf_training_figure *f)
{
    return (rf_figure){.draw = draw, .hover = rf_training_hover, .data = f, .click = rf_training_click,
                       .empty = empty};
}
