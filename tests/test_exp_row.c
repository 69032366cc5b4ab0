/* The attention kernels' row exponentials (core/cpu/exp_row.h) against
 * double exp: a grid of x from -100 to 10 (below -87 the result is 0, as
 * rf_expf gives), -inf entries, every row length 1..70 (so every masked
 * tail), nothing written past the row, the returned sum, and the same
 * answers as rf_exp_row within the two functions' bounds; on AVX-512 or
 * on AVX2, whichever the CPU has (RF_CPU_ISA=avx2: AVX2). Where both
 * exist, AVX2's e^x (exp8.h) is AVX-512's (exp16.h) bit for bit. */
#include <immintrin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cpu/cpu_features.h"
#include "../core/cpu/exp16.h"
#include "../core/cpu/exp8.h"
#include "../core/cpu/exp_row.h"
#include "../core/cpu/vecmath.h"
#include "tap.h"

enum { MAX_N = 70, GUARD_FLOATS = 16 };

/* The relative error of got against e^(x - shift) in double (x - shift
 * rounded to float first, as the kernel subtracts), with e^ below -87
 * counted as 0 (both functions flush there). */
static double rel_error(float got, float x, float shift)
{
    double d = (double)(x - shift);
    if (!(d >= -87.0))
        return got == 0.0f ? 0.0 : INFINITY;
    double want = exp(d);
    return fabs(got - want) / want;
}

__attribute__((target("avx512f"))) static void exp16_of(const float *x, float *y)
{
    _mm512_storeu_ps(y, rf_exp16(_mm512_loadu_ps(x)));
}

__attribute__((target("avx2,fma"))) static void exp8_of(const float *x, float *y)
{
    _mm256_storeu_ps(y, rf_exp8(_mm256_loadu_ps(x)));
    _mm256_storeu_ps(y + 8, rf_exp8(_mm256_loadu_ps(x + 8)));
}

/* exp8 against exp16 over x from -100 to 100 in steps of 2^-10 and the
 * edges (-87 and just past it, the largest finite results, overflow far
 * past them, infinities, NaN): the same bits (any NaN for a NaN). */
static void check_same_as_avx512(void)
{
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
        tap_skip("AVX2's e^x is AVX-512's bit for bit", "this CPU lacks AVX-512 or AVX2");
        tap_skip("e^x is inf past 88.73", "this CPU lacks AVX-512 or AVX2");
        return;
    }
    enum { GRID = 200 * 1024, EDGES = 32 };
    static const float edges[EDGES] = {-87.0f, -87.00001f, -86.99999f, -88.0f, 88.7f, 88.72f, 88.73f, 0.0f,
                                       -0.0f, 1e-30f, -1e-30f, INFINITY, -INFINITY, NAN, -126.0f, 127.0f,
                                       176.0f, 177.0f, 178.0f, 200.0f, 355.0f, 1e10f, 3e38f, -3e38f,
                                       -1e10f, 1e-45f, -1e-45f, 0.5f, -0.5f, 0.34657359f, -0.34657359f, 1.0f};
    int differ = 0, n = 0, not_inf = 0;
    for (int i = 0; i < GRID + EDGES; i += 16) {
        float x[16], a[16], b[16];
        for (int l = 0; l < 16; l++)
            x[l] = i < GRID ? -100.0f + (float)(i + l) / 1024.0f : edges[i - GRID + l];
        exp16_of(x, a);
        exp8_of(x, b);
        for (int l = 0; l < 16; l++, n++) {
            differ += isnan(a[l]) ? !isnan(b[l]) : memcmp(&a[l], &b[l], sizeof a[l]) != 0;
            not_inf += x[l] > 88.73f && a[l] != INFINITY;
        }
    }
    tap_ok(differ == 0, "AVX2's e^x is AVX-512's bit for bit at %d points of [-100, 100] and its edges (%d differ)", n,
           differ);
    /* vscalefps' answer for a NaN mantissa and an infinite exponent differs
     * between CPUs: past the overflow e^x must be inf on its own terms */
    tap_ok(not_inf == 0, "e^x is inf for every x past 88.73, +inf and 3e38 included (%d are not)", not_inf);
}

/* rf_attn_exp_row_coarse (the bf16 attention's): within 1e-4 of e^x on
 * the grid below -87 counted as 0, -inf 0, the sum, nothing past the row;
 * on AVX-512 coarser than rf_attn_exp_row somewhere (it ran). */
static void check_coarse(void)
{
    double worst = 0.0;
    int bad = 0;
    for (int i = 0; i < 110 * 1024; i += 16) {
        float row[16 + GUARD_FLOATS], in[16];
        for (int l = 0; l < 16 + GUARD_FLOATS; l++)
            row[l] = l < 16 ? -100.0f + (float)(i + l) / 1024.0f : 1234.5f;
        if (i == 0)
            row[3] = -INFINITY;
        memcpy(in, row, sizeof in);
        float sum = rf_attn_exp_row_coarse(row, 16, 1.5f);
        double want_sum = 0.0;
        for (int l = 0; l < 16; l++) {
            double e = rel_error(row[l], in[l], 1.5f);
            worst = e > worst ? e : worst;
            want_sum += isinf(in[l]) || (double)(in[l] - 1.5f) < -87.0 ? 0.0 : exp((double)(in[l] - 1.5f));
        }
        for (int l = 16; l < 16 + GUARD_FLOATS; l++)
            bad += row[l] != 1234.5f;
        bad += !(fabs(sum - want_sum) <= 1e-4 * want_sum + 1e-30);
    }
    tap_ok(worst < 1e-4 && bad == 0, "the coarse row exponentials: worst relative error %.3g for x in [-101.5, 8.5) "
           "(bound 1e-4), -inf gives 0, sums within 1e-4, nothing past the row (%d bad)", worst, bad);
    if (rf_cpu_avx512())
        tap_ok(worst > 3e-7, "... and coarser than rf_attn_exp_row's 3e-7 on AVX-512 (their own polynomial ran)");
}

int main(void)
{
    tap_diag("rf_attn_exp_row runs on %s", rf_cpu_avx512() ? "AVX-512" : rf_cpu_avx2() ? "AVX2 and FMA" : "rf_exp_row");
    /* the grid, one row of 16 at a time, and a long row for the sum */
    double worst = 0.0;
    int grid = 0;
    for (int i = 0; i < 110 * 64; i += 16) {
        float row[16];
        for (int l = 0; l < 16; l++)
            row[l] = -100.0f + (float)(i + l) / 64.0f;
        float in[16];
        for (int l = 0; l < 16; l++)
            in[l] = row[l];
        rf_attn_exp_row(row, 16, 0.0f);
        for (int l = 0; l < 16; l++) {
            double e = rel_error(row[l], in[l], 0.0f);
            worst = e > worst ? e : worst;
            grid++;
        }
    }
    tap_ok(worst < 3e-7, "%d points of e^x for x in [-100, 10): worst relative error %.3g (bound 3e-7)", grid, worst);

    /* rows 1..70 long: masked tails, -inf entries, a shift, the sum,
     * nothing written past n; and rf_exp_row's answers */
    int bad_rows = 0, bad_guard = 0, bad_sum = 0, bad_match = 0;
    for (int n = 1; n <= MAX_N; n++) {
        float p[MAX_N + GUARD_FLOATS], q[MAX_N + GUARD_FLOATS], in[MAX_N];
        for (int j = 0; j < n + GUARD_FLOATS; j++)
            p[j] = q[j] = j < n ? (j % 5 == 3 ? -INFINITY : 3.0f * sinf(0.7f * j + n)) : 1234.5f;
        for (int j = 0; j < n; j++)
            in[j] = p[j];
        float shift = 2.5f;
        float sum = rf_attn_exp_row(p, n, shift), ref_sum = rf_exp_row(q, n, shift);
        double want_sum = 0.0;
        for (int j = 0; j < n; j++) {
            bad_rows += !(rel_error(p[j], in[j], shift) < 3e-7);
            bad_match += !(fabsf(p[j] - q[j]) <= 5e-7f * q[j]);
            want_sum += isinf(in[j]) ? 0.0 : exp((double)(in[j] - shift));
        }
        for (int j = n; j < n + GUARD_FLOATS; j++)
            bad_guard += p[j] != 1234.5f;
        bad_sum += !(fabs(sum - want_sum) <= 1e-6 * want_sum && fabsf(sum - ref_sum) <= 1e-6f * ref_sum);
    }
    tap_ok(bad_rows == 0, "rows of 1..%d with -inf entries and a shift: %d entries off e^(x - shift) by 3e-7 or more",
           MAX_N, bad_rows);
    tap_ok(bad_guard == 0, "nothing written past a row's end (%d floats changed)", bad_guard);
    tap_ok(bad_sum == 0, "the returned sum is the row's, within 1e-6 (%d rows off)", bad_sum);
    tap_ok(bad_match == 0, "the same exponentials as rf_exp_row within 5e-7 (%d entries off)", bad_match);
    check_coarse();
    check_same_as_avx512();
    return tap_done();
}
