/* TensorBoard's smoothing of a noisy curve: an exponential moving average
 * debiased at the start, so the first smoothed value is the first raw value
 * instead of being pulled towards zero. */
#ifndef RF_SMOOTH_H
#define RF_SMOOTH_H

#include <stddef.h>

/* The largest weight the workbench offers (1 would never move). */
#define RF_SMOOTH_MAX 0.999

/* out[i] for y[0..n) with `weight` in [0, RF_SMOOTH_MAX] (0: out = y):
 *   last = last * weight + (1 - weight) * y[i];  k++;  out[i] = last / (1 - weight^k)
 * over the finite values only; a non-finite y[i] is copied to out[i] and
 * leaves the average alone (TensorBoard's rule). A curve whose values are all
 * equal stays exactly equal. out may be y. */
void rf_smooth_ema(const double *y, size_t n, double weight, double *out);

#endif
