/* Vectorisable math for the hot row loops (softmax in every attention).
 *
 * libm's expf is a call per element, which keeps the compiler from
 * vectorising a row; rf_expf is branch-free, so a loop over a row becomes
 * SIMD code. Cephes' single-precision algorithm: e^x = 2^n * e^r with n the
 * nearest integer to x*log2(e) and |r| <= ln(2)/2, e^r by a degree-6
 * polynomial; relative error below 2e-7 over the range (tests/test_ops_norm.c
 * checks it against libm).
 */
#ifndef RF_CPU_VECMATH_H
#define RF_CPU_VECMATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* e^x; exactly 0 for x < -87 (so -inf, a masked score, gives 0). */
static inline float rf_expf(float x)
{
    const float lo = -87.0f, hi = 88.0f;
    float xc = x < lo ? lo : (x > hi ? hi : x);
    /* round to nearest by the 1.5 * 2^23 trick (exact for |v| < 2^22) */
    float n = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    float r = xc - n * 0.693359375f - n * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    int32_t bits = ((int32_t)n + 127) << 23;
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return x < lo ? 0.0f : p * scale;
}

/* In-place softmax of a row of scores whose masked entries are already -inf.
 * A row with no finite entry becomes zeros. The sum is accumulated in 16
 * lanes so the compiler can vectorise it. */
static inline void rf_softmax_row_inplace(float *p, int64_t m)
{
    float mx = -INFINITY;
    for (int64_t j = 0; j < m; j++)
        mx = p[j] > mx ? p[j] : mx;
    if (mx == -INFINITY) {
        memset(p, 0, (size_t)m * sizeof *p);
        return;
    }
    float lanes[16] = {0};
    int64_t j = 0;
    for (; j + 16 <= m; j += 16)
        for (int l = 0; l < 16; l++) {
            p[j + l] = rf_expf(p[j + l] - mx);
            lanes[l] += p[j + l];
        }
    float sum = 0.0f;
    for (; j < m; j++) {
        p[j] = rf_expf(p[j] - mx);
        sum += p[j];
    }
    for (int l = 0; l < 16; l++)
        sum += lanes[l];
    float inv = 1.0f / sum;
    for (j = 0; j < m; j++)
        p[j] *= inv;
}

/* sum_j a[j] * b[j] in 16 lanes (vectorisable, fixed order). */
static inline float rf_dot(const float *a, const float *b, int64_t m)
{
    float lanes[16] = {0};
    int64_t j = 0;
    for (; j + 16 <= m; j += 16)
        for (int l = 0; l < 16; l++)
            lanes[l] += a[j + l] * b[j + l];
    float sum = 0.0f;
    for (; j < m; j++)
        sum += a[j] * b[j];
    for (int l = 0; l < 16; l++)
        sum += lanes[l];
    return sum;
}

#endif
