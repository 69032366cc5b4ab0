/* Full attention's short-head kernels, f32 (core/cpu/small_head.h) against
 * bf16 (core/cpu/small_head_bf16.h), on one thread: a block of 64 queries
 * against 256 keys with heads of 8, the flash kernel's default tile. For
 * each kernel, the best of five rounds of `calls` calls: microseconds a
 * call and GFLOP/s of its 2 x 64 x 256 x 8 multiply-adds (the
 * probabilities' exponentials not counted).
 *
 *   ./build/bench/bench_small_head [calls]      (default 20000)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../core/cpu/small_head.h"
#include "../core/cpu/small_head_bf16.h"

enum { QB = 64, KB = 256, DK = 8, D = 64 };

static float A[QB * KB], Q[QB * D], KV[KB * D], C[KB * D], S[QB * KB], lse[QB];
static rf_small_head_keys keys32;
static rf_sh16_keys keys16;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef enum { SCORES, PROBS, ACC, ACC_LANES, ACC_TN } kernel;
static const char *const names[] = {"scores Q K^T", "probabilities (backward, with their scores)", "P V, dS K",
                                    "P V, keys in lanes (f32 only)", "dS^T Q, P^T dO"};

static void call(kernel k, bool bf16)
{
    switch (k) {
    case SCORES:
        if (bf16)
            rf_sh16_scores(QB, Q, D, &keys16, NULL, true, S, KB, NULL);
        else
            rf_small_head_scores(QB, Q, D, &keys32, NULL, true, S, KB, NULL);
        break;
    case PROBS:
        if (bf16)
            rf_sh16_probs(QB, Q, D, &keys16, NULL, lse, S, KB);
        else
            rf_small_head_probs(QB, Q, D, &keys32, NULL, lse, S, KB);
        break;
    case ACC:
        if (bf16)
            rf_sh16_acc(QB, KB, 1.0f, A, KB, &keys16, Q, D);
        else
            rf_small_head_acc(false, QB, DK, KB, 1.0f, A, KB, KV, D, Q, D);
        break;
    case ACC_LANES:
        rf_small_head_pv(QB, 1.0f, A, KB, &keys32, Q, D);
        break;
    case ACC_TN:
        if (bf16)
            rf_sh16_acc_tn(KB, QB, 1.0f, A, KB, Q, D, C, D);
        else
            rf_small_head_acc(true, KB, DK, QB, 1.0f, A, KB, Q, D, C, D);
        break;
    }
}

int main(int argc, char **argv)
{
    int calls = argc > 1 ? atoi(argv[1]) : 20000;
    for (int i = 0; i < QB * KB; i++)
        A[i] = 0.01f * sinf((float)i);
    for (int i = 0; i < QB * D; i++)
        Q[i] = 0.1f * cosf((float)i);
    for (int i = 0; i < KB * D; i++)
        KV[i] = 0.1f * sinf(0.3f * (float)i);
    if (!rf_small_head_load_keys(&keys32, KB, DK, 1.0f, KV, D)) {
        fprintf(stderr, "this CPU has neither AVX-512 nor AVX2: the kernels decline\n");
        return 1;
    }
    bool bf16 = rf_sh16_load(&keys16, KB, DK, 1.0f, KV, D);
    printf("%d queries x %d keys, heads of %d, one thread, best of 5 x %d calls\n", QB, KB, DK, calls);
    printf("%-45s %12s %12s %12s %12s\n", "kernel", "f32 us", "f32 GFLOP/s", "bf16 us", "bf16 GFLOP/s");
    double flops = 2.0 * QB * KB * DK;
    for (kernel k = SCORES; k <= ACC_TN; k++) {
        double best[2] = {INFINITY, INFINITY};
        bool both = bf16 && k != ACC_LANES;
        for (int precision = 0; precision < (both ? 2 : 1); precision++)
            for (int round = 0; round < 5; round++) {
                double t = now();
                for (int c = 0; c < calls; c++)
                    call(k, precision == 1);
                t = (now() - t) / calls;
                best[precision] = t < best[precision] ? t : best[precision];
            }
        printf("%-45s %12.2f %12.1f", names[k], 1e6 * best[0], flops / best[0] / 1e9);
        if (both)
            printf(" %12.2f %12.1f\n", 1e6 * best[1], flops / best[1] / 1e9);
        else
            printf(" %12s %12s\n", "-", "-");
    }
    if (!bf16)
        printf("bf16: this CPU has no AVX512-BF16 (or RF_BF16=off)\n");
    return 0;
}
