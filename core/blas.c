#include "blas.h"

#include <stdbool.h>
#include <stdint.h>

/* Element i of an operand stored in f32, or in bf16 when `half`. */
static const void *at(const void *p, bool half, size_t i)
{
    return half ? (const void *)((const uint16_t *)p + i) : (const void *)((const float *)p + i);
}

typedef struct {
    rf_gemm_lib lib;
    bool ta, tb;
    bool a16, b16;          /* A, B stored in bf16 */
    int m, n, k;
    float alpha, beta;
    const void *A, *B;
    float *C;
    int lda, ldb, ldc;
    bool by_rows;
    int block;              /* rows (or columns) per block */
    /* split along k: partial products into `part` [chunks, m, n] */
    int chunks;
    float *part;
} gemm_job;

/* Below this many multiply-adds a product is one call on the calling thread. */
#define PARALLEL_MIN_MACS (1 << 18)
/* Larger products are cut into blocks of this many rows (or columns) of C,
 * the same cut for every thread count, so each element of C is computed the
 * same way whatever the pool size. */
#define BLOCK 256
/* A product whose C is too small to cut (the weight gradient X^T G of a
 * linear layer: C is [K, N], the sum runs over every token) is cut along k
 * instead, into chunks of this many: each chunk's product goes to its own
 * buffer and the chunks are summed in chunk order. The cut depends only on
 * k, so the result is the same for every thread count. */
#define K_CHUNK 1024

static void gemm_block(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const gemm_job *j = ctx;
    int total = j->by_rows ? j->m : j->n;
    for (int64_t blk = begin; blk < end; blk++) {
        int lo = (int)blk * j->block, hi = lo + j->block < total ? lo + j->block : total;
        if (j->by_rows) {
            /* rows lo..hi of op(A): A row-major [m, k] (or [k, m] when transposed) */
            const void *a = at(j->A, j->a16, !j->ta ? (size_t)lo * j->lda : (size_t)lo);
            rf_gemm1_mixed(j->lib, j->ta, j->tb, hi - lo, j->n, j->k, j->alpha, a, j->a16, j->lda, j->B, j->b16,
                           j->ldb, j->beta, j->C + (size_t)lo * j->ldc, j->ldc);
        } else {
            /* columns lo..hi of op(B): B row-major [k, n] (or [n, k] when transposed) */
            const void *b = at(j->B, j->b16, !j->tb ? (size_t)lo : (size_t)lo * j->ldb);
            rf_gemm1_mixed(j->lib, j->ta, j->tb, j->m, hi - lo, j->k, j->alpha, j->A, j->a16, j->lda, b, j->b16,
                           j->ldb, j->beta, j->C + lo, j->ldc);
        }
    }
}

/* Chunk c: part[c] = alpha * op(A)[:, k-range] op(B)[k-range, :]. */
static void gemm_kchunk(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const gemm_job *j = ctx;
    for (int64_t c = begin; c < end; c++) {
        int lo = (int)c * j->block, hi = lo + j->block < j->k ? lo + j->block : j->k;
        /* op(A) [m, k]: columns lo..hi; A stored [m, k] or, transposed, [k, m] */
        const void *a = at(j->A, j->a16, !j->ta ? (size_t)lo : (size_t)lo * j->lda);
        /* op(B) [k, n]: rows lo..hi; B stored [k, n] or, transposed, [n, k] */
        const void *b = at(j->B, j->b16, !j->tb ? (size_t)lo * j->ldb : (size_t)lo);
        rf_gemm1_mixed(j->lib, j->ta, j->tb, j->m, j->n, hi - lo, j->alpha, a, j->a16, j->lda, b, j->b16, j->ldb,
                       0.0f, j->part + (size_t)c * j->m * j->n, j->n);
    }
}

/* Rows [begin, end) of C: C = beta C + sum of the chunks, in chunk order. */
static void gemm_ksum(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const gemm_job *j = ctx;
    size_t mn = (size_t)j->m * j->n;
    for (int64_t r = begin; r < end; r++) {
        float *c = j->C + (size_t)r * j->ldc;
        const float *p = j->part + (size_t)r * j->n;
        for (int x = 0; x < j->n; x++) {
            float s = p[x];
            for (int ch = 1; ch < j->chunks; ch++)
                s += p[ch * mn + x];
            c[x] = j->beta == 0.0f ? s : j->beta * c[x] + s;
        }
    }
}

void rf_sgemm_mixed_on(rf_pool *pool, rf_gemm_lib lib, bool ta, bool tb, int m, int n, int k, float alpha,
                       const void *A, bool a16, int lda, const void *B, bool b16, int ldb, float beta, float *C,
                       int ldc)
{
    double macs = (double)m * n * k;
    bool by_rows = m >= n;
    int total = by_rows ? m : n;
    if (macs < PARALLEL_MIN_MACS) {
        rf_gemm1_mixed(lib, ta, tb, m, n, k, alpha, A, a16, lda, B, b16, ldb, beta, C, ldc);
        return;
    }
    if (total <= BLOCK) {
        /* C too small to cut: cut k, if it is long enough to be worth it */
        int chunks = (k + K_CHUNK - 1) / K_CHUNK;
        float *part = chunks >= 2 && pool != NULL ? rf_pool_buffer(pool, (size_t)chunks * m * n) : NULL;
        if (part == NULL) {
            rf_gemm1_mixed(lib, ta, tb, m, n, k, alpha, A, a16, lda, B, b16, ldb, beta, C, ldc);
            return;
        }
        gemm_job j = {lib, ta, tb, a16, b16, m, n, k, alpha, beta, A, B, C, lda, ldb, ldc, false, K_CHUNK, chunks,
                      part};
        rf_pool_run(pool, chunks, 1, gemm_kchunk, &j);
        rf_pool_run(pool, m, 1 + 16384 / ((int64_t)n * chunks), gemm_ksum, &j);
        return;
    }
    gemm_job j = {lib, ta, tb, a16, b16, m, n, k, alpha, beta, A, B, C, lda, ldb, ldc, by_rows, BLOCK, 0, NULL};
    rf_pool_run(pool, (total + BLOCK - 1) / BLOCK, 1, gemm_block, &j);
}

void rf_sgemm_on(rf_pool *pool, rf_gemm_lib lib, bool ta, bool tb, int m, int n, int k, float alpha, const float *A,
                 int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    rf_sgemm_mixed_on(pool, lib, ta, tb, m, n, k, alpha, A, false, lda, B, false, ldb, beta, C, ldc);
}

void rf_sgemm_mixed(rf_pool *pool, bool ta, bool tb, int m, int n, int k, float alpha, const void *A, bool a16,
                    int lda, const void *B, bool b16, int ldb, float beta, float *C, int ldc)
{
    rf_gemm_shape s = {ta, tb, m, n, k, 1};
    rf_sgemm_mixed_on(pool, rf_gemm_choice(&s), ta, tb, m, n, k, alpha, A, a16, lda, B, b16, ldb, beta, C, ldc);
}

void rf_sgemm(rf_pool *pool, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, float alpha,
              const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    rf_sgemm_mixed(pool, ta != CblasNoTrans, tb != CblasNoTrans, m, n, k, alpha, A, false, lda, B, false, ldb, beta,
                   C, ldc);
}

typedef struct {
    rf_gemm_lib lib;
    bool ta, tb, a16, b16;
    int m, n, k;
    const void *A, *B;
    float *C;
    int64_t a_step, b_step, c_step;
    float beta;
} batch_job;

static void gemm_batch_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const batch_job *j = ctx;
    for (int64_t i = begin; i < end; i++)
        rf_gemm1_mixed(j->lib, j->ta, j->tb, j->m, j->n, j->k, 1.0f, at(j->A, j->a16, (size_t)(i * j->a_step)), j->a16,
                       j->ta ? j->m : j->k, at(j->B, j->b16, (size_t)(i * j->b_step)), j->b16, j->tb ? j->k : j->n,
                       j->beta, j->C + i * j->c_step, j->n);
}

void rf_sgemm_batched_mixed_on(rf_pool *pool, rf_gemm_lib lib, bool ta, bool tb, int m, int n, int k, int batch,
                               const void *A, bool a16, int64_t a_step, const void *B, bool b16, int64_t b_step,
                               float beta, float *C, int64_t c_step)
{
    batch_job j = {lib, ta, tb, a16, b16, m, n, k, A, B, C, a_step, b_step, c_step, beta};
    rf_pool_run(pool, batch, 1, gemm_batch_task, &j);
}

void rf_sgemm_batched_on(rf_pool *pool, rf_gemm_lib lib, bool ta, bool tb, int m, int n, int k, int batch,
                         const float *A, int64_t a_step, const float *B, int64_t b_step, float beta, float *C,
                         int64_t c_step)
{
    rf_sgemm_batched_mixed_on(pool, lib, ta, tb, m, n, k, batch, A, false, a_step, B, false, b_step, beta, C, c_step);
}
