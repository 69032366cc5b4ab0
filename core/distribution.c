#include "distribution.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "rank_select.h"

const int rf_dist_percents[RF_DIST_QUANTILES] = {0, 7, 16, 31, 50, 69, 84, 93, 100};

const char *rf_dist_kind_name(rf_dist_kind k)
{
    static const char *const names[RF_DIST_KINDS] = {"param", "grad", "tap"};
    return k >= 0 && k < RF_DIST_KINDS ? names[k] : "?";
}

/* Sorts r[0..*m) ascending and drops repeats (a handful of ranks). */
static void sort_unique(int64_t *r, int *m)
{
    for (int i = 1; i < *m; i++)
        for (int j = i; j > 0 && r[j - 1] > r[j]; j--) {
            int64_t t = r[j];
            r[j] = r[j - 1];
            r[j - 1] = t;
        }
    int u = 0;
    for (int i = 0; i < *m; i++)
        if (u == 0 || r[u - 1] != r[i])
            r[u++] = r[i];
    *m = u;
}

static int index_of(const int64_t *r, int m, int64_t rank)
{
    int i = 0;
    while (i < m - 1 && r[i] != rank)
        i++;
    return i;
}

/* The summary of x[0..n) with its percentiles taken over `take` <= n of
 * its values, evenly spaced (every one when take == n); the count, the
 * mean, the minimum and the maximum are over all n, in one pass.
 * Selection, not a sort (core/rank_select.h): the percentiles' ranks and
 * the upper neighbours of those that interpolate, in a few passes over
 * the taken values. scratch holds take floats. */
static void summarise(const float *x, int64_t n, int64_t take, float *scratch, rf_distribution *out)
{
    double sum = 0;
    float lo_all = INFINITY, hi_all = -INFINITY;
    int64_t numbers = 0;   /* not NaN */
    for (int64_t i = 0; i < n; i++) {
        sum += x[i];
        if (isnan(x[i]))
            continue;
        numbers++;
        lo_all = x[i] < lo_all ? x[i] : lo_all;
        hi_all = x[i] > hi_all ? x[i] : hi_all;
    }
    int64_t finite = 0;
    for (int64_t i = 0; i < take; i++) {   /* NaN sorts above everything: keep them out of the selection */
        float v = x[take == n ? i : i * n / take];   /* i < 2^22 and n < 2^40: no overflow */
        if (!isnan(v))
            scratch[finite++] = v;
    }
    out->count = n;
    out->mean = sum / (double)n;
    /* the extremes need no selection (NaN sorts above everything) */
    out->q[0] = numbers > 0 ? lo_all : NAN;
    out->q[RF_DIST_QUANTILES - 1] = numbers < n ? NAN : hi_all;
    /* each inner percentile's rank, and its upper neighbour's where it
     * interpolates, selected together */
    int64_t lo[RF_DIST_QUANTILES], ranks[2 * RF_DIST_QUANTILES];
    double frac[RF_DIST_QUANTILES];
    int m = 0;
    for (int k = 1; k < RF_DIST_QUANTILES - 1; k++) {
        double rank = rf_dist_percents[k] / 100.0 * (double)(take - 1);
        lo[k] = (int64_t)floor(rank);
        frac[k] = rank - floor(rank);
        for (int64_t r = lo[k]; r <= lo[k] + (frac[k] != 0) && r < finite; r++)
            ranks[m++] = r;
    }
    sort_unique(ranks, &m);
    float at[2 * RF_DIST_QUANTILES];
    rf_select_ranks(scratch, finite, ranks, m, at);
    for (int k = 1; k < RF_DIST_QUANTILES - 1; k++) {
        if (lo[k] >= finite) {
            out->q[k] = NAN;
            continue;
        }
        double a = at[index_of(ranks, m, lo[k])];
        if (frac[k] == 0 || lo[k] + 1 >= take)
            out->q[k] = a;
        else if (lo[k] + 1 < finite)
            out->q[k] = a + ((double)at[index_of(ranks, m, lo[k] + 1)] - a) * frac[k];
        else
            out->q[k] = NAN;
    }
}

void rf_distribution_of(const float *x, int64_t n, float *scratch, rf_distribution *out)
{
    summarise(x, n, n, scratch, out);
}

void rf_distribution_sampled(const float *x, int64_t n, int64_t k, float *scratch, rf_distribution *out)
{
    summarise(x, n, n < k ? n : k, scratch, out);
}

static void name_it(rf_distribution *d, const char *name, rf_dist_kind kind)
{
    snprintf(d->name, sizeof d->name, "%s", name);
    d->kind = kind;
}

/* What a streamed probe's reader fills: value i's summary in out[i]. */
typedef struct tap_reading {
    rf_distribution *out;
    float *scratch;    /* RF_DIST_SAMPLE_FLOATS */
} tap_reading;

static void summarise_tap(void *ctx, int value, const float *view, int64_t n)
{
    tap_reading *r = ctx;
    if (n > 0)
        rf_distribution_sampled(view, n, RF_DIST_SAMPLE_FLOATS, r->scratch, &r->out[value]);
}

/* The forward taps (values and saved tensors: gradient taps would need a
 * backward pass) of validation sample 0, summarised into out[] as the pass
 * produces them: a streamed probe keeps no copy of any tap. */
static bool tap_distributions(rf_trainer *t, rf_distribution *out, int *n, rf_status *st)
{
    rf_graph *g = rf_trainer_model(t)->graph;
    int taps = rf_tap_count(g), wanted = 0;
    const char **names = malloc((size_t)(taps > 0 ? taps : 1) * sizeof *names);
    for (int i = 0; i < taps; i++) {
        const rf_tap *tap = rf_tap_get(g, i);
        int64_t per_sample = rf_shape_numel(tap->shape) / (tap->shape.dim[0] > 0 ? tap->shape.dim[0] : 1);
        if (tap->what == RF_TAP_VALUE || (tap->what == RF_TAP_AUX && per_sample <= RF_DIST_TAP_MAX_FLOATS))
            names[wanted++] = tap->name;
    }
    bool ok = true;
    if (wanted > 0) {
        rf_distribution *read = calloc((size_t)wanted, sizeof *read);
        tap_reading r = {read, malloc((size_t)RF_DIST_SAMPLE_FLOATS * sizeof(float))};
        rf_probe_set *ps = NULL;
        if (read == NULL || r.scratch == NULL)
            ok = rf_fail(st, "out of memory for the taps' distributions");
        else
            ok = (ps = rf_probe_set_new_streamed(g, names, wanted, 0, summarise_tap, &r, st)) != NULL;
        rf_inspection seen;
        ok = ok && rf_trainer_inspect(t, RF_SPLIT_VAL, 0, ps, &seen, st);
        for (int i = 0; ok && i < ps->count; i++) {
            const rf_probe_value *v = &ps->values[i];
            if (v->data != NULL && rf_shape_numel(v->shape) > 0)   /* a series: its cells */
                rf_distribution_sampled(v->data, rf_shape_numel(v->shape), RF_DIST_SAMPLE_FLOATS, r.scratch,
                                        &read[i]);
            else if (v->data != NULL || read[i].count == 0)
                continue;
            out[*n] = read[i];
            name_it(&out[(*n)++], v->name, RF_DIST_TAP);
        }
        rf_probe_set_free(ps);
        free(r.scratch);
        free(read);
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
    bool ok = tap_distributions(t, out, &n, st);
    free(scratch);
    if (!ok) {
        free(out);
        return NULL;
    }
    *count = n;
    return out;
}
