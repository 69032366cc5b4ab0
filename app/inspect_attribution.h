/* `rangefinder inspect --attribution`: one input's attribution
 * (core/attribution.h) as a .npy file of one value per position (an
 * image's as its grid, [grid_h, grid_w]) and a JSON summary on stdout.
 * With --against, two checkpoints' attributions and their difference as
 * one [3, ...] .npy (inspect_against.h), each side's prediction, class
 * probabilities and numbers in the summary, with their shared range. */
#ifndef RF_APP_INSPECT_ATTRIBUTION_H
#define RF_APP_INSPECT_ATTRIBUTION_H

#include <glib.h>

#include "../core/attribution.h"
#include "saved_model.h"

typedef struct rf_attr_cli {
    rf_attr_request request;     /* baseline filled here */
    const char *baseline;        /* "zero", "mean", "silence", or NULL for the data's own */
    const char *out;             /* the .npy file */
    /* The input: sample `sample` of `split`, or an outside input (path or text). */
    rf_split split;
    int64_t sample;
    const char *path, *text;
    /* --against: a second checkpoint explained on the same input and target
     * (the first one's class when none is asked for), or NULL */
    rf_saved_model *against;
    const char *checkpoint, *against_path;   /* their files, for the summary */
} rf_attr_cli;

/* The baseline a data set's features get by name into base (seq_len x
 * feat_dim floats): "zero" (black pictures), "mean" (the training split's
 * mean sample), "silence" (an audio folder's log-mel of a zero signal);
 * NULL picks silence for audio folders, zero otherwise. Token data take
 * none (the padding token is theirs). Fails naming the baseline. */
gboolean rf_attr_baseline(const rf_dataset *ds, const char *name, float *base, GError **error);

gboolean rf_inspect_attribution(rf_saved_model *sm, const rf_attr_cli *cli, GError **error);

#endif
