/* Forward-only inference timing for `rangefinder bench --inference`. */
#include "bench_inference.h"

#include <stdlib.h>
#include <time.h>

#include "../core/alloc.h"
#include "../core/train.h"
#include "../datasets/datasets.h"
#include "cli.h"
#include "data_open.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median seconds of `steps` passes over `batches` spread test
 * batches, after `warmup` untimed ones (which build the buckets). */
static gboolean median_pass(rf_trainer *t, int batches, int steps, int warmup, double *median, int64_t *samples,
                            rf_status *st)
{
    g_autofree double *seconds = g_new(double, steps);
    for (int i = 0; i < warmup + steps; i++) {
        rf_metrics m;
        double t0 = now_s();
        if (!rf_trainer_evaluate_spread(t, RF_SPLIT_TEST, batches, &m, st))
            return FALSE;
        if (i >= warmup)
            seconds[i - warmup] = now_s() - t0;
        *samples = m.samples;
    }
    qsort(seconds, (size_t)steps, sizeof *seconds, compare_double);
    *median = steps % 2 ? seconds[steps / 2] : 0.5 * (seconds[steps / 2 - 1] + seconds[steps / 2]);
    return TRUE;
}

gboolean rf_bench_inference(const rf_config *cfg, int steps, int warmup, rf_inference_bench *out, GError **error)
{
    rf_status st = {0};
    rf_dataset *ds = rf_cli_open_data(cfg, &st);
    if (ds == NULL)
        return rf_cli_fail_status(error, &st);
    size_t before = rf_alloc_live_bytes();
    rf_alloc_reset_peak();
    rf_trainer *t = rf_trainer_new_forward(cfg, ds, &st);
    int64_t per_split = (ds->size[RF_SPLIT_TEST] + cfg->data.batch - 1) / cfg->data.batch;
    int batches = (int)(per_split < RF_LENGTH_BUCKETS ? per_split : RF_LENGTH_BUCKETS);
    double bucketed = 0, padded = 0;
    int64_t samples = 0;
    gboolean ok = t != NULL && median_pass(t, batches, steps, warmup, &bucketed, &samples, &st);
    if (ok) {
        *out = (rf_inference_bench){
            .batches = batches,
            .samples = samples,
            .samples_per_s = bucketed > 0 ? samples / bucketed : 0,
            .batch_median = bucketed / batches,
            .planned = rf_trainer_plan(t)->total,
        };
        out->buckets = rf_trainer_length_buckets(t, NULL, &out->buckets_used);
        padded = bucketed;
        if (out->buckets > 0) {
            rf_trainer_use_length_buckets(t, false);
            ok = median_pass(t, batches, steps, warmup, &padded, &samples, &st);
        }
        out->padded_samples_per_s = padded > 0 ? samples / padded : 0;
        out->peak_engine = rf_alloc_peak_bytes() - before;
    }
    rf_trainer_free(t);
    rf_dataset_free(ds);
    return ok ? TRUE : rf_cli_fail_status(error, &st);
}
