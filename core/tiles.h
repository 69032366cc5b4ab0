/* The tiles of the hand-written CPU kernels, chosen per CPU at run time.
 *
 * Full attention's flash kernels (core/cpu/attention.c) work on blocks of
 * qb queries against kb keys. The fastest block depends on the CPU (its
 * caches, and whether the short-head AVX-512 kernels of small_head.h run
 * or the products go to OpenBLAS), so the block is one of a few compiled
 * candidates (rf_attn_tiles), chosen per CPU and head width dk when a
 * graph is prepared on the CPU backend, as the matrix-product library is
 * (core/gemm.h). The environment variable RF_TILES says how:
 *
 * - unset or "auto": the choice kept in the cache file for this CPU
 *   (core/tiles_cache.h, keyed by rf_cpu_key), or, the first time, every
 *   candidate timed (forward and backward of one head of 1,024 queries and
 *   keys, one thread, the candidates alternated, the best of 3 runs) and
 *   the fastest kept and cached;
 * - "default": the first candidate, 64 x 256 (the tests pin it, so their
 *   results do not depend on a timing);
 * - "attention=QBxKB" or "attention=QBxKB-lanes": that candidate (one not
 *   in the list is refused with a warning, and the default used).
 *
 * Within a process the choice for a head width is made once and never
 * changes, and every attention node of a graph takes its tile when the
 * graph is prepared (rf_node.tile), so forward and backward block alike.
 * The blocking changes the order of the softmax's and the gradients' sums,
 * so two tiles give results that differ within rounding (the op's
 * tolerances hold for every candidate: tests/meson.build runs the
 * attention op checks once per candidate).
 */
#ifndef RF_TILES_H
#define RF_TILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rf_graph;

typedef struct rf_attn_tile {
    int qb, kb;   /* queries and keys per block */
    /* P V and dS K on rf_small_head_pv, each key a lane (named
     * "QBxKB-lanes"), instead of rf_small_head_acc's output rows: faster
     * where a 256-bit FMA issues at half a 512-bit one's rate */
    int lanes;
} rf_attn_tile;

/* The default tile (the first candidate), which RF_TILES=default pins. */
enum { RF_ATTN_DEFAULT_QB = 64, RF_ATTN_DEFAULT_KB = 256 };
enum { RF_ATTN_TILES = 6 };
/* The candidates, the default first (see tiles.c for why these). */
extern const rf_attn_tile rf_attn_tiles[RF_ATTN_TILES];
/* The most candidates a cache line may time (room for later lists). */
enum { RF_TILES_CACHED_MAX = 8 };

/* The largest block, query block and key block of any candidate, and the
 * smallest query and key blocks (tests/test_tiles.c checks the list
 * against them): every candidate's block of scores is at most 64
 * KiB, the one the kernel was first tuned with, so the scratch a block
 * needs does not grow with the choice. */
enum {
    RF_ATTN_BLOCK_MAX = 64 * 256,
    RF_ATTN_QB_MAX = 128,
    RF_ATTN_KB_MAX = 512,
    RF_ATTN_QB_MIN = 32,
    RF_ATTN_KB_MIN = 128
};

/* A thread's scratch in the attention kernels with n queries per head and
 * tile t: a block of probabilities and one of their gradients, three
 * floats per query of the block, and one float per query and one per
 * query block (backward's rowsum(dO * O) of a whole head, and which blocks
 * have a gradient). With t.qb = 0 (no tile chosen: a graph planned for
 * another backend), the most any candidate needs. */
size_t rf_attn_thread_floats(rf_attn_tile t, int64_t n);

/* The tile for attention heads of dk floats, chosen as RF_TILES says (and,
 * in auto mode, timed or read from the cache the first time). */
rf_attn_tile rf_tiles_attention(int dk);

/* Give every attention node of g its tile (rf_node.tile) if it has none:
 * called when a graph is planned (rf_graph_plan, rf_graph_prepare) on the
 * CPU backend, so memory plans and prepared graphs size scratch alike. */
void rf_tiles_prepare(struct rf_graph *g);

/* "auto", "default" or "attention=QBxKB": RF_TILES as understood. */
const char *rf_tiles_mode(void);

/* "64x256" (or "64x256-lanes") into buf. */
const char *rf_attn_tile_name(rf_attn_tile t, char *buf, size_t size);
/* A name as rf_attn_tile_name writes it (the whole text, blocks 1 to
 * 65,536) into *t; false when it is not one. */
bool rf_attn_tile_parse(const char *text, rf_attn_tile *t);
/* Whether a and b are the same tile. */
bool rf_attn_tile_same(rf_attn_tile a, rf_attn_tile b);

/* Where a choice came from. */
typedef enum rf_tile_origin { RF_TILE_DEFAULT, RF_TILE_FORCED, RF_TILE_TIMED, RF_TILE_CACHED } rf_tile_origin;

typedef struct rf_tile_entry {
    int dk;
    rf_attn_tile tile;
    rf_tile_origin origin;
    double seconds[RF_ATTN_TILES];   /* each candidate's time (0 unless timed or cached) */
} rf_tile_entry;

/* "default", "forced", "timed now", "from the cache". */
const char *rf_tile_origin_name(rf_tile_origin o);

/* This process's choices, up to max of them; returns how many there are. */
int rf_tiles_entries(rf_tile_entry *out, int max);
/* Forget every choice and RF_TILES: the next choice reads both again. */
void rf_tiles_forget(void);
/* The choices, one line each (for `bench --profile`). */
void rf_tiles_report(FILE *f);

#endif
