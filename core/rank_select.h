/* Exact order statistics of floats: the values of several ranks of an
 * array at once, as a full sort would place them, without sorting it
 * (core/distribution.c's percentiles). */
#ifndef RF_RANK_SELECT_H
#define RF_RANK_SELECT_H

#include <stdint.h>

/* out[i] := the value of rank ranks[i] (0-based) among a[0..n), for
 * ranks ascending (repeats allowed, at most 32) and each below n, for
 * n < 2^32 (a histogram counts in 32 bits); a holds no NaN
 * (-0 ranks below +0) and is reordered. Radix selection on the floats'
 * bits: a histogram of their top bits finds the few buckets that hold the
 * ranks, those move to the front and are selected in the same way on
 * their next bits, so the work is a pass over a and passes over a few
 * buckets, whatever the values' order. */
void rf_select_ranks(float *a, int64_t n, const int64_t *ranks, int m, float *out);

#endif
