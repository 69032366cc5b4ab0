/* Matrix products for every kernel.
 *
 * OpenBLAS runs single-threaded inside the engine; rf_sgemm splits one
 * product across the engine's own pool (rows of C, or columns when C is wide
 * and short) in fixed blocks, and each thread calls cblas_sgemm on its blocks. One set of
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

#include "pool.h"

/* Row-major C [m, n] = alpha * op(A) op(B) + beta * C, as cblas_sgemm. */
void rf_sgemm(rf_pool *pool, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, float alpha,
              const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc);

#endif
