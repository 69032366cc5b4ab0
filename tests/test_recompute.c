/* train.recompute (core/recompute.h): one training step of every encoder
 * with recomputation gives the loss and every parameter gradient of the
 * step that keeps its activations, bit for bit (dropout on, padded rows,
 * two threads); and the planner's arena shrinks where it must. */
#include <stdlib.h>
#include <string.h>

#include "../core/exec.h"
#include "../core/model.h"
#include "../core/params.h"
#include "../core/pool.h"
#include "../core/recompute.h"
#include "tap.h"

enum { BATCH = 3, SEQ = 24, VOCAB = 11, CLASSES = 5, THREADS = 2 };

static rf_config small_config(const char *encoder, const char *recompute)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.model.encoder, encoder);
    cfg.model.dim = 16;
    cfg.model.heads = 2;
    cfg.model.ff = 24;
    cfg.model.layers = 2;
    cfg.model.dropout = 0.1f;   /* the recomputed masks must be the stored ones */
    cfg.model.window = 4;       /* ls */
    cfg.model.rank = 4;
    cfg.model.segment = 4;      /* blrp: 6 segments of 4 tokens */
    cfg.model.latent = 3;
    cfg.data.classes = CLASSES;
    cfg.data.vocab = VOCAB;
    cfg.train.threads = THREADS;
    strcpy(cfg.train.recompute, recompute);
    return cfg;
}

/* The loss and all parameter gradients of one step. */
typedef struct step_result {
    float loss;
    float *grads;
    size_t floats;
    int clones;
} step_result;

/* Rows of lengths 24, 14 and 6: padding, and BLRP's row scopes skipping
 * the empty segments' rows. */
static void fill_inputs(rf_model *m)
{
    rf_graph *g = m->graph;
    float *x = rf_value(g, m->x), *mask = rf_value(g, m->mask), *labels = rf_value(g, m->labels);
    static const int len[BATCH] = {SEQ, 14, 6};
    for (int b = 0; b < BATCH; b++) {
        for (int t = 0; t < SEQ; t++) {
            x[b * SEQ + t] = t < len[b] ? (float)(1 + (7 * b + 3 * t) % (VOCAB - 1)) : 0.0f;
            mask[b * SEQ + t] = t < len[b] ? 1.0f : 0.0f;
        }
        labels[b] = (float)(b % CLASSES);
    }
}

static bool train_step(const char *encoder, const char *recompute, rf_pool *pool, step_result *out)
{
    rf_config cfg = small_config(encoder, recompute);
    rf_status st = {0};
    rf_params *p = rf_params_new(3);
    rf_model *m = rf_model_new(&cfg, BATCH, SEQ, 0, VOCAB, CLASSES, p, true, &st);
    if (m == NULL) {
        tap_diag("%s, recompute = %s: %s", encoder, recompute, st.msg);
        rf_params_free(p);
        return false;
    }
    fill_inputs(m);
    rf_params_zero_grads(p);
    rf_exec x;
    rf_exec_init(&x, m->graph, pool, 5, 2, true);
    rf_graph_forward(m->graph, &x);
    rf_graph_backward(m->graph, &x, NULL);
    out->loss = rf_value(m->graph, m->loss)[0];
    out->floats = p->total;
    out->grads = malloc(p->total * sizeof(float));
    memcpy(out->grads, p->grad, p->total * sizeof(float));
    out->clones = rf_graph_recompute_clones(m->graph);
    rf_model_free(m);
    rf_params_free(p);
    return true;
}

/* The gradients with `mode` against those with recompute off. */
static void check_same_gradients(const char *encoder, const char *mode, rf_pool *pool)
{
    step_result off, on;
    if (!train_step(encoder, "off", pool, &off))
        return (void)tap_ok(false, "%s: a step with recompute = off runs", encoder);
    if (!train_step(encoder, mode, pool, &on)) {
        free(off.grads);
        return (void)tap_ok(false, "%s: a step with recompute = %s runs", encoder, mode);
    }
    bool nonzero = false;
    for (size_t i = 0; i < off.floats; i++)
        nonzero |= off.grads[i] != 0.0f;
    tap_ok(off.clones == 0 && on.clones > 0 && nonzero,
           "%s: recompute = off clones nothing, %s clones %d ops, and the step has gradients", encoder, mode,
           on.clones);
    size_t first = off.floats;
    for (size_t i = 0; i < off.floats && first == off.floats; i++)
        if (memcmp(&off.grads[i], &on.grads[i], sizeof(float)) != 0)
            first = i;
    tap_ok(off.floats == on.floats && memcmp(&off.loss, &on.loss, sizeof(float)) == 0 && first == off.floats,
           "%s: recompute = %s gives the loss and all %zu gradient floats bit for bit", encoder, mode, off.floats);
    if (first < off.floats)
        tap_diag("gradient float %zu: %.9g without, %.9g with", first, (double)off.grads[first],
                 (double)on.grads[first]);
    if (memcmp(&off.loss, &on.loss, sizeof(float)) != 0)
        tap_diag("loss %.9g without, %.9g with", (double)off.loss, (double)on.loss);
    free(off.grads);
    free(on.grads);
}

/* The planned arena (activations, their gradients, saved tensors) of a
 * training step, nothing allocated; 0 on failure. */
static size_t planned_arena(rf_config cfg, const char *recompute, int batch, int seq)
{
    strcpy(cfg.train.recompute, recompute);
    rf_status st = {0};
    rf_params *p = rf_params_new(1);
    rf_model *m = rf_model_new(&cfg, batch, seq, 0, VOCAB, CLASSES, p, false, &st);
    size_t bytes = m != NULL ? m->plan.arena_bytes : 0;
    if (m == NULL)
        tap_diag("%s", st.msg);
    rf_model_free(m);
    rf_params_free(p);
    return bytes;
}

static void check_plans(void)
{
    rf_config full = small_config("full", "off");
    full.model.layers = 4;
    size_t off = planned_arena(full, "off", 4, 256), layers = planned_arena(full, "layers", 4, 256);
    size_t segments = planned_arena(full, "segments", 4, 256);
    tap_ok(off > 0 && layers > 0 && layers < off,
           "full attention, 4 layers: recompute = layers plans %zu arena bytes, below off's %zu", layers, off);
    tap_ok(segments == layers, "full attention: recompute = segments plans as layers (%zu bytes)", segments);

    rf_config blrp = small_config("blrp", "off");
    blrp.model.segment = 16;   /* 8 segments of 16 tokens */
    blrp.model.latent = 8;
    off = planned_arena(blrp, "off", 4, 128);
    layers = planned_arena(blrp, "layers", 4, 128);
    segments = planned_arena(blrp, "segments", 4, 128);
    tap_ok(off > 0 && layers > 0 && layers < off && segments < layers,
           "blrp, 8 segments: arena bytes off %zu > layers %zu > segments %zu", off, layers, segments);

    /* What a long sequence costs under segments, in [N, D] tensors: each
     * token's share of the arena's growth from 1,024 to 2,048 tokens (Φ's
     * latents as many as a segment's tokens). Recomputing a Θ_SELF layer
     * over the whole sequence at once, with Φ's probabilities [l, N] and
     * Θ_X's normalised queries kept through it, took 21.1; one sublayer at
     * a time, Φ and the queries recomputed, 15.8. */
    blrp.model.latent = 16;
    size_t shorter = planned_arena(blrp, "segments", 1, 1024), longer = planned_arena(blrp, "segments", 1, 2048);
    double per_token = (double)(longer - shorter) / 1024.0 / (blrp.model.dim * sizeof(float));
    tap_ok(shorter > 0 && per_token < 18.0, "blrp, recompute = segments: a token costs %.1f floats per model dim (< 18)",
           per_token);
}

/* Whether a block's second part, a sublayer region, keeps its input `mid`
 * through the forward pass: x -> [a block: mid = gelu(x)] -> [its
 * sublayer: gelu(mid)] -> loss. */
static bool sublayer_input_kept(rf_recompute mode)
{
    rf_params *p = rf_params_new(1);
    rf_graph *g = rf_graph_new(p);
    rf_id x = rf_input(g, "x", rf_shape2(4, 8), true);
    rf_graph_region(g, RF_REGION_LAYER);
    rf_id mid = rf_gelu(g, x);
    rf_graph_region(g, RF_REGION_SUBLAYER);
    rf_id out = rf_gelu(g, mid);
    rf_graph_region(g, RF_REGION_NONE);
    rf_id loss = rf_sum(g, rf_sum(g, out, 1), 0);
    rf_status st = {0};
    rf_plan_buffer *buf = NULL;
    int nb = 0;
    bool kept = false;
    if (!rf_graph_recompute(g, mode, &st) || !rf_graph_plan_buffers(g, loss, 1, &buf, &nb, &st))
        tap_diag("%s", st.msg);
    for (int b = 0; b < nb; b++)
        if (buf[b].node == mid && buf[b].kind == 0)
            kept = buf[b].death > loss;   /* past the forward pass's slots */
    free(buf);
    rf_graph_free(g);
    rf_params_free(p);
    return kept;
}

static void check_sublayers(void)
{
    tap_ok(!sublayer_input_kept(RF_RECOMPUTE_LAYERS),
           "recompute = layers recomputes a block and its sublayer together: the sublayer's input is not kept");
    tap_ok(sublayer_input_kept(RF_RECOMPUTE_SEGMENTS),
           "recompute = segments recomputes the sublayer alone, from its kept input");
}

static void check_refusals(void)
{
    rf_config cfg = small_config("full", "sometimes");
    rf_status st = {0};
    rf_params *p = rf_params_new(1);
    rf_model *m = rf_model_new(&cfg, BATCH, SEQ, 0, VOCAB, CLASSES, p, false, &st);
    tap_ok(m == NULL && strstr(st.msg, "train.recompute") != NULL, "an unknown recompute mode is refused: %s",
           st.msg);
    rf_model_free(m);
    rf_params_free(p);
}

int main(void)
{
    rf_pool *pool = rf_pool_new(THREADS);
    static const char *const encoders[] = {"full", "ls", "talk", "linear", "maelre", "blrp"};
    for (size_t e = 0; e < sizeof encoders / sizeof *encoders; e++)
        check_same_gradients(encoders[e], "layers", pool);
    check_same_gradients("blrp", "segments", pool);
    rf_pool_free(pool);
    check_plans();
    check_sublayers();
    check_refusals();
    return tap_done();
}
