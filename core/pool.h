/* A fixed pool of worker threads for the non-GEMM kernels.
 *
 * rf_pool_run splits [0, n) into one contiguous chunk per thread (the same
 * chunks for the same n and thread count, so results are deterministic) and
 * returns when all chunks are done. The calling thread does chunk 0 and any
 * chunk no worker has claimed by then (pool.c).
 * OpenBLAS runs single-threaded inside the engine; big products are split
 * across this pool by rf_sgemm (blas.h).
 */
#ifndef RF_POOL_H
#define RF_POOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct rf_pool rf_pool;

/* fn(ctx, begin, end, thread_index) handles items [begin, end);
 * thread_index names the thread running it (for its own scratch), which may
 * run more than one chunk of a job, one after the other. */
typedef void (*rf_pool_fn)(void *ctx, int64_t begin, int64_t end, int thread);

rf_pool *rf_pool_new(int threads);     /* threads <= 0: all cores */
void rf_pool_free(rf_pool *pool);
int rf_pool_threads(const rf_pool *pool);

/* Run fn over [0, n). With pool == NULL or n small, runs inline.
 * `grain` is the least number of items worth giving a thread. */
void rf_pool_run(rf_pool *pool, int64_t n, int64_t grain, rf_pool_fn fn, void *ctx);

/* A buffer of at least `floats` floats that the pool keeps between calls,
 * grown only when a larger one is asked for (so a training step, which asks
 * for the same sizes every time, allocates nothing after its first). For
 * the calling thread, between runs: rf_sgemm's partial products. NULL if
 * it cannot be allocated. */
float *rf_pool_buffer(rf_pool *pool, size_t floats);

/* Number of online cores. */
int rf_cpu_count(void);

/* Set OpenBLAS's own thread count (for code outside the engine's kernels). */
void rf_blas_set_threads(int threads);
/* OpenBLAS single-threaded: the engine threads products itself (blas.h). */
void rf_blas_single_thread(void);

#endif
