/* `rangefinder bench --inference`: forward-only batched inference timed on
 * the build `predict` uses (rf_trainer_new_forward), for comparison with
 * the training step that `bench` times. */
#ifndef RF_APP_BENCH_INFERENCE_H
#define RF_APP_BENCH_INFERENCE_H

#include <glib.h>

#include "../core/config.h"

typedef struct rf_inference_bench {
    int batches;                  /* test batches per timed pass, spread over the split's lengths */
    int64_t samples;              /* samples per pass */
    double samples_per_s;         /* each batch on the length bucket that holds it */
    double padded_samples_per_s;  /* each batch padded to data.seq_len, as training runs it */
    double batch_median;          /* seconds per batch (the median pass / batches), buckets on */
    int buckets, buckets_used;    /* length buckets the build has, and the passes used */
    size_t planned;               /* the forward-only plan's bytes */
    size_t peak_engine;           /* the engine's allocation high-water mark while it ran, above what
                                     the data set holds */
} rf_inference_bench;

/* Open the data of `cfg`, build its forward-only model, then time passes
 * over the same test batches, spread evenly from the split's shortest
 * samples to its longest (rf_trainer_evaluate_spread; batch assembly
 * included, as for `predict`; no dropout, no backward): `warmup` + `steps`
 * passes with length buckets, then as many padded, keeping each one's
 * median pass. */
gboolean rf_bench_inference(const rf_config *cfg, int steps, int warmup, rf_inference_bench *out, GError **error);

#endif
