/* One forward and backward pass of a classifier, written out for
 * tests/check_encoders_torch.py to repeat in PyTorch.
 *
 *   dump_encoder DIR LENGTHS [section.key=value ...]
 *
 * builds the model of the config (defaults plus the overrides) at length
 * data.max_len for a batch of one sample per entry of LENGTHS ("14,9,3":
 * valid tokens per row, the rest padding), with data.vocab token ids and
 * data.classes classes; moves every parameter off its initial value (so a
 * LayerNorm's unit gain or zero shift is not special); fills random tokens
 * and labels; runs forward and backward once and writes
 *   DIR/checkpoint.safetensors  the weights and the config (rf_checkpoint_save)
 *   DIR/batch.safetensors       tokens, mask, labels [B]; logits, loss []
 *   DIR/grads.safetensors       every parameter's gradient under its name
 * Exit status 1 with a message on stderr if anything fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/checkpoint.h"
#include "../core/model.h"
#include "../core/pool.h"
#include "../core/rng.h"
#include "../core/safetensors.h"

#define MAX_BATCH 16
#define PATH_SIZE 1024

static int fail(const char *what, const char *msg)
{
    fprintf(stderr, "dump_encoder: %s: %s\n", what, msg);
    return 1;
}

/* "14,9,3" -> lengths; returns the count, or -1. */
static int parse_lengths(const char *text, int max_len, int *len)
{
    int n = 0;
    for (const char *p = text; n < MAX_BATCH;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > max_len)
            return -1;
        len[n++] = (int)v;
        if (*end == '\0')
            return n;
        if (*end != ',')
            return -1;
        p = end + 1;
    }
    return -1;
}

/* Tokens in [1, vocab) at valid positions, 0 at padding; labels in [0, classes). */
static void fill_batch(rf_model *m, const int *len, int vocab, int classes)
{
    rf_graph *g = m->graph;
    rf_rng rng = {2024};
    float *x = rf_value(g, m->x), *mask = rf_value(g, m->mask), *labels = rf_value(g, m->labels);
    for (int b = 0; b < m->batch; b++) {
        for (int t = 0; t < m->seq_len; t++) {
            size_t i = (size_t)b * m->seq_len + t;
            x[i] = t < len[b] ? (float)rf_rng_int(&rng, 1, vocab - 1) : 0.0f;
            mask[i] = t < len[b] ? 1.0f : 0.0f;
        }
        labels[b] = (float)rf_rng_int(&rng, 0, classes - 1);
    }
}

/* value += U(-0.2, 0.2): gains leave 1, shifts and biases leave 0 */
static void perturb(rf_params *p)
{
    rf_rng rng = {99};
    for (size_t i = 0; i < p->total; i++)
        p->value[i] += (float)(0.4 * rf_rng_uniform(&rng) - 0.2);
}

static bool write_batch(const char *path, const rf_model *m, rf_status *st)
{
    rf_graph *g = m->graph;
    int classes = (int)rf_node_shape(g, m->logits).dim[1];
    rf_st_tensor t[5] = {
        {"tokens", 2, {m->batch, m->seq_len}, rf_value(g, m->x)},
        {"mask", 2, {m->batch, m->seq_len}, rf_value(g, m->mask)},
        {"labels", 1, {m->batch}, rf_value(g, m->labels)},
        {"logits", 2, {m->batch, classes}, rf_value(g, m->logits)},
        {"loss", 0, {0}, rf_value(g, m->loss)},
    };
    return rf_safetensors_write(path, t, 5, NULL, 0, st);
}

static bool write_grads(const char *path, const rf_params *p, rf_status *st)
{
    rf_st_tensor *t = calloc((size_t)p->count, sizeof *t);
    for (int i = 0; i < p->count; i++) {
        const rf_param_entry *e = &p->entries[i];
        snprintf(t[i].name, sizeof t[i].name, "%s", e->name);
        t[i].ndim = e->shape.ndim;
        memcpy(t[i].shape, e->shape.dim, sizeof t[i].shape);
        t[i].data = p->grad + e->offset;
    }
    bool ok = rf_safetensors_write(path, t, p->count, NULL, 0, st);
    free(t);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return fail("usage", "dump_encoder DIR LENGTHS [section.key=value ...]");
    rf_config cfg;
    rf_config_defaults(&cfg);
    rf_status st = {0};
    for (int i = 3; i < argc; i++)
        if (!rf_config_apply_override(&cfg, argv[i], &st))
            return fail(argv[i], st.msg);
    int len[MAX_BATCH];
    int batch = parse_lengths(argv[2], cfg.data.max_len, len);
    if (batch < 0)
        return fail(argv[2], "expected up to 16 lengths in [1, data.max_len], comma-separated");

    rf_params *p = rf_params_new(cfg.train.seed);
    rf_model *m = rf_model_new(&cfg, batch, cfg.data.max_len, 0, cfg.data.vocab, cfg.data.classes, p, true, &st);
    if (m == NULL)
        return fail(cfg.model.encoder, st.msg);
    perturb(p);
    fill_batch(m, len, cfg.data.vocab, cfg.data.classes);
    rf_pool *pool = rf_pool_new(cfg.train.threads);
    rf_exec x;
    rf_exec_init(&x, m->graph, pool, cfg.train.seed, 0, false);
    rf_graph_forward(m->graph, &x);
    rf_params_zero_grads(p);
    rf_graph_backward(m->graph, &x, NULL);

    char path[3][PATH_SIZE];
    const char *names[3] = {"checkpoint", "batch", "grads"};
    for (int i = 0; i < 3; i++)
        snprintf(path[i], PATH_SIZE, "%s/%s.safetensors", argv[1], names[i]);
    bool ok = rf_checkpoint_save(path[0], &cfg, p, 0, &st) && write_batch(path[1], m, &st) &&
              write_grads(path[2], p, &st);
    rf_model_free(m);
    rf_pool_free(pool);
    rf_params_free(p);
    return ok ? 0 : fail(argv[1], st.msg);
}
