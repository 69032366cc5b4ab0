/* The two matrix-product libraries and the choice between them.
 *
 * Every product the engine's linear algebra runs (rf_sgemm and the
 * batched products of core/cpu/linalg.c) is done, one single-threaded call
 * per block, by OpenBLAS or by oneDNN (dnnl_sgemm, run with one OpenMP
 * thread inside the engine's pool). Which one is decided per product shape:
 *
 * - train.gemm = openblas | onednn (or the environment variable RF_GEMM,
 *   which wins, so tests and benchmarks can force one) uses that library
 *   for everything;
 * - train.gemm = auto (the default) uses, for each shape a graph declared
 *   when it was prepared (core/exec.c), the faster of the two as timed
 *   once on this CPU (rf_gemm_plan), and OpenBLAS for a shape no graph
 *   declared. The timings are cached in a file (core/gemm_cache.h), so a
 *   second run times nothing.
 *
 * A block's result depends on the library and the block's shape only; the
 * blocks depend on the product's shape only (core/blas.h), so results do
 * not depend on the thread count with either library. That is also why
 * the choice is made per CPU and shape, not per thread count: every block
 * is one single-threaded call, so the libraries are timed on one thread,
 * and a run on 1 thread and one on 16 use the same library for the same
 * shape (choosing per thread count would make results depend on it).
 * Which library wins a near tie can differ between two machines of the
 * same model; results then differ within rounding (the ops' tolerances),
 * and the cache keeps a machine's choice, and so its results, stable.
 */
#ifndef RF_GEMM_H
#define RF_GEMM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "status.h"

/* The f32 libraries (the first RF_GEMM_LIBS, which auto chooses between)
 * and oneDNN's bf16 products (train.precision = bf16, core/gemm_bf16.h). */
typedef enum rf_gemm_lib { RF_GEMM_OPENBLAS, RF_GEMM_ONEDNN, RF_GEMM_BF16 } rf_gemm_lib;
enum { RF_GEMM_LIBS = 2 };

const char *rf_gemm_lib_name(rf_gemm_lib lib);      /* "openblas", "onednn", "onednn-bf16" */

/* Row-major C [m, n] = alpha op(A) op(B) + beta C on the calling thread
 * alone, with `lib` (cblas_sgemm's arguments, transposes as flags). */
void rf_gemm1(rf_gemm_lib lib, bool ta, bool tb, int m, int n, int k, float alpha, const float *A, int lda,
              const float *B, int ldb, float beta, float *C, int ldc);
/* The same with each operand f32 or, where a16 (b16) says so, bf16
 * (uint16_t: an activation kept in bf16, core/bf16_storage.h); ld and
 * offsets count elements either way. RF_GEMM_BF16 reads a bf16 operand as
 * it is; the f32 libraries read it widened (exactly). */
void rf_gemm1_mixed(rf_gemm_lib lib, bool ta, bool tb, int m, int n, int k, float alpha, const void *A, bool a16,
                    int lda, const void *B, bool b16, int ldb, float beta, float *C, int ldc);

/* A product as the engine runs it: op(A) [m, k] x op(B) [k, n], `batch`
 * independent ones side by side (1: one product cut across the pool by
 * rf_sgemm; more: one pool task per product). */
typedef struct rf_gemm_shape {
    bool ta, tb;
    int m, n, k, batch;
} rf_gemm_shape;

/* Shapes collected from a graph (duplicates are dropped). */
typedef struct rf_gemm_list {
    rf_gemm_shape *items;
    int count, capacity;
} rf_gemm_list;

void rf_gemm_list_add(rf_gemm_list *l, bool ta, bool tb, int64_t m, int64_t n, int64_t k, int64_t batch);
void rf_gemm_list_free(rf_gemm_list *l);

/* "auto", "openblas" or "onednn" (train.gemm); RF_GEMM in the environment,
 * when set, takes precedence. Fails on any other value, naming it. The
 * mode is the process's: each trainer sets its config's when it is made. */
bool rf_gemm_set_mode(const char *mode, rf_status *st);
/* The mode in force ("auto", "openblas", "onednn"). */
const char *rf_gemm_mode(void);

/* "f32" or "bf16" (train.precision): in bf16 every product rf_gemm_choice
 * is asked about runs on RF_GEMM_BF16, whatever the mode (products with an
 * empty side excepted). Fails on any other value, and on bf16 where the CPU
 * has neither AVX512-BF16 nor AMX-BF16, naming the CPU. Like the mode, it
 * is the process's. */
bool rf_gemm_set_precision(const char *precision, rf_status *st);
const char *rf_gemm_precision(void);

/* The library for a product of this shape (counted as one call for
 * rf_gemm_report). */
rf_gemm_lib rf_gemm_choice(const rf_gemm_shape *s);

/* In auto mode: for each shape without a choice, take it from the cache
 * file or time both libraries on it (scratch operands, one thread) and
 * keep the faster, then write the cache file if anything was timed. A
 * cache file that cannot be read or written costs a warning on stderr,
 * never the run. Does nothing in a forced mode. */
void rf_gemm_plan(const rf_gemm_shape *shapes, int count);

/* Where a choice came from. RF_GEMM_NEAREST: a shape no graph declared
 * that differs from a chosen one only in its rows (m) or its batch count,
 * as a row-scoped op's products do when it runs fewer rows than planned
 * (core/graph.h, rf_graph_row_scope): it takes the choice of the chosen
 * shape nearest in m x batch. */
typedef enum rf_gemm_origin {
    RF_GEMM_TIMED,
    RF_GEMM_CACHED,
    RF_GEMM_FORCED,
    RF_GEMM_UNPLANNED,
    RF_GEMM_NEAREST
} rf_gemm_origin;

typedef struct rf_gemm_entry {
    rf_gemm_shape shape;
    rf_gemm_lib lib;
    double seconds[RF_GEMM_LIBS];   /* the timings behind an auto choice (0 when not timed) */
    rf_gemm_origin origin;
    int64_t calls;                  /* rf_gemm_choice calls since the last rf_gemm_reset_calls */
} rf_gemm_entry;

/* This process's choices for this CPU, up to max of them; returns how many
 * there are. */
int rf_gemm_entries(rf_gemm_entry *out, int max);
void rf_gemm_reset_calls(void);
/* Forget every choice in memory: the next rf_gemm_plan reads the cache file again. */
void rf_gemm_forget(void);

/* Which library each product shape used, per step (for `bench --profile`). */
void rf_gemm_report(FILE *f, int steps);

#endif
