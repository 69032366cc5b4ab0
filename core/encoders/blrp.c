/* BLRP, the Bidirectional Long-Range Parser (SPEC §3, paper 000), built
 * from existing ops.
 *
 * x [B, N, D] is padded to T = ceil(N / t) segments of t tokens (padding
 * masked); a learned position table [t, D] is added inside every segment.
 * Θ_SELF (model.layers pre-LN self-attention blocks) does not depend on the
 * recurrence, so it runs once over all segments as a batch of B*T segments.
 * Then the latent block L [B, l, D] walks the segments (paper equations,
 * i = 1..T forward, T..1 backward):
 *
 *   X̃_i^F = Θ_X(S_i, L_{i-1}^F),  L_0^F = L_INIT_F
 *   L_1^F = Θ_L(L_INIT_F, X̃_1^F),  L_i^F = Θ_L(L_{i-1}^F, [X̃_i^F; L_INIT_F])
 *   X̃_i^B = Θ_X(S_i, L_{i+1}^B),  L_{T+1}^B = L_INIT_B
 *   L_T^B = Θ_L(L_T^F, [X̃_T^F; X̃_T^B])
 *   L_i^B = Θ_L(L_{i+1}^B, [X̃_i^F; X̃_i^B; L_INIT_B])
 *
 * with S_i = Θ_SELF(X_i). Θ_X and Θ_L are pre-LN residual cross-attention
 * sublayers, each followed by its own pre-LN MLP (Perceiver / TLB style):
 *   h = Q + Wo·MHA(LN_q(Q), LN_kv(Y)),  out = h + MLP(LN(h)).
 * Every BLRP attention (Θ_SELF, Θ_X, Θ_L) is multi-head, and each of the h
 * heads scales its scores by 1/sqrt(d/h) (SPEC §3 as corrected on
 * 2026-11-25: the paper's single-head 1/sqrt(d) read as standard MHA).
 * model.blrp_scale = model keeps the literal 1/sqrt(d) for every head (an
 * ablation: 8 heads of width 8 at d = 64 are then 2.8x flatter).
 *
 * Options (SPEC §3, paper Tables 3-4):
 *   latent_init  posemb: L_INIT is a learned [l, D] latent per pass, no Φ;
 *                phi_init: L_INIT = Φ(X), used only as the initial state;
 *                phi_residual: Φ(X) as the initial state and as extra keys
 *                of Θ_L (the equations above).
 *                Φ(X) = softmax_N(X W_Φ)^T X over the valid tokens of the
 *                encoder input.
 *   phi          separate: Φ_F and Φ_B with their own W_Φ; shared: one
 *                L_INIT for both passes; siamese: one W_Φ applied once per
 *                pass (two separate variables from a shared function, as the
 *                paper describes it; on the same X they hold equal values).
 *   direction    bidirectional: output L_1^B; forward: output L_T^F;
 *                backward: the backward pass alone, where X̃^F does not
 *                exist: L_T^B = Θ_L(L_INIT_B, X̃_T^B) and
 *                L_i^B = Θ_L(L_{i+1}^B, [X̃_i^B; L_INIT_B]), the forward
 *                equations over the segments in reverse order.
 *   share_directions  on: one Θ_X/Θ_L pair for both passes; off: one each.
 *   blrp_scale   head: 1/sqrt(d/h) per head (default); model: 1/sqrt(d).
 *   latent_norm  off (default, SPEC): the latent is a residual stream whose
 *                norm grows with every segment it reads; on: Θ_L's output
 *                passes a LayerNorm before the gate (not in SPEC or the
 *                paper: for the length test, docs/reproduction.md).
 *   latent_pos   off (default, SPEC): the l latent rows carry no position;
 *                sinusoidal: a table P [l, D] (initialised sinusoidal,
 *                trained) is added to the latent wherever a segment reads it,
 *                L_i = Θ_L(L_{i-1} + P, ...) and X̃_i = Θ_X(S_i, L_{i-1} + P),
 *                as the TLB code base re-adds its state's positions at every
 *                chunk. Without it the rows become one vector within a few
 *                segments (docs/reproduction.md, "The latent collapses").
 *
 * Positions. The only position embedding BLRP itself adds is the learned
 * in-segment table above; SPEC §3 wants none over the whole sequence
 * (model.pos = none, as the shipped BLRP configs say). The classifier adds
 * model.pos before any encoder, so sinusoidal or learned adds a
 * sequence-level embedding too: allowed (an ablation, and the workbench and
 * `memory --encoders` compare encoders under one config), not the paper.
 *
 * Padding. The batch pads at the end, so a sample's segment i holds a valid
 * token iff its first position does: valid_i = mask[:, (i-1)·t], a [B, 1, 1]
 * factor sliced from the mask. Each update is gated,
 * L_i = L_prev + valid_i·(Θ_L(...) − L_prev), so all-padding segments leave
 * the latent unchanged in both passes. The backward pass's first step
 * (i = T form) must happen at each sample's own last valid segment: with
 * next_i = valid_{i+1} (0 for i = T), the latent Θ_X reads is
 * L_INIT_B + next_i·(L_{i+1}^B − L_INIT_B), the L_INIT_B keys of Θ_L are
 * masked by next_i, and the carried state starts as L_T^F (the query of the
 * first step; padding steps pass it through unchanged). A padded sample thus
 * gives exactly the result of the unpadded one.
 *
 * Skipping the padding (CPU). The gates make a padded segment's Θ_X and
 * Θ_L results unused, so they need not be computed: each segment step's
 * ops sit in a row scope by valid_i (core/graph.h, rf_graph_row_scope),
 * which runs them on the first R rows only, R = 1 + the last sample with
 * a token in segment i. The encoder first sorts the batch longest first
 * (rf_sort_rows on x and the mask; the output is sorted back), so R is
 * exactly the count of samples that reach segment i: ListOps batches
 * (lengths 500-2000 in 20 segments) skip about a third of the recurrence's
 * rows. Θ_SELF skips the empty segments the same way: its B·T segments are
 * sorted by their token count (rf_sort_rows on the segment mask), so those
 * holding a token come first, its layers run in a row scope by that mask,
 * and the result is sorted back; an empty segment's output reaches nothing
 * (its segment step is gated off, and pooling reads valid tokens only). On
 * a device the scopes are off (every row runs).
 *
 * Taps (core/probe.h), per sample: blrp.self.<k>.out, S after Θ_SELF layer k
 * (k 0-based, all segments [T·t, D]); blrp.segment.<pass>.<i>, X̃_i [t, D];
 * blrp.latent.<pass>.<i>, L_i [l, D] (and its .grad); the attention maps
 * (blrp.self.<k>.probs, ...reads_latent, ...reads_segment). Across the
 * segments, the series blrp.latent.<pass>.norms [T, 1], ||L_i|| of every
 * segment, and blrp.latent.<pass>.grad_norms, ||dLoss/dL_i||: a probe of
 * them, pooled along the segments or not, never keeps a latent whole (a
 * million tokens are 10,486 segments of 100). A tap only names a node that
 * is computed anyway: it copies nothing unless a probe set asks for it.
 *
 * Output: L_FINAL [B, l, D] as the token states, *out_mask = RF_NONE (every
 * latent row valid); the classifier mean-pools it, then LayerNorm and head.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../op.h"
#include "../probe.h"
#include "encoder.h"

#define PREFIX_LEN 48    /* parameter name prefixes ("blrp.fwd.theta_x") */

typedef struct blrp {
    rf_graph *g;
    int B, N, T, t, l, d, heads, ff;
    float dropout, scale;
    bool residual;          /* latent_init = phi_residual: L_INIT joins Θ_L's keys */
    bool latent_norm;       /* model.latent_norm: LayerNorm on each Θ_L update */
    rf_id latent_pos;       /* model.latent_pos: the latent's positions [l, D], or RF_NONE */
    rf_id mask;             /* [B, T*t], segment padding masked */
    rf_id zeros;            /* [B, 1, 1] zeros, for broadcasting [l, D] params to [B, l, D] */
    rf_id zeros_l;          /* [B, l] zeros, for broadcasting [B, 1] key masks */
    rf_id *self;            /* per segment: S_i [B, t, D] */
    rf_id *valid;           /* per segment: [B, 1, 1] 1 if it holds a valid token */
    rf_id *seg_mask;        /* per segment: [B, t] */
} blrp;

/* One Θ_X / Θ_L pair with the values that do not depend on the recurrence. */
typedef struct cross_set {
    char x[PREFIX_LEN];     /* parameter prefix of Θ_X */
    char lat[PREFIX_LEN];   /* parameter prefix of Θ_L */
    rf_id *query;           /* per segment: Θ_X's projected queries [B, t, D] */
} cross_set;

/* The keys/values one block of rows contributes to an attention. */
typedef struct kv {
    rf_id k, v;
} kv;

static rf_id norm(const blrp *m, rf_id x, const char *prefix, const char *part)
{
    char gname[RF_NAME_LEN], bname[RF_NAME_LEN];
    snprintf(gname, sizeof gname, "%.*s.%s.weight", PREFIX_LEN - 1, prefix, part);
    snprintf(bname, sizeof bname, "%.*s.%s.bias", PREFIX_LEN - 1, prefix, part);
    rf_id gamma = rf_param(m->g, gname, rf_shape1(m->d), RF_INIT_ONES, 0);
    rf_id beta = rf_param(m->g, bname, rf_shape1(m->d), RF_INIT_ZEROS, 0);
    return rf_layernorm(m->g, x, gamma, beta, 1e-5f);
}

static rf_id dense(const blrp *m, rf_id x, int in, int out, const char *prefix, const char *part, bool bias)
{
    char name[RF_NAME_LEN];
    snprintf(name, sizeof name, "%.*s.%s", PREFIX_LEN - 1, prefix, part);
    return rf_dense(m->g, x, in, out, name, bias);
}

static rf_id drop(const blrp *m, rf_id x)
{
    return m->dropout > 0 ? rf_dropout(m->g, x, m->dropout) : x;
}

/* h + MLP(LN(h)): the pre-LN feed-forward half of every block. */
static rf_id mlp_residual(const blrp *m, rf_id h, const char *prefix)
{
    rf_id y = norm(m, h, prefix, "norm_mlp");
    y = rf_gelu(m->g, dense(m, y, m->d, m->ff, prefix, "mlp.fc1", true));
    y = dense(m, y, m->ff, m->d, prefix, "mlp.fc2", true);
    return rf_add(m->g, h, drop(m, y));
}

/* resid + Wo·MHA(q, k, v), without the MLP. The probabilities [b, heads,
 * Nq, M] are tapped as `tap`, viewed per sample as [B, (b/B)·heads, Nq, M]
 * (b = B for the cross-attentions, B·T for Θ_SELF's segments). */
static rf_id attend_only(const blrp *m, rf_id resid, rf_id q, kv keys, rf_id key_mask, const char *prefix,
                         const char *tap)
{
    rf_id a = rf_attention(m->g, q, keys.k, keys.v, key_mask, m->heads, m->scale, 0.0f);
    if (a != RF_NONE) {
        rf_shape sq = rf_node_shape(m->g, q), sk = rf_node_shape(m->g, keys.k);
        rf_shape view = rf_shape4(m->B, sq.dim[0] / m->B * m->heads, sq.dim[1], sk.dim[1]);
        rf_tap_add(m->g, tap, a, RF_TAP_AUX, view, 0);
    }
    return rf_add(m->g, resid, drop(m, dense(m, a, m->d, m->d, prefix, "attn.out", true)));
}

/* The attention sublayer, then the MLP. */
static rf_id attend(const blrp *m, rf_id resid, rf_id q, kv keys, rf_id key_mask, const char *prefix,
                    const char *tap)
{
    return mlp_residual(m, attend_only(m, resid, q, keys, key_mask, prefix, tap), prefix);
}

/* LN_kv(y) projected to keys and values: y [B, M, D] -> k, v [B, M, D]. */
static kv project_kv(const blrp *m, rf_id y, const char *prefix)
{
    rf_id n = norm(m, y, prefix, "norm_kv");
    return (kv){dense(m, n, m->d, m->d, prefix, "attn.k", true), dense(m, n, m->d, m->d, prefix, "attn.v", true)};
}

/* LN_q(y) projected to queries. */
static rf_id project_q(const blrp *m, rf_id y, const char *prefix)
{
    return dense(m, norm(m, y, prefix, "norm_q"), m->d, m->d, prefix, "attn.q", true);
}

/* Concatenate 1 to 3 key blocks along the rows. */
static kv join(const blrp *m, const kv *parts, int n)
{
    if (n == 1)
        return parts[0];
    rf_id k[3], v[3];
    for (int i = 0; i < n; i++) {
        k[i] = parts[i].k;
        v[i] = parts[i].v;
    }
    return (kv){rf_concat(m->g, k, n, 1), rf_concat(m->g, v, n, 1)};
}

/* [B, T, t, D] -> its segment s as [B, t, D] */
static rf_id segment(const blrp *m, rf_id all, int s)
{
    return rf_reshape(m->g, rf_slice(m->g, all, 1, s, 1), rf_shape3(m->B, m->t, m->d));
}

/* ---- Θ_SELF over all segments at once ---- */

/* x [B*T, t, D] with key mask [B*T, t] -> x + attn(LN(x)), then the MLP.
 * train.recompute = layers recomputes the layer; segments recomputes the
 * attention and the MLP one at a time: a layer's activations over the
 * whole sequence, recomputed together, were the peak of a long sequence. */
static rf_id self_block(const blrp *m, rf_id x, rf_id mask, int layer)
{
    char prefix[PREFIX_LEN], tap[RF_NAME_LEN];
    snprintf(prefix, sizeof prefix, "layer%d.blrp.self", layer);
    snprintf(tap, sizeof tap, "blrp.self.%d.probs", layer);
    rf_graph_region(m->g, RF_REGION_LAYER);
    rf_id n = norm(m, x, prefix, "norm_attn");
    kv keys = {dense(m, n, m->d, m->d, prefix, "attn.k", true), dense(m, n, m->d, m->d, prefix, "attn.v", true)};
    rf_id h = attend_only(m, x, dense(m, n, m->d, m->d, prefix, "attn.q", true), keys, mask, prefix, tap);
    rf_graph_region(m->g, RF_REGION_SUBLAYER);
    return mlp_residual(m, h, prefix);
}

/* Pad, add in-segment positions, run Θ_SELF; fills m->self, valid, seg_mask.
 * Returns S [B, T, t, D] (for the batched Θ_X queries). */
static rf_id segments(blrp *m, rf_id x, int layers)
{
    rf_graph *g = m->g;
    int64_t pad = (int64_t)m->T * m->t - m->N;
    rf_id xp = pad > 0 ? rf_pad(g, x, 1, 0, pad, 0.0f) : x;
    rf_id pos = rf_param(g, "blrp.segment_pos", rf_shape2(m->t, m->d), RF_INIT_NORMAL, 0.02f);
    rf_id h = rf_add(g, rf_reshape(g, xp, rf_shape4(m->B, m->T, m->t, m->d)), pos);
    h = rf_reshape(g, h, rf_shape3((int64_t)m->B * m->T, m->t, m->d));
    rf_id seg_mask = rf_reshape(g, m->mask, rf_shape2((int64_t)m->B * m->T, m->t));
    /* the segments holding a token first, and only they run ("Skipping the padding") */
    h = rf_sort_rows(g, h, seg_mask, false);
    rf_id mask = rf_sort_rows(g, seg_mask, seg_mask, false);
    rf_graph_row_scope(g, mask);
    for (int layer = 0; layer < layers; layer++) {
        char tap[RF_NAME_LEN];
        h = self_block(m, h, mask, layer);   /* its recomputation regions (train.recompute) */
        snprintf(tap, sizeof tap, "blrp.self.%d.out", layer);
        rf_tap_add(g, tap, h, RF_TAP_VALUE, rf_shape3(m->B, (int64_t)m->T * m->t, m->d), 0);
    }
    rf_graph_region(g, RF_REGION_NONE);
    rf_graph_row_scope(g, RF_NONE);
    h = rf_sort_rows(g, h, seg_mask, true);
    rf_id all = rf_reshape(g, h, rf_shape4(m->B, m->T, m->t, m->d));
    for (int s = 0; s < m->T; s++) {
        m->self[s] = segment(m, all, s);
        m->seg_mask[s] = rf_slice(g, m->mask, 1, (int64_t)s * m->t, m->t);
        m->valid[s] = rf_reshape(g, rf_slice(g, m->mask, 1, (int64_t)s * m->t, 1), rf_shape3(m->B, 1, 1));
    }
    return all;
}

/* Θ_X's queries for every segment in one projection. Under
 * train.recompute = segments the projection is recomputed for its backward,
 * so its LayerNorm [B, T·t, D] is not kept through the recurrence. */
static void cross_set_init(const blrp *m, cross_set *c, const char *name, rf_id all)
{
    snprintf(c->x, sizeof c->x, "blrp.%s.theta_x", name);
    snprintf(c->lat, sizeof c->lat, "blrp.%s.theta_l", name);
    c->query = calloc((size_t)m->T, sizeof *c->query);
    rf_graph_region(m->g, RF_REGION_SEGMENT);
    rf_id q = project_q(m, all, c->x);
    for (int s = 0; s < m->T; s++)
        c->query[s] = segment(m, q, s);
    rf_graph_region(m->g, RF_REGION_NONE);
}

/* ---- the latent initialisation ---- */

/* Φ(X) = softmax_N(X W_Φ)^T X: x [B, N, D] -> [B, l, D], padded tokens
 * excluded from the softmax over N. Its probabilities [B, l, N] would stay
 * until Φ's backward, the very last, so train.recompute = segments
 * recomputes Φ there instead. */
static rf_id phi(const blrp *m, rf_id x, rf_id mask, const char *name)
{
    rf_graph *g = m->g;
    rf_graph_region(g, RF_REGION_SEGMENT);
    rf_id s = rf_transpose(g, rf_dense(g, x, m->d, m->l, name, false), 1, 2);   /* [B, l, N] */
    rf_id p = rf_softmax(g, s, rf_reshape(g, mask, rf_shape3(m->B, 1, m->N)));
    rf_id out = rf_matmul(g, p, x, false, false);
    rf_graph_region(g, RF_REGION_NONE);
    return out;
}

/* A learned latent [l, D], broadcast to [B, l, D]. */
static rf_id posemb(const blrp *m, const char *name)
{
    rf_id p = rf_param(m->g, name, rf_shape2(m->l, m->d), RF_INIT_NORMAL, 0.02f);
    return rf_add(m->g, m->zeros, p);
}

/* L_INIT of each pass (init[0] forward, init[1] backward; RF_NONE when the
 * pass does not run). */
static void latent_init(const blrp *m, const rf_config *cfg, rf_id x, rf_id mask, bool fwd, bool bwd, rf_id init[2])
{
    init[0] = init[1] = RF_NONE;
    if (strcmp(cfg->model.latent_init, "posemb") == 0) {
        if (fwd)
            init[0] = posemb(m, "blrp.init_fwd");
        if (bwd)
            init[1] = posemb(m, "blrp.init_bwd");
    } else if (strcmp(cfg->model.phi, "separate") == 0) {
        if (fwd)
            init[0] = phi(m, x, mask, "blrp.phi_fwd");
        if (bwd)
            init[1] = phi(m, x, mask, "blrp.phi_bwd");
    } else if (strcmp(cfg->model.phi, "siamese") == 0) {
        if (fwd)
            init[0] = phi(m, x, mask, "blrp.phi");
        if (bwd)
            init[1] = phi(m, x, mask, "blrp.phi");
    } else {
        rf_id shared = phi(m, x, mask, "blrp.phi");
        init[0] = fwd ? shared : RF_NONE;
        init[1] = bwd ? shared : RF_NONE;
    }
    rf_shape s = rf_shape3(m->B, m->l, m->d);
    if (init[0] != RF_NONE)
        rf_tap_add(m->g, "blrp.latent.init.fwd", init[0], RF_TAP_VALUE, s, 0);
    if (init[1] != RF_NONE)
        rf_tap_add(m->g, "blrp.latent.init.bwd", init[1], RF_TAP_VALUE, s, 0);
}

/* ---- the passes ---- */

/* The latent as a segment's two cross-attentions read it: with
 * model.latent_pos, plus its positions (every segment adds them afresh,
 * and Θ_L's residual carries them on). */
static rf_id with_pos(const blrp *m, rf_id latent)
{
    return m->latent_pos != RF_NONE ? rf_add(m->g, latent, m->latent_pos) : latent;
}

/* prev + valid·(next − prev): next where the segment has a valid token. */
static rf_id gate(const blrp *m, rf_id prev, rf_id next, rf_id valid)
{
    return rf_add(m->g, prev, rf_mul(m->g, valid, rf_sub(m->g, next, prev)));
}

/* The series of a pass's latent norms and gradient norms over the
 * segments (rf_tap_series_add): series[0] blrp.latent.<pass>.norms,
 * series[1] blrp.latent.<pass>.grad_norms. */
static void latent_series(const blrp *m, const char *pass, int series[2])
{
    char name[RF_NAME_LEN];
    snprintf(name, sizeof name, "blrp.latent.%s.norms", pass);
    series[0] = rf_tap_series_add(m->g, name, RF_TAP_VALUE, m->B, m->T);
    snprintf(name, sizeof name, "blrp.latent.%s.grad_norms", pass);
    series[1] = rf_tap_series_add(m->g, name, RF_TAP_GRAD, m->B, m->T);
}

/* L_i tapped whole, blrp.latent.<pass>.<i> and its .grad, each row i - 1
 * of its pass's series. */
static void tap_latent(const blrp *m, rf_id node, const char *pass, int i, const int series[2])
{
    char name[RF_NAME_LEN];
    rf_shape s = rf_shape3(m->B, m->l, m->d);
    snprintf(name, sizeof name, "blrp.latent.%s.%d", pass, i);
    if (rf_tap_add(m->g, name, node, RF_TAP_VALUE, s, 0))
        rf_tap_series_join(m->g, series[0], i - 1);
    snprintf(name, sizeof name, "blrp.latent.%s.%d.grad", pass, i);
    if (rf_tap_add(m->g, name, node, RF_TAP_GRAD, s, 0))
        rf_tap_series_join(m->g, series[1], i - 1);
}

/* X̃_i = Θ_X(S_i, latent) for segment s (i = s + 1), tapped as
 * blrp.segment.<pass>.<i>. */
static rf_id theta_x(const blrp *m, const cross_set *c, int s, rf_id latent, const char *pass)
{
    char tap[RF_NAME_LEN];
    snprintf(tap, sizeof tap, "blrp.segment.%s.%d.reads_latent", pass, s + 1);
    rf_id x = attend(m, m->self[s], c->query[s], project_kv(m, latent, c->x), RF_NONE, c->x, tap);
    snprintf(tap, sizeof tap, "blrp.segment.%s.%d", pass, s + 1);
    rf_tap_add(m->g, tap, x, RF_TAP_VALUE, rf_shape3(m->B, m->t, m->d), 0);
    return x;
}

/* Θ_L(query, keys) for segment s, keys masked by key_mask [B, keys]; with
 * model.latent_norm a LayerNorm (Θ_L's own "latent_norm") bounds the update,
 * which then no longer grows with the number of segments read. */
static rf_id theta_l(const blrp *m, const cross_set *c, int s, rf_id query, kv keys, rf_id key_mask,
                     const char *pass)
{
    char tap[RF_NAME_LEN];
    snprintf(tap, sizeof tap, "blrp.latent.%s.%d.reads_segment", pass, s + 1);
    rf_id update = attend(m, query, project_q(m, query, c->lat), keys, key_mask, c->lat, tap);
    return m->latent_norm ? norm(m, update, c->lat, "latent_norm") : update;
}

/* The forward pass, i = 1..T. xf[s] gets X̃_i^F and kf[s] its keys/values
 * under `c` (reused by the backward pass when it shares the weights).
 * Returns L_T^F (for a padded sample: at its last valid segment). */
static rf_id forward_pass(const blrp *m, const cross_set *c, rf_id init, rf_id *xf, kv *kf)
{
    kv init_kv = m->residual ? project_kv(m, init, c->lat) : (kv){RF_NONE, RF_NONE};
    rf_id latent = init;
    int series[2];
    latent_series(m, "fwd", series);
    for (int s = 0; s < m->T; s++) {
        rf_graph_region(m->g, RF_REGION_SEGMENT);   /* train.recompute = segments recomputes each step */
        rf_graph_row_scope(m->g, m->valid[s]);   /* the samples with a token in segment s */
        rf_id read = with_pos(m, latent);
        xf[s] = theta_x(m, c, s, read, "fwd");
        kf[s] = project_kv(m, xf[s], c->lat);
        rf_id next;
        if (s > 0 && m->residual) {
            kv parts[2] = {kf[s], init_kv};
            rf_id mask = rf_pad(m->g, m->seg_mask[s], 1, 0, m->l, 1.0f);
            next = theta_l(m, c, s, read, join(m, parts, 2), mask, "fwd");
        } else {
            next = theta_l(m, c, s, read, kf[s], m->seg_mask[s], "fwd");
        }
        rf_graph_row_scope(m->g, RF_NONE);
        latent = gate(m, latent, next, m->valid[s]);
        tap_latent(m, latent, "fwd", s + 1, series);
    }
    rf_graph_region(m->g, RF_REGION_NONE);
    return latent;
}

/* The backward pass, i = T..1. With the forward pass (xf != NULL) its keys
 * are [X̃_i^F; X̃_i^B (; L_INIT_B)] and its first step's query is last_f =
 * L_T^F; alone, they are [X̃_i^B (; L_INIT_B)] and L_INIT_B. kf: X̃^F's
 * keys/values already projected with `c`'s weights, or NULL. */
static rf_id backward_pass(const blrp *m, const cross_set *c, rf_id init, const rf_id *xf, const kv *kf,
                           rf_id last_f)
{
    rf_graph *g = m->g;
    kv init_kv = m->residual ? project_kv(m, init, c->lat) : (kv){RF_NONE, RF_NONE};
    rf_id carry = xf != NULL ? last_f : init;
    int series[2];
    latent_series(m, "bwd", series);
    for (int s = m->T - 1; s >= 0; s--) {
        bool first = s == m->T - 1;
        /* next: a valid segment follows, so this is not the sample's first step */
        rf_id next = first ? RF_NONE : m->valid[s + 1];
        rf_graph_region(g, RF_REGION_SEGMENT);
        rf_graph_row_scope(g, m->valid[s]);
        rf_id read = carry;
        if (xf != NULL)
            read = first ? init : rf_add(g, init, rf_mul(g, next, rf_sub(g, carry, init)));
        rf_id xb = theta_x(m, c, s, with_pos(m, read), "bwd");
        kv parts[3];
        rf_id masks[3];
        int n = 0;
        if (xf != NULL) {
            parts[n] = kf != NULL ? kf[s] : project_kv(m, xf[s], c->lat);
            masks[n++] = m->seg_mask[s];
        }
        parts[n] = project_kv(m, xb, c->lat);
        masks[n++] = m->seg_mask[s];
        if (m->residual && !first) {
            parts[n] = init_kv;
            masks[n++] = rf_add(g, m->zeros_l, rf_reshape(g, next, rf_shape2(m->B, 1)));
        }
        rf_id mask = n == 1 ? masks[0] : rf_concat(g, masks, n, 1);
        rf_id upd = theta_l(m, c, s, with_pos(m, carry), join(m, parts, n), mask, "bwd");
        rf_graph_row_scope(g, RF_NONE);
        carry = gate(m, carry, upd, m->valid[s]);
        tap_latent(m, carry, "bwd", s + 1, series);
    }
    rf_graph_region(g, RF_REGION_NONE);
    return carry;
}

/* ---- the encoder ---- */

static bool check_inputs(const rf_encoder_ctx *e, rf_id x)
{
    rf_graph *g = e->g;
    const rf_config *cfg = e->cfg;
    if (!rf_graph_inputs_ok(g, &x, 1) || !rf_graph_inputs_ok(g, &e->mask, 1))
        return false;
    rf_shape sx = rf_node_shape(g, x), sm = rf_node_shape(g, e->mask);
    char a[64], b[64];
    if (sx.ndim != 3 || sx.dim[2] != cfg->model.dim || sm.ndim != 2 || sm.dim[0] != sx.dim[0] ||
        sm.dim[1] != sx.dim[1]) {
        rf_graph_fail(g, "blrp: x %s and mask %s must be [B, N, %d] and [B, N]", rf_shape_str(sx, a, sizeof a),
                      rf_shape_str(sm, b, sizeof b), cfg->model.dim);
        return false;
    }
    if (cfg->model.segment < 1 || cfg->model.latent < 1 || cfg->model.heads < 1 ||
        cfg->model.dim % cfg->model.heads != 0) {
        rf_graph_fail(g, "blrp: segment %d and latent %d must be >= 1 and heads %d must divide dim %d",
                      cfg->model.segment, cfg->model.latent, cfg->model.heads, cfg->model.dim);
        return false;
    }
    return true;
}

static rf_id build(blrp *m, const rf_config *cfg, rf_id x, rf_id mask)
{
    rf_graph *g = m->g;
    /* The samples go longest first, so that each segment step's row scope
     * covers just the samples with a token there ("Skipping the padding"
     * above). A device runs every row, but sorts too: dropout draws by
     * position, so the CPU and a GPU then draw the same masks. The output
     * goes back to the batch's order. */
    rf_id batch_mask = mask;
    x = rf_sort_rows(g, x, batch_mask, false);
    mask = rf_sort_rows(g, batch_mask, batch_mask, false);
    bool fwd = strcmp(cfg->model.direction, "backward") != 0;
    bool bwd = strcmp(cfg->model.direction, "forward") != 0;
    bool shared = strcmp(cfg->model.share_directions, "on") == 0;
    int64_t pad = (int64_t)m->T * m->t - m->N;
    m->mask = pad > 0 ? rf_pad(g, mask, 1, 0, pad, 0.0f) : mask;
    rf_id zero_b = rf_scale(g, rf_slice(g, mask, 1, 0, 1), 0.0f);   /* [B, 1], no gradient */
    m->zeros = rf_reshape(g, zero_b, rf_shape3(m->B, 1, 1));
    m->zeros_l = m->l > 1 ? rf_pad(g, zero_b, 1, 0, m->l - 1, 0.0f) : zero_b;

    if (strcmp(cfg->model.latent_pos, "sinusoidal") == 0)
        m->latent_pos = rf_param(g, "blrp.latent_pos", rf_shape2(m->l, m->d), RF_INIT_SINUSOIDAL, 0.0f);
    rf_id init[2];
    latent_init(m, cfg, x, mask, fwd, bwd, init);
    rf_id all = segments(m, x, cfg->model.layers);

    cross_set sets[2] = {0};
    int n_sets = fwd && bwd && !shared ? 2 : 1;
    const char *names[2] = {shared ? "cross" : fwd ? "fwd" : "bwd", "bwd"};
    for (int i = 0; i < n_sets; i++)
        cross_set_init(m, &sets[i], names[i], all);
    const cross_set *cf = &sets[0], *cb = &sets[n_sets - 1];

    rf_id out;
    rf_id *xf = calloc((size_t)m->T, sizeof *xf);
    kv *kf = calloc((size_t)m->T, sizeof *kf);
    if (!bwd)
        out = forward_pass(m, cf, init[0], xf, kf);
    else if (!fwd)
        out = backward_pass(m, cb, init[1], NULL, NULL, RF_NONE);
    else {
        rf_id last_f = forward_pass(m, cf, init[0], xf, kf);
        out = backward_pass(m, cb, init[1], xf, cf == cb ? kf : NULL, last_f);
    }
    free(xf);
    free(kf);
    for (int i = 0; i < n_sets; i++)
        free(sets[i].query);
    return rf_sort_rows(g, out, batch_mask, true);
}

rf_id rf_encoder_blrp(const rf_encoder_ctx *e, rf_id x, rf_id *out_mask)
{
    if (!check_inputs(e, x))
        return RF_NONE;
    const rf_config *cfg = e->cfg;
    rf_shape sx = rf_node_shape(e->g, x);
    blrp m = {
        .g = e->g,
        .B = (int)sx.dim[0],
        .N = (int)sx.dim[1],
        .t = cfg->model.segment,
        .l = cfg->model.latent,
        .d = cfg->model.dim,
        .heads = cfg->model.heads,
        .ff = cfg->model.ff,
        .dropout = cfg->model.dropout,
        .scale = 1.0f / sqrtf(strcmp(cfg->model.blrp_scale, "model") == 0
                                  ? (float)cfg->model.dim
                                  : (float)(cfg->model.dim / cfg->model.heads)),
        .residual = strcmp(cfg->model.latent_init, "phi_residual") == 0,
        .latent_norm = strcmp(cfg->model.latent_norm, "on") == 0,
        .latent_pos = RF_NONE,
    };
    m.T = (m.N + m.t - 1) / m.t;
    m.self = calloc((size_t)m.T, sizeof *m.self);
    m.valid = calloc((size_t)m.T, sizeof *m.valid);
    m.seg_mask = calloc((size_t)m.T, sizeof *m.seg_mask);
    rf_id out = build(&m, cfg, x, e->mask);
    free(m.self);
    free(m.valid);
    free(m.seg_mask);
    if (out != RF_NONE)
        *out_mask = RF_NONE;
    return out;
}
