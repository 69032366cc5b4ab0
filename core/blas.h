/* Matrix products for every kernel.
 *
 * OpenBLAS and oneDNN run single-threaded inside the engine (core/gemm.h
 * chooses between them per product shape); rf_sgemm splits one product
 * across the engine's own pool (rows of C, or columns when C is wide and
 * short) in fixed blocks, and each thread computes its blocks with one
 * single-threaded call of the chosen library (rf_gemm1). One set of
 * threads for everything means no oversubscription and no OpenBLAS threads
 * spinning while the pool runs element-wise work. The cut depends only on
 * the shapes (fixed blocks of C; for a small C with a long k, fixed k chunks
 * summed in order), so results do not depend on the thread count.
 * Call from the executing thread only (never from inside a pool task; use
 * cblas_sgemm directly there).
 */
#ifndef RF_BLAS_H
#define RF_BLAS_H

#include <cblas.h>

#include "gemm.h"
#include "pool.h"

/* Row-major C [m, n] = alpha * op(A) op(B) + beta * C, as cblas_sgemm, on
 * the library core/gemm.h chooses for this shape and pool size. */
void rf_sgemm(rf_pool *pool, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, float alpha,
              const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc);

/* rf_sgemm on a given library (the choice's timing, benchmarks). */
void rf_sgemm_on(rf_pool *pool, rf_gemm_lib lib, bool ta, bool tb, int m, int n, int k, float alpha, const float *A,
                 int lda, const float *B, int ldb, float beta, float *C, int ldc);

/* `batch` independent contiguous products C_i = op(A_i) op(B_i) + beta C_i
 * (A_i = A + i * a_step, ...; b_step 0 shares B), one pool task each, each
 * one single-threaded call of `lib`. */
void rf_sgemm_batched_on(rf_pool *pool, rf_gemm_lib lib, bool ta, bool tb, int m, int n, int k, int batch,
                         const float *A, int64_t a_step, const float *B, int64_t b_step, float beta, float *C,
                         int64_t c_step);

/* The same three with each operand f32 or, where a16 (b16) says so, bf16
 * (uint16_t, an activation kept in bf16: core/bf16_storage.h); lda, ldb and
 * the steps count elements either way (rf_gemm1_mixed). */
void rf_sgemm_mixed(rf_pool *pool, bool ta, bool tb, int m, int n, int k, float alpha, const void *A, bool a16,
                    int lda, const void *B, bool b16, int ldb, float beta, float *C, int ldc);
void rf_sgemm_mixed_on(rf_pool *pool, rf_gemm_lib lib, bool ta, bool tb, int m, int n, int k, float alpha,
                       const void *A, bool a16, int lda, const void *B, bool b16, int ldb, float beta, float *C,
                       int ldc);
void rf_sgemm_batched_mixed_on(rf_pool *pool, rf_gemm_lib lib, bool ta, bool tb, int m, int n, int k, int batch,
                               const void *A, bool a16, int64_t a_step, const void *B, bool b16, int64_t b_step,
                               float beta, float *C, int64_t c_step);

#endif
