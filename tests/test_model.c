/* The whole classifier: parameter gradients against finite differences, the
 * memory planner's estimate against the engine's measured peak, padding
 * invariance, and the graph's own bytes against the heap it took. */
#include <malloc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "../core/exec.h"
#include "../core/graph.h"
#include "../core/op.h"
#include "../core/model.h"
#include "../core/params.h"
#include "../core/rng.h"
#include "modelcheck.h"
#include "tap.h"

static rf_config small_config(const char *pool)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    cfg.model.dim = 8;
    cfg.model.heads = 2;
    cfg.model.ff = 12;
    cfg.model.layers = 2;
    cfg.data.classes = 5;
    cfg.data.vocab = 11;
    cfg.train.threads = 2;
    strcpy(cfg.model.pool, pool);
    return cfg;
}

/* Fill tokens/mask/labels; rows have lengths 7, 5, 3 out of 7. */
static void fill_inputs(rf_model *m)
{
    rf_graph *g = m->graph;
    rf_rng rng = {7};
    float *x = rf_value(g, m->x), *mask = rf_value(g, m->mask), *labels = rf_value(g, m->labels);
    for (int b = 0; b < m->batch; b++) {
        int len = m->seq_len - 2 * b;
        for (int t = 0; t < m->seq_len; t++) {
            x[b * m->seq_len + t] = t < len ? (float)rf_rng_int(&rng, 1, 10) : 0.0f;
            mask[b * m->seq_len + t] = t < len ? 1.0f : 0.0f;
        }
        labels[b] = (float)rf_rng_int(&rng, 0, 4);
    }
}


/* The model's parameter gradients against finite differences; then the
 * check itself must fail when the gradient of `zeroed` goes missing. */
static void check_gradients(const char *pool, const char *head, const char *zeroed)
{
    rf_config cfg = small_config(pool);
    strcpy(cfg.model.head, head);
    rf_status st = {0};
    rf_params *p = rf_params_new(3);
    rf_model *m = rf_model_new(&cfg, 3, 7, 0, 11, 5, p, true, &st);
    if (!tap_ok(m != NULL, "%s-pool model with a %s head builds", pool, head)) {
        tap_diag("%s", st.msg);
        return;
    }
    fill_inputs(m);
    rf_exec x;
    rf_exec_init(&x, m->graph, NULL, 1, 0, false);
    /* central differences in f32 with a step large enough to beat rounding */
    char what[64];
    snprintf(what, sizeof what, "%s-pool model, %s head", pool, head);
    modelcheck_param_grads(what, p, m->graph, m->loss, &x, 1e-2f);
    modelcheck_zeroed_grad_fails(what, p, m->graph, m->loss, &x, 1e-2f, zeroed);
    rf_model_free(m);
    rf_params_free(p);
}

/* Full attention skips key blocks that are all padding and, in backward,
 * query blocks whose output gradient is all zero (padded queries, which the
 * mean pooling does not read): with one sample of SEQ tokens and one of 5,
 * the second has a padded query block and a fully masked key block, and
 * the gradients must still match finite differences. */
static void check_padded_blocks(void)
{
    enum { SEQ = RF_ATTN_DEFAULT_KB + 9 };   /* past the default tile's key block (RF_TILES=default) */
    rf_config cfg = small_config("mean");
    rf_status st = {0};
    rf_params *p = rf_params_new(5);
    rf_model *m = rf_model_new(&cfg, 2, SEQ, 0, 11, 5, p, true, &st);
    if (!tap_ok(m != NULL, "a model of %d tokens builds", SEQ)) {
        tap_diag("%s", st.msg);
        return;
    }
    rf_rng rng = {9};
    float *x = rf_value(m->graph, m->x), *mask = rf_value(m->graph, m->mask), *labels = rf_value(m->graph, m->labels);
    for (int b = 0; b < 2; b++) {
        int len = b == 0 ? SEQ : 5;
        for (int t = 0; t < SEQ; t++) {
            x[b * SEQ + t] = t < len ? (float)rf_rng_int(&rng, 1, 10) : 0.0f;
            mask[b * SEQ + t] = t < len ? 1.0f : 0.0f;
        }
        labels[b] = (float)b;
    }
    rf_exec ex;
    rf_exec_init(&ex, m->graph, NULL, 1, 0, false);
    modelcheck_param_grads("full attention with a padded query block and a masked key block", p, m->graph, m->loss,
                           &ex, 1e-2f);
    rf_model_free(m);
    rf_params_free(p);
}

/* Appending padding to a sample must not change its logits. */
static void check_padding_invariance(void)
{
    rf_config cfg = small_config("mean");
    const float tokens[5] = {3, 1, 4, 1, 5};
    modelcheck_padding("mean-pool model", &cfg, tokens, 5, 9);
}

/* The planner's bytes (without allocating) against the engine's measured
 * high-water mark for the same graph, at a size over 256 MiB. */
static void check_plan_matches_peak(void)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    cfg.model.dim = 256;
    cfg.model.heads = 8;
    cfg.model.ff = 1024;
    cfg.train.threads = 2;
    int batch = 8, len = 1024;

    rf_params *planned = rf_params_new(1);
    rf_status st = {0};
    rf_model *dry = rf_model_new(&cfg, batch, len, 0, 16, 10, planned, false, &st);
    size_t plan = dry->plan.arena_bytes + dry->plan.scratch_bytes + 4 * rf_params_bytes(planned);
    tap_ok(rf_alloc_live_bytes() == 0, "planning allocates nothing");
    rf_model_free(dry);
    rf_params_free(planned);

    rf_alloc_reset_peak();
    size_t before = rf_alloc_live_bytes();
    rf_params *p = rf_params_new(1);
    rf_model *m = rf_model_new(&cfg, batch, len, 0, 16, 10, p, true, &st);
    fill_inputs(m);
    rf_exec x;
    rf_exec_init(&x, m->graph, NULL, 1, 0, true);
    for (int step = 0; step < 2; step++) {
        rf_graph_forward(m->graph, &x);
        rf_params_zero_grads(p);
        rf_graph_backward(m->graph, &x, NULL);
    }
    size_t peak = rf_alloc_peak_bytes() - before;
    double ratio = (double)peak / (double)plan;
    tap_ok(plan > (size_t)256 << 20, "the plan for batch 8, length 1024, width 256 exceeds 256 MiB (%.1f MiB)",
           plan / 1048576.0);
    tap_ok(ratio > 0.9 && ratio < 1.1, "measured peak %.1f MiB is within 10%% of the plan %.1f MiB",
           peak / 1048576.0, plan / 1048576.0);
    tap_ok(m->plan.arena_bytes < m->plan.buffer_bytes,
           "the arena (%.1f MiB) reuses memory: less than all its buffers together (%.1f MiB)",
           m->plan.arena_bytes / 1048576.0, m->plan.buffer_bytes / 1048576.0);
    rf_model_free(m);
    rf_params_free(p);
    tap_ok(rf_alloc_live_bytes() == before, "freeing the model returns every byte");
}

/* The linear op's chunked backward keeps its partial dW in scratch: a
 * training plan reserves it, a forward-only plan (inference) does not. */
static void check_backward_scratch_only_in_training(void)
{
    const int64_t rows = 4 * RF_LINEAR_ROW_CHUNK, k = 64, cols = 32;
    rf_params *p = rf_params_new(1);
    rf_graph *g = rf_graph_new(p);
    rf_id x = rf_input(g, "x", rf_shape2(rows, k), false);
    rf_id w = rf_param(g, "w", rf_shape2(k, cols), RF_INIT_NORMAL, 0.1f);
    rf_id loss = rf_mean(g, rf_sum(g, rf_linear(g, x, w, RF_NONE), 1), 0);
    rf_graph_plan_info train = {0}, infer = {0};
    rf_status st = {0};
    bool ok = rf_graph_plan(g, loss, 1, &train, &st) && rf_graph_plan(g, RF_NONE, 1, &infer, &st);
    size_t partials = (size_t)(rows / RF_LINEAR_ROW_CHUNK) * (size_t)(k * cols + cols) * sizeof(float);
    tap_ok(ok && train.scratch_bytes >= partials && infer.scratch_bytes == 0,
           "a linear of %lld rows plans %zu bytes of backward scratch for training (partials %zu), %zu for inference",
           (long long)rows, train.scratch_bytes, partials, infer.scratch_bytes);
    rf_graph_free(g);
    rf_params_free(p);
}

/* rf_graph_own_bytes against what building a graph of 262,144 nodes,
 * one in eight named, took from the heap (glibc's count; an address
 * sanitizer's allocator keeps none), and a node's share of it: under 300
 * bytes with its name, which no longer sits in every node. */
static void check_graph_own_bytes(void)
{
#if defined(__SANITIZE_ADDRESS__)
    tap_skip("the graph's own bytes", "the heap's own count (mallinfo2) is not kept under the address sanitizer");
#else
    enum { NODES = 1 << 18 };   /* the node array's capacity: it doubles from 256 */
    struct mallinfo2 before = mallinfo2();
    rf_graph *g = rf_graph_new(NULL);
    rf_id x = rf_input(g, "x", rf_shape2(4, 8), false);
    for (int i = 1; i < NODES; i++) {
        x = rf_relu(g, x);
        if (i % 8 == 0)
            rf_set_name(g, x, "layer%d.block%d.relu", i / 1000, i % 1000);
    }
    struct mallinfo2 after = mallinfo2();
    double heap = (double)(after.uordblks + after.hblkhd) - (double)(before.uordblks + before.hblkhd);
    double own = (double)rf_graph_own_bytes(g);
    tap_ok(rf_graph_ok(g) && fabs(own - heap) < 0.002 * heap,
           "a graph of %d nodes counts %.0f bytes of its own, the heap grew by %.0f (0.2%%)", NODES, own, heap);
    tap_ok(heap / NODES < 300, "a node takes %.0f bytes of the heap, its name included (under 300)", heap / NODES);
    rf_id found = rf_graph_find(g, "layer199.block992.relu");
    tap_ok(found == 199992 && strcmp(rf_graph_cnode(g, found)->name, "layer199.block992.relu") == 0,
           "a name set among them is found on its node");
    rf_graph_free(g);
#endif
}

int main(void)
{
    check_graph_own_bytes();
    check_gradients("mean", "linear", "layer0.attn.q.bias");   /* small: 1.6e-3 to 3.5e-3, one near 0 */
    check_gradients("cls", "linear", "embed.cls");   /* the curved one: through a LayerNorm at scale 0.02 */
    check_gradients("mean", "mlp", "head.hidden.weight");   /* model.head = mlp: Linear, GELU, Linear */
    check_padding_invariance();
    check_padded_blocks();
    check_plan_matches_peak();
    check_backward_scratch_only_in_training();
    /* flash-style full attention: memory linear in the length */
    rf_config cfg = small_config("mean");
    modelcheck_memory_growth("full attention", &cfg, 2, 1024, 16384, 20);
    return tap_done();
}
