/* The file that keeps the kernels' tile choices between runs (core/tiles.h).
 *
 * $XDG_CACHE_HOME/rangefinder/tile-choices.tsv, beside the matrix-product
 * choices and under the same rules (core/cache_file.h): a header line, then
 * one line per kernel and head width timed on a CPU:
 *
 *   rangefinder tile choices 1
 *   CPU<TAB>KERNEL<TAB>HEAD<TAB>TILE<TAB>TIMINGS
 *
 * CPU is rf_cpu_key, KERNEL "attention", HEAD the head width dk, TILE the
 * chosen tile's name (QBxKB or QBxKB-lanes, rf_attn_tile_name), and
 * TIMINGS every candidate timed, "TILE:SECONDS" separated by spaces. The file is checked whole: a wrong header, a line
 * that does not parse, a value out of range or a TILE that is not the
 * fastest of its own timings makes it untrusted; it is then ignored with a
 * one-line warning and rewritten.
 */
#ifndef RF_TILES_CACHE_H
#define RF_TILES_CACHE_H

#include <stdbool.h>

#include "status.h"
#include "tiles.h"

/* One line of the file. */
typedef struct rf_tiles_cached {
    char cpu[192];
    int dk;
    rf_attn_tile tile;
    int timed;                                   /* how many candidates the line timed */
    rf_attn_tile tiles[RF_TILES_CACHED_MAX];
    double seconds[RF_TILES_CACHED_MAX];
} rf_tiles_cached;

/* The cache file's path (malloc'd), or NULL when there is no cache folder. */
char *rf_tiles_cache_path(void);

/* Read `path`: its lines into *out (malloc'd, *count of them). A missing
 * file is an empty cache (true). False, with the file, line and problem
 * in st, when the file cannot be trusted (*out is then NULL, *count 0). */
bool rf_tiles_cache_read(const char *path, rf_tiles_cached **out, int *count, rf_status *st);

/* Replace `path` with these lines (creating its folder). */
bool rf_tiles_cache_write(const char *path, const rf_tiles_cached *lines, int count, rf_status *st);

#endif
