/* What a projector draws: for the first samples of a split, one vector each
 * read from inside a model (forward only, a batch at a time), with the
 * sample's label, the model's answer and its length.
 *
 *   pool    the pooled representation, the head's input (tap "pool");
 *   latent  BLRP's final latent state, its l rows of d numbers flattened:
 *           the last latent the model computes (the backward pass's
 *           blrp.latent.bwd.1 where there is one, else the forward pass's
 *           blrp.latent.fwd.T), which has read every segment and which the
 *           head's pooling reads through the last segment. Padded samples
 *           keep the latent of their last valid segment (BLRP's gate), so
 *           the full-length graph gives the same state as a shorter one.
 */
#ifndef RF_DATASETS_PROJECTION_H
#define RF_DATASETS_PROJECTION_H

#include "../core/train.h"

#define RF_PROJECTION_DEFAULT_SAMPLES 2000
#define RF_PROJECTION_MAX_SAMPLES 10000

typedef enum rf_projection_what { RF_PROJECTION_POOL, RF_PROJECTION_LATENT } rf_projection_what;

typedef struct rf_projection {
    int64_t count;           /* samples taken */
    int width;               /* numbers per vector */
    char tap[64];            /* the tap they were read from */
    float *vectors;          /* count x width */
    int *label, *predicted, *length;   /* count each */
} rf_projection;

/* "pool" or "latent" (false otherwise). */
bool rf_projection_what_parse(const char *name, rf_projection_what *what);

/* The first min(samples, split size) samples of `split` (samples in
 * 1..RF_PROJECTION_MAX_SAMPLES). Runs every batch at the full length (the
 * trainer's length buckets are turned off, then back on). Fails for
 * `latent` on a model without BLRP's latent, naming the taps it has. */
bool rf_projection_collect(rf_trainer *t, const rf_dataset *ds, rf_split split, int64_t samples,
                           rf_projection_what what, rf_projection *p, rf_status *st);
void rf_projection_clear(rf_projection *p);

#endif
