/* The Projector view's figure: samples as points at their first two
 * principal components (core/pca.h), coloured by label, by the model's
 * answer or by whether the answer is right, with a legend of the colours;
 * the axis titles give each component's share of the variance, e.g.
 * "PC1 (41.2%)". Points are small translucent squares (smaller the more
 * there are), filled one colour at a time, so 10,000 redraw quickly; the
 * plot zooms and pans. Hover over a point names the sample
 * (index, label, answer, and what the view's describer adds); a click on
 * one tells the view. GTK-free, as every figure.
 */
#ifndef RF_PROJECTOR_FIGURE_H
#define RF_PROJECTOR_FIGURE_H

#include <stdint.h>

#include "../plot/figure.h"
#include "../plot/plot.h"

typedef enum rf_projector_colouring {
    RF_PROJECTOR_BY_LABEL,
    RF_PROJECTOR_BY_PREDICTION,
    RF_PROJECTOR_BY_CORRECTNESS,
} rf_projector_colouring;

typedef struct rf_projector_figure rf_projector_figure;

/* Called when a click lands on a point: the sample's index in the set. */
typedef void (*rf_projector_sample_chosen)(void *ctx, int64_t sample);
/* Writes a short description of sample `sample` (its text, its words) for
 * hover; may leave text empty. */
typedef void (*rf_projector_describe)(void *ctx, int64_t sample, char *text, size_t size);

rf_projector_figure *rf_projector_figure_new(void);
void rf_projector_figure_free(rf_projector_figure *f);
rf_figure rf_projector_figure_get(rf_projector_figure *f);
void rf_projector_figure_on_sample(rf_projector_figure *f, rf_projector_sample_chosen chosen, void *ctx);
void rf_projector_figure_on_describe(rf_projector_figure *f, rf_projector_describe describe, void *ctx);

/* Show n samples (copied): coords n x 2 (PC1, PC2), each one's label and
 * the model's answer (class indices below `classes`), the class names
 * (NULL: the indices), the two components' shares of the variance (0..1)
 * and a title. */
void rf_projector_figure_set(rf_projector_figure *f, const float *coords, int64_t n, const int *label,
                             const int *predicted, int classes, const char *const *class_names,
                             const double explained[2], const char *title);
/* Nothing computed: `message` in place of the figure. */
void rf_projector_figure_set_message(rf_projector_figure *f, const char *message);
void rf_projector_figure_set_colouring(rf_projector_figure *f, rf_projector_colouring colouring);
rf_projector_colouring rf_projector_figure_colouring(const rf_projector_figure *f);

/* The colour sample `sample` is drawn in under the current colouring
 * (false when there is no such sample). */
bool rf_projector_figure_point_colour(const rf_projector_figure *f, int64_t sample, rf_rgb *colour);
/* The device-point centre of sample `sample` when drawn at width x height
 * and `zoom` (false when there is no such sample; it may lie outside the
 * frame when zoomed). */
bool rf_projector_figure_point_centre(rf_projector_figure *f, double width, double height, const rf_zoom *zoom,
                                      int64_t sample, double *x, double *y);
/* The sample drawn nearest device point (x, y) inside the frame, within a
 * few pixels, or -1. */
int64_t rf_projector_figure_point_at(rf_projector_figure *f, double width, double height, const rf_zoom *zoom,
                                     double x, double y);

#endif
