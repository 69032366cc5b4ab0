/* CPU kernels for matmul and linear. Every product is one rf_sgemm call
 * from the calling thread, split across the pool (blas.h). */
#include "../blas.h"
#include <string.h>

#include "../op.h"
#include "vecmath.h"

/* C [M, N] = op(X) [M, K] · op(Y) [K, N] + beta · C, row-major, contiguous.
 * op(X) = X^T when tx (X stored [K, M]); op(Y) = Y^T when ty (Y stored [N, K]). */
static void gemm(rf_pool *pool, bool tx, bool ty, int64_t m, int64_t n, int64_t k, const float *X, const float *Y,
                 float beta, float *C)
{
    rf_sgemm(pool, tx ? CblasTrans : CblasNoTrans, ty ? CblasTrans : CblasNoTrans, (int)m,
                (int)n, (int)k, 1.0f, X, (int)(tx ? m : k), Y, (int)(ty ? k : n), beta, C, (int)n);
}

/* A matmul as `groups` independent products of `rows` x N outputs. With a
 * shared 2-D b and an untransposed a, all batches stack into one product of
 * batch*M rows (groups = 1); otherwise one product per batch. */
typedef struct {
    bool ta, tb;
    int64_t groups, rows, n, k;
    int64_t b_step;   /* floats between consecutive groups' b (0 when shared) */
} mm_plan;

static mm_plan mm_plan_of(rf_exec *x, const rf_node *node)
{
    rf_shape sa = rf_in(x, node, 0)->shape, sb = rf_in(x, node, 1)->shape;
    mm_plan p = {.ta = node->ia[0] != 0, .tb = node->ia[1] != 0};
    int64_t m = node->shape.dim[node->shape.ndim - 2];
    int64_t batch = rf_shape_numel(node->shape) / (m * node->shape.dim[node->shape.ndim - 1]);
    bool shared = sb.ndim == 2;
    p.n = node->shape.dim[node->shape.ndim - 1];
    p.k = sa.dim[sa.ndim - (p.ta ? 2 : 1)];
    p.b_step = shared ? 0 : p.k * p.n;
    if (shared && !p.ta) {
        p.groups = 1;
        p.rows = batch * m;
    } else {
        p.groups = batch;
        p.rows = m;
    }
    return p;
}

/* a [..., M, K] or [..., K, M], b [..., K, N] or [..., N, K] -> out [..., M, N] */
void rf_cpu_matmul_forward(rf_exec *x, rf_node *n)
{
    mm_plan p = mm_plan_of(x, n);
    const float *A = rf_in(x, n, 0)->value, *B = rf_in(x, n, 1)->value;
    for (int64_t i = 0; i < p.groups; i++)
        gemm(x->pool, p.ta, p.tb, p.rows, p.n, p.k, A + i * p.rows * p.k, B + i * p.b_step, 0.0f,
             n->value + i * p.rows * p.n);
}

/* C = op(A) op(B), G = dC:  d op(A) = G op(B)^T,  d op(B) = op(A)^T G.
 * A stored transposed gets (d op(A))^T = op(B) G^T; likewise B gets G^T op(A). */
void rf_cpu_matmul_backward(rf_exec *x, rf_node *n)
{
    mm_plan p = mm_plan_of(x, n);
    rf_node *an = rf_in(x, n, 0), *bn = rf_in(x, n, 1);
    const float *A = an->value, *B = bn->value, *G = n->grad;
    int64_t a_step = p.rows * p.k, g_step = p.rows * p.n;
    for (int64_t i = 0; i < p.groups && an->grad != NULL; i++) {
        const float *Bi = B + i * p.b_step, *Gi = G + i * g_step;
        float *dA = an->grad + i * a_step;
        if (p.ta)
            gemm(x->pool, p.tb, true, p.k, p.rows, p.n, Bi, Gi, 1.0f, dA);
        else
            gemm(x->pool, false, !p.tb, p.rows, p.k, p.n, Gi, Bi, 1.0f, dA);
    }
    /* a shared b sums its gradient over the groups in group order */
    for (int64_t i = 0; i < p.groups && bn->grad != NULL; i++) {
        const float *Ai = A + i * a_step, *Gi = G + i * g_step;
        float *dB = bn->grad + i * p.b_step;
        if (p.tb)
            gemm(x->pool, true, p.ta, p.n, p.k, p.rows, Gi, Ai, 1.0f, dB);
        else
            gemm(x->pool, !p.ta, false, p.k, p.n, p.rows, Ai, Gi, 1.0f, dB);
    }
}

typedef struct {
    float *out;
    const float *bias;
    int64_t n;
} bias_fill_ctx;

static void bias_fill_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const bias_fill_ctx *c = ctx;
    for (int64_t r = begin; r < end; r++)
        memcpy(c->out + r * c->n, c->bias, (size_t)c->n * sizeof *c->out);
}

/* x [..., K], w [K, N], bias [N] -> out [..., N]. The bias is written first
 * and the product added with beta = 1: the same memory traffic as the
 * zeroing pass sgemm makes for beta = 0. */
void rf_cpu_linear_forward(rf_exec *x, rf_node *n)
{
    rf_node *xn = rf_in(x, n, 0), *wn = rf_in(x, n, 1);
    int64_t k = wn->shape.dim[0], cols = wn->shape.dim[1];
    int64_t rows = rf_shape_numel(xn->shape) / k;
    float beta = 0.0f;
    if (n->n_in == 3) {
        bias_fill_ctx c = {n->value, rf_in(x, n, 2)->value, cols};
        /* a plain copy: waking a thread only pays for about 64K floats */
        rf_pool_run(x->pool, rows, 65536 / cols + 1, bias_fill_task, &c);
        beta = 1.0f;
    }
    gemm(x->pool, false, false, rows, cols, k, xn->value, wn->value, beta, n->value);
}

/* Columns per bias-gradient item: one AVX-512 vector of float. */
#define COL_BLOCK 16

typedef struct {
    float *dbias;
    const float *g;
    int64_t rows, n;
} colsum_ctx;

/* dbias[j] += sum over rows of g[r, j], for blocks of COL_BLOCK columns;
 * each column is summed by one task in row order, in double
 * (thread-count independent). Full blocks have a fixed trip count, so the
 * row loop vectorises across the block. */
static RF_VEC_CLONES void colsum_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    colsum_ctx *c = ctx;
    for (int64_t blk = begin; blk < end; blk++) {
        int64_t j0 = blk * COL_BLOCK, w = c->n - j0 < COL_BLOCK ? c->n - j0 : COL_BLOCK;
        double acc[COL_BLOCK] = {0};
        const float *g = c->g + j0;
        if (w == COL_BLOCK)
            for (int64_t r = 0; r < c->rows; r++)
                for (int j = 0; j < COL_BLOCK; j++)
                    acc[j] += g[r * c->n + j];
        else
            for (int64_t r = 0; r < c->rows; r++)
                for (int64_t j = 0; j < w; j++)
                    acc[j] += g[r * c->n + j];
        for (int64_t j = 0; j < w; j++)
            c->dbias[j0 + j] += (float)acc[j];
    }
}

/* dx [rows, K] += G W^T,  dw [K, N] += X^T G,  dbias [N] += column sums of G */
void rf_cpu_linear_backward(rf_exec *x, rf_node *n)
{
    rf_node *xn = rf_in(x, n, 0), *wn = rf_in(x, n, 1);
    int64_t k = wn->shape.dim[0], cols = wn->shape.dim[1];
    int64_t rows = rf_shape_numel(xn->shape) / k;
    if (xn->grad != NULL)
        gemm(x->pool, false, true, rows, k, cols, n->grad, wn->value, 1.0f, xn->grad);
    if (wn->grad != NULL)
        gemm(x->pool, true, false, k, cols, rows, xn->value, n->grad, 1.0f, wn->grad);
    if (n->n_in == 3 && rf_in(x, n, 2)->grad != NULL) {
        colsum_ctx c = {rf_in(x, n, 2)->grad, n->grad, rows, cols};
        int64_t blocks = (cols + COL_BLOCK - 1) / COL_BLOCK;
        rf_pool_run(x->pool, blocks, 16384 / (rows * COL_BLOCK) + 1, colsum_task, &c);
    }
}
