/* What the AVX-512 short-head kernels share, f32 (small_head.c) and bf16
 * (small_head_bf16.c): the 8 x 16 transpose and the score kernels'
 * epilogue, which stores a chunk of 16 products x per row as
 * rf_sh_epilogue says (scores, probabilities or score gradients). Only
 * those two files include it; every function here is inlined into
 * kernels whose targets include AVX-512 F. */
#ifndef RF_CPU_SMALL_HEAD_AVX512_H
#define RF_CPU_SMALL_HEAD_AVX512_H

#include <immintrin.h>
#include <math.h>
#include <stdbool.h>

#include "exp16.h"
#include "small_head_avx2.h"

#define RF_SH_INLINE static inline __attribute__((always_inline, target("avx512f")))

/* z[i] = [row i | row i + 8] of the 16 x 8 transpose of v[0..7] (each 16
 * floats): the 8 x 8 transposes of the low and the high halves at once. */
RF_SH_INLINE void rf_sh_transpose_8x16(const __m512 *v, __m512 *z)
{
    __m512 t[8], u[8];
    for (int k = 0; k < 4; k++) {
        t[2 * k] = _mm512_unpacklo_ps(v[2 * k], v[2 * k + 1]);
        t[2 * k + 1] = _mm512_unpackhi_ps(v[2 * k], v[2 * k + 1]);
    }
    for (int k = 0; k < 2; k++) {
        u[4 * k] = _mm512_shuffle_ps(t[4 * k], t[4 * k + 2], 0x44);
        u[4 * k + 1] = _mm512_shuffle_ps(t[4 * k], t[4 * k + 2], 0xee);
        u[4 * k + 2] = _mm512_shuffle_ps(t[4 * k + 1], t[4 * k + 3], 0x44);
        u[4 * k + 3] = _mm512_shuffle_ps(t[4 * k + 1], t[4 * k + 3], 0xee);
    }
    /* within each 256-bit half: the low 128 bits of u[k] and u[k + 4] (rows
     * 0-3 of the half), then the high ones (rows 4-7) */
    const __m512i lo = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27);
    const __m512i hi = _mm512_setr_epi32(4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31);
    for (int k = 0; k < 4; k++) {
        z[k] = _mm512_permutex2var_ps(u[k], lo, u[k + 4]);
        z[k + 4] = _mm512_permutex2var_ps(u[k], hi, u[k + 4]);
    }
}

/* The upper 8 floats (AVX-512 F alone: no DQ's extractf32x8). */
RF_SH_INLINE __m256 rf_sh_high_half(__m512 z)
{
    return _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(z), 1));
}

/* C's rows j0 .. j0 + rows - 1 (rows <= 16, 8 floats each, ldc) +=
 * alpha times the transpose of x[0..7], lane l of x[e] being C's row j0
 * + l, column e. */
__attribute__((always_inline, target("avx512f,avx512vl,fma"))) static inline void
rf_sh_add_transposed(const __m512 *x, int rows, float alpha, float *C, int ldc)
{
    __m256 al = _mm256_set1_ps(alpha);
    __m512 z[8];
    rf_sh_transpose_8x16(x, z);
    for (int i = 0; i < 8; i++) {
        if (i < rows) {
            float *c = C + (long)i * ldc;
            _mm256_storeu_ps(c, _mm256_fmadd_ps(_mm512_castps512_ps256(z[i]), al, _mm256_loadu_ps(c)));
        }
        if (i + 8 < rows) {
            float *c = C + (long)(i + 8) * ldc;
            _mm256_storeu_ps(c, _mm256_fmadd_ps(rf_sh_high_half(z[i]), al, _mm256_loadu_ps(c)));
        }
    }
}

/* The epilogue's per-row state for rows 0 .. R - 1: each row's running max
 * (scores), its lse or D broadcast, and whether it has any valid key
 * (probabilities: a row of lse -inf is zeros). */
typedef struct {
    __m512 mx[8], row[8];
    __mmask16 live[8];
} rf_sh_rows;

RF_SH_INLINE void rf_sh_rows_start(int R, const rf_sh_epilogue *e, rf_sh_rows *s)
{
    _Pragma("GCC unroll 8") for (int t = 0; t < R; t++) {
        s->mx[t] = _mm512_set1_ps(-INFINITY);
        s->row[t] = _mm512_set1_ps(e->mode != RF_SH_SCORES ? e->row[t] : 0.0f);
        s->live[t] = e->mode == RF_SH_PROBS && e->row[t] == -INFINITY ? 0 : (__mmask16)0xffff;
    }
}

/* Stores rows 0 .. R - 1 of the 16-column chunk at c, x[t] row t's
 * products there (columns past cols are what the keys' zero padding
 * gave); probabilities with rf_exp16, or with `coarse` rf_exp16_coarse
 * (the bf16 kernels). */
RF_SH_INLINE void rf_sh_store_chunk(int R, const rf_sh_epilogue *e, rf_sh_rows *s, int c, int cols, const __m512 *x,
                                    bool coarse, float *S, int lds)
{
    bool whole = c + 16 <= cols;   /* then stored as is, no mask */
    __mmask16 m = whole ? (__mmask16)0xffff : (__mmask16)((1u << (cols - c)) - 1);
    __mmask16 w = e->pad ? (__mmask16)0xffff : m;
    __m512 fv = _mm512_set1_ps(e->mode == RF_SH_SCORES ? e->fill : -INFINITY);
    __m512 bv = e->bias != NULL ? _mm512_maskz_loadu_ps(m, e->bias + c) : _mm512_setzero_ps();
    _Pragma("GCC unroll 8") for (int t = 0; t < R; t++) {
        __m512 v;
        if (e->mode == RF_SH_DS)   /* P's columns past cols are 0, and so then is dS */
            v = _mm512_mul_ps(_mm512_loadu_ps(e->P + (long)t * e->ldp + c), _mm512_sub_ps(x[t], s->row[t]));
        else if (whole)
            v = e->bias != NULL ? _mm512_add_ps(x[t], bv) : x[t];
        else
            v = _mm512_mask_add_ps(fv, m, x[t], bv);
        if (e->mode == RF_SH_PROBS)
            v = _mm512_maskz_mov_ps(s->live[t], coarse ? rf_exp16_coarse(_mm512_sub_ps(v, s->row[t]))
                                                        : rf_exp16(_mm512_sub_ps(v, s->row[t])));
        if (whole)
            _mm512_storeu_ps(S + (long)t * lds + c, v);
        else
            _mm512_mask_storeu_ps(S + (long)t * lds + c, w, v);
        if (e->mode == RF_SH_SCORES && e->row_max != NULL)
            s->mx[t] = _mm512_mask_max_ps(s->mx[t], w, s->mx[t], v);
    }
}

RF_SH_INLINE void rf_sh_rows_finish(int R, const rf_sh_epilogue *e, const rf_sh_rows *s)
{
    if (e->mode == RF_SH_SCORES && e->row_max != NULL)
        _Pragma("GCC unroll 8") for (int t = 0; t < R; t++)
            e->row_max[t] = _mm512_reduce_max_ps(s->mx[t]);
}

#endif
