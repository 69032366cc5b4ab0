/* The Training view's figure: several runs' metrics against the step, in
 * five panels sharing the step axis (loss, accuracy, learning rate, step
 * time, memory). Train rows are thin, light lines; validation rows thick
 * lines with points. Zoom applies to the step axis; the value axes fit the
 * visible steps. Drawn the same on screen, in exports and by
 * `rangefinder plot`.
 */
#ifndef RF_TRAINING_FIGURE_H
#define RF_TRAINING_FIGURE_H

#include "../plot/figure.h"
#include "../plot/run_data.h"

typedef struct rf_training_figure rf_training_figure;

rf_training_figure *rf_training_figure_new(void);
void rf_training_figure_free(rf_training_figure *f);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(rf_training_figure, rf_training_figure_free)

/* The runs to draw, oldest first (borrowed: they must stay alive until the
 * next call). Rows appended to these runs later are picked up at the next
 * draw; run i is drawn in rf_series_color(i). */
void rf_training_figure_set_runs(rf_training_figure *f, rf_run_data *const *runs, guint n);

/* The figure (its data is `f`). */
rf_figure rf_training_figure_figure(rf_training_figure *f);

#endif
