/* The long-short attention op (core/cpu/ls_attention.c) alone, forward and
 * backward, at the comparison's shape (batch 32, 2,000 positions, width 64,
 * 8 heads, window 8, 32 global keys, or as given; a key mask). Prints the
 * best of the repetitions' process CPU time and wall time per pass. CPU
 * time keeps a usable figure for one thread on a loaded machine.
 *
 *   ./build/bench/bench_ls_attention [threads] [repeats] [heads] [window] [globals] [length]
 */
#include <stdio.h>
#include <stdlib.h>

#include "../core/exec.h"
#include "../core/graph.h"
#include "../core/ops/ls_attention.h"
#include "../core/params.h"
#include "../core/rng.h"
#include "op_passes.h"

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 1, repeats = argc > 2 ? atoi(argv[2]) : 5;
    const int heads = argc > 3 ? atoi(argv[3]) : 8;
    const int window = argc > 4 ? atoi(argv[4]) : 8;
    const int64_t B = 32, N = argc > 6 ? atoi(argv[6]) : 2000, D = 64, G = argc > 5 ? atoi(argv[5]) : 32;
    rf_params *params = rf_params_new(1);
    rf_graph *g = rf_graph_new(params);
    rf_id q = rf_input(g, "q", rf_shape3(B, N, D), true), k = rf_input(g, "k", rf_shape3(B, N + G, D), true);
    rf_id v = rf_input(g, "v", rf_shape3(B, N + G, D), true), mask = rf_input(g, "mask", rf_shape2(B, N), false);
    rf_id out = rf_ls_attention(g, q, k, v, mask, heads, window, 0.35f);
    rf_graph_keep(g, out);
    rf_status st = {0};
    if (!rf_graph_prepare(g, out, threads, NULL, &st)) {
        fprintf(stderr, "bench_ls_attention: %s\n", st.msg);
        return 1;
    }
    rf_rng rng = {7};
    const rf_id filled[3] = {q, k, v};
    for (int i = 0; i < 3; i++) {
        float *x = rf_value(g, filled[i]);
        for (int64_t j = 0; j < B * (N + (i > 0 ? G : 0)) * D; j++)
            x[j] = (float)rf_rng_normal(&rng);
    }
    op_pass_times t = time_masked_op(g, mask, B, N, B * N * D, &rng, threads, repeats);
    printf("ls attention B %lld N %lld D %lld heads %d window %d globals %lld, %d thread(s): forward %.2f ms CPU, "
           "%.2f ms wall, backward %.2f ms CPU, %.2f ms wall\n",
           (long long)B, (long long)N, (long long)D, heads, window, (long long)G, threads, 1e3 * t.cpu_forward,
           1e3 * t.wall_forward, 1e3 * t.cpu_backward, 1e3 * t.wall_backward);
    rf_graph_free(g);
    rf_params_free(params);
    return 0;
}
