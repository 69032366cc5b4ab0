/* Greedy first-fit placement through interval sets over time.
 *
 * The lowest free offset for a buffer b alive over slots [birth, death] is
 * the lowest o whose [o, o + room) misses the offsets of every placed
 * buffer q that meets b in time. Scanning every placed buffer for that is
 * quadratic (BLRP at a million tokens has about 1.7 million buffers).
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
 * Each union is a set of disjoint, non-touching offset ranges in a treap,
 * so a stack of buffers alive together is one range, stepped over at
 * once. Placing a buffer adds its range to O(log n) sets (O(log n) each,
 * so O(n log^2 n) time for n buffers, O(n log n) space at worst);
 * finding its offset starts at 0 and moves past any range that overlaps
 * [o, o + room) in any of the O(log n) sets, until none does: one lookup
 * per set, then one step along a set's ranges per move. That is the
 * lowest such offset, the one the quadratic scan finds, so the placement
 * and the arena are the same as the scan's, buffer for buffer (the moves
 * per buffer are bounded by the ranges in the way, a few dozen for BLRP at
 * a million tokens, not by the buffers placed).
 */
#include "plan_pack.h"

#include <stdlib.h>

size_t rf_plan_round_up(size_t floats)
{
    return (floats + RF_PLAN_ALIGN_FLOATS - 1) / RF_PLAN_ALIGN_FLOATS * RF_PLAN_ALIGN_FLOATS;
}

int rf_plan_buffer_order(const void *a, const void *b)
{
    const rf_plan_buffer *x = a, *y = b;
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

/* ---- a set of disjoint offset ranges [start, end), as a treap ---- */

typedef struct span {
    size_t start, end;
    uint32_t priority;
    int32_t left, right;    /* indices into the pool, -1 for none */
    int32_t after;          /* the next span of the set up, -1 for none */
} span;

typedef struct span_pool {
    span *at;
    int32_t used, capacity, free_list;   /* freed spans chain through .left */
    uint32_t random;
    bool failed;
} span_pool;

static int32_t span_new(span_pool *p, size_t start, size_t end)
{
    int32_t i = p->free_list;
    if (i >= 0) {
        p->free_list = p->at[i].left;
    } else {
        if (p->used == p->capacity) {
            int32_t cap = p->capacity ? 2 * p->capacity : 4096;
            span *grown = realloc(p->at, (size_t)cap * sizeof *grown);
            if (grown == NULL) {
                p->failed = true;
                return -1;
            }
            p->at = grown;
            p->capacity = cap;
        }
        i = p->used++;
    }
    p->random ^= p->random << 13;   /* xorshift32: a fixed seed, the same tree every run */
    p->random ^= p->random >> 17;
    p->random ^= p->random << 5;
    p->at[i] = (span){start, end, p->random, -1, -1, -1};
    return i;
}

static void span_free_tree(span_pool *p, int32_t t)
{
    if (t < 0)
        return;
    span_free_tree(p, p->at[t].left);
    span_free_tree(p, p->at[t].right);
    p->at[t].left = p->free_list;
    p->free_list = t;
}

/* Split t into the spans starting below `key` and the rest. */
static void span_split(span_pool *p, int32_t t, size_t key, int32_t *below, int32_t *rest)
{
    if (t < 0) {
        *below = *rest = -1;
    } else if (p->at[t].start < key) {
        span_split(p, p->at[t].right, key, &p->at[t].right, rest);
        *below = t;
    } else {
        span_split(p, p->at[t].left, key, below, &p->at[t].left);
        *rest = t;
    }
}

/* Join two treaps, every start in a below every start in b. */
static int32_t span_join(span_pool *p, int32_t a, int32_t b)
{
    if (a < 0)
        return b;
    if (b < 0)
        return a;
    if (p->at[a].priority > p->at[b].priority) {
        p->at[a].right = span_join(p, p->at[a].right, b);
        return a;
    }
    p->at[b].left = span_join(p, a, p->at[b].left);
    return b;
}

static int32_t span_first(const span_pool *p, int32_t t)
{
    while (t >= 0 && p->at[t].left >= 0)
        t = p->at[t].left;
    return t;
}

static int32_t span_last(const span_pool *p, int32_t t)
{
    while (t >= 0 && p->at[t].right >= 0)
        t = p->at[t].right;
    return t;
}

/* The span starting at or below `o` with the highest start, and the first
 * starting above it (-1 where none). */
static void span_around(const span_pool *p, int32_t t, size_t o, int32_t *floor, int32_t *above)
{
    *floor = *above = -1;
    while (t >= 0) {
        if (p->at[t].start <= o) {
            *floor = t;
            t = p->at[t].right;
        } else {
            *above = t;
            t = p->at[t].left;
        }
    }
}

/* Add [start, end) to the set rooted at *root, merging what it overlaps or touches. */
static void span_add(span_pool *p, int32_t *root, size_t start, size_t end)
{
    int32_t floor, above;
    span_around(p, *root, start, &floor, &above);
    if (floor >= 0 && p->at[floor].end >= end)
        return;   /* already covered */
    int32_t below, inside, rest;
    span_split(p, *root, start, &below, &rest);
    span_split(p, rest, end + 1, &inside, &rest);   /* starts in [start, end] */
    int32_t last = span_last(p, inside);
    if (last >= 0 && p->at[last].end > end)
        end = p->at[last].end;
    span_free_tree(p, inside);
    last = span_last(p, below);
    if (last >= 0 && p->at[last].end >= start) {
        start = p->at[last].start;
        if (p->at[last].end > end)
            end = p->at[last].end;
        span_split(p, below, start, &below, &inside);
        span_free_tree(p, inside);
    }
    int32_t joined = span_new(p, start, end);
    if (joined < 0)
        return;
    int32_t before = span_last(p, below);
    p->at[joined].after = span_first(p, rest);
    if (before >= 0)
        p->at[before].after = joined;
    *root = span_join(p, span_join(p, below, joined), rest);
}

/* The set's first span ending above o, or -1. */
static int32_t span_seek(const span_pool *p, int32_t root, size_t o)
{
    int32_t floor, above;
    span_around(p, root, o, &floor, &above);
    return floor >= 0 && p->at[floor].end > o ? floor : above;
}

/* The lowest offset o from which room floats clear every set. Per set, a
 * cursor holds its first span that may still lie in the way and next its
 * start: the set is looked at only once o + room passes next; a span in
 * the way moves o to its end and the cursor to the span after it, and a
 * cursor left behind o is sought again from the set's root. */
static size_t lowest_clear(const span_pool *p, const int32_t *sets, int32_t *cursor, size_t *next, int n,
                           size_t room)
{
    size_t o = 0;
    for (int k = 0; k < n; k++) {
        cursor[k] = -1;
        next[k] = 0;
    }
    for (;;) {
        int k = 0;
        while (k < n && next[k] >= o + room)
            k++;
        if (k == n)
            return o;
        int32_t c = cursor[k];
        if (c < 0 || p->at[c].end <= o)
            c = span_seek(p, sets[k], o);
        if (c >= 0 && p->at[c].start < o + room) {
            o = p->at[c].end;
            c = p->at[c].after;
        }
        cursor[k] = c;
        next[k] = c >= 0 ? p->at[c].start : SIZE_MAX;
    }
}

/* ---- the segment tree over (compressed) time slots ---- */

typedef struct slot_tree {
    int leaves;          /* a power of two */
    int32_t *own, *born; /* set roots per node (1 .. 2 * leaves - 1), -1 empty */
} slot_tree;

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

static int keep_set(int32_t *sets, int n, int32_t root)
{
    if (root >= 0)
        sets[n++] = root;
    return n;
}

size_t rf_plan_pack(rf_plan_buffer *buf, size_t count)
{
    qsort(buf, count, sizeof *buf, rf_plan_buffer_order);
    int *slots = malloc((2 * count + 1) * sizeof *slots);
    int distinct = slots != NULL ? compress_slots(buf, count, slots) : -1;
    slot_tree tree = {.leaves = 1};
    while (distinct > 0 && tree.leaves < distinct)
        tree.leaves *= 2;
    tree.own = malloc(2 * (size_t)tree.leaves * sizeof *tree.own);
    tree.born = malloc(2 * (size_t)tree.leaves * sizeof *tree.born);
    span_pool pool = {.free_list = -1, .random = 2463534242u};
    pool.failed = distinct < 0 || tree.own == NULL || tree.born == NULL;
    for (int v = 0; !pool.failed && v < 2 * tree.leaves; v++)
        tree.own[v] = tree.born[v] = -1;

    size_t total = 0;
    int32_t sets[3 * 32];   /* at most 3 per tree level */
    int32_t cursor[3 * 32];
    size_t next[3 * 32];
    for (size_t b = 0; b < count && !pool.failed; b++) {
        size_t room = rf_plan_round_up(buf[b].floats);
        int lo = slots[2 * b], hi = slots[2 * b + 1];
        buf[b].offset = 0;
        if (room == 0)
            continue;
        /* the sets of buffers alive at lo, and of those born in (lo, hi] */
        int n = 0;
        for (int v = tree.leaves + lo; v >= 1; v /= 2)
            n = keep_set(sets, n, tree.own[v]);
        for (int l = tree.leaves + lo + 1, r = tree.leaves + hi + 1; l < r; l /= 2, r /= 2) {
            if (l & 1)
                n = keep_set(sets, n, tree.born[l++]);
            if (r & 1)
                n = keep_set(sets, n, tree.born[--r]);
        }
        size_t o = lowest_clear(&pool, sets, cursor, next, n, room);
        buf[b].offset = o;
        if (o + room > total)
            total = o + room;
        for (int l = tree.leaves + lo, r = tree.leaves + hi + 1; l < r; l /= 2, r /= 2) {
            if (l & 1)
                span_add(&pool, &tree.own[l++], o, o + room);
            if (r & 1)
                span_add(&pool, &tree.own[--r], o, o + room);
        }
        for (int v = tree.leaves + lo; v >= 1; v /= 2)
            span_add(&pool, &tree.born[v], o, o + room);
    }
    bool failed = pool.failed;
    free(pool.at);
    free(tree.own);
    free(tree.born);
    free(slots);
    return failed ? SIZE_MAX : total;
}
