/* 16 lanes of e^x on AVX-512, for the attention kernels' hand-written
 * paths (exp_row.c, band_softmax.c): n = round(x log2 e), r = x - n ln 2
 * in two parts (Cephes' split, so r is exact to a few ulp), e^r by
 * Cephes' polynomial, then 2^n by vscalefps (which also gives the
 * subnormals rf_expf flushes). x < -87 gives 0, as in rf_expf (so does
 * -inf); x > 88.72 gives inf (so does +inf); NaN stays NaN. Relative error
 * below 3e-7. */
#ifndef RF_CPU_EXP16_H
#define RF_CPU_EXP16_H

#include <immintrin.h>

__attribute__((target("avx512f"))) static inline __m512 rf_exp16(__m512 x)
{
    /* past 128 e^x is inf anyway; clamping there keeps n finite, so +inf
     * and huge x give inf and not inf - inf (min's operand order keeps NaN) */
    x = _mm512_min_ps(_mm512_set1_ps(128.0f), x);
    __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    __mmask16 keep = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.0f), _CMP_NLT_UQ);   /* NaN keeps */
    return _mm512_maskz_mov_ps(keep, _mm512_scalef_ps(p, n));
}

/* e^x to a relative error below 1e-4 in about two thirds of rf_exp16's
 * operations, for the bf16 attention kernels, whose probabilities are
 * rounded to bf16 (relative error up to 3.9e-3) for their products: 2^t
 * with t = x log2 e split into n = round(t) and f = t - n, |f| <= 1/2
 * (t's rounding moves the result by at most 126 2^-24 = 7.5e-6), 2^f by
 * a degree-3 polynomial fitted to its relative error (7.5e-5 on [-1/2,
 * 1/2]), then 2^n by vscalefps. Below -87 and for -inf 0, NaN stays NaN,
 * past 88.7 inf, as rf_exp16. */
__attribute__((target("avx512f"))) static inline __m512 rf_exp16_coarse(__m512 x)
{
    x = _mm512_min_ps(_mm512_set1_ps(128.0f), x);
    __m512 t = _mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f));
    __m512 n = _mm512_roundscale_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 f = _mm512_sub_ps(t, n);
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(0.0551716237f), f, _mm512_set1_ps(0.242611119f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(0.693260994f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(0.999928074f));
    __mmask16 keep = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.0f), _CMP_NLT_UQ);   /* NaN keeps */
    return _mm512_maskz_mov_ps(keep, _mm512_scalef_ps(p, n));
}

#endif
