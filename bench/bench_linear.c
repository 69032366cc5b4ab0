/* A layer norm feeding a linear layer with bias (every encoder's
 * projections and MLP), forward and backward, f32 against bf16 (bf16
 * products, the norm's output stored in bf16), at the comparison's token
 * count (batch 32 x 2,000; BLRP's products have 3,200 rows). Each pass
 * alternates between the two graphs; on one thread it is timed in the
 * calling thread's CPU time, on more in wall time (the best of the
 * repetitions either way), with each op's wall time beside it.
 *
 *   ./build/bench/bench_linear [repeats] [in] [out] [rows] [threads]
 */
#include <stdio.h>
#include <stdlib.h>

#include "../core/bf16_storage.h"
#include "../core/exec.h"
#include "../core/gemm.h"
#include "../core/gemm_bf16.h"
#include "../core/graph.h"
#include "../core/op.h"
#include "../core/params.h"
#include "../core/pool.h"
#include "../core/rng.h"
#include "op_passes.h"

typedef struct {
    rf_params *params;
    rf_graph *g;
    rf_id x, out;
    float *seed;
} variant;

static bool build(variant *v, bool bf16, int64_t rows, int64_t in, int64_t out, int threads, rf_status *st)
{
    v->params = rf_params_new(1);
    v->g = rf_graph_new(v->params);
    rf_graph_set_bf16_storage(v->g, bf16);
    v->x = rf_input(v->g, "x", rf_shape2(rows, in), true);
    rf_id gamma = rf_param(v->g, "ln.weight", rf_shape1(in), RF_INIT_ONES, 0);
    rf_id beta = rf_param(v->g, "ln.bias", rf_shape1(in), RF_INIT_ZEROS, 0);
    rf_id w = rf_param(v->g, "fc.weight", rf_shape2(in, out), RF_INIT_UNIFORM, 0.1f);
    rf_id b = rf_param(v->g, "fc.bias", rf_shape1(out), RF_INIT_UNIFORM, 0.1f);
    v->out = rf_linear(v->g, rf_layernorm(v->g, v->x, gamma, beta, 1e-5f), w, b);
    rf_graph_keep(v->g, v->out);
    if (!rf_gemm_set_precision(bf16 ? "bf16" : "f32", st) || !rf_graph_prepare(v->g, v->out, threads, NULL, st))
        return false;
    rf_rng rng = {7};
    float *xv = rf_value(v->g, v->x);
    v->seed = malloc((size_t)(rows * out) * sizeof *v->seed);
    for (int64_t j = 0; j < rows * in; j++)
        xv[j] = (float)rf_rng_normal(&rng);
    for (int64_t j = 0; j < rows * out; j++)
        v->seed[j] = (float)rf_rng_normal(&rng);
    return true;
}

int main(int argc, char **argv)
{
    int repeats = argc > 1 ? atoi(argv[1]) : 10;
    int64_t in = argc > 2 ? atoi(argv[2]) : 64, out = argc > 3 ? atoi(argv[3]) : 128,
            rows = argc > 4 ? atoll(argv[4]) : 64000;
    int threads = argc > 5 ? atoi(argv[5]) : 1;
    if (!rf_bf16_supported()) {
        fprintf(stderr, "bench_linear: this CPU has no AVX512-BF16\n");
        return 1;
    }
    clockid_t clock = threads > 1 ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID;
    rf_status st = {0};
    variant v[2];
    for (int i = 0; i < 2; i++)
        if (!build(&v[i], i == 1, rows, in, out, threads, &st)) {
            fprintf(stderr, "bench_linear: %s\n", st.msg);
            return 1;
        }
    rf_pool *pool = threads > 1 ? rf_pool_new(threads) : NULL;
    double fwd[2] = {1e30, 1e30}, bwd[2] = {1e30, 1e30};
    /* [variant][linear, norm][pass] */
    double op[2][2][2] = {{{1e30, 1e30}, {1e30, 1e30}}, {{1e30, 1e30}, {1e30, 1e30}}};
    for (int r = 0; r <= repeats; r++)   /* round 0 warms up */
        for (int i = 0; i < 2; i++) {
            rf_gemm_set_precision(i == 1 ? "bf16" : "f32", &st);
            rf_op_profile prof = {0};
            rf_graph_set_profile(v[i].g, &prof);
            rf_exec x;
            rf_exec_init(&x, v[i].g, pool, 1, (uint64_t)r, true);
            double t0 = op_clock_s(clock);
            rf_graph_forward(v[i].g, &x);
            double t1 = op_clock_s(clock);
            rf_params_zero_grads(v[i].params);
            double t2 = op_clock_s(clock);
            rf_graph_backward(v[i].g, &x, v[i].seed);
            double t3 = op_clock_s(clock);
            if (r > 0) {
                fwd[i] = op_least(fwd[i], t1 - t0);
                bwd[i] = op_least(bwd[i], t3 - t2);
                for (int pass = 0; pass < 2; pass++) {
                    op[i][0][pass] = op_least(op[i][0][pass], prof.seconds[RF_OP_LINEAR][pass]);
                    op[i][1][pass] = op_least(op[i][1][pass], prof.seconds[RF_OP_LAYERNORM][pass]);
                }
            }
        }
    double flop = 2.0 * (double)rows * (double)in * (double)out;
    for (int i = 0; i < 2; i++)
        printf("layernorm + linear %lld x %lld -> %lld, %s, %d thread(s): forward %.2f ms (%.0f GFLOP/s in the "
               "product), backward %.2f ms (%.0f GFLOP/s)\n",
               (long long)rows, (long long)in, (long long)out, i == 1 ? "bf16" : "f32 ", threads, 1e3 * fwd[i],
               flop / fwd[i] * 1e-9, 1e3 * bwd[i], 2 * flop / bwd[i] * 1e-9);
    for (int i = 0; i < 2; i++)
        printf("  %s wall, best of each: linear forward %.2f ms, backward %.2f ms; layer norm forward %.2f ms, "
               "backward %.2f ms\n",
               i == 1 ? "bf16" : "f32 ", 1e3 * op[i][0][0], 1e3 * op[i][0][1], 1e3 * op[i][1][0], 1e3 * op[i][1][1]);
    printf("f32 / bf16: forward %.2f, backward %.2f\n", fwd[0] / fwd[1], bwd[0] / bwd[1]);
    for (int i = 0; i < 2; i++) {
        free(v[i].seed);
        rf_graph_free(v[i].g);
        rf_params_free(v[i].params);
    }
    rf_pool_free(pool);
    rf_gemm_set_precision("f32", &st);
    return 0;
}
