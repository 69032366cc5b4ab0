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
 * out-of-vocabulary sample, which then counts towards the majority only),
 * from the data set's head where it has one: a sample need not be made
 * whole for them. */
static bool read_sample(const rf_dataset *ds, const tally *t, rf_split split, int64_t i, int *first, int *label,
                        rf_status *st)
{
    int len = 0, token = -1;
    if (ds->head != NULL) {
        if (!ds->head(ds, split, i, &token, &len, label, st))
            return false;
    } else {
        memset(t->x, 0, (size_t)ds->seq_len * sizeof *t->x);
        if (!ds->get(ds, split, i, t->x, &len, label, st))
            return false;
        token = len > 0 ? (int)t->x[0] : -1;
    }
    if (*label < 0 || *label >= t->classes)
        return rf_fail(st, "%s %s sample %lld: label %d outside 0..%d", ds->name, rf_split_name(split),
                       (long long)i, *label, t->classes - 1);
    token = len > 0 ? token : -1;
    *first = token >= 0 && token < t->vocab ? token : -1;
    return true;
}

static bool fit(const rf_dataset *ds, tally *t, rf_status *st)
{
    for (int64_t i = 0; i < ds->size[RF_SPLIT_TRAIN]; i++) {
        int first = -1, label = -1;
        if (!read_sample(ds, t, RF_SPLIT_TRAIN, i, &first, &label, st))
            return false;
        if (first >= 0)
            row(t, first)[label]++;
        row(t, t->vocab)[label]++;
    }
    return true;
}

/* The rules from the counts. */
static bool rules_of(const tally *t, rf_baseline_rules *r)
{
    *r = (rf_baseline_rules){.vocab = t->vocab, .classes = t->classes};
    r->majority = most_common(row(t, t->vocab), t->classes);
    r->by_first = malloc((size_t)t->vocab * sizeof *r->by_first);
    if (r->by_first == NULL)
        return false;
    for (int token = 0; token < t->vocab; token++) {
        bool seen = false;
        for (int k = 0; k < t->classes; k++)
            seen |= row(t, token)[k] > 0;
        r->by_first[token] = seen ? most_common(row(t, token), t->classes) : r->majority;
    }
    return true;
}

int rf_baseline_rules_first_token(const rf_baseline_rules *r, int first)
{
    return first >= 0 && first < r->vocab ? r->by_first[first] : r->majority;
}

void rf_baseline_rules_clear(rf_baseline_rules *r)
{
    free(r->by_first);
    *r = (rf_baseline_rules){0};
}

static bool score(const rf_dataset *ds, const tally *t, const rf_baseline_rules *r, rf_split split,
                  rf_baselines *out, rf_status *st)
{
    int64_t right_majority = 0, right_first = 0, n = ds->size[split];
    for (int64_t i = 0; i < n; i++) {
        int first = -1, label = -1;
        if (!read_sample(ds, t, split, i, &first, &label, st))
            return false;
        right_majority += label == r->majority;
        right_first += label == rf_baseline_rules_first_token(r, first);
    }
    out->majority = (double)right_majority / (double)n;
    out->first_token = (double)right_first / (double)n;
    return true;
}

/* The counts of the training split into t (t->x and t->counts allocated
 * here, freed by the caller); false with a message as the header says. */
static bool tally_training(const rf_dataset *ds, rf_split split, tally *t, rf_status *st)
{
    if (ds->feat_dim > 0)
        return rf_fail(st, "%s: baselines are measured for token data only (its samples are %d floats a position)",
                       ds->name, ds->feat_dim);
    if (ds->size[RF_SPLIT_TRAIN] < 1 || ds->size[split] < 1)
        return rf_fail(st, "%s: baselines need training samples and %s samples (%lld and %lld)", ds->name,
                       rf_split_name(split), (long long)ds->size[RF_SPLIT_TRAIN], (long long)ds->size[split]);
    *t = (tally){.vocab = ds->vocab, .classes = ds->classes};
    t->counts = calloc((size_t)(t->vocab + 1) * (size_t)t->classes, sizeof *t->counts);
    t->x = malloc((size_t)ds->seq_len * sizeof *t->x);
    if (t->counts == NULL || t->x == NULL)
        return rf_fail(st, "%s: out of memory measuring baselines", ds->name);
    return fit(ds, t, st);
}

bool rf_baselines_measure(const rf_dataset *ds, rf_split split, rf_baselines *out, rf_status *st)
{
    tally t = {0};
    rf_baseline_rules r = {0};
    bool ok = tally_training(ds, split, &t, st);
    if (ok && !rules_of(&t, &r))
        ok = rf_fail(st, "%s: out of memory measuring baselines", ds->name);
    ok = ok && score(ds, &t, &r, split, out, st);
    rf_baseline_rules_clear(&r);
    free(t.counts);
    free(t.x);
    return ok;
}

bool rf_baseline_rules_fit(const rf_dataset *ds, rf_baseline_rules *out, rf_status *st)
{
    tally t = {0};
    *out = (rf_baseline_rules){0};
    bool ok = tally_training(ds, RF_SPLIT_TRAIN, &t, st);
    if (ok && !rules_of(&t, out))
        ok = rf_fail(st, "%s: out of memory measuring baselines", ds->name);
    free(t.counts);
    free(t.x);
    return ok;
}
