/* The short-head kernels on AVX2 with FMA (small_head_avx2.h). The key
 * block's layout is small_head.c's: scale B^T [k, RF_SMALL_HEAD_COLS],
 * whole 16-column chunks, so a row written with pad has the same width on
 * both paths. A chunk is two 256-bit halves; four query rows keep 4 x 2
 * accumulators across the inner dimension (eleven of the sixteen
 * registers with the two key halves and a broadcast). */
#include "small_head_avx2.h"

#include <immintrin.h>
#include <math.h>

#include "exp8.h"

#define AVX2 __attribute__((target("avx2,fma")))

/* Lanes i < n all ones, the others zero. */
static inline __attribute__((always_inline)) AVX2 __m256i lanes_below(int n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

static inline __attribute__((always_inline)) AVX2 float max8(__m256 v)
{
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    return _mm_cvtss_f32(_mm_max_ss(m, _mm_movehdup_ps(m)));
}

void rf_sh_avx2_load(int cols, int k, float scale, const float *B, int ldb, float *bt)
{
    enum { W = RF_SMALL_HEAD_COLS };
    for (int c = 0; c < cols; c++) {   /* each key's row read once, in order */
        const float *b = B + (long)c * ldb;
        for (int d = 0; d < k; d++)
            bt[d * W + c] = scale * b[d];
    }
    int padded = (cols + 15) & ~15;
    for (int d = 0; d < k; d++)
        for (int c = cols; c < padded; c++)
            bt[d * W + c] = 0.0f;
}

/* The epilogue of row t's half-chunk x at columns c.. (8 of them, `valid`
 * of those before cols: all 8 when whole). */
static inline __attribute__((always_inline)) AVX2 void store_half(rf_sh_epilogue e, int t, int c, bool whole,
                                                                   __m256i valid, __m256 x, __m256 bias, __m256 fill,
                                                                   __m256 row, __m256 live, __m256 *mx, float *S)
{
    __m256 v;
    if (e.mode == RF_SH_DS)   /* P's columns past cols are 0, and so then is dS */
        v = _mm256_mul_ps(_mm256_loadu_ps(e.P + (long)t * e.ldp + c), _mm256_sub_ps(x, row));
    else if (whole)
        v = e.bias != NULL ? _mm256_add_ps(x, bias) : x;
    else
        v = _mm256_blendv_ps(fill, _mm256_add_ps(x, bias), _mm256_castsi256_ps(valid));
    if (e.mode == RF_SH_PROBS)
        v = _mm256_and_ps(live, rf_exp8(_mm256_sub_ps(v, row)));
    if (e.pad || whole)
        _mm256_storeu_ps(S + c, v);
    else
        _mm256_maskstore_ps(S + c, valid, v);
    /* a row's max is asked with fill -inf: the lanes past cols add nothing */
    if (e.mode == RF_SH_SCORES && e.row_max != NULL)
        *mx = _mm256_max_ps(*mx, v);
}

/* Rows 0 .. R - 1 (R <= 4) against every 16-key chunk of bt; R, the mode
 * and for a head of 8 k are constants where this is inlined, so the loops
 * unroll into registers. */
static inline __attribute__((always_inline)) AVX2 void score_rows(int R, int k, const float *A, int lda,
                                                                   const float *bt, int cols, rf_sh_epilogue e,
                                                                   float *S, int lds)
{
    enum { W = RF_SMALL_HEAD_COLS };
    int padded = (cols + 15) & ~15;
    __m256 fill = _mm256_set1_ps(e.mode == RF_SH_SCORES ? e.fill : -INFINITY), mx[4], row[4], live[4];
    _Pragma("GCC unroll 4") for (int t = 0; t < R; t++) {
        mx[t] = _mm256_set1_ps(-INFINITY);
        row[t] = _mm256_set1_ps(e.mode != RF_SH_SCORES ? e.row[t] : 0.0f);
        live[t] = _mm256_castsi256_ps(
            _mm256_set1_epi32(e.mode == RF_SH_PROBS && e.row[t] == -INFINITY ? 0 : -1));
    }
    for (int c = 0; c < padded; c += 16) {
        __m256 x[4][2], b0 = _mm256_load_ps(bt + c), b1 = _mm256_load_ps(bt + c + 8);
        _Pragma("GCC unroll 4") for (int t = 0; t < R; t++) {
            __m256 a = _mm256_broadcast_ss(A + (long)t * lda);
            x[t][0] = _mm256_mul_ps(a, b0);
            x[t][1] = _mm256_mul_ps(a, b1);
        }
        _Pragma("GCC unroll 16") for (int d = 1; d < k; d++) {
            b0 = _mm256_load_ps(bt + d * W + c);
            b1 = _mm256_load_ps(bt + d * W + c + 8);
            _Pragma("GCC unroll 4") for (int t = 0; t < R; t++) {
                __m256 a = _mm256_broadcast_ss(A + (long)t * lda + d);
                x[t][0] = _mm256_fmadd_ps(a, b0, x[t][0]);
                x[t][1] = _mm256_fmadd_ps(a, b1, x[t][1]);
            }
        }
        for (int h = 0; h < 2; h++) {
            int at = c + 8 * h;
            bool whole = at + 8 <= cols;
            __m256i valid = lanes_below(cols - at);
            __m256 bias = e.bias != NULL ? _mm256_maskload_ps(e.bias + at, valid) : _mm256_setzero_ps();
            _Pragma("GCC unroll 4") for (int t = 0; t < R; t++)
                store_half(e, t, at, whole, valid, x[t][h], bias, fill, row[t], live[t], &mx[t], S + (long)t * lds);
        }
    }
    if (e.mode == RF_SH_SCORES && e.row_max != NULL)
        _Pragma("GCC unroll 4") for (int t = 0; t < R; t++)
            e.row_max[t] = max8(mx[t]);
}

/* The block, four rows at a time, then one. */
static inline __attribute__((always_inline)) AVX2 void score_block(int rows, int k, const float *A, int lda,
                                                                    const float *bt, int cols, rf_sh_epilogue e,
                                                                    float *S, int lds)
{
    int r = 0;
    for (; r + 4 <= rows; r += 4)
        score_rows(4, k, A + (long)r * lda, lda, bt, cols, rf_sh_rows_from(e, r), S + (long)r * lds, lds);
    for (; r < rows; r++)
        score_rows(1, k, A + (long)r * lda, lda, bt, cols, rf_sh_rows_from(e, r), S + (long)r * lds, lds);
}

/* One function per mode; a head of 8 (the ListOps models) fully unrolled. */
#define SCORE_KERNEL(name, MODE)                                                                                   \
    static AVX2 void name(int rows, const float *A, int lda, const rf_small_head_keys *keys, rf_sh_epilogue e,     \
                          float *S, int lds)                                                                       \
    {                                                                                                              \
        e.mode = MODE;                                                                                             \
        if (keys->k == 8)                                                                                          \
            score_block(rows, 8, A, lda, keys->t, keys->cols, e, S, lds);                                          \
        else                                                                                                       \
            score_block(rows, keys->k, A, lda, keys->t, keys->cols, e, S, lds);                                    \
    }
SCORE_KERNEL(scores_avx2, RF_SH_SCORES)
SCORE_KERNEL(probs_avx2, RF_SH_PROBS)
SCORE_KERNEL(ds_avx2, RF_SH_DS)

void rf_sh_avx2_block(int rows, const float *A, int lda, const rf_small_head_keys *keys, rf_sh_epilogue e, float *S,
                      int lds)
{
    if (e.mode == RF_SH_PROBS)
        probs_avx2(rows, A, lda, keys, e, S, lds);
    else if (e.mode == RF_SH_DS)
        ds_avx2(rows, A, lda, keys, e, S, lds);
    else
        scores_avx2(rows, A, lda, keys, e, S, lds);
}

/* Eight output rows in registers, each row of B loaded once for all
 * eight, the inner dimension in order (small_head.c's acc_avx512 with
 * AVX2's lane masks). */
AVX2 void rf_sh_avx2_acc(int m, int n, int inner, float alpha, const float *A, long si, long sj, const float *B,
                         int ldb, float *C, int ldc)
{
    __m256i mask = lanes_below(n);
    __m256 al = _mm256_set1_ps(alpha);
    int i = 0;
    for (; i + 8 <= m; i += 8) {
        /* named accumulators: GCC keeps an array of eight on the stack */
        __m256 x0 = _mm256_setzero_ps(), x1 = x0, x2 = x0, x3 = x0, x4 = x0, x5 = x0, x6 = x0, x7 = x0;
        const float *a = A + i * si;
        for (int j = 0; j < inner; j++) {
            __m256 b = _mm256_maskload_ps(B + (long)j * ldb, mask);
            const float *aj = a + j * sj;
            x0 = _mm256_fmadd_ps(_mm256_broadcast_ss(aj), b, x0);
            x1 = _mm256_fmadd_ps(_mm256_broadcast_ss(aj + si), b, x1);
            x2 = _mm256_fmadd_ps(_mm256_broadcast_ss(aj + 2 * si), b, x2);
            x3 = _mm256_fmadd_ps(_mm256_broadcast_ss(aj + 3 * si), b, x3);
            x4 = _mm256_fmadd_ps(_mm256_broadcast_ss(aj + 4 * si), b, x4);
            x5 = _mm256_fmadd_ps(_mm256_broadcast_ss(aj + 5 * si), b, x5);
            x6 = _mm256_fmadd_ps(_mm256_broadcast_ss(aj + 6 * si), b, x6);
            x7 = _mm256_fmadd_ps(_mm256_broadcast_ss(aj + 7 * si), b, x7);
        }
        __m256 x[8] = {x0, x1, x2, x3, x4, x5, x6, x7};
        for (int t = 0; t < 8; t++) {
            float *c = C + (long)(i + t) * ldc;
            _mm256_maskstore_ps(c, mask, _mm256_fmadd_ps(x[t], al, _mm256_maskload_ps(c, mask)));
        }
    }
    for (; i < m; i++) {
        __m256 x = _mm256_setzero_ps();
        const float *a = A + i * si;
        for (int j = 0; j < inner; j++)
            x = _mm256_fmadd_ps(_mm256_broadcast_ss(a + j * sj), _mm256_maskload_ps(B + (long)j * ldb, mask), x);
        float *c = C + (long)i * ldc;
        _mm256_maskstore_ps(c, mask, _mm256_fmadd_ps(x, al, _mm256_maskload_ps(c, mask)));
    }
}
