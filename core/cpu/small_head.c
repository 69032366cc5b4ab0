/* The short-inner-dimension product of one head's scores (small_head.h). */
#include "small_head.h"

#include <immintrin.h>
#include <math.h>
#include <stddef.h>

#include "cpu_features.h"
#include "small_head_avx2.h"
#include "small_head_avx512.h"

/* scale B^T [k, W] (B [cols, k], ldb) into bt, its columns [cols, cols
 * rounded up to 16) zero: the scale rides on the keys, so the score block
 * needs no multiply per score. A head of 8 goes sixteen keys at a time through
 * registers (the key block is transposed once per query block, and
 * scalar moves took a fifth of the kernel); other widths key by key. */
__attribute__((target("avx512f"))) static void transpose_keys(int cols, int k, float scale, const float *B, int ldb,
                                                               float *bt)
{
    enum { W = RF_SMALL_HEAD_COLS };
    __m512 sc = _mm512_set1_ps(scale);
    int c = 0;
    if (k == 8)
        for (; c + 16 <= cols; c += 16) {
            /* w[r] = [key c + r | key c + r + 8]: transpose_8x16 then
             * gives z[d] = dimension d of the sixteen keys */
            __m512 w[8], z[8];
            for (int r = 0; r < 8; r++) {
                __m256 lo = _mm256_loadu_ps(B + (long)(c + r) * ldb), hi = _mm256_loadu_ps(B + (long)(c + r + 8) * ldb);
                w[r] = _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(lo)),
                                                           _mm256_castps_pd(hi), 1));
            }
            rf_sh_transpose_8x16(w, z);
            for (int d = 0; d < 8; d++)
                _mm512_store_ps(bt + d * W + c, _mm512_mul_ps(z[d], sc));
        }
    for (; c < cols; c++) {   /* each key's row read once, in order */
        const float *b = B + (long)c * ldb;
        for (int d = 0; d < k; d++)
            bt[d * W + c] = scale * b[d];
    }
    int padded = (cols + 15) & ~15;
    for (int d = 0; d < k; d++)
        for (c = cols; c < padded; c++)
            bt[d * W + c] = 0.0f;
}

/* Rows 0 .. R - 1 of the block against every 16-key chunk of bt: R
 * accumulators across the inner dimension (R, the mode and, for a head of
 * 8, k are constants here, so the loops unroll into registers). */
static inline __attribute__((always_inline, target("avx512f"))) void
score_rows(int R, int k, const float *A, int lda, const float *bt, int cols, rf_sh_epilogue e, float *S, int lds)
{
    enum { W = RF_SMALL_HEAD_COLS };
    int padded = (cols + 15) & ~15;
    rf_sh_rows state;
    rf_sh_rows_start(R, &e, &state);
    for (int c = 0; c < padded; c += 16) {
        __m512 x[8], b = _mm512_load_ps(bt + c);
        _Pragma("GCC unroll 8") for (int t = 0; t < R; t++)
            x[t] = _mm512_mul_ps(_mm512_set1_ps(A[(long)t * lda]), b);
        _Pragma("GCC unroll 16") for (int d = 1; d < k; d++) {
            b = _mm512_load_ps(bt + d * W + c);
            _Pragma("GCC unroll 8") for (int t = 0; t < R; t++)
                x[t] = _mm512_fmadd_ps(_mm512_set1_ps(A[(long)t * lda + d]), b, x[t]);
        }
        rf_sh_store_chunk(R, &e, &state, c, cols, x, false, S, lds);
    }
    rf_sh_rows_finish(R, &e, &state);
}

/* The block, eight rows at a time, then four, then one. */
static inline __attribute__((always_inline, target("avx512f"))) void
score_block(int rows, int k, const float *A, int lda, const float *bt, int cols, rf_sh_epilogue e, float *S, int lds)
{
    int r = 0;
    for (; r + 8 <= rows; r += 8)
        score_rows(8, k, A + (long)r * lda, lda, bt, cols, rf_sh_rows_from(e, r), S + (long)r * lds, lds);
    for (; r + 4 <= rows; r += 4)
        score_rows(4, k, A + (long)r * lda, lda, bt, cols, rf_sh_rows_from(e, r), S + (long)r * lds, lds);
    for (; r < rows; r++)
        score_rows(1, k, A + (long)r * lda, lda, bt, cols, rf_sh_rows_from(e, r), S + (long)r * lds, lds);
}

/* The block against a prepared key block, for a head of 8 (the ListOps
 * models, fully unrolled) or any other k <= RF_SMALL_HEAD_K; one function
 * per mode. */
#define SCORE_KERNEL(name, MODE)                                                                                    \
    __attribute__((target("avx512f"))) static void name(int rows, const float *A, int lda,                         \
                                                        const rf_small_head_keys *keys, rf_sh_epilogue e,           \
                                                        float *S, int lds)                                          \
    {                                                                                                               \
        e.mode = MODE;                                                                                              \
        if (keys->k == 8)                                                                                           \
            score_block(rows, 8, A, lda, keys->t, keys->cols, e, S, lds);                                           \
        else                                                                                                        \
            score_block(rows, keys->k, A, lda, keys->t, keys->cols, e, S, lds);                                     \
    }
SCORE_KERNEL(nt_avx512, RF_SH_SCORES)
SCORE_KERNEL(probs_avx512, RF_SH_PROBS)
SCORE_KERNEL(ds_avx512, RF_SH_DS)

/* C [m, n] += alpha X B with X(i, j) = A[i si + j sj] (A or A^T), B [inner,
 * n] (ldb), n <= 8: eight output rows in registers, each row of B loaded
 * once for all eight, the inner dimension in order. 256-bit registers: a
 * masked 512-bit FMA costs a full one, and Zen 4 runs two 256-bit FMAs for
 * each 512-bit one (a 512-bit version was 10% slower than OpenBLAS on full
 * attention's step, this one 4% faster; on LS's band products, whose inner
 * dimension runs to N, OpenBLAS stayed faster, so LS keeps it). */
__attribute__((target("avx512f,avx512vl,fma"))) static void acc_avx512(int m, int n, int inner, float alpha,
                                                                        const float *A, long si, long sj,
                                                                        const float *B, int ldb, float *C, int ldc)
{
    __mmask8 mask = (__mmask8)((1u << n) - 1);
    __m256 al = _mm256_set1_ps(alpha);
    int i = 0;
    for (; i + 8 <= m; i += 8) {
        /* named accumulators: GCC keeps an array of eight on the stack */
        __m256 x0 = _mm256_setzero_ps(), x1 = x0, x2 = x0, x3 = x0, x4 = x0, x5 = x0, x6 = x0, x7 = x0;
        const float *a = A + i * si;
        for (int j = 0; j < inner; j++) {
            __m256 b = _mm256_maskz_loadu_ps(mask, B + (long)j * ldb);
            const float *aj = a + j * sj;
            x0 = _mm256_fmadd_ps(_mm256_set1_ps(aj[0]), b, x0);
            x1 = _mm256_fmadd_ps(_mm256_set1_ps(aj[si]), b, x1);
            x2 = _mm256_fmadd_ps(_mm256_set1_ps(aj[2 * si]), b, x2);
            x3 = _mm256_fmadd_ps(_mm256_set1_ps(aj[3 * si]), b, x3);
            x4 = _mm256_fmadd_ps(_mm256_set1_ps(aj[4 * si]), b, x4);
            x5 = _mm256_fmadd_ps(_mm256_set1_ps(aj[5 * si]), b, x5);
            x6 = _mm256_fmadd_ps(_mm256_set1_ps(aj[6 * si]), b, x6);
            x7 = _mm256_fmadd_ps(_mm256_set1_ps(aj[7 * si]), b, x7);
        }
        __m256 x[8] = {x0, x1, x2, x3, x4, x5, x6, x7};
        for (int t = 0; t < 8; t++) {
            float *c = C + (long)(i + t) * ldc;
            _mm256_mask_storeu_ps(c, mask, _mm256_fmadd_ps(x[t], al, _mm256_maskz_loadu_ps(mask, c)));
        }
    }
    for (; i < m; i++) {
        __m256 x = _mm256_setzero_ps();
        const float *a = A + i * si;
        for (int j = 0; j < inner; j++)
            x = _mm256_fmadd_ps(_mm256_set1_ps(a[j * sj]), _mm256_maskz_loadu_ps(mask, B + (long)j * ldb), x);
        float *c = C + (long)i * ldc;
        _mm256_mask_storeu_ps(c, mask, _mm256_fmadd_ps(x, al, _mm256_maskz_loadu_ps(mask, c)));
    }
}

/* C [m, 8] += alpha A^T B, A [inner, m] (lda), B [inner, 8] (ldb): the keys'
 * gradients of a head of 8 (dV = P^T dO, dK = dS^T Q). Sixteen rows of C
 * at a time, one per lane, from a contiguous row of A, and each of B's 8
 * columns broadcast: full 512-bit FMAs, where eight rows of 8 floats fill
 * only 256 bits; then the 8 x 16 block is transposed into C's rows. */
__attribute__((target("avx512f,avx512vl,fma"))) static void acc_tn8_avx512(int m, int inner, float alpha,
                                                                        const float *A, int lda, const float *B,
                                                                        int ldb, float *C, int ldc)
{
    for (int j0 = 0; j0 < m; j0 += 16) {
        int rows = m - j0 < 16 ? m - j0 : 16;
        __mmask16 valid = rows == 16 ? (__mmask16)0xffff : (__mmask16)((1u << rows) - 1);
        __m512 x0 = _mm512_setzero_ps(), x1 = x0, x2 = x0, x3 = x0, x4 = x0, x5 = x0, x6 = x0, x7 = x0;
        for (int i = 0; i < inner; i++) {
            __m512 a = _mm512_maskz_loadu_ps(valid, A + (long)i * lda + j0);
            const float *b = B + (long)i * ldb;
            x0 = _mm512_fmadd_ps(a, _mm512_set1_ps(b[0]), x0);
            x1 = _mm512_fmadd_ps(a, _mm512_set1_ps(b[1]), x1);
            x2 = _mm512_fmadd_ps(a, _mm512_set1_ps(b[2]), x2);
            x3 = _mm512_fmadd_ps(a, _mm512_set1_ps(b[3]), x3);
            x4 = _mm512_fmadd_ps(a, _mm512_set1_ps(b[4]), x4);
            x5 = _mm512_fmadd_ps(a, _mm512_set1_ps(b[5]), x5);
            x6 = _mm512_fmadd_ps(a, _mm512_set1_ps(b[6]), x6);
            x7 = _mm512_fmadd_ps(a, _mm512_set1_ps(b[7]), x7);
        }
        __m512 v[8] = {x0, x1, x2, x3, x4, x5, x6, x7};
        rf_sh_add_transposed(v, rows, alpha, C + (long)j0 * ldc, ldc);
    }
}

/* The 8 column sums of x[0..7] (x[d]'s 16 lanes summed into lane d). */
__attribute__((always_inline, target("avx512f"))) static inline __m256 sum_lanes8(const __m512 *x)
{
    __m512 t[4], u[2];
    for (int i = 0; i < 4; i++)   /* per 128 bits: x[2i] in lanes 0 and 2, x[2i + 1] in 1 and 3 */
        t[i] = _mm512_add_ps(_mm512_unpacklo_ps(x[2 * i], x[2 * i + 1]), _mm512_unpackhi_ps(x[2 * i], x[2 * i + 1]));
    for (int i = 0; i < 2; i++)   /* per 128 bits: x[4i .. 4i + 3] */
        u[i] = _mm512_add_ps(_mm512_shuffle_ps(t[2 * i], t[2 * i + 1], 0x44),
                             _mm512_shuffle_ps(t[2 * i], t[2 * i + 1], 0xee));
    /* 128-bit blocks: u0's 0 + 2, 1 + 3, then u1's */
    __m512 w = _mm512_add_ps(_mm512_shuffle_f32x4(u[0], u[1], 0x44), _mm512_shuffle_f32x4(u[0], u[1], 0xee));
    w = _mm512_shuffle_f32x4(w, w, 0xd8);   /* blocks 0, 2, 1, 3 */
    return _mm256_add_ps(_mm512_castps512_ps256(w), rf_sh_high_half(w));
}

/* Rows 0 .. R - 1 (R <= 2) of C += alpha P V, values transposed in vt. */
static inline __attribute__((always_inline, target("avx512f,avx512vl,fma"))) void
pv_rows(int R, int padded, float alpha, const float *P, int ldp, const float *vt, float *C, int ldc)
{
    enum { W = RF_SMALL_HEAD_COLS };
    __m512 x[2][8];
    _Pragma("GCC unroll 2") for (int t = 0; t < R; t++)
        _Pragma("GCC unroll 8") for (int d = 0; d < 8; d++)
            x[t][d] = _mm512_setzero_ps();
    for (int c = 0; c < padded; c += 16) {
        __m512 a[2];
        _Pragma("GCC unroll 2") for (int t = 0; t < R; t++)
            a[t] = _mm512_loadu_ps(P + (long)t * ldp + c);
        _Pragma("GCC unroll 8") for (int d = 0; d < 8; d++) {
            __m512 b = _mm512_load_ps(vt + d * W + c);
            _Pragma("GCC unroll 2") for (int t = 0; t < R; t++)
                x[t][d] = _mm512_fmadd_ps(a[t], b, x[t][d]);
        }
    }
    __m256 al = _mm256_set1_ps(alpha);
    _Pragma("GCC unroll 2") for (int t = 0; t < R; t++) {
        float *c = C + (long)t * ldc;
        _mm256_storeu_ps(c, _mm256_fmadd_ps(sum_lanes8(x[t]), al, _mm256_loadu_ps(c)));
    }
}

__attribute__((target("avx512f,avx512vl,fma"))) static void pv_avx512(int rows, float alpha, const float *P, int ldp,
                                                                       const rf_small_head_keys *values, float *C,
                                                                       int ldc)
{
    int padded = (values->cols + 15) & ~15, r = 0;
    for (; r + 2 <= rows; r += 2)
        pv_rows(2, padded, alpha, P + (long)r * ldp, ldp, values->t, C + (long)r * ldc, ldc);
    if (r < rows)
        pv_rows(1, padded, alpha, P + (long)r * ldp, ldp, values->t, C + (long)r * ldc, ldc);
}

bool rf_small_head_pv(int rows, float alpha, const float *P, int ldp, const rf_small_head_keys *values, float *C,
                      int ldc)
{
    if (values->k != 8 || !rf_cpu_avx512())
        return false;
    if (rows > 0)
        pv_avx512(rows, alpha, P, ldp, values, C, ldc);
    return true;
}

/* Whether this CPU runs the kernels: AVX-512 (F and VL) or AVX2 with FMA. */
static bool have_kernels(void)
{
    return rf_cpu_avx512() || rf_cpu_avx2();
}

/* A block against loaded keys on this CPU's kernels, stored as e says. */
static void run_block(int rows, const float *A, int lda, const rf_small_head_keys *keys, rf_sh_epilogue e, float *S,
                      int lds)
{
    if (rows < 1)
        return;
    if (!rf_cpu_avx512())
        rf_sh_avx2_block(rows, A, lda, keys, e, S, lds);
    else if (e.mode == RF_SH_PROBS)
        probs_avx512(rows, A, lda, keys, e, S, lds);
    else if (e.mode == RF_SH_DS)
        ds_avx512(rows, A, lda, keys, e, S, lds);
    else
        nt_avx512(rows, A, lda, keys, e, S, lds);
}

bool rf_small_head_acc(bool ta, int m, int n, int inner, float alpha, const float *A, int lda, const float *B,
                       int ldb, float *C, int ldc)
{
    if (n < 1 || n > RF_SMALL_HEAD_N || !have_kernels())
        return false;
    if (m < 1)
        return true;
    if (!rf_cpu_avx512())
        rf_sh_avx2_acc(m, n, inner, alpha, A, ta ? 1 : lda, ta ? lda : 1, B, ldb, C, ldc);
    else if (ta && n == 8)
        acc_tn8_avx512(m, inner, alpha, A, lda, B, ldb, C, ldc);
    else
        acc_avx512(m, n, inner, alpha, A, ta ? 1 : lda, ta ? lda : 1, B, ldb, C, ldc);
    return true;
}

bool rf_small_head_load_keys(rf_small_head_keys *keys, int cols, int k, float scale, const float *B, int ldb)
{
    if (k < 1 || k > RF_SMALL_HEAD_K || cols < 1 || cols > RF_SMALL_HEAD_COLS || !have_kernels())
        return false;
    if (rf_cpu_avx512())
        transpose_keys(cols, k, scale, B, ldb, keys->t);
    else
        rf_sh_avx2_load(cols, k, scale, B, ldb, keys->t);
    keys->cols = cols;
    keys->k = k;
    return true;
}

bool rf_small_head_nt(int rows, int cols, int k, float scale, const float *A, int lda, const float *B, int ldb,
                      float *S, int lds)
{
    if (k < 1 || k > RF_SMALL_HEAD_K || cols > RF_SMALL_HEAD_COLS || !have_kernels())
        return false;
    rf_small_head_keys keys;
    if (rows > 0 && cols > 0 && rf_small_head_load_keys(&keys, cols, k, scale, B, ldb))
        run_block(rows, A, lda, &keys, (rf_sh_epilogue){.mode = RF_SH_SCORES, .fill = 0.0f}, S, lds);
    return true;
}

int rf_small_head_nt_fill(int rows, int cols, int k, float scale, const float *A, int lda, const float *B, int ldb,
                          float *S, int lds, float fill)
{
    if (k < 1 || k > RF_SMALL_HEAD_K || cols > RF_SMALL_HEAD_COLS || !have_kernels())
        return 0;
    rf_small_head_keys keys;
    if (rows > 0 && cols > 0 && rf_small_head_load_keys(&keys, cols, k, scale, B, ldb))
        run_block(rows, A, lda, &keys, (rf_sh_epilogue){.mode = RF_SH_SCORES, .pad = true, .fill = fill}, S, lds);
    return (cols + 15) & ~15;
}

int rf_small_head_scores(int rows, const float *A, int lda, const rf_small_head_keys *keys, const float *bias,
                         bool pad, float *S, int lds, float *row_max)
{
    run_block(rows, A, lda, keys,
              (rf_sh_epilogue){.mode = RF_SH_SCORES, .bias = bias, .pad = pad, .fill = -INFINITY, .row_max = row_max},
              S, lds);
    return pad ? (keys->cols + 15) & ~15 : keys->cols;
}

int rf_small_head_probs(int rows, const float *A, int lda, const rf_small_head_keys *keys, const float *bias,
                        const float *lse, float *P, int ldp)
{
    run_block(rows, A, lda, keys, (rf_sh_epilogue){.mode = RF_SH_PROBS, .bias = bias, .pad = true, .row = lse}, P,
              ldp);
    return (keys->cols + 15) & ~15;
}

int rf_small_head_ds(int rows, const float *A, int lda, const rf_small_head_keys *values, const float *P, int ldp,
                     const float *D, float *dS, int lds)
{
    run_block(rows, A, lda, values,
              (rf_sh_epilogue){.mode = RF_SH_DS, .pad = true, .row = D, .P = P, .ldp = ldp}, dS, lds);
    return (values->cols + 15) & ~15;
}
