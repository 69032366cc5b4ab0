#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bf16_storage.h"
#include "device.h"
#include "encoders/encoder.h"
#include "encoders/maelre.h"
#include "gemm_bf16.h"
#include "pool.h"
#include "probe.h"
#include "recompute.h"

/* attribution: the input is where gradients are taken, so it needs one;
 * token ids are discrete, so their embeddings are the input instead. */
static rf_id embed(rf_model *m, rf_graph *g, int vocab, bool attribution)
{
    const rf_config *cfg = &m->cfg;
    int d = cfg->model.dim;
    if (m->feat_dim == 0 && attribution) {
        m->x = rf_input(g, "embedded", rf_shape3(m->batch, m->seq_len, d), true);
        return m->x;
    }
    if (m->feat_dim == 0) {
        m->x = rf_input(g, "tokens", rf_shape2(m->batch, m->seq_len), false);
        rf_id table = rf_param(g, "embed.tokens", rf_shape2(vocab, d), RF_INIT_NORMAL, 1.0f);
        return rf_embedding(g, m->x, table);
    }
    m->x = rf_input(g, "features", rf_shape3(m->batch, m->seq_len, m->feat_dim), attribution);
    return rf_dense(g, m->x, m->feat_dim, d, "embed.features", true);
}

/* table_len: the learned table's rows (the host's length when built for
 * shorter inputs, which read its first seq_len rows). */
static rf_id add_positions(rf_model *m, rf_graph *g, rf_id h, int table_len)
{
    const rf_config *cfg = &m->cfg;
    rf_shape s = rf_shape2(m->seq_len, cfg->model.dim);
    if (strcmp(cfg->model.pos, "learned") == 0) {
        rf_id table = rf_param(g, "embed.positions", rf_shape2(table_len, cfg->model.dim), RF_INIT_NORMAL, 0.02f);
        return rf_add(g, h, table_len > m->seq_len ? rf_slice(g, table, 0, 0, m->seq_len) : table);
    }
    if (strcmp(cfg->model.pos, "sinusoidal") == 0) {
        m->pos_table = rf_input(g, "const.positions", s, false);
        rf_graph_keep(g, m->pos_table);
        return rf_add(g, h, m->pos_table);
    }
    return h;
}

/* Prepend a learned CLS token: x [B, N, D] -> [B, N+1, D], mask likewise. */
static rf_id prepend_cls(rf_model *m, rf_graph *g, rf_id h, rf_id *mask)
{
    int d = m->cfg.model.dim;
    rf_id cls = rf_param(g, "embed.cls", rf_shape3(1, 1, d), RF_INIT_NORMAL, 0.02f);
    m->cls_zeros = rf_input(g, "const.cls_zeros", rf_shape3(m->batch, 1, d), false);
    m->cls_mask = rf_input(g, "const.cls_mask", rf_shape2(m->batch, 1), false);
    rf_graph_keep(g, m->cls_zeros);
    rf_graph_keep(g, m->cls_mask);
    rf_id parts[2] = {rf_add(g, m->cls_zeros, cls), h};
    rf_id masks[2] = {m->cls_mask, *mask};
    *mask = rf_concat(g, masks, 2, 1);
    return rf_concat(g, parts, 2, 1);
}

/* h [B, T, D'] (D' = the encoder's output width) -> [B, D'] */
static rf_id pool_tokens(rf_model *m, rf_graph *g, rf_id h, rf_id mask)
{
    if (h == RF_NONE)
        return RF_NONE;
    if (strcmp(m->cfg.model.pool, "cls") == 0) {
        rf_id first = rf_slice(g, h, 1, 0, 1);
        return rf_reshape(g, first, rf_shape2(m->batch, rf_node_shape(g, h).dim[2]));
    }
    if (mask == RF_NONE)
        return rf_mean(g, h, 1);
    return rf_masked_mean(g, h, mask);
}

void rf_model_refill_constants(rf_model *m)
{
    rf_graph *g = m->graph;
    int d = m->cfg.model.dim;
    if (m->pos_table != RF_NONE) {
        /* Vaswani et al.: sin on even, cos on odd channels */
        /* Vaswani et al.: sin on even, cos on odd channels; on a grid the
         * first half of the channels encodes the row, the second the column */
        float *p = rf_value(g, m->pos_table);
        int parts = m->grid_w > 0 ? 2 : 1, width = d / parts;
        for (int t = 0; t < m->seq_len; t++)
            for (int i = 0; i < d; i++) {
                int part = i / width < parts ? i / width : parts - 1, j = i - part * width;
                int pos = parts == 1 ? t : part == 0 ? t / m->grid_w : t % m->grid_w;
                double freq = pow(10000.0, -(double)(j / 2 * 2) / width);
                p[(size_t)t * d + i] = (float)(j % 2 == 0 ? sin(pos * freq) : cos(pos * freq));
            }
    }
    if (m->cls_zeros != RF_NONE) {
        memset(rf_value(g, m->cls_zeros), 0, (size_t)m->batch * d * sizeof(float));
        for (int b = 0; b < m->batch; b++)
            rf_value(g, m->cls_mask)[b] = 1.0f;
    }
}

/* What a model is built for: a memory plan only (of training or of forward
 * passes), training, forward passes only, or attribution (backward from
 * the logits to the input). */
typedef enum model_mode { MODEL_PLAN, MODEL_PLAN_FORWARD, MODEL_TRAIN, MODEL_FORWARD, MODEL_ATTRIBUTION } model_mode;

static rf_model *build(const rf_config *cfg, int batch, int seq_len, int feat_dim, int vocab, int classes,
                       int grid_h, int grid_w, rf_params *params, model_mode mode, const rf_model *host,
                       rf_status *st);

rf_model *rf_model_new(const rf_config *cfg, int batch, int seq_len, int feat_dim, int vocab, int classes,
                       rf_params *params, bool allocate, rf_status *st)
{
    return rf_model_new_grid(cfg, batch, seq_len, feat_dim, vocab, classes, 0, 0, params, allocate, st);
}

rf_model *rf_model_new_grid(const rf_config *cfg, int batch, int seq_len, int feat_dim, int vocab, int classes,
                            int grid_h, int grid_w, rf_params *params, bool allocate, rf_status *st)
{
    return build(cfg, batch, seq_len, feat_dim, vocab, classes, grid_h, grid_w, params,
                 allocate ? MODEL_TRAIN : MODEL_PLAN, NULL, st);
}

rf_model *rf_model_new_forward(const rf_config *cfg, int batch, int seq_len, int feat_dim, int vocab, int classes,
                               int grid_h, int grid_w, rf_params *params, rf_status *st)
{
    return build(cfg, batch, seq_len, feat_dim, vocab, classes, grid_h, grid_w, params, MODEL_FORWARD, NULL, st);
}

rf_model *rf_model_new_attribution(const rf_config *cfg, int batch, int seq_len, int feat_dim, int vocab,
                                   int classes, int grid_h, int grid_w, rf_params *params, rf_status *st)
{
    return build(cfg, batch, seq_len, feat_dim, vocab, classes, grid_h, grid_w, params, MODEL_ATTRIBUTION, NULL,
                 st);
}

rf_model *rf_model_new_forward_inside(const rf_model *host, int seq_len, int vocab, int classes, rf_status *st)
{
    if (host->grid_h != 0 || seq_len < 1 || seq_len > host->seq_len) {
        rf_fail(st, "a model for %d positions cannot share the arena of one for %d%s", seq_len, host->seq_len,
                host->grid_h != 0 ? " on a grid" : "");
        return NULL;
    }
    return build(&host->cfg, host->batch, seq_len, host->feat_dim, vocab, classes, 0, 0, host->params, MODEL_FORWARD,
                 host, st);
}

bool rf_model_length_invariant(const rf_config *cfg, int seq_len, int full_len)
{
    if (strcmp(cfg->model.encoder, "maelre") != 0)
        return true;
    rf_maelre_block a[RF_MAELRE_MAX_BLOCKS], b[RF_MAELRE_MAX_BLOCKS];
    int na = rf_maelre_blocks(cfg, seq_len, 0, 0, a, RF_MAELRE_MAX_BLOCKS);
    int nb = rf_maelre_blocks(cfg, full_len, 0, 0, b, RF_MAELRE_MAX_BLOCKS);
    if (na != nb || na < 1)
        return false;
    for (int i = 0; i < na; i++)
        if (a[i].linear != b[i].linear)
            return false;
    return true;
}

rf_model *rf_model_plan_forward(const rf_config *cfg, int batch, int seq_len, int feat_dim, int vocab, int classes,
                                int grid_h, int grid_w, rf_params *params, rf_status *st)
{
    return build(cfg, batch, seq_len, feat_dim, vocab, classes, grid_h, grid_w, params, MODEL_PLAN_FORWARD, NULL,
                 st);
}

static rf_model *build(const rf_config *cfg, int batch, int seq_len, int feat_dim, int vocab, int classes,
                       int grid_h, int grid_w, rf_params *params, model_mode mode, const rf_model *host,
                       rf_status *st)
{
    bool plan_only = mode == MODEL_PLAN || mode == MODEL_PLAN_FORWARD;
    bool forward_only = mode == MODEL_PLAN_FORWARD || mode == MODEL_FORWARD;
    if (grid_h * grid_w != 0 && grid_h * grid_w != seq_len) {
        rf_fail(st, "a %d x %d grid does not hold %d positions", grid_h, grid_w, seq_len);
        return NULL;
    }
    const rf_encoder_info *enc = rf_encoder_find(cfg->model.encoder);
    if (enc == NULL) {
        rf_fail(st, "model.encoder = '%s' is not available", cfg->model.encoder);
        return NULL;
    }
    if (!rf_config_validate(cfg, st))
        return NULL;
    rf_model *m = calloc(1, sizeof *m);
    m->cfg = *cfg;
    m->params = params;
    m->batch = batch;
    m->seq_len = seq_len;
    m->feat_dim = feat_dim;
    m->grid_h = grid_h;
    m->grid_w = grid_w;
    m->pos_table = m->cls_zeros = m->cls_mask = RF_NONE;
    rf_graph *g = m->graph = rf_graph_new(params);
    if (mode == MODEL_ATTRIBUTION)   /* explains the model as it is: input gradients only */
        rf_graph_freeze_params(g);

    rf_id h = embed(m, g, vocab, mode == MODEL_ATTRIBUTION);
    m->mask = rf_input(g, "mask", rf_shape2(batch, seq_len), false);
    m->labels = rf_input(g, "labels", rf_shape1(batch), false);
    h = add_positions(m, g, h, host != NULL ? host->seq_len : seq_len);
    if (cfg->model.dropout > 0)
        h = rf_dropout(g, h, cfg->model.dropout);
    rf_id mask = m->mask;
    int tokens = seq_len;
    if (strcmp(cfg->model.pool, "cls") == 0) {
        h = prepend_cls(m, g, h, &mask);
        tokens++;
    }

    rf_encoder_ctx e = {g, &m->cfg, mask, batch, tokens, grid_h, grid_w};
    if (enc->mixer != NULL)
        h = rf_prenorm_stack(&e, enc->mixer, h);
    else
        h = enc->encoder(&e, h, &mask);

    h = pool_tokens(m, g, h, mask);
    /* the encoder's output width (MAELRE doubles it per block) */
    int d = h != RF_NONE ? (int)rf_node_shape(g, h).dim[1] : cfg->model.dim;
    if (h != RF_NONE)   /* the representation the head reads (the projector's) */
        rf_tap_add(g, "pool", h, RF_TAP_VALUE, rf_shape2(m->batch, d), 0);
    rf_id gamma = rf_param(g, "head.norm.weight", rf_shape1(d), RF_INIT_ONES, 0);
    rf_id beta = rf_param(g, "head.norm.bias", rf_shape1(d), RF_INIT_ZEROS, 0);
    h = rf_layernorm(g, h, gamma, beta, 1e-5f);
    int in = d;
    if (strcmp(cfg->model.head, "mlp") == 0) {   /* d -> ff -> classes (SPEC §3's BLRP head) */
        h = rf_gelu(g, rf_dense(g, h, d, cfg->model.ff, "head.hidden", true));
        in = cfg->model.ff;
    }
    m->logits = rf_dense(g, h, in, classes, "head.fc", true);
    m->loss = rf_cross_entropy(g, m->logits, m->labels);
    rf_set_name(g, m->logits, "logits");
    rf_tap_add(g, "logits", m->logits, RF_TAP_VALUE, rf_shape2(m->batch, classes), 0);
    rf_graph_keep(g, m->logits);
    rf_graph_keep(g, m->loss);

    if (!rf_graph_ok(g)) {
        rf_fail(st, "cannot build the %s model: %s", cfg->model.encoder, rf_graph_error(g));
        rf_model_free(m);
        return NULL;
    }
    /* recomputation is for training steps (and their plans) only */
    if (mode == MODEL_TRAIN || mode == MODEL_PLAN) {
        rf_recompute recompute;
        bool ok = rf_recompute_parse(cfg->train.recompute, &recompute);
        if (!ok)
            rf_fail(st, "train.recompute = '%s' is not off, layers or segments", cfg->train.recompute);
        if (!ok || !rf_graph_recompute(g, recompute, st)) {
            rf_model_free(m);
            return NULL;
        }
    }
    int threads = cfg->train.threads > 0 ? cfg->train.threads : rf_cpu_count();
    /* A plan needs only the backend's kernels (what they keep differs by
     * device); memory needs the device itself, and the one asked for. */
    const rf_backend *b = !plan_only ? rf_device_open(cfg->train.device, st)
                                     : rf_device_plan_backend(cfg->train.device, st);
    rf_op missing = b != NULL ? rf_backend_missing_op(b, g) : RF_OP_COUNT;
    if (missing != RF_OP_COUNT) {
        rf_fail(st, "train.device = %s: the %s backend has no kernel for %s yet, which this %s model needs "
                    "(train.device = cpu runs it)", cfg->train.device, b->name, rf_op_name(missing),
                cfg->model.encoder);
        b = NULL;
    }
    char why[256];
    if (b != NULL && !rf_backend_accepts(b, g, why, sizeof why)) {
        rf_fail(st, "train.device = %s: %s (train.device = cpu runs it)", cfg->train.device, why);
        b = NULL;
    }
    if (b != NULL)
        rf_graph_set_backend(g, b);
    /* bf16 products read activations kept in bf16 (core/bf16_storage.h);
     * a CPU without bf16 evaluates a bf16 run in f32 */
    rf_graph_set_bf16_storage(g, strcmp(cfg->train.precision, "bf16") == 0 && rf_bf16_supported());
    bool ok = b != NULL;
    /* planned without a loss, the graph has no backward: no gradients,
     * nothing kept for them, activations freed after their last reader */
    rf_id loss = mode == MODEL_ATTRIBUTION ? m->logits : forward_only ? RF_NONE : m->loss;
    if (ok && !plan_only) {
        if (!rf_params_allocated(params))
            rf_params_set_backend(params, b);
        ok = host != NULL ? rf_graph_prepare_inside(g, host->graph, loss, threads, &m->plan, st)
                          : rf_graph_prepare(g, loss, threads, &m->plan, st);
    } else if (ok) {
        ok = rf_graph_plan(g, loss, threads, &m->plan, st);
    }
    if (!ok) {
        rf_model_free(m);
        return NULL;
    }
    if (!plan_only)
        rf_model_refill_constants(m);
    return m;
}

void rf_model_free(rf_model *m)
{
    if (m == NULL)
        return;
    rf_graph_free(m->graph);
    free(m);
}

int64_t rf_model_param_count(const rf_model *m)
{
    int64_t n = 0;
    for (int i = 0; i < m->params->count; i++)
        n += m->params->entries[i].numel;
    return n;
}
