/* Embedding, conv1d, conv2d and attention against naive double references,
 * plus shape errors, thread-count independence of the threaded paths and
 * the attention maps a probe computes on demand. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/exec.h"
#include "../core/params.h"
#include "../core/rng.h"
#include "../core/probe.h"
#include "dropout_rule.h"
#include "opcheck.h"
#include "tap.h"
#include "tolerance.h"

/* ---------------- embedding ---------------- */

typedef struct {
    int64_t rows, D;   /* numel(ids), table width */
} embed_case;

static rf_id build_embedding(rf_graph *g, const rf_id *in, const void *ctx)
{
    (void)ctx;
    return rf_embedding(g, in[0], in[1]);
}

static void ref_embedding(const double *const *in, double *out, const void *ctx)
{
    const embed_case *c = ctx;
    for (int64_t r = 0; r < c->rows; r++)
        for (int64_t d = 0; d < c->D; d++)
            out[r * c->D + d] = in[1][(int64_t)in[0][r] * c->D + d];
}

static void run_embedding(const char *name, rf_shape ids, int64_t V, int64_t D, opcheck_kind table_kind)
{
    embed_case ec = {rf_shape_numel(ids), D};
    opcheck_case c = {
        .name = name,
        .n_in = 2,
        .shape = {ids, rf_shape2(V, D)},
        .kind = {OPCHECK_IDS, table_kind},
        .range = {(int)V, 0},
        .build = build_embedding,
        .reference = ref_embedding,
        .ctx = &ec,
    };
    opcheck_run(&c);
}

static void test_embedding(void)
{
    run_embedding("embedding ids [3, 5] table [7, 3]", rf_shape2(3, 5), 7, 3, OPCHECK_NORMAL);
    run_embedding("embedding ids [13] param table [6, 5]", rf_shape1(13), 6, 5, OPCHECK_PARAM);
    run_embedding("embedding ids [2, 3, 2] table [5, 3]", rf_shape3(2, 3, 2), 5, 3, OPCHECK_NORMAL);
}

/* ---------------- convolution ---------------- */

typedef struct {
    bool two_d;                 /* conv2d; else conv1d with H = KH = 1 */
    int64_t B, Cin, H, W, Cout, KH, KW;
    int sh, sw, ph, pw;
    bool bias;
    opcheck_kind wkind;         /* kind of the weight and bias */
} conv_case;

static int64_t conv_oh(const conv_case *c) { return (c->H + 2 * c->ph - c->KH) / c->sh + 1; }
static int64_t conv_ow(const conv_case *c) { return (c->W + 2 * c->pw - c->KW) / c->sw + 1; }

static rf_id build_conv(rf_graph *g, const rf_id *in, const void *ctx)
{
    const conv_case *c = ctx;
    rf_id bias = c->bias ? in[2] : RF_NONE;
    if (c->two_d)
        return rf_conv2d(g, in[0], in[1], bias, c->sh, c->sw, c->ph, c->pw);
    return rf_conv1d(g, in[0], in[1], bias, c->sw, c->pw);
}

/* out[b, o, i, j] = bias[o] + sum_{c, kh, kw} w[o, c, kh, kw] * x[b, c, i*sh + kh - ph, j*sw + kw - pw] */
static void ref_conv(const double *const *in, double *out, const void *ctx)
{
    const conv_case *c = ctx;
    const double *x = in[0], *w = in[1];
    int64_t OH = conv_oh(c), OW = conv_ow(c);
    for (int64_t b = 0; b < c->B; b++)
        for (int64_t o = 0; o < c->Cout; o++)
            for (int64_t i = 0; i < OH; i++)
                for (int64_t j = 0; j < OW; j++) {
                    double s = c->bias ? in[2][o] : 0.0;
                    for (int64_t ch = 0; ch < c->Cin; ch++)
                        for (int64_t kh = 0; kh < c->KH; kh++)
                            for (int64_t kw = 0; kw < c->KW; kw++) {
                                int64_t ih = i * c->sh + kh - c->ph, iw = j * c->sw + kw - c->pw;
                                if (ih < 0 || ih >= c->H || iw < 0 || iw >= c->W)
                                    continue;
                                s += w[((o * c->Cin + ch) * c->KH + kh) * c->KW + kw] *
                                     x[((b * c->Cin + ch) * c->H + ih) * c->W + iw];
                            }
                    out[((b * c->Cout + o) * OH + i) * OW + j] = s;
                }
}

static void run_conv(const char *name, const conv_case *cc)
{
    opcheck_case c = {
        .name = name,
        .n_in = cc->bias ? 3 : 2,
        .kind = {OPCHECK_NORMAL, cc->wkind, cc->wkind},
        .build = build_conv,
        .reference = ref_conv,
        .ctx = cc,
    };
    if (cc->two_d) {
        c.shape[0] = rf_shape4(cc->B, cc->Cin, cc->H, cc->W);
        c.shape[1] = rf_shape4(cc->Cout, cc->Cin, cc->KH, cc->KW);
    } else {
        c.shape[0] = rf_shape3(cc->B, cc->Cin, cc->W);
        c.shape[1] = rf_shape3(cc->Cout, cc->Cin, cc->KW);
    }
    c.shape[2] = rf_shape1(cc->Cout);
    opcheck_run(&c);
}

/* conv1d: B, Cin, L, Cout, K, stride, pad, bias, weight kind */
static void run_conv1d(const char *name, int64_t B, int64_t Cin, int64_t L, int64_t Cout, int64_t K, int stride,
                       int pad, bool bias, opcheck_kind wkind)
{
    conv_case c = {false, B, Cin, 1, L, Cout, 1, K, 1, stride, 0, pad, bias, wkind};
    run_conv(name, &c);
}

static void run_conv2d(const char *name, int64_t B, int64_t Cin, int64_t H, int64_t W, int64_t Cout, int64_t KH,
                       int64_t KW, int sh, int sw, int ph, int pw, bool bias, opcheck_kind wkind)
{
    conv_case c = {true, B, Cin, H, W, Cout, KH, KW, sh, sw, ph, pw, bias, wkind};
    run_conv(name, &c);
}

static void test_conv(void)
{
    run_conv1d("conv1d k3 s1 p1", 2, 3, 7, 4, 3, 1, 1, true, OPCHECK_NORMAL);
    run_conv1d("conv1d k1 s1 p0 (pointwise)", 2, 3, 5, 4, 1, 1, 0, true, OPCHECK_NORMAL);
    run_conv1d("conv1d k1 s2 p1, no bias", 2, 3, 7, 2, 1, 2, 1, false, OPCHECK_NORMAL);
    run_conv1d("conv1d k4 s2 p2", 1, 3, 11, 3, 4, 2, 2, true, OPCHECK_NORMAL);
    run_conv1d("conv1d k3 s3 p0, no bias", 2, 2, 13, 3, 3, 3, 0, false, OPCHECK_NORMAL);
    run_conv1d("conv1d k5 s1 p2, param w and bias", 1, 3, 7, 3, 5, 1, 2, true, OPCHECK_PARAM);
    run_conv1d("conv1d k9 s4 p4 (MAELRE)", 2, 3, 13, 5, 9, 4, 4, true, OPCHECK_NORMAL);
    run_conv1d("conv1d k4 s3 p1, kernel = padded input", 1, 2, 2, 3, 4, 3, 1, true, OPCHECK_NORMAL);
    /* 18 items: 16 runs of one or two items, whose weight gradients add up */
    run_conv1d("conv1d k9 s4 p4, 18 items, param w and bias", 18, 2, 9, 3, 9, 4, 4, true, OPCHECK_PARAM);
    run_conv1d("conv1d k1 s1 p0 (pointwise), 17 items, param w", 17, 2, 3, 2, 1, 1, 0, false, OPCHECK_PARAM);

    run_conv2d("conv2d 3x3 s2 p1 (MAELRE)", 2, 2, 7, 5, 3, 3, 3, 2, 2, 1, 1, true, OPCHECK_NORMAL);
    run_conv2d("conv2d 7x7 s4 p3 (MAELRE), param w and bias", 1, 2, 9, 11, 2, 7, 7, 4, 4, 3, 3, true,
               OPCHECK_PARAM);
    run_conv2d("conv2d 1x1 s1 p0 (pointwise)", 2, 3, 3, 5, 2, 1, 1, 1, 1, 0, 0, true, OPCHECK_NORMAL);
    run_conv2d("conv2d 1x1 s2 p1, no bias", 1, 3, 5, 3, 2, 1, 1, 2, 2, 1, 1, false, OPCHECK_NORMAL);
    run_conv2d("conv2d 2x3 s3x1 p0x2, no bias", 1, 2, 7, 4, 3, 2, 3, 3, 1, 0, 2, false, OPCHECK_NORMAL);
    run_conv2d("conv2d 3x4 s1x2 p2x1", 2, 2, 5, 6, 2, 3, 4, 1, 2, 2, 1, true, OPCHECK_NORMAL);
    run_conv2d("conv2d 3x3 s2 p1, 19 items, param w and bias", 19, 2, 5, 4, 2, 3, 3, 2, 2, 1, 1, true,
               OPCHECK_PARAM);
}

/* ---------------- attention ---------------- */

#define MASKED_ROW_SEED 1

/* Which kinds of batch rows the reference has seen. */
typedef struct {
    bool all_masked, some_valid;
} mask_coverage;

typedef struct {
    int64_t B, N, M, D, H;
    float scale;
    bool mask;
    bool shared_qkv;            /* q = k = v = input 0 (then N = M) */
    mask_coverage *coverage;    /* NULL, or filled by the reference */
    float drop;                 /* attention dropout */
    bool training;              /* the executor trains (dropout active) */
    double *keep;               /* attention_keep of every (b, h, i, j), made by run_attention */
} attn_case;

static rf_id build_attention(rf_graph *g, const rf_id *in, const void *ctx)
{
    const attn_case *c = ctx;
    if (c->shared_qkv)
        return rf_attention(g, in[0], in[0], in[0], RF_NONE, (int)c->H, c->scale, c->drop);
    return rf_attention(g, in[0], in[1], in[2], c->mask ? in[3] : RF_NONE, (int)c->H, c->scale, c->drop);
}

/* The op's node id: the harness makes the inputs nodes 0.. first. */
static uint64_t attention_node(const attn_case *c)
{
    return c->shared_qkv ? 1 : c->mask ? 4 : 3;
}

/* 1 / (1 - p) for a kept probability (b, h, i, j), 0 for a dropped one, 1
 * when not training. */
static double attention_keep(const attn_case *c, int64_t b, int64_t h, int64_t i, int64_t j)
{
    if (!c->training || c->drop == 0.0f)
        return 1.0;
    uint64_t e = (uint64_t)(((b * c->H + h) * c->N + i) * c->M + j);
    return dropout_kept(OPCHECK_EXEC_SEED, OPCHECK_EXEC_STEP, attention_node(c), e, c->drop) ? 1.0 / (1.0 - c->drop)
                                                                                            : 0.0;
}

static void ref_attention(const double *const *in, double *out, const void *ctx)
{
    const attn_case *c = ctx;
    const double *q = in[0], *k = c->shared_qkv ? in[0] : in[1], *v = c->shared_qkv ? in[0] : in[2];
    const double *mask = c->mask ? in[3] : NULL;
    int64_t dk = c->D / c->H;
    double *p = malloc((size_t)c->M * sizeof *p);
    for (int64_t b = 0; b < c->B; b++) {
        int valid = 0;
        for (int64_t j = 0; j < c->M; j++)
            valid += mask == NULL || mask[b * c->M + j] != 0.0;
        if (c->coverage != NULL) {
            c->coverage->all_masked |= valid == 0;
            c->coverage->some_valid |= valid > 0;
        }
        for (int64_t h = 0; h < c->H; h++)
            for (int64_t i = 0; i < c->N; i++) {
                double mx = -INFINITY, sum = 0.0;
                for (int64_t j = 0; j < c->M; j++) {
                    p[j] = -INFINITY;
                    if (mask != NULL && mask[b * c->M + j] == 0.0)
                        continue;
                    double s = 0.0;
                    for (int64_t d = 0; d < dk; d++)
                        s += q[(b * c->N + i) * c->D + h * dk + d] * k[(b * c->M + j) * c->D + h * dk + d];
                    p[j] = c->scale * s;
                    mx = fmax(mx, p[j]);
                }
                for (int64_t j = 0; j < c->M; j++) {
                    p[j] = p[j] == -INFINITY ? 0.0 : exp(p[j] - mx);
                    sum += p[j];
                }
                for (int64_t j = 0; j < c->M; j++)
                    p[j] *= c->keep[((b * c->H + h) * c->N + i) * c->M + j];
                for (int64_t d = 0; d < dk; d++) {
                    double o = 0.0;
                    for (int64_t j = 0; j < c->M; j++)
                        o += p[j] * v[(b * c->M + j) * c->D + h * dk + d];
                    out[(b * c->N + i) * c->D + h * dk + d] = sum > 0.0 ? o / sum : 0.0;
                }
            }
    }
    free(p);
}

/* kinds: of q, k, v; the mask (input 3) is `mask_kind` when ac->mask */
static void run_attention(const char *name, attn_case *ac, opcheck_kind kq, opcheck_kind kk, opcheck_kind kv,
                          opcheck_kind mask_kind, uint64_t seed)
{
    /* the keep factors once: the finite differences run the reference twice
     * per input element, and hashing every (b, h, i, j) each time dominated */
    ac->keep = malloc((size_t)(ac->B * ac->H * ac->N * ac->M) * sizeof *ac->keep);
    for (int64_t b = 0, e = 0; b < ac->B; b++)
        for (int64_t h = 0; h < ac->H; h++)
            for (int64_t i = 0; i < ac->N; i++)
                for (int64_t j = 0; j < ac->M; j++)
                    ac->keep[e++] = attention_keep(ac, b, h, i, j);
    opcheck_case c = {
        .name = name,
        .n_in = ac->shared_qkv ? 1 : ac->mask ? 4 : 3,
        .shape = {rf_shape3(ac->B, ac->N, ac->D), rf_shape3(ac->B, ac->M, ac->D),
                  rf_shape3(ac->B, ac->M, ac->D), rf_shape2(ac->B, ac->M)},
        .kind = {kq, kk, kv, mask_kind},
        .range = {0, 0, 0, 1},   /* a mask of kind OPCHECK_IDS is all zeros */
        .build = build_attention,
        .reference = ref_attention,
        .ctx = ac,
        .training = ac->training,
        .seed = seed,
    };
    opcheck_run(&c);
    free(ac->keep);
    ac->keep = NULL;
}

static void test_attention(void)
{
    const opcheck_kind N = OPCHECK_NORMAL;
    /* The tile these checks run with: RF_TILES's (tests/meson.build runs
     * them once per candidate), whatever the head width. A candidate
     * RF_TILES names that the engine does not have falls back to the
     * default, which would check the default twice: refused here. */
    const rf_attn_tile tile = rf_tiles_attention(1);
    const int64_t QB = tile.qb, KB = tile.kb;
    const char *env = getenv("RF_TILES");
    char name[32];
    tap_ok(env == NULL || strcmp(rf_tiles_mode(), env) == 0, "RF_TILES=%s is in force: attention tile %s",
           env != NULL ? env : "(unset)", rf_attn_tile_name(tile, name, sizeof name));
    attn_case self1 = {2, 5, 5, 6, 1, 1.0f / sqrtf(6.0f), false, false, NULL, 0, false, NULL};
    run_attention("attention self, 1 head, no mask", &self1, N, N, N, N, 0);

    attn_case self3 = {2, 5, 5, 9, 3, 1.0f / sqrtf(3.0f), true, false, NULL, 0, false, NULL};
    run_attention("attention self, 3 heads, mask", &self3, N, N, N, OPCHECK_MASK, 0);

    attn_case cross = {2, 3, 7, 6, 3, 0.5f, true, false, NULL, 0, false, NULL};
    run_attention("attention cross N=3 M=7, 3 heads, mask", &cross, N, N, N, OPCHECK_MASK, 0);

    attn_case cross_param = {1, 7, 3, 3, 3, 0.8f, false, false, NULL, 0, false, NULL};
    run_attention("attention cross N=7 M=3, dk=1, param k and v, no mask", &cross_param, N, OPCHECK_PARAM,
                  OPCHECK_PARAM, N, 0);

    attn_case shared = {2, 5, 5, 6, 3, 1.0f / sqrtf(2.0f), false, true, NULL, 0, false, NULL};
    run_attention("attention q = k = v, 3 heads", &shared, N, N, N, N, 0);

    /* With M = 2 about one batch row in 16 has every key masked; this seed
     * gives such a row next to rows with valid keys (checked after). */
    mask_coverage cov = {false, false};
    attn_case partial = {4, 3, 2, 6, 3, 0.7f, true, false, &cov, 0, false, NULL};
    run_attention("attention with a fully masked batch row", &partial, N, N, N, OPCHECK_MASK, MASKED_ROW_SEED);
    tap_ok(cov.all_masked && cov.some_valid, "the fully masked row case has both kinds of batch rows");

    /* Blocks: more queries than one query block; more keys than one key
     * block, the second nearly full, so about half the rows find their max
     * there and the online softmax rescales; neither a multiple of its
     * block. */
    /* (heads of one float and few queries: every input element's finite
     * difference runs the whole reference, so the cost grows with the
     * square of the blocks' sizes) */
    attn_case qblocks = {1, QB + 3, 37, 2, 2, 0.5f, true, false, NULL, 0, false, NULL};
    run_attention("attention N = QBLOCK + 3, M = 37, 2 heads, dk = 1, mask", &qblocks, N, N, N, OPCHECK_MASK, 0);
    /* the forward takes its query blocks four at a time, each key block
     * loaded once for them: past one such group, the last one partial */
    attn_case qgroups = {1, 4 * QB + 3, 5, 2, 2, 0.6f, true, false, NULL, 0, false, NULL};
    run_attention("attention N = 4 QBLOCK + 3, M = 5, 2 heads, dk = 1, mask", &qgroups, N, N, N, OPCHECK_MASK, 0);
    /* emulated, a second key block of 19 keys (a vector and a tail) is
     * enough: the block loop around the vector code is the same on every CPU */
    int64_t m2 = tap_portable_run ? KB + 19 : 2 * KB - 3;
    attn_case kblocks = {1, 2, m2, 2, 2, 0.8f, true, false, NULL, 0, false, NULL};
    char kname[96];
    snprintf(kname, sizeof kname, "attention N = 2, M = KBLOCK + %lld, 2 heads, dk = 1, mask",
             (long long)(m2 - KB));
    run_attention(kname, &kblocks, N, N, N, OPCHECK_MASK, 0);

    /* heads wider than the short-head kernel takes (RF_SMALL_HEAD_K): the
     * scores and their products on the BLAS on every CPU */
    attn_case wide = {1, 5, 7, 34, 2, 0.2f, true, false, NULL, 0, false, NULL};
    run_attention("attention N = 5, M = 7, 2 heads, dk = 17, mask", &wide, N, N, N, OPCHECK_MASK, 0);

    /* heads of 8, the ListOps models' (the short-head kernels' unrolled
     * path; with a "-lanes" tile, P V and dS K with each key a lane): row
     * pairs and a last row, two chunks of 16 keys and a tail. Native only:
     * the kernels' AVX2 paths are small_head's checks under emulation */
    attn_case heads8 = {1, 9, 40, 16, 2, 0.35f, true, false, NULL, 0, false, NULL};
    if (!tap_portable_run)
        run_attention("attention N = 9, M = 40, 2 heads, dk = 8, mask", &heads8, N, N, N, OPCHECK_MASK, 0);

    attn_case none = {2, 3, 5, 6, 3, 0.4f, true, false, NULL, 0, false, NULL};
    run_attention("attention with every key masked", &none, N, N, N, OPCHECK_IDS, 0);

    /* Dropout on the probabilities, the keep rule of rf_dropout. */
    attn_case drop = {2, 5, 7, 6, 3, 0.7f, true, false, NULL, 0.3f, true, NULL};
    run_attention("attention dropout 0.3, 3 heads, mask", &drop, N, N, N, OPCHECK_MASK, 0);

    /* the keep rule's index past the first query and key blocks (the heads'
     * share of it is the case above); scalar code, the same on every CPU,
     * so not under emulation. At most 256 + 7 keys: at 519 (the 512-key
     * tile's KB + 7) q's gradient goes past its bound with every tile, the
     * default's included (1.26 of it), a limit of the dropout bound at that
     * length and not of a tile; the 512-key tile's offset of a second key
     * block is the same code as the others', checked by them. */
    const int64_t drop_m = (KB < 256 ? KB : 256) + 7;
    attn_case drop_blocks = {1, QB + 1, drop_m, 1, 1, 0.6f, true, false, NULL, 0.5f, true, NULL};
    char dname[96];
    snprintf(dname, sizeof dname, "attention dropout 0.5, N = QBLOCK + 1, M = %lld, 1 head, dk = 1, mask",
             (long long)drop_m);
    if (!tap_portable_run)
        run_attention(dname, &drop_blocks, N, N, N, OPCHECK_MASK, 0);

    attn_case drop_off = {2, 5, 5, 6, 3, 0.7f, true, false, NULL, 0.3f, false, NULL};
    run_attention("attention dropout 0.3 not training (the identity)", &drop_off, N, N, N, OPCHECK_MASK, 0);

    attn_case drop_param = {1, 4, 6, 4, 2, 0.9f, false, false, NULL, 0.25f, true, NULL};
    run_attention("attention dropout 0.25, param k and v, no mask", &drop_param, N, OPCHECK_PARAM, OPCHECK_PARAM, N,
                  0);
}

/* ---------------- shape errors ---------------- */

static void expect_error(rf_graph *g, rf_id got, const char *what)
{
    const char *err = rf_graph_error(g);
    if (!tap_ok(got == RF_NONE && !rf_graph_ok(g) && err[0] != '\0', "rejects %s", what))
        return;
    tap_diag("%s", err);
}

typedef rf_id (*bad_build)(rf_graph *g);

static void check_bad(bad_build f, const char *what)
{
    rf_params *p = rf_params_new(1);
    rf_graph *g = rf_graph_new(p);
    expect_error(g, f(g), what);
    rf_graph_free(g);
    rf_params_free(p);
}

static rf_id bad_embedding_table(rf_graph *g)
{
    rf_id ids = rf_input(g, "ids", rf_shape2(3, 5), false);
    return rf_embedding(g, ids, rf_input(g, "t", rf_shape3(7, 3, 2), true));
}

static rf_id bad_embedding_ids_grad(rf_graph *g)
{
    rf_id ids = rf_input(g, "ids", rf_shape2(3, 5), true);
    return rf_embedding(g, ids, rf_input(g, "t", rf_shape2(7, 3), true));
}

static rf_id bad_conv1d_channels(rf_graph *g)
{
    rf_id x = rf_input(g, "x", rf_shape3(2, 3, 7), true);
    return rf_conv1d(g, x, rf_input(g, "w", rf_shape3(4, 5, 3), true), RF_NONE, 1, 1);
}

static rf_id bad_conv1d_kernel(rf_graph *g)
{
    rf_id x = rf_input(g, "x", rf_shape3(2, 3, 5), true);
    return rf_conv1d(g, x, rf_input(g, "w", rf_shape3(4, 3, 9), true), RF_NONE, 1, 1);
}

static rf_id bad_conv1d_bias(rf_graph *g)
{
    rf_id x = rf_input(g, "x", rf_shape3(2, 3, 7), true);
    rf_id w = rf_input(g, "w", rf_shape3(4, 3, 3), true);
    return rf_conv1d(g, x, w, rf_input(g, "b", rf_shape1(3), true), 1, 1);
}

static rf_id bad_conv2d_stride(rf_graph *g)
{
    rf_id x = rf_input(g, "x", rf_shape4(1, 3, 7, 7), true);
    return rf_conv2d(g, x, rf_input(g, "w", rf_shape4(4, 3, 3, 3), true), RF_NONE, 0, 1, 1, 1);
}

static rf_id bad_conv2d_rank(rf_graph *g)
{
    rf_id x = rf_input(g, "x", rf_shape3(3, 7, 7), true);
    return rf_conv2d(g, x, rf_input(g, "w", rf_shape4(4, 3, 3, 3), true), RF_NONE, 1, 1, 1, 1);
}

static rf_id bad_attention_heads(rf_graph *g)
{
    rf_id q = rf_input(g, "q", rf_shape3(2, 5, 6), true);
    return rf_attention(g, q, q, q, RF_NONE, 4, 1.0f, 0.0f);
}

static rf_id bad_attention_kv(rf_graph *g)
{
    rf_id q = rf_input(g, "q", rf_shape3(2, 5, 6), true);
    rf_id k = rf_input(g, "k", rf_shape3(2, 7, 6), true);
    return rf_attention(g, q, k, rf_input(g, "v", rf_shape3(2, 5, 6), true), RF_NONE, 2, 1.0f, 0.0f);
}

static rf_id bad_attention_mask(rf_graph *g)
{
    rf_id q = rf_input(g, "q", rf_shape3(2, 5, 6), true);
    rf_id k = rf_input(g, "k", rf_shape3(2, 7, 6), true);
    return rf_attention(g, q, k, k, rf_input(g, "m", rf_shape2(2, 5), false), 2, 1.0f, 0.0f);
}

static rf_id bad_attention_dropout(rf_graph *g)
{
    rf_id q = rf_input(g, "q", rf_shape3(2, 5, 6), true);
    return rf_attention(g, q, q, q, RF_NONE, 2, 1.0f, 1.0f);
}

static void test_errors(void)
{
    check_bad(bad_embedding_table, "embedding with a 3-D table");
    check_bad(bad_embedding_ids_grad, "embedding ids that need a gradient");
    check_bad(bad_conv1d_channels, "conv1d with mismatched channels");
    check_bad(bad_conv1d_kernel, "conv1d with a kernel longer than the padded input");
    check_bad(bad_conv1d_bias, "conv1d with a bias of the wrong length");
    check_bad(bad_conv2d_stride, "conv2d with stride 0");
    check_bad(bad_conv2d_rank, "conv2d with a 3-D input");
    check_bad(bad_attention_heads, "attention whose heads do not divide D");
    check_bad(bad_attention_kv, "attention with k and v of different lengths");
    check_bad(bad_attention_mask, "attention with a mask of the wrong length");
    check_bad(bad_attention_dropout, "attention with dropout 1");
}

/* ---------------- thread-count independence ----------------
 * Sizes big enough for the pool to split the row work; the outputs and
 * gradients must be bitwise equal with and without worker threads. */

typedef struct {
    const char *name;
    int n_in;
    rf_shape shape[4];
    opcheck_kind kind[4];
    int range[4];
    rf_id (*build)(rf_graph *g, const rf_id *in, const void *ctx);
    const void *ctx;
} big_case;

typedef struct {
    float *out;
    float *grad[4];
    int64_t n_out;
} big_result;

static void big_fill(float *v, int64_t n, opcheck_kind kind, int range, rf_rng *rng)
{
    for (int64_t i = 0; i < n; i++)
        v[i] = kind == OPCHECK_IDS    ? (float)rf_rng_int(rng, 0, range - 1)
               : kind == OPCHECK_MASK ? (rf_rng_uniform(rng) < 0.25 ? 0.0f : 1.0f)
                                      : (float)rf_rng_normal(rng);
}

static bool big_run(const big_case *c, int threads, big_result *r)
{
    rf_graph *g = rf_graph_new(NULL);
    rf_id in[4];
    for (int k = 0; k < c->n_in; k++)
        in[k] = rf_input(g, "in", c->shape[k], c->kind[k] == OPCHECK_NORMAL);
    rf_id out = c->build(g, in, c->ctx);
    rf_graph_keep(g, out);
    rf_status st = {0};
    if (out == RF_NONE || !rf_graph_prepare(g, out, 4, NULL, &st)) {
        rf_graph_free(g);
        return false;
    }
    rf_rng rng = {7};
    for (int k = 0; k < c->n_in; k++)
        big_fill(rf_value(g, in[k]), rf_shape_numel(c->shape[k]), c->kind[k], c->range[k], &rng);
    r->n_out = rf_shape_numel(rf_node_shape(g, out));
    float *seed = malloc((size_t)r->n_out * sizeof *seed);
    big_fill(seed, r->n_out, OPCHECK_NORMAL, 0, &rng);

    rf_pool *pool = threads > 1 ? rf_pool_new(threads) : NULL;
    rf_exec x;
    rf_exec_init(&x, g, pool, 1, 1, true);
    rf_graph_forward(g, &x);
    rf_graph_backward(g, &x, seed);
    r->out = malloc((size_t)r->n_out * sizeof(float));
    memcpy(r->out, rf_value(g, out), (size_t)r->n_out * sizeof(float));
    for (int k = 0; k < c->n_in; k++) {
        r->grad[k] = NULL;
        if (rf_grad(g, in[k]) != NULL) {
            size_t bytes = (size_t)rf_shape_numel(c->shape[k]) * sizeof(float);
            r->grad[k] = malloc(bytes);
            memcpy(r->grad[k], rf_grad(g, in[k]), bytes);
        }
    }
    rf_pool_free(pool);
    free(seed);
    rf_graph_free(g);
    return true;
}

static void big_free(const big_case *c, big_result *r)
{
    free(r->out);
    for (int k = 0; k < c->n_in; k++)
        free(r->grad[k]);
}

static void run_big(const big_case *c)
{
    big_result one, many;
    if (!tap_ok(big_run(c, 1, &one) && big_run(c, 3, &many), "%s: builds", c->name))
        return;
    bool same = memcmp(one.out, many.out, (size_t)one.n_out * sizeof(float)) == 0;
    for (int k = 0; k < c->n_in; k++)
        if (one.grad[k] != NULL)
            same &= memcmp(one.grad[k], many.grad[k], (size_t)rf_shape_numel(c->shape[k]) * sizeof(float)) == 0;
    tap_ok(same, "%s: 1 and 3 threads give bitwise equal outputs and gradients", c->name);
    big_free(c, &one);
    big_free(c, &many);
}

static void test_threads(void)
{
    big_case emb = {"embedding [2000] x [50, 32]", 2, {rf_shape1(2000), rf_shape2(50, 32)},
                    {OPCHECK_IDS, OPCHECK_NORMAL}, {50, 0}, build_embedding, NULL};
    run_big(&emb);

    conv_case cc = {true, 2, 8, 31, 33, 8, 3, 3, 2, 1, 1, 1, true, OPCHECK_NORMAL};
    big_case conv = {"conv2d [2, 8, 31, 33] 3x3 s2x1 p1", 3,
                     {rf_shape4(2, 8, 31, 33), rf_shape4(8, 8, 3, 3), rf_shape1(8)},
                     {OPCHECK_NORMAL, OPCHECK_NORMAL, OPCHECK_NORMAL}, {0}, build_conv, &cc};
    run_big(&conv);

    attn_case ac = {2, 250, 300, 48, 3, 0.25f, true, false, NULL, 0, true, NULL};
    big_case attn = {"attention N=250 M=300 D=48, 3 heads, mask", 4,
                     {rf_shape3(2, 250, 48), rf_shape3(2, 300, 48), rf_shape3(2, 300, 48), rf_shape2(2, 300)},
                     {OPCHECK_NORMAL, OPCHECK_NORMAL, OPCHECK_NORMAL, OPCHECK_MASK}, {0}, build_attention, &ac};
    run_big(&attn);

    attn_case dc = ac;
    dc.drop = 0.2f;
    big_case drop = attn;
    drop.name = "attention N=250 M=300 D=48, 3 heads, mask, dropout 0.2";
    drop.ctx = &dc;
    run_big(&drop);
}

/* ---------------- attention maps on demand ----------------
 * Training keeps only the rows' log-sum-exp; a probe on the probabilities
 * gets one sample's [heads, N, M] map, computed while it is attached, and
 * equal to the softmax of that sample's scores. Bounds: a score within
 * sigma = tol_sum(dk, scale sum|q k|) + u|s|; the log-sum-exp within the
 * row's largest sigma, the sum of M exponentials and a chain per key block;
 * p = e^(s - lse) then within p (sigma + lse's error + a chain). */
static void test_attention_probe(void)
{
    const rf_attn_tile tile = rf_tiles_attention(4);
    const int64_t QB = tile.qb, KB = tile.kb;
    const int64_t B = 3, N = QB + 5, M = KB + 3, D = 8, H = 2, dk = D / H, S = 1;
    const float scale = 0.6f;
    rf_graph *g = rf_graph_new(NULL);
    rf_id q = rf_input(g, "q", rf_shape3(B, N, D), true), k = rf_input(g, "k", rf_shape3(B, M, D), true);
    rf_id v = rf_input(g, "v", rf_shape3(B, M, D), true), m = rf_input(g, "m", rf_shape2(B, M), false);
    rf_id a = rf_attention(g, q, k, v, m, (int)H, scale, 0.0f);
    bool tapped = rf_tap_add(g, "probs", a, RF_TAP_AUX, rf_shape4(B, H, N, M), 0);
    rf_graph_keep(g, a);
    rf_status st = {0};
    if (!tap_ok(tapped && rf_graph_prepare(g, RF_NONE, 2, NULL, &st), "a probe taps the probabilities [B, heads, N, M]")) {
        rf_graph_free(g);
        return;
    }
    tap_ok(rf_graph_node(g, a)->aux_floats == (size_t)(B * H * N), "attention keeps B heads N floats, not N x M");
    tap_ok(rf_graph_node(g, a)->tile.qb == QB && rf_graph_node(g, a)->tile.kb == KB,
           "the prepared node runs with the tile in force");
    rf_rng rng = {11};
    big_fill(rf_value(g, q), B * N * D, OPCHECK_NORMAL, 0, &rng);
    big_fill(rf_value(g, k), B * M * D, OPCHECK_NORMAL, 0, &rng);
    big_fill(rf_value(g, v), B * M * D, OPCHECK_NORMAL, 0, &rng);
    big_fill(rf_value(g, m), B * M, OPCHECK_MASK, 0, &rng);

    const char *names[] = {"probs"};
    rf_probe_set *ps = rf_probe_set_new(g, names, 1, (int)S, &st);
    rf_pool *pool = rf_pool_new(2);
    rf_exec x;
    rf_exec_init(&x, g, pool, 1, 1, false);
    rf_probe_attach(g, ps);
    rf_graph_forward(g, &x);
    rf_probe_attach(g, NULL);
    const float *got = ps->values[0].data, *qv = rf_value(g, q), *kv = rf_value(g, k), *mv = rf_value(g, m);
    double worst = 0;
    int64_t bad = 0, masked = 0;
    double *s = malloc((size_t)M * sizeof *s), *sig = malloc((size_t)M * sizeof *sig);
    for (int64_t h = 0; h < H; h++)
        for (int64_t i = 0; i < N; i++) {
            double mx = -INFINITY, sum = 0, row_sig = 0;
            for (int64_t j = 0; j < M; j++) {
                double dot = 0, mag = 0;
                for (int64_t c = 0; c < dk; c++) {
                    double t = (double)qv[(S * N + i) * D + h * dk + c] * kv[(S * M + j) * D + h * dk + c];
                    dot += t;
                    mag += fabs(t);
                }
                s[j] = scale * dot;
                sig[j] = tol_sum((double)dk, scale * mag) + TOL_U * fabs(s[j]);
                if (mv[S * M + j] != 0.0f) {
                    mx = fmax(mx, s[j]);
                    row_sig = fmax(row_sig, sig[j]);
                }
            }
            for (int64_t j = 0; j < M; j++)
                sum += mv[S * M + j] != 0.0f ? exp(s[j] - mx) : 0.0;
            double lse = mx + log(sum);
            double lse_err = row_sig + tol_sum((double)M, 1) +
                             ((double)(M + KB - 1) / KB + 1) * TOL_CHAIN * TOL_U +
                             2 * TOL_U * fabs(lse);
            for (int64_t j = 0; j < M; j++) {
                double want = mv[S * M + j] != 0.0f ? exp(s[j] - lse) : 0.0;
                double bound = want * (sig[j] + lse_err + TOL_CHAIN * TOL_U * (1 + fabs(s[j] - lse)));
                double err = fabs(got[(h * N + i) * M + j] - want);
                masked += want == 0.0;
                bad += err > bound;
                worst = fmax(worst, bound > 0 ? err / bound : err);
            }
        }
    tap_ok(ps->values[0].filled && bad == 0 && masked > 0,
           "the probe's map of sample %d is the softmax of its scores (%lld masked keys; worst error %.3g of "
           "its bound)", (int)S, (long long)masked, worst);
    rf_graph_forward(g, &x);
    tap_ok(rf_graph_node(g, a)->probe_aux == NULL, "without a probe, forward computes no map");
    free(s);
    free(sig);
    rf_probe_set_free(ps);
    rf_pool_free(pool);
    rf_graph_free(g);
}

int main(int argc, char **argv)
{
    /* --portable (suite `portable`): full attention (its row clones, the
     * short-head and exponential kernels or their fallbacks) and its probe */
    bool portable = tap_portable(argc, argv);
    test_attention();
    test_attention_probe();
    if (!portable) {
        test_embedding();
        test_conv();
        test_errors();
        test_threads();
    }
    return tap_done();
}
