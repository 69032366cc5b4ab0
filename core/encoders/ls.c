/* Transformer-LS long-short attention mixer (SPEC §2).
 *
 * x [B, N0, d] (the layer's normalised input), h heads of dk = d / h, window
 * w = model.window, rank r = model.rank:
 *   - pad N0 up to N, a multiple of w, with masked positions (sliced off at
 *     the end);
 *   - Q = x Wq (scaled by 1/sqrt(dk) inside the attention), K = x Wk,
 *     V = x Wv; with model.dual_ln = on, K and V go through LN_L, one
 *     LayerNorm over the full width d shared by both, before the heads split;
 *   - dynamic projection: P = softmax over the N axis (padding excluded) of
 *     z W^P, W^P one Linear(d, h*r) with bias, z = x (model.proj_from = input)
 *     or z = K as fed to the window, after LN_L (= keys); head i owns columns
 *     [i*r, (i+1)*r); K̄_i = P_i^T K_i, V̄_i = P_i^T V_i [r, dk];
 *   - with DualLN, LN_G (a second LayerNorm over d) on K̄ and V̄;
 *   - the fused long-short attention (core/ops/ls_attention.h): each query
 *     attends with one softmax to its window band and the r global keys;
 *   - output projection Wo.
 * Parameters: layer<i>.ls.{q,k,v,proj,out}.{weight,bias},
 * layer<i>.ls.ln_local.{weight,bias}, layer<i>.ls.ln_global.{weight,bias}.
 *
 * model.cls = last_layer (needs model.pool = cls: the model prepends its
 * learned CLS token, embed.cls, as token 0). In the last layer token 0 is
 * taken out of the sequence, as the official LRA code's cls_embed:
 *   - its key/value k_c = x_c Wk, v_c = x_c Wv (no LN_L) join the global keys
 *     in front: LN_G([k_c; K̄]), LN_G([v_c; V̄]) (G = r + 1);
 *   - its query q_c = x_c Wq attends, per head, to its own raw key k_c and
 *     to the valid token outputs H_t of the long-short attention, which
 *     serve as both keys and values:
 *         o_c = softmax(q_c [k_c; H]^T / sqrt(dk)) [v_c; H];
 *   - the mixer output is Wo applied to [o_c; H].
 * In the layers before the last, token 0 is an ordinary token (the official
 * code adds the CLS only in the last layer).
 *
 * Probes (views of tensors the computation keeps; N is the padded length):
 *   layer<i>.ls.local       [B, h, N, w + 2e] band probabilities, e = max(w/2, 1);
 *                           column j is key position s*w - e + j for query
 *                           segment s = t / w; 0 outside [0, N) or at padding
 *   layer<i>.ls.global      [B, h, N, G] probabilities on the global keys
 *                           (with the CLS, column 0 is the CLS key)
 *   layer<i>.ls.projection  [B, h, r, N] the projection P_i^T (rows sum to 1
 *                           over the valid tokens)
 *   layer<i>.ls.cls         [B, h, 1 + N0] (CLS layer only) the CLS query's
 *                           probabilities over [CLS; tokens], N0 unpadded
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../op.h"
#include "../ops/ls_attention.h"
#include "../probe.h"
#include "encoder.h"

typedef struct {
    rf_graph *g;
    int layer, batch, d, heads, dk, rank, window;
    bool dual_ln, proj_from_keys;
} ls_layer;

/* Linear(d, out) with bias, named layer<i>.ls.<part>. */
static rf_id dense(const ls_layer *l, rf_id x, int out, const char *part)
{
    char name[RF_NAME_LEN];
    snprintf(name, sizeof name, "layer%d.ls.%s", l->layer, part);
    return rf_dense(l->g, x, l->d, out, name, true);
}

/* LayerNorm over the full width d, named layer<i>.ls.<part>. */
static rf_id norm(const ls_layer *l, rf_id x, const char *part)
{
    char gname[RF_NAME_LEN], bname[RF_NAME_LEN];
    snprintf(gname, sizeof gname, "layer%d.ls.%s.weight", l->layer, part);
    snprintf(bname, sizeof bname, "layer%d.ls.%s.bias", l->layer, part);
    rf_id gamma = rf_param(l->g, gname, rf_shape1(l->d), RF_INIT_ONES, 0);
    rf_id beta = rf_param(l->g, bname, rf_shape1(l->d), RF_INIT_ZEROS, 0);
    return rf_layernorm(l->g, x, gamma, beta, 1e-5f);
}

static void tap(const ls_layer *l, const char *part, rf_id node, rf_tap_what what, rf_shape shape, int64_t offset)
{
    char name[RF_NAME_LEN];
    snprintf(name, sizeof name, "layer%d.ls.%s", l->layer, part);
    rf_tap_add(l->g, name, node, what, shape, offset);
}

static const int swap12[4] = {0, 2, 1, 3};

/* x [B, n, d] -> [B, h, n, dk] */
static rf_id split_heads(const ls_layer *l, rf_id x, int n)
{
    return rf_permute(l->g, rf_reshape(l->g, x, rf_shape4(l->batch, n, l->heads, l->dk)), swap12);
}

/* x [B, h, n, dk] -> [B, n, d] */
static rf_id merge_heads(const ls_layer *l, rf_id x, int n)
{
    return rf_reshape(l->g, rf_permute(l->g, x, swap12), rf_shape3(l->batch, n, l->d));
}

/* z [B, n, d], mask [B, n] -> P^T [B, h, r, n]: softmax over the tokens of
 * z W^P, per head and landmark column, padded tokens excluded.
 * The logits are formed transposed, [B, h*r, n] = W^P^T z^T, so that no
 * copy of them (h*r = 256 floats a token at ListOps' sizes, four times the
 * width) is transposed, forward or backward: W^P^T [h*r, d] is repeated
 * over the batch by a broadcasting add onto zeros [B, 1, 1] (a matmul's
 * left operand carries the batch). The Linear's bias is a constant per
 * landmark column across the tokens, which the softmax over the tokens
 * cancels exactly (its gradient is exactly zero): it stays a parameter
 * (checkpoints, the PyTorch layout) and is not applied. */
static rf_id projection(const ls_layer *l, rf_id z, rf_id mask, int n)
{
    rf_graph *g = l->g;
    int cols = l->heads * l->rank;
    char wname[RF_NAME_LEN], bname[RF_NAME_LEN];
    snprintf(wname, sizeof wname, "layer%d.ls.proj.weight", l->layer);
    snprintf(bname, sizeof bname, "layer%d.ls.proj.bias", l->layer);
    float bound = 1.0f / sqrtf((float)l->d);   /* as rf_dense */
    rf_id w = rf_param(g, wname, rf_shape2(l->d, cols), RF_INIT_UNIFORM, bound);
    rf_param(g, bname, rf_shape1(cols), RF_INIT_UNIFORM, bound);
    rf_id zeros = rf_scale(g, rf_slice(g, rf_slice(g, z, 1, 0, 1), 2, 0, 1), 0.0f);   /* [B, 1, 1] */
    rf_id wt = rf_add(g, zeros, rf_transpose(g, w, 0, 1));                          /* [B, h*r, d] */
    rf_id logits = rf_matmul(g, wt, z, false, true);                                  /* [B, h*r, n] */
    rf_id m = mask == RF_NONE ? RF_NONE : rf_reshape(g, mask, rf_shape3(l->batch, 1, n));
    rf_id pt = rf_softmax(g, logits, m);
    tap(l, "projection", pt, RF_TAP_VALUE, rf_shape4(l->batch, l->heads, l->rank, n), 0);
    return rf_reshape(g, pt, rf_shape4(l->batch, l->heads, l->rank, n));
}

/* P^T [B, h, r, n], x [B, n, d] -> per head P_i^T x_i, [B, r, d] */
static rf_id project(const ls_layer *l, rf_id pt, rf_id x, int n)
{
    return merge_heads(l, rf_matmul(l->g, pt, split_heads(l, x, n), false, false), l->rank);
}

/* Tokens x [B, n0, d], mask [B, n0] or RF_NONE; kc, vc [B, 1, d], the CLS
 * key/value, or RF_NONE. Returns the long-short attention output H
 * [B, n0, d] (heads concatenated, before Wo). */
static rf_id long_short(const ls_layer *l, rf_id x, rf_id mask, int n0, rf_id kc, rf_id vc)
{
    rf_graph *g = l->g;
    int n = (n0 + l->window - 1) / l->window * l->window;
    if (n > n0) {
        if (mask == RF_NONE)
            return rf_graph_fail(g, "ls: padding %d tokens to %d (a multiple of model.window = %d) needs a "
                                    "padding mask",
                                 n0, n, l->window);
        x = rf_pad(g, x, 1, 0, n - n0, 0.0f);
        mask = rf_pad(g, mask, 1, 0, n - n0, 0.0f);
    }
    rf_id q = dense(l, x, l->d, "q"), k = dense(l, x, l->d, "k"), v = dense(l, x, l->d, "v");
    if (l->dual_ln) {
        k = norm(l, k, "ln_local");
        v = norm(l, v, "ln_local");
    }
    rf_id pt = projection(l, l->proj_from_keys ? k : x, mask, n);
    rf_id kg = project(l, pt, k, n), vg = project(l, pt, v, n);   /* [B, r, d] */
    int globals = l->rank;
    if (kc != RF_NONE) {
        rf_id ks[2] = {kc, kg}, vs[2] = {vc, vg};
        kg = rf_concat(g, ks, 2, 1);
        vg = rf_concat(g, vs, 2, 1);
        globals++;
    }
    if (l->dual_ln) {
        kg = norm(l, kg, "ln_global");
        vg = norm(l, vg, "ln_global");
    }
    rf_id ks[2] = {k, kg}, vs[2] = {v, vg};   /* [B, n + G, d]: locals, then globals */
    rf_id a = rf_ls_attention(g, q, rf_concat(g, ks, 2, 1), rf_concat(g, vs, 2, 1), mask, l->heads, l->window,
                              1.0f / sqrtf((float)l->dk));
    int band = rf_ls_band(l->window);
    tap(l, "local", a, RF_TAP_AUX, rf_shape4(l->batch, l->heads, n, band), 0);
    tap(l, "global", a, RF_TAP_AUX, rf_shape4(l->batch, l->heads, n, globals),
        (int64_t)l->batch * l->heads * n * band);
    return n > n0 ? rf_slice(g, a, 1, 0, n0) : a;
}

/* The CLS row: q, k, v [B, 1, d] from the CLS token, H [B, n0, d] the token
 * outputs, mask [B, 1 + n0] (CLS, then tokens) or RF_NONE -> [B, 1, d]:
 * per head softmax(q [k; H]^T / sqrt(dk)) [v; H]. */
static rf_id cls_attend(const ls_layer *l, rf_id q, rf_id k, rf_id v, rf_id hidden, rf_id mask, int n0)
{
    rf_graph *g = l->g;
    rf_id hh = split_heads(l, hidden, n0);   /* [B, h, n0, dk] */
    rf_id ks[2] = {split_heads(l, k, 1), hh}, vs[2] = {split_heads(l, v, 1), hh};
    rf_id s = rf_matmul(g, split_heads(l, q, 1), rf_concat(g, ks, 2, 2), false, true);   /* [B, h, 1, 1 + n0] */
    rf_id m = mask == RF_NONE ? RF_NONE : rf_reshape(g, mask, rf_shape4(l->batch, 1, 1, 1 + n0));
    rf_id p = rf_softmax(g, rf_scale(g, s, 1.0f / sqrtf((float)l->dk)), m);
    tap(l, "cls", p, RF_TAP_VALUE, rf_shape3(l->batch, l->heads, 1 + n0), 0);
    return merge_heads(l, rf_matmul(g, p, rf_concat(g, vs, 2, 2), false, false), 1);
}

/* x [B, N0, d] -> [B, N0, d] */
rf_id rf_mixer_ls(const rf_encoder_ctx *e, int layer, rf_id x)
{
    rf_graph *g = e->g;
    const rf_config *cfg = e->cfg;
    if (!rf_graph_inputs_ok(g, &x, 1))
        return RF_NONE;
    rf_shape xs = rf_node_shape(g, x);
    int d = cfg->model.dim, heads = cfg->model.heads;
    ls_layer l = {.g = g,
                  .layer = layer,
                  .batch = (int)xs.dim[0],
                  .d = d,
                  .heads = heads,
                  .dk = d / heads,
                  .rank = cfg->model.rank,
                  .window = cfg->model.window,
                  .dual_ln = strcmp(cfg->model.dual_ln, "on") == 0,
                  .proj_from_keys = strcmp(cfg->model.proj_from, "keys") == 0};
    char buf[64];
    if (xs.ndim != 3 || xs.dim[2] != d)
        return rf_graph_fail(g, "ls: layer %d input %s must be [B, N, model.dim = %d]", layer,
                             rf_shape_str(xs, buf, sizeof buf), d);
    bool cls = strcmp(cfg->model.cls, "last_layer") == 0 && layer == cfg->model.layers - 1;
    if (!cls) {
        rf_id hidden = long_short(&l, x, e->mask, (int)xs.dim[1], RF_NONE, RF_NONE);
        return dense(&l, hidden, d, "out");
    }
    if (strcmp(cfg->model.pool, "cls") != 0 || xs.dim[1] < 2)
        return rf_graph_fail(g, "ls: model.cls = last_layer needs model.pool = cls and tokens after the CLS "
                                "(the CLS is the model's token 0); input %s, pool %s",
                             rf_shape_str(xs, buf, sizeof buf), cfg->model.pool);
    int n0 = (int)xs.dim[1] - 1;
    rf_id xc = rf_slice(g, x, 1, 0, 1), xt = rf_slice(g, x, 1, 1, n0);
    rf_id mt = e->mask == RF_NONE ? RF_NONE : rf_slice(g, e->mask, 1, 1, n0);
    rf_id qc = dense(&l, xc, d, "q"), kc = dense(&l, xc, d, "k"), vc = dense(&l, xc, d, "v");
    rf_id hidden = long_short(&l, xt, mt, n0, kc, vc);
    rf_id rows[2] = {cls_attend(&l, qc, kc, vc, hidden, e->mask, n0), hidden};
    return dense(&l, rf_concat(g, rows, 2, 1), d, "out");
}
