/* The engine's matmul and linear ops against raw cblas_sgemm on the same
 * shapes (the model's projections and attention products). Prints one row
 * per shape: GFLOP/s of sgemm (OpenBLAS threads), of the op (the engine's
 * pool, rf_sgemm), and their ratio. Then issue 14's shapes on each
 * matrix-product library under the engine's pool (rf_sgemm_on), and the
 * library train.gemm = auto chooses for each (core/gemm.h).
 *
 *   ./build/bench/bench_matmul [threads]
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../core/blas.h"
#include "../core/blas_kernels.h"
#include "../core/exec.h"
#include "../core/params.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct {
    const char *what;
    int batch, m, k, n;
    bool tb;
} shape;

static double time_sgemm(const shape *s, float *a, float *b, float *c, int reps)
{
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        for (int i = 0; i < s->batch; i++)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, s->tb ? CblasTrans : CblasNoTrans, s->m, s->n, s->k, 1.0f,
                        a + (size_t)i * s->m * s->k, s->k, b + (s->batch > 1 ? (size_t)i * s->k * s->n : 0),
                        s->tb ? s->k : s->n, 0.0f, c + (size_t)i * s->m * s->n, s->n);
        double t = now_s() - t0;
        if (t < best)
            best = t;
    }
    return best;
}

static double time_op(const shape *s, rf_pool *pool, int reps)
{
    rf_graph *g = rf_graph_new(NULL);
    rf_shape sa = s->batch > 1 ? rf_shape3(s->batch, s->m, s->k) : rf_shape2(s->m, s->k);
    rf_shape sb = s->batch > 1 ? (s->tb ? rf_shape3(s->batch, s->n, s->k) : rf_shape3(s->batch, s->k, s->n))
                               : rf_shape2(s->k, s->n);
    rf_id a = rf_input(g, "a", sa, false), b = rf_input(g, "b", sb, false);
    rf_id c = rf_matmul(g, a, b, false, s->tb);
    rf_graph_keep(g, c);
    rf_status st = {0};
    if (!rf_graph_prepare(g, RF_NONE, rf_pool_threads(pool), NULL, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        exit(1);
    }
    rf_exec x;
    rf_exec_init(&x, g, pool, 0, 0, false);
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        rf_graph_forward(g, &x);
        double t = now_s() - t0;
        if (t < best)
            best = t;
    }
    rf_graph_free(g);
    return best;
}

/* Best of `reps` of one product on `lib`, under the engine's pool. */
static double time_lib(rf_pool *pool, rf_gemm_lib lib, const rf_gemm_shape *s, const float *a, const float *b,
                       float *c, int reps)
{
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        rf_sgemm_on(pool, lib, s->ta, s->tb, s->m, s->n, s->k, 1.0f, a, s->ta ? s->m : s->k, b, s->tb ? s->k : s->n,
                    0.0f, c, s->n);
        double t = now_s() - t0;
        if (t < best)
            best = t;
    }
    return best;
}

static void compare_libraries(rf_pool *pool)
{
    static const struct {
        const char *what;
        rf_gemm_shape s;
    } shapes[] = {
        {"dense layer 64000 x 128 x 64", {false, false, 64000, 128, 64, 1}},
        {"square 1024 x 1024 x 1024", {false, false, 1024, 1024, 1024, 1}},
        {"projection 8000 x 64 x 128", {false, false, 8000, 64, 128, 1}},
        {"one head's scores 2000 x 2000 x 8", {false, true, 2000, 2000, 8, 1}},
        {"weight gradient 64 x 128 x 64000", {true, false, 64, 128, 64000, 1}},
    };
    printf("\n%-36s %12s %12s %9s  (%d threads, train.gemm = %s)\n", "product m x n x k", "openblas", "onednn",
           "auto", rf_pool_threads(pool), rf_gemm_mode());
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const rf_gemm_shape *s = &shapes[i].s;
        size_t na = (size_t)s->m * s->k, nb = (size_t)s->k * s->n, nc = (size_t)s->m * s->n;
        float *a = calloc(na, 4), *b = calloc(nb, 4), *c = calloc(nc, 4);
        for (size_t j = 0; j < na; j++)
            a[j] = (float)(j % 7) * 0.1f;
        for (size_t j = 0; j < nb; j++)
            b[j] = (float)(j % 5) * 0.1f;
        double flop = 2.0 * s->m * s->n * s->k;
        double t[RF_GEMM_LIBS];
        for (int lib = 0; lib < RF_GEMM_LIBS; lib++)
            t[lib] = time_lib(pool, lib, s, a, b, c, 5);
        rf_gemm_plan(s, 1);
        printf("%-36s %9.1f GF %9.1f GF %9s\n", shapes[i].what, flop / t[RF_GEMM_OPENBLAS] * 1e-9,
               flop / t[RF_GEMM_ONEDNN] * 1e-9, rf_gemm_lib_name(rf_gemm_choice(s)));
        free(a);
        free(b);
        free(c);
    }
}

int main(int argc, char **argv)
{
    rf_blas_pick_kernels(argv);
    int threads = argc > 1 ? atoi(argv[1]) : 2;
    rf_pool *pool = rf_pool_new(threads);
    const shape shapes[] = {
        {"qkv projection  [16000x64]x[64x64]", 1, 16000, 64, 64, false},
        {"mlp fc1         [16000x64]x[64x128]", 1, 16000, 64, 128, false},
        {"mlp fc2         [16000x128]x[128x64]", 1, 16000, 128, 64, false},
        {"square          [1024x1024]x[1024x1024]", 1, 1024, 1024, 1024, false},
        {"attention QK^T  8x[2000x8]x[8x2000]^T", 8, 2000, 8, 2000, true},
        {"attention PV    8x[2000x2000]x[2000x8]", 8, 2000, 2000, 8, false},
        {"LS landmarks    256x[32x2000]x[2000x8]", 256, 32, 2000, 8, false},
        {"LS landmarks dP 256x[32x8]x[2000x8]^T", 256, 32, 8, 2000, true},
    };
    printf("%-42s %10s %10s %7s\n", "shape", "sgemm", "op", "ratio");
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const shape *s = &shapes[i];
        size_t na = (size_t)s->batch * s->m * s->k, nb = (size_t)(s->batch) * s->k * s->n,
               nc = (size_t)s->batch * s->m * s->n;
        float *a = calloc(na, 4), *b = calloc(nb, 4), *c = calloc(nc, 4);
        for (size_t j = 0; j < na; j++)
            a[j] = (float)(j % 7) * 0.1f;
        for (size_t j = 0; j < nb; j++)
            b[j] = (float)(j % 5) * 0.1f;
        double flop = 2.0 * s->batch * s->m * s->k * s->n;
        /* raw: OpenBLAS's own threads; op: OpenBLAS single-threaded under the engine's pool */
        rf_blas_set_threads(threads);
        double t_blas = time_sgemm(s, a, b, c, 5);
        rf_blas_single_thread();
        double t_op = time_op(s, pool, 5);
        printf("%-42s %8.1f GF %8.1f GF %6.0f%%\n", s->what, flop / t_blas * 1e-9, flop / t_op * 1e-9,
               100 * t_blas / t_op);
        free(a);
        free(b);
        free(c);
    }
    compare_libraries(pool);
    rf_pool_free(pool);
    return 0;
}
