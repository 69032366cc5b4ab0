#include "baselines.h"

#include <stdlib.h>
#include <string.h>

/* counts[token * classes + label]: training samples by first token and
 * class; the last row (token = vocab) counts every training sample. */
typedef struct tally {
    int vocab, classes;
    int64_t *counts;
    float *x;             /* one sample, seq_len ids */
} tally;

static int64_t *row(const tally *t, int token) { return t->counts + (int64_t)token * t->classes; }

static int most_common(const int64_t *c, int classes)
{
    int best = 0;
    for (int k = 1; k < classes; k++)
        best = c[k] > c[best] ? k : best;   /* ties: the lowest class */
    return best;
}

/* The first token and label of sample `i` (first token -1 for an empty or
 * out-of-vocabulary sample, which then counts towards the majority only). */
static bool read_sample(const rf_dataset *ds, const tally *t, rf_split split, int64_t i, int *first, int *label,
                        rf_status *st)
{
    int len = 0;
    memset(t->x, 0, (size_t)ds->seq_len * sizeof *t->x);
    if (!ds->get(ds, split, i, t->x, &len, label, st))
        return false;
    if (*label < 0 || *label >= t->classes)
        return rf_fail(st, "%s %s sample %lld: label %d outside 0..%d", ds->name, rf_split_name(split),
                       (long long)i, *label, t->classes - 1);
    int token = len > 0 ? (int)t->x[0] : -1;
    *first = token >= 0 && token < t->vocab ? token : -1;
    return true;
}

static bool fit(const rf_dataset *ds, tally *t, rf_status *st)
{
    for (int64_t i = 0; i < ds->size[RF_SPLIT_TRAIN]; i++) {
        int first, label;
        if (!read_sample(ds, t, RF_SPLIT_TRAIN, i, &first, &label, st))
            return false;
        if (first >= 0)
            row(t, first)[label]++;
        row(t, t->vocab)[label]++;
    }
    return true;
}

static bool score(const rf_dataset *ds, const tally *t, rf_split split, rf_baselines *out, rf_status *st)
{
    int majority = most_common(row(t, t->vocab), t->classes);
    int64_t right_majority = 0, right_first = 0, n = ds->size[split];
    for (int64_t i = 0; i < n; i++) {
        int first, label;
        if (!read_sample(ds, t, split, i, &first, &label, st))
            return false;
        bool seen = false;
        for (int k = 0; first >= 0 && k < t->classes; k++)
            seen |= row(t, first)[k] > 0;
        int guess = seen ? most_common(row(t, first), t->classes) : majority;
        right_majority += label == majority;
        right_first += label == guess;
    }
    out->majority = (double)right_majority / (double)n;
    out->first_token = (double)right_first / (double)n;
    return true;
}

bool rf_baselines_measure(const rf_dataset *ds, rf_split split, rf_baselines *out, rf_status *st)
{
    if (ds->feat_dim > 0)
        return rf_fail(st, "%s: baselines are measured for token data only (its samples are %d floats a position)",
                       ds->name, ds->feat_dim);
    if (ds->size[RF_SPLIT_TRAIN] < 1 || ds->size[split] < 1)
        return rf_fail(st, "%s: baselines need training samples and %s samples (%lld and %lld)", ds->name,
                       rf_split_name(split), (long long)ds->size[RF_SPLIT_TRAIN], (long long)ds->size[split]);
    tally t = {.vocab = ds->vocab, .classes = ds->classes};
    t.counts = calloc((size_t)(t.vocab + 1) * (size_t)t.classes, sizeof *t.counts);
    t.x = malloc((size_t)ds->seq_len * sizeof *t.x);
    bool ok = t.counts != NULL && t.x != NULL;
    if (!ok)
        rf_fail(st, "%s: out of memory measuring baselines", ds->name);
    ok = ok && fit(ds, &t, st) && score(ds, &t, split, out, st);
    free(t.counts);
    free(t.x);
    return ok;
}
