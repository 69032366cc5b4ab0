/* The file that keeps the matrix-product choices between runs.
 *
 * $XDG_CACHE_HOME/rangefinder/gemm-choices.tsv (~/.cache/... without
 * XDG_CACHE_HOME; no cache without either): a header line, then one line
 * per timed shape:
 *
 *   rangefinder gemm choices 1
 *   CPU<TAB>TRANSPOSES<TAB>M<TAB>N<TAB>K<TAB>BATCH<TAB>LIB<TAB>OPENBLAS_S<TAB>ONEDNN_S
 *
 * CPU is rf_cpu_key (core/cpu/cpu_features.h: the "model name", family,
 * model and vector ISA; files written before it held the model name
 * alone, and those lines are simply never used), TRANSPOSES one of NN NT
 * TN TT, LIB the faster of the two timings (one thread: see gemm.h for why
 * the thread count is not part of the key). The file follows
 * core/cache_file.h's rules: lines of other CPUs are kept and never used;
 * a wrong header, a line that does not parse, a value out of range or a
 * LIB that is not the faster of its own timings makes the whole file
 * untrusted; it is then ignored with a one-line warning and rewritten
 * from this run's timings; it is replaced atomically.
 */
#ifndef RF_GEMM_CACHE_H
#define RF_GEMM_CACHE_H

#include "gemm.h"

/* One line of the file. */
typedef struct rf_gemm_cached {
    char cpu[128];
    rf_gemm_shape shape;
    rf_gemm_lib lib;
    double seconds[RF_GEMM_LIBS];
} rf_gemm_cached;

/* The cache file's path (malloc'd), or NULL when there is no cache folder. */
char *rf_gemm_cache_path(void);

/* Read `path`: its lines into *out (malloc'd, *count of them). A missing
 * file is an empty cache (true). False, with the file, line and problem
 * in st, when the file cannot be trusted (*out is then NULL, *count 0). */
bool rf_gemm_cache_read(const char *path, rf_gemm_cached **out, int *count, rf_status *st);

/* Replace `path` with these lines (creating its folder). */
bool rf_gemm_cache_write(const char *path, const rf_gemm_cached *lines, int count, rf_status *st);

#endif
