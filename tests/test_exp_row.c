/* The attention kernels' row exponentials (core/cpu/exp_row.h) against
 * double exp: a grid of x from -100 to 10 (below -87 the result is 0, as
 * rf_expf gives), -inf entries, every row length 1..70 (so every masked
 * tail), nothing written past the row, the returned sum, and the same
 * answers as rf_exp_row within the two functions' bounds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

int main(void)
{
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
    return tap_done();
}
