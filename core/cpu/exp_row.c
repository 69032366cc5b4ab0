/* The attention kernels' row exponentials with FMAs (exp_row.h): AVX-512,
 * AVX2, or rf_exp_row. */
#include "exp_row.h"

#include <immintrin.h>
#include <stdbool.h>

#include "cpu_features.h"
#include "exp16.h"
#include "exp8.h"
#include "vecmath.h"

/* The row on AVX-512 with rf_exp16, or with `coarse` rf_exp16_coarse (a
 * constant where this is inlined). */
static inline __attribute__((always_inline, target("avx512f"))) float row_avx512(float *p, int n, float shift,
                                                                                 bool coarse)
{
    __m512 sh = _mm512_set1_ps(shift), sum = _mm512_setzero_ps();
    int j = 0;
    for (; j + 16 <= n; j += 16) {
        __m512 x = _mm512_sub_ps(_mm512_loadu_ps(p + j), sh);
        __m512 e = coarse ? rf_exp16_coarse(x) : rf_exp16(x);
        _mm512_storeu_ps(p + j, e);
        sum = _mm512_add_ps(sum, e);
    }
    if (j < n) {
        __mmask16 m = (__mmask16)((1u << (n - j)) - 1);
        __m512 x = _mm512_sub_ps(_mm512_maskz_loadu_ps(m, p + j), sh);
        __m512 e = _mm512_maskz_mov_ps(m, coarse ? rf_exp16_coarse(x) : rf_exp16(x));
        _mm512_mask_storeu_ps(p + j, m, e);
        sum = _mm512_add_ps(sum, e);
    }
    return _mm512_reduce_add_ps(sum);
}

__attribute__((target("avx512f"))) static float exp_row_avx512(float *p, int n, float shift)
{
    return row_avx512(p, n, shift, false);
}

__attribute__((target("avx512f"))) static float exp_row_coarse_avx512(float *p, int n, float shift)
{
    return row_avx512(p, n, shift, true);
}

__attribute__((target("avx2,fma"))) static float exp_row_avx2(float *p, int n, float shift)
{
    __m256 sh = _mm256_set1_ps(shift), sum = _mm256_setzero_ps();
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        __m256 e = rf_exp8(_mm256_sub_ps(_mm256_loadu_ps(p + j), sh));
        _mm256_storeu_ps(p + j, e);
        sum = _mm256_add_ps(sum, e);
    }
    if (j < n) {
        __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(n - j), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        __m256 e = _mm256_and_ps(rf_exp8(_mm256_sub_ps(_mm256_maskload_ps(p + j, m), sh)), _mm256_castsi256_ps(m));
        _mm256_maskstore_ps(p + j, m, e);
        sum = _mm256_add_ps(sum, e);
    }
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(sum), _mm256_extractf128_ps(sum, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

float rf_attn_exp_row(float *p, int n, float shift)
{
    if (rf_cpu_avx512())
        return exp_row_avx512(p, n, shift);
    return rf_cpu_avx2() ? exp_row_avx2(p, n, shift) : rf_exp_row(p, n, shift);
}

float rf_attn_exp_row_coarse(float *p, int n, float shift)
{
    return rf_cpu_avx512() ? exp_row_coarse_avx512(p, n, shift) : rf_attn_exp_row(p, n, shift);
}
