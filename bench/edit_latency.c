/* How long the workbench takes from an edit to the updated prediction and
 * gradient × input (issue 40 item 2: within 100 ms at N <= 2,000): the
 * first test sample of at least MIN_LEN tokens as text, one digit changed
 * per edit, then what the workbench does after its debounce: featurise the
 * text, the batch-1 forward model's prediction (rf_trainer_inspect_input
 * with the logits probe, as the worker reads it) and gradient × input on
 * a batch-1 forward-only model (as ui/edit_attribution.c keeps it). Each
 * part timed; the best of 5 edits after a warm-up (the first plans the
 * models), wall and CPU time.
 *
 *   build/bench/edit_latency CONFIG [MIN_LEN]     e.g. data/configs/listops-full.ini 1900
 *
 * The data set is the config's, shrunk to a few samples (only its shapes
 * matter); the weights are the initial ones, which cost what trained ones
 * cost. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../config/config_file.h"
#include "../core/attribution.h"
#include "../core/model.h"
#include "../core/pool.h"
#include "../core/probe.h"
#include "../datasets/datasets.h"
#include "../datasets/featurise.h"
#include "../datasets/listops.h"

#define EDITS 5

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* The sample as the text a user edits: its tokens joined by spaces. */
static char *sample_text(const float *x, int len)
{
    GString *s = g_string_new(NULL);
    for (int i = 0; i < len; i++)
        g_string_append_printf(s, i > 0 ? " %s" : "%s", rf_listops_token_text((int)x[i]));
    return g_string_free(s, FALSE);
}

/* Edit k: the k-th digit of the text becomes another one. */
static void edit_digit(char *text, int k)
{
    for (char *c = text; *c != '\0'; c++)
        if (g_ascii_isdigit(*c) && (c == text || c[-1] == ' ') && (c[1] == ' ' || c[1] == '\0') && k-- == 0) {
            *c = (char)('0' + (*c - '0' + 1) % 10);
            return;
        }
}

typedef struct timing {
    double featurise, predict, attribute, total;
} timing;

static void keep_best(timing *best, timing now)
{
    best->featurise = now.featurise < best->featurise ? now.featurise : best->featurise;
    best->predict = now.predict < best->predict ? now.predict : best->predict;
    best->attribute = now.attribute < best->attribute ? now.attribute : best->attribute;
    best->total = now.total < best->total ? now.total : best->total;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s CONFIG [MIN_LEN]\n", argv[0]);
        return 2;
    }
    int min_len = argc > 2 ? atoi(argv[2]) : 0;
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
    cfg.data.batch = 1;   /* the workbench's models for one input */
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    rf_trainer *t = ds != NULL ? rf_trainer_new_forward(&cfg, ds, &st) : NULL;
    size_t width = ds != NULL && ds->feat_dim > 0 ? (size_t)ds->feat_dim : 1;
    float *x = ds != NULL ? g_new0(float, (size_t)ds->seq_len * width) : NULL;
    int len = 0, label = 0;
    bool ok = t != NULL;
    for (int64_t i = 0; ok && i < ds->size[RF_SPLIT_TEST] && len < min_len + (len == 0); i++)
        ok = ds->get(ds, RF_SPLIT_TEST, i, x, &len, &label, &st);
    char *text = ok ? sample_text(x, len) : NULL;
    const char *names[1] = {"logits"};
    rf_probe_set *ps = ok ? rf_probe_set_new(rf_trainer_model(t)->graph, names, 1, 0, &st) : NULL;
    ok = ps != NULL;
    rf_attr_request r = {.method = RF_ATTR_GRAD_INPUT, .target = -1, .steps = 1, .window = 1, .stride = 1};
    timing wall = {1e30, 1e30, 1e30, 1e30}, cpu = wall;
    for (int k = 0; ok && k <= EDITS; k++) {
        edit_digit(text, k);
        double w[4], c[4];
        w[0] = clock_s(CLOCK_MONOTONIC), c[0] = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        ok = rf_dataset_featurise(ds, NULL, text, x, &len, &st);
        w[1] = clock_s(CLOCK_MONOTONIC), c[1] = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        rf_inspection info;
        rf_outside_input in = {x, len};
        ok = ok && rf_trainer_inspect_input(t, &in, ps, &info, NULL, &st);
        w[2] = clock_s(CLOCK_MONOTONIC), c[2] = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        rf_attribution a = {0};
        ok = ok && rf_trainer_attribute(t, &in, &r, &a, &st);
        w[3] = clock_s(CLOCK_MONOTONIC), c[3] = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        rf_attribution_clear(&a);
        if (k == 0)
            continue;   /* the first plans the models */
        keep_best(&wall, (timing){w[1] - w[0], w[2] - w[1], w[3] - w[2], w[3] - w[0]});
        keep_best(&cpu, (timing){c[1] - c[0], c[2] - c[1], c[3] - c[2], c[3] - c[0]});
    }
    if (!ok) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    /* CPU seconds over the threads: the wall time an idle machine would take */
    int threads = cfg.train.threads > 0 ? cfg.train.threads : rf_cpu_count();
    printf("%s: edit of %d tokens -> prediction + gradient x input, %d threads, best of %d after a warm-up: "
           "%.1f ms wall (featurise %.1f, prediction %.1f, gradient x input %.1f); %.1f CPU ms (featurise %.1f, "
           "prediction %.1f, gradient x input %.1f) = %.1f ms over %d threads\n",
           cfg.model.encoder, len, threads, EDITS, 1e3 * wall.total, 1e3 * wall.featurise, 1e3 * wall.predict,
           1e3 * wall.attribute, 1e3 * cpu.total, 1e3 * cpu.featurise, 1e3 * cpu.predict, 1e3 * cpu.attribute,
           1e3 * cpu.total / threads, threads);
    rf_probe_set_free(ps);
    rf_trainer_free(t);
    rf_dataset_free(ds);
    g_free(text);
    g_free(x);
    return 0;
}
