#include "blas.h"

#include <stdbool.h>

typedef struct {
    CBLAS_TRANSPOSE ta, tb;
    int m, n, k;
    float alpha, beta;
    const float *A, *B;
    float *C;
    int lda, ldb, ldc;
    bool by_rows;
    int block;              /* rows (or columns) per block */
} gemm_job;

/* Below this many multiply-adds a product is one call on the calling thread. */
#define PARALLEL_MIN_MACS (1 << 18)
/* Larger products are cut into blocks of this many rows (or columns) of C,
 * the same cut for every thread count, so each element of C is computed the
 * same way whatever the pool size. */
#define BLOCK 256

static void gemm_block(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const gemm_job *j = ctx;
    int total = j->by_rows ? j->m : j->n;
    for (int64_t blk = begin; blk < end; blk++) {
        int lo = (int)blk * j->block, hi = lo + j->block < total ? lo + j->block : total;
        if (j->by_rows) {
            /* rows lo..hi of op(A): A row-major [m, k] (or [k, m] when transposed) */
            const float *a = j->ta == CblasNoTrans ? j->A + (size_t)lo * j->lda : j->A + lo;
            cblas_sgemm(CblasRowMajor, j->ta, j->tb, hi - lo, j->n, j->k, j->alpha, a, j->lda, j->B, j->ldb,
                        j->beta, j->C + (size_t)lo * j->ldc, j->ldc);
        } else {
            /* columns lo..hi of op(B): B row-major [k, n] (or [n, k] when transposed) */
            const float *b = j->tb == CblasNoTrans ? j->B + lo : j->B + (size_t)lo * j->ldb;
            cblas_sgemm(CblasRowMajor, j->ta, j->tb, j->m, hi - lo, j->k, j->alpha, j->A, j->lda, b, j->ldb,
                        j->beta, j->C + lo, j->ldc);
        }
    }
}

void rf_sgemm(rf_pool *pool, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, float alpha,
              const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    double macs = (double)m * n * k;
    bool by_rows = m >= n;
    int total = by_rows ? m : n;
    if (macs < PARALLEL_MIN_MACS || total <= BLOCK) {
        cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    gemm_job j = {ta, tb, m, n, k, alpha, beta, A, B, C, lda, ldb, ldc, by_rows, BLOCK};
    rf_pool_run(pool, (total + BLOCK - 1) / BLOCK, 1, gemm_block, &j);
}
