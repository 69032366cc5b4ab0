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

/* Quickselect: afterwards a[k] is the value of rank k among a[0..n) and
 * nothing before it is larger, nothing after it smaller. No NaN in a. */
static void select_rank(float *a, int64_t n, int64_t k)
{
    int64_t lo = 0, hi = n - 1;
    while (hi > lo) {
        float p = a[lo + (hi - lo) / 2];
        int64_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < p)
                i++;
            while (a[j] > p)
                j--;
            if (i <= j) {
                float tmp = a[i];
                a[i++] = a[j];
                a[j--] = tmp;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return;   /* between j and i every value equals the pivot */
    }
}

static float smallest(const float *a, int64_t n)
{
    float m = a[0];
    for (int64_t i = 1; i < n; i++)
        m = a[i] < m ? a[i] : m;
    return m;
}

/* Selection, not a sort: each percentile's rank is selected in what lies
 * at or above the last one (about 2n comparisons each). */
void rf_distribution_of(const float *x, int64_t n, float *scratch, rf_distribution *out)
{
    double sum = 0;
    int64_t finite = 0;
    for (int64_t i = 0; i < n; i++) {   /* NaN sorts above everything: keep them out of the selection */
        sum += x[i];
        if (!isnan(x[i]))
            scratch[finite++] = x[i];
    }
    out->count = n;
    out->mean = sum / (double)n;
    int64_t from = 0;
    for (int k = 0; k < RF_DIST_QUANTILES; k++) {
        double rank = rf_dist_percents[k] / 100.0 * (double)(n - 1), frac = rank - floor(rank);
        int64_t lo = (int64_t)floor(rank);
        if (lo >= finite) {
            out->q[k] = NAN;
            continue;
        }
        select_rank(scratch + from, finite - from, lo - from);
        from = lo;
        double a = scratch[lo];
        double b = lo + 1 >= n ? a : lo + 1 < finite ? smallest(scratch + lo + 1, finite - lo - 1) : NAN;
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
    for (int i = 0; i < taps; i++) {
        const rf_tap *tap = rf_tap_get(g, i);
        int64_t per_sample = rf_shape_numel(tap->shape) / (tap->shape.dim[0] > 0 ? tap->shape.dim[0] : 1);
        if (tap->what != RF_TAP_GRAD && per_sample <= RF_DIST_TAP_MAX_FLOATS)
            names[wanted++] = tap->name;
    }
    bool ok = true;
    if (wanted > 0) {
        rf_probe_set *ps = rf_probe_set_new(g, names, wanted, 0, st);
        rf_inspection seen;
        ok = ps != NULL && rf_trainer_inspect(t, RF_SPLIT_VAL, 0, ps, &seen, st);
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
