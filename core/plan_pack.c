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
 * split among the sets of many levels, its buffers' intervals being split
 * onto different nodes, in ranges that alternate between the sets (BLRP's
 * per-segment tensors kept from the forward pass to the backward: hundreds
 * of moves a buffer at a million tokens). So each node from SKIP_LEVEL up
 * keeps the last stretch of offsets its own and its ancestors' sets were
 * found to block for the current room, and a search going down a path
 * jumps over it; the search alternates between the sets alive at `birth`
 * and the born sets until neither moves o. A jump passes only blocked
 * offsets, so the answer is the same.
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
 * With `drop`, sets passed by leave cur (*n shrinks; their order changes);
 * without, they stay, never again in the way (start SIZE_MAX). (Looking at
 * the first such set in order beats keeping them in a heap on their next
 * start: there are a few dozen.) */
static size_t lowest_clear(set_cursor *cur, int *n, size_t o, size_t room, bool drop)
{
    for (;;) {
        int k = 0;
        while (k < *n && cur[k].start >= o + room)
            k++;
        if (k == *n)
            return o;
        set_cursor *c = &cur[k];
        if (c->end <= o) {
            cursor_load(c, rf_range_first_ending_above(c->items, c->at + 1, c->count, o));
        } else {
            o = c->end;
            cursor_load(c, c->at + 1);
        }
        if (drop && c->at == c->count)
            *c = cur[--*n];
    }
}

/* ---- the segment tree over (compressed) time slots ---- */

/* A node's two sets side by side: a placement queries own and updates born
 * along the same path. */
typedef struct slot_node {
    rf_range_set own, born;
} slot_node;

/* A stretch of offsets [from, to) that holds no place for a buffer of
 * `room` among the own sets of a node and its ancestors (sets that hold for
 * every slot under the node). Sets only grow, so it stays true while the
 * room stays; rooms only shrink in the placement order, so a stretch kept
 * for another room is stale (a smaller buffer may fit a gap the larger
 * could not). All 0: none. */
typedef struct slot_skip {
    uint32_t room, from, to;
} slot_skip;

typedef struct slot_tree {
    int leaves;              /* a power of two */
    int depth;               /* log2(leaves): the leaves' level */
    slot_node *nodes;        /* per node (1 .. 2 * leaves - 1) */
    slot_skip *skips;        /* per node 1 .. skipping - 1: the upper levels */
    int skipping;
} slot_tree;

/* Nodes this many levels above the leaves and higher keep a stretch to
 * skip: below, a node's slots are few and its sets small. */
#define SKIP_LEVEL 4

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

/* The own sets of the path from the root down to a leaf lo: the sets of
 * every buffer alive at lo. cur holds their cursors in that order, and
 * upto[i] counts those of the path's first i + 1 nodes. */
typedef struct alive_path {
    int levels;
    int node[32], upto[32];
    set_cursor cur[32];
} alive_path;

static void path_start(alive_path *p, const slot_tree *tree, const rf_range_sets *sets, int lo)
{
    int n = 0;
    p->levels = tree->depth + 1;
    for (int i = 0; i < p->levels; i++) {
        p->node[i] = (tree->leaves + lo) >> (tree->depth - i);
        n = cursor_add(sets, &tree->nodes[p->node[i]].own, p->cur, n, 0);
        p->upto[i] = n;
    }
}

/* The lowest offset from o on where `room` clears the path's sets, given
 * that none below o does. A long-lived stack of buffers is split among the
 * sets of many levels, in ranges that alternate between them, so stepping
 * over it costs a move a range; going down the path, each node's stretch
 * lets o past it at once, and each node then keeps the stretch it stepped
 * over among its own and its ancestors' sets, for the next buffer under
 * it. */
static size_t lowest_clear_alive(const slot_tree *tree, alive_path *p, size_t o, size_t room)
{
    int clear_upto = 0;   /* the cursors known clear at o */
    for (int i = 0; i < p->levels; i++) {
        int v = p->node[i], n = p->upto[i];
        if (v >= tree->skipping)
            continue;
        slot_skip *s = &tree->skips[v];
        size_t from = o;
        if (s->room == room && s->from <= o && o < s->to) {
            from = s->from;
            o = s->to;
        } else if (n == clear_upto) {
            continue;   /* no new set, o unmoved */
        }
        o = lowest_clear(p->cur, &n, o, room, false);
        clear_upto = n;
        if (from < o && room <= UINT32_MAX && o <= UINT32_MAX)
            *s = (slot_skip){(uint32_t)room, (uint32_t)from, (uint32_t)o};
    }
    int n = p->upto[p->levels - 1];
    return lowest_clear(p->cur, &n, o, room, false);
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
    tree.skipping = (tree.leaves >> SKIP_LEVEL) * 2;   /* the nodes at level >= SKIP_LEVEL */
    tree.skips = calloc((size_t)tree.skipping + 1, sizeof *tree.skips);
    rf_range_sets sets = {0};
    bool failed = distinct < 0 || tree.nodes == NULL || tree.skips == NULL;

    size_t total = 0;
    alive_path path;
    set_cursor born[2 * 32];   /* at most 2 sets per tree level */
    for (size_t b = 0; b < count && !failed; b++) {
        size_t room = rf_plan_round_up(buf[b].floats) / RF_PLAN_ALIGN_FLOATS;
        int lo = slots[2 * b], hi = slots[2 * b + 1];
        buf[b].offset = 0;
        if (room == 0)
            continue;
        /* clear of the buffers alive at lo and of those born in (lo, hi],
         * in turn until neither moves o */
        path_start(&path, &tree, &sets, lo);
        size_t o = lowest_clear_alive(&tree, &path, 0, room);
        int n = 0;
        for (int l = tree.leaves + lo + 1, r = tree.leaves + hi + 1; l < r; l /= 2, r /= 2) {
            if (l & 1)
                n = cursor_add(&sets, &tree.nodes[l++].born, born, n, o);
            if (r & 1)
                n = cursor_add(&sets, &tree.nodes[--r].born, born, n, o);
        }
        for (;;) {
            size_t past_born = lowest_clear(born, &n, o, room, true);
            if (past_born == o)
                break;
            o = lowest_clear_alive(&tree, &path, past_born, room);
            if (o == past_born)
                break;
        }
        buf[b].offset = o * RF_PLAN_ALIGN_FLOATS;
        if (o + room > total)
            total = o + room;
        for (int l = tree.leaves + lo, r = tree.leaves + hi + 1; l < r; l /= 2, r /= 2) {
            if (l & 1)
                failed |= !rf_range_set_add(&sets, &tree.nodes[l++].own, o, o + room);
            if (r & 1)
                failed |= !rf_range_set_add(&sets, &tree.nodes[--r].own, o, o + room);
        }
        /* born[v] holds born[2v] and born[2v + 1]: once a set on the way
         * up covers the range, so do all above it */
        for (int v = tree.leaves + lo; v >= 1 && !rf_range_set_covers(&sets, &tree.nodes[v].born, o, o + room); v /= 2)
            failed |= !rf_range_set_add(&sets, &tree.nodes[v].born, o, o + room);
    }
    rf_range_sets_free(&sets);
    free(tree.nodes);
    free(tree.skips);
    free(slots);
    return failed ? SIZE_MAX : total * RF_PLAN_ALIGN_FLOATS;
}
