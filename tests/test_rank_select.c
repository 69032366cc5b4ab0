/* Exact order statistics (core/rank_select.h) against a full sort: for
 * arrays from empty to 300,000 values, spread (normal), packed into one
 * binade (where the top bits tell little), mostly zeros of both signs,
 * a few repeated values, infinities and subnormals, and all equal, the
 * values at random ascending ranks (the first, the last and repeats
 * among them) are bit for bit those at those places of the sorted array. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rank_select.h"
#include "../core/rng.h"
#include "tap.h"

/* The floats' total order of the selection: by value, -0 below +0. */
static int ascending(const void *x, const void *y)
{
    float a = *(const float *)x, b = *(const float *)y;
    if (a != b)
        return a < b ? -1 : 1;
    return (int)!signbit(a) - (int)!signbit(b);
}

static float draw(rf_rng *r, int kind)
{
    double u = rf_rng_uniform(r);
    switch (kind) {
    case 0:
        return (float)rf_rng_normal(r);
    case 1:
        return (float)(1 + u);   /* [1, 2): one exponent */
    case 2:
        return u < 0.6 ? (u < 0.3 ? -0.0f : 0.0f) : (float)rf_rng_normal(r);
    case 3:
        return (float)rf_rng_int(r, -2, 2);
    case 4:
        return u < 0.1 ? -INFINITY : u < 0.2 ? INFINITY : u < 0.5 ? (float)(u * 1e-39) : (float)(u * 1e30);
    default:
        return 0.25f;
    }
}

static const char *const kinds[] = {"normal", "one binade", "mostly zeros", "five values", "inf and subnormal",
                                    "all equal"};

static void sort_ranks(int64_t *r, int m)
{
    for (int i = 1; i < m; i++)
        for (int j = i; j > 0 && r[j - 1] > r[j]; j--) {
            int64_t t = r[j];
            r[j] = r[j - 1];
            r[j - 1] = t;
        }
}

/* One array of `kind` of n values at up to 20 random ranks: true when
 * the selection gives what the sort has there. */
static bool selects_as_sort(rf_rng *r, int kind, int64_t n)
{
    float *a = malloc((size_t)(n > 0 ? n : 1) * sizeof *a), *sorted = malloc((size_t)(n > 0 ? n : 1) * sizeof *a);
    for (int64_t i = 0; i < n; i++)
        sorted[i] = a[i] = draw(r, kind);
    qsort(sorted, (size_t)n, sizeof *sorted, ascending);
    int64_t ranks[20];
    int m = n == 0 ? 0 : 2 + (int)rf_rng_int(r, 0, 17);
    for (int i = 0; i < m; i++)
        ranks[i] = i == 0 ? 0 : i == m - 1 ? n - 1 : rf_rng_int(r, 0, n - 1);
    sort_ranks(ranks, m);
    if (m > 2)
        ranks[1] = ranks[2];   /* a repeat */
    float out[20];
    rf_select_ranks(a, n, ranks, m, out);
    bool same = true;
    for (int i = 0; i < m && same; i++)
        if (memcmp(&out[i], &sorted[ranks[i]], sizeof *out) != 0) {
            tap_diag("%s, n %lld: rank %lld is %.9g, the sort has %.9g", kinds[kind], (long long)n,
                     (long long)ranks[i], out[i], sorted[ranks[i]]);
            same = false;
        }
    free(a);
    free(sorted);
    return same;
}

int main(void)
{
    const int64_t sizes[] = {0, 1, 2, 47, 48, 49, 300, 5000, 70000, 300000};
    rf_rng r = {42};
    for (int kind = 0; kind < 6; kind++) {
        bool same = true;
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            for (int trial = 0; trial < (sizes[s] < 10000 ? 20 : 3); trial++)
                same = selects_as_sort(&r, kind, sizes[s]) && same;
        tap_ok(same, "%s: the values at random ranks (the first, the last, a repeat) are the sorted array's, bit for "
                     "bit, at every size from 0 to 300,000", kinds[kind]);
    }
    return tap_done();
}
