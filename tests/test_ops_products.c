/* Tests for the matrix-product ops: matmul (every layout, batched and
 * shared, the per-group path) and linear (every layout, with and without
 * bias, and with many rows: the chunked backward and its column sums),
 * and rf_sgemm on a long k (cut along k in fixed chunks).
 *
 * Every op runs through opcheck (forward against a naive double reference
 * written here, backward against finite differences of it) on small odd
 * shapes; the long cases check thread-count independence and a bound
 * derived from the summation length (tests/tolerance.h). The suite `gemm`
 * runs this program again with each matrix-product library forced.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/blas.h"
#include "../core/exec.h"
#include "../core/params.h"
#include "opcheck.h"
#include "tap.h"
#include "tolerance.h"

static int64_t numel(rf_shape s)
{
    int64_t n = 1;
    for (int i = 0; i < s.ndim; i++)
        n *= s.dim[i];
    return n;
}

/* ---- matmul ---- */

typedef struct {
    bool ta, tb;
    int64_t batch, m, k, n;
    bool shared;     /* b is 2-D, used by every batch */
    bool twice;      /* two matmul nodes summed: the second backward must add */
} mm_ctx;

static rf_id build_matmul(rf_graph *g, const rf_id *in, const void *ctx)
{
    const mm_ctx *c = ctx;
    rf_id y = rf_matmul(g, in[0], in[1], c->ta, c->tb);
    return c->twice ? rf_add(g, y, rf_matmul(g, in[0], in[1], c->ta, c->tb)) : y;
}

static void ref_matmul(const double *const *in, double *out, const void *ctx)
{
    const mm_ctx *c = ctx;
    for (int64_t b = 0; b < c->batch; b++) {
        const double *A = in[0] + b * c->m * c->k;
        const double *B = in[1] + (c->shared ? 0 : b * c->k * c->n);
        for (int64_t i = 0; i < c->m; i++)
            for (int64_t j = 0; j < c->n; j++) {
                double s = 0;
                for (int64_t p = 0; p < c->k; p++) {
                    double a = c->ta ? A[p * c->m + i] : A[i * c->k + p];
                    double v = c->tb ? B[j * c->k + p] : B[p * c->n + j];
                    s += a * v;
                }
                out[(b * c->m + i) * c->n + j] = c->twice ? 2 * s : s;
            }
    }
}

/* a [bdims..., M, K] (or K, M), b [bdims..., K, N] (or N, K) or 2-D when shared */
static void check_matmul(const char *what, int nb, const int64_t *bdims, bool shared, bool ta, bool tb,
                         opcheck_kind kind_b)
{
    mm_ctx c = {ta, tb, 1, 3, 5, 7, shared, nb == 2};
    rf_shape sa = {nb + 2, {1, 1, 1, 1}}, sb = {shared ? 2 : nb + 2, {1, 1, 1, 1}};
    for (int i = 0; i < nb; i++) {
        c.batch *= bdims[i];
        sa.dim[i] = bdims[i];
        if (!shared)
            sb.dim[i] = bdims[i];
    }
    sa.dim[sa.ndim - 2] = ta ? c.k : c.m;
    sa.dim[sa.ndim - 1] = ta ? c.m : c.k;
    sb.dim[sb.ndim - 2] = tb ? c.n : c.k;
    sb.dim[sb.ndim - 1] = tb ? c.k : c.n;
    char name[96];
    snprintf(name, sizeof name, "matmul %s ta=%d tb=%d", what, ta, tb);
    opcheck_case oc = {name, 2, {sa, sb}, {OPCHECK_NORMAL, kind_b}, {0}, build_matmul, ref_matmul, &c,
                       .seed = 11};
    opcheck_run(&oc);
}

/* x x^T: one input on both sides, so both gradients land in the same buffer */
static rf_id build_gram(rf_graph *g, const rf_id *in, const void *ctx)
{
    (void)ctx;
    return rf_matmul(g, in[0], in[0], false, true);
}

static void ref_gram(const double *const *in, double *out, const void *ctx)
{
    (void)ctx;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            double s = 0;
            for (int p = 0; p < 7; p++)
                s += in[0][i * 7 + p] * in[0][j * 7 + p];
            out[i * 5 + j] = s;
        }
}

static void test_matmul(void)
{
    const int64_t b3[1] = {3}, b4[2] = {2, 3}, b9[1] = {9}, b33[2] = {3, 3};
    for (int t = 0; t < 4; t++) {
        bool ta = t & 1, tb = t >> 1;
        check_matmul("2-D", 0, NULL, true, ta, tb, t == 0 ? OPCHECK_PARAM : OPCHECK_NORMAL);
        check_matmul("batched 3-D", 1, b3, false, ta, tb, OPCHECK_NORMAL);
        check_matmul("batched 4-D, twice", 2, b4, false, ta, tb, t == 3 ? OPCHECK_PARAM : OPCHECK_NORMAL);
        check_matmul("3-D a, shared 2-D b", 1, b3, true, ta, tb, t == 1 ? OPCHECK_PARAM : OPCHECK_NORMAL);
        check_matmul("4-D a, shared 2-D b, twice", 2, b4, true, ta, tb, OPCHECK_PARAM);
        /* 9 groups: one pool task per group (core/cpu/linalg.c) */
        check_matmul("batched 3-D, 9 groups", 1, b9, false, ta, tb, OPCHECK_NORMAL);
        check_matmul("4-D a, shared 2-D b, 9 groups", 2, b33, true, ta, tb, OPCHECK_PARAM);
    }
    opcheck_case oc = {"matmul x x^T (same input twice)", 1, {rf_shape2(5, 7)}, {OPCHECK_NORMAL}, {0},
                       build_gram, ref_gram, NULL, .seed = 12};
    opcheck_run(&oc);
}

/* ---- linear ---- */

typedef struct {
    int64_t rows, k, n;
    bool bias;
    bool twice;    /* two linear nodes summed: the second backward must add */
} linear_ctx;

static rf_id build_linear(rf_graph *g, const rf_id *in, const void *ctx)
{
    const linear_ctx *c = ctx;
    rf_id b = c->bias ? in[2] : RF_NONE, y = rf_linear(g, in[0], in[1], b);
    return c->twice ? rf_add(g, y, rf_linear(g, in[0], in[1], b)) : y;
}

static void ref_linear(const double *const *in, double *out, const void *ctx)
{
    const linear_ctx *c = ctx;
    for (int64_t r = 0; r < c->rows; r++)
        for (int64_t j = 0; j < c->n; j++) {
            double s = c->bias ? in[2][j] : 0.0;
            for (int64_t p = 0; p < c->k; p++)
                s += in[0][r * c->k + p] * in[1][p * c->n + j];
            out[r * c->n + j] = c->twice ? 2 * s : s;
        }
}

static void check_linear(const char *name, rf_shape sx, int64_t n, bool bias, bool twice, opcheck_kind kind_w)
{
    int64_t k = sx.dim[sx.ndim - 1];
    linear_ctx c = {numel(sx) / k, k, n, bias, twice};
    opcheck_case oc = {name,
                       bias ? 3 : 2,
                       {sx, rf_shape2(k, n), rf_shape1(n)},
                       {OPCHECK_NORMAL, kind_w, kind_w},
                       {0},
                       build_linear,
                       ref_linear,
                       &c,
                       .seed = 21};
    opcheck_run(&oc);
}

static void test_linear(void)
{
    check_linear("linear 3-D x, bias (params)", rf_shape3(3, 5, 4), 6, true, false, OPCHECK_PARAM);
    check_linear("linear 2-D x, 67 outputs, bias", rf_shape2(5, 3), 67, true, false, OPCHECK_NORMAL);
    check_linear("linear 1-D x, no bias", rf_shape1(7), 3, false, false, OPCHECK_NORMAL);
    check_linear("linear 4-D x, no bias (param)", rf_shape4(2, 3, 1, 5), 3, false, false, OPCHECK_PARAM);
    check_linear("linear 3-D x, bias, twice", rf_shape3(3, 5, 4), 6, true, true, OPCHECK_NORMAL);
}

/* ---- rf_sgemm on a long k (cut along k in fixed chunks) ---- */

static void test_sgemm_long_k(void)
{
    const int m = 37, n = 29, k = 20011;   /* C too small to cut by rows or columns */
    for (int t = 0; t < 4; t++) {
        CBLAS_TRANSPOSE ta = t & 1 ? CblasTrans : CblasNoTrans, tb = t & 2 ? CblasTrans : CblasNoTrans;
        float *A = malloc((size_t)m * k * sizeof *A), *B = malloc((size_t)k * n * sizeof *B);
        float *C1 = malloc((size_t)m * n * sizeof *C1), *C3 = malloc((size_t)m * n * sizeof *C3);
        for (int64_t i = 0; i < (int64_t)m * k; i++)
            A[i] = sinf(0.01f * (float)i);
        for (int64_t i = 0; i < (int64_t)k * n; i++)
            B[i] = cosf(0.03f * (float)i);
        for (int i = 0; i < m * n; i++)
            C1[i] = C3[i] = 0.5f * (float)(i % 7);
        int lda = ta == CblasNoTrans ? k : m, ldb = tb == CblasNoTrans ? n : k;
        float *C[2] = {C1, C3};
        for (int r = 0; r < 2; r++) {
            rf_pool *pool = rf_pool_new(r == 0 ? 1 : 3);
            rf_sgemm(pool, ta, tb, m, n, k, 0.5f, A, lda, B, ldb, 2.0f, C[r], n);
            rf_pool_free(pool);
        }
        /* each element is a sum of k products and beta*C: bounded by
         * tol_sum(k + 1, sum of their absolute values) (tests/tolerance.h) */
        double worst = 0.0;
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                double want = 2.0 * 0.5 * (double)((i * n + j) % 7), mag = fabs(want);
                for (int l = 0; l < k; l++) {
                    double a = ta == CblasNoTrans ? A[(size_t)i * k + l] : A[(size_t)l * m + i];
                    double b = tb == CblasNoTrans ? B[(size_t)l * n + j] : B[(size_t)j * k + l];
                    want += 0.5 * a * b;
                    mag += fabs(0.5 * a * b);
                }
                double e = fabs(C1[i * n + j] - want) / tol_sum(k + 1, mag);
                worst = e > worst ? e : worst;
            }
        char name[96];
        snprintf(name, sizeof name, "rf_sgemm k=%d ta=%d tb=%d: matches the reference", k, t & 1, t >> 1);
        if (!tap_ok(worst <= 1.0, "%s", name))
            tap_diag("worst error %.3g of its bound", worst);
        snprintf(name, sizeof name, "rf_sgemm k=%d ta=%d tb=%d: 1 and 3 threads bit-identical", k, t & 1, t >> 1);
        tap_ok(memcmp(C1, C3, (size_t)m * n * sizeof *C1) == 0, "%s", name);
        free(A);
        free(B);
        free(C1);
        free(C3);
    }
}

/* ---- linear with many rows (the chunked backward) ---- */

/* x [3, 3001, 24] (9003 rows: three chunks, the last partial) through
 * linear w [24, 40] + bias; forward and backward with `threads`; returns
 * out, dx, dw, dbias concatenated (and the inputs through *xv, *wv, *gv). */
static float *linear_long_run(int threads, int64_t *len, float **xv, float **wv, float **gv)
{
    const int64_t B = 3, N = 3001, K = 24, D = 40, R = B * N;
    rf_params *params = rf_params_new(3);
    rf_graph *g = rf_graph_new(params);
    rf_id x = rf_input(g, "x", rf_shape3(B, N, K), true);
    rf_id w = rf_param(g, "w", rf_shape2(K, D), RF_INIT_NORMAL, 0.2f);
    rf_id bias = rf_param(g, "bias", rf_shape1(D), RF_INIT_NORMAL, 0.2f);
    rf_id out = rf_linear(g, x, w, bias);
    rf_graph_keep(g, out);
    rf_status st = {0};
    float *res = NULL;
    if (rf_graph_ok(g) && rf_graph_prepare(g, out, 3, NULL, &st)) {
        float *seed = malloc((size_t)(R * D) * sizeof *seed);
        for (int64_t i = 0; i < R * K; i++)
            rf_value(g, x)[i] = sinf(0.37f * (float)i);
        for (int64_t i = 0; i < R * D; i++)
            seed[i] = cosf(0.11f * (float)i);
        rf_pool *pool = rf_pool_new(threads);
        rf_exec ex;
        rf_exec_init(&ex, g, pool, 1, 1, true);
        rf_params_zero_grads(params);
        rf_graph_forward(g, &ex);
        rf_graph_backward(g, &ex, seed);
        rf_pool_free(pool);
        *len = R * D + R * K + K * D + D;
        res = malloc((size_t)*len * sizeof *res);
        memcpy(res, rf_value(g, out), (size_t)(R * D) * sizeof *res);
        memcpy(res + R * D, rf_grad(g, x), (size_t)(R * K) * sizeof *res);
        memcpy(res + R * D + R * K, rf_grad(g, w), (size_t)(K * D) * sizeof *res);
        memcpy(res + R * D + R * K + K * D, rf_grad(g, bias), (size_t)D * sizeof *res);
        if (xv != NULL) {
            *xv = malloc((size_t)(R * K) * sizeof **xv);
            *wv = malloc((size_t)(K * D) * sizeof **wv);
            memcpy(*xv, rf_value(g, x), (size_t)(R * K) * sizeof **xv);
            memcpy(*wv, rf_value(g, w), (size_t)(K * D) * sizeof **wv);
            *gv = seed;
        } else {
            free(seed);
        }
    }
    rf_graph_free(g);
    rf_params_free(params);
    return res;
}

static void test_linear_long(void)
{
    const int64_t R = 3 * 3001, K = 24, D = 40;
    int64_t n1 = 0, n3 = 0;
    float *xv = NULL, *wv = NULL, *gv = NULL;
    float *one = linear_long_run(1, &n1, &xv, &wv, &gv), *three = linear_long_run(3, &n3, NULL, NULL, NULL);
    if (!tap_ok(one != NULL && three != NULL, "linear on 9003 rows builds and runs")) {
        free(one);
        free(three);
        return;
    }
    tap_ok(n1 == n3 && memcmp(one, three, (size_t)n1 * sizeof *one) == 0,
           "linear on 9003 rows: 1 and 3 threads give bit-identical values and gradients");
    /* gradients against double references: dx = G W^T, dw = X^T G, dbias =
     * column sums of G; each element a sum of D or R terms, bounded by
     * tol_sum(terms, sum of their absolute values) (tests/tolerance.h) */
    const float *dx = one + R * D, *dw = dx + R * K, *db = dw + K * D;
    double worst = 0.0;
    for (int64_t r = 0; r < R; r += 97)
        for (int64_t i = 0; i < K; i++) {
            double want = 0.0, mag = 0.0;
            for (int64_t j = 0; j < D; j++) {
                want += (double)gv[r * D + j] * wv[i * D + j];
                mag += fabs((double)gv[r * D + j] * wv[i * D + j]);
            }
            worst = fmax(worst, fabs(dx[r * K + i] - want) / tol_sum((double)D, mag));
        }
    for (int64_t i = 0; i < K; i++)
        for (int64_t j = 0; j < D; j++) {
            double want = 0.0, mag = 0.0;
            for (int64_t r = 0; r < R; r++) {
                want += (double)xv[r * K + i] * gv[r * D + j];
                mag += fabs((double)xv[r * K + i] * gv[r * D + j]);
            }
            worst = fmax(worst, fabs(dw[i * D + j] - want) / tol_sum((double)R, mag));
        }
    for (int64_t j = 0; j < D; j++) {
        double want = 0.0, mag = 0.0;
        for (int64_t r = 0; r < R; r++) {
            want += gv[r * D + j];
            mag += fabs(gv[r * D + j]);
        }
        worst = fmax(worst, fabs(db[j] - want) / tol_sum((double)R, mag));
    }
    if (!tap_ok(worst <= 1.0, "linear on 9003 rows: dx, dw, dbias match double references"))
        tap_diag("worst error %.3g of its bound", worst);
    free(one);
    free(three);
    free(xv);
    free(wv);
    free(gv);
}

int main(int argc, char **argv)
{
    /* --portable (suite `portable`): the linear backward's column sums and
     * chunks (clones of RF_VEC_CLONES) */
    bool portable = tap_portable(argc, argv);
    test_linear_long();
    test_linear();
    if (!portable) {
        test_sgemm_long_k();
        test_matmul();
    }
    return tap_done();
}
