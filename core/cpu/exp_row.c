/* The attention kernels' row exponentials with FMAs (exp_row.h). */
#include "exp_row.h"

#include <immintrin.h>
#include <stdbool.h>

#include "cpu_features.h"
#include "exp16.h"
#include "vecmath.h"

__attribute__((target("avx512f"))) static float exp_row_avx512(float *p, int n, float shift)
{
    __m512 sh = _mm512_set1_ps(shift), sum = _mm512_setzero_ps();
    int j = 0;
    for (; j + 16 <= n; j += 16) {
        __m512 e = rf_exp16(_mm512_sub_ps(_mm512_loadu_ps(p + j), sh));
        _mm512_storeu_ps(p + j, e);
        sum = _mm512_add_ps(sum, e);
    }
    if (j < n) {
        __mmask16 m = (__mmask16)((1u << (n - j)) - 1);
        __m512 e = _mm512_maskz_mov_ps(m, rf_exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, p + j), sh)));
        _mm512_mask_storeu_ps(p + j, m, e);
        sum = _mm512_add_ps(sum, e);
    }
    return _mm512_reduce_add_ps(sum);
}

float rf_attn_exp_row(float *p, int n, float shift)
{
    return rf_cpu_avx512() ? exp_row_avx512(p, n, shift) : rf_exp_row(p, n, shift);
}
