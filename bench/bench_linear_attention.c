/* The linear attention op (core/cpu/linear_attention.c) alone, forward and
 * backward, at the comparison's shape (batch 32, 2,000 positions, width 64,
 * 8 heads, or as given; elu+1, a key mask). Prints the best of the
 * repetitions' process CPU time and wall time per pass, and the rate at
 * which the wall time moves the tensors the op must read and write. CPU
 * time keeps a usable figure for one thread on a loaded machine.
 *
 *   ./build/bench/bench_linear_attention [threads] [repeats] [heads] [width]
 */
#include <stdio.h>
#include <stdlib.h>

#include "../core/exec.h"
#include "../core/graph.h"
#include "../core/ops/linear_attention.h"
#include "../core/params.h"
#include "../core/rng.h"
#include "op_passes.h"

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 1, repeats = argc > 2 ? atoi(argv[2]) : 5;
    const int heads = argc > 3 ? atoi(argv[3]) : 8;
    const int64_t B = 32, N = 2000, D = argc > 4 ? atoi(argv[4]) : 64;
    rf_params *params = rf_params_new(1);
    rf_graph *g = rf_graph_new(params);
    rf_id q = rf_input(g, "q", rf_shape3(B, N, D), true), k = rf_input(g, "k", rf_shape3(B, N, D), true);
    rf_id v = rf_input(g, "v", rf_shape3(B, N, D), true), mask = rf_input(g, "mask", rf_shape2(B, N), false);
    rf_id out = rf_linear_attention(g, q, k, v, mask, heads, RF_KMAP_ELU1, 1.0f);
    rf_graph_keep(g, out);
    rf_status st = {0};
    if (!rf_graph_prepare(g, out, threads, NULL, &st)) {
        fprintf(stderr, "bench_linear_attention: %s\n", st.msg);
        return 1;
    }
    rf_rng rng = {7};
    const rf_id filled[3] = {q, k, v};
    for (int i = 0; i < 3; i++) {
        float *x = rf_value(g, filled[i]);
        for (int64_t j = 0; j < B * N * D; j++)
            x[j] = (float)rf_rng_normal(&rng);
    }
    op_pass_times t = time_masked_op(g, mask, B, N, B * N * D, &rng, threads, repeats);
    /* forward reads q, k, v and writes phi(q), phi(k), out; backward reads
     * dout, out, phi(q), phi(k), v and writes dq, dk, dv: each [B, N, D] */
    double tensor = (double)(B * N * D) * sizeof(float);
    printf("linear attention B %lld N %lld D %lld heads %d, %d thread(s): forward %.2f ms CPU, %.2f ms wall (%.1f "
           "GB/s for 6 tensors), backward %.2f ms CPU, %.2f ms wall (%.1f GB/s for 8 tensors)\n",
           (long long)B, (long long)N, (long long)D, heads, threads, 1e3 * t.cpu_forward, 1e3 * t.wall_forward,
           6 * tensor / t.wall_forward / 1e9, 1e3 * t.cpu_backward, 1e3 * t.wall_backward, 8 * tensor / t.wall_backward / 1e9);
    rf_graph_free(g);
    rf_params_free(params);
    return 0;
}
