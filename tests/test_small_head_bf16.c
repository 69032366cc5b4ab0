/* The bf16 short-head kernels (core/cpu/small_head_bf16.h) against double
 * references of their bf16-rounded operands. A product of two bf16
 * numbers is exact in f32 and in double, so what the kernels may differ by
 * from such a reference is only the order of their f32 sums: tol_sum of
 * the inner length (plus the pair adds). The same sums of the unrounded
 * operands are far outside that bound, so a check also sees when an
 * operand is not rounded, or paired with the wrong partner.
 *
 * Covered: the key block's two layouts bit for bit (every tail of 16
 * keys); the scores for row tails around 8, column tails around 16, with
 * a key mask's bias, padding and each row's max; the probabilities and
 * score gradients bit for bit as the scores then the f32 epilogue
 * (rf_attn_exp_row_coarse's exponentials) give them; P V / dS K (rf_sh16_acc) and dS^T Q / P^T dO (rf_sh16_acc_tn) with
 * odd inner lengths, row tails, C accumulated onto and nothing written
 * past 8 columns. Where the CPU lacks AVX512-BF16 every call declines. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cpu/exp_row.h"
#include "../core/cpu/small_head_bf16.h"
#include "../core/gemm_bf16.h"
#include "tap.h"
#include "tolerance.h"

enum { K = RF_SH16_K, GUARD = -7 };

static float rounded(float x)
{
    uint16_t h;
    rf_bf16_round(&x, &h, 1);
    float y;
    rf_bf16_widen(&h, &y, 1);
    return y;
}

static uint32_t pair_of(float lo, float hi)
{
    uint16_t a, b;
    rf_bf16_round(&lo, &a, 1);
    rf_bf16_round(&hi, &b, 1);
    return (uint32_t)a | (uint32_t)b << 16;
}

static float *filled(int n, float step, float phase)
{
    float *x = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++)
        x[i] = 1.5f * sinf(step * (float)i + phase);
    return x;
}

static const int all_cols[] = {1, 7, 15, 16, 17, 100, 255, 256};
enum { N_COLS = sizeof all_cols / sizeof *all_cols };

/* Both layouts equal the rounded keys bit for bit, zero past cols. */
static void test_load(void)
{
    int bad = 0, ldb = K + 3;
    float scale = 0.37f;
    static rf_sh16_keys keys;
    for (int ci = 0; ci < N_COLS; ci++) {
        int cols = all_cols[ci], padded = (cols + 15) & ~15;
        float *B = filled(cols * ldb, 0.31f, (float)cols);
        memset(&keys, 0xff, sizeof keys);
        bad += !rf_sh16_load(&keys, cols, K, scale, B, ldb) || keys.cols != cols;
        for (int d = 0; d < K / 2; d++)
            for (int c = 0; c < padded; c++) {
                uint32_t want = c < cols ? pair_of(scale * B[c * ldb + 2 * d], scale * B[c * ldb + 2 * d + 1]) : 0;
                bad += keys.t[d * RF_SMALL_HEAD_COLS + c] != want;
            }
        for (int j = 0; j < padded / 2; j++)
            for (int e = 0; e < K; e++) {
                float lo = 2 * j < cols ? B[2 * j * ldb + e] : 0.0f, hi = 2 * j + 1 < cols ? B[(2 * j + 1) * ldb + e] : 0.0f;
                bad += keys.p[j * K + e] != pair_of(lo, hi);
            }
        free(B);
    }
    float one = 1.0f;
    bad += rf_sh16_load(&keys, 1, 7, 1.0f, &one, 7) || rf_sh16_load(&keys, 0, K, 1.0f, &one, K) ||
           rf_sh16_load(&keys, RF_SMALL_HEAD_COLS + 1, K, 1.0f, &one, K);
    tap_ok(bad == 0, "a key block's pairs of dimensions (scaled) and pairs of keys are the keys rounded to nearest "
           "even, zero past cols, for %d block lengths; heads other than 8 and blocks over %d keys decline (%d bad)",
           N_COLS, RF_SMALL_HEAD_COLS, bad);
}

/* The scores of rows x cols (bias every third key -inf, or none; padded
 * or not) against double sums of the rounded operands, each row's max,
 * fill and guards; returns the worst error in units of the bound, and in
 * *unrounded the smallest worst error of the unrounded reference. */
static double check_scores(int rows, int cols, bool masked, bool pad, int *bad, double *unrounded)
{
    int lda = K + 1, ldb = K + 2, width = pad ? (cols + 15) & ~15 : cols, lds = width + 3;
    float scale = 0.5f, *A = filled(rows * lda, 0.29f, 1.0f), *B = filled(cols * ldb, 0.17f, -2.0f);
    float *S = malloc(sizeof(float) * (size_t)(rows * lds)), *mx = malloc(sizeof(float) * (size_t)rows);
    float *bias = malloc(sizeof(float) * (size_t)cols);
    for (int c = 0; c < cols; c++)
        bias[c] = masked && c % 3 == 1 ? -INFINITY : 0.0f;
    for (int i = 0; i < rows * lds; i++)
        S[i] = GUARD;
    static rf_sh16_keys keys;
    rf_sh16_load(&keys, cols, K, scale, B, ldb);
    *bad += rf_sh16_scores(rows, A, lda, &keys, masked ? bias : NULL, pad, S, lds, mx) != width;
    double worst = 0, far = INFINITY;
    for (int r = 0; r < rows; r++) {
        float row_max = -INFINITY;
        double far_row = 0;
        for (int c = 0; c < lds; c++) {
            float got = S[r * lds + c];
            if (c >= width) {
                *bad += got != GUARD;
                continue;
            }
            if (c >= cols) {
                *bad += got != -INFINITY;
                continue;
            }
            row_max = fmaxf(row_max, got);
            double want = 0, exact = 0, mag = 0;
            for (int d = 0; d < K; d++) {
                double t = (double)rounded(A[r * lda + d]) * rounded(scale * B[c * ldb + d]);
                want += t;
                mag += fabs(t);
                exact += (double)A[r * lda + d] * scale * B[c * ldb + d];
            }
            if (bias[c] == -INFINITY && masked) {
                *bad += got != -INFINITY;
                continue;
            }
            double bound = tol_sum(K + 2, mag) + 1e-30;
            worst = fmax(worst, fabs(got - want) / bound);
            far_row = fmax(far_row, fabs(got - exact) / bound);
        }
        *bad += mx[r] != row_max;
        far = fmin(far, far_row);
    }
    *unrounded = fmin(*unrounded, far);
    free(A);
    free(B);
    free(S);
    free(mx);
    free(bias);
    return worst;
}

static void test_scores(void)
{
    static const int all_rows[] = {1, 7, 8, 9, 17, 64};
    int bad = 0, cases = 0;
    double worst = 0, unrounded = INFINITY;
    for (size_t ri = 0; ri < sizeof all_rows / sizeof *all_rows; ri++)
        for (int ci = 0; ci < N_COLS; ci++)
            for (int masked = 0; masked <= 1; masked++)
                for (int pad = 0; pad <= 1; pad++, cases++)
                    worst = fmax(worst, check_scores(all_rows[ri], all_cols[ci], masked, pad, &bad, &unrounded));
    tap_ok(bad == 0 && worst <= 1.0, "scores: %d shapes, worst error %.3g of the f32 bound on the rounded operands; "
           "bias, padding, row max and guards right (%d bad)", cases, worst, bad);
    tap_ok(unrounded > 3.0, "... and every row is off the unrounded product by more (%.3g bounds at least)",
           unrounded);
}

/* The probabilities as the scores then rf_attn_exp_row_coarse, and the score
 * gradients as P (dP - D) of the scores, both bit for bit (the same
 * products and the f32 epilogue). */
static void test_fused(void)
{
    int bad = 0, cases = 0;
    static const int rows_list[] = {1, 9, 64};
    static rf_sh16_keys keys;
    for (size_t ri = 0; ri < sizeof rows_list / sizeof *rows_list; ri++)
        for (int ci = 0; ci < N_COLS; ci++, cases++) {
            int rows = rows_list[ri], cols = all_cols[ci], width = (cols + 15) & ~15, ld = width + 5;
            float *A = filled(rows * K, 0.23f, 0.5f), *B = filled(cols * K, 0.41f, 1.5f);
            float *S = malloc(sizeof(float) * (size_t)(rows * ld)), *P = malloc(sizeof(float) * (size_t)(rows * ld));
            float *dS = malloc(sizeof(float) * (size_t)(rows * ld)), *row = malloc(sizeof(float) * (size_t)rows);
            float *bias = malloc(sizeof(float) * (size_t)cols);
            for (int c = 0; c < cols; c++)
                bias[c] = c % 5 == 2 ? -INFINITY : 0.0f;
            for (int r = 0; r < rows; r++)
                row[r] = r == 1 ? -INFINITY : 0.3f * (float)r;   /* a row without valid keys: zeros */
            rf_sh16_load(&keys, cols, K, 0.7f, B, K);
            rf_sh16_scores(rows, A, K, &keys, bias, true, S, ld, NULL);
            bad += rf_sh16_probs(rows, A, K, &keys, bias, row, P, ld) != width;
            for (int r = 0; r < rows; r++) {
                float *s = S + r * ld;
                if (row[r] == -INFINITY)
                    memset(s, 0, sizeof(float) * (size_t)width);
                else
                    rf_attn_exp_row_coarse(s, width, row[r]);
                bad += memcmp(s, P + r * ld, sizeof(float) * (size_t)width) != 0;
            }
            /* dP = A values^T with values loaded at scale 1, then P (dP - D), D finite */
            for (int r = 0; r < rows; r++)
                row[r] = 0.3f * (float)r - 1.0f;
            rf_sh16_load(&keys, cols, K, 1.0f, B, K);
            rf_sh16_scores(rows, A, K, &keys, NULL, true, S, ld, NULL);
            bad += rf_sh16_ds(rows, A, K, &keys, P, ld, row, dS, ld) != width;
            for (int r = 0; r < rows; r++)
                for (int c = 0; c < width; c++) {   /* past cols P is 0, and so is dS */
                        float want = c < cols ? P[r * ld + c] * (S[r * ld + c] - row[r]) : 0.0f;
                    bad += !(dS[r * ld + c] == want);   /* past cols 0 or -0 */
                }
            free(A);
            free(B);
            free(S);
            free(P);
            free(dS);
            free(row);
            free(bias);
        }
    tap_ok(bad == 0, "probabilities and score gradients: the scores then the coarse exponentials and P (dP - D), bit "
           "for bit, %d shapes (%d bad)", cases, bad);
}

/* C [m, 8] += alpha op(A) B for both kernels, against double sums of the
 * rounded operands; nothing written past column 8. */
static void test_products(bool tn)
{
    static const int m_list[] = {1, 7, 8, 9, 16, 17, 100}, inner_list[] = {1, 2, 5, 16, 33, 128, 255, 256};
    int bad = 0, cases = 0, ldc = K + 3;
    double worst = 0, unrounded = INFINITY;
    float alpha = -0.75f;
    static rf_sh16_keys keys;
    for (size_t mi = 0; mi < sizeof m_list / sizeof *m_list; mi++)
        for (size_t ki = 0; ki < sizeof inner_list / sizeof *inner_list; ki++, cases++) {
            int m = m_list[mi], inner = inner_list[ki];
            int lda = (tn ? m : inner) + 3, ldb = K + 5, a_rows = tn ? inner : m;
            float *A = filled(a_rows * lda, 0.37f, (float)m), *B = filled(inner * ldb, 0.23f, (float)-inner);
            float *C = malloc(sizeof(float) * (size_t)(m * ldc)), *C0 = malloc(sizeof(float) * (size_t)(m * ldc));
            for (int i = 0; i < m * ldc; i++)
                C[i] = C0[i] = i % ldc < K ? 0.1f * (float)(i % 7) : GUARD;
            if (tn)
                bad += !rf_sh16_acc_tn(m, inner, alpha, A, lda, B, ldb, C, ldc);
            else {
                rf_sh16_load(&keys, inner, K, 1.0f, B, ldb);
                rf_sh16_acc(m, inner, alpha, A, lda, &keys, C, ldc);
            }
            double far = 0;
            for (int r = 0; r < m; r++)
                for (int c = 0; c < ldc; c++) {
                    float got = C[r * ldc + c];
                    if (c >= K) {
                        bad += got != GUARD;
                        continue;
                    }
                    double want = 0, exact = 0, mag = 0;
                    for (int j = 0; j < inner; j++) {
                        float a = tn ? A[j * lda + r] : A[r * lda + j], b = B[j * ldb + c];
                        double t = alpha * (double)rounded(a) * rounded(b);
                        want += t;
                        mag += fabs(t);
                        exact += alpha * (double)a * b;
                    }
                    double bound = tol_sum(inner + 2, mag + fabs(C0[r * ldc + c])) + 1e-30;
                    worst = fmax(worst, fabs(got - (want + C0[r * ldc + c])) / bound);
                    far = fmax(far, fabs(got - (exact + C0[r * ldc + c])) / bound);
                }
            if (m * inner >= 16)   /* enough products that one is far from its rounding */
                unrounded = fmin(unrounded, far);
            free(A);
            free(B);
            free(C);
            free(C0);
        }
    const char *name = tn ? "C += alpha A^T B (rf_sh16_acc_tn: dS^T Q, P^T dO)" : "C += alpha A B (rf_sh16_acc: P V, dS K)";
    tap_ok(bad == 0 && worst <= 1.0, "%s: %d shapes, worst error %.3g of the f32 bound on the rounded operands, "
           "nothing past 8 columns (%d bad)", name, cases, worst, bad);
    tap_ok(unrounded > 3.0, "... and off the unrounded product by more (%.3g bounds at least)", unrounded);
}

int main(void)
{
    if (!rf_sh16_available()) {
        float s = 0;
        static rf_sh16_keys keys;
        tap_ok(!rf_sh16_load(&keys, 1, K, 1.0f, (float[K]){0}, K) &&
                   !rf_sh16_acc_tn(1, 1, 1.0f, &s, 1, (float[K]){0}, K, (float[K]){0}, K),
               "without AVX512-BF16 (or with RF_BF16=off or RF_CPU_ISA=avx2) the bf16 kernels decline");
        return tap_done();
    }
    test_load();
    test_scores();
    test_fused();
    test_products(false);
    test_products(true);
    return tap_done();
}
