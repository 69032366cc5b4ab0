/* Sets of disjoint, non-touching ranges [start, end), each a sorted array
 * in one shared pool: the memory planner's unions of placed buffers
 * (core/plan_pack.c), many small sets and a few large ones. A search is a
 * binary search and a walk along a set reads consecutive memory; adding a
 * range merges what it overlaps or touches and moves the set's later
 * ranges by one (a memmove of at most the set). Blocks come in
 * power-of-two capacities, recycled through one free list per capacity,
 * so no set allocates on its own. */
#ifndef RF_RANGE_SETS_H
#define RF_RANGE_SETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct rf_range {
    size_t start, end;
} rf_range;

/* One set: count ranges from pool[at], in a block of 1 << capacity_log2
 * (a zeroed set is empty). */
typedef struct rf_range_set {
    uint32_t at;
    uint32_t count : 27, capacity_log2 : 5;
} rf_range_set;

#define RF_RANGE_SET_CLASSES 28   /* capacities 1 .. 1 << 27 */

typedef struct rf_range_sets {
    rf_range *pool;
    size_t used, capacity;
    uint32_t free_block[RF_RANGE_SET_CLASSES];   /* first free block per class, plus one; 0 for none */
} rf_range_sets;

/* The set's ranges, in order; valid until the next rf_range_set_add. */
static inline const rf_range *rf_range_set_items(const rf_range_sets *sets, const rf_range_set *set)
{
    return sets->pool + set->at;
}

/* The first index i >= from below count whose range ends above o (count if
 * none): ranges are disjoint and sorted, so their ends ascend. */
static inline uint32_t rf_range_first_ending_above(const rf_range *r, uint32_t from, uint32_t count, size_t o)
{
    if (from >= count || r[from].end > o)
        return from;
    uint32_t lo = from + 1, hi = count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r[mid].end > o)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The first index whose range starts above key (count if none). */
static inline uint32_t rf_range_first_starting_above(const rf_range *r, uint32_t count, size_t key)
{
    uint32_t lo = 0, hi = count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r[mid].start > key)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Whether one of set's ranges holds all of [start, end). */
static inline bool rf_range_set_covers(const rf_range_sets *sets, const rf_range_set *set, size_t start, size_t end)
{
    if (set->count == 0)
        return false;
    const rf_range *r = rf_range_set_items(sets, set);
    uint32_t after = rf_range_first_starting_above(r, set->count, start);
    return after > 0 && r[after - 1].end >= end;
}

/* Add [start, end) (start < end) to set, merging the ranges it overlaps or
 * touches; false when out of memory (the set is then unchanged). */
bool rf_range_set_add(rf_range_sets *sets, rf_range_set *set, size_t start, size_t end);

/* Make dst the union of a and b (dst neither of them), touching or
 * overlapping ranges merged; false when out of memory (dst then empty). */
bool rf_range_set_union(rf_range_sets *sets, rf_range_set *dst, const rf_range_set *a, const rf_range_set *b);

void rf_range_sets_free(rf_range_sets *sets);

#endif
