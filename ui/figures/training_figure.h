/* The Training view's figure: several runs' metrics against the step or
 * the wall time, in five panels sharing that axis (loss, accuracy, learning
 * rate, step time, memory). Train rows are thin lines, smoothed as
 * TensorBoard does (the raw rows faint behind); validation rows thick lines
 * with points. Loss, learning rate and step time can each be drawn on a log
 * scale (the "log" button in the panel's title row); a click on a legend
 * entry hides or shows that run; a marker on the axis shows where an
 * optimiser key was changed live; dashed grey lines across the accuracy
 * panel mark what the runs' data give without a model (their baselines.ini:
 * the majority class, each first token's class). Zoom applies to the shared axis; the
 * value axes fit the visible part of the shown runs. Drawn the same on
 * screen, in exports and by `rangefinder plot`.
 */
#ifndef RF_TRAINING_FIGURE_H
#define RF_TRAINING_FIGURE_H

#include "../plot/figure.h"
#include "../plot/run_data.h"

typedef struct rf_training_figure rf_training_figure;

typedef enum rf_training_panel {
    RF_TRAINING_LOSS,
    RF_TRAINING_ACCURACY,
    RF_TRAINING_LR,
    RF_TRAINING_STEP_TIME,
    RF_TRAINING_MEMORY,
    RF_TRAINING_N_PANELS,
} rf_training_panel;

typedef enum rf_training_x {
    RF_TRAINING_X_STEP,
    RF_TRAINING_X_TIME,   /* wall time since the run started (metrics' `seconds`, summed over resumes) */
} rf_training_x;

/* TensorBoard's default smoothing weight, which a new figure starts with. */
#define RF_TRAINING_SMOOTHING_DEFAULT 0.6

rf_training_figure *rf_training_figure_new(void);
void rf_training_figure_free(rf_training_figure *f);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(rf_training_figure, rf_training_figure_free)

/* The runs to draw, oldest first (borrowed: they must stay alive until the
 * next call). Rows appended to these runs later are picked up at the next
 * draw; run i is drawn in rf_series_color(i). */
void rf_training_figure_set_runs(rf_training_figure *f, rf_run_data *const *runs, guint n);
/* How many runs it draws (the last set_runs's n). */
guint rf_training_figure_get_run_count(const rf_training_figure *f);

/* The smoothing weight of the train loss and accuracy, 0 (raw) to
 * RF_SMOOTH_MAX (clamped). */
void rf_training_figure_set_smoothing(rf_training_figure *f, double weight);
double rf_training_figure_get_smoothing(const rf_training_figure *f);

void rf_training_figure_set_x(rf_training_figure *f, rf_training_x x);
rf_training_x rf_training_figure_get_x(const rf_training_figure *f);

/* A log value axis for a panel; false (and no change) for the panels that
 * stay linear (accuracy, memory). */
bool rf_training_figure_set_log(rf_training_figure *f, rf_training_panel panel, bool log);
bool rf_training_figure_get_log(const rf_training_figure *f, rf_training_panel panel);
/* The panel named "loss", "accuracy", "lr", "step_time" or "memory", or -1. */
int rf_training_panel_from_name(const char *name);

/* Hide run i (set_runs order) from the panels and their ranges; its legend
 * entry stays, greyed. Kept while the same run stays at i. */
void rf_training_figure_set_hidden(rf_training_figure *f, guint run, bool hidden);
bool rf_training_figure_get_hidden(const rf_training_figure *f, guint run);

/* The figure (its data is `f`; a click toggles a legend entry or a log button). */
rf_figure rf_training_figure_figure(rf_training_figure *f);

#endif
