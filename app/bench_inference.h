/* `rangefinder bench --inference`: forward-only batched inference timed on
 * the build `predict` uses (rf_trainer_new_forward), for comparison with
 * the training step that `bench` times. */
#ifndef RF_APP_BENCH_INFERENCE_H
#define RF_APP_BENCH_INFERENCE_H

#include <glib.h>

#include "../core/config.h"

typedef struct rf_inference_bench {
    double batch_median;      /* seconds per batch of data.batch samples */
    double samples_per_s;
    size_t planned;           /* the forward-only plan's bytes */
    size_t peak_engine;       /* the engine's allocation high-water mark while it ran, above what
                                 the data set holds */
} rf_inference_bench;

/* Open the data of `cfg`, build its forward-only model, then time `warmup`
 * + `steps` forward passes of the first test batch (batch assembly
 * included, as for `predict`; no dropout, no backward) and keep the
 * median. */
gboolean rf_bench_inference(const rf_config *cfg, int steps, int warmup, rf_inference_bench *out, GError **error);

#endif
