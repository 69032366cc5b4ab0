/* CPU kernels for matmul and linear. A product is one rf_sgemm call from
 * the calling thread, split across the pool (blas.h), except where many
 * small products split better as one pool task each (batched matmuls: one
 * single-threaded rf_gemm1 per group) and in the linear backward (chunks
 * of rows, below). Every choice depends on the shapes only, so results are
 * the same for every thread count. rf_cpu_linalg_products lists the
 * products these kernels run, for the library choice (core/gemm.h). */
#include "../blas.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../gemm_bf16.h"
#include "../op.h"
#include "cpu_features.h"
#include "small_head.h"
#include "vecmath.h"

/* C [M, N] = op(X) [M, K] · op(Y) [K, N] + beta · C, row-major, contiguous.
 * op(X) = X^T when tx (X stored [K, M]); op(Y) = Y^T when ty (Y stored [N, K]). */
static void gemm(rf_pool *pool, bool tx, bool ty, int64_t m, int64_t n, int64_t k, const float *X, const float *Y,
                 float beta, float *C)
{
    rf_sgemm(pool, tx ? CblasTrans : CblasNoTrans, ty ? CblasTrans : CblasNoTrans, (int)m,
                (int)n, (int)k, 1.0f, X, (int)(tx ? m : k), Y, (int)(ty ? k : n), beta, C, (int)n);
}

/* An operand as its node stores it (core/bf16_storage.h): f32, or bf16. */
typedef struct {
    const void *p;
    bool half;
} operand;

static operand operand_of(const rf_node *n)
{
    return (operand){n->value, n->dtype == RF_BF16};
}

/* Element i of an operand, as an operand. */
static operand operand_at(operand o, int64_t i)
{
    return (operand){o.half ? (const void *)((const uint16_t *)o.p + i) : (const void *)((const float *)o.p + i),
                     o.half};
}

/* gemm() on operands of either type. */
static void gemm_mixed(rf_pool *pool, bool tx, bool ty, int64_t m, int64_t n, int64_t k, operand X, operand Y,
                       float beta, float *C)
{
    rf_sgemm_mixed(pool, tx, ty, (int)m, (int)n, (int)k, 1.0f, X.p, X.half, (int)(tx ? m : k), Y.p, Y.half,
                   (int)(ty ? k : n), beta, C, (int)n);
}

/* A matmul as `groups` independent products of `rows` x N outputs. With a
 * shared 2-D b and an untransposed a, all batches stack into one product of
 * batch*M rows (groups = 1); otherwise one product per batch. */
typedef struct {
    bool ta, tb;
    int64_t groups, rows, n, k;
    int64_t b_step;   /* floats between consecutive groups' b (0 when shared) */
} mm_plan;

static mm_plan mm_plan_of(rf_graph *g, const rf_node *node)
{
    rf_shape sa = rf_graph_node(g, node->in[0])->shape, sb = rf_graph_node(g, node->in[1])->shape;
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

/* Many groups of modest products (per-head products: 256 groups of
 * [32, 2000] x [2000, 8]; LS's landmark logits, 32 groups of [256, 64] x
 * [64, 2000]) go one task per group, each a single rf_gemm1 call: rf_sgemm
 * would wake the pool for every group and cut each one thin (the landmark
 * logits' op ran 12% longer cut in blocks of 256 columns, Zen 4). */
#define GROUP_MIN 8
#define GROUP_MAX_MACS (1 << 25)

static bool by_groups(const mm_plan *p)
{
    return p->groups >= GROUP_MIN && (double)p->rows * p->n * p->k <= GROUP_MAX_MACS;
}

/* Whether a group's product has a side of 8 or less that the small-head
 * kernels take (core/cpu/small_head.h: per-head products at heads of 8, as
 * LS's landmarks K̄_i = P_i^T K_i, 32 x 8 x 2000, and their gradients):
 * n <= 8 with op(Y) = Y, or k <= 16 with op(X) = X and op(Y) = Y^T: a
 * library pays a call's fixed cost and packs tiles for a side of 8 (the
 * landmark products' op 15-25% faster here, bench/bench_matmul). They run
 * in f32: in bf16 (train.precision) every product stays on oneDNN's bf16
 * path, which fed rounded operands these kernels did not beat. */
static bool small_head_shape(bool tx, bool ty, int64_t n, int64_t k)
{
    return strcmp(rf_gemm_precision(), "f32") == 0 &&
           ((!ty && n >= 1 && n <= RF_SMALL_HEAD_N) || (!tx && ty && k >= 1 && k <= RF_SMALL_HEAD_K));
}

/* Whether small_head_product runs this product: its shape, f32 operands,
 * and a CPU with AVX2 or AVX-512. */
static bool small_head_runs(bool tx, bool ty, int64_t n, int64_t k, operand X, operand Y)
{
    return small_head_shape(tx, ty, n, k) && !X.half && !Y.half && (rf_cpu_avx512() || rf_cpu_avx2());
}

/* A group's product as a shape: whether it runs on the small-head kernels
 * (f32 operands, as every operand is in f32), so no library is chosen. */
static bool small_head_takes(const rf_gemm_shape *s)
{
    operand f32 = {NULL, false};
    return small_head_runs(s->ta, s->tb, s->n, s->k, f32, f32);
}

/* C [m, n] = op(X) op(Y) + beta C (contiguous operands, beta 0 or 1) on
 * the small-head kernels, on the calling thread, where small_head_runs. The
 * n <= 8 form adds into C; the k <= 16 one writes blocks of at most 256
 * columns (through `block` when adding). */
static void small_head_product(bool tx, bool ty, int64_t m, int64_t n, int64_t k, const float *x, const float *y,
                               float beta, float *C)
{
    if (!ty) {
        if (beta == 0.0f)
            memset(C, 0, (size_t)(m * n) * sizeof *C);
        rf_small_head_acc(tx, (int)m, (int)n, (int)k, 1.0f, x, (int)(tx ? m : k), y, (int)n, C, (int)n);
        return;
    }
    enum { ROWS = 16, COLS = RF_SMALL_HEAD_COLS };
    float block[ROWS * COLS];
    for (int64_t j = 0; j < n; j += COLS) {
        int cols = (int)(n - j < COLS ? n - j : COLS);
        for (int64_t i = 0; i < m; i += ROWS) {
            int rows = (int)(m - i < ROWS ? m - i : ROWS);
            float *dst = beta == 0.0f ? C + i * n + j : block;
            rf_small_head_nt(rows, cols, (int)k, 1.0f, x + i * k, (int)k, y + j * k, (int)k, dst,
                             beta == 0.0f ? (int)n : COLS);
            if (beta != 0.0f)
                for (int r = 0; r < rows; r++)
                    for (int c = 0; c < cols; c++)
                        C[(i + r) * n + j + c] += block[r * COLS + c];
        }
    }
}

/* One group's product on the calling thread (from a pool task): the
 * argument order of gemm(). */
static void gemm1(rf_gemm_lib lib, bool tx, bool ty, int64_t m, int64_t n, int64_t k, operand X, operand Y,
                  float beta, float *C)
{
    if (small_head_runs(tx, ty, n, k, X, Y) && (beta == 0.0f || beta == 1.0f)) {
        small_head_product(tx, ty, m, n, k, X.p, Y.p, beta, C);
        return;
    }
    rf_gemm1_mixed(lib, tx, ty, (int)m, (int)n, (int)k, 1.0f, X.p, X.half, (int)(tx ? m : k), Y.p, Y.half,
                   (int)(ty ? k : n), beta, C, (int)n);
}

/* The groups' products of the backward: d op(A) and, b not shared, d op(B)
 * (each as gemm1 is called below). */
static rf_gemm_shape mm_da_shape(const mm_plan *p)
{
    return p->ta ? (rf_gemm_shape){p->tb, true, (int)p->k, (int)p->rows, (int)p->n, (int)p->groups}
                 : (rf_gemm_shape){false, !p->tb, (int)p->rows, (int)p->k, (int)p->n, (int)p->groups};
}

static rf_gemm_shape mm_db_shape(const mm_plan *p)
{
    return p->tb ? (rf_gemm_shape){true, p->ta, (int)p->n, (int)p->k, (int)p->rows, (int)p->groups}
                 : (rf_gemm_shape){!p->ta, false, (int)p->k, (int)p->n, (int)p->rows, (int)p->groups};
}

typedef struct {
    mm_plan p;
    operand A, B;
    const float *G;
    float *dA, *dB;          /* either NULL */
    float beta_da;           /* 0 where dA is fresh (rf_exec.fresh), else 1 */
    rf_gemm_lib lib_da, lib_db;
} mm_ctx;

/* dA_i and (b not shared) dB_i of group i, as in rf_cpu_matmul_backward */
static void mm_bwd_groups(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const mm_ctx *c = ctx;
    const mm_plan *p = &c->p;
    int64_t a_step = p->rows * p->k, g_step = p->rows * p->n;
    for (int64_t i = begin; i < end; i++) {
        operand Ai = operand_at(c->A, i * a_step), Bi = operand_at(c->B, i * p->b_step);
        operand Gi = {c->G + i * g_step, false};
        if (c->dA != NULL) {
            if (p->ta)
                gemm1(c->lib_da, p->tb, true, p->k, p->rows, p->n, Bi, Gi, c->beta_da, c->dA + i * a_step);
            else
                gemm1(c->lib_da, false, !p->tb, p->rows, p->k, p->n, Gi, Bi, c->beta_da, c->dA + i * a_step);
        }
        if (c->dB != NULL) {
            if (p->tb)
                gemm1(c->lib_db, true, p->ta, p->n, p->k, p->rows, Gi, Ai, 1.0f, c->dB + i * p->b_step);
            else
                gemm1(c->lib_db, !p->ta, false, p->k, p->n, p->rows, Ai, Gi, 1.0f, c->dB + i * p->b_step);
        }
    }
}

typedef struct {
    mm_plan p;
    const float *A, *B;
    float *C;
} mm_fwd_ctx;

/* Group i's product on the small-head kernels (small_head_product). */
static void mm_fwd_small_head(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const mm_fwd_ctx *c = ctx;
    const mm_plan *p = &c->p;
    for (int64_t i = begin; i < end; i++)
        small_head_product(p->ta, p->tb, p->rows, p->n, p->k, c->A + i * p->rows * p->k, c->B + i * p->b_step, 0.0f,
                           c->C + i * p->rows * p->n);
}

/* a [..., M, K] or [..., K, M], b [..., K, N] or [..., N, K] -> out [..., M, N] */
void rf_cpu_matmul_forward(rf_exec *x, rf_node *n)
{
    mm_plan p = mm_plan_of(x->g, n);
    operand A = operand_of(rf_in(x, n, 0)), B = operand_of(rf_in(x, n, 1));
    if (by_groups(&p) && small_head_runs(p.ta, p.tb, p.n, p.k, A, B)) {
        mm_fwd_ctx c = {p, A.p, B.p, n->value};
        rf_pool_run(x->pool, p.groups, 1, mm_fwd_small_head, &c);
        return;
    }
    if (by_groups(&p)) {
        rf_gemm_shape s = {p.ta, p.tb, (int)p.rows, (int)p.n, (int)p.k, (int)p.groups};
        rf_sgemm_batched_mixed_on(x->pool, rf_gemm_choice(&s), p.ta, p.tb, (int)p.rows, (int)p.n, (int)p.k,
                                  (int)p.groups, A.p, A.half, p.rows * p.k, B.p, B.half, p.b_step, 0.0f, n->value,
                                  p.rows * p.n);
        return;
    }
    for (int64_t i = 0; i < p.groups; i++)
        gemm_mixed(x->pool, p.ta, p.tb, p.rows, p.n, p.k, operand_at(A, i * p.rows * p.k), operand_at(B, i * p.b_step),
                   0.0f, n->value + i * p.rows * p.n);
}

/* C = op(A) op(B), G = dC:  d op(A) = G op(B)^T,  d op(B) = op(A)^T G.
 * A stored transposed gets (d op(A))^T = op(B) G^T; likewise B gets G^T op(A). */
void rf_cpu_matmul_backward(rf_exec *x, rf_node *n)
{
    mm_plan p = mm_plan_of(x->g, n);
    rf_node *an = rf_in(x, n, 0), *bn = rf_in(x, n, 1);
    operand A = operand_of(an), B = operand_of(bn);
    const float *G = n->grad;
    int64_t a_step = p.rows * p.k, g_step = p.rows * p.n;
    bool groups = by_groups(&p);
    float beta_da = x->fresh[0] ? 0.0f : 1.0f;   /* the first of a's consumers writes its gradient */
    if (groups) {
        /* a shared b's gradient is summed over the groups below, in order */
        rf_gemm_shape da = mm_da_shape(&p), db = mm_db_shape(&p);
        mm_ctx c = {p, A, B, G, an->grad, p.b_step != 0 ? bn->grad : NULL, beta_da, RF_GEMM_OPENBLAS,
                    RF_GEMM_OPENBLAS};
        if (c.dA != NULL && !small_head_takes(&da))
            c.lib_da = rf_gemm_choice(&da);
        if (c.dB != NULL && !small_head_takes(&db))
            c.lib_db = rf_gemm_choice(&db);
        if (c.dA != NULL || c.dB != NULL)
            rf_pool_run(x->pool, p.groups, 1, mm_bwd_groups, &c);
    }
    for (int64_t i = 0; i < p.groups && an->grad != NULL && !groups; i++) {
        operand Bi = operand_at(B, i * p.b_step), Gi = {G + i * g_step, false};
        float *dA = an->grad + i * a_step;
        if (p.ta)
            gemm_mixed(x->pool, p.tb, true, p.k, p.rows, p.n, Bi, Gi, beta_da, dA);
        else
            gemm_mixed(x->pool, false, !p.tb, p.rows, p.k, p.n, Gi, Bi, beta_da, dA);
    }
    /* a shared b sums its gradient over the groups in group order */
    for (int64_t i = 0; i < p.groups && bn->grad != NULL && (!groups || p.b_step == 0); i++) {
        operand Ai = operand_at(A, i * a_step), Gi = {G + i * g_step, false};
        float *dB = bn->grad + i * p.b_step;
        if (p.tb)
            gemm_mixed(x->pool, true, p.ta, p.n, p.k, p.rows, Gi, Ai, 1.0f, dB);
        else
            gemm_mixed(x->pool, !p.ta, false, p.k, p.n, p.rows, Ai, Gi, 1.0f, dB);
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
    gemm_mixed(x->pool, false, false, rows, cols, k, operand_of(xn), operand_of(wn), beta, n->value);
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

/* ---- linear backward over chunks of rows ----
 *
 * With many rows and a small weight (every projection of the encoders: 64000
 * tokens, [64, 128] weights), dW = X^T G has a C too small to cut and a long
 * sum, and G would be streamed from memory three times (dx, dW, dbias). So
 * the rows are cut into fixed chunks of ROW_CHUNK: a task does, for its
 * chunk, dx rows += G_c W^T, the partial dW_c = X_c^T G_c and the partial
 * column sums of G_c, while G_c is in cache; then the partials are added to
 * dW and dbias in chunk order. The cut depends only on the row count, so
 * the result is the same for every thread count. */
#define ROW_CHUNK RF_LINEAR_ROW_CHUNK
/* weights up to this many floats take the chunked path */
#define CHUNK_MAX_WEIGHT RF_LINEAR_CHUNK_MAX_WEIGHT

typedef struct {
    operand x;               /* f32 or bf16 */
    const float *g, *w;
    float *dx, *dw, *dbias;
    float *part;             /* [chunks][k * n + n]: partial dW, then partial dbias */
    float dx_beta;           /* 0 to write dx (fresh), 1 to add to it */
    int64_t rows, k, n, chunks;
    rf_gemm_lib lib_dx, lib_dw;
} lin_bwd_ctx;

/* Whether the chunked backward applies: on the shapes only, never on the thread count. */
static bool chunked(bool dw, bool dbias, int64_t rows, int64_t k, int64_t n)
{
    return (dw || dbias) && rows >= 2 * ROW_CHUNK && k * n <= CHUNK_MAX_WEIGHT;
}

/* A chunk's products (the last chunk's rows are fewer, on the same library). */
static rf_gemm_shape chunk_dx_shape(int64_t chunks, int64_t k, int64_t n)
{
    return (rf_gemm_shape){false, true, ROW_CHUNK, (int)k, (int)n, (int)chunks};
}

static rf_gemm_shape chunk_dw_shape(int64_t chunks, int64_t k, int64_t n)
{
    return (rf_gemm_shape){true, false, (int)k, (int)n, ROW_CHUNK, (int)chunks};
}

/* Each thread's buffer for a chunk's rounded G, freed when the thread ends
 * (a pool's workers end with the pool). */
typedef struct {
    uint16_t *p;
    int64_t size;
} rounded_buffer;

static pthread_key_t rounded_key;
static pthread_once_t rounded_once = PTHREAD_ONCE_INIT;

static void rounded_free(void *arg)
{
    rounded_buffer *b = arg;
    free(b->p);
    free(b);
}

static void rounded_key_make(void) { pthread_key_create(&rounded_key, rounded_free); }

/* This thread's buffer of at least `count` bf16, or NULL when out of memory. */
static uint16_t *rounded_space(int64_t count)
{
    pthread_once(&rounded_once, rounded_key_make);
    rounded_buffer *b = pthread_getspecific(rounded_key);
    if (b == NULL) {
        b = calloc(1, sizeof *b);
        if (b == NULL || pthread_setspecific(rounded_key, b) != 0) {
            free(b);
            return NULL;
        }
    }
    if (count > b->size) {
        uint16_t *grown = realloc(b->p, (size_t)count * sizeof *grown);
        if (grown == NULL)
            return NULL;
        b->p = grown;
        b->size = count;
    }
    return b->p;
}

/* A chunk's G as both its products read it: as it is, or, when both run in
 * bf16, rounded once into this thread's buffer (each bf16 product would
 * round it again, to the same bits). */
static operand chunk_gradient(const lin_bwd_ctx *c, const float *g, int64_t count)
{
    if (c->dx == NULL || c->dw == NULL || c->lib_dx != RF_GEMM_BF16 || c->lib_dw != RF_GEMM_BF16)
        return (operand){g, false};
    uint16_t *rounded = rounded_space(count);
    if (rounded == NULL)
        return (operand){g, false};   /* each product rounds it then */
    rf_bf16_round(g, rounded, (size_t)count);
    return (operand){rounded, true};
}

static RF_VEC_CLONES void lin_bwd_chunk_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const lin_bwd_ctx *c = ctx;
    int k = (int)c->k, n = (int)c->n;
    for (int64_t ch = begin; ch < end; ch++) {
        int64_t lo = ch * ROW_CHUNK, hi = lo + ROW_CHUNK < c->rows ? lo + ROW_CHUNK : c->rows;
        int m = (int)(hi - lo);
        const float *g = c->g + lo * c->n;
        float *part = c->part + ch * (c->k * c->n + c->n);
        operand G = chunk_gradient(c, g, (int64_t)m * n);
        if (c->dx != NULL)
            rf_gemm1_mixed(c->lib_dx, false, true, m, k, n, 1.0f, G.p, G.half, n, c->w, false, n, c->dx_beta,
                           c->dx + lo * c->k, k);
        if (c->dw != NULL)
            gemm1(c->lib_dw, true, false, k, n, m, operand_at(c->x, lo * c->k), G, 0.0f, part);
        if (c->dbias != NULL) {
            /* column sums of the chunk, in double, COL_BLOCK columns at a time */
            float *pb = part + c->k * c->n;
            for (int64_t j0 = 0; j0 < c->n; j0 += COL_BLOCK) {
                int64_t w = c->n - j0 < COL_BLOCK ? c->n - j0 : COL_BLOCK;
                double acc[COL_BLOCK] = {0};
                if (w == COL_BLOCK)
                    for (int64_t r = 0; r < m; r++)
                        for (int j = 0; j < COL_BLOCK; j++)
                            acc[j] += g[r * c->n + j0 + j];
                else
                    for (int64_t r = 0; r < m; r++)
                        for (int64_t j = 0; j < w; j++)
                            acc[j] += g[r * c->n + j0 + j];
                for (int64_t j = 0; j < w; j++)
                    pb[j0 + j] = (float)acc[j];
            }
        }
    }
}

/* dW and dbias elements [begin, end) (dW's k * n first, then dbias's n)
 * += the chunks' partials, summed in chunk order. */
static void lin_bwd_sum_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const lin_bwd_ctx *c = ctx;
    int64_t kn = c->k * c->n, stride = kn + c->n;
    for (int64_t i = begin; i < end; i++) {
        float *dst = i < kn ? c->dw + i : c->dbias + (i - kn);
        if ((i < kn && c->dw == NULL) || (i >= kn && c->dbias == NULL))
            continue;
        float s = c->part[i];
        for (int64_t ch = 1; ch < c->chunks; ch++)
            s += c->part[ch * stride + i];
        *dst += s;
    }
}

/* The chunked backward; false (nothing done) when it does not apply. */
static bool linear_backward_chunked(rf_exec *x, operand xv, const float *w, const float *g, float *dx,
                                    float *dw, float *dbias, int64_t rows, int64_t k, int64_t n)
{
    if (!chunked(dw != NULL, dbias != NULL, rows, k, n))
        return false;
    int64_t chunks = (rows + ROW_CHUNK - 1) / ROW_CHUNK;
    rf_gemm_shape sx = chunk_dx_shape(chunks, k, n), sw = chunk_dw_shape(chunks, k, n);
    lin_bwd_ctx c = {xv, g, w, dx, dw, dbias, NULL, x->fresh[0] ? 0.0f : 1.0f, rows, k, n, chunks,
                     dx != NULL ? rf_gemm_choice(&sx) : RF_GEMM_OPENBLAS,
                     dw != NULL ? rf_gemm_choice(&sw) : RF_GEMM_OPENBLAS};
    c.part = x->scratch;   /* planned by the op's scratch_floats; without it, the plain products */
    if (c.part == NULL || (size_t)(c.chunks * (k * n + n)) > x->scratch_floats)
        return false;
    rf_pool_run(x->pool, c.chunks, 1, lin_bwd_chunk_task, &c);
    rf_pool_run(x->pool, k * n + n, 4096 / c.chunks + 1, lin_bwd_sum_task, &c);
    return true;
}

/* dx [rows, K] += G W^T (= when fresh),  dw [K, N] += X^T G,  dbias [N] +=
 * column sums of G */
void rf_cpu_linear_backward(rf_exec *x, rf_node *n)
{
    rf_node *xn = rf_in(x, n, 0), *wn = rf_in(x, n, 1);
    int64_t k = wn->shape.dim[0], cols = wn->shape.dim[1];
    int64_t rows = rf_shape_numel(xn->shape) / k;
    float *dbias = n->n_in == 3 ? rf_in(x, n, 2)->grad : NULL;
    if (linear_backward_chunked(x, operand_of(xn), wn->value, n->grad, xn->grad, wn->grad, dbias, rows, k, cols))
        return;
    if (xn->grad != NULL)
        gemm(x->pool, false, true, rows, k, cols, n->grad, wn->value, x->fresh[0] ? 0.0f : 1.0f, xn->grad);
    if (wn->grad != NULL)
        gemm_mixed(x->pool, true, false, k, cols, rows, operand_of(xn), (operand){n->grad, false}, 1.0f, wn->grad);
    if (dbias != NULL) {
        colsum_ctx c = {dbias, n->grad, rows, cols};
        int64_t blocks = (cols + COL_BLOCK - 1) / COL_BLOCK;
        rf_pool_run(x->pool, blocks, 16384 / (rows * COL_BLOCK) + 1, colsum_task, &c);
    }
}

/* ---- the products these kernels run, as they run them ---- */

static void matmul_products(rf_graph *g, const rf_node *n, bool backward, rf_gemm_list *out)
{
    mm_plan p = mm_plan_of(g, n);
    const rf_node *an = rf_graph_node(g, n->in[0]), *bn = rf_graph_node(g, n->in[1]);
    if (by_groups(&p)) {
        rf_gemm_shape fwd = {p.ta, p.tb, (int)p.rows, (int)p.n, (int)p.k, (int)p.groups};
        rf_gemm_shape da = mm_da_shape(&p), db = mm_db_shape(&p);
        if (!backward && !small_head_takes(&fwd))
            rf_gemm_list_add(out, p.ta, p.tb, p.rows, p.n, p.k, p.groups);
        if (backward && an->grad != NULL && !small_head_takes(&da))
            rf_gemm_list_add(out, da.ta, da.tb, da.m, da.n, da.k, da.batch);
        if (backward && bn->grad != NULL && p.b_step != 0 && !small_head_takes(&db))
            rf_gemm_list_add(out, db.ta, db.tb, db.m, db.n, db.k, db.batch);
        if (!backward || bn->grad == NULL || p.b_step != 0)
            return;
    }
    /* one rf_sgemm per group (a shared b's gradient too, when by groups) */
    if (!backward)
        rf_gemm_list_add(out, p.ta, p.tb, p.rows, p.n, p.k, 1);
    if (backward && an->grad != NULL && !by_groups(&p)) {
        if (p.ta)
            rf_gemm_list_add(out, p.tb, true, p.k, p.rows, p.n, 1);
        else
            rf_gemm_list_add(out, false, !p.tb, p.rows, p.k, p.n, 1);
    }
    if (backward && bn->grad != NULL) {
        if (p.tb)
            rf_gemm_list_add(out, true, p.ta, p.n, p.k, p.rows, 1);
        else
            rf_gemm_list_add(out, !p.ta, false, p.k, p.n, p.rows, 1);
    }
}

static void linear_products(rf_graph *g, const rf_node *n, bool backward, rf_gemm_list *out)
{
    const rf_node *xn = rf_graph_node(g, n->in[0]), *wn = rf_graph_node(g, n->in[1]);
    int64_t k = wn->shape.dim[0], cols = wn->shape.dim[1];
    int64_t rows = rf_shape_numel(xn->shape) / k;
    bool dbias = n->n_in == 3 && rf_graph_node(g, n->in[2])->grad != NULL;
    if (!backward) {
        rf_gemm_list_add(out, false, false, rows, cols, k, 1);
    } else if (chunked(wn->grad != NULL, dbias, rows, k, cols)) {
        int64_t chunks = (rows + ROW_CHUNK - 1) / ROW_CHUNK;
        rf_gemm_shape sx = chunk_dx_shape(chunks, k, cols), sw = chunk_dw_shape(chunks, k, cols);
        if (xn->grad != NULL)
            rf_gemm_list_add(out, sx.ta, sx.tb, sx.m, sx.n, sx.k, sx.batch);
        if (wn->grad != NULL)
            rf_gemm_list_add(out, sw.ta, sw.tb, sw.m, sw.n, sw.k, sw.batch);
    } else {
        if (xn->grad != NULL)
            rf_gemm_list_add(out, false, true, rows, k, cols, 1);
        if (wn->grad != NULL)
            rf_gemm_list_add(out, true, false, k, cols, rows, 1);
    }
}

void rf_cpu_linalg_products(rf_graph *g, const rf_node *n, bool backward, rf_gemm_list *out)
{
    if (n->op == RF_OP_MATMUL)
        matmul_products(g, n, backward, out);
    else if (n->op == RF_OP_LINEAR)
        linear_products(g, n, backward, out);
}
