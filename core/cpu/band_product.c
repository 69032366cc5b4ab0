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

/* The part of the product over inner indices [j0, j0 + len): a product
 * with a long inner dimension (the globals' transposed products run over
 * every row of a head) runs in such chunks, each over all the output rows,
 * so that the chunk's rows of A and B are read from L1 by every block of
 * output rows; the output adds up across chunks. */
static inline band_args inner_chunk(const band_args *p, int j0, int len)
{
    band_args q = *p;
    q.A += (long)j0 * p->sj;
    q.B += (long)j0 * p->ldb;
    q.inner = p->inner - j0 < len ? p->inner - j0 : len;
    if (j0 > 0)
        q.beta = 1.0f;
    return q;
}

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

/* rows_block for outputs of at most 8 columns (a head of 8 floats): 256-bit
 * vectors, as many useful lanes as a masked 512-bit one at half its cost on
 * CPUs that split 512-bit operations in two (AMD Zen 4). FULL: n is 8, so
 * loads and stores need no mask (a masked load costs an extra operation on
 * an Intel Xeon). The row loops are unrolled explicitly: left to the
 * compiler, the accumulators could live on the stack. */
static inline __attribute__((always_inline, target("avx512f,avx512vl,fma"))) void
rows_block_narrow(const band_args *p, int i, int R, __mmask8 last, bool FULL)
{
    __m256 acc[8];
    _Pragma("GCC unroll 8") for (int r = 0; r < R; r++)
        acc[r] = _mm256_setzero_ps();
    const float *a = p->A + i * p->si;
    for (int j = 0; j < p->inner; j++) {
        const float *b = p->B + (long)j * p->ldb;
        __m256 bv = FULL ? _mm256_loadu_ps(b) : _mm256_maskz_loadu_ps(last, b);
        const float *aj = a + j * p->sj;
        _Pragma("GCC unroll 8") for (int r = 0; r < R; r++)
            acc[r] = _mm256_fmadd_ps(_mm256_set1_ps(aj[r * p->si]), bv, acc[r]);
    }
    __m256 al = _mm256_set1_ps(p->alpha);
    _Pragma("GCC unroll 8") for (int r = 0; r < R; r++) {
        float *c = p->C + (long)(i + r) * p->ldc;
        __m256 out = _mm256_mul_ps(acc[r], al);
        if (p->beta != 0.0f)
            out = _mm256_fmadd_ps(acc[r], al, FULL ? _mm256_loadu_ps(c) : _mm256_maskz_loadu_ps(last, c));
        if (FULL)
            _mm256_storeu_ps(c, out);
        else
            _mm256_mask_storeu_ps(c, last, out);
    }
}

/* Every row of each product's C, R rows at a time, then one by one: BLOCK
 * (q, i, rows) is one of the block kernels above with its constant
 * arguments. */
#define BAND_ROWS(NAME, TARGET, MASK, R, BLOCK)                                                              \
    __attribute__((target(TARGET))) static void NAME(band_args p, int m, MASK last, const long *step, int count, \
                                                     int chunk)                                              \
    {                                                                                                        \
        for (int c = 0; c < count; c++, p.A += step[0], p.B += step[1], p.C += step[2])                      \
            for (int j0 = 0; j0 < p.inner; j0 += chunk) {                                                    \
                band_args q = inner_chunk(&p, j0, chunk);                                                    \
                int i = 0;                                                                                   \
                for (; i + (R) <= m; i += (R))                                                               \
                    BLOCK(&q, i, (R));                                                                       \
                for (; i < m; i++)                                                                           \
                    BLOCK(&q, i, 1);                                                                         \
            }                                                                                                \
    }
/* At most 8 columns (masked) and exactly 8, eight rows at a time; then
 * one to four 16-column vectors with R x NV <= 16 accumulators (plus NV
 * loads of B and a broadcast: within the 32 registers). */
#define NARROW(q, i, rows) rows_block_narrow(q, i, rows, last, false)
#define EIGHT(q, i, rows) rows_block_narrow(q, i, rows, last, true)
#define WIDE1(q, i, rows) rows_block(q, i, rows, 1, last)
#define WIDE2(q, i, rows) rows_block(q, i, rows, 2, last)
#define WIDE3(q, i, rows) rows_block(q, i, rows, 3, last)
#define WIDE4(q, i, rows) rows_block(q, i, rows, 4, last)
BAND_ROWS(band_rows_narrow, "avx512f,avx512vl,fma", __mmask8, 8, NARROW)
BAND_ROWS(band_rows_eight, "avx512f,avx512vl,fma", __mmask8, 8, EIGHT)
BAND_ROWS(band_rows_1, "avx512f", __mmask16, 8, WIDE1)
BAND_ROWS(band_rows_2, "avx512f", __mmask16, 8, WIDE2)
BAND_ROWS(band_rows_3, "avx512f", __mmask16, 4, WIDE3)
BAND_ROWS(band_rows_4, "avx512f", __mmask16, 4, WIDE4)
#undef NARROW
#undef EIGHT
#undef WIDE1
#undef WIDE2
#undef WIDE3
#undef WIDE4
#undef BAND_ROWS

/* Inner indices per chunk (inner_chunk): what half of this CPU's L1 data
 * cache holds of the operands every block of rows reads again, per index
 * n floats of B and, with A transposed, the index's row of m floats of A.
 * Untransposed, each block reads rows of A no other block reads, so A
 * does not count (counting a line per row and index cut a product of 32
 * inner indices over 2,000 rows in two, at half the speed). */
static int inner_chunk_length(const band_args *p, int m, int n)
{
    long a_bytes = p->si == 1 ? (long)m * 4 + 64 : 0, b_bytes = (long)n * 4 + 64;
    long len = rf_cpu_l1d_bytes() / 2 / (a_bytes + b_bytes);
    return len < 16 ? 16 : (int)len;
}

bool rf_band_products(int count, long a_step, long b_step, long c_step, bool ta, int m, int n, int inner,
                      float alpha, const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    if (n < 1 || n > RF_BAND_N || !rf_cpu_avx512())
        return false;
    if (m < 1 || count < 1)
        return true;
    band_args p = {A, B, ta ? 1 : lda, ta ? lda : 1, ldb, inner, alpha, beta, C, ldc};
    long step[3] = {a_step, b_step, c_step};
    int chunk = inner_chunk_length(&p, m, n);
    int nv = (n + 15) / 16, tail = n - 16 * (nv - 1);
    __mmask16 last = tail == 16 ? (__mmask16)0xffff : (__mmask16)((1u << tail) - 1);
    if (n <= 8) {
        (n == 8 ? band_rows_eight : band_rows_narrow)(p, m, (__mmask8)((1u << n) - 1), step, count, chunk);
        return true;
    }
    switch (nv) {
    case 1: band_rows_1(p, m, last, step, count, chunk); break;
    case 2: band_rows_2(p, m, last, step, count, chunk); break;
    case 3: band_rows_3(p, m, last, step, count, chunk); break;
    default: band_rows_4(p, m, last, step, count, chunk); break;
    }
    return true;
}

bool rf_band_product(bool ta, int m, int n, int inner, float alpha, const float *A, int lda, const float *B,
                     int ldb, float beta, float *C, int ldc)
{
    return rf_band_products(1, 0, 0, 0, ta, m, n, inner, alpha, A, lda, B, ldb, beta, C, ldc);
}
