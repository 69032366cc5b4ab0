/* The short-head kernels in bf16 (small_head_bf16.h). */
#include "small_head_bf16.h"

#include <immintrin.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../gemm_bf16.h"
#include "cpu_features.h"
#include "small_head_avx512.h"

#define BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16,fma")))
#define BF16_INLINE static inline __attribute__((always_inline, target("avx512f,avx512bw,avx512vl,avx512bf16,fma")))

enum { W = RF_SMALL_HEAD_COLS };

typedef int32_t __attribute__((may_alias)) pair32;   /* two bf16 of a row, read as one */

bool rf_sh16_available(void)
{
    static int known = -1;   /* as rf_cpu_avx512: asked from the pool's threads */
    int yes = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (yes < 0) {
        __builtin_cpu_init();
        yes = rf_cpu_avx512() && rf_bf16_supported() && __builtin_cpu_supports("avx512bw");
        __atomic_store_n(&known, yes, __ATOMIC_RELAXED);
    }
    return yes;
}

bool rf_sh16_for_attention(void)
{
    if (!rf_sh16_available())
        return false;
    const char *env = getenv("RF_BF16_ATTENTION");
    if (env != NULL && strcmp(env, "on") == 0)
        return true;
    if (env != NULL && strcmp(env, "off") == 0)
        return false;
    static int known = -1;   /* asked from the pool's threads, as above */
    int amd = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (amd < 0) {
        __builtin_cpu_init();
        amd = __builtin_cpu_is("amd") != 0;
        __atomic_store_n(&known, amd, __ATOMIC_RELAXED);
    }
    return amd;
}

/* Sixteen floats rounded to bf16, each widened into the low half of a
 * 32-bit lane. */
BF16_INLINE __m512i low_halves(__m512 v)
{
    return _mm512_cvtepu16_epi32((__m256i)_mm512_cvtneps_pbh(v));
}

/* Eight floats rounded to bf16 (128 bits). */
BF16_INLINE __m128i round8(const float *x)
{
    return (__m128i)_mm256_cvtneps_pbh(_mm256_loadu_ps(x));
}

/* kt[d W + c ..], 16 keys from c: B's rows c .. c + 15 (ldb) scaled, in
 * pairs of dimensions. */
BF16_INLINE void load_dimension_pairs(int c, float scale, const float *B, int ldb, uint32_t *kt)
{
    __m512 w[8], z[8], sc = _mm512_set1_ps(scale);
    for (int r = 0; r < 8; r++) {   /* w[r] = [key c + r | key c + r + 8] */
        __m256 lo = _mm256_loadu_ps(B + (long)r * ldb), hi = _mm256_loadu_ps(B + (long)(r + 8) * ldb);
        w[r] = _mm512_castpd_ps(
            _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(lo)), _mm256_castps_pd(hi), 1));
    }
    rf_sh_transpose_8x16(w, z);   /* z[d]: dimension d of the sixteen keys */
    for (int d = 0; d < RF_SH16_K / 2; d++) {
        __m512i pair = _mm512_or_si512(low_halves(_mm512_mul_ps(z[2 * d], sc)),
                                       _mm512_slli_epi32(low_halves(_mm512_mul_ps(z[2 * d + 1], sc)), 16));
        _mm512_store_si512(kt + d * W + c, pair);
    }
}

BF16 bool rf_sh16_load(rf_sh16_keys *keys, int cols, int k, float scale, const float *B, int ldb)
{
    if (k != RF_SH16_K || cols < 1 || cols > RF_SMALL_HEAD_COLS || !rf_sh16_available())
        return false;
    int padded = (cols + 15) & ~15;
    float tail[16 * RF_SH16_K] = {0};   /* the last partial chunk's keys, zero past cols */
    for (int c = 0; c < padded; c += 16) {
        if (c + 16 <= cols) {
            load_dimension_pairs(c, scale, B + (long)c * ldb, ldb, keys->t);
            continue;
        }
        for (int r = 0; r < cols - c; r++)
            for (int d = 0; d < RF_SH16_K; d++)
                tail[r * RF_SH16_K + d] = B[(long)(c + r) * ldb + d];
        load_dimension_pairs(c, scale, tail, RF_SH16_K, keys->t);
    }
    for (int j = 0; j < padded / 2; j++) {   /* pairs of keys, unscaled */
        int k0 = 2 * j, k1 = 2 * j + 1;
        __m128i r0 = k0 < cols ? round8(B + (long)k0 * ldb) : _mm_setzero_si128();
        __m128i r1 = k1 < cols ? round8(B + (long)k1 * ldb) : _mm_setzero_si128();
        _mm_store_si128((__m128i *)(keys->p + j * RF_SH16_K), _mm_unpacklo_epi16(r0, r1));
        _mm_store_si128((__m128i *)(keys->p + j * RF_SH16_K + 4), _mm_unpackhi_epi16(r0, r1));
    }
    keys->cols = cols;
    return true;
}

/* Rows 0 .. R - 1 of A against every 16-key chunk of kt, each row's 8
 * dimensions as 4 pairs broadcast; the epilogue as the f32 kernel's. */
BF16_INLINE void score_rows(int R, const float *A, int lda, const uint32_t *kt, int cols, rf_sh_epilogue e, float *S,
                            int lds)
{
    uint32_t q[8][RF_SH16_K / 2] __attribute__((aligned(16)));
    _Pragma("GCC unroll 8") for (int t = 0; t < R; t++)
        _mm_store_si128((__m128i *)q[t], round8(A + (long)t * lda));
    int padded = (cols + 15) & ~15;
    rf_sh_rows state;
    rf_sh_rows_start(R, &e, &state);
    for (int c = 0; c < padded; c += 16) {
        __m512 x[8];
        _Pragma("GCC unroll 8") for (int t = 0; t < R; t++)
            x[t] = _mm512_setzero_ps();
        _Pragma("GCC unroll 4") for (int d = 0; d < RF_SH16_K / 2; d++) {
            __m512bh b = (__m512bh)_mm512_load_si512(kt + d * W + c);
            _Pragma("GCC unroll 8") for (int t = 0; t < R; t++)
                x[t] = _mm512_dpbf16_ps(x[t], (__m512bh)_mm512_set1_epi32((int)q[t][d]), b);
        }
        rf_sh_store_chunk(R, &e, &state, c, cols, x, true, S, lds);
    }
    rf_sh_rows_finish(R, &e, &state);
}

/* The block eight rows at a time, then one; one function per mode. */
#define SCORE_KERNEL(name, MODE)                                                                                   \
    static BF16 void name(int rows, const float *A, int lda, const rf_sh16_keys *keys, rf_sh_epilogue e, float *S, \
                          int lds)                                                                                 \
    {                                                                                                              \
        e.mode = MODE;                                                                                             \
        int r = 0;                                                                                                 \
        for (; r + 8 <= rows; r += 8)                                                                              \
            score_rows(8, A + (long)r * lda, lda, keys->t, keys->cols, rf_sh_rows_from(e, r), S + (long)r * lds,   \
                       lds);                                                                                       \
        for (; r < rows; r++)                                                                                      \
            score_rows(1, A + (long)r * lda, lda, keys->t, keys->cols, rf_sh_rows_from(e, r), S + (long)r * lds,   \
                       lds);                                                                                       \
    }
SCORE_KERNEL(scores16, RF_SH_SCORES)
SCORE_KERNEL(probs16, RF_SH_PROBS)
SCORE_KERNEL(ds16, RF_SH_DS)

int rf_sh16_scores(int rows, const float *A, int lda, const rf_sh16_keys *keys, const float *bias, bool pad, float *S,
                   int lds, float *row_max)
{
    scores16(rows, A, lda, keys,
             (rf_sh_epilogue){.bias = bias, .pad = pad, .fill = -INFINITY, .row_max = row_max}, S, lds);
    return pad ? (keys->cols + 15) & ~15 : keys->cols;
}

int rf_sh16_probs(int rows, const float *A, int lda, const rf_sh16_keys *keys, const float *bias, const float *lse,
                  float *P, int ldp)
{
    probs16(rows, A, lda, keys, (rf_sh_epilogue){.bias = bias, .pad = true, .row = lse}, P, ldp);
    return (keys->cols + 15) & ~15;
}

int rf_sh16_ds(int rows, const float *A, int lda, const rf_sh16_keys *values, const float *P, int ldp,
               const float *D, float *dS, int lds)
{
    ds16(rows, A, lda, values, (rf_sh_epilogue){.pad = true, .row = D, .P = P, .ldp = ldp}, dS, lds);
    return (values->cols + 15) & ~15;
}

/* C's rows 0 .. R - 1 += alpha A B: the rows of A rounded into a[t] (zero
 * from inner on), then per pair of keys one 256-bit row of B's pairs and
 * a broadcast pair of each row of A. */
BF16_INLINE void acc_rows(int R, int inner, float alpha, const float *A, int lda, const uint32_t *p, float *C, int ldc)
{
    uint16_t a[8][RF_SMALL_HEAD_COLS] __attribute__((aligned(32)));
    for (int t = 0; t < R; t++)
        for (int c = 0; c < inner; c += 16) {
            __mmask16 m = inner - c >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (inner - c)) - 1);
            __m256bh h = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(m, A + (long)t * lda + c));
            _mm256_store_si256((__m256i *)(a[t] + c), (__m256i)h);
        }
    /* two sets of accumulators, even and odd pairs of keys: sixteen sums in
     * flight cover the latency of VDPBF16PS */
    __m256 x[8], y[8];
    _Pragma("GCC unroll 8") for (int t = 0; t < R; t++)
        x[t] = y[t] = _mm256_setzero_ps();
    int pairs = (inner + 1) / 2, j = 0;
    for (; j + 2 <= pairs; j += 2) {
        __m256bh b0 = (__m256bh)_mm256_load_si256((const __m256i *)(p + j * RF_SH16_K));
        __m256bh b1 = (__m256bh)_mm256_load_si256((const __m256i *)(p + (j + 1) * RF_SH16_K));
        _Pragma("GCC unroll 8") for (int t = 0; t < R; t++) {
            x[t] = _mm256_dpbf16_ps(x[t], (__m256bh)_mm256_set1_epi32(((const pair32 *)a[t])[j]), b0);
            y[t] = _mm256_dpbf16_ps(y[t], (__m256bh)_mm256_set1_epi32(((const pair32 *)a[t])[j + 1]), b1);
        }
    }
    if (j < pairs) {
        __m256bh b = (__m256bh)_mm256_load_si256((const __m256i *)(p + j * RF_SH16_K));
        _Pragma("GCC unroll 8") for (int t = 0; t < R; t++)
            x[t] = _mm256_dpbf16_ps(x[t], (__m256bh)_mm256_set1_epi32(((const pair32 *)a[t])[j]), b);
    }
    __m256 al = _mm256_set1_ps(alpha);
    _Pragma("GCC unroll 8") for (int t = 0; t < R; t++) {
        float *c = C + (long)t * ldc;
        _mm256_storeu_ps(c, _mm256_fmadd_ps(_mm256_add_ps(x[t], y[t]), al, _mm256_loadu_ps(c)));
    }
}

BF16 void rf_sh16_acc(int m, int inner, float alpha, const float *A, int lda, const rf_sh16_keys *b, float *C,
                      int ldc)
{
    if (inner < 1)
        return;
    int i = 0;
    for (; i + 8 <= m; i += 8)
        acc_rows(8, inner, alpha, A + (long)i * lda, lda, b->p, C + (long)i * ldc, ldc);
    for (; i < m; i++)
        acc_rows(1, inner, alpha, A + (long)i * lda, lda, b->p, C + (long)i * ldc, ldc);
}

/* Lane 2i of the result takes element i of a 32-element vector, lane 2i +
 * 1 element 16 + i: two rows of 16 bf16 into 16 pairs. */
static const uint16_t interleave_rows[32] __attribute__((aligned(64))) = {
    0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31};

/* Rows a and a + lda (the second only when left > 1), the 16 columns of
 * `valid`, rounded and interleaved into 16 pairs. */
BF16_INLINE __m512bh interleaved(__m512i order, __mmask16 valid, const float *a, int lda, int left)
{
    __m512 a0 = _mm512_maskz_loadu_ps(valid, a);
    __m512 a1 = left > 1 ? _mm512_maskz_loadu_ps(valid, a + lda) : _mm512_setzero_ps();
    return (__m512bh)_mm512_permutexvar_epi16(order, (__m512i)_mm512_cvtne2ps_pbh(a1, a0));
}

/* Sixteen rows of C at a time, one per lane (as the f32 acc_tn8): per pair
 * of A's rows (queries), their 16 columns interleaved into pairs, and each
 * of B's 8 columns as a broadcast pair. */
static BF16 void acc_tn(int m, int inner, float alpha, const float *A, int lda, const float *B, int ldb, float *C,
                        int ldc)
{
    uint32_t bp[RF_SH16_INNER / 2][RF_SH16_K] __attribute__((aligned(32)));
    int pairs = (inner + 1) / 2;
    for (int j = 0; j < pairs; j++) {
        __m128i r0 = round8(B + (long)(2 * j) * ldb);
        __m128i r1 = 2 * j + 1 < inner ? round8(B + (long)(2 * j + 1) * ldb) : _mm_setzero_si128();
        _mm_store_si128((__m128i *)bp[j], _mm_unpacklo_epi16(r0, r1));
        _mm_store_si128((__m128i *)(bp[j] + 4), _mm_unpackhi_epi16(r0, r1));
    }
    const __m512i order = _mm512_load_si512(interleave_rows);
    for (int j0 = 0; j0 < m; j0 += 16) {
        int rows = m - j0 < 16 ? m - j0 : 16;
        __mmask16 valid = rows == 16 ? (__mmask16)0xffff : (__mmask16)((1u << rows) - 1);
        __m512 x[8], y[8];   /* even and odd pairs of queries, as in acc_rows */
        _Pragma("GCC unroll 8") for (int e = 0; e < 8; e++)
            x[e] = y[e] = _mm512_setzero_ps();
        int j = 0;
        for (; j + 2 <= pairs; j += 2) {
            __m512bh a = interleaved(order, valid, A + (long)(2 * j) * lda + j0, lda, inner - 2 * j);
            __m512bh b = interleaved(order, valid, A + (long)(2 * j + 2) * lda + j0, lda, inner - 2 * j - 2);
            _Pragma("GCC unroll 8") for (int e = 0; e < 8; e++) {
                x[e] = _mm512_dpbf16_ps(x[e], (__m512bh)_mm512_set1_epi32((int)bp[j][e]), a);
                y[e] = _mm512_dpbf16_ps(y[e], (__m512bh)_mm512_set1_epi32((int)bp[j + 1][e]), b);
            }
        }
        if (j < pairs) {
            __m512bh a = interleaved(order, valid, A + (long)(2 * j) * lda + j0, lda, inner - 2 * j);
            _Pragma("GCC unroll 8") for (int e = 0; e < 8; e++)
                x[e] = _mm512_dpbf16_ps(x[e], (__m512bh)_mm512_set1_epi32((int)bp[j][e]), a);
        }
        _Pragma("GCC unroll 8") for (int e = 0; e < 8; e++)
            x[e] = _mm512_add_ps(x[e], y[e]);
        rf_sh_add_transposed(x, rows, alpha, C + (long)j0 * ldc, ldc);
    }
}

bool rf_sh16_acc_tn(int m, int inner, float alpha, const float *A, int lda, const float *B, int ldb, float *C,
                    int ldc)
{
    if (inner > RF_SH16_INNER || !rf_sh16_available())
        return false;
    if (m > 0 && inner > 0)
        acc_tn(m, inner, alpha, A, lda, B, ldb, C, ldc);
    return true;
}
