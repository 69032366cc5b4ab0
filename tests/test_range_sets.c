/* The memory planner's range sets (core/range_sets.h) against a bitmap of
 * the offsets they hold: after every add, many sets sharing one pool (so
 * blocks grow, move and are reused), each set holds exactly the offsets
 * added to it, as sorted, disjoint, non-touching ranges (touching or
 * overlapping ranges merged into one), and rf_range_set_covers and
 * rf_range_first_ending_above answer as the bitmap does; a union of two
 * sets (rf_range_set_union, remade again and again in a few sets that are
 * also added to) holds the offsets of both. */
#include <stdlib.h>

#include "../core/range_sets.h"
#include "../core/rng.h"
#include "tap.h"

#define SETS 40
#define SPACE 600   /* offsets 0 .. SPACE - 1 */
#define ADDS 6000
#define UNIONS 4

typedef struct model_set {
    bool held[SPACE];
} model_set;

static uint32_t below(rf_rng *rng, uint32_t n)
{
    return (uint32_t)rf_rng_next(rng) % n;
}

/* Why set's ranges are not the model's offsets as merged ranges, or NULL. */
static const char *differs(const rf_range_sets *sets, const rf_range_set *set, const model_set *model)
{
    const rf_range *r = rf_range_set_items(sets, set);
    uint32_t i = 0;
    for (size_t o = 0; o < SPACE;) {
        if (!model->held[o]) {
            o++;
            continue;
        }
        size_t end = o;
        while (end < SPACE && model->held[end])
            end++;
        if (i == set->count)
            return "a run of offsets is missing";
        if (r[i].start != o || r[i].end != end)
            return "a range is not the run of offsets it should be";
        i++;
        o = end;
    }
    return i == set->count ? NULL : "more ranges than runs of offsets";
}

static bool model_covers(const model_set *model, size_t start, size_t end)
{
    for (size_t o = start; o < end; o++)
        if (!model->held[o])
            return false;
    return true;
}

/* The first range (counting from `from`) ending above o, by a walk. */
static uint32_t walk_first_ending_above(const rf_range *r, uint32_t from, uint32_t count, size_t o)
{
    while (from < count && r[from].end <= o)
        from++;
    return from;
}

int main(void)
{
    rf_rng rng = {7};
    rf_range_sets sets = {0};
    rf_range_set set[SETS] = {{0}};
    model_set *model = calloc(SETS, sizeof *model);
    rf_range_set joined[UNIONS] = {{0}};
    model_set *joined_model = calloc(UNIONS, sizeof *joined_model);
    int wrong = 0, covers_wrong = 0, seek_wrong = 0, failed = 0, merges = 0, touching = 0;
    int unions = 0, union_wrong = 0, union_merged = 0;
    const char *why = NULL, *union_why = NULL;
    for (int a = 0; a < ADDS; a++) {
        int k = (int)below(&rng, SETS);
        /* short ranges mostly, so that sets hold many; some long ones merge many */
        size_t start = below(&rng, SPACE - 1);
        size_t len = 1 + (below(&rng, 10) == 0 ? below(&rng, 120) : below(&rng, 6));
        size_t end = start + len < SPACE ? start + len : SPACE;
        uint32_t before = set[k].count;
        touching += (start > 0 && model[k].held[start - 1]) || (end < SPACE && model[k].held[end]);
        if (!rf_range_set_add(&sets, &set[k], start, end))
            failed++;
        merges += set[k].count <= before;
        for (size_t o = start; o < end; o++)
            model[k].held[o] = true;
        const char *d = differs(&sets, &set[k], &model[k]);
        if (d != NULL && why == NULL)
            why = d;
        wrong += d != NULL;
        /* a union remade from two sets (the same one, or the empty one, at
         * times), or the range added to one */
        int j = (int)below(&rng, UNIONS);
        if (below(&rng, 3) == 0) {
            int x = (int)below(&rng, SETS), y = below(&rng, 8) == 0 ? x : (int)below(&rng, SETS);
            static const rf_range_set none = {0};
            const rf_range_set *second = below(&rng, 8) == 0 ? &none : &set[y];
            failed += !rf_range_set_union(&sets, &joined[j], &set[x], second);
            unions++;
            union_merged += joined[j].count < set[x].count + second->count;
            for (size_t o = 0; o < SPACE; o++)
                joined_model[j].held[o] = model[x].held[o] || (second != &none && model[y].held[o]);
        } else {
            failed += !rf_range_set_add(&sets, &joined[j], start, end);
            for (size_t o = start; o < end; o++)
                joined_model[j].held[o] = true;
        }
        d = differs(&sets, &joined[j], &joined_model[j]);
        if (d != NULL && union_why == NULL)
            union_why = d;
        union_wrong += d != NULL;
        /* a query on another set, against the bitmap and a walk */
        int q = (int)below(&rng, SETS);
        size_t qs = below(&rng, SPACE - 1), qe = qs + 1 + below(&rng, 20);
        qe = qe < SPACE ? qe : SPACE;
        covers_wrong += rf_range_set_covers(&sets, &set[q], qs, qe) != model_covers(&model[q], qs, qe);
        const rf_range *r = rf_range_set_items(&sets, &set[q]);
        uint32_t from = set[q].count ? below(&rng, set[q].count) : 0;
        seek_wrong += rf_range_first_ending_above(r, from, set[q].count, qs) !=
                      walk_first_ending_above(r, from, set[q].count, qs);
    }
    uint32_t most = 0;
    for (int k = 0; k < SETS; k++)
        most = set[k].count > most ? set[k].count : most;
    tap_ok(failed == 0, "%d adds, none out of memory (%d failed)", ADDS, failed);
    tap_ok(wrong == 0, "every set holds exactly the offsets added to it, as merged ranges, after every add "
           "(%d wrong%s%s)", wrong, why ? ": " : "", why ? why : "");
    tap_ok(merges > ADDS / 10 && touching > ADDS / 10 && most > 16,
           "the adds exercised merging (%d merged, %d touched a neighbour) and growth (largest set %u ranges)",
           merges, touching, most);
    tap_ok(covers_wrong == 0, "rf_range_set_covers answers as the offsets do (%d wrong)", covers_wrong);
    tap_ok(seek_wrong == 0, "rf_range_first_ending_above finds what a walk finds (%d wrong)", seek_wrong);
    tap_ok(union_wrong == 0 && unions > ADDS / 4 && union_merged > unions / 2,
           "%d unions, remade and added to, hold exactly the offsets of both sets (%d wrong%s%s; %d merged ranges)",
           unions, union_wrong, union_why ? ": " : "", union_why ? union_why : "", union_merged);
    rf_range_sets_free(&sets);
    free(joined_model);
    free(model);
    return tap_done();
}
