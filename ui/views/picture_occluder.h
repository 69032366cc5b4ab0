/* Occluding part of the Data view's picture: a drag over the picture draws
 * a rectangle; on release its pixels are replaced by the attribution's
 * baseline (zero in the model's input, as `--baseline zero` and the
 * Attribution view's occlusion use) in a copy of the shown sample, which
 * is added to the Inspected list and watched, so the model's prediction of
 * the occluded picture replaces the original's (the copy remembers that
 * one as "before"). Ctrl+drag pans as over any plot.
 *
 * The drag is the plot's own gesture only over a picture, and only while
 * the session shows a sample (shown_sample.h). */
#ifndef RF_PICTURE_OCCLUDER_H
#define RF_PICTURE_OCCLUDER_H

#include <gtk/gtk.h>

#include "../figures/sample_figure.h"
#include "../session.h"

/* On `plot`, which draws `figure` (both outlive the occluder, which the
 * plot owns). */
void rf_picture_occluder_attach(GtkWidget *plot, rf_sample_figure *figure, RfSession *s);

/* Whether `in` is the occluded copy made last; then the sample it was made
 * from: inspected *origin (or NULL) or sample *index of *split. */
gboolean rf_picture_occluder_origin(GtkWidget *plot, const rf_inspected *in, rf_split *split, int64_t *index,
                                    const rf_inspected **origin);

/* Zero (the baseline) the pixels rows [r0, r1) x columns [c0, c1) of a
 * picture's features x (grid_h x grid_w tokens of feat_dim floats, each a
 * patch x patch square of channels in raster order, channels
 * interleaved). */
void rf_occlude_features(float *x, int grid_h, int grid_w, int feat_dim, int r0, int c0, int r1, int c1);

#endif
