/* 8 lanes of e^x on AVX2 with FMA: rf_exp16 (exp16.h) for CPUs without
 * AVX-512, the same steps and constants, and the same results bit for
 * bit: n = round(x log2 e), r = x - n ln 2 in Cephes' two parts, e^r by
 * Cephes' polynomial, then 2^n as two exact powers of two (n/2 and the
 * rest, each a normal float for every x from -87 to 128), so the product
 * rounds once, as vscalefps does. x < -87 gives 0, as in rf_expf (so does -inf);
 * x > 88.72 gives inf (so does +inf); NaN stays NaN. */
#ifndef RF_CPU_EXP8_H
#define RF_CPU_EXP8_H

#include <immintrin.h>

/* 2^e for integer lanes e in [-126, 128] (128: inf). */
__attribute__((target("avx2"))) static inline __m256 rf_pow2_8(__m256i e)
{
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(e, _mm256_set1_epi32(127)), 23));
}

__attribute__((target("avx2,fma"))) static inline __m256 rf_exp8(__m256 x)
{
    x = _mm256_min_ps(_mm256_set1_ps(128.0f), x);   /* as rf_exp16 */
    __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.9875691500e-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    /* kept lanes have -126 <= n <= 185: 2^(n >> 1) exactly, then the rest
     * (2^93 at most), so no exponent field overflows */
    __m256i ni = _mm256_cvtps_epi32(n), half = _mm256_srai_epi32(ni, 1);
    p = _mm256_mul_ps(_mm256_mul_ps(p, rf_pow2_8(half)), rf_pow2_8(_mm256_sub_epi32(ni, half)));
    __m256 keep = _mm256_cmp_ps(x, _mm256_set1_ps(-87.0f), _CMP_NLT_UQ);   /* NaN keeps */
    return _mm256_and_ps(p, keep);
}

#endif
