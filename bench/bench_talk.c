/* The TaLK convolution op (core/cpu/talk.c) alone, forward and backward, at
 * the comparison's shape (batch 32, 2,000 positions, width 64, 8 heads,
 * windows of lmax = rmax = 31, or as given; a key mask; offsets uniform in
 * [0, 1) as the sigmoid gives them). Prints the best of the repetitions'
 * process CPU time and wall time per pass.
 *
 *   ./build/bench/bench_talk [threads] [repeats] [heads] [lmax] [length]
 */
#include <stdio.h>
#include <stdlib.h>

#include "../core/exec.h"
#include "../core/graph.h"
#include "../core/ops/talk.h"
#include "../core/params.h"
#include "../core/rng.h"
#include "op_passes.h"

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 1, repeats = argc > 2 ? atoi(argv[2]) : 5;
    const int heads = argc > 3 ? atoi(argv[3]) : 8, reach = argc > 4 ? atoi(argv[4]) : 31;
    const int64_t B = 32, N = argc > 5 ? atoi(argv[5]) : 2000, D = 64;
    rf_params *params = rf_params_new(1);
    rf_graph *g = rf_graph_new(params);
    rf_id x = rf_input(g, "x", rf_shape3(B, N, D), true), off = rf_input(g, "offsets", rf_shape3(B, N, 2 * heads), true);
    rf_id mask = rf_input(g, "mask", rf_shape2(B, N), false);
    rf_id out = rf_talk(g, x, off, mask, reach, reach);
    rf_graph_keep(g, out);
    rf_status st = {0};
    if (!rf_graph_prepare(g, out, threads, NULL, &st)) {
        fprintf(stderr, "bench_talk: %s\n", st.msg);
        return 1;
    }
    rf_rng rng = {7};
    float *xv = rf_value(g, x), *ov = rf_value(g, off);
    for (int64_t j = 0; j < B * N * D; j++)
        xv[j] = (float)rf_rng_normal(&rng);
    for (int64_t j = 0; j < B * N * 2 * heads; j++)
        ov[j] = (float)rf_rng_uniform(&rng);
    op_pass_times t = time_masked_op(g, mask, B, N, B * N * D, &rng, threads, repeats);
    printf("talk B %lld N %lld D %lld heads %d lmax = rmax = %d, %d thread(s): forward %.2f ms CPU, %.2f ms wall, "
           "backward %.2f ms CPU, %.2f ms wall\n",
           (long long)B, (long long)N, (long long)D, heads, reach, threads, 1e3 * t.cpu_forward, 1e3 * t.wall_forward,
           1e3 * t.cpu_backward, 1e3 * t.wall_backward);
    rf_graph_free(g);
    rf_params_free(params);
    return 0;
}
