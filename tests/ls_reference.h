/* Plain double helpers of the Transformer-LS references (SPEC §2) that
 * test_ls_op.c and test_mech_ls.c both write out. */
#ifndef RF_TEST_LS_REFERENCE_H
#define RF_TEST_LS_REFERENCE_H

#include <math.h>

/* e = max(w/2, 1), as SPEC §2 writes it */
static inline int extent(int w) { return w / 2 > 1 ? w / 2 : 1; }

/* Softmax in place over the entries with ok[j]; the others (and a row with
 * none) get 0. */
static inline void softmax_masked(double *s, const unsigned char *ok, int n)
{
    double mx = -INFINITY;
    for (int j = 0; j < n; j++)
        if (ok[j] && s[j] > mx)
            mx = s[j];
    double sum = 0;
    for (int j = 0; j < n; j++) {
        s[j] = ok[j] ? exp(s[j] - mx) : 0.0;
        sum += s[j];
    }
    for (int j = 0; j < n; j++)
        s[j] = sum > 0 ? s[j] / sum : 0.0;
}

static inline double dot(const double *a, const double *b, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

#endif
