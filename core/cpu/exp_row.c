/* The attention kernels' row exponentials with FMAs (exp_row.h). */
#include "exp_row.h"

#include <immintrin.h>
#include <stdbool.h>

#include "cpu_features.h"
#include "vecmath.h"

/* 16 lanes of e^x: n = round(x log2 e), r = x - n ln 2 in two parts
 * (Cephes' split, so r is exact to a few ulp), e^r by Cephes' polynomial,
 * then 2^n by vscalefps (which also gives the subnormals rf_expf flushes).
 * x < -87 gives 0, as in rf_expf (so does -inf); NaN stays NaN. */
__attribute__((target("avx512f"))) static inline __m512 exp16(__m512 x)
{
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

__attribute__((target("avx512f"))) static float exp_row_avx512(float *p, int n, float shift)
{
    __m512 sh = _mm512_set1_ps(shift), sum = _mm512_setzero_ps();
    int j = 0;
    for (; j + 16 <= n; j += 16) {
        __m512 e = exp16(_mm512_sub_ps(_mm512_loadu_ps(p + j), sh));
        _mm512_storeu_ps(p + j, e);
        sum = _mm512_add_ps(sum, e);
    }
    if (j < n) {
        __mmask16 m = (__mmask16)((1u << (n - j)) - 1);
        __m512 e = _mm512_maskz_mov_ps(m, exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, p + j), sh)));
        _mm512_mask_storeu_ps(p + j, m, e);
        sum = _mm512_add_ps(sum, e);
    }
    return _mm512_reduce_add_ps(sum);
}

float rf_attn_exp_row(float *p, int n, float shift)
{
    return rf_cpu_avx512() ? exp_row_avx512(p, n, shift) : rf_exp_row(p, n, shift);
}
