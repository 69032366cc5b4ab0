/* Distributions over training: a tensor summarised by its count, mean and
 * nine percentiles (min, 7, 16, 31, 50, 69, 84, 93, max: TensorBoard's
 * distribution bands, the edges of ±1.5σ, ±1σ and ±0.5σ of a normal),
 * taken for every parameter tensor, its gradient and every value tap of a
 * model at each evaluation (config/distributions_csv.h stores them). */
#ifndef RF_DISTRIBUTION_H
#define RF_DISTRIBUTION_H

#include "train.h"

#define RF_DIST_QUANTILES 9
/* The percentiles of rf_distribution.q, ascending; q[0] is the minimum and
 * q[RF_DIST_QUANTILES - 1] the maximum. */
extern const int rf_dist_percents[RF_DIST_QUANTILES];

typedef enum rf_dist_kind { RF_DIST_PARAM, RF_DIST_GRAD, RF_DIST_TAP, RF_DIST_KINDS } rf_dist_kind;
const char *rf_dist_kind_name(rf_dist_kind k);   /* "param", "grad", "tap" */

typedef struct rf_distribution {
    char name[RF_NAME_LEN];
    rf_dist_kind kind;
    int64_t count;
    double q[RF_DIST_QUANTILES];
    double mean;
} rf_distribution;

/* Summarise n >= 1 floats: percentile p is the value at rank p/100 * (n-1)
 * of the sorted values, interpolated linearly between neighbours (numpy's
 * default); NaN sorts above everything. `scratch` holds n floats. */
void rf_distribution_of(const float *x, int64_t n, float *scratch, rf_distribution *out);

/* The same with the percentiles between the extremes taken over at most
 * k of the values, evenly spaced (value i * n / k for i < k) when n > k;
 * the count, the mean, the minimum and the maximum are still over all n.
 * `scratch` holds min(n, k) floats. */
void rf_distribution_sampled(const float *x, int64_t n, int64_t k, float *scratch, rf_distribution *out);

/* A tap's percentiles come from at most this many of its values a sample
 * (16 MiB of scratch, reused tap after tap): every tap of a model at
 * ListOps' lengths is summarised exactly; one of [1,048,576 x 64] floats
 * by every 16th value. */
#define RF_DIST_SAMPLE_FLOATS ((int64_t)1 << 22)

/* A tap of a saved tensor (RF_TAP_AUX) of more floats than this a sample
 * (128 MiB: full attention's probabilities past about 2,000 tokens with 8
 * heads, whose N x N grows past any plan) is left out: an attention kernel
 * that keeps no N x N computes the view on demand for the probe, in memory
 * the run never planned. Values are read in place, at any size. */
#define RF_DIST_TAP_MAX_FLOATS ((int64_t)1 << 25)

/* Every parameter tensor's values, their gradients (where the store has
 * gradients: those of the last training step) and every forward tap of the
 * model (saved tensors up to RF_DIST_TAP_MAX_FLOATS a sample), the taps
 * read for the first sample of the validation split (one forward pass of
 * its batch, nothing updated) and summarised as the pass produces them:
 * besides the parameters' largest tensor it holds RF_DIST_SAMPLE_FLOATS of
 * scratch and the series' norms, never a copy of a tap. *count gets how many;
 * free the array with free(). NULL with `st` filled on failure; a model
 * whose parameters live on a device gives only its taps. */
rf_distribution *rf_trainer_distributions(rf_trainer *t, int *count, rf_status *st);

#endif
