/* MAELRE, the modality-agnostic long-range encoder (SPEC 4; Parag and
 * Elgammal, section 3).
 *
 * Blocks b = 0..B-1 of M_b pre-LN layers (MHSA + MLP) at width D_b =
 * model.dim * 2^b with model.heads / 2^(B-1-b) heads and MLP width
 * model.ff * 2^b. A block whose token count N_b exceeds D_b uses linear
 * attention (linear.c), the others dot-product attention. Between blocks the
 * tokens are merged by a strided convolution (1-D: kernel 2nu+1, stride nu,
 * padding nu; 2-D grids: 3x3, stride 2, padding 1) that keeps the width,
 * then a Linear doubles the width.
 *
 * CLS: when model.pool is cls, the classifier has prepended a CLS token at
 * position 0; it attends in every layer, skips the merges and is widened by
 * the same Linear as the merged tokens. With mean pooling there is no CLS
 * and the classifier averages the valid merged tokens.
 *
 * Padding: before a merge, padded tokens are zeroed, so they read exactly as
 * the convolution's own zero padding. A merged token is valid iff its stride
 * cell [i*nu, (i+1)*nu) (2-D: [2i, 2i+2) x [2j, 2j+2)) holds a valid token.
 * Every valid token lies in exactly one cell, so none is dropped, and a
 * sequence padded at its end gives the same valid merged tokens, with the
 * same values, as the unpadded one. Appending padding therefore leaves the
 * outputs unchanged, as long as it does not flip a block between linear and
 * dot-product attention (the choice follows the padded N_b, as the graph is
 * built per padded length).
 */
#include "maelre.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../op.h"
#include "../probe.h"

#define MAX_WIDTH (1 << 20)

/* "1,2,11,2" -> layers per block; empty: model.layers blocks of one layer.
 * Returns the count, or -1. */
static int parse_blocks(const rf_config *cfg, int *layers, int max)
{
    const char *s = cfg->model.blocks;
    while (isspace((unsigned char)*s))
        s++;
    if (*s == '\0') {
        if (cfg->model.layers > max)
            return -1;
        for (int b = 0; b < cfg->model.layers; b++)
            layers[b] = 1;
        return cfg->model.layers;
    }
    int n = 0;
    for (;;) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 1000 || n == max)
            return -1;
        layers[n++] = (int)v;
        while (isspace((unsigned char)*end))
            end++;
        if (*end == '\0')
            return n;
        if (*end != ',')
            return -1;
        s = end + 1;
    }
}

int rf_maelre_blocks(const rf_config *cfg, int tokens, int grid_h, int grid_w, rf_maelre_block *out, int max)
{
    int layers[RF_MAELRE_MAX_BLOCKS];
    int nb = parse_blocks(cfg, layers, max < RF_MAELRE_MAX_BLOCKS ? max : RF_MAELRE_MAX_BLOCKS);
    bool grid = grid_h > 0 || grid_w > 0;
    if (nb < 1 || tokens < 1 || cfg->model.reduce < 1 || (grid && grid_h * grid_w != tokens) ||
        (int64_t)cfg->model.dim << (nb - 1) > MAX_WIDTH || (int64_t)cfg->model.ff << (nb - 1) > MAX_WIDTH)
        return -1;
    int nu = cfg->model.reduce, h = grid_h, w = grid_w, n = tokens;
    for (int b = 0; b < nb; b++) {
        if (b > 0) {
            /* output length of the merge convolution, (L + 2p - k) / s + 1 */
            if (grid) {
                h = (h - 1) / 2 + 1;
                w = (w - 1) / 2 + 1;
                n = h * w;
            } else {
                n = (n - 1) / nu + 1;
            }
        }
        int heads = cfg->model.heads >> (nb - 1 - b);
        out[b] = (rf_maelre_block){.layers = layers[b],
                                   .tokens = n,
                                   .grid_h = h,
                                   .grid_w = w,
                                   .width = cfg->model.dim << b,
                                   .heads = heads > 1 ? heads : 1,
                                   .ff = cfg->model.ff << b};
        out[b].linear = out[b].tokens > out[b].width;
    }
    return nb;
}

static rf_id layernorm(rf_graph *g, rf_id x, int dim, const char *name)
{
    char gname[RF_NAME_LEN], bname[RF_NAME_LEN];
    snprintf(gname, sizeof gname, "%s.weight", name);
    snprintf(bname, sizeof bname, "%s.bias", name);
    rf_id gamma = rf_param(g, gname, rf_shape1(dim), RF_INIT_ONES, 0);
    rf_id beta = rf_param(g, bname, rf_shape1(dim), RF_INIT_ZEROS, 0);
    return rf_layernorm(g, x, gamma, beta, 1e-5f);
}

/* One pre-LN layer: x = x + MHSA(LN(x)); x = x + MLP(LN(x)). x [B, T, D_b] */
static rf_id block_layer(const rf_encoder_ctx *e, int layer, rf_id x, rf_id mask, const rf_maelre_block *blk)
{
    rf_graph *g = e->g;
    float p = e->cfg->model.dropout;
    int d = blk->width;
    char name[RF_NAME_LEN];
    snprintf(name, sizeof name, "layer%d.norm1", layer);
    rf_id h = rf_attention_sublayer(e, layer, layernorm(g, x, d, name), mask, d, blk->heads, blk->linear);
    if (p > 0)
        h = rf_dropout(g, h, p);
    x = rf_add(g, x, h);

    snprintf(name, sizeof name, "layer%d.norm2", layer);
    h = layernorm(g, x, d, name);
    snprintf(name, sizeof name, "layer%d.mlp.fc1", layer);
    h = rf_gelu(g, rf_dense(g, h, d, blk->ff, name, true));
    snprintf(name, sizeof name, "layer%d.mlp.fc2", layer);
    h = rf_dense(g, h, blk->ff, d, name, true);
    if (p > 0)
        h = rf_dropout(g, h, p);
    return rf_add(g, x, h);
}

/* 1 where count != 0, else 0, exactly: a softmax over one element is 1, and
 * the mask argument zeroes the rows whose count is 0. c [B, n] -> [B, n] */
static rf_id nonzero(rf_graph *g, rf_id c, int batch, int n)
{
    rf_id r = rf_reshape(g, c, rf_shape3(batch, n, 1));
    return rf_reshape(g, rf_softmax(g, r, r), rf_shape2(batch, n));
}

/* Valid tokens per stride cell along `axis` of m (cells of `stride`
 * positions; the last one padded with zeros). m [..., L, inner] with L at
 * `axis` -> [..., ceil(L / stride), inner] */
static rf_id cell_counts(rf_graph *g, rf_id m, int axis, int stride)
{
    if (m == RF_NONE)
        return RF_NONE;
    rf_shape s = rf_node_shape(g, m);
    int64_t len = s.dim[axis], cells = (len - 1) / stride + 1;
    if (cells * stride > len)
        m = rf_pad(g, m, axis, 0, cells * stride - len, 0.0f);
    rf_shape r = s;   /* split the axis into [cells, stride] */
    r.ndim = s.ndim + 1;
    for (int i = s.ndim; i > axis + 1; i--)
        r.dim[i] = s.dim[i - 1];
    r.dim[axis] = cells;
    r.dim[axis + 1] = stride;
    return rf_sum(g, rf_reshape(g, m, r), axis + 1);
}

/* The merged tokens' mask from the token mask tm [B, N] (CLS excluded). */
static rf_id merged_mask(const rf_encoder_ctx *e, rf_id tm, const rf_maelre_block *from, const rf_maelre_block *to)
{
    rf_graph *g = e->g;
    int B = e->batch;
    rf_id c;
    if (from->grid_h > 0) {
        /* [B, H, W] -> cells along W as [B*H, W, 1] -> along H as [B, H, W'] */
        c = cell_counts(g, rf_reshape(g, tm, rf_shape3((int64_t)B * from->grid_h, from->grid_w, 1)), 1, 2);
        c = cell_counts(g, rf_reshape(g, c, rf_shape3(B, from->grid_h, to->grid_w)), 1, 2);
    } else {
        c = cell_counts(g, rf_reshape(g, tm, rf_shape3(B, from->tokens, 1)), 1, e->cfg->model.reduce);
    }
    return nonzero(g, rf_reshape(g, c, rf_shape2(B, to->tokens)), B, to->tokens);
}

/* The strided convolution over the tokens t [B, N, D] -> [B, N', D]. */
static rf_id merge_conv(const rf_encoder_ctx *e, int layer, rf_id t, const rf_maelre_block *from,
                        const rf_maelre_block *to)
{
    rf_graph *g = e->g;
    int B = e->batch, D = from->width, nu = e->cfg->model.reduce;
    bool grid = from->grid_h > 0;
    int64_t kh = grid ? 3 : 1, kw = grid ? 3 : 2 * nu + 1;
    char wname[RF_NAME_LEN], bname[RF_NAME_LEN];
    snprintf(wname, sizeof wname, "layer%d.merge.conv.weight", layer);
    snprintf(bname, sizeof bname, "layer%d.merge.conv.bias", layer);
    float bound = 1.0f / sqrtf((float)(D * kh * kw));   /* PyTorch's default for Conv */
    rf_shape ws = grid ? rf_shape4(D, D, kh, kw) : rf_shape3(D, D, kw);
    rf_id w = rf_param(g, wname, ws, RF_INIT_UNIFORM, bound);
    rf_id bias = rf_param(g, bname, rf_shape1(D), RF_INIT_UNIFORM, bound);
    const int swap[3] = {0, 2, 1};
    rf_id c = rf_permute(g, t, swap);                     /* [B, D, N] */
    if (grid) {
        c = rf_reshape(g, c, rf_shape4(B, D, from->grid_h, from->grid_w));
        c = rf_conv2d(g, c, w, bias, 2, 2, 1, 1);         /* [B, D, H', W'] */
        c = rf_reshape(g, c, rf_shape3(B, D, to->tokens));
    } else {
        c = rf_conv1d(g, c, w, bias, nu, nu);             /* [B, D, N'] */
    }
    return rf_permute(g, c, swap);                        /* [B, N', D] */
}

/* Token reduction after the block ending at `layer`: x [B, cls + N, D] ->
 * [B, cls + N', 2D], *mask likewise (RF_NONE stays RF_NONE). */
static rf_id merge(const rf_encoder_ctx *e, int layer, rf_id x, rf_id *mask, bool cls, const rf_maelre_block *from,
                   const rf_maelre_block *to)
{
    rf_graph *g = e->g;
    int B = e->batch, D = from->width, N = from->tokens;
    rf_id t = cls ? rf_slice(g, x, 1, 1, N) : x;
    rf_id tm = RF_NONE;
    if (*mask != RF_NONE) {
        tm = cls ? rf_slice(g, *mask, 1, 1, N) : *mask;
        t = rf_mul(g, t, rf_reshape(g, tm, rf_shape3(B, N, 1)));   /* padded tokens read as zero padding */
    }
    t = merge_conv(e, layer, t, from, to);
    if (cls) {
        rf_id parts[2] = {rf_slice(g, x, 1, 0, 1), t};
        t = rf_concat(g, parts, 2, 1);
    }
    if (tm != RF_NONE) {
        rf_id m = merged_mask(e, tm, from, to);
        if (cls) {
            rf_id parts[2] = {rf_slice(g, *mask, 1, 0, 1), m};
            m = rf_concat(g, parts, 2, 1);
        }
        *mask = m;
    }
    char name[RF_NAME_LEN];
    snprintf(name, sizeof name, "layer%d.merge.widen", layer);
    return rf_dense(g, t, D, to->width, name, true);
}

/* x [B, cls + N_0, D_0] -> [B, cls + N_last, D_last]; *out_mask [B, cls + N_last] */
rf_id rf_encoder_maelre(const rf_encoder_ctx *e, rf_id x, rf_id *out_mask)
{
    rf_graph *g = e->g;
    const rf_config *cfg = e->cfg;
    bool cls = strcmp(cfg->model.pool, "cls") == 0;
    rf_maelre_block blk[RF_MAELRE_MAX_BLOCKS];
    int nb = rf_maelre_blocks(cfg, e->tokens - cls, e->grid_h, e->grid_w, blk, RF_MAELRE_MAX_BLOCKS);
    if (nb < 0)
        return rf_graph_fail(g,
                             "maelre: model.blocks = '%s' (layers per block, e.g. 1,2,11,2, at most %d blocks) "
                             "does not fit dim %d, ff %d, reduce %d and %d tokens (grid %dx%d)",
                             cfg->model.blocks, RF_MAELRE_MAX_BLOCKS, cfg->model.dim, cfg->model.ff,
                             cfg->model.reduce, e->tokens - cls, e->grid_h, e->grid_w);
    for (int b = 0; b < nb; b++)
        if (blk[b].width % blk[b].heads != 0)
            return rf_graph_fail(g, "maelre: block %d has %d heads, which do not divide its width %d", b,
                                 blk[b].heads, blk[b].width);
    rf_id mask = e->mask;
    int layer = 0;
    char name[RF_NAME_LEN];
    for (int b = 0; b < nb; b++) {
        if (b > 0)
            x = merge(e, layer - 1, x, &mask, cls, &blk[b - 1], &blk[b]);
        for (int l = 0; l < blk[b].layers; l++) {
            rf_graph_region(g, RF_REGION_LAYER);   /* train.recompute = layers recomputes each layer */
            x = block_layer(e, layer++, x, mask, &blk[b]);
            rf_graph_region(g, RF_REGION_NONE);
        }
        snprintf(name, sizeof name, "maelre.block%d.tokens", b);
        if (x != RF_NONE)
            rf_tap_add(g, name, x, RF_TAP_VALUE, rf_shape3(e->batch, cls + blk[b].tokens, blk[b].width), 0);
    }
    *out_mask = mask;
    return x;
}
