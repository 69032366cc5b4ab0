/* bf16 storage's gain (core/bf16_storage.h): one encoder at bench/compare.sh's
 * settings (ListOps sizes, length 2000, batch 32, full attention 8) built
 * three times in one process, f32, bf16 with every activation f32
 * (RF_BF16_STORAGE=off: products-only bf16) and bf16 with storage, whose
 * training steps alternate, each timed in the calling thread's CPU time on
 * one thread. Other work on the machine inflates wall time far more than
 * CPU time, and alternating spreads what remains over the three alike.
 *
 *   build-rel/bench/bench_bf16_storage ENCODER STEPS [key=value ...]
 *   e.g. bench_bf16_storage talk 3 model.lmax=31 model.rmax=31 model.glu=on
 *
 * Prints each variant's fastest step and planned activation arena. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/bf16_storage.h"
#include "../core/config.h"
#include "../core/exec.h"
#include "../core/gemm.h"
#include "../core/gemm_bf16.h"
#include "../core/model.h"
#include "../core/params.h"

enum { VARIANTS = 3 };
static const char *const variant_names[VARIANTS] = {"f32", "bf16 products", "bf16 storage"};

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *precision_of(int v)
{
    return v == 0 ? "f32" : "bf16";
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s ENCODER STEPS [key=value ...]\n", argv[0]);
        return 2;
    }
    if (!rf_bf16_supported()) {
        fprintf(stderr, "this CPU has no AVX512-BF16\n");
        return 1;
    }
    rf_config cfg;
    rf_config_defaults(&cfg);
    rf_status st = {0};
    static const char *const listops[] = {"model.layers=2", "model.dim=64", "model.heads=8", "model.ff=128",
                                          "model.dropout=0", "model.pool=mean", "train.threads=1"};
    bool ok = rf_config_set(&cfg, "model.encoder", argv[1], &st);
    for (size_t i = 0; ok && i < sizeof listops / sizeof *listops; i++)
        ok = rf_config_apply_override(&cfg, listops[i], &st);
    for (int i = 3; ok && i < argc; i++)
        ok = rf_config_apply_override(&cfg, argv[i], &st);
    int steps = atoi(argv[2]);
    if (!ok || steps < 1) {
        fprintf(stderr, "%s\n", ok ? "STEPS must be at least 1" : st.msg);
        return 2;
    }
    int batch = strcmp(argv[1], "full") == 0 ? 8 : 32, len = 2000, vocab = 20, classes = 10;
    rf_model *m[VARIANTS];
    rf_params *p[VARIANTS];
    for (int v = 0; v < VARIANTS; v++) {
        snprintf(cfg.train.precision, sizeof cfg.train.precision, "%s", precision_of(v));
        if (v == 1)
            setenv("RF_BF16_STORAGE", "off", 1);
        else
            unsetenv("RF_BF16_STORAGE");
        p[v] = rf_params_new(1);
        m[v] = rf_gemm_set_precision(precision_of(v), &st)
                   ? rf_model_new(&cfg, batch, len, 0, vocab, classes, p[v], true, &st)
                   : NULL;
        if (m[v] == NULL) {
            fprintf(stderr, "%s\n", st.msg);
            return 1;
        }
        float *x = rf_value(m[v]->graph, m[v]->x), *mask = rf_value(m[v]->graph, m[v]->mask);
        for (int i = 0; i < batch * len; i++) {
            x[i] = (float)(1 + i % (vocab - 1));
            mask[i] = 1.0f;
        }
        memset(rf_value(m[v]->graph, m[v]->labels), 0, (size_t)batch * sizeof(float));
    }
    unsetenv("RF_BF16_STORAGE");
    double best[VARIANTS] = {1e30, 1e30, 1e30};
    for (int s = 0; s <= steps; s++)   /* step 0 warms up */
        for (int v = 0; v < VARIANTS; v++) {
            rf_gemm_set_precision(precision_of(v), &st);
            rf_exec ex;
            rf_exec_init(&ex, m[v]->graph, NULL, 1, (uint64_t)s, true);
            double t0 = thread_cpu_s();
            rf_graph_forward(m[v]->graph, &ex);
            rf_params_zero_grads(p[v]);
            rf_graph_backward(m[v]->graph, &ex, NULL);
            double t = thread_cpu_s() - t0;
            if (s > 0 && t < best[v])
                best[v] = t;
        }
    for (int v = 0; v < VARIANTS; v++)
        printf("%s %-13s %.3f s/step (CPU, fastest of %d), %d values in bf16, arena %.1f MiB\n", argv[1],
               variant_names[v], best[v], steps, rf_graph_bf16_nodes(m[v]->graph),
               (double)m[v]->plan.arena_bytes / 1048576.0);
    printf("%s storage / products %.3f, f32 / storage %.3f\n", argv[1], best[2] / best[1], best[0] / best[2]);
    for (int v = 0; v < VARIANTS; v++) {
        rf_model_free(m[v]);
        rf_params_free(p[v]);
    }
    rf_gemm_set_precision("f32", &st);
    return 0;
}
