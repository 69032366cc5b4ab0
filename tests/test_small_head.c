/* The short-head kernels (core/cpu/small_head.h) against a double
 * reference. Scores: every row and column tail, inner dimensions 1 to 16,
 * padded leading dimensions; nothing written outside rows x cols; and the
 * shapes it declines (left to the BLAS) untouched; the filling variant's
 * columns past cols (up to a multiple of 16) set, the rest as the plain
 * one writes them; the attention's variant (a key mask's bias, each row's
 * max) as the plain one plus the bias, and the max of what it wrote; the
 * backward's fused probabilities and score gradients bit for bit as the
 * separate passes give them. The narrow products
 * C += alpha op(A) B: both transposes, widths 1 to 8, row tails around the
 * eight-row block, C accumulated onto, nothing written past n; on AVX-512
 * the lanes kernel's P V (rf_small_head_pv) the same way. On AVX-512
 * or on AVX2 with FMA, whichever the CPU has (RF_CPU_ISA=avx2: AVX2);
 * without either, every call declines. With --portable (suite `portable`,
 * under emulation) a twentieth of the shapes, each path still taken. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../core/cpu/cpu_features.h"
#include "../core/cpu/exp_row.h"
#include "../core/cpu/small_head.h"
#include "tap.h"
#include "tolerance.h"


enum { LD_PAD = 3, GUARD = -7 };

/* rf_small_head_acc over a grid of shapes; returns the number of bad
 * entries, the worst error in units of the f32 bound in *worst. */
static int check_acc(bool ta, int *cases, double *worst)
{
    static const int all_m[] = {1, 7, 8, 9, 17, 100}, all_inner[] = {1, 5, 16, 100, 256};
    /* --portable: a tail alone, a block and a tail, two blocks and a tail */
    static const int few_m[] = {1, 9, 17}, few_inner[] = {1, 16, 256};
    const int *m_list = tap_portable_run ? few_m : all_m, *inner_list = tap_portable_run ? few_inner : all_inner;
    int n_m = tap_portable_run ? 3 : 6, n_inner = tap_portable_run ? 3 : 5;
    int bad = 0;
    for (int n = 1; n <= RF_SMALL_HEAD_N; n++)
        for (int mi = 0; mi < n_m; mi++)
            for (int ki = 0; ki < n_inner; ki++) {
                int m = m_list[mi], k = inner_list[ki];
                int lda = (ta ? m : k) + LD_PAD, ldb = n + 2 * LD_PAD, ldc = n + LD_PAD;
                float *A = malloc(sizeof(float) * (ta ? k : m) * lda), *B = malloc(sizeof(float) * k * ldb);
                float *C = malloc(sizeof(float) * m * ldc), *C0 = malloc(sizeof(float) * m * ldc);
                for (int i = 0; i < (ta ? k : m) * lda; i++)
                    A[i] = sinf(0.37f * i + n);
                for (int i = 0; i < k * ldb; i++)
                    B[i] = cosf(0.23f * i - n);
                for (int i = 0; i < m * ldc; i++)
                    C[i] = C0[i] = i % ldc < n ? 0.1f * (i % 7) : GUARD;
                bool ran = rf_small_head_acc(ta, m, n, k, -0.75f, A, lda, B, ldb, C, ldc);
                for (int r = 0; r < m; r++)
                    for (int c = 0; c < ldc; c++) {
                        float got = C[r * ldc + c];
                        if (c >= n) {
                            bad += got != GUARD;
                            continue;
                        }
                        double want = C0[r * ldc + c], mag = fabs(want);
                        for (int j = 0; j < k; j++) {
                            double p = -0.75 * (double)(ta ? A[j * lda + r] : A[r * lda + j]) * B[j * ldb + c];
                            want += p;
                            mag += fabs(p);
                        }
                        double e = fabs(got - want) / tol_sum(k + 2, mag + 1e-30);
                        *worst = e > *worst ? e : *worst;
                        bad += !(e <= 1.0);
                    }
                bad += !ran;
                ++*cases;
                free(A);
                free(B);
                free(C);
                free(C0);
            }
    return bad;
}

/* rf_small_head_pv: C += alpha P (scale V) for values loaded with a
 * scale, P's columns past cols 0 (as the attention kernels leave them),
 * against a double reference; nothing written past C's 8 columns. Returns
 * the number of bad entries, the worst error in units of the f32 bound in
 * *worst. */
static int check_pv(const int *rows_list, int n_rows, const int *cols_list, int n_cols, int *cases, double *worst)
{
    int bad = 0;
    for (int ri = 0; ri < n_rows; ri++)
        for (int ci = 0; ci < n_cols; ci++) {
            int rows = rows_list[ri], cols = cols_list[ci], padded = (cols + 15) & ~15;
            int ldp = padded + LD_PAD, ldv = 8 + 2 * LD_PAD, ldc = 8 + LD_PAD;
            float scale = ci % 2 ? 0.5f : 1.0f;
            float *P = malloc(sizeof(float) * rows * ldp), *V = malloc(sizeof(float) * cols * ldv);
            float *C = malloc(sizeof(float) * rows * ldc), *C0 = malloc(sizeof(float) * rows * ldc);
            for (int i = 0; i < rows * ldp; i++)
                P[i] = i % ldp < cols ? sinf(0.37f * i + cols) : 0.0f;
            for (int i = 0; i < cols * ldv; i++)
                V[i] = cosf(0.23f * i - rows);
            for (int i = 0; i < rows * ldc; i++)
                C[i] = C0[i] = i % ldc < 8 ? 0.1f * (i % 7) : GUARD;
            rf_small_head_keys values;
            bool ran = rf_small_head_load_keys(&values, cols, 8, scale, V, ldv) &&
                       rf_small_head_pv(rows, -0.75f, P, ldp, &values, C, ldc);
            for (int r = 0; r < rows; r++)
                for (int c = 0; c < ldc; c++) {
                    float got = C[r * ldc + c];
                    if (c >= 8) {
                        bad += got != GUARD;
                        continue;
                    }
                    double want = C0[r * ldc + c], mag = fabs(want);
                    for (int j = 0; j < cols; j++) {
                        double p = -0.75 * (double)P[r * ldp + j] * ((double)scale * V[j * ldv + c]);
                        want += p;
                        mag += fabs(p);
                    }
                    /* the scale rounded onto the values: one more rounding a term */
                    double e = fabs(got - want) / tol_sum(cols + 3, mag + 1e-30);
                    *worst = e > *worst ? e : *worst;
                    bad += !(e <= 1.0);
                }
            bad += !ran;
            ++*cases;
            free(P);
            free(V);
            free(C);
            free(C0);
        }
    return bad;
}

/* rf_small_head_nt_fill: the same scores as rf_small_head_nt bit for bit,
 * columns [cols, width) = fill with width = cols rounded up to 16, nothing
 * past width. Returns the number of bad cases. */
static int check_fill(const int *rows_list, int n_rows, const int *cols_list, int n_cols, int *cases)
{
    int bad = 0;
    for (int ri = 0; ri < n_rows; ri++)
        for (int ci = 0; ci < n_cols; ci++) {
            int rows = rows_list[ri], cols = cols_list[ci], k = 8, width = (cols + 15) & ~15;
            int lds = width + LD_PAD;
            float *A = malloc(sizeof(float) * rows * k), *B = malloc(sizeof(float) * cols * k);
            float *S = malloc(sizeof(float) * rows * lds), *plain = malloc(sizeof(float) * rows * lds);
            for (int i = 0; i < rows * k; i++)
                A[i] = sinf(0.41f * i);
            for (int i = 0; i < cols * k; i++)
                B[i] = cosf(0.19f * i);
            for (int i = 0; i < rows * lds; i++)
                S[i] = plain[i] = GUARD;
            bad += rf_small_head_nt_fill(rows, cols, k, 0.5f, A, k, B, k, S, lds, -INFINITY) != width;
            bad += !rf_small_head_nt(rows, cols, k, 0.5f, A, k, B, k, plain, lds);
            for (int r = 0; r < rows; r++)
                for (int c = 0; c < lds; c++) {
                    float got = S[r * lds + c];
                    if (c < cols)
                        bad += got != plain[r * lds + c];
                    else if (c < width)
                        bad += got != -INFINITY;
                    else
                        bad += got != GUARD;
                }
            ++*cases;
            free(A);
            free(B);
            free(S);
            free(plain);
        }
    return bad;
}

/* rf_small_head_scores: the plain kernel's scores plus the bias (0 or
 * -inf per key, every key masked in some shapes), padded or not, and each
 * row's max the max of the columns written. Returns the number of bad
 * cases. */
static int check_scores(const int *rows_list, int n_rows, const int *cols_list, int n_cols, int *cases)
{
    static const int k_list[] = {3, 8, 16};
    int bad = 0;
    for (size_t ki = 0; ki < sizeof k_list / sizeof *k_list; ki++)
        for (int ri = 0; ri < n_rows; ri++)
            for (int ci = 0; ci < n_cols; ci++)
                for (int masked = 0; masked <= 2; masked++)   /* none, every third key, all */
                    for (int pad = 0; pad <= 1; pad++) {
                        int rows = rows_list[ri], cols = cols_list[ci], k = k_list[ki];
                        int width = pad ? (cols + 15) & ~15 : cols, lds = width + LD_PAD, lda = k + 1, ldb = k + 2;
                        float *A = malloc(sizeof(float) * rows * lda), *B = malloc(sizeof(float) * cols * ldb);
                        float *S = malloc(sizeof(float) * rows * lds), *plain = malloc(sizeof(float) * rows * lds);
                        float *bias = malloc(sizeof(float) * cols), *mx = malloc(sizeof(float) * rows);
                        for (int i = 0; i < rows * lda; i++)
                            A[i] = sinf(0.29f * i + k);
                        for (int i = 0; i < cols * ldb; i++)
                            B[i] = cosf(0.17f * i - k);
                        for (int c = 0; c < cols; c++)
                            bias[c] = masked == 2 || (masked == 1 && c % 3 == 1) ? -INFINITY : 0.0f;
                        for (int i = 0; i < rows * lds; i++)
                            S[i] = plain[i] = GUARD;
                        rf_small_head_keys keys;
                        bad += !rf_small_head_load_keys(&keys, cols, k, 0.5f, B, ldb);
                        bad += rf_small_head_scores(rows, A, lda, &keys, masked ? bias : NULL, pad, S, lds, mx) != width;
                        bad += !rf_small_head_nt(rows, cols, k, 0.5f, A, lda, B, ldb, plain, lds);
                        for (int r = 0; r < rows; r++) {
                            float want_max = -INFINITY;
                            for (int c = 0; c < lds; c++) {
                                float got = S[r * lds + c];
                                if (c < cols) {
                                    float want = plain[r * lds + c] + (masked ? bias[c] : 0.0f);
                                    bad += got != want;
                                    want_max = want > want_max ? want : want_max;
                                } else {
                                    bad += got != (c < width ? -INFINITY : GUARD);
                                }
                            }
                            bad += mx[r] != want_max;
                        }
                        ++*cases;
                        free(A);
                        free(B);
                        free(S);
                        free(plain);
                        free(bias);
                        free(mx);
                    }
    return bad;
}

/* rf_small_head_probs and rf_small_head_ds against the passes they fuse:
 * the padded scores then rf_attn_exp_row (a row of lse -inf: zeros), and
 * dP = rf_small_head_nt_fill then P (dP - D); bit for bit, columns up to
 * the next multiple of 16, nothing past them. Returns the number of bad
 * cases. */
static int check_fused(const int *rows_list, int n_rows, const int *cols_list, int n_cols, int *cases)
{
    static const int k_list[] = {3, 8, 16};
    int bad = 0;
    for (size_t ki = 0; ki < sizeof k_list / sizeof *k_list; ki++)
        for (int ri = 0; ri < n_rows; ri++)
            for (int ci = 0; ci < n_cols; ci++)
                for (int masked = 0; masked <= 2; masked++) {
                    int rows = rows_list[ri], cols = cols_list[ci], k = k_list[ki];
                    int width = (cols + 15) & ~15, ld = width + LD_PAD, lda = k + 1, ldb = k + 2;
                    size_t block = (size_t)rows * ld;
                    float *A = malloc(sizeof(float) * rows * lda), *B = malloc(sizeof(float) * cols * ldb);
                    float *P = malloc(sizeof(float) * block), *want = malloc(sizeof(float) * block);
                    float *dS = malloc(sizeof(float) * block), *dP = malloc(sizeof(float) * block);
                    float *bias = malloc(sizeof(float) * cols), *lse = malloc(sizeof(float) * rows);
                    float *D = malloc(sizeof(float) * rows);
                    for (int i = 0; i < rows * lda; i++)
                        A[i] = sinf(0.31f * i + k);
                    for (int i = 0; i < cols * ldb; i++)
                        B[i] = cosf(0.13f * i - k);
                    for (int c = 0; c < cols; c++)
                        bias[c] = masked == 2 || (masked == 1 && c % 4 == 2) ? -INFINITY : 0.0f;
                    for (int r = 0; r < rows; r++) {
                        lse[r] = r % 5 == 3 ? -INFINITY : 0.7f + 0.1f * r;
                        D[r] = 0.05f * r - 0.2f;
                    }
                    for (size_t i = 0; i < block; i++)
                        P[i] = want[i] = dS[i] = dP[i] = GUARD;
                    const float *bs = masked ? bias : NULL;
                    rf_small_head_keys keys, values;
                    bad += !rf_small_head_load_keys(&keys, cols, k, 0.5f, B, ldb);
                    bad += !rf_small_head_load_keys(&values, cols, k, 1.0f, B, ldb);
                    bad += rf_small_head_probs(rows, A, lda, &keys, bs, lse, P, ld) != width;
                    bad += rf_small_head_scores(rows, A, lda, &keys, bs, true, want, ld, NULL) != width;
                    for (int r = 0; r < rows; r++)
                        if (lse[r] == -INFINITY)
                            for (int c = 0; c < width; c++)
                                want[r * ld + c] = 0.0f;
                        else
                            rf_attn_exp_row(want + r * ld, width, lse[r]);
                    for (size_t i = 0; i < block; i++)
                        bad += P[i] != want[i];
                    /* dS from the same A, B as dO and V */
                    bad += rf_small_head_ds(rows, A, lda, &values, P, ld, D, dS, ld) != width;
                    bad += rf_small_head_nt_fill(rows, cols, k, 1.0f, A, lda, B, ldb, dP, ld, 0.0f) != width;
                    for (int r = 0; r < rows; r++)
                        for (int c = 0; c < ld; c++) {
                            float got = dS[r * ld + c];
                            if (c < width)
                                bad += got != P[r * ld + c] * (dP[r * ld + c] - D[r]);
                            else
                                bad += got != GUARD;
                        }
                    ++*cases;
                    free(A);
                    free(B);
                    free(P);
                    free(want);
                    free(dS);
                    free(dP);
                    free(bias);
                    free(lse);
                    free(D);
                }
    return bad;
}

int main(int argc, char **argv)
{
    /* --portable (suite `portable`, emulated AVX2 is slow on some hosts):
     * fewer shapes, every path still taken */
    bool portable = tap_portable(argc, argv);
    if (!rf_cpu_avx512() && !rf_cpu_avx2()) {
        float s = 0;
        tap_ok(!rf_small_head_nt(1, 1, 1, 1.0f, &s, 1, &s, 1, &s, 1) &&
                   rf_small_head_nt_fill(1, 1, 1, 1.0f, &s, 1, &s, 1, &s, 1, 0.0f) == 0 &&
                   !rf_small_head_load_keys(&(rf_small_head_keys){0}, 1, 1, 1.0f, &s, 1) &&
                   !rf_small_head_acc(false, 1, 1, 1, 1.0f, &s, 1, &s, 1, &s, 1),
               "without AVX-512 or AVX2 every product is left to the BLAS");
        return tap_done();
    }
    /* RF_CPU_ISA=avx2 (the test's `_avx2` run) takes the AVX2 kernels on any CPU */
    tap_diag("the kernels run on %s", rf_cpu_avx512() ? "AVX-512" : "AVX2 and FMA");
    static const int all_rows[] = {1, 3, 4, 5, 7, 8, 9, 13, 17, 64}, all_cols[] = {1, 15, 16, 17, 40, 256};
    static const int few_rows[] = {1, 5, 9, 17}, few_cols[] = {1, 17, 40};
    const int *rows_list = portable ? few_rows : all_rows, *cols_list = portable ? few_cols : all_cols;
    int n_rows = portable ? 4 : 10, n_cols = portable ? 3 : 6;
    int cases = 0, bad = 0;
    double worst = 0;
    static const int few_k[] = {1, 3, 8, 16};
    int n_k = portable ? 4 : RF_SMALL_HEAD_K;
    for (int ki = 0; ki < n_k; ki++)
        for (int ri = 0; ri < n_rows; ri++)
            for (int ci = 0; ci < n_cols; ci++) {
                int k = portable ? few_k[ki] : ki + 1, rows = rows_list[ri], cols = cols_list[ci];
                int lda = k + LD_PAD, ldb = k + 2 * LD_PAD, lds = cols + LD_PAD;
                float *A = malloc(sizeof(float) * rows * lda), *B = malloc(sizeof(float) * cols * ldb);
                float *S = malloc(sizeof(float) * rows * lds);
                for (int i = 0; i < rows * lda; i++)
                    A[i] = sinf(0.37f * i + k);
                for (int i = 0; i < cols * ldb; i++)
                    B[i] = cosf(0.23f * i - k);
                for (int i = 0; i < rows * lds; i++)
                    S[i] = GUARD;
                bool ran = rf_small_head_nt(rows, cols, k, 0.5f, A, lda, B, ldb, S, lds);
                for (int r = 0; r < rows; r++)
                    for (int c = 0; c < lds; c++) {
                        float got = S[r * lds + c];
                        if (c >= cols) {
                            bad += got != GUARD;   /* the leading dimension's padding is not written */
                            continue;
                        }
                        double want = 0, mag = 0;
                        for (int d = 0; d < k; d++) {
                            double p = 0.5 * (double)A[r * lda + d] * B[c * ldb + d];
                            want += p;
                            mag += fabs(p);
                        }
                        double e = fabs(got - want) / tol_sum(k + 1, mag + 1e-30);
                        worst = e > worst ? e : worst;
                        bad += !(e <= 1.0);
                    }
                bad += !ran;
                cases++;
                free(A);
                free(B);
                free(S);
            }
    tap_ok(bad == 0, "%d shapes (k 1..16, row and column tails, padded leading dimensions) match the double "
           "reference within the f32 bound (worst %.3g of it) and write nothing past their columns", cases, worst);
    float x[17 * 300] = {0}, s[2] = {GUARD, GUARD};
    tap_ok(!rf_small_head_nt(1, 1, 17, 1.0f, x, 17, x, 17, s, 1) && s[0] == GUARD,
           "k = 17 is declined, writing nothing");
    tap_ok(!rf_small_head_nt(1, 257, 8, 1.0f, x, 8, x, 8, x, 257),
           "a key block of 257 is declined");
    int fill_cases = 0;
    int fill_bad = check_fill(rows_list, n_rows, cols_list, n_cols, &fill_cases);
    tap_ok(fill_bad == 0, "the filling variant: %d shapes give the plain kernel's scores bit for bit, -inf up to "
           "the next multiple of 16 columns and nothing past it", fill_cases);
    tap_ok(rf_small_head_nt_fill(1, 1, 17, 1.0f, x, 17, x, 17, s, 1, 0.0f) == 0 && s[0] == GUARD,
           "the filling variant declines k = 17, writing nothing");
    int score_cases = 0;
    int score_bad = check_scores(rows_list, n_rows, cols_list, n_cols, &score_cases);
    tap_ok(score_bad == 0, "the attention's variant: %d shapes (heads of 3, 8, 16; no, some, every key masked; "
           "padded or not) give the plain scores plus the mask's bias and each row's max", score_cases);
    rf_small_head_keys keys;
    tap_ok(!rf_small_head_load_keys(&keys, 1, 17, 1.0f, x, 17) && !rf_small_head_load_keys(&keys, 257, 8, 1.0f, x, 8),
           "a key block of k = 17 or of 257 keys is declined for the attention's kernels");
    int fused_cases = 0;
    int fused_bad = check_fused(rows_list, n_rows, cols_list, n_cols, &fused_cases);
    tap_ok(fused_bad == 0, "the backward's fused passes: %d shapes (heads of 3, 8, 16; no, some, every key masked; "
           "rows of lse -inf) give the probabilities and score gradients of the separate passes bit for bit",
           fused_cases);
    for (int ta = 0; ta <= 1; ta++) {
        int acc_cases = 0;
        double acc_worst = 0;
        int acc_bad = check_acc(ta, &acc_cases, &acc_worst);
        tap_ok(acc_bad == 0, "C += alpha %s B: %d shapes (widths 1..8, row tails, inner 1..256) match the double "
               "reference within the f32 bound (worst %.3g of it) and write nothing past n", ta ? "A^T" : "A",
               acc_cases, acc_worst);
    }
    if (rf_cpu_avx512()) {
        static const int pv_rows[] = {1, 2, 3, 8, 17, 64}, pv_cols[] = {1, 15, 16, 17, 100, 256};
        static const int few_pv_rows[] = {1, 3, 17}, few_pv_cols[] = {1, 17, 256};
        int pv_cases = 0;
        double pv_worst = 0;
        int pv_bad = check_pv(portable ? few_pv_rows : pv_rows, portable ? 3 : 6, portable ? few_pv_cols : pv_cols,
                              portable ? 3 : 6, &pv_cases, &pv_worst);
        tap_ok(pv_bad == 0, "C += alpha P V with each key a lane: %d shapes (row pairs and a last row, key tails, "
               "values loaded with a scale) match the double reference within the f32 bound (worst %.3g of it) and "
               "write nothing past 8 columns", pv_cases, pv_worst);
    }
    rf_small_head_keys narrow;
    float c8[8] = {GUARD, GUARD};
    tap_ok(rf_small_head_load_keys(&narrow, 16, 4, 1.0f, x, 4) && !rf_small_head_pv(1, 1.0f, x, 16, &narrow, c8, 8) &&
               c8[0] == GUARD && (rf_cpu_avx512() || !rf_small_head_load_keys(&narrow, 16, 8, 1.0f, x, 8) ||
                                  !rf_small_head_pv(1, 1.0f, x, 16, &narrow, c8, 8)),
           "the lanes kernel declines heads other than 8 (and, without AVX-512, every head), writing nothing");
    float c9[9] = {GUARD, GUARD};
    tap_ok(!rf_small_head_acc(false, 1, 9, 1, 1.0f, x, 1, x, 9, c9, 9) && c9[0] == GUARD,
           "an output 9 wide is declined, writing nothing");
    return tap_done();
}
