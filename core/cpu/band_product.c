/* The products of LS attention's band segments (band_product.h). */
#include "band_product.h"

#include <immintrin.h>

#include "cpu_features.h"

/* The operand layout: op(A)(i, j) = A[i si + j sj]. */
typedef struct {
    const float *A, *B;   /* the product in hand */
    long si, sj;
    int ldb, inner;
    float alpha, beta;
    float *C;
    int ldc;
} band_args;

/* R output rows from row i, NV vectors of 16 columns each (the last one
 * under `last`), in R x NV accumulators across the whole inner dimension.
 * Inlined with constant R and NV, so the accumulators stay in registers. */
static inline __attribute__((always_inline, target("avx512f"))) void
rows_block(const band_args *p, int i, int R, int NV, __mmask16 last)
{
    __m512 acc[8][4];
    for (int r = 0; r < R; r++)
        for (int v = 0; v < NV; v++)
            acc[r][v] = _mm512_setzero_ps();
    const float *a = p->A + i * p->si;
    for (int j = 0; j < p->inner; j++) {
        const float *b = p->B + (long)j * p->ldb;
        __m512 bv[4];
        for (int v = 0; v < NV; v++)
            bv[v] = _mm512_maskz_loadu_ps(v == NV - 1 ? last : (__mmask16)0xffff, b + 16 * v);
        const float *aj = a + j * p->sj;
        for (int r = 0; r < R; r++) {
            __m512 x = _mm512_set1_ps(aj[r * p->si]);
            for (int v = 0; v < NV; v++)
                acc[r][v] = _mm512_fmadd_ps(x, bv[v], acc[r][v]);
        }
    }
    __m512 al = _mm512_set1_ps(p->alpha);
    for (int r = 0; r < R; r++) {
        float *c = p->C + (long)(i + r) * p->ldc;
        for (int v = 0; v < NV; v++) {
            __mmask16 m = v == NV - 1 ? last : (__mmask16)0xffff;
            __m512 out = p->beta == 0.0f ? _mm512_mul_ps(acc[r][v], al)
                                         : _mm512_fmadd_ps(acc[r][v], al, _mm512_maskz_loadu_ps(m, c + 16 * v));
            _mm512_mask_storeu_ps(c + 16 * v, m, out);
        }
    }
}

/* Every row of each product's C, R rows at a time with R x NV <= 16
 * accumulators (plus NV loads of B and a broadcast: within the 32
 * registers), then one by one. */
#define BAND_ROWS(NV, R)                                                                                     \
    __attribute__((target("avx512f"))) static void band_rows_##NV(band_args p, int m, __mmask16 last,    \
                                                                  const long *step, int count)           \
    {                                                                                                        \
        for (int c = 0; c < count; c++, p.A += step[0], p.B += step[1], p.C += step[2]) {                    \
            int i = 0;                                                                                       \
            for (; i + (R) <= m; i += (R))                                                                   \
                rows_block(&p, i, (R), (NV), last);                                                          \
            for (; i < m; i++)                                                                               \
                rows_block(&p, i, 1, (NV), last);                                                            \
        }                                                                                                    \
    }
BAND_ROWS(1, 8)
BAND_ROWS(2, 8)
BAND_ROWS(3, 4)
BAND_ROWS(4, 4)
#undef BAND_ROWS

bool rf_band_products(int count, long a_step, long b_step, long c_step, bool ta, int m, int n, int inner,
                      float alpha, const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    if (n < 1 || n > RF_BAND_N || !rf_cpu_avx512())
        return false;
    if (m < 1 || count < 1)
        return true;
    band_args p = {A, B, ta ? 1 : lda, ta ? lda : 1, ldb, inner, alpha, beta, C, ldc};
    long step[3] = {a_step, b_step, c_step};
    int nv = (n + 15) / 16, tail = n - 16 * (nv - 1);
    __mmask16 last = tail == 16 ? (__mmask16)0xffff : (__mmask16)((1u << tail) - 1);
    switch (nv) {
    case 1: band_rows_1(p, m, last, step, count); break;
    case 2: band_rows_2(p, m, last, step, count); break;
    case 3: band_rows_3(p, m, last, step, count); break;
    default: band_rows_4(p, m, last, step, count); break;
    }
    return true;
}

bool rf_band_product(bool ta, int m, int n, int inner, float alpha, const float *A, int lda, const float *B,
                     int ldb, float beta, float *C, int ldc)
{
    return rf_band_products(1, 0, 0, 0, ta, m, n, inner, alpha, A, lda, B, ldb, beta, C, ldc);
}
