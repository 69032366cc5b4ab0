/* One op's forward and backward passes timed alone (the bench_*_attention
 * programs): the best of `repeats` in process CPU time, which keeps a
 * usable figure for one thread on a loaded machine, and in wall time. */
#ifndef RF_BENCH_OP_PASSES_H
#define RF_BENCH_OP_PASSES_H

#include <time.h>

#include <stdlib.h>

#include "../core/exec.h"
#include "../core/rng.h"

typedef struct op_pass_times {
    double cpu_forward, wall_forward, cpu_backward, wall_backward;   /* seconds */
} op_pass_times;

static inline double op_clock_s(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline double op_least(double a, double b)
{
    return a < b ? a : b;
}

/* g prepared for training; `seed` the output's gradient. */
static inline op_pass_times time_op_passes(rf_graph *g, rf_exec *x, const float *seed, int repeats)
{
    op_pass_times t = {1e30, 1e30, 1e30, 1e30};
    for (int r = 0; r < repeats; r++) {
        double c0 = op_clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = op_clock_s(CLOCK_MONOTONIC);
        rf_graph_forward(g, x);
        double c1 = op_clock_s(CLOCK_PROCESS_CPUTIME_ID), w1 = op_clock_s(CLOCK_MONOTONIC);
        rf_graph_backward(g, x, seed);
        double c2 = op_clock_s(CLOCK_PROCESS_CPUTIME_ID), w2 = op_clock_s(CLOCK_MONOTONIC);
        t.cpu_forward = op_least(t.cpu_forward, c1 - c0);
        t.wall_forward = op_least(t.wall_forward, w1 - w0);
        t.cpu_backward = op_least(t.cpu_backward, c2 - c1);
        t.wall_backward = op_least(t.wall_backward, w2 - w1);
    }
    return t;
}

/* The comparison's key mask [B, N] (rows padded by 0, 100, 200 and 300
 * keys in turn), a normal seed gradient of `out_floats`, and the passes
 * timed on a pool of `threads`. */
static inline op_pass_times time_masked_op(rf_graph *g, rf_id mask, int64_t B, int64_t N, int64_t out_floats,
                                           rf_rng *rng, int threads, int repeats)
{
    float *m = rf_value(g, mask);
    for (int64_t j = 0; j < B * N; j++)
        m[j] = j % N < N - 100 * (j / N % 4) ? 1.0f : 0.0f;
    float *seed = malloc((size_t)out_floats * sizeof *seed);
    for (int64_t j = 0; j < out_floats; j++)
        seed[j] = (float)rf_rng_normal(rng);
    rf_pool *pool = rf_pool_new(threads);
    rf_exec x;
    rf_exec_init(&x, g, pool, 1, 0, true);
    op_pass_times t = time_op_passes(g, &x, seed, repeats);
    rf_pool_free(pool);
    free(seed);
    return t;
}

#endif
