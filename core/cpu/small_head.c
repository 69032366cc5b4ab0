/* The short-inner-dimension product of one head's scores (small_head.h). */
#include "small_head.h"

#include <immintrin.h>

static bool have_avx512(void)
{
    static int known = -1;   /* a benign race: every thread computes the same answer */
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("avx512f");
    }
    return known;
}

__attribute__((target("avx512f"))) static void nt_avx512(int rows, int cols, int k, float scale, const float *A,
                                                          int lda, const float *B, int ldb, float *S, int lds)
{
    /* B^T [k, cols rounded up to 16], the padding zero */
    enum { W = RF_SMALL_HEAD_COLS };
    float bt[RF_SMALL_HEAD_K * W] __attribute__((aligned(64)));
    int padded = (cols + 15) & ~15;
    for (int c = 0; c < cols; c++) {   /* each key's row read once, in order */
        const float *b = B + (long)c * ldb;
        for (int d = 0; d < k; d++)
            bt[d * W + c] = b[d];
    }
    for (int d = 0; d < k; d++)
        for (int c = cols; c < padded; c++)
            bt[d * W + c] = 0.0f;
    __m512 sc = _mm512_set1_ps(scale);
    int r = 0;
    for (; r + 4 <= rows; r += 4) {
        const float *a0 = A + (long)r * lda, *a1 = a0 + lda, *a2 = a1 + lda, *a3 = a2 + lda;
        float *s0 = S + (long)r * lds;
        for (int c = 0; c < padded; c += 16) {
            __m512 x0 = _mm512_setzero_ps(), x1 = x0, x2 = x0, x3 = x0;
            for (int d = 0; d < k; d++) {
                __m512 b = _mm512_load_ps(bt + d * W + c);
                x0 = _mm512_fmadd_ps(_mm512_set1_ps(a0[d]), b, x0);
                x1 = _mm512_fmadd_ps(_mm512_set1_ps(a1[d]), b, x1);
                x2 = _mm512_fmadd_ps(_mm512_set1_ps(a2[d]), b, x2);
                x3 = _mm512_fmadd_ps(_mm512_set1_ps(a3[d]), b, x3);
            }
            __mmask16 m = cols - c >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (cols - c)) - 1);
            _mm512_mask_storeu_ps(s0 + c, m, _mm512_mul_ps(x0, sc));
            _mm512_mask_storeu_ps(s0 + lds + c, m, _mm512_mul_ps(x1, sc));
            _mm512_mask_storeu_ps(s0 + 2L * lds + c, m, _mm512_mul_ps(x2, sc));
            _mm512_mask_storeu_ps(s0 + 3L * lds + c, m, _mm512_mul_ps(x3, sc));
        }
    }
    for (; r < rows; r++) {
        const float *a0 = A + (long)r * lda;
        for (int c = 0; c < padded; c += 16) {
            __m512 x0 = _mm512_setzero_ps();
            for (int d = 0; d < k; d++)
                x0 = _mm512_fmadd_ps(_mm512_set1_ps(a0[d]), _mm512_load_ps(bt + d * W + c), x0);
            __mmask16 m = cols - c >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (cols - c)) - 1);
            _mm512_mask_storeu_ps(S + (long)r * lds + c, m, _mm512_mul_ps(x0, sc));
        }
    }
}

bool rf_small_head_nt(int rows, int cols, int k, float scale, const float *A, int lda, const float *B, int ldb,
                      float *S, int lds)
{
    if (k < 1 || k > RF_SMALL_HEAD_K || cols > RF_SMALL_HEAD_COLS || !have_avx512())
        return false;
    if (rows > 0 && cols > 0)
        nt_avx512(rows, cols, k, scale, A, lda, B, ldb, S, lds);
    return true;
}
