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

gboolean rf_bench_inference(const rf_config *cfg, int steps, int warmup, rf_inference_bench *out, GError **error)
{
    rf_status st = {0};
    rf_dataset *ds = rf_cli_open_data(cfg, &st);
    if (ds == NULL)
        return rf_cli_fail_status(error, &st);
    size_t before = rf_alloc_live_bytes();
    rf_alloc_reset_peak();
    rf_trainer *t = rf_trainer_new_forward(cfg, ds, &st);
    g_autofree double *seconds = g_new(double, steps);
    gboolean ok = t != NULL;
    for (int i = 0; ok && i < warmup + steps; i++) {
        rf_metrics m;
        double t0 = now_s();
        ok = rf_trainer_evaluate(t, RF_SPLIT_TEST, 1, &m, &st);
        if (i >= warmup)
            seconds[i - warmup] = now_s() - t0;
    }
    if (ok) {
        qsort(seconds, (size_t)steps, sizeof *seconds, compare_double);
        double median = steps % 2 ? seconds[steps / 2] : 0.5 * (seconds[steps / 2 - 1] + seconds[steps / 2]);
        *out = (rf_inference_bench){
            .batch_median = median,
            .samples_per_s = median > 0 ? cfg->data.batch / median : 0,
            .planned = rf_trainer_plan(t)->total,
            .peak_engine = rf_alloc_peak_bytes() - before,
        };
    }
    rf_trainer_free(t);
    rf_dataset_free(ds);
    return ok ? TRUE : rf_cli_fail_status(error, &st);
}
