/* The long-short attention band kernels against double references.
 *
 * rf_band_product(s) (core/cpu/band_product.h): both transposes, every
 * output width from 1 to RF_BAND_N (the 256-bit path up to 8 columns, one
 * to four 512-bit vectors with tails above), row tails around the blocks
 * of rows, inner dimensions short and long (a long one runs in L1-sized
 * chunks: the first chunk with the caller's beta, the rest added), beta 0
 * and 1, several products in one call whose outputs overlap (they must
 * accumulate in order), nothing written past n; and a width past
 * RF_BAND_N declined untouched.
 * rf_band_softmax(_grad) (core/cpu/band_softmax.h): bands of 1 to 64
 * columns clipped at either end, masked keys, padded query rows, a row
 * with no valid key, G = 0 and G with a tail.
 * On a CPU without AVX-512 every kernel declines, writing nothing.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cpu/band_product.h"
#include "../core/cpu/band_softmax.h"
#include "../core/cpu/cpu_features.h"
#include "tap.h"
#include "tolerance.h"

enum { LD_PAD = 3 };
static const float GUARD = -7.0f;

/* One call of rf_band_products with `count` products whose C move by
 * c_step rows of ldc (c_step < m: overlapping outputs); returns the number
 * of bad entries, the worst error in units of the f32 bound in *worst. */
static int check_products(bool ta, int m, int n, int inner, float beta, int count, int c_rows, double *worst)
{
    int lda = (ta ? m : inner) + LD_PAD, ldb = n + LD_PAD, ldc = n + LD_PAD;
    int a_rows = ta ? inner : m, c_total = m + (count - 1) * c_rows;
    long a_step = (long)a_rows * lda, b_step = (long)inner * ldb, c_step = (long)c_rows * ldc;
    float *A = malloc(sizeof(float) * a_step * count), *B = malloc(sizeof(float) * b_step * count);
    float *C = malloc(sizeof(float) * c_total * ldc);
    double *want = malloc(sizeof(double) * c_total * ldc), *mag = malloc(sizeof(double) * c_total * ldc);
    for (long i = 0; i < a_step * count; i++)
        A[i] = sinf(0.37f * (float)i + (float)n);
    for (long i = 0; i < b_step * count; i++)
        B[i] = cosf(0.23f * (float)i - (float)n);
    for (int i = 0; i < c_total * ldc; i++) {
        C[i] = i % ldc < n ? 0.1f * (float)(i % 7) : GUARD;
        want[i] = C[i];
        mag[i] = fabs(C[i]);
    }
    /* the reference, product after product as the kernel must run them */
    for (int p = 0; p < count; p++)
        for (int r = 0; r < m; r++)
            for (int c = 0; c < n; c++) {
                const float *a = A + p * a_step, *b = B + p * b_step;
                double s = 0, s_mag = 0;
                for (int j = 0; j < inner; j++) {
                    double t = (double)(ta ? a[j * lda + r] : a[r * lda + j]) * b[j * ldb + c];
                    s += t;
                    s_mag += fabs(t);
                }
                int at = (p * c_rows + r) * ldc + c;
                want[at] = (beta == 0.0f ? 0.0 : want[at]) - 0.75 * s;
                mag[at] = (beta == 0.0f ? 0.0 : mag[at]) + 0.75 * s_mag;
            }
    bool ran = rf_band_products(count, a_step, b_step, c_step, ta, m, n, inner, -0.75f, A, lda, B, ldb, beta, C, ldc);
    int bad = !ran;
    for (int i = 0; i < c_total * ldc; i++) {
        if (i % ldc >= n) {
            bad += C[i] != GUARD;
            continue;
        }
        double e = fabs(C[i] - want[i]) / tol_sum(inner * count + 2, mag[i] + 1e-30);
        *worst = e > *worst ? e : *worst;
        bad += !(e <= 1.0);
    }
    free(A);
    free(B);
    free(C);
    free(want);
    free(mag);
    return bad;
}

static void test_products(void)
{
    static const int m_list[] = {1, 7, 8, 9, 17}, inner_list[] = {1, 5, 16, 700};
    for (int ta = 0; ta <= 1; ta++) {
        int bad = 0, cases = 0;
        double worst = 0;
        for (int n = 1; n <= RF_BAND_N; n++)
            for (size_t mi = 0; mi < sizeof m_list / sizeof *m_list; mi++)
                for (size_t ki = 0; ki < sizeof inner_list / sizeof *inner_list; ki++, cases++) {
                    int m = m_list[mi], k = inner_list[ki];
                    bad += check_products(ta, m, n, k, (m + k) % 2 ? 1.0f : 0.0f, 1, 0, &worst);
                }
        if (!tap_ok(bad == 0, "%s: %d products (n 1..%d, row tails, inner up to 700 in chunks, beta 0 and 1)",
                    ta ? "A^T B" : "A B", cases, RF_BAND_N))
            tap_diag("%d bad entries, worst error %.3g of the bound", bad, worst);
    }
    /* a band's segments: outputs overlapping by half, accumulated in order */
    int bad = 0;
    double worst = 0;
    for (int ta = 0; ta <= 1; ta++)
        for (int n = 1; n <= 20; n += 7)
            bad += check_products(ta, 16, n, 8, 1.0f, 4, 8, &worst);
    if (!tap_ok(bad == 0, "four products in one call, their outputs overlapping by half, accumulate in order"))
        tap_diag("%d bad entries, worst error %.3g of the bound", bad, worst);
    float c[2] = {GUARD, GUARD}, one = 1.0f;
    tap_ok(!rf_band_product(false, 1, RF_BAND_N + 1, 1, 1.0f, &one, 1, &one, 1, 0.0f, c, 1) && c[0] == GUARD,
           "an output wider than %d columns is declined, nothing written", RF_BAND_N);
}

/* The reference softmax of one row over its valid columns, in double. */
static void ref_row(const rf_band_cols *cols, const float *pl, const float *pg, int G, bool row_ok, double *out)
{
    double mx = -INFINITY, sum = 0;
    bool ok[RF_BAND_N];
    for (int j = 0; j < cols->L; j++) {
        ok[j] = row_ok && j >= cols->jlo && j < cols->jhi &&
                (cols->key_mask == NULL || cols->key_mask[j - cols->jlo] != 0.0f);
        mx = ok[j] && pl[j] > mx ? pl[j] : mx;
    }
    for (int i = 0; i < G && row_ok; i++)
        mx = pg[i] > mx ? pg[i] : mx;
    for (int j = 0; j < cols->L; j++)
        sum += out[j] = ok[j] ? exp(pl[j] - mx) : 0.0;
    for (int i = 0; i < G; i++)
        sum += out[cols->L + i] = row_ok ? exp(pg[i] - mx) : 0.0;
    for (int j = 0; j < cols->L + G; j++)
        out[j] = sum > 0 ? out[j] / sum : 0.0;
}

/* One band geometry: softmax and its gradient on `rows` rows; returns the
 * number of bad entries. */
static int check_softmax(int L, int jlo, int jhi, int G, bool key_mask, bool row_mask)
{
    enum { ROWS = 5 };
    int bad = 0, W = L + G;
    float pl[ROWS * RF_BAND_N], pg[ROWS * 40], km[RF_BAND_N], rm[ROWS];
    float dl[ROWS * RF_BAND_N], dg[ROWS * 40];
    double p[RF_BAND_N + 40];
    for (int j = 0; j < L; j++)
        km[j] = (j * 7 + L) % 4 != 0 ? 1.0f : 0.0f;   /* every fourth key masked */
    for (int r = 0; r < ROWS; r++)
        rm[r] = r != 2 ? 1.0f : 0.0f;
    for (int i = 0; i < ROWS * L; i++)
        pl[i] = 3.0f * sinf(0.7f * (float)i + (float)L);
    for (int i = 0; i < ROWS * G; i++)
        pg[i] = 3.0f * cosf(0.3f * (float)i - (float)G);
    rf_band_cols cols = {L, jlo, jhi, key_mask ? km : NULL};
    float in_l[ROWS * RF_BAND_N], in_g[ROWS * 40];
    memcpy(in_l, pl, sizeof pl);
    memcpy(in_g, pg, sizeof pg);
    bad += !rf_band_softmax(&cols, ROWS, row_mask ? rm : NULL, pl, pg, G);
    /* the exponentials' 3e-7 (exp_row.h), the row sum's rounding, the scaling */
    double rel = 3e-7 + tol_sum(W + 2, 1.0);
    for (int r = 0; r < ROWS; r++) {
        ref_row(&cols, in_l + r * L, in_g + r * G, G, !row_mask || rm[r] != 0.0f, p);
        for (int j = 0; j < W; j++) {
            float got = j < L ? pl[r * L + j] : pg[r * G + j - L];
            bad += !(fabs(got - p[j]) <= rel * p[j] + 1e-30);
        }
    }
    /* the gradient from dP on [jlo, jhi) and the globals; the band's other
     * columns of dl hold a guard that must stay */
    for (int i = 0; i < ROWS * L; i++)
        dl[i] = i % L >= jlo && i % L < jhi ? cosf(1.3f * (float)i) : GUARD;
    for (int i = 0; i < ROWS * G; i++)
        dg[i] = sinf(0.9f * (float)i);
    float dl0[ROWS * RF_BAND_N], dg0[ROWS * 40];
    memcpy(dl0, dl, sizeof dl);
    memcpy(dg0, dg, sizeof dg);
    bad += !rf_band_softmax_grad(&cols, ROWS, pl, pg, dl, dg, G);
    for (int r = 0; r < ROWS; r++) {
        double dot = 0, mag = 0;
        for (int j = jlo; j < jhi; j++) {
            dot += (double)dl0[r * L + j] * pl[r * L + j];
            mag += fabs((double)dl0[r * L + j] * pl[r * L + j]);
        }
        for (int i = 0; i < G; i++) {
            dot += (double)dg0[r * G + i] * pg[r * G + i];
            mag += fabs((double)dg0[r * G + i] * pg[r * G + i]);
        }
        for (int j = 0; j < L; j++) {
            if (j < jlo || j >= jhi) {
                bad += dl[r * L + j] != GUARD;
                continue;
            }
            double want = pl[r * L + j] * ((double)dl0[r * L + j] - dot);
            bad += !(fabs(dl[r * L + j] - want) <= tol_sum(W + 2, mag + fabs(dl0[r * L + j])) + 1e-30);
        }
        for (int i = 0; i < G; i++) {
            double want = pg[r * G + i] * ((double)dg0[r * G + i] - dot);
            bad += !(fabs(dg[r * G + i] - want) <= tol_sum(W + 2, mag + fabs(dg0[r * G + i])) + 1e-30);
        }
    }
    return bad;
}

static void test_softmax(void)
{
    static const int L_list[] = {1, 3, 16, 20, 32, 64}, G_list[] = {0, 5, 16, 37};
    int bad = 0, cases = 0;
    for (size_t li = 0; li < sizeof L_list / sizeof *L_list; li++)
        for (size_t gi = 0; gi < sizeof G_list / sizeof *G_list; gi++) {
            int L = L_list[li], G = G_list[gi];
            /* the whole band, clipped at the start, at the end, both */
            int clips[4][2] = {{0, L}, {L / 3, L}, {0, L - L / 4}, {L / 4, L - L / 3}};
            for (int c = 0; c < 4; c++)
                for (int masks = 0; masks < 4; masks++, cases++) {
                    int b = check_softmax(L, clips[c][0], clips[c][1], G, masks & 1, masks & 2);
                    if (b > 0 && bad == 0)
                        tap_diag("first bad: L %d, band [%d, %d), G %d, key mask %d, row mask %d: %d entries", L,
                                 clips[c][0], clips[c][1], G, masks & 1, (masks & 2) != 0, b);
                    bad += b;
                }
        }
    tap_ok(bad == 0, "softmax and its gradient: %d band geometries (clipped bands, masked keys and rows, G 0 to 37)",
           cases);
    /* a row whose band is all masked and has no globals: zeros, no NaN */
    float pl[8] = {1, 2, 3, 4, 5, 6, 7, 8}, km[8] = {0}, pg[1];
    rf_band_cols cols = {8, 0, 8, km};
    bool zeros = rf_band_softmax(&cols, 1, NULL, pl, pg, 0);
    for (int j = 0; j < 8; j++)
        zeros &= pl[j] == 0.0f;
    tap_ok(zeros, "a row with no valid key becomes zeros");
}

int main(int argc, char **argv)
{
    tap_portable(argc, argv);
    if (!rf_cpu_avx512()) {
        float s = GUARD, d = GUARD, one = 1.0f;
        rf_band_cols cols = {1, 0, 1, NULL};
        tap_ok(!rf_band_product(false, 1, 1, 1, 1.0f, &one, 1, &one, 1, 0.0f, &s, 1) &&
                   !rf_band_softmax(&cols, 1, NULL, &s, &d, 0) && !rf_band_softmax_grad(&cols, 1, &one, &one, &s, &d, 0) &&
                   s == GUARD && d == GUARD,
               "without AVX-512 every band kernel declines, writing nothing");
        return tap_done();
    }
    test_products();
    test_softmax();
    return tap_done();
}
