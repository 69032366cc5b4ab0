/* The debiased exponential moving average (TensorBoard's smoothing). */
#include "smooth.h"

#include <math.h>
#include <stdbool.h>

void rf_smooth_ema(const double *y, size_t n, double weight, double *out)
{
    weight = weight > 0 ? fmin(weight, RF_SMOOTH_MAX) : 0;
    /* Rounding would otherwise bend a constant curve by an ulp or two. */
    bool constant = true;
    for (size_t i = 1; i < n && constant; i++)
        constant = y[i] == y[0];
    double last = 0, weight_k = 1;   /* weight^k, kept as a product: no pow per point */
    for (size_t i = 0; i < n; i++) {
        double v = y[i];
        if (!isfinite(v) || constant) {
            out[i] = v;
            continue;
        }
        last = last * weight + (1 - weight) * v;
        weight_k *= weight;
        out[i] = last / (1 - weight_k);
    }
}
