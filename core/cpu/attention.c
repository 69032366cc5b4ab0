/* Fused multi-head attention kernels.
 *
 * Head h of batch item b reads the column block [h*dk, (h+1)*dk) of q, k, v
 * in place (leading dimension D), so no head is ever copied out:
 *     S = scale * Q_h K_h^T            [N, M]  (written into P in aux)
 *     P = softmax(S) over valid keys   [N, M]
 *     O_h = P V_h                      [N, dk] (written into its block of out)
 * Backward, per (b, h), with dP in scratch:
 *     dV_h += P^T dO_h,   dP = dO_h V_h^T,   dS = P * (dP - rowsum(dP * P)),
 *     dQ_h += scale * dS K_h,   dK_h += scale * dS^T Q_h.
 * Every product is one sgemm from the calling thread; the row-wise softmax
 * work goes to the pool.
 */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "../op.h"

#define TASK_FLOATS 16384   /* about this many floats per pool task */

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

static int64_t row_grain(int64_t row_floats)
{
    return row_floats >= TASK_FLOATS ? 1 : TASK_FLOATS / row_floats;
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

typedef struct {
    const attn_geom *a;
    float *p;               /* [B*H*N, M]: scores in, probabilities out */
    const float *mask;      /* [B, M] or NULL */
} softmax_ctx;

/* Softmax in place over one row of scores: masked keys become -inf (so
 * probability 0); a row without a valid key becomes all zeros, not NaN. */
static void softmax_row(float *p, const float *mask, int64_t M)
{
    if (mask != NULL)
        for (int64_t j = 0; j < M; j++)
            if (mask[j] == 0.0f)
                p[j] = -INFINITY;
    float mx = -INFINITY;
    for (int64_t j = 0; j < M; j++)
        mx = p[j] > mx ? p[j] : mx;
    if (mx == -INFINITY) {
        memset(p, 0, (size_t)M * sizeof *p);
        return;
    }
    float sum = 0.0f;
    for (int64_t j = 0; j < M; j++) {
        p[j] = expf(p[j] - mx);
        sum += p[j];
    }
    float inv = 1.0f / sum;
    for (int64_t j = 0; j < M; j++)
        p[j] *= inv;
}

static void softmax_rows(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const softmax_ctx *c = ctx;
    int64_t M = c->a->M;
    for (int64_t r = begin; r < end; r++)
        softmax_row(c->p + r * M, c->mask != NULL ? c->mask + r / (c->a->H * c->a->N) * M : NULL, M);
}

/* q [B, N, D], k, v [B, M, D], key_mask [B, M] -> out [B, N, D];
 * aux: P [B, H, N, M] */
void rf_cpu_attention_forward(rf_exec *x, rf_node *n)
{
    attn_geom a = attn_geometry(x, n);
    const float *q = rf_in(x, n, 0)->value, *k = rf_in(x, n, 1)->value, *v = rf_in(x, n, 2)->value;
    const float *mask = n->n_in == 4 ? rf_in(x, n, 3)->value : NULL;
    int D = (int)a.D, N = (int)a.N, M = (int)a.M, dk = (int)a.dk;
    /* S [N, M] = scale * Q_h [N, dk] @ K_h^T [dk, M], into P */
    for (int64_t b = 0; b < a.B; b++)
        for (int64_t h = 0; h < a.H; h++)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, M, dk, a.scale,
                        q + head_offset(&a, b, a.N, h), D, k + head_offset(&a, b, a.M, h), D, 0.0f,
                        probs(&a, n->aux, b, h), M);
    softmax_ctx c = {&a, n->aux, mask};
    rf_pool_run(x->pool, a.B * a.H * a.N, row_grain(a.M), softmax_rows, &c);
    /* O_h [N, dk] = P [N, M] @ V_h [M, dk], into its block of out */
    for (int64_t b = 0; b < a.B; b++)
        for (int64_t h = 0; h < a.H; h++)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, dk, M, 1.0f, probs(&a, n->aux, b, h), M,
                        v + head_offset(&a, b, a.M, h), D, 0.0f, n->value + head_offset(&a, b, a.N, h), D);
}

typedef struct {
    int64_t M;
    const float *p;         /* [N, M] */
    float *dp;              /* [N, M]: dP in, dS out */
} softmax_grad_ctx;

static void softmax_grad_rows(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const softmax_grad_ctx *c = ctx;
    for (int64_t r = begin; r < end; r++) {
        const float *p = c->p + r * c->M;
        float *dp = c->dp + r * c->M;
        float dot = 0.0f;
        for (int64_t j = 0; j < c->M; j++)
            dot += dp[j] * p[j];
        for (int64_t j = 0; j < c->M; j++)
            dp[j] = p[j] * (dp[j] - dot);
    }
}

/* Gradients of one (b, h) block into gq, gk, gv (the grads of q, k, v;
 * NULL when not wanted). */
static void head_backward(rf_exec *x, const attn_geom *a, const rf_node *n, int64_t b, int64_t h, float *gq,
                          float *gk, float *gv)
{
    int D = (int)a->D, N = (int)a->N, M = (int)a->M, dk = (int)a->dk;
    size_t oq = head_offset(a, b, a->N, h), okv = head_offset(a, b, a->M, h);
    const float *q = rf_in(x, n, 0)->value + oq, *k = rf_in(x, n, 1)->value + okv;
    const float *v = rf_in(x, n, 2)->value + okv, *dout = n->grad + oq;
    const float *p = probs(a, n->aux, b, h);
    /* dV_h [M, dk] += P^T [M, N] @ dO_h [N, dk] */
    if (gv != NULL)
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, M, dk, N, 1.0f, p, M, dout, D, 1.0f, gv + okv, D);
    if (gq == NULL && gk == NULL)
        return;
    /* dP [N, M] = dO_h [N, dk] @ V_h^T [dk, M], then dS in place */
    float *ds = x->scratch;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, M, dk, 1.0f, dout, D, v, D, 0.0f, ds, M);
    softmax_grad_ctx c = {a->M, p, ds};
    rf_pool_run(x->pool, a->N, row_grain(a->M), softmax_grad_rows, &c);
    /* dQ_h [N, dk] += scale * dS [N, M] @ K_h [M, dk] */
    if (gq != NULL)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, dk, M, a->scale, ds, M, k, D, 1.0f, gq + oq,
                    D);
    /* dK_h [M, dk] += scale * dS^T [M, N] @ Q_h [N, dk] */
    if (gk != NULL)
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, M, dk, N, a->scale, ds, M, q, D, 1.0f, gk + okv,
                    D);
}

/* dout [B, N, D] -> dq [B, N, D], dk, dv [B, M, D] (+=); the mask gets none */
void rf_cpu_attention_backward(rf_exec *x, rf_node *n)
{
    attn_geom a = attn_geometry(x, n);
    float *gq = rf_in(x, n, 0)->grad, *gk = rf_in(x, n, 1)->grad, *gv = rf_in(x, n, 2)->grad;
    for (int64_t b = 0; b < a.B; b++)
        for (int64_t h = 0; h < a.H; h++)
            head_backward(x, &a, n, b, h, gq, gk, gv);
}
