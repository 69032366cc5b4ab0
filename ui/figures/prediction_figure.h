/* What the model makes of one input: every class's probability as a
 * horizontal bar, the class names in a column at the left (the font
 * shrinks until the widest name fits, so no label is cut), the probability
 * after each bar, the predicted class in bold and highlighted. GTK-free
 * (GLib for memory), as every figure. */
#ifndef RF_PREDICTION_FIGURE_H
#define RF_PREDICTION_FIGURE_H

#include "../plot/figure.h"

typedef struct rf_prediction_figure rf_prediction_figure;

rf_prediction_figure *rf_prediction_figure_new(void);
void rf_prediction_figure_free(rf_prediction_figure *f);
rf_figure rf_prediction_figure_get(rf_prediction_figure *f);

/* The title ("model at step 300: Sneaker") and n class probabilities;
 * names may be NULL ("class 3"). n = 0 clears the figure to `title` as a
 * message. Everything is copied. */
void rf_prediction_figure_set(rf_prediction_figure *f, const char *title, const char *const *names,
                              const float *probs, int n);
/* The classes shown (0: none). */
int rf_prediction_figure_count(const rf_prediction_figure *f);

#endif
