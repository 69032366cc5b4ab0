#include "median_rule.h"

#include <math.h>
#include <stdlib.h>

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

bool rf_median_of(const double *v, int n, double *median)
{
    double *finite = malloc(sizeof *finite * (size_t)(n > 0 ? n : 1));
    int m = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(v[i]))
            finite[m++] = v[i];
    if (m > 0) {
        qsort(finite, (size_t)m, sizeof *finite, compare_doubles);
        *median = m % 2 == 1 ? finite[m / 2] : 0.5 * (finite[m / 2 - 1] + finite[m / 2]);
    }
    free(finite);
    return m > 0;
}

bool rf_median_rule_stop(double best, int evaluations, int min_evaluations, const double *others, int n,
                         bool higher_better, double *median, int *compared)
{
    double mid = NAN;
    int count = 0;
    for (int i = 0; i < n; i++)
        count += isfinite(others[i]) != 0;
    bool have = rf_median_of(others, n, &mid);
    if (median != NULL)
        *median = mid;
    if (compared != NULL)
        *compared = count;
    if (!have || evaluations < min_evaluations || !isfinite(best))
        return false;
    return higher_better ? best < mid : best > mid;
}
