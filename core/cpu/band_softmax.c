/* LS attention's joint softmax rows on AVX-512 (band_softmax.h). */
#include "band_softmax.h"

#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "band_product.h"
#include "cpu_features.h"
#include "exp16.h"

enum { CHUNKS = RF_BAND_N / 16 };

/* The lanes of 16-column chunk c that lie in [lo, hi). */
static __mmask16 lanes_in(int c, int lo, int hi)
{
    uint32_t m = 0;
    for (int l = 0; l < 16; l++)
        m |= (uint32_t)(16 * c + l >= lo && 16 * c + l < hi) << l;
    return (__mmask16)m;
}

/* The lanes of the globals' chunk starting at column j (of G). */
static __mmask16 tail_lanes(int j, int G)
{
    return G - j >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (G - j)) - 1);
}

/* The band's valid columns, per 16-column chunk: inside [jlo, jhi) and not
 * masked. */
static int valid_chunks(const rf_band_cols *cols, __mmask16 *valid)
{
    int nc = (cols->L + 15) / 16;
    for (int c = 0; c < nc; c++) {
        valid[c] = lanes_in(c, cols->jlo, cols->jhi);
        if (cols->key_mask != NULL)
            for (int l = 0; l < 16; l++)
                if ((valid[c] >> l & 1) && cols->key_mask[16 * c + l - cols->jlo] == 0.0f)
                    valid[c] &= (__mmask16) ~(1u << l);
    }
    return nc;
}

/* One row; band: the lanes of each chunk inside [0, L). */
__attribute__((target("avx512f"))) static void softmax_row(const __mmask16 *valid, const __mmask16 *band, int nc,
                                                           int L, float *pl, float *pg, int G)
{
    __m512 mx = _mm512_set1_ps(-INFINITY);
    for (int c = 0; c < nc; c++)
        mx = _mm512_mask_max_ps(mx, valid[c], mx, _mm512_maskz_loadu_ps(valid[c], pl + 16 * c));
    for (int j = 0; j < G; j += 16)
        mx = _mm512_mask_max_ps(mx, tail_lanes(j, G), mx, _mm512_maskz_loadu_ps(tail_lanes(j, G), pg + j));
    float m = _mm512_reduce_max_ps(mx);
    if (m == -INFINITY) {
        memset(pl, 0, (size_t)L * sizeof *pl);
        memset(pg, 0, (size_t)G * sizeof *pg);
        return;
    }
    __m512 sh = _mm512_set1_ps(m), sum = _mm512_setzero_ps();
    for (int c = 0; c < nc; c++) {
        __m512 x = _mm512_maskz_loadu_ps(valid[c], pl + 16 * c);
        __m512 e = _mm512_maskz_mov_ps(valid[c], rf_exp16(_mm512_sub_ps(x, sh)));
        _mm512_mask_storeu_ps(pl + 16 * c, band[c], e);   /* invalid columns: 0 */
        sum = _mm512_add_ps(sum, e);
    }
    for (int j = 0; j < G; j += 16) {
        __mmask16 t = tail_lanes(j, G);
        __m512 e = _mm512_maskz_mov_ps(t, rf_exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(t, pg + j), sh)));
        _mm512_mask_storeu_ps(pg + j, t, e);
        sum = _mm512_add_ps(sum, e);
    }
    __m512 inv = _mm512_set1_ps(1.0f / _mm512_reduce_add_ps(sum));
    for (int c = 0; c < nc; c++)
        _mm512_mask_storeu_ps(pl + 16 * c, band[c], _mm512_mul_ps(_mm512_maskz_loadu_ps(band[c], pl + 16 * c), inv));
    for (int j = 0; j < G; j += 16)
        _mm512_mask_storeu_ps(pg + j, tail_lanes(j, G),
                              _mm512_mul_ps(_mm512_maskz_loadu_ps(tail_lanes(j, G), pg + j), inv));
}

bool rf_band_softmax(const rf_band_cols *cols, int rows, const float *row_mask, float *pl, float *pg, int G)
{
    if (!rf_cpu_avx512() || cols->L > RF_BAND_N)
        return false;
    __mmask16 valid[CHUNKS], band[CHUNKS];
    int nc = valid_chunks(cols, valid);
    for (int c = 0; c < nc; c++)
        band[c] = lanes_in(c, 0, cols->L);
    for (int r = 0; r < rows; r++) {
        float *row_l = pl + (long)r * cols->L, *row_g = pg + (long)r * G;
        if (row_mask != NULL && row_mask[r] == 0.0f) {
            memset(row_l, 0, (size_t)cols->L * sizeof *row_l);
            memset(row_g, 0, (size_t)G * sizeof *row_g);
        } else {
            softmax_row(valid, band, nc, cols->L, row_l, row_g, G);
        }
    }
    return true;
}

/* d = p (d - dot) on the lanes of m */
__attribute__((target("avx512f"))) static inline void grad_chunk(__mmask16 m, const float *p, float *d, __m512 dot)
{
    __m512 pv = _mm512_maskz_loadu_ps(m, p);
    _mm512_mask_storeu_ps(d, m, _mm512_mul_ps(pv, _mm512_sub_ps(_mm512_maskz_loadu_ps(m, d), dot)));
}

__attribute__((target("avx512f"))) static void softmax_grad_row(const __mmask16 *band, int nc, const float *pl,
                                                                const float *pg, float *dl, float *dg, int G)
{
    __m512 acc = _mm512_setzero_ps();
    for (int c = 0; c < nc; c++)
        acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(band[c], dl + 16 * c), _mm512_maskz_loadu_ps(band[c], pl + 16 * c),
                              acc);
    for (int j = 0; j < G; j += 16)
        acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail_lanes(j, G), dg + j),
                              _mm512_maskz_loadu_ps(tail_lanes(j, G), pg + j), acc);
    __m512 dot = _mm512_set1_ps(_mm512_reduce_add_ps(acc));
    for (int c = 0; c < nc; c++)
        grad_chunk(band[c], pl + 16 * c, dl + 16 * c, dot);
    for (int j = 0; j < G; j += 16)
        grad_chunk(tail_lanes(j, G), pg + j, dg + j, dot);
}

bool rf_band_softmax_grad(const rf_band_cols *cols, int rows, const float *pl, const float *pg, float *dl, float *dg,
                          int G)
{
    if (!rf_cpu_avx512() || cols->L > RF_BAND_N)
        return false;
    /* [jlo, jhi) only: dl holds nothing elsewhere, and P is 0 at the
     * masked keys inside it */
    __mmask16 band[CHUNKS];
    int nc = (cols->L + 15) / 16;
    for (int c = 0; c < nc; c++)
        band[c] = lanes_in(c, cols->jlo, cols->jhi);
    for (int r = 0; r < rows; r++)
        softmax_grad_row(band, nc, pl + (long)r * cols->L, pg + (long)r * G, dl + (long)r * cols->L,
                         dg + (long)r * G, G);
    return true;
}
