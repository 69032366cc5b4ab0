/* A sweep's parallel coordinates (`rangefinder plot --parallel`): one
 * vertical axis per swept key (a list of words as evenly spaced labelled
 * ticks, numbers on a linear or log axis) and a last axis for the metric;
 * one polyline per trial through its values, coloured by its metric with a
 * colour bar beside; trials stopped early drawn dashed, failed ones (and
 * any without a metric) grey and dashed, under the others.
 *
 * The figure holds plain text and numbers (app/ fills it from a sweep's
 * table, app/sweep_table.h), so a workbench view can draw it too. */
#ifndef RF_PARALLEL_FIGURE_H
#define RF_PARALLEL_FIGURE_H

#include <glib.h>

#include "../plot/figure.h"

typedef enum { RF_PARALLEL_CATEGORY, RF_PARALLEL_LINEAR, RF_PARALLEL_LOG } rf_parallel_scale;
typedef enum { RF_PARALLEL_FINISHED, RF_PARALLEL_STOPPED, RF_PARALLEL_FAILED } rf_parallel_status;

typedef struct rf_parallel_figure rf_parallel_figure;

/* A figure of the metric `metric` ("val_accuracy"); higher_better: its direction. */
rf_parallel_figure *rf_parallel_figure_new(const char *metric, bool higher_better);
void rf_parallel_figure_free(rf_parallel_figure *f);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(rf_parallel_figure, rf_parallel_figure_free)

/* The next axis, left to right: a swept key. RF_PARALLEL_CATEGORY ticks are
 * `categories` (NULL-terminated, in this order; NULL: the values in the
 * order the trials give them); a log axis shows values > 0. */
void rf_parallel_figure_add_axis(rf_parallel_figure *f, const char *name, rf_parallel_scale scale,
                                 const char *const *categories);
/* A trial: its value on each axis as text (as many as axes), its metric
 * (NaN: none). */
void rf_parallel_figure_add_trial(rf_parallel_figure *f, const char *label, const char *const *values, double metric,
                                  rf_parallel_status status);

guint rf_parallel_figure_axis_count(const rf_parallel_figure *f);   /* the keys' axes and the metric's */
/* The x of axis `i` (0 to rf_parallel_figure_axis_count - 1) when drawn at width x height on cr's text scale. */
double rf_parallel_figure_axis_x(const rf_parallel_figure *f, cairo_t *cr, double width, double height, guint i);

guint rf_parallel_figure_trial_count(const rf_parallel_figure *f);
/* Trial i's label, in the order they were added. */
const char *rf_parallel_figure_trial_label(const rf_parallel_figure *f, guint i);
/* The trial whose line passes within a few pixels of (px, py) when drawn at
 * width x height (the nearest; the one on top when they cross): its index,
 * or -1. The figure's hover names it. */
int rf_parallel_figure_trial_at(const rf_parallel_figure *f, double width, double height, double px, double py);
/* Draw the trial labelled `label` on top of the others, thick, with a dark
 * casing (NULL: none). */
void rf_parallel_figure_highlight(rf_parallel_figure *f, const char *label);
const char *rf_parallel_figure_highlighted(const rf_parallel_figure *f);

rf_figure rf_parallel_figure_figure(rf_parallel_figure *f);

#endif
