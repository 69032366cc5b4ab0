/* The Evaluation view's figure: where a model is right and wrong on one
 * split (datasets/eval_slices.h).
 *
 *   left    the confusion matrix as a heatmap (rows the label, columns the
 *           model's answer), each cell's count written in it where it
 *           fits, the shared map legend beside it; a click selects a cell
 *           (outlined) and tells the view, which lists its samples;
 *   right   precision, recall and F1 per class as a table, and the
 *           accuracy of every group of every slice as bars, each marked
 *           where the data set's baselines (majority class, first token's
 *           class) score on that group's samples, where the data has them.
 *
 * The counts are the last text drawn, row by row, so what a figure draws
 * can be read back in order from its text (an SVG export keeps it).
 * GTK-free, as every figure.
 */
#ifndef RF_EVALUATION_FIGURE_H
#define RF_EVALUATION_FIGURE_H

#include "../../datasets/eval_slices.h"
#include "../plot/figure.h"

typedef struct rf_evaluation_figure rf_evaluation_figure;

/* Called when a click selects a cell of the matrix. */
typedef void (*rf_evaluation_cell_chosen)(void *ctx, int label, int answer);

rf_evaluation_figure *rf_evaluation_figure_new(void);
void rf_evaluation_figure_free(rf_evaluation_figure *f);
rf_figure rf_evaluation_figure_get(rf_evaluation_figure *f);
void rf_evaluation_figure_on_cell(rf_evaluation_figure *f, rf_evaluation_cell_chosen chosen, void *ctx);

/* Show `s` (moved in: the figure owns it now and *s is left empty) under
 * `title`. No cell selected. */
void rf_evaluation_figure_set(rf_evaluation_figure *f, rf_eval_slices *s, const char *title);
/* Nothing measured: `message` in place of the figure. */
void rf_evaluation_figure_set_message(rf_evaluation_figure *f, const char *message);

/* What is shown (NULL while a message is), and the selected cell. */
const rf_eval_slices *rf_evaluation_figure_slices(const rf_evaluation_figure *f);
bool rf_evaluation_figure_selected(const rf_evaluation_figure *f, int *label, int *answer);
/* Select a cell as a click on it does (the callback is called). */
void rf_evaluation_figure_select(rf_evaluation_figure *f, int label, int answer);

/* The device-point centre of a cell when drawn at width x height (false
 * when there is no matrix). */
bool rf_evaluation_figure_cell_centre(rf_evaluation_figure *f, double width, double height, int label, int answer,
                                      double *x, double *y);

#endif
