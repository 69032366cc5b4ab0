/* Fused multi-head attention kernels.
 *
 * Head h of batch item b reads the column block [h*dk, (h+1)*dk) of q, k, v
 * in place (leading dimension D), so no head is ever copied out. Work is
 * split over (b, h) pairs, one pool task each with single-threaded products,
 * and inside a head over blocks of ROWS queries, so the scores of a block
 * (ROWS x M) stay in cache between the product, the softmax and the next
 * product:
 *     S = scale * Q_blk K_h^T          [ROWS, M]  (written into P in aux)
 *     P = softmax(S) over valid keys   [ROWS, M]
 *     O_blk = P V_h                    [ROWS, dk] (its block of out)
 * Backward, per block, with dP in per-thread scratch:
 *     dV_h += P^T dO_blk,   dP = dO_blk V_h^T,   dS = P * (dP - rowsum(dP * P)),
 *     dQ_blk += scale * dS K_h,   dK_h += scale * dS^T Q_blk.
 * Heads write disjoint column blocks, so tasks never share an output.
 */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "../op.h"
#include "vecmath.h"

typedef struct {
    int64_t B, N, M, D, H, dk;
    float scale;
} attn_geom;

static attn_geom attn_geometry(rf_exec *x, const rf_node *n)
{
    attn_geom a = {.B = n->shape.dim[0], .N = n->shape.dim[1], .M = rf_in(x, n, 1)->shape.dim[1],
                   .D = n->shape.dim[2], .H = n->ia[0], .scale = n->fa[0]};
    a.dk = a.D / a.H;
    return a;
}

/* Column block of head h in row 0 of batch item b of a [B, len, D] tensor. */
static size_t head_offset(const attn_geom *a, int64_t b, int64_t len, int64_t h)
{
    return (size_t)(b * len * a->D + h * a->dk);
}

static float *probs(const attn_geom *a, float *aux, int64_t b, int64_t h)
{
    return aux + (b * a->H + h) * a->N * a->M;
}

/* Masked keys of a row of scores become -inf, then one softmax. */
static void softmax_row(float *p, const float *mask, int64_t M)
{
    if (mask != NULL)
        for (int64_t j = 0; j < M; j++)
            p[j] = mask[j] == 0.0f ? -INFINITY : p[j];
    rf_softmax_row_inplace(p, M);
}

typedef struct {
    const attn_geom *a;
    const float *q, *k, *v, *mask;
    float *aux, *out;
} forward_ctx;

/* Items: (b, h) pairs. */
static void forward_heads(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const forward_ctx *c = ctx;
    const attn_geom *a = c->a;
    int D = (int)a->D, M = (int)a->M, dk = (int)a->dk;
    for (int64_t bh = begin; bh < end; bh++) {
        int64_t b = bh / a->H, h = bh % a->H;
        const float *q = c->q + head_offset(a, b, a->N, h), *k = c->k + head_offset(a, b, a->M, h);
        const float *v = c->v + head_offset(a, b, a->M, h), *mask = c->mask ? c->mask + b * a->M : NULL;
        float *p = probs(a, c->aux, b, h), *out = c->out + head_offset(a, b, a->N, h);
        for (int64_t r0 = 0; r0 < a->N; r0 += RF_ATTN_ROWS) {
            int rows = (int)(a->N - r0 < RF_ATTN_ROWS ? a->N - r0 : RF_ATTN_ROWS);
            float *pb = p + r0 * M;
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, M, dk, a->scale, q + r0 * D, D, k, D,
                        0.0f, pb, M);
            for (int r = 0; r < rows; r++)
                softmax_row(pb + (int64_t)r * M, mask, M);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, dk, M, 1.0f, pb, M, v, D, 0.0f,
                        out + r0 * D, D);
        }
    }
}

/* q [B, N, D], k, v [B, M, D], key_mask [B, M] -> out [B, N, D];
 * aux: P [B, H, N, M] */
void rf_cpu_attention_forward(rf_exec *x, rf_node *n)
{
    attn_geom a = attn_geometry(x, n);
    forward_ctx c = {&a, rf_in(x, n, 0)->value, rf_in(x, n, 1)->value, rf_in(x, n, 2)->value,
                     n->n_in == 4 ? rf_in(x, n, 3)->value : NULL, n->aux, n->value};
    rf_pool_run(x->pool, a.B * a.H, 1, forward_heads, &c);
}

typedef struct {
    const attn_geom *a;
    const rf_node *n;
    const float *q, *k, *v;
    float *gq, *gk, *gv, *scratch;
} backward_ctx;

/* Gradients of one row block [r0, r0 + rows) of head (b, h). */
static void block_backward(const backward_ctx *c, int64_t b, int64_t h, int64_t r0, int rows, float *ds)
{
    const attn_geom *a = c->a;
    int D = (int)a->D, M = (int)a->M, dk = (int)a->dk;
    size_t oq = head_offset(a, b, a->N, h) + (size_t)(r0 * a->D), okv = head_offset(a, b, a->M, h);
    const float *q = c->q + oq, *k = c->k + okv, *v = c->v + okv, *dout = c->n->grad + oq;
    const float *p = probs(a, c->n->aux, b, h) + r0 * M;
    /* dV_h [M, dk] += P^T [M, rows] @ dO [rows, dk] */
    if (c->gv != NULL)
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, M, dk, rows, 1.0f, p, M, dout, D, 1.0f, c->gv + okv,
                    D);
    if (c->gq == NULL && c->gk == NULL)
        return;
    /* dP [rows, M] = dO @ V_h^T, then dS = P * (dP - rowsum(dP * P)) in place */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, M, dk, 1.0f, dout, D, v, D, 0.0f, ds, M);
    for (int r = 0; r < rows; r++) {
        const float *pr = p + (int64_t)r * M;
        float *dr = ds + (int64_t)r * M;
        float dot = rf_dot(dr, pr, M);
        for (int64_t j = 0; j < M; j++)
            dr[j] = pr[j] * (dr[j] - dot);
    }
    /* dQ [rows, dk] += scale * dS @ K_h;  dK_h [M, dk] += scale * dS^T @ Q */
    if (c->gq != NULL)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, dk, M, a->scale, ds, M, k, D, 1.0f,
                    c->gq + oq, D);
    if (c->gk != NULL)
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, M, dk, rows, a->scale, ds, M, q, D, 1.0f,
                    c->gk + okv, D);
}

/* Items: (b, h) pairs; each thread has its own [ROWS, M] dP block. */
static void backward_heads(void *ctx, int64_t begin, int64_t end, int thread)
{
    const backward_ctx *c = ctx;
    float *ds = c->scratch + (size_t)thread * RF_ATTN_ROWS * c->a->M;
    for (int64_t bh = begin; bh < end; bh++)
        for (int64_t r0 = 0; r0 < c->a->N; r0 += RF_ATTN_ROWS) {
            int rows = (int)(c->a->N - r0 < RF_ATTN_ROWS ? c->a->N - r0 : RF_ATTN_ROWS);
            block_backward(c, bh / c->a->H, bh % c->a->H, r0, rows, ds);
        }
}

/* dout [B, N, D] -> dq [B, N, D], dk, dv [B, M, D] (+=); the mask gets none */
void rf_cpu_attention_backward(rf_exec *x, rf_node *n)
{
    attn_geom a = attn_geometry(x, n);
    backward_ctx c = {&a, n, rf_in(x, n, 0)->value, rf_in(x, n, 1)->value, rf_in(x, n, 2)->value,
                      rf_in(x, n, 0)->grad, rf_in(x, n, 1)->grad, rf_in(x, n, 2)->grad, x->scratch};
    rf_pool_run(x->pool, a.B * a.H, 1, backward_heads, &c);
}
