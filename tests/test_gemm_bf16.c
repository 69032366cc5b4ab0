/* bf16 matrix products (train.precision = bf16, core/gemm_bf16.h): the
 * rounding against a scalar round-to-nearest-even, each product against a
 * double reference over the rounded operands (and visibly not the f32
 * product), results independent of the thread count, the precision's
 * switch and refusals, and a training step of every encoder in bf16
 * against the same step in f32. On a CPU without bf16 only the refusals
 * run; RF_BF16=off shows them on any CPU. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/blas.h"
#include "../core/gemm_bf16.h"
#include "../core/cpu/cpu_features.h"
#include "../core/exec.h"
#include "../core/gemm_cache.h"
#include "../core/graph.h"
#include "../core/params.h"
#include "../core/pool.h"
#include "../core/train.h"
#include "../datasets/datasets.h"
#include "tap.h"
#include "tolerance.h"

/* Round to nearest even, as VCVTNEPS2BF16 does: NaNs stay (quiet) NaNs, and
 * denormal inputs count as zero (the instruction ignores MXCSR). */
static uint16_t reference_round(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0)
        return (uint16_t)((u >> 16) | 0x0040u);
    if ((u & 0x7f800000u) == 0)
        u &= 0x80000000u;
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static float widen(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void test_rounding(void)
{
    float special[] = {1.0f + 0x1p-8f,            /* a tie: down to the even 1.0 */
                       1.0f + 3 * 0x1p-8f,        /* a tie: up to the even 1 + 2^-6 */
                       1.0f + 0x1p-8f + 0x1p-20f, /* above the tie: up */
                       -1.0f - 0x1p-8f,   3.4e38f, -3.4e38f, INFINITY, -INFINITY, NAN, -0.0f, 0.0f,
                       from_bits(0x00000001u), from_bits(0x807fffffu), 0x1p-126f, 65504.0f, 1e-30f};
    enum { N = 4099 };
    float *x = malloc(N * sizeof *x);
    uint16_t *y = malloc((N + 1) * sizeof *y);
    size_t ns = sizeof special / sizeof *special;
    for (size_t i = 0; i < N; i++)
        x[i] = i < ns ? special[i] : sinf(0.37f * (float)i) * expf((float)(i % 61) - 30.0f);
    /* every tail length of the 16-wide loop */
    int wrong = 0, first = -1;
    for (size_t n = 0; n <= 40; n++) {
        y[n] = 0xbeef;
        rf_bf16_round(x, y, n);
        for (size_t i = 0; i < n; i++)
            if (y[i] != reference_round(x[i]) && wrong++ == 0)
                first = (int)i;
        wrong += y[n] != 0xbeef;   /* nothing past the end */
    }
    rf_bf16_round(x, y, N);
    for (size_t i = 0; i < N; i++)
        if (y[i] != reference_round(x[i]) && wrong++ == 0)
            first = (int)i;
    tap_ok(wrong == 0, "f32 -> bf16 rounds to nearest even, like the scalar reference, at every length%s",
           first >= 0 ? " (first difference at a special value or element shown in the diagnostic)" : "");
    if (first >= 0)
        tap_diag("x[%d] = %a: got %04x, want %04x", first, x[first], y[first], reference_round(x[first]));
    tap_ok(widen(y[0]) == 1.0f && widen(y[1]) == 1.0f + 0x1p-6f && widen(y[2]) == 1.0f + 0x1p-7f &&
               isinf(widen(y[4])) && isnan(widen(y[8])) && signbit(widen(y[9])),
           "ties go to even, overflow to infinity, NaN stays NaN, -0 keeps its sign");
    free(x);
    free(y);
}

/* ---- products against a double reference over the rounded operands ---- */

typedef struct {
    bool ta, tb;
    int m, n, k, pad;   /* pad: extra leading dimension of A and B */
    float alpha, beta;
} product_case;

static float *filled(size_t n, float step)
{
    float *p = malloc((n + 1) * sizeof *p);
    for (size_t i = 0; i < n; i++)
        p[i] = sinf(step * (float)i + 0.3f) * (1.0f + 0.001f * (float)(i % 7));
    return p;
}

static float bf16_of(float f)
{
    return widen(reference_round(f));
}

/* The worst |C - reference| in units of its f32 rounding bound, with the
 * operands rounded to bf16 (rounded) or not. */
static double worst(const product_case *c, const float *A, const float *B, const float *C0, const float *C,
                    bool rounded)
{
    int lda = (c->ta ? c->m : c->k) + c->pad, ldb = (c->tb ? c->k : c->n) + c->pad;
    double w = 0;
    for (int i = 0; i < c->m; i++)
        for (int j = 0; j < c->n; j++) {
            double want = c->beta * (double)C0[(size_t)i * c->n + j], mag = fabs(want);
            for (int l = 0; l < c->k; l++) {
                float a = c->ta ? A[(size_t)l * lda + i] : A[(size_t)i * lda + l];
                float b = c->tb ? B[(size_t)j * ldb + l] : B[(size_t)l * ldb + j];
                double p = c->alpha * (double)(rounded ? bf16_of(a) : a) * (rounded ? bf16_of(b) : b);
                want += p;
                mag += fabs(p);
            }
            double e = fabs(C[(size_t)i * c->n + j] - want) / tol_sum(c->k + 2, mag);
            if (!(e <= w))
                w = e;
        }
    return w;
}

static void test_products(void)
{
    static const product_case cases[] = {
        {false, false, 37, 29, 53, 0, 1.0f, 0.0f},  {true, false, 33, 17, 64, 3, 1.0f, 1.0f},
        {false, true, 64, 64, 100, 5, 0.5f, -0.5f}, {true, true, 19, 41, 7, 1, 2.0f, 0.0f},
        {false, false, 1, 1, 1, 0, 1.0f, 1.0f},     {false, true, 300, 16, 2000, 0, 1.0f, 0.0f},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const product_case *c = &cases[i];
        int lda = (c->ta ? c->m : c->k) + c->pad, ldb = (c->tb ? c->k : c->n) + c->pad;
        size_t a_len = (size_t)(c->ta ? c->k : c->m) * lda, b_len = (size_t)(c->tb ? c->n : c->k) * ldb;
        float *A = filled(a_len, 0.731f), *B = filled(b_len, 0.419f), *C0 = filled((size_t)c->m * c->n, 0.11f);
        float *C = malloc((size_t)c->m * c->n * sizeof *C);
        for (size_t j = 0; j < (size_t)c->m * c->n; j++)
            C[j] = c->beta == 0.0f ? NAN : C0[j];   /* beta = 0: C is not read */
        bool ran =
            rf_gemm_bf16(c->ta, c->tb, c->m, c->n, c->k, c->alpha, A, false, lda, B, false, ldb, c->beta, C, c->n);
        double near = worst(c, A, B, C0, C, true), far = worst(c, A, B, C0, C, false);
        tap_ok(ran && near <= 1.0, "bf16 %c%c %d x %d x %d (lda +%d, alpha %g, beta %g) is the rounded operands' "
               "product: worst error %.3g of the f32 bound", c->ta ? 'T' : 'N', c->tb ? 'T' : 'N', c->m, c->n, c->k,
               c->pad, c->alpha, c->beta, near);
        /* the 1 x 1 x 1 case's operands happen to be nearly bf16 already */
        if (c->k > 1)
            tap_ok(far > 3.0, "... and not the unrounded f32 product (%.3g bounds away from it)", far);
        free(A);
        free(B);
        free(C0);
        free(C);
    }
}

/* rf_sgemm_on's blocks in bf16: the same bits on 1, 2 and 3 threads. */
static void test_thread_counts(void)
{
    const int m = 3000, n = 64, k = 128;
    float *A = filled((size_t)m * k, 0.3f), *B = filled((size_t)k * n, 0.7f);
    float *C[3];
    for (int t = 0; t < 3; t++) {
        rf_pool *pool = rf_pool_new(t + 1);
        C[t] = calloc((size_t)m * n, sizeof *C[t]);
        rf_sgemm_on(pool, RF_GEMM_BF16, false, false, m, n, k, 1.0f, A, k, B, n, 0.0f, C[t], n);
        rf_pool_free(pool);
    }
    tap_ok(memcmp(C[0], C[1], (size_t)m * n * sizeof *C[0]) == 0 &&
               memcmp(C[0], C[2], (size_t)m * n * sizeof *C[0]) == 0,
           "a bf16 product gives the same bits on 1, 2 and 3 threads");
    product_case c = {false, false, m, n, k, 0, 1.0f, 0.0f};
    float *zero = calloc((size_t)m * n, sizeof *zero);
    tap_ok(worst(&c, A, B, zero, C[1], true) <= 1.0, "... and it is the rounded operands' product");
    free(zero);
    for (int t = 0; t < 3; t++)
        free(C[t]);
    free(A);
    free(B);
}

/* ---- the precision switch ---- */

static void test_switch(void)
{
    rf_status st = {0};
    rf_gemm_shape s = {false, false, 640, 64, 64, 1};
    tap_ok(strcmp(rf_gemm_precision(), "f32") == 0, "the precision starts as f32");
    bool ok = rf_gemm_set_mode("openblas", NULL) && rf_gemm_set_precision("bf16", &st) &&
              rf_gemm_choice(&s) == RF_GEMM_BF16 && strcmp(rf_gemm_precision(), "bf16") == 0;
    ok = ok && rf_gemm_set_mode("onednn", NULL) && rf_gemm_choice(&s) == RF_GEMM_BF16;
    tap_ok(ok, "in bf16 every product runs on oneDNN's bf16, whatever train.gemm says");
    ok = rf_gemm_set_precision("f32", &st) && rf_gemm_choice(&s) == RF_GEMM_ONEDNN;
    tap_ok(ok, "back in f32 the mode's library is used again");
    rf_gemm_set_mode("auto", NULL);
    rf_status_clear(&st);
    tap_ok(!rf_gemm_set_precision("fp16", &st) && strstr(st.msg, "train.precision") && strstr(st.msg, "fp16"),
           "an unknown precision is refused, naming it: %s", st.msg);
}

/* A model of width `dim` (2 heads) on random tokens: `batch` samples of
 * up to `len`, twice the batch to train on. */
/* A linear layer over 9,003 rows in bf16 (three chunks of the chunked
 * backward, core/cpu/linalg.c, which rounds each chunk's G once for both
 * its products): dx = G W^T and dw = X^T G against double references of
 * the rounded operands within the f32 bound of their sums, and far from
 * the unrounded ones. */
static void test_linear_chunks(void)
{
    enum { B = 3, N = 3001, K = 24, D = 40, R = B * N };
    rf_gemm_set_precision("bf16", NULL);
    rf_params *params = rf_params_new(3);
    rf_graph *g = rf_graph_new(params);
    rf_id x = rf_input(g, "x", rf_shape3(B, N, K), true);
    rf_id w = rf_param(g, "w", rf_shape2(K, D), RF_INIT_NORMAL, 0.2f);
    rf_id out = rf_linear(g, x, w, RF_NONE);
    rf_status st = {0};
    if (!tap_ok(rf_graph_prepare(g, out, 2, NULL, &st), "a bf16 linear over 9003 rows prepares")) {
        tap_diag("%s", st.msg);
    } else {
        float *xv = filled((size_t)R * K, 0.37f), *gv = filled((size_t)R * D, 0.11f);
        memcpy(rf_value(g, x), xv, (size_t)R * K * sizeof *xv);
        const float *wv = rf_value(g, w);
        rf_pool *pool = rf_pool_new(2);
        rf_exec ex;
        rf_exec_init(&ex, g, pool, 1, 1, true);
        rf_params_zero_grads(params);
        rf_graph_forward(g, &ex);
        rf_graph_backward(g, &ex, gv);
        const float *dx = rf_grad(g, x), *dw = rf_grad(g, w);
        double near = 0, far = INFINITY;
        for (int r = 0; r < R; r += 7)
            for (int i = 0; i < K; i++) {
                double want = 0, plain = 0, mag = 0;
                for (int j = 0; j < D; j++) {
                    want += (double)bf16_of(gv[(size_t)r * D + j]) * bf16_of(wv[i * D + j]);
                    plain += (double)gv[(size_t)r * D + j] * wv[i * D + j];
                    mag += fabs((double)gv[(size_t)r * D + j] * wv[i * D + j]);
                }
                double bound = tol_sum(D + 2, 2 * mag);
                near = fmax(near, fabs(dx[(size_t)r * K + i] - want) / bound);
                far = fmin(far, fabs(want - plain) > 10 * bound ? fabs(dx[(size_t)r * K + i] - plain) / bound : INFINITY);
            }
        for (int i = 0; i < K; i++)
            for (int j = 0; j < D; j++) {
                double want = 0, mag = 0;
                for (int r = 0; r < R; r++) {
                    want += (double)bf16_of(xv[(size_t)r * K + i]) * bf16_of(gv[(size_t)r * D + j]);
                    mag += fabs((double)xv[(size_t)r * K + i] * gv[(size_t)r * D + j]);
                }
                near = fmax(near, fabs(dw[i * D + j] - want) / tol_sum(R + 2, 2 * mag));
            }
        tap_ok(near <= 1.0, "its dx and dw are the rounded operands' products (%.3g of the bound at worst)", near);
        tap_ok(far > 3.0, "... and dx is not the unrounded product (%.3g bounds away where the two differ)", far);
        rf_pool_free(pool);
        free(xv);
        free(gv);
    }
    rf_graph_free(g);
    rf_params_free(params);
    rf_gemm_set_precision("f32", NULL);
}

static rf_config small_model(int batch, int len, int dim, int threads)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.data.task, "random");
    cfg.data.batch = batch;
    cfg.data.max_len = len;
    cfg.data.min_len = len / 8;
    cfg.data.train_size = 2 * batch;
    cfg.data.val_size = cfg.data.test_size = batch;
    cfg.model.dim = dim;
    cfg.model.heads = 2;
    cfg.model.ff = 2 * dim;
    cfg.train.threads = threads;
    return cfg;
}

/* RF_BF16=off: the CPU counts as one without bf16. */
static void test_refusals(void)
{
    const char *before = getenv("RF_BF16");
    setenv("RF_BF16", "off", 1);
    rf_status st = {0};
    tap_ok(!rf_gemm_set_precision("bf16", &st) && strstr(st.msg, "AVX512-BF16") &&
               strstr(st.msg, rf_cpu_key()) && strcmp(rf_gemm_precision(), "f32") == 0,
           "a CPU without bf16 refuses it in one sentence naming the CPU: %s", st.msg);

    rf_config cfg = small_model(2, 16, 8, 1);
    strcpy(cfg.train.precision, "bf16");
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    rf_status_clear(&st);
    rf_trainer *t = rf_trainer_new(&cfg, ds, &st);
    tap_ok(t == NULL && strstr(st.msg, "train.precision = bf16"), "training refuses it: %s", st.msg);
    rf_status_clear(&st);
    t = rf_trainer_new_forward(&cfg, ds, &st);
    tap_ok(t != NULL && strcmp(rf_gemm_precision(), "f32") == 0,
           "a bf16 run's model is still evaluated there, in f32%s%s", st.failed ? ": " : "", st.msg);
    rf_trainer_free(t);
    if (before != NULL)
        setenv("RF_BF16", before, 1);
    else
        unsetenv("RF_BF16");

    rf_status_clear(&st);
    strcpy(cfg.train.device, "cuda");
    t = rf_trainer_new(&cfg, ds, &st);
    tap_ok(t == NULL && strstr(st.msg, "train.device = cpu"), "training bf16 on a GPU is refused: %s", st.msg);
    rf_trainer_free(t);
    rf_dataset_free(ds);
}

/* ---- a training step of every encoder, bf16 against f32 ---- */

static void test_steps(void)
{
    static const char *const encoders[] = {"full", "ls", "linear", "talk", "blrp", "maelre"};
    rf_config cfg = small_model(4, 64, 32, 2);
    /* heads of 8, as ListOps': full attention and BLRP on their bf16
     * kernels, on Intel CPUs too (where by default they stay f32) */
    cfg.model.heads = 4;
    setenv("RF_BF16_ATTENTION", "on", 1);
    cfg.model.segment = 16;
    cfg.model.latent = 8;
    cfg.model.dropout = 0;
    cfg.train.lr = 3e-3f;
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    for (size_t i = 0; i < sizeof encoders / sizeof *encoders; i++) {
        double loss[2][2] = {{0}}, norm[2] = {0};
        int bf16_products = 0, f32_products = 0;
        bool ok = true;
        for (int p = 0; p < 2; p++) {
            rf_config c = cfg;
            strcpy(c.model.encoder, encoders[i]);
            strcpy(c.train.precision, p ? "bf16" : "f32");
            rf_gemm_forget();
            rf_status_clear(&st);
            rf_trainer *t = rf_trainer_new(&c, ds, &st);
            rf_metrics m = {0};
            ok = ok && t != NULL && rf_trainer_step(t, &m, &st);
            loss[p][0] = m.loss;
            norm[p] = m.grad_norm;
            if (p == 1) {
                rf_gemm_entry e[256];
                int n = rf_gemm_entries(e, 256);
                for (int j = 0; j < n && j < 256; j++)
                    if (e[j].calls > 0)
                        *(e[j].lib == RF_GEMM_BF16 ? &bf16_products : &f32_products) += 1;
            }
            for (int s = 0; ok && s < 40; s++)
                ok = rf_trainer_step(t, &m, &st);
            loss[p][1] = m.loss;
            rf_trainer_free(t);
        }
        double d_loss = fabs(loss[1][0] - loss[0][0]) / loss[0][0], d_norm = fabs(norm[1] - norm[0]) / norm[0];
        tap_ok(ok && d_loss > 0 && d_loss < 1e-2 && d_norm < 5e-2 && bf16_products > 0 && f32_products == 0,
               "%s: a bf16 step's loss is within 1%% of f32's (%.3g apart) but not equal, its gradient norm within "
               "5%% (%.3g), every product in bf16 (%d shapes)%s%s", encoders[i], d_loss, d_norm, bf16_products,
               st.failed ? ": " : "", st.msg);
        /* 40 steps at this rate part the two trajectories (BLRP's bf16
         * attention ends lower than f32): bf16 must learn, and no worse */
        tap_ok(ok && loss[1][1] < 0.7 * loss[1][0] && loss[1][1] < 1.1 * loss[0][1],
               "%s: 40 more bf16 steps learn the 8 samples at least as f32 does, within 10%% (loss %.3f -> %.3f; "
               "f32 %.3f)", encoders[i], loss[1][0], loss[1][1], loss[0][1]);
    }
    rf_gemm_set_precision("f32", NULL);
    unsetenv("RF_BF16_ATTENTION");
    rf_dataset_free(ds);
}

int main(void)
{
    char *dir = g_dir_make_tmp("rf-bf16-XXXXXX", NULL);
    setenv("XDG_CACHE_HOME", dir, 1);
    if (rf_bf16_supported()) {
        test_rounding();
        test_products();
        test_thread_counts();
        test_switch();
        test_linear_chunks();
        test_steps();
    } else {
        tap_skip("bf16 products", "this CPU (%s) has neither AVX512-BF16 nor AMX-BF16", rf_cpu_key());
    }
    test_refusals();
    char *cache = g_build_filename(dir, "rangefinder", "gemm-choices.tsv", NULL), *sub = g_path_get_dirname(cache);
    g_remove(cache);
    g_rmdir(sub);
    g_rmdir(dir);
    g_free(cache);
    g_free(sub);
    g_free(dir);
    return tap_done();
}
