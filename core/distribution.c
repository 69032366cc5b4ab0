#include "distribution.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"

const int rf_dist_percents[RF_DIST_QUANTILES] = {0, 7, 16, 31, 50, 69, 84, 93, 100};

const char *rf_dist_kind_name(rf_dist_kind k)
{
    static const char *const names[RF_DIST_KINDS] = {"param", "grad", "tap"};
    return k >= 0 && k < RF_DIST_KINDS ? names[k] : "?";
}

/* Ascending, NaN above everything (a total order, as qsort needs). */
static int compare_floats(const void *pa, const void *pb)
{
    float a = *(const float *)pa, b = *(const float *)pb;
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b);
    return (a > b) - (a < b);
}

void rf_distribution_of(const float *x, int64_t n, float *scratch, rf_distribution *out)
{
    memcpy(scratch, x, (size_t)n * sizeof *x);
    qsort(scratch, (size_t)n, sizeof *scratch, compare_floats);
    double sum = 0;
    for (int64_t i = 0; i < n; i++)
        sum += x[i];
    out->count = n;
    out->mean = sum / (double)n;
    for (int k = 0; k < RF_DIST_QUANTILES; k++) {
        double rank = rf_dist_percents[k] / 100.0 * (double)(n - 1);
        int64_t lo = (int64_t)floor(rank), hi = lo + 1 < n ? lo + 1 : lo;
        double frac = rank - (double)lo, a = scratch[lo], b = scratch[hi];
        out->q[k] = frac == 0 ? a : a + (b - a) * frac;
    }
}

static void name_it(rf_distribution *d, const char *name, rf_dist_kind kind)
{
    snprintf(d->name, sizeof d->name, "%s", name);
    d->kind = kind;
}

/* The forward taps (values and saved tensors: gradient taps would need a
 * backward pass) of validation sample 0, summarised into out[]. */
static bool tap_distributions(rf_trainer *t, rf_distribution *out, int *n, float **scratch, size_t *cap,
                              rf_status *st)
{
    rf_graph *g = rf_trainer_model(t)->graph;
    int taps = rf_tap_count(g), wanted = 0;
    const char **names = malloc((size_t)(taps > 0 ? taps : 1) * sizeof *names);
    for (int i = 0; i < taps; i++)
        if (rf_tap_get(g, i)->what != RF_TAP_GRAD)
            names[wanted++] = rf_tap_get(g, i)->name;
    bool ok = true;
    if (wanted > 0) {
        rf_probe_set *ps = rf_probe_set_new(g, names, wanted, 0, st);
        ok = ps != NULL && rf_trainer_inspect_alone(t, RF_SPLIT_VAL, 0, ps, st);
        for (int i = 0; ok && i < ps->count; i++) {
            int64_t numel = rf_shape_numel(ps->values[i].shape);
            if (numel < 1)
                continue;
            if ((size_t)numel > *cap) {
                *cap = (size_t)numel;
                *scratch = realloc(*scratch, *cap * sizeof **scratch);
            }
            name_it(&out[*n], ps->values[i].name, RF_DIST_TAP);
            rf_distribution_of(ps->values[i].data, numel, *scratch, &out[(*n)++]);
        }
        rf_probe_set_free(ps);
    }
    free(names);
    return ok;
}

rf_distribution *rf_trainer_distributions(rf_trainer *t, int *count, rf_status *st)
{
    const rf_params *p = rf_trainer_params(t);
    bool host = p->backend == NULL && p->value != NULL;
    int taps = rf_tap_count(rf_trainer_model(t)->graph);
    rf_distribution *out = calloc((size_t)(2 * p->count + taps + 1), sizeof *out);
    size_t cap = 0;
    float *scratch = NULL;
    int n = 0;
    for (int i = 0; host && i < p->count; i++) {
        const rf_param_entry *e = &p->entries[i];
        if ((size_t)e->numel > cap) {
            cap = (size_t)e->numel;
            scratch = realloc(scratch, cap * sizeof *scratch);
        }
        name_it(&out[n], e->name, RF_DIST_PARAM);
        rf_distribution_of(p->value + e->offset, e->numel, scratch, &out[n++]);
        if (p->grad == NULL)
            continue;
        name_it(&out[n], e->name, RF_DIST_GRAD);
        rf_distribution_of(p->grad + e->offset, e->numel, scratch, &out[n++]);
    }
    bool ok = tap_distributions(t, out, &n, &scratch, &cap, st);
    free(scratch);
    if (!ok) {
        free(out);
        return NULL;
    }
    *count = n;
    return out;
}
