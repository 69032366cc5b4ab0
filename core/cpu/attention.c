/* Full multi-head attention, flash-style (FlashAttention-2 on the CPU):
 * nothing N x M exists in memory.
 *
 * Head h of batch item b reads the column block [h*dk, (h+1)*dk) of q, k, v
 * in place (leading dimension D), so no head is ever copied out. Queries go
 * in blocks of qb rows, keys in blocks of kb (the node's tile, chosen per
 * CPU: core/tiles.h), and a block's scores S = scale Q_i K_j^T [qb, kb] live in
 * per-thread scratch between the products (OpenBLAS, single-threaded inside
 * a pool task; the two with k = dk, S and dP, on the short-head kernel of
 * small_head.h when dk <= 16) and the row loops (their exponentials on
 * exp_row.h's FMA version).
 *
 * Forward, one pool task per (b, h, group of QGROUP query blocks), each key
 * block loaded once for the group: the online softmax keeps
 * each row's running max m and sum l of exp(s - m), rescaling the output
 * rows (accumulated in place in out) by exp(m_old - m_new) when the max
 * grows; at the end O /= l and aux keeps lse = m + log(l) per row.
 * Key blocks whose keys are all masked (a shorter sequence's padding) are
 * skipped, and so in backward are query blocks whose dO is all zero: both
 * add exactly nothing.
 * Backward, one task per (b, h) (so the sums into dK and dV have one owner
 * and a fixed order; key blocks outer, each loaded once, query blocks in
 * order inside), recomputes per block (P with its scores, and dS with dP,
 * in one pass each on the short-head kernel)
 *     P = exp(S - lse),  dP = dO_i V_j^T,  D = rowsum(dO * O),
 *     dS = P * (dP - D),  dV_j += P^T dO_i,
 *     dQ_i += scale dS K_j,  dK_j += scale dS^T Q_i.
 * Dropout (training, fa[1] > 0) multiplies P by Z = keep / (1 - p) after
 * the softmax: O = (P Z) V, so dV_j += (P Z)^T dO_i and dP picks up Z, and
 * D = rowsum(dO * O) is still sum_j P dP. The keep decision is rf_dropout's
 * for element ((b H + h) N + i) M + j of this node: the same for any
 * blocking and thread count.
 *
 * With train.precision = bf16 and heads of 8 on a CPU where they pay
 * (rf_sh16_for_attention: AMD's with AVX512-BF16), the products run on
 * small_head_bf16.h's kernels (operands rounded to bf16, sums and
 * everything else f32, the probabilities' exponentials rf_exp16_coarse's);
 * elsewhere on the f32 ones.
 *
 * While a probe is attached, forward also computes the probed sample's
 * probabilities (its rows of [B, heads, N, M]) into the graph's probe space
 * (node->probe_aux) for the attention-map taps.
 */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "../gemm.h"
#include "../op.h"
#include "../probe.h"
#include "exp_row.h"
#include "small_head.h"
#include "small_head_bf16.h"
#include "vecmath.h"

typedef struct {
    int64_t B, N, M, D, H, dk;
    int qb, kb;               /* the node's tile (core/tiles.h) */
    bool lanes;               /* and its P V and dS K on rf_small_head_pv */
    int64_t b0;               /* this rank's first row of the global batch (dropout's index) */
    float scale;
    bool bf16;                /* products on the bf16 kernels (train.precision = bf16) */
    float drop, keep_scale;   /* dropout in effect (0 unless training) and 1 / (1 - drop) */
    uint64_t seed, step;
    rf_id node;
    const float *q, *k, *v, *mask;
} attn;

static attn attn_of(rf_exec *x, const rf_node *n)
{
    const rf_node *k = rf_in(x, n, 1);
    attn a = {.B = n->shape.dim[0], .N = n->shape.dim[1], .M = k->shape.dim[1], .D = n->shape.dim[2],
              .H = n->ia[0], .scale = n->fa[0], .seed = x->seed, .step = x->step,
              .node = rf_dropout_node(x, n), .q = rf_in(x, n, 0)->value, .k = k->value,
              .v = rf_in(x, n, 2)->value, .mask = n->n_in == 4 ? rf_in(x, n, 3)->value : NULL};
    a.dk = a.D / a.H;
    a.bf16 = a.dk == RF_SH16_K && strcmp(rf_gemm_precision(), "bf16") == 0 && rf_sh16_for_attention();
    rf_attn_tile t = n->tile.qb > 0 ? n->tile : rf_attn_tiles[0];
    a.qb = t.qb;
    a.kb = t.kb;
    a.lanes = t.lanes != 0;
    a.b0 = (int64_t)x->shard * a.B;
    a.drop = x->training ? n->fa[1] : 0.0f;
    a.keep_scale = 1.0f / (1.0f - a.drop);
    return a;
}

/* Row r, column 0 of head h of batch item b in a [B, len, D] tensor. */
static size_t at(const attn *a, int64_t b, int64_t len, int64_t h, int64_t r)
{
    return (size_t)((b * len + r) * a->D + h * a->dk);
}

static int64_t min64(int64_t x, int64_t y) { return x < y ? x : y; }

/* s[r][c] += bias[c]: the key mask as 0 or -inf, added in one vector pass */
static RF_VEC_CLONES void add_bias(float *s, int rows, int ld, const float *bias, int cols)
{
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            s[(int64_t)r * ld + c] += bias[c];
}

/* The key mask of keys j0 .. j0 + cols - 1 of batch item b as a bias, 0
 * or -inf per key (left unset without a mask); returns how many are
 * valid. */
static int key_bias(const attn *a, int64_t b, int64_t j0, int cols, float *bias)
{
    if (a->mask == NULL)
        return cols;
    const float *m = a->mask + b * a->M + j0;
    int valid = 0;
    for (int c = 0; c < cols; c++) {
        bias[c] = m[c] != 0.0f ? 0.0f : -INFINITY;
        valid += m[c] != 0.0f;
    }
    return valid;
}

/* A block of keys or values loaded for the short-head kernels: in bf16
 * pairs, in f32, or neither (both NULL: the products then run on the
 * BLAS, reading the tensor). */
typedef struct {
    const rf_small_head_keys *f32;
    const rf_sh16_keys *bf16;
} block;

typedef struct {
    rf_small_head_keys f32;
    rf_sh16_keys bf16;
} block_space;

/* Keys (with the attention's scale) or values (scale 1) j0 .. j0 + cols -
 * 1 of head (b, h), src a->k or a->v, loaded into space. */
static block load_block(const attn *a, const float *src, int64_t b, int64_t h, int64_t j0, int cols, float scale,
                        block_space *space)
{
    const float *B = src + at(a, b, a->M, h, j0);
    if (a->bf16 && rf_sh16_load(&space->bf16, cols, (int)a->dk, scale, B, (int)a->D))
        return (block){.bf16 = &space->bf16};
    if (rf_small_head_load_keys(&space->f32, cols, (int)a->dk, scale, B, (int)a->D))
        return (block){.f32 = &space->f32};
    return (block){0};
}

/* s [rows, cols <= kb] (leading dimension ld) = scale Q K^T for queries
 * i0.. and keys j0.. of head (b, h) (`keys` their load_block),
 * masked keys -inf, and with row_max not NULL each row's largest score.
 * Returns the width of the rows written: cols, or with `pad` on the
 * short-head kernel cols rounded up to 16, the extra columns -inf (so the
 * row loops that follow run whole vectors, no scalar tail: BLRP's rows are
 * 100 to 300 keys); 0, computing nothing, when every key of the block is
 * masked (the padding at the end of a shorter sequence): the block then
 * adds nothing anywhere. */
static int scores(const attn *a, int64_t b, int64_t h, int64_t i0, int rows, int64_t j0, int cols,
                  block keys, float *s, int ld, bool pad, float *row_max)
{
    float bias[RF_ATTN_KB_MAX];
    int valid = key_bias(a, b, j0, cols, bias);
    if (valid == 0)
        return 0;
    const float *q = a->q + at(a, b, a->N, h, i0), *k = a->k + at(a, b, a->M, h, j0);
    if (keys.bf16 != NULL)
        return rf_sh16_scores(rows, q, (int)a->D, keys.bf16, valid < cols ? bias : NULL, pad, s, ld, row_max);
    if (keys.f32 != NULL)
        return rf_small_head_scores(rows, q, (int)a->D, keys.f32, valid < cols ? bias : NULL, pad, s, ld, row_max);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, cols, (int)a->dk, a->scale, q, (int)a->D, k,
                (int)a->D, 0.0f, s, ld);
    if (valid < cols)
        add_bias(s, rows, ld, bias, cols);
    if (row_max != NULL)
        for (int r = 0; r < rows; r++)
            row_max[r] = rf_row_max(s + (int64_t)r * ld, cols);
    return cols;
}

/* Dropout's keep decision for probability (b, h, i, j). */
static bool kept(const attn *a, int64_t b, int64_t h, int64_t i, int64_t j)
{
    return rf_dropout_keep(a->seed, a->step, a->node, (((a->b0 + b) * a->H + h) * a->N + i) * a->M + j, a->drop);
}

/* p[c] *= Z for row i of head (b, h), keys j0.. */
static void drop_row(const attn *a, int64_t b, int64_t h, int64_t i, int64_t j0, float *p, int cols)
{
    for (int c = 0; c < cols; c++)
        p[c] = kept(a, b, h, i, j0 + c) ? p[c] * a->keep_scale : 0.0f;
}

static void scale_row(float *o, int64_t n, float s)
{
    for (int64_t c = 0; c < n; c++)
        o[c] *= s;
}

/* ---- forward ---- */

typedef struct {
    const attn *a;
    float *out, *lse, *scratch;
    size_t per_thread;
} forward_ctx;

/* Query blocks a task takes together, each key block loaded once for all. */
enum { QGROUP = 4 };
/* forward_group's scratch, qb kb + (2 QGROUP + 1) qb floats, fits a thread's
 * 2 qb kb + 3 qb (rf_attn_thread_floats) when kb >= 2 QGROUP - 2. */
_Static_assert(2 * QGROUP - 2 <= RF_ATTN_KB_MIN, "forward_group's scratch");

/* The query block i0.. (rows of them) against key block j0.. (cols keys,
 * `keys` loaded, `values` loaded in bf16 or not at all): the online
 * softmax's step with the row maxes mx and sums sum, the outputs o
 * rescaled and P V added. */
static void forward_step(const attn *a, int64_t b, int64_t h, int64_t i0, int rows, int64_t j0, int cols, block keys,
                         block values, float *s, float *mx, float *sum, float *block_max, float *o)
{
    int D = (int)a->D, dk = (int)a->dk;
    int width = scores(a, b, h, i0, rows, j0, cols, keys, s, a->kb, true, block_max);
    if (width == 0)
        return;
    for (int r = 0; r < rows; r++) {
        float *p = s + (int64_t)r * a->kb;
        float next = fmaxf(mx[r], block_max[r]);
        if (next == -INFINITY) {   /* no valid key yet: nothing to add (P V reads the whole width) */
            memset(p, 0, (size_t)width * sizeof *p);
            continue;
        }
        float rescale = rf_expf(mx[r] - next);   /* 0 for the first valid block */
        float row_sum = keys.bf16 != NULL ? rf_attn_exp_row_coarse(p, width, next) : rf_attn_exp_row(p, width, next);
        sum[r] = sum[r] * rescale + row_sum;
        mx[r] = next;
        if (rescale != 1.0f)
            scale_row(o + (int64_t)r * D, dk, rescale);
        if (a->drop > 0.0f)
            drop_row(a, b, h, i0 + r, j0, p, cols);
    }
    const float *v = a->v + at(a, b, a->M, h, j0);
    if (values.bf16 != NULL)
        rf_sh16_acc(rows, cols, 1.0f, s, a->kb, values.bf16, o, D);
    else if (values.f32 != NULL && rf_small_head_pv(rows, 1.0f, s, a->kb, values.f32, o, D))
        ;   /* the lanes tile: the values were loaded for it */
    else if (!rf_small_head_acc(false, rows, dk, cols, 1.0f, s, a->kb, v, D, o, D))
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, dk, cols, 1.0f, s, a->kb, v, D, 1.0f, o, D);
}

/* Up to QGROUP query blocks from i0 of head (b, h): out rows and their
 * lse. The scratch s holds a block of scores, then per query of the group
 * its running max and sum, then a block's row maxes. */
static void forward_group(const forward_ctx *c, int64_t b, int64_t h, int64_t i0, float *s)
{
    const attn *a = c->a;
    int rows = (int)min64(QGROUP * a->qb, a->N - i0), D = (int)a->D, dk = (int)a->dk;
    float *mx = s + a->qb * a->kb, *sum = mx + QGROUP * a->qb, *block_max = sum + QGROUP * a->qb;
    float *o = c->out + at(a, b, a->N, h, i0);
    for (int r = 0; r < rows; r++) {
        mx[r] = -INFINITY;
        sum[r] = 0.0f;
        memset(o + (int64_t)r * D, 0, (size_t)dk * sizeof *o);
    }
    block_space key_space, value_space;
    for (int64_t j0 = 0; j0 < a->M; j0 += a->kb) {
        int cols = (int)min64(a->kb, a->M - j0);
        block keys = load_block(a, a->k, b, h, j0, cols, a->scale, &key_space);
        bool lanes = keys.f32 != NULL && a->lanes && a->dk == 8;
        block values = keys.bf16 != NULL || lanes ? load_block(a, a->v, b, h, j0, cols, 1.0f, &value_space)
                                                  : (block){0};
        for (int g = 0; g < rows; g += a->qb)
            forward_step(a, b, h, i0 + g, (int)min64(a->qb, rows - g), j0, cols, keys, values, s, mx + g, sum + g,
                         block_max, o + (int64_t)g * D);
    }
    float *lse = c->lse + (b * a->H + h) * a->N + i0;
    for (int r = 0; r < rows; r++) {
        scale_row(o + (int64_t)r * D, dk, sum[r] > 0.0f ? 1.0f / sum[r] : 0.0f);   /* no valid key: zeros */
        lse[r] = sum[r] > 0.0f ? mx[r] + logf(sum[r]) : -INFINITY;
    }
}

/* The groups of query blocks per head. */
static int64_t groups(const attn *a)
{
    return (a->N + QGROUP * a->qb - 1) / (QGROUP * a->qb);
}

/* Items: (b, h, group of query blocks). */
static void forward_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    const forward_ctx *c = ctx;
    int64_t per_head = groups(c->a);
    float *s = c->scratch + (size_t)thread * c->per_thread;
    for (int64_t it = begin; it < end; it++) {
        int64_t bh = it / per_head;
        forward_group(c, bh / c->a->H, bh % c->a->H, it % per_head * QGROUP * c->a->qb, s);
    }
}

/* ---- the probabilities, for probes ---- */

typedef struct {
    const attn *a;
    int64_t b0;           /* the first batch row of the probed sample */
    const float *lse;
    float *probs;         /* [rows, heads, N, M] from row b0 */
} probs_ctx;

/* p = e^(s - lse); rows with no valid key are zeros. Items: (batch row
 * from b0, head, query block). */
static void probs_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const probs_ctx *c = ctx;
    const attn *a = c->a;
    int64_t blocks = (a->N + a->qb - 1) / a->qb;
    for (int64_t it = begin; it < end; it++) {
        int64_t bh = it / blocks, b = c->b0 + bh / a->H, h = bh % a->H, i0 = it % blocks * a->qb;
        int rows = (int)min64(a->qb, a->N - i0);
        float *p = c->probs + (bh * a->N + i0) * a->M;
        for (int64_t j0 = 0; j0 < a->M; j0 += a->kb) {
            int cols = (int)min64(a->kb, a->M - j0);
            block_space space;
            block keys = load_block(a, a->k, b, h, j0, cols, a->scale, &space);
            if (!scores(a, b, h, i0, rows, j0, cols, keys, p + j0, (int)a->M, false, NULL))   /* masked: e^-inf below */
                for (int r = 0; r < rows; r++)
                    for (int c2 = 0; c2 < cols; c2++)
                        p[r * a->M + j0 + c2] = -INFINITY;
        }
        for (int r = 0; r < rows; r++) {
            float l = c->lse[(b * a->H + h) * a->N + i0 + r];
            float *pr = p + (int64_t)r * a->M;
            if (l == -INFINITY)
                memset(pr, 0, (size_t)a->M * sizeof *pr);
            else
                rf_attn_exp_row(pr, (int)a->M, l);
        }
    }
}

/* The probed sample's rows of the probabilities [B, H, N, M] (one batch
 * row, or BLRP's segments of one sample) into node->probe_aux; NULL if
 * there is no room (the tap then stays unfilled and the caller says so). */
static void probe_probs(rf_exec *x, rf_node *n, const attn *a)
{
    rf_id id = (rf_id)(n - rf_graph_node(x->g, 0));
    int64_t rows = rf_tap_rows_per_sample(x->g, id, a->B), b0 = x->probe_sample * rows;
    float *p = NULL;
    if (rows > 0 && b0 >= 0 && b0 + rows <= a->B)
        p = rf_graph_probe_space(x->g, (size_t)(rows * a->H * a->N * a->M));
    if (p != NULL) {
        probs_ctx c = {a, b0, n->aux, p};
        rf_pool_run(x->pool, rows * a->H * ((a->N + a->qb - 1) / a->qb), 1, probs_task, &c);
    }
    n->probe_aux = p;
}

/* The share of the products that scores() skips: the key blocks of a row
 * whose keys are all masked, for every head and query. */
static double skipped_share(const attn *a)
{
    if (a->mask == NULL || a->B * a->M == 0)
        return 0;
    int64_t ran = 0;
    for (int64_t b = 0; b < a->B; b++)
        for (int64_t j0 = 0; j0 < a->M; j0 += a->kb) {
            const float *m = a->mask + b * a->M + j0;
            int64_t cols = min64(a->kb, a->M - j0), c = 0;
            while (c < cols && m[c] == 0.0f)
                c++;
            ran += c < cols ? cols : 0;
        }
    return 1 - (double)ran / (double)(a->B * a->M);
}

/* q [B, N, D], k, v [B, M, D], key_mask [B, M] -> out [B, N, D];
 * aux: lse [B, H, N] */
void rf_cpu_attention_forward(rf_exec *x, rf_node *n)
{
    attn a = attn_of(x, n);
    n->skipped = skipped_share(&a);
    forward_ctx c = {&a, n->value, n->aux, x->scratch, rf_attn_thread_floats(n->tile, a.N)};
    rf_pool_run(x->pool, a.B * a.H * groups(&a), 1, forward_task, &c);
    n->probe_aux = NULL;
    if (x->probing && a.M > 0 && rf_probe_wants_aux(x->g, (rf_id)(n - rf_graph_node(x->g, 0))))
        probe_probs(x, n, &a);   /* a pooled tap is computed by the hook instead (attention_pool.c) */
}

/* ---- backward ---- */

typedef struct {
    const attn *a;
    const float *out, *dout, *lse;
    float *gq, *gk, *gv, *scratch;
    size_t per_thread;
} backward_ctx;

/* dS = P (dP - D) for one row, in place in dP */
static RF_VEC_CLONES void ds_row(float *dp, const float *p, float D, int cols)
{
    for (int c = 0; c < cols; c++)
        dp[c] = p[c] * (dp[c] - D);
}

/* P [rows, kb] = exp(S - lse) for query block i0.. and key block j0.. of
 * head (b, h): on the short-head kernel, in the same pass as the scores;
 * else the scores, then the row exponentials. Returns P's width (cols or
 * more, the extra columns 0), 0 when every key is masked. */
static int probabilities(const attn *a, int64_t b, int64_t h, int64_t i0, int rows, int64_t j0, int cols,
                         block keys, const float *lse, float *p)
{
    float bias[RF_ATTN_KB_MAX];
    int valid = key_bias(a, b, j0, cols, bias);
    if (valid == 0)
        return 0;
    const float *q = a->q + at(a, b, a->N, h, i0), *key_bias = valid < cols ? bias : NULL;
    if (keys.bf16 != NULL)
        return rf_sh16_probs(rows, q, (int)a->D, keys.bf16, key_bias, lse, p, a->kb);
    if (keys.f32 != NULL)
        return rf_small_head_probs(rows, q, (int)a->D, keys.f32, key_bias, lse, p, a->kb);
    int width = scores(a, b, h, i0, rows, j0, cols, keys, p, a->kb, true, NULL);
    for (int r = 0; r < rows; r++) {
        float *pr = p + (int64_t)r * a->kb;
        if (lse[r] == -INFINITY)
            memset(pr, 0, (size_t)width * sizeof *pr);
        else
            rf_attn_exp_row(pr, width, lse[r]);
    }
    return width;
}

/* ds [rows, kb] = P (dP - D) with dP = dO_i V_j^T (times dropout's Z): on
 * the short-head kernel in one pass without dropout; P's extra columns
 * are 0, so are dP's and then dS's. */
static void score_grads(const backward_ctx *c, int64_t b, int64_t h, int64_t i0, int rows, int64_t j0, int cols,
                        block values, const float *p, int width, float *ds, const float *Dr)
{
    const attn *a = c->a;
    int D = (int)a->D, dk = (int)a->dk;
    size_t oq = at(a, b, a->N, h, i0), okv = at(a, b, a->M, h, j0);
    if (a->drop == 0.0f && values.bf16 != NULL) {
        rf_sh16_ds(rows, c->dout + oq, D, values.bf16, p, a->kb, Dr, ds, a->kb);
        return;
    }
    if (a->drop == 0.0f && values.f32 != NULL) {
        rf_small_head_ds(rows, c->dout + oq, D, values.f32, p, a->kb, Dr, ds, a->kb);
        return;
    }
    int dp_width = rf_small_head_nt_fill(rows, cols, dk, 1.0f, c->dout + oq, D, a->v + okv, D, ds, a->kb, 0.0f);
    if (dp_width == 0) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, cols, dk, 1.0f, c->dout + oq, D, a->v + okv, D,
                    0.0f, ds, a->kb);
        dp_width = cols;
    }
    int ds_width = dp_width < width ? dp_width : width;
    for (int r = 0; r < rows; r++) {
        float *dr = ds + (int64_t)r * a->kb;
        if (a->drop > 0.0f)
            drop_row(a, b, h, i0 + r, j0, dr, cols);
        ds_row(dr, p + (int64_t)r * a->kb, Dr[r], ds_width);
    }
}

/* Key block j0.. against query block i0.. of head (b, h): keys and values
 * loaded (or NULL), p and ds [rows, kb] blocks, Dr the query rows'
 * rowsum(dO * O). */
static void block_backward(const backward_ctx *c, int64_t b, int64_t h, int64_t i0, int rows, int64_t j0,
                           block keys, block values, float *p, float *ds, const float *Dr)
{
    const attn *a = c->a;
    int cols = (int)min64(a->kb, a->M - j0), D = (int)a->D, dk = (int)a->dk;
    size_t oq = at(a, b, a->N, h, i0), okv = at(a, b, a->M, h, j0);
    int width = probabilities(a, b, h, i0, rows, j0, cols, keys, c->lse + (b * a->H + h) * a->N + i0, p);
    if (width == 0)
        return;
    if (c->gq != NULL || c->gk != NULL) {
        score_grads(c, b, h, i0, rows, j0, cols, values, p, width, ds, Dr);
        if (c->gq != NULL && keys.bf16 != NULL)
            rf_sh16_acc(rows, cols, a->scale, ds, a->kb, keys.bf16, c->gq + oq, D);
        else if (c->gq != NULL && a->lanes && keys.f32 != NULL &&   /* keys loaded with the scale */
                 rf_small_head_pv(rows, 1.0f, ds, a->kb, keys.f32, c->gq + oq, D))
            ;
        else if (c->gq != NULL &&
                 !rf_small_head_acc(false, rows, dk, cols, a->scale, ds, a->kb, a->k + okv, D, c->gq + oq, D))
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, dk, cols, a->scale, ds, a->kb, a->k + okv,
                        D, 1.0f, c->gq + oq, D);
        if (c->gk != NULL && !(a->bf16 && rf_sh16_acc_tn(cols, rows, a->scale, ds, a->kb, a->q + oq, D, c->gk + okv, D)) &&
            !rf_small_head_acc(true, cols, dk, rows, a->scale, ds, a->kb, a->q + oq, D, c->gk + okv, D))
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, cols, dk, rows, a->scale, ds, a->kb, a->q + oq, D,
                        1.0f, c->gk + okv, D);
    }
    if (c->gv != NULL) {
        if (a->drop > 0.0f)
            for (int r = 0; r < rows; r++)
                drop_row(a, b, h, i0 + r, j0, p + (int64_t)r * a->kb, cols);
        if (!(a->bf16 && rf_sh16_acc_tn(cols, rows, 1.0f, p, a->kb, c->dout + oq, D, c->gv + okv, D)) &&
            !rf_small_head_acc(true, cols, dk, rows, 1.0f, p, a->kb, c->dout + oq, D, c->gv + okv, D))
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, cols, dk, rows, 1.0f, p, a->kb, c->dout + oq, D,
                        1.0f, c->gv + okv, D);
    }
}

/* Dr[i] = rowsum(dO * O) for every query i of head (b, h), and live[k] 1
 * when query block k has any dO that is not zero, else 0 (padded queries,
 * whose outputs nothing reads, have none: such a block adds exactly 0). */
static void output_grads(const backward_ctx *c, int64_t b, int64_t h, float *Dr, float *live)
{
    const attn *a = c->a;
    for (int64_t i = 0; i < a->N; i++) {
        size_t o = at(a, b, a->N, h, i);
        Dr[i] = rf_dot(c->dout + o, c->out + o, a->dk);
        bool any = i % a->qb != 0 && live[i / a->qb] != 0.0f;
        for (int64_t e = 0; e < a->dk; e++)
            any |= c->dout[o + e] != 0.0f;
        live[i / a->qb] = any ? 1.0f : 0.0f;
    }
}

/* Items: (b, h) pairs; each thread has its own blocks. Key blocks outer,
 * each loaded once for every query block: dQ_i still takes its key blocks
 * in order and dK_j, dV_j their query blocks, as with the loops the other
 * way round. */
static void backward_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    const backward_ctx *c = ctx;
    const attn *a = c->a;
    /* p, ds, then past the 3 qb floats Dr and live of the whole head */
    float *p = c->scratch + (size_t)thread * c->per_thread, *ds = p + a->qb * a->kb;
    float *Dr = ds + a->qb * a->kb + 3 * a->qb;
    float *live = Dr + a->N;
    block_space key_space, value_space;
    for (int64_t bh = begin; bh < end; bh++) {
        int64_t b = bh / a->H, h = bh % a->H;
        output_grads(c, b, h, Dr, live);
        for (int64_t j0 = 0; j0 < a->M; j0 += a->kb) {
            int cols = (int)min64(a->kb, a->M - j0);
            block keys = load_block(a, a->k, b, h, j0, cols, a->scale, &key_space);
            block values = load_block(a, a->v, b, h, j0, cols, 1.0f, &value_space);
            for (int64_t i0 = 0; i0 < a->N; i0 += a->qb)
                if (live[i0 / a->qb] != 0.0f)
                    block_backward(c, b, h, i0, (int)min64(a->qb, a->N - i0), j0, keys, values, p, ds, Dr + i0);
        }
    }
}

/* dout [B, N, D] -> dq [B, N, D], dk, dv [B, M, D] (+=); the mask gets none */
void rf_cpu_attention_backward(rf_exec *x, rf_node *n)
{
    attn a = attn_of(x, n);
    backward_ctx c = {&a, n->value, n->grad, n->aux, rf_in(x, n, 0)->grad, rf_in(x, n, 1)->grad,
                      rf_in(x, n, 2)->grad, x->scratch, rf_attn_thread_floats(n->tile, a.N)};
    if (c.gq != NULL || c.gk != NULL || c.gv != NULL)
        rf_pool_run(x->pool, a.B * a.H, 1, backward_task, &c);
}
