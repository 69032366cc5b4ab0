/* Greedy first-fit placement through interval sets over time.
 *
 * The lowest free offset for a buffer b alive over slots [birth, death] is
 * the lowest o whose [o, o + room) misses the offsets of every placed
 * buffer q that meets b in time. Scanning every placed buffer for that is
 * quadratic (BLRP at a million tokens has 1.7 million buffers, 2.6
 * million under train.recompute = segments).
 * Instead, q meets [birth, death] exactly when q is alive at `birth` or q
 * is born in (birth, death]; both are found through a segment tree over
 * the time slots:
 *   own[v]   the union of the offset ranges of the placed buffers whose
 *            live interval the tree splits onto node v (its canonical
 *            nodes): those alive at slot t lie on the path from t's leaf to
 *            the root;
 *   born[v]  the union of the offset ranges of the placed buffers born in
 *            v's range of slots: those born in (birth, death] lie in the
 *            canonical nodes of that range.
 * Each union is a set of disjoint, non-touching offset ranges, so a stack
 * of buffers alive together is one range, stepped over at once. Placing a
 * buffer adds its range to O(log n) sets; finding its offset starts at 0
 * and moves past any range that overlaps [o, o + room) in any of the
 * O(log n) sets, until none does: one binary search per set, then one step
 * along a set's ranges per move. That is the lowest such offset, the one
 * the quadratic scan finds, so the placement and the arena are the same as
 * the scan's, buffer for buffer (the moves per buffer are bounded by the
 * ranges in the way, not by the buffers placed).
 *
 * A stack alive together is one range within a set, but one stack is often
 * split among the sets of many levels, its buffers' intervals falling on
 * different nodes, in ranges that alternate between the sets (BLRP's
 * per-segment tensors kept from the forward pass to the backward: hundreds
 * of moves a buffer at a million tokens). So the search reads the own sets
 * of a path's upper nodes, from the root down to UNION_LEVEL, as one
 * union, where such a stack is one range again. The unions are kept for
 * the last path searched, one per level, each made from the one above, and
 * a placement adds its range to those holding a set it goes into; the
 * next path remakes them from the first node it does not share. The union
 * holds the same offsets as its sets, so the answer is the same.
 *
 * A set is a sorted array of ranges in one shared pool (range_sets.h), not
 * a tree of separately placed nodes: the moves, which dominate, step
 * through consecutive memory. A born set holds its children's, so adding a
 * range to the born sets on the way up stops at the first that covers it.
 * Sizes are in units of RF_PLAN_ALIGN_FLOATS from rf_plan_pack on (`room`):
 * only the rounded room of a buffer matters here.
 */
#include "plan_pack.h"

#include <stdlib.h>
#include <string.h>

#include "range_sets.h"

size_t rf_plan_round_up(size_t floats)
{
    return (floats + RF_PLAN_ALIGN_FLOATS - 1) / RF_PLAN_ALIGN_FLOATS * RF_PLAN_ALIGN_FLOATS;
}

/* The placement order as a function the sort below can inline. */
static inline int buffer_order(const rf_plan_buffer *x, const rf_plan_buffer *y)
{
    if (x->floats != y->floats)
        return x->floats < y->floats ? 1 : -1;
    if (x->birth != y->birth)
        return x->birth < y->birth ? -1 : 1;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    /* a node lists its value, then its aux, then its grad */
    static const int listed[3] = {0, 2, 1};
    return listed[x->kind] - listed[y->kind];
}

int rf_plan_buffer_order(const void *a, const void *b)
{
    return buffer_order(a, b);
}

/* ---- sorting into that order: a merge sort, twice as fast as qsort's
 * calls through a pointer on millions of buffers ---- */

#define SORTED_RUN 16

static void insertion_sort(rf_plan_buffer *b, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        rf_plan_buffer x = b[i];
        size_t j = i;
        for (; j > 0 && buffer_order(&x, &b[j - 1]) < 0; j--)
            b[j] = b[j - 1];
        b[j] = x;
    }
}

static void merge(const rf_plan_buffer *a, size_t na, const rf_plan_buffer *b, size_t nb, rf_plan_buffer *out)
{
    size_t i = 0, j = 0, k = 0;
    while (i < na && j < nb)
        out[k++] = buffer_order(&b[j], &a[i]) < 0 ? b[j++] : a[i++];
    memcpy(out + k, a + i, (na - i) * sizeof *out);
    memcpy(out + k + (na - i), b + j, (nb - j) * sizeof *out);
}

static size_t at_most(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* Sort buf into rf_plan_buffer_order: runs of SORTED_RUN by insertion,
 * then merged pairwise through a copy (qsort's order where no memory for
 * one). */
static void sort_buffers(rf_plan_buffer *buf, size_t count)
{
    rf_plan_buffer *spare = malloc(count * sizeof *spare + 1);
    if (spare == NULL) {
        qsort(buf, count, sizeof *buf, rf_plan_buffer_order);
        return;
    }
    for (size_t s = 0; s < count; s += SORTED_RUN)
        insertion_sort(buf + s, at_most(SORTED_RUN, count - s));
    rf_plan_buffer *from = buf, *to = spare;
    for (size_t width = SORTED_RUN; width < count; width *= 2) {
        for (size_t lo = 0; lo < count; lo += 2 * width) {
            size_t mid = at_most(lo + width, count), hi = at_most(lo + 2 * width, count);
            merge(from + lo, mid - lo, from + mid, hi - mid, to + lo);
        }
        rf_plan_buffer *swap = from;
        from = to;
        to = swap;
    }
    if (from != buf)
        memcpy(buf, from, count * sizeof *buf);
    free(spare);
}

/* Where a set's search stands: its ranges and the first of them that may
 * still lie in the way (`at`), whose start and end are copied out (SIZE_MAX
 * once none is left) so that checking the set reads none of its memory. */
typedef struct set_cursor {
    const rf_range *items;
    uint32_t count, at;
    size_t start, end;
} set_cursor;

static void cursor_load(set_cursor *c, uint32_t at)
{
    c->at = at;
    c->start = at < c->count ? c->items[at].start : SIZE_MAX;
    c->end = at < c->count ? c->items[at].end : SIZE_MAX;
}

/* Start looking at `set` from offset o: its cursor goes to the first range
 * ending above o. Returns the new number of cursors (an empty set adds
 * none). */
static int cursor_add(const rf_range_sets *sets, const rf_range_set *set, set_cursor *cur, int n, size_t o)
{
    if (set->count == 0)
        return n;
    cur[n].items = rf_range_set_items(sets, set);
    cur[n].count = set->count;
    cursor_load(&cur[n], rf_range_first_ending_above(cur[n].items, 0, cur[n].count, o));
    return cur[n].at < cur[n].count ? n + 1 : n;
}

/* The lowest offset from o on where `room` clears every cursor's set, given
 * that none below o does. A set whose cursor's range starts below o + room
 * is looked at: if that range ends at or below o, the cursor moves, by a
 * binary search, to the first range ending above o; otherwise the range is
 * in the way, o moves to its end (no offset below that end fits) and the
 * cursor to the next range. o only grows, so cursors only move forward, and
 * o is the answer once every cursor's range starts at or above o + room.
 * (Looking at the first such set in order, and dropping the sets passed by,
 * beats keeping them in a heap on their next start: there are a few
 * dozen.) */
static size_t lowest_clear(set_cursor *cur, int n, size_t o, size_t room)
{
    for (;;) {
        int k = 0;
        while (k < n && cur[k].start >= o + room)
            k++;
        if (k == n)
            return o;
        set_cursor *c = &cur[k];
        if (c->end <= o) {
            cursor_load(c, rf_range_first_ending_above(c->items, c->at + 1, c->count, o));
        } else {
            o = c->end;
            cursor_load(c, c->at + 1);
        }
        if (c->at == c->count)
            *c = cur[--n];   /* a set passed by can no longer be in the way */
    }
}

/* ---- the segment tree over (compressed) time slots ---- */

/* A node's two sets side by side: a placement queries own and updates born
 * along the same path. */
typedef struct slot_node {
    rf_range_set own, born;
} slot_node;

typedef struct slot_tree {
    int leaves;              /* a power of two */
    int depth;               /* log2(leaves): the leaves' level */
    slot_node *nodes;        /* per node (1 .. 2 * leaves - 1) */
} slot_tree;

/* The upper nodes of a path, from the root down to this many levels above
 * the leaves, are searched through the union of their own sets. Lower, the
 * unions are remade more often (the path's node at this level changes
 * every 2^UNION_LEVEL slots); higher, more sets are searched one by one.
 * 8 to 12 plan BLRP at a million tokens fastest. */
#define UNION_LEVEL 10

/* Renumber births and deaths to 0 .. distinct - 1 in order (meeting in
 * time only compares them), so the tree has one leaf per slot in use. */
static int compress_slots(rf_plan_buffer *buf, size_t count, int *slots)
{
    int top = 0;
    for (size_t b = 0; b < count; b++)
        if (buf[b].death > top)
            top = buf[b].death;
    int *rank = calloc((size_t)top + 2, sizeof *rank);
    if (rank == NULL)
        return -1;
    for (size_t b = 0; b < count; b++)
        rank[buf[b].birth] = rank[buf[b].death] = 1;
    int used = 0;
    for (int t = 0; t <= top; t++) {
        int here = rank[t];
        rank[t] = used;
        used += here;
    }
    for (size_t b = 0; b < count; b++) {
        slots[2 * b] = rank[buf[b].birth];
        slots[2 * b + 1] = rank[buf[b].death];
    }
    free(rank);
    return used;
}

/* The own sets of the upper nodes of one path, merged: unions[i] is the
 * union of the own sets of the path's nodes from the root (i = 0) down to
 * node[i], for the nodes from the root down to UNION_LEVEL. */
typedef struct path_unions {
    int levels;                /* depth - UNION_LEVEL + 1, or 0 for a short tree */
    int node[32];              /* 0: none made */
    rf_range_set unions[32];
} path_unions;

/* Make the unions those of the path to leaf lo, from the first node where
 * that path leaves the one they were made for. Buffers are placed in order
 * of birth within each size, so the path moves along the leaves and most
 * placements remake a level or two, from the one above. */
static bool unions_follow(path_unions *pu, const slot_tree *tree, rf_range_sets *sets, int lo)
{
    static const rf_range_set none = {0};
    bool remake = false;
    for (int i = 0; i < pu->levels; i++) {
        int v = (tree->leaves + lo) >> (tree->depth - i);
        remake |= pu->node[i] != v;
        if (!remake)
            continue;
        pu->node[i] = v;
        if (!rf_range_set_union(sets, &pu->unions[i], i > 0 ? &pu->unions[i - 1] : &none, &tree->nodes[v].own)) {
            pu->node[i] = 0;
            return false;
        }
    }
    return true;
}

/* [start, end) was added to the own set of node v, `level` above the
 * leaves: add it to the unions that hold that set. */
static bool unions_add(path_unions *pu, const slot_tree *tree, rf_range_sets *sets, int v, int level, size_t start,
                       size_t end)
{
    int i = tree->depth - level;
    bool ok = true;
    if (i < pu->levels && pu->node[i] == v)
        for (; i < pu->levels; i++)
            ok &= rf_range_set_add(sets, &pu->unions[i], start, end);
    return ok;
}

size_t rf_plan_pack(rf_plan_buffer *buf, size_t count)
{
    sort_buffers(buf, count);
    int *slots = malloc((2 * count + 1) * sizeof *slots);
    int distinct = slots != NULL ? compress_slots(buf, count, slots) : -1;
    slot_tree tree = {.leaves = 1};
    while (distinct > 0 && tree.leaves < distinct)
        tree.leaves *= 2;
    while (tree.leaves >> tree.depth > 1)
        tree.depth++;
    tree.nodes = calloc(2 * (size_t)tree.leaves, sizeof *tree.nodes);
    rf_range_sets sets = {0};
    bool failed = distinct < 0 || tree.nodes == NULL;

    size_t total = 0;
    path_unions path = {.levels = tree.depth >= UNION_LEVEL ? tree.depth - UNION_LEVEL + 1 : 0};
    set_cursor cursor[3 * 32];   /* at most 3 sets per tree level */
    for (size_t b = 0; b < count && !failed; b++) {
        size_t room = rf_plan_round_up(buf[b].floats) / RF_PLAN_ALIGN_FLOATS;
        int lo = slots[2 * b], hi = slots[2 * b + 1];
        buf[b].offset = 0;
        if (room == 0)
            continue;
        /* the sets of buffers alive at lo (the upper nodes' as one union),
         * and of those born in (lo, hi] */
        if (!unions_follow(&path, &tree, &sets, lo)) {
            failed = true;
            break;
        }
        int n = 0;
        if (path.levels > 0)
            n = cursor_add(&sets, &path.unions[path.levels - 1], cursor, n, 0);
        for (int level = tree.depth - path.levels; level >= 0; level--)
            n = cursor_add(&sets, &tree.nodes[(tree.leaves + lo) >> level].own, cursor, n, 0);
        for (int l = tree.leaves + lo + 1, r = tree.leaves + hi + 1; l < r; l /= 2, r /= 2) {
            if (l & 1)
                n = cursor_add(&sets, &tree.nodes[l++].born, cursor, n, 0);
            if (r & 1)
                n = cursor_add(&sets, &tree.nodes[--r].born, cursor, n, 0);
        }
        size_t o = lowest_clear(cursor, n, 0, room);
        buf[b].offset = o * RF_PLAN_ALIGN_FLOATS;
        if (o + room > total)
            total = o + room;
        for (int l = tree.leaves + lo, r = tree.leaves + hi + 1, level = 0; l < r; l /= 2, r /= 2, level++) {
            if (l & 1) {
                failed |= !rf_range_set_add(&sets, &tree.nodes[l].own, o, o + room);
                failed |= !unions_add(&path, &tree, &sets, l++, level, o, o + room);
            }
            if (r & 1) {
                failed |= !rf_range_set_add(&sets, &tree.nodes[--r].own, o, o + room);
                failed |= !unions_add(&path, &tree, &sets, r, level, o, o + room);
            }
        }
        /* born[v] holds born[2v] and born[2v + 1]: once a set on the way
         * up covers the range, so do all above it */
        for (int v = tree.leaves + lo; v >= 1 && !rf_range_set_covers(&sets, &tree.nodes[v].born, o, o + room); v /= 2)
            failed |= !rf_range_set_add(&sets, &tree.nodes[v].born, o, o + room);
    }
    rf_range_sets_free(&sets);
    free(tree.nodes);
    free(slots);
    return failed ? SIZE_MAX : total * RF_PLAN_ALIGN_FLOATS;
}
