/* The training figure's read-outs (the point, marker or control under the
 * pointer) and clicks (legend entries hide and show runs, "log" buttons
 * switch a panel's scale). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "training_figure_private.h"

#define HOVER_RADIUS 20.0    /* device units: farther than this from every point reads nothing */
#define MARKER_REACH 5.0     /* device units either side of a change marker */
#define MARKER_ZONE 14.0     /* the strip above the x axis where a marker wins over the points */

/* A step as "1,240". */
static void format_step(double step, char *buf, size_t size)
{
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%lld", (long long)llround(step));
    size_t o = 0;
    for (int i = 0; i < n && o + 2 < size; i++) {
        if (i > 0 && digits[i - 1] != '-' && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
}

/* "step 1,240", or "2:05 · step 1,240" on the time axis. */
static void format_where(const rf_training_figure *f, double step, double time, char *buf, size_t size)
{
    char s[32], t[32];
    format_step(step, s, sizeof s);
    if (rf_training_figure_get_x(f) == RF_TRAINING_X_TIME) {
        rf_format_duration(time, t, sizeof t);
        snprintf(buf, size, "%s · step %s", t, s);
    } else {
        snprintf(buf, size, "step %s", s);
    }
}

typedef struct nearest {
    double distance;
    guint run;
    int split;         /* SERIES_*, or -1 for a memory line */
    guint row;         /* in the split's columns */
    double value;
    bool peak;         /* memory: the peak line (else planned) */
} nearest;

static void consider(nearest *best, const rf_plot *p, double px, double py, double x, double y, guint run,
                     int split, guint row)
{
    if (!isfinite(x) || !isfinite(y) || x < p->x.min || x > p->x.max || (p->y.scale == RF_AXIS_LOG && y <= 0))
        return;
    double d = hypot(rf_plot_px(p, x) - px, rf_plot_py(p, y) - py);
    if (d < best->distance)
        *best = (nearest){d, run, split, row, y, false};
}

static void nearest_point(rf_training_figure *f, const rf_plot *p, int panel, double px, double py, nearest *best)
{
    for (guint i = 0; i < f->series->len; i++) {
        run_series *s = rf_training_series(f, i);
        if (s->hidden)
            continue;
        for (int k = 0; k < N_SERIES; k++) {
            const double *xs = (const double *)(void *)rf_training_x_column(f, s, k)->data;
            for (int smoothed = 0; smoothed < 2; smoothed++) {
                GArray *col = rf_training_panel_column(s, panel, k, smoothed);
                if (col == NULL || (smoothed && !rf_training_smoothing_on(f)))
                    continue;
                const double *v = (const double *)(void *)col->data;
                for (guint j = 0; j < col->len; j++)
                    consider(best, p, px, py, xs[j], v[j], i, k, j);
            }
        }
    }
}

static void nearest_memory(rf_training_figure *f, const rf_plot *p, double px, double py, nearest *best)
{
    rf_training_x x = rf_training_figure_get_x(f);
    for (guint i = 0; i < f->series->len; i++) {
        run_series *s = rf_training_series(f, i);
        if (s->hidden)
            continue;
        double x0 = rf_plot_px(p, fmax(s->first[x], p->x.min)), x1 = rf_plot_px(p, fmin(s->last[x], p->x.max));
        if (px < x0 - HOVER_RADIUS || px > x1 + HOVER_RADIUS)
            continue;
        double values[2] = {s->run->peak_bytes, s->run->planned_bytes};
        for (int k = 0; k < 2; k++) {
            if (!(values[k] > 0))
                continue;
            double d = fabs(rf_plot_py(p, values[k]) - py);
            if (d < best->distance)
                *best = (nearest){d, i, -1, 0, values[k], k == 0};
        }
    }
}

/* The change marker nearest px within MARKER_REACH: its run and step
 * (false when none). */
static bool nearest_change(rf_training_figure *f, const rf_plot *p, double px, guint *run, int64_t *step,
                           double *x_at)
{
    double best = MARKER_REACH;
    bool found = false;
    for (guint i = 0; i < f->series->len; i++) {
        run_series *s = rf_training_series(f, i);
        for (guint j = 0; !s->hidden && j < s->run->changes->len; j++) {
            const rf_run_change *c = &g_array_index(s->run->changes, rf_run_change, j);
            double x = rf_training_change_x(f, s, c);
            if (!isfinite(x) || x < p->x.min || x > p->x.max)
                continue;
            double d = fabs(rf_plot_px(p, x) - px);
            if (d <= best) {
                best = d;
                *run = i;
                *step = c->step;
                *x_at = x;
                found = true;
            }
        }
    }
    return found;
}

/* "step 1,240: train.lr 0.0004 → 0.0001, train.clip 1 → 0.5 (run)": every
 * key the run changed at that step. */
static void describe_change(rf_training_figure *f, guint run, int64_t step, double x, char *text, size_t size)
{
    run_series *s = rf_training_series(f, run);
    char where[96];
    format_where(f, (double)step, x, where, sizeof where);
    size_t o = (size_t)snprintf(text, size, "%s:", where);
    const char *sep = " ";
    for (guint j = 0; j < s->run->changes->len && o < size; j++) {
        const rf_run_change *c = &g_array_index(s->run->changes, rf_run_change, j);
        if (c->step != step)
            continue;
        o += (size_t)snprintf(text + o, size - o, "%s%s %s → %s", sep, c->key, c->before, c->after);
        sep = ", ";
    }
    if (o < size)
        snprintf(text + o, size - o, " (%s)", s->run->name);
}

static void describe_point(rf_training_figure *f, int panel, const nearest *best, char *text, size_t size)
{
    run_series *s = rf_training_series(f, best->run);
    const char *name = s->run->name;
    char value[48], where[96];
    if (panel == RF_TRAINING_MEMORY) {
        rf_format_bytes(best->value, value, sizeof value);
        snprintf(text, size, "%s %s (%s)", best->peak ? "measured peak" : "planned", value, name);
        return;
    }
    const columns *c = &s->split[best->split];
    format_where(f, g_array_index(c->step, double, best->row), g_array_index(c->time, double, best->row), where,
                 sizeof where);
    bool val = best->split == SERIES_VAL;
    const char *split = val ? "val" : "train";
    bool smoothed = !val && rf_training_smoothing_on(f) &&
                    (panel == RF_TRAINING_LOSS || panel == RF_TRAINING_ACCURACY);
    switch (panel) {
    case RF_TRAINING_LOSS: {
        double raw = g_array_index(c->loss, double, best->row);
        if (smoothed)
            snprintf(text, size, "%s · train loss %.4g, smoothed %.4g (%s)", where, raw,
                     g_array_index(s->smooth_loss, double, best->row), name);
        else
            snprintf(text, size, "%s · %s loss %.4g (%s)", where, split, raw, name);
        break;
    }
    case RF_TRAINING_ACCURACY: {
        double raw = g_array_index(c->accuracy, double, best->row);
        if (smoothed)
            snprintf(text, size, "%s · train acc %.1f %%, smoothed %.1f %% (%s)", where, 100 * raw,
                     100 * g_array_index(s->smooth_accuracy, double, best->row), name);
        else
            snprintf(text, size, "%s · %s acc %.1f %% (%s)", where, split, 100 * raw, name);
        break;
    }
    case RF_TRAINING_LR:
        snprintf(text, size, "%s · learning rate %.3g (%s)", where, best->value, name);
        break;
    default:
        snprintf(text, size, "%s · %.3g s/step (%s)", where, best->value, name);
        break;
    }
}

/* The legend entry under the point (in the loss panel), or -1. */
static int legend_entry(rf_training_figure *f, const laid_out *l, double px, double py)
{
    g_auto(GStrv) labels = rf_training_legend_labels(f);
    const rf_plot *loss = &l->plots[RF_TRAINING_LOSS];
    return rf_plot_legend_entry_at(loss, (const char *const *)labels, (int)f->series->len,
                                   rf_training_legend_corner(f, loss, (const char *const *)labels), px, py);
}

/* The panel whose log button is under the point, or -1. */
static int log_button(const laid_out *l, double px, double py)
{
    for (int p = 0; p < RF_TRAINING_N_PANELS; p++) {
        rf_rect r = rf_training_log_button(&l->plots[p], p);
        if (r.w > 0 && px >= r.x && px <= r.x + r.w && py >= r.y && py <= r.y + r.h)
            return p;
    }
    return -1;
}

static bool hover_in(rf_training_figure *f, const laid_out *l, double px, double py, char *text, size_t size)
{
    int entry = legend_entry(f, l, px, py);
    if (entry >= 0) {
        run_series *s = rf_training_series(f, (guint)entry);
        snprintf(text, size, "%s (click to %s)", s->run->name, s->hidden ? "show it" : "hide it");
        return true;
    }
    int button = log_button(l, px, py);
    if (button >= 0) {
        snprintf(text, size, "click for a %s scale", f->log[button] ? "linear" : "log");
        return true;
    }
    int panel = -1;
    for (int p = 0; p < RF_TRAINING_N_PANELS; p++)
        if (rf_plot_contains(&l->plots[p], px, py))
            panel = p;
    if (panel < 0)
        return false;
    const rf_plot *p = &l->plots[panel];
    nearest best = {.distance = HOVER_RADIUS};
    if (panel == RF_TRAINING_MEMORY) {
        nearest_memory(f, p, px, py, &best);
    } else {
        guint run = 0;
        int64_t step = 0;
        double x = NAN;
        bool marker = nearest_change(f, p, px, &run, &step, &x);
        if (marker && py >= p->frame.y + p->frame.h - MARKER_ZONE) {
            describe_change(f, run, step, x, text, size);
            return true;
        }
        nearest_point(f, p, panel, px, py, &best);
        if (marker && best.distance >= HOVER_RADIUS) {
            describe_change(f, run, step, x, text, size);
            return true;
        }
    }
    if (best.distance >= HOVER_RADIUS)
        return false;
    describe_point(f, panel, &best, text, size);
    return true;
}

bool rf_training_hover(void *data, double w, double h, const rf_zoom *zoom, double px, double py, char *text,
                       size_t size)
{
    rf_training_figure *f = data;
    if (!rf_training_refresh(f))
        return false;
    laid_out l;
    rf_training_lay_out(f, w, h, zoom, &l);
    bool found = hover_in(f, &l, px, py, text, size);
    rf_training_laid_out_clear(&l);
    return found;
}

bool rf_training_click(void *data, double w, double h, const rf_zoom *zoom, double px, double py)
{
    rf_training_figure *f = data;
    if (!rf_training_refresh(f))
        return false;
    laid_out l;
    rf_training_lay_out(f, w, h, zoom, &l);
    int entry = legend_entry(f, &l, px, py), button = log_button(&l, px, py);
    rf_training_laid_out_clear(&l);
    if (entry >= 0) {
        rf_training_series(f, (guint)entry)->hidden = !rf_training_series(f, (guint)entry)->hidden;
        return true;
    }
    if (button >= 0) {
        rf_training_figure_set_log(f, (rf_training_panel)button, !f->log[button]);
        return true;
    }
    return false;
}
