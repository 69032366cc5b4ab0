/* How long the workbench takes to inspect one outside input (issue 17's
 * "a dropped file's maps in under a second at the ListOps settings"): a
 * ListOps expression featurised, then rf_trainer_inspect_input with one
 * probe, timed after a warm-up (the first call builds the batch-1 model).
 *
 *   build/bench/inspect_latency CONFIG PROBE     e.g. data/configs/listops-full.ini layer0.attn.probs
 *
 * The data set is the config's, shrunk to a few samples (only its shapes
 * matter here); the weights are the initial ones. */
#include <stdio.h>
#include <time.h>

#include "../config/config_file.h"
#include "../core/model.h"
#include "../core/probe.h"
#include "../core/train.h"
#include "../datasets/datasets.h"
#include "../datasets/featurise.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s CONFIG PROBE\n", argv[0]);
        return 2;
    }
    rf_config cfg;
    rf_config_defaults(&cfg);
    GError *error = NULL;
    if (!rf_config_load_ini(argv[1], NULL, &cfg, &error)) {
        fprintf(stderr, "%s\n", error->message);
        return 1;
    }
    cfg.data.train_size = 64;
    cfg.data.val_size = 32;
    cfg.data.test_size = 32;
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    rf_trainer *t = ds != NULL ? rf_trainer_new(&cfg, ds, &st) : NULL;
    float *x = ds != NULL ? g_new0(float, (size_t)ds->seq_len * (ds->feat_dim > 0 ? ds->feat_dim : 1)) : NULL;
    int len = 0;
    const char *names[1] = {argv[2]};
    rf_probe_set *ps = t != NULL && rf_dataset_featurise(ds, NULL, "[MAX 2 9 [MIN 4 7 ] 0 ]", x, &len, &st)
                           ? rf_probe_set_new(rf_trainer_model(t)->graph, names, 1, 0, &st)
                           : NULL;
    rf_outside_input in = {x, len};
    rf_inspection r;
    double best = 1e30;
    for (int k = 0; ps != NULL && k < 4; k++) {
        double t0 = now_s();
        if (!rf_trainer_inspect_input(t, &in, ps, &r, NULL, &st))
            break;
        if (k > 0)   /* the first builds the batch-1 model */
            best = now_s() - t0 < best ? now_s() - t0 : best;
    }
    int rc = 0;
    if (st.failed) {
        fprintf(stderr, "%s\n", st.msg);
        rc = 1;
    } else {
        printf("%s, N = %d, probe %s: one inspection %.3f s (best of 3)\n", cfg.model.encoder, ds->seq_len, argv[2],
               best);
    }
    rf_probe_set_free(ps);
    g_free(x);
    rf_trainer_free(t);
    rf_dataset_free(ds);
    return rc;
}
