/* Range sets as sorted arrays in one pool: see range_sets.h. */
#include "range_sets.h"

#include <stdlib.h>
#include <string.h>

/* A block of 1 << c ranges at pool index `at`: from the class's free list,
 * else from the end of the pool (grown by doubling). UINT32_MAX when out
 * of memory or past 32-bit indices. */
static uint32_t block_new(rf_range_sets *sets, unsigned c)
{
    uint32_t head = sets->free_block[c];
    if (head != 0) {
        sets->free_block[c] = (uint32_t)sets->pool[head - 1].start;   /* the list's link */
        return head - 1;
    }
    size_t size = (size_t)1 << c;
    if (sets->used + size > UINT32_MAX)
        return UINT32_MAX;
    if (sets->used + size > sets->capacity) {
        size_t cap = sets->capacity ? sets->capacity : 4096;
        while (cap < sets->used + size)
            cap *= 2;
        rf_range *grown = realloc(sets->pool, cap * sizeof *grown);
        if (grown == NULL)
            return UINT32_MAX;
        sets->pool = grown;
        sets->capacity = cap;
    }
    uint32_t at = (uint32_t)sets->used;
    sets->used += size;
    return at;
}

/* A block for `ranges` ranges, its class in *c (block_new's UINT32_MAX on failure). */
static uint32_t block_for(rf_range_sets *sets, uint32_t ranges, unsigned *c)
{
    *c = 0;
    while ((1u << *c) < ranges)
        (*c)++;
    return block_new(sets, *c);
}

static void block_free(rf_range_sets *sets, uint32_t at, unsigned c)
{
    sets->pool[at].start = sets->free_block[c];
    sets->free_block[c] = at + 1;
}

bool rf_range_set_add(rf_range_sets *sets, rf_range_set *set, size_t start, size_t end)
{
    uint32_t count = set->count;
    const rf_range *r = count > 0 ? rf_range_set_items(sets, set) : NULL;   /* the pool may not exist yet */
    uint32_t after = rf_range_first_starting_above(r, count, start);
    if (after > 0 && r[after - 1].end >= end)
        return true;   /* already covered */
    /* ranges [first, last) merge into one: the one before start if it
     * reaches start, and those starting in [start, end] */
    uint32_t first = after > 0 && r[after - 1].end >= start ? after - 1 : after;
    uint32_t last = after;
    while (last < count && r[last].start <= end)
        last++;
    rf_range merged = {first < after ? r[first].start : start, end};
    if (last > first && r[last - 1].end > merged.end)
        merged.end = r[last - 1].end;

    uint32_t grown = count - (last - first) + 1;
    if (grown >= 1u << 27)
        return false;   /* past what a set's count holds */
    if (count > 0 && grown <= (1u << set->capacity_log2)) {
        rf_range *w = sets->pool + set->at;
        memmove(w + first + 1, w + last, (count - last) * sizeof *w);
        w[first] = merged;
        set->count = grown;
        return true;
    }
    unsigned c;
    uint32_t at = block_for(sets, grown, &c);
    if (at == UINT32_MAX)
        return false;
    rf_range *w = sets->pool + at, *old = sets->pool + set->at;   /* the pool may have moved */
    if (count > 0) {
        memcpy(w, old, first * sizeof *w);
        memcpy(w + first + 1, old + last, (count - last) * sizeof *w);
        block_free(sets, set->at, set->capacity_log2);
    }
    w[first] = merged;
    *set = (rf_range_set){at, grown, c};
    return true;
}

bool rf_range_set_union(rf_range_sets *sets, rf_range_set *dst, const rf_range_set *a, const rf_range_set *b)
{
    if (dst->count > 0)   /* a set with a block holds a range */
        block_free(sets, dst->at, dst->capacity_log2);
    *dst = (rf_range_set){0};
    uint32_t need = a->count + b->count;
    if (need == 0)
        return true;
    if (need >= 1u << 27)
        return false;
    unsigned c;
    uint32_t at = block_for(sets, need, &c);
    if (at == UINT32_MAX)
        return false;
    const rf_range *x = sets->pool + a->at, *y = sets->pool + b->at;   /* after the pool may have moved */
    rf_range *w = sets->pool + at;
    uint32_t i = 0, j = 0, n = 0;
    while (i < a->count || j < b->count) {
        rf_range next = j == b->count || (i < a->count && x[i].start <= y[j].start) ? x[i++] : y[j++];
        if (n > 0 && next.start <= w[n - 1].end) {
            if (next.end > w[n - 1].end)
                w[n - 1].end = next.end;
        } else {
            w[n++] = next;
        }
    }
    *dst = (rf_range_set){at, n, c};
    return true;
}

void rf_range_sets_free(rf_range_sets *sets)
{
    free(sets->pool);
    *sets = (rf_range_sets){0};
}
