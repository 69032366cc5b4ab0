/* How long integrated gradients take for one input at a config's settings
 * (issue 40: about 1 s for 32 steps on one ListOps sample of 2,000 tokens
 * on 2 cores): the config's test sample 0 (or, with --min-len, the first
 * sample at least that long), rf_trainer_attribute with `steps` points,
 * timed after a warm-up (the first call plans the attribution model).
 *
 *   build/bench/attribution_latency CONFIG [STEPS [MIN_LEN]]
 *       e.g. data/configs/listops-full.ini 32 1900
 *
 * The data set is the config's, shrunk to a few samples (only its shapes
 * matter); the weights are the initial ones, which cost what trained ones
 * cost. The trainer is a forward-only build, as `rangefinder inspect
 * --attribution` makes it (no parameter gradient). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../config/config_file.h"
#include "../core/attribution.h"
#include "../core/pool.h"
#include "../datasets/datasets.h"

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s CONFIG [STEPS [MIN_LEN]]\n", argv[0]);
        return 2;
    }
    int steps = argc > 2 ? atoi(argv[2]) : 32, min_len = argc > 3 ? atoi(argv[3]) : 0;
    rf_config cfg;
    rf_config_defaults(&cfg);
    GError *error = NULL;
    if (!rf_config_load_ini(argv[1], NULL, &cfg, &error)) {
        fprintf(stderr, "%s\n", error->message);
        return 1;
    }
    cfg.data.train_size = 64;
    cfg.data.val_size = 32;
    cfg.data.test_size = 256;
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    rf_trainer *t = ds != NULL ? rf_trainer_new_forward(&cfg, ds, &st) : NULL;
    float *x = ds != NULL ? g_new0(float, (size_t)ds->seq_len * (ds->feat_dim > 0 ? ds->feat_dim : 1)) : NULL;
    rf_outside_input in = {x, 0};
    int label = 0;
    bool ok = t != NULL;
    for (int64_t i = 0; ok && i < ds->size[RF_SPLIT_TEST] && in.len < min_len + (in.len == 0); i++)
        ok = ds->get(ds, RF_SPLIT_TEST, i, x, &in.len, &label, &st);
    rf_attr_request r = {.method = RF_ATTR_IG, .target = -1, .steps = steps};
    double best = 1e30, cpu = 1e30, completeness = 0;
    for (int k = 0; ok && k < 4; k++) {
        rf_attribution a;
        double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        ok = rf_trainer_attribute(t, &in, &r, &a, &st);
        double s = clock_s(CLOCK_MONOTONIC) - t0, c = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
        if (k > 0 && s < best)   /* the first plans the attribution model */
            best = s;
        if (k > 0 && c < cpu)
            cpu = c;
        if (ok) {
            completeness = a.completeness / (fabs(a.fx - a.fbase) > 0 ? fabs(a.fx - a.fbase) : 1);
            rf_attribution_clear(&a);
        }
    }
    if (!ok) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    /* CPU seconds over the threads: the wall time an idle machine would take */
    int threads = cfg.train.threads > 0 ? cfg.train.threads : rf_cpu_count();
    printf("%s: integrated gradients, %d steps, one sample of %d tokens, batch %d, %d threads: %.3f s "
           "(best of 3 after a warm-up), %.2f CPU s (%.3f s over %d threads); completeness error %.2g of "
           "F(x) - F(baseline)\n", cfg.model.encoder, steps, in.len, cfg.data.batch + 2, threads, best, cpu,
           cpu / threads, threads, completeness);
    rf_trainer_free(t);
    rf_dataset_free(ds);
    g_free(x);
    return 0;
}
