/* The data's baselines on the training figure's accuracy panel: the
 * dashed lines and their labels (training_figure_private.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "training_figure_private.h"

#define BASELINE_GREY ((rf_rgb){0.35, 0.35, 0.38})

void rf_training_baseline_label(const rf_run_data *run, int kind, char *buf, size_t size)
{
    double value = kind == 0 ? run->baseline_first_token : run->baseline_majority;
    snprintf(buf, size, "%s · %s: %.1f%%", run->cfg.data.task, kind == 0 ? "first token alone" : "majority class",
             100 * value);
}

void rf_training_collect_baselines(rf_training_figure *f, rf_training_baselines *b)
{
    baseline_mark *marks = b->marks;
    int n = 0;
    for (guint i = 0; i < f->series->len; i++) {
        run_series *s = rf_training_series(f, i);
        if (s->hidden || isnan(s->first[f->x]))
            continue;
        const double values[2] = {s->run->baseline_first_token, s->run->baseline_majority};
        for (int k = 0; k < 2; k++) {
            if (!isfinite(values[k]))
                continue;
            int j = 0;
            while (j < n && !(marks[j].kind == k && fabs(marks[j].value - values[k]) < 5e-4 &&
                              strcmp(marks[j].run->cfg.data.task, s->run->cfg.data.task) == 0))
                j++;
            if (j == n) {
                if (n == RF_TRAINING_MAX_BASELINES)
                    continue;
                marks[n++] = (baseline_mark){values[k], k, s->run, s->first[f->x], s->last[f->x]};
            }
            marks[j].x0 = fmin(marks[j].x0, s->first[f->x]);
            marks[j].x1 = fmax(marks[j].x1, s->last[f->x]);
        }
    }
    b->n = n;
}

/* Where a baseline line runs in device units (false: outside the panel). */
static bool baseline_span(const rf_plot *acc, const baseline_mark *m, double *x0, double *x1, double *y)
{
    if (m->value < acc->y.min || m->value > acc->y.max || m->x1 < acc->x.min || m->x0 > acc->x.max)
        return false;
    double right = acc->frame.x + acc->frame.w;
    *x0 = m->x1 > m->x0 ? fmax(rf_plot_px(acc, m->x0), acc->frame.x) : acc->frame.x;
    *x1 = m->x1 > m->x0 ? fmin(rf_plot_px(acc, m->x1), right) : right;
    *y = round(rf_plot_py(acc, m->value)) + 0.5;
    return true;
}

void rf_training_draw_baseline_lines(rf_plot *acc, const rf_training_baselines *b)
{
    const baseline_mark *marks = b->marks;
    int n = b->n;
    cairo_t *cr = acc->cr;
    cairo_save(cr);
    cairo_rectangle(cr, acc->frame.x, acc->frame.y, acc->frame.w, acc->frame.h);
    cairo_clip(cr);
    rf_set_color(cr, BASELINE_GREY, 1);
    cairo_set_line_width(cr, 1.5);
    double dash = 6;
    cairo_set_dash(cr, &dash, 1, 0);
    for (int i = 0; i < n; i++) {
        double x0, x1, y;
        if (!baseline_span(acc, &marks[i], &x0, &x1, &y))
            continue;
        cairo_move_to(cr, x0, y);
        cairo_line_to(cr, x1, y);
        cairo_stroke(cr);
    }
    cairo_restore(cr);
}

static bool in_box(const rf_rect *b, double x, double y)
{
    return x >= b->x && x <= b->x + b->w && y >= b->y && y <= b->y + b->h;
}

/* How much of the shown runs' accuracy a label box would cover: every
 * train row counts, a validation point ten times (they are few). */
static double covered(rf_training_figure *f, const rf_plot *acc, const rf_rect *box)
{
    double score = 0;
    for (guint i = 0; i < f->series->len; i++) {
        run_series *s = rf_training_series(f, i);
        if (s->hidden)
            continue;
        for (int k = 0; k < N_SERIES; k++) {
            const GArray *xs = rf_training_x_column(f, s, k);
            const GArray *cols[2] = {rf_training_panel_column(s, RF_TRAINING_ACCURACY, k, false),
                                     rf_training_smoothing_on(f)
                                         ? rf_training_panel_column(s, RF_TRAINING_ACCURACY, k, true)
                                         : NULL};
            double x_lo = rf_plot_x_at(acc, box->x), x_hi = rf_plot_x_at(acc, box->x + box->w);
            /* the rows under the box only (x ascending): a label costs the
             * same beside a 100k-step run as beside a short one */
            const double *xv = (const double *)(void *)xs->data;
            guint lo = 0, hi = xs->len;
            while (lo < hi) {
                guint mid = lo + (hi - lo) / 2;
                if (xv[mid] < x_lo)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (int c = 0; c < 2; c++)
                for (guint j = lo; cols[c] != NULL && j < cols[c]->len && xv[j] <= x_hi; j++) {
                    double x = xv[j], y = g_array_index(cols[c], double, j);
                    if (!isfinite(y))
                        continue;
                    if (in_box(box, rf_plot_px(acc, x), rf_plot_py(acc, y)))
                        score += k == SERIES_VAL ? 10 : 1;
                }
        }
    }
    return score;
}

void rf_training_draw_baseline_labels(rf_training_figure *f, rf_plot *acc, const rf_training_baselines *b)
{
    const baseline_mark *marks = b->marks;
    int n = b->n;
    cairo_t *cr = acc->cr;
    rf_rect placed[RF_TRAINING_MAX_BASELINES];
    int n_placed = 0;
    const double pad = 4, h = rf_plot_text_size(cr) + 4;
    for (int i = 0; i < n; i++) {
        double x0, x1, y;
        if (!baseline_span(acc, &marks[i], &x0, &x1, &y))
            continue;
        char label[96];
        rf_training_baseline_label(marks[i].run, marks[i].kind, label, sizeof label);
        double w = rf_text_width(cr, RF_PLOT_TEXT, false, label) + 6;
        const double lefts[3] = {x1 - pad - w, x0 + pad, (x0 + x1 - w) / 2};
        const double tops[2] = {y - 3 - h, y + 3};
        rf_rect best = {0};
        double best_score = INFINITY;
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 2; b++) {
                rf_rect box = {lefts[a], tops[b], w, h};
                double score = covered(f, acc, &box);
                if (box.x < acc->frame.x || box.x + box.w > acc->frame.x + acc->frame.w || box.y < acc->frame.y ||
                    box.y + box.h > acc->frame.y + acc->frame.h)
                    score += 1e6;
                for (int j = 0; j < n_placed; j++)
                    if (box.x < placed[j].x + placed[j].w && placed[j].x < box.x + box.w &&
                        box.y < placed[j].y + placed[j].h && placed[j].y < box.y + box.h)
                        score += 1e4;
                if (score < best_score) {
                    best_score = score;
                    best = box;
                }
            }
        placed[n_placed++] = best;
        cairo_save(cr);
        cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
        cairo_rectangle(cr, best.x, best.y, best.w, best.h);
        cairo_fill(cr);
        rf_set_color(cr, KEY_GREY, 1);
        rf_draw_text(cr, best.x + 3, best.y + best.h / 2, 0, 0.5, RF_PLOT_TEXT, false, label);
        cairo_restore(cr);
    }
}
