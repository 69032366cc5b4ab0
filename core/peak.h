/* The f32 matrix-product ceiling of this build on this CPU (`bench`'s
 * peak_gflops, which its efficiency is a fraction of): the best rate
 * rf_sgemm_on (core/blas.h, the GEMM every kernel's products go through)
 * reaches with either f32 library (OpenBLAS, oneDNN) over a short sweep of
 * large square and rectangular products with the engine's own thread pool,
 * whatever train.gemm and train.precision are in force. It is measured once
 * per key (the CPU model, the thread count, OpenBLAS's configuration with
 * its kernel set, and the libraries swept) and cached in
 * $XDG_CACHE_HOME/rangefinder/ (~/.cache/rangefinder/ without it), one small
 * text file per key, written atomically (core/atomic_file.h). A read
 * validates the file completely (its format, its key, a checksum of its
 * contents and a positive, finite rate): a file that fails is measured
 * again with a warning and replaced, never trusted.
 */
#ifndef RF_PEAK_H
#define RF_PEAK_H

#include <stdbool.h>
#include <stddef.h>

#include "pool.h"
#include "status.h"

/* "cpu=<model name>;threads=<n>;gemm=<OpenBLAS's configuration>;f32=openblas,onednn" */
void rf_peak_key(int threads, char *key, size_t size);

/* The best GFLOP/s of rf_sgemm on `pool` over the sweep (about a second). */
double rf_peak_measure(rf_pool *pool);

/* The cache file for `key`: <cache folder>/peak-gflops-<hash of key>.txt;
 * false when there is no cache folder to name (no XDG_CACHE_HOME, no HOME). */
bool rf_peak_cache_path(const char *key, char *path, size_t size);

typedef enum rf_peak_cache {
    RF_PEAK_CACHE_MISSING,   /* no file, or another key's */
    RF_PEAK_CACHE_VALID,
    RF_PEAK_CACHE_CORRUPT,   /* the reason in `st` */
} rf_peak_cache;

rf_peak_cache rf_peak_cache_read(const char *path, const char *key, double *gflops, rf_status *st);
/* Creates the folder if needed. */
bool rf_peak_cache_write(const char *path, const char *key, double gflops, rf_status *st);

/* The ceiling for `threads` threads: from the cache, or measured and
 * cached (a corrupt cache, or one that cannot be written, is a warning
 * through rf_warn). *measured (may be NULL) tells which. */
double rf_peak_gflops(int threads, bool *measured);

#endif
