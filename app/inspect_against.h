/* `rangefinder inspect --against OTHER`: a second checkpoint on the same
 * input. OTHER is a checkpoint file or a run folder (its
 * checkpoint.safetensors); its model must take what the first one's does
 * (the same data task, input width or vocabulary, length and classes).
 * Each output then holds A, B and A - B stacked, as one [3, ...] .npy. */
#ifndef RF_APP_INSPECT_AGAINST_H
#define RF_APP_INSPECT_AGAINST_H

#include <glib.h>

#include "saved_model.h"

/* The checkpoint file OTHER names: itself, or a run folder's
 * checkpoint.safetensors (g_free it). */
char *rf_against_file(const char *other);

/* Open the checkpoint file `other` as `b` (with the same --set changes) beside `a`, opened from
 * a_path. Fails with one sentence naming both files and what differs. On
 * failure what was built stays in `b` for rf_saved_model_clear. */
gboolean rf_against_open(rf_saved_model *b, const rf_saved_model *a, const char *a_path, const char *other,
                         const char *const *sets, gboolean forward_only, GError **error);

/* A, B and A - B (n floats each) as one .npy of shape [3, dims...],
 * written atomically; *range gets the largest |value| over A and B. */
gboolean rf_against_write(const char *path, int ndim, const int64_t *dims, const float *a, const float *b,
                          double *range, GError **error);

#endif
