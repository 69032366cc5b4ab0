/* Softmax, log-softmax, layernorm, reductions, losses and dropout: each
 * checked against a naive double reference (opcheck), plus the cases
 * opcheck cannot pin down (fully masked rows, dropout statistics, thread
 * count independence, shape errors). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/exec.h"
#include "../core/rng.h"
#include "dropout_rule.h"
#include "opcheck.h"
#include "tap.h"
#include "tolerance.h"

static void check(const opcheck_case *c)
{
    opcheck_run(c);
}

/* ---- shape helpers for the references ---- */

static int64_t numel(rf_shape s)
{
    int64_t n = 1;
    for (int i = 0; i < s.ndim; i++)
        n *= s.dim[i];
    return n;
}

/* Flat index into `small` (right-aligned broadcast onto `big`) of the
 * element at flat index e of `big`. */
static int64_t broadcast_index(rf_shape big, rf_shape small, int64_t e)
{
    int64_t idx = 0, stride = 1;
    for (int i = big.ndim - 1; i >= 0; i--) {
        int64_t coord = e % big.dim[i];
        e /= big.dim[i];
        int si = i - (big.ndim - small.ndim);
        if (si < 0)
            continue;
        if (small.dim[si] != 1)
            idx += coord * stride;
        stride *= small.dim[si];
    }
    return idx;
}

/* ---- softmax ---- */

typedef struct {
    rf_shape x, mask;
    bool has_mask;
} softmax_ref;

static rf_id build_softmax(rf_graph *g, const rf_id *in, const void *ctx)
{
    const softmax_ref *c = ctx;
    return rf_softmax(g, in[0], c->has_mask ? in[1] : RF_NONE);
}

static void ref_softmax(const double *const *in, double *out, const void *ctx)
{
    const softmax_ref *c = ctx;
    int64_t M = c->x.dim[c->x.ndim - 1], rows = numel(c->x) / M;
    for (int64_t r = 0; r < rows; r++) {
        const double *x = in[0] + r * M;
        double *y = out + r * M;
        bool valid[64];
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < M; j++) {
            valid[j] = !c->has_mask || in[1][broadcast_index(c->x, c->mask, r * M + j)] != 0;
            if (valid[j] && x[j] > mx)
                mx = x[j];
        }
        for (int64_t j = 0; j < M; j++) {
            y[j] = valid[j] ? exp(x[j] - mx) : 0;
            sum += y[j];
        }
        for (int64_t j = 0; j < M; j++)
            y[j] = sum > 0 ? y[j] / sum : 0;
    }
}

static void test_softmax(void)
{
    static const struct {
        const char *name;
        rf_shape x, mask;
        bool has_mask;
        opcheck_kind kind;
    } cases[] = {
        {"softmax [3, 7]", {2, {3, 7}}, {0}, false, OPCHECK_NORMAL},
        {"softmax [13] param", {1, {13}}, {0}, false, OPCHECK_PARAM},
        {"softmax [2, 3, 5, 7] mask [2, 1, 1, 7]", {4, {2, 3, 5, 7}}, {4, {2, 1, 1, 7}}, true, OPCHECK_NORMAL},
        {"softmax [2, 3, 5, 7] mask [2, 1, 5, 7]", {4, {2, 3, 5, 7}}, {4, {2, 1, 5, 7}}, true, OPCHECK_NORMAL},
        {"softmax [3, 5, 7] mask [5, 7]", {3, {3, 5, 7}}, {2, {5, 7}}, true, OPCHECK_PARAM},
        {"softmax [3, 5, 7] mask [7]", {3, {3, 5, 7}}, {1, {7}}, true, OPCHECK_NORMAL},
        {"softmax [5, 7] mask [5, 7]", {2, {5, 7}}, {2, {5, 7}}, true, OPCHECK_NORMAL},
        /* whole rows masked at random (4 of 15 with this seed): zero rows, zero grads */
        {"softmax [3, 5, 7] mask [3, 5, 1]", {3, {3, 5, 7}}, {3, {3, 5, 1}}, true, OPCHECK_NORMAL},
        {"softmax [3, 5, 7] mask [3, 1, 7]", {3, {3, 5, 7}}, {3, {3, 1, 7}}, true, OPCHECK_NORMAL},
        /* rows of 16 lanes exactly, and 2 x 16 lanes plus a padded tail of 5 */
        {"softmax [3, 16]", {2, {3, 16}}, {0}, false, OPCHECK_NORMAL},
        {"softmax [4, 37] mask [4, 37]", {2, {4, 37}}, {2, {4, 37}}, true, OPCHECK_NORMAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        softmax_ref ref = {cases[i].x, cases[i].mask, cases[i].has_mask};
        opcheck_case c = {
            .name = cases[i].name,
            .n_in = cases[i].has_mask ? 2 : 1,
            .shape = {cases[i].x, cases[i].mask},
            .kind = {cases[i].kind, OPCHECK_MASK},
            .build = build_softmax,
            .reference = ref_softmax,
            .ctx = &ref,
            .seed = 11 + i,
        };
        check(&c);
    }
}

/* A row whose entries are all masked gives zeros, no NaN, zero gradient. */
static void test_softmax_fully_masked(void)
{
    rf_graph *g = rf_graph_new(NULL);
    rf_id x = rf_input(g, "x", rf_shape3(2, 3, 5), true);
    rf_id m = rf_input(g, "mask", rf_shape3(2, 1, 5), false);
    rf_id y = rf_softmax(g, x, m);
    rf_graph_keep(g, y);
    rf_status st = {0};
    bool ok = rf_graph_prepare(g, y, 1, NULL, &st);
    tap_ok(ok, "fully masked softmax: prepare (%s)", st.msg);
    if (!ok) {
        rf_graph_free(g);
        return;
    }
    float *xv = rf_value(g, x), *mv = rf_value(g, m);
    for (int i = 0; i < 30; i++)
        xv[i] = (float)(i % 7) - 3.0f;
    for (int j = 0; j < 5; j++) {
        mv[j] = 0.0f;                   /* batch 0: every key masked */
        mv[5 + j] = j == 2 ? 0.0f : 1.0f;
    }
    rf_exec ex;
    rf_exec_init(&ex, g, NULL, 1, 1, true);
    rf_graph_forward(g, &ex);
    float seed[30];
    for (int i = 0; i < 30; i++)
        seed[i] = (float)i * 0.1f - 1.0f;
    rf_graph_backward(g, &ex, seed);
    const float *yv = rf_value(g, y), *dx = rf_grad(g, x);
    bool zeros = true, rows_sum = true, masked_zero = true;
    for (int i = 0; i < 15; i++)
        zeros &= yv[i] == 0.0f && dx[i] == 0.0f;
    for (int r = 3; r < 6; r++) {
        double s = 0;
        for (int j = 0; j < 5; j++)
            s += yv[r * 5 + j];
        rows_sum &= fabs(s - 1.0) <= TOL_CHAIN * TOL_U;   /* each p carries TOL_CHAIN·u·p; Σp = 1 */
        masked_zero &= yv[r * 5 + 2] == 0.0f && dx[r * 5 + 2] == 0.0f;
    }
    tap_ok(zeros, "fully masked softmax rows are exactly zero with zero gradient");
    tap_ok(rows_sum, "partly masked softmax rows sum to one");
    tap_ok(masked_zero, "masked entries get probability and gradient exactly zero");
    rf_graph_free(g);
}

/* ---- log-softmax ---- */

static rf_id build_log_softmax(rf_graph *g, const rf_id *in, const void *ctx)
{
    (void)ctx;
    return rf_log_softmax(g, in[0]);
}

static void ref_log_softmax(const double *const *in, double *out, const void *ctx)
{
    const rf_shape *s = ctx;
    int64_t M = s->dim[s->ndim - 1], rows = numel(*s) / M;
    for (int64_t r = 0; r < rows; r++) {
        const double *x = in[0] + r * M;
        double mx = x[0], sum = 0;
        for (int64_t j = 1; j < M; j++)
            mx = fmax(mx, x[j]);
        for (int64_t j = 0; j < M; j++)
            sum += exp(x[j] - mx);
        for (int64_t j = 0; j < M; j++)
            out[r * M + j] = x[j] - mx - log(sum);
    }
}

static void test_log_softmax(void)
{
    static const rf_shape s1 = {2, {5, 7}}, s2 = {3, {3, 1, 13}};
    opcheck_case a = {"log_softmax [5, 7]", 1, {s1}, {OPCHECK_NORMAL}, {0}, build_log_softmax,
                      ref_log_softmax, &s1, false, 21};
    opcheck_case b = {"log_softmax [3, 1, 13] param", 1, {s2}, {OPCHECK_PARAM}, {0}, build_log_softmax,
                      ref_log_softmax, &s2, false, 22};
    check(&a);
    check(&b);
}

/* Huge logits must not overflow, and keep their precision near the max. */
static void test_log_softmax_stable(void)
{
    rf_graph *g = rf_graph_new(NULL);
    rf_id x = rf_input(g, "x", rf_shape1(3), false);
    rf_id y = rf_log_softmax(g, x);
    rf_graph_keep(g, y);
    rf_status st = {0};
    rf_graph_prepare(g, RF_NONE, 1, NULL, &st);
    float *xv = rf_value(g, x);
    xv[0] = 1000.0f;
    xv[1] = 999.0f;
    xv[2] = -1000.0f;
    rf_exec ex;
    rf_exec_init(&ex, g, NULL, 1, 1, false);
    rf_graph_forward(g, &ex);
    const float *yv = rf_value(g, y);
    double want = -log1p(exp(-1.0));
    /* the shifted logits 0 and -1 are exact; what remains is an element-wise
     * chain over values of order 1 */
    tap_ok(fabs(yv[0] - want) <= TOL_CHAIN * TOL_U * (fabs(want) + 1) && isfinite(yv[2]),
           "log_softmax is stable for logits near 1000");
    rf_graph_free(g);
}

/* ---- layernorm ---- */

typedef struct {
    rf_shape x;
    bool gamma, beta;
    float eps;
} ln_ref;

static rf_id build_layernorm(rf_graph *g, const rf_id *in, const void *ctx)
{
    const ln_ref *c = ctx;
    int k = 1;
    rf_id gamma = c->gamma ? in[k++] : RF_NONE;
    rf_id beta = c->beta ? in[k++] : RF_NONE;
    return rf_layernorm(g, in[0], gamma, beta, c->eps);
}

static void ref_layernorm(const double *const *in, double *out, const void *ctx)
{
    const ln_ref *c = ctx;
    int64_t D = c->x.dim[c->x.ndim - 1], rows = numel(c->x) / D;
    int k = 1;
    const double *gamma = c->gamma ? in[k++] : NULL;
    const double *beta = c->beta ? in[k++] : NULL;
    for (int64_t r = 0; r < rows; r++) {
        const double *x = in[0] + r * D;
        double mean = 0, var = 0;
        for (int64_t j = 0; j < D; j++)
            mean += x[j] / D;
        for (int64_t j = 0; j < D; j++)
            var += (x[j] - mean) * (x[j] - mean) / D;
        for (int64_t j = 0; j < D; j++) {
            double v = (x[j] - mean) / sqrt(var + c->eps);
            out[r * D + j] = v * (gamma ? gamma[j] : 1) + (beta ? beta[j] : 0);
        }
    }
}

static void test_layernorm(void)
{
    static const struct {
        const char *name;
        rf_shape x;
        bool gamma, beta;
        opcheck_kind xk, pk;
        float eps;
    } cases[] = {
        {"layernorm [5, 7] gamma beta (params)", {2, {5, 7}}, true, true, OPCHECK_NORMAL, OPCHECK_PARAM, 1e-5f},
        {"layernorm [3, 5, 7] gamma beta", {3, {3, 5, 7}}, true, true, OPCHECK_PARAM, OPCHECK_NORMAL, 1e-5f},
        {"layernorm [3, 13] gamma only", {2, {3, 13}}, true, false, OPCHECK_NORMAL, OPCHECK_PARAM, 1e-5f},
        {"layernorm [3, 13] beta only", {2, {3, 13}}, false, true, OPCHECK_NORMAL, OPCHECK_PARAM, 1e-5f},
        {"layernorm [7, 5] no affine, eps 0.1", {2, {7, 5}}, false, false, OPCHECK_NORMAL, OPCHECK_PARAM, 0.1f},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ln_ref ref = {cases[i].x, cases[i].gamma, cases[i].beta, cases[i].eps};
        rf_shape d = rf_shape1(cases[i].x.dim[cases[i].x.ndim - 1]);
        opcheck_case c = {.name = cases[i].name, .build = build_layernorm, .reference = ref_layernorm,
                          .ctx = &ref, .seed = 31 + i};
        c.shape[0] = cases[i].x;
        c.kind[0] = cases[i].xk;
        c.n_in = 1;
        for (int k = 0; k < (int)cases[i].gamma + (int)cases[i].beta; k++) {
            c.shape[c.n_in] = d;
            c.kind[c.n_in++] = cases[i].pk;
        }
        check(&c);
    }
}

/* ---- sum and mean ---- */

typedef struct {
    rf_shape x;
    int axis;
    bool mean;
} reduce_ref;

static rf_id build_reduce(rf_graph *g, const rf_id *in, const void *ctx)
{
    const reduce_ref *c = ctx;
    return c->mean ? rf_mean(g, in[0], c->axis) : rf_sum(g, in[0], c->axis);
}

static void ref_reduce(const double *const *in, double *out, const void *ctx)
{
    const reduce_ref *c = ctx;
    int64_t n = numel(c->x);
    if (c->axis < 0) {
        double s = 0;
        for (int64_t e = 0; e < n; e++)
            s += in[0][e];
        out[0] = c->mean ? s / n : s;
        return;
    }
    int64_t A = c->x.dim[c->axis], inner = 1;
    for (int i = c->axis + 1; i < c->x.ndim; i++)
        inner *= c->x.dim[i];
    for (int64_t o = 0; o < n / A; o++)
        out[o] = 0;
    for (int64_t e = 0; e < n; e++) {
        int64_t o = e / (A * inner) * inner + e % inner;
        out[o] += c->mean ? in[0][e] / A : in[0][e];
    }
}

static void test_reduce(void)
{
    static const rf_shape s3 = {3, {3, 5, 7}}, s1 = {1, {13}}, s4 = {4, {2, 3, 1, 5}};
    const struct {
        rf_shape x;
        int axis;
        opcheck_kind kind;
    } cases[] = {
        {s3, 0, OPCHECK_NORMAL}, {s3, 1, OPCHECK_PARAM}, {s3, 2, OPCHECK_NORMAL}, {s3, -1, OPCHECK_NORMAL},
        {s1, 0, OPCHECK_NORMAL}, {s1, -1, OPCHECK_PARAM}, {s4, 2, OPCHECK_NORMAL}, {s4, 3, OPCHECK_NORMAL},
    };
    for (int mean = 0; mean < 2; mean++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            reduce_ref ref = {cases[i].x, cases[i].axis, mean};
            char name[96], buf[64];
            snprintf(name, sizeof name, "%s %s axis %d%s", mean ? "mean" : "sum",
                     rf_shape_str(cases[i].x, buf, sizeof buf), cases[i].axis,
                     cases[i].kind == OPCHECK_PARAM ? " param" : "");
            opcheck_case c = {name, 1, {cases[i].x}, {cases[i].kind}, {0}, build_reduce, ref_reduce,
                              &ref, false, 41 + i};
            check(&c);
        }
}

/* The output shape drops the axis; a full reduction is a scalar. */
static void test_reduce_shapes(void)
{
    static const rf_shape s3 = {3, {3, 5, 7}};
    rf_graph *g = rf_graph_new(NULL);
    rf_id x = rf_input(g, "x", s3, false);
    rf_shape a = rf_node_shape(g, rf_sum(g, x, 1)), b = rf_node_shape(g, rf_mean(g, x, -1));
    tap_ok(a.ndim == 2 && a.dim[0] == 3 && a.dim[1] == 7 && b.ndim == 0 && numel(b) == 1,
           "sum over axis 1 of [3, 5, 7] is [3, 7]; mean over all is a scalar");
    rf_graph_free(g);
}

/* ---- masked mean ---- */

static rf_id build_masked_mean(rf_graph *g, const rf_id *in, const void *ctx)
{
    (void)ctx;
    return rf_masked_mean(g, in[0], in[1]);
}

static void ref_masked_mean(const double *const *in, double *out, const void *ctx)
{
    const rf_shape *s = ctx;
    int64_t B = s->dim[0], N = s->dim[1], D = s->dim[2];
    for (int64_t b = 0; b < B; b++) {
        int count = 0;
        for (int64_t n = 0; n < N; n++)
            count += in[1][b * N + n] != 0;
        for (int64_t d = 0; d < D; d++) {
            double s = 0;
            for (int64_t n = 0; n < N; n++)
                if (in[1][b * N + n] != 0)
                    s += in[0][(b * N + n) * D + d];
            out[b * D + d] = count ? s / count : 0;
        }
    }
}

static void test_masked_mean(void)
{
    static const rf_shape x1 = {3, {3, 5, 7}}, m1 = {2, {3, 5}};
    static const rf_shape x2 = {3, {5, 2, 3}}, m2 = {2, {5, 2}};
    opcheck_case a = {"masked_mean [3, 5, 7]", 2, {x1, m1}, {OPCHECK_NORMAL, OPCHECK_MASK}, {0},
                      build_masked_mean, ref_masked_mean, &x1, false, 51};
    opcheck_case b = {"masked_mean [5, 2, 3] param", 2, {x2, m2}, {OPCHECK_PARAM, OPCHECK_MASK}, {0},
                      build_masked_mean, ref_masked_mean, &x2, false, 52};
    check(&a);
    check(&b);
}

/* A row with no valid token gives zeros and passes no gradient. */
static void test_masked_mean_empty_row(void)
{
    rf_graph *g = rf_graph_new(NULL);
    rf_id x = rf_input(g, "x", rf_shape3(2, 3, 5), true);
    rf_id m = rf_input(g, "mask", rf_shape2(2, 3), false);
    rf_id y = rf_masked_mean(g, x, m);
    rf_graph_keep(g, y);
    rf_status st = {0};
    rf_graph_prepare(g, y, 1, NULL, &st);
    float *xv = rf_value(g, x), *mv = rf_value(g, m);
    for (int i = 0; i < 30; i++)
        xv[i] = (float)i;
    const float mask[6] = {0, 0, 0, 1, 0, 1};
    memcpy(mv, mask, sizeof mask);
    rf_exec ex;
    rf_exec_init(&ex, g, NULL, 1, 1, true);
    rf_graph_forward(g, &ex);
    rf_graph_backward(g, &ex, NULL);
    const float *yv = rf_value(g, y), *dx = rf_grad(g, x);
    bool ok = true;
    for (int d = 0; d < 5; d++) {
        ok &= yv[d] == 0.0f && yv[5 + d] == (float)(20 + d);   /* (x[1, 0] + x[1, 2]) / 2 */
        ok &= dx[d] == 0.0f && dx[5 + d] == 0.0f && dx[10 + d] == 0.0f;
        ok &= dx[15 + d] == 0.5f && dx[20 + d] == 0.0f && dx[25 + d] == 0.5f;
    }
    tap_ok(ok, "masked_mean: an all-padding row gives zeros and zero gradient");
    rf_graph_free(g);
}

/* ---- losses ---- */

static rf_id build_cross_entropy(rf_graph *g, const rf_id *in, const void *ctx)
{
    (void)ctx;
    return rf_cross_entropy(g, in[0], in[1]);
}

static void ref_cross_entropy(const double *const *in, double *out, const void *ctx)
{
    const rf_shape *s = ctx;
    int64_t B = s->dim[0], C = s->dim[1];
    double total = 0;
    for (int64_t b = 0; b < B; b++) {
        const double *z = in[0] + b * C;
        double sum = 0;
        for (int64_t c = 0; c < C; c++)
            sum += exp(z[c]);
        total += log(sum) - z[(int64_t)in[1][b]];
    }
    out[0] = total / B;
}

static rf_id build_bce(rf_graph *g, const rf_id *in, const void *ctx)
{
    (void)ctx;
    return rf_bce_logits(g, in[0], in[1]);
}

static void ref_bce(const double *const *in, double *out, const void *ctx)
{
    int64_t n = numel(*(const rf_shape *)ctx);
    double total = 0;
    for (int64_t e = 0; e < n; e++) {
        double z = in[0][e], t = in[1][e];
        double p = 1 / (1 + exp(-z));   /* fine in double for |z| of a few units */
        total += -(t * log(p) + (1 - t) * log(1 - p));
    }
    out[0] = total / n;
}

static void test_losses(void)
{
    static const rf_shape l1 = {2, {7, 5}}, y1 = {1, {7}}, l2 = {2, {3, 13}}, y2 = {1, {3}};
    opcheck_case ce1 = {"cross_entropy [7, 5]", 2, {l1, y1}, {OPCHECK_NORMAL, OPCHECK_IDS}, {0, 5},
                        build_cross_entropy, ref_cross_entropy, &l1, false, 61};
    opcheck_case ce2 = {"cross_entropy [3, 13] param", 2, {l2, y2}, {OPCHECK_PARAM, OPCHECK_IDS}, {0, 13},
                        build_cross_entropy, ref_cross_entropy, &l2, false, 62};
    check(&ce1);
    check(&ce2);

    static const rf_shape b1 = {2, {5, 7}}, b2 = {3, {3, 1, 5}}, b3 = {1, {13}};
    opcheck_case bce1 = {"bce_logits [5, 7]", 2, {b1, b1}, {OPCHECK_NORMAL, OPCHECK_PROB}, {0},
                         build_bce, ref_bce, &b1, false, 63};
    opcheck_case bce2 = {"bce_logits [3, 1, 5] param", 2, {b2, b2}, {OPCHECK_PARAM, OPCHECK_PROB}, {0},
                         build_bce, ref_bce, &b2, false, 64};
    /* targets with a gradient: d/dt = -z / numel */
    opcheck_case bce3 = {"bce_logits [13] targets with grad", 2, {b3, b3}, {OPCHECK_NORMAL, OPCHECK_POSITIVE},
                         {0}, build_bce, ref_bce, &b3, false, 65};
    check(&bce1);
    check(&bce2);
    check(&bce3);
}

/* ---- dropout ---- */

typedef struct {
    rf_shape x;
    float p;
    bool training;
} dropout_ref;

static rf_id build_dropout(rf_graph *g, const rf_id *in, const void *ctx)
{
    return rf_dropout(g, in[0], ((const dropout_ref *)ctx)->p);
}

/* The op is node 1 (the input is node 0). */
static void ref_dropout(const double *const *in, double *out, const void *ctx)
{
    const dropout_ref *c = ctx;
    for (int64_t i = 0; i < numel(c->x); i++) {
        bool keep = !c->training || dropout_kept(OPCHECK_EXEC_SEED, OPCHECK_EXEC_STEP, 1, (uint64_t)i, c->p);
        out[i] = keep ? in[0][i] / (c->training ? 1.0 - c->p : 1.0) : 0.0;
    }
}

static void test_dropout(void)
{
    static const struct {
        const char *name;
        dropout_ref ref;
        opcheck_kind kind;
    } cases[] = {
        {"dropout [5, 7] p 0.3", {{2, {5, 7}}, 0.3f, true}, OPCHECK_NORMAL},
        {"dropout [3, 13] p 0.5 param", {{2, {3, 13}}, 0.5f, true}, OPCHECK_PARAM},
        {"dropout [3, 13] p 0", {{2, {3, 13}}, 0.0f, true}, OPCHECK_NORMAL},
        {"dropout [5, 7] p 0.3 not training", {{2, {5, 7}}, 0.3f, false}, OPCHECK_NORMAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        opcheck_case c = {cases[i].name, 1, {cases[i].ref.x}, {cases[i].kind}, {0}, build_dropout,
                          ref_dropout, &cases[i].ref, cases[i].ref.training, 71 + i};
        check(&c);
    }
}

/* On a large tensor: kept fraction about 1 - p, kept values scaled, a new
 * mask each step, the identity when not training. */
static void test_dropout_statistics(void)
{
    const float p = 0.2f;
    const int64_t n = 1 << 20;
    rf_graph *g = rf_graph_new(NULL);
    rf_id x = rf_input(g, "x", rf_shape1(n), false);
    rf_id y = rf_dropout(g, x, p);
    rf_graph_keep(g, y);
    rf_status st = {0};
    rf_graph_prepare(g, RF_NONE, 2, NULL, &st);
    float *xv = rf_value(g, x);
    for (int64_t i = 0; i < n; i++)
        xv[i] = 1.0f;
    rf_pool *pool = rf_pool_new(2);
    rf_exec ex;
    rf_exec_init(&ex, g, pool, 5, 3, true);
    rf_graph_forward(g, &ex);
    const float *yv = rf_value(g, y);
    int64_t kept = 0;
    bool scaled = true;
    for (int64_t i = 0; i < n; i++) {
        kept += yv[i] != 0.0f;
        scaled &= yv[i] == 0.0f || yv[i] == 1.0f / (1.0f - p);
    }
    double frac = (double)kept / (double)n;
    tap_ok(fabs(frac - (1.0 - p)) < 0.005, "dropout keeps %.4f of elements (want %.2f)", frac, 1.0 - p);
    tap_ok(scaled, "dropout scales kept elements by 1 / (1 - p)");

    /* another step draws another mask */
    float *first = malloc((size_t)n * sizeof *first);
    memcpy(first, yv, (size_t)n * sizeof *first);
    rf_exec_init(&ex, g, pool, 5, 4, true);
    rf_graph_forward(g, &ex);
    tap_ok(memcmp(first, yv, (size_t)n * sizeof *first) != 0, "dropout masks differ between steps");

    /* evaluation is the identity */
    rf_exec_init(&ex, g, pool, 5, 3, false);
    rf_graph_forward(g, &ex);
    tap_ok(memcmp(xv, yv, (size_t)n * sizeof *xv) == 0, "dropout is the identity when not training");
    free(first);
    rf_pool_free(pool);
    rf_graph_free(g);
}

/* ---- thread count independence on shapes big enough to split ---- */

typedef rf_id (*build_fn)(rf_graph *g, const rf_id *in, const void *ctx);

typedef struct {
    const char *name;
    int n_in;
    rf_shape shape[2];
    opcheck_kind kind[2];     /* NORMAL, MASK, IDS (range 7) or PROB */
    build_fn build;
    const void *ctx;
} split_case;

/* Forward + backward with `threads` pool threads (0: no pool); returns
 * the output value followed by every input gradient, malloc'd. */
static float *run_split(const split_case *c, int threads, int64_t *len)
{
    rf_graph *g = rf_graph_new(NULL);
    rf_id in[2];
    for (int k = 0; k < c->n_in; k++)
        in[k] = rf_input(g, k ? "in1" : "in0", c->shape[k], c->kind[k] == OPCHECK_NORMAL);
    rf_id out = c->build(g, in, c->ctx);
    rf_graph_keep(g, out);
    rf_status st = {0};
    if (!rf_graph_prepare(g, out, threads, NULL, &st)) {
        rf_graph_free(g);
        return NULL;
    }
    rf_rng rng = {7};
    for (int k = 0; k < c->n_in; k++) {
        float *v = rf_value(g, in[k]);
        for (int64_t i = 0; i < numel(c->shape[k]); i++)
            switch (c->kind[k]) {
            case OPCHECK_MASK: v[i] = rf_rng_uniform(&rng) < 0.25 ? 0.0f : 1.0f; break;
            case OPCHECK_IDS: v[i] = (float)rf_rng_int(&rng, 0, 6); break;
            case OPCHECK_PROB: v[i] = (float)rf_rng_uniform(&rng); break;
            default: v[i] = (float)rf_rng_normal(&rng); break;
            }
    }
    int64_t n_out = numel(rf_node_shape(g, out));
    float *seed = malloc((size_t)n_out * sizeof *seed);
    for (int64_t i = 0; i < n_out; i++)
        seed[i] = (float)rf_rng_normal(&rng);
    rf_pool *pool = threads > 0 ? rf_pool_new(threads) : NULL;
    rf_exec ex;
    rf_exec_init(&ex, g, pool, 3, 2, true);
    rf_graph_forward(g, &ex);
    rf_graph_backward(g, &ex, seed);
    *len = n_out;
    for (int k = 0; k < c->n_in; k++)
        if (rf_grad(g, in[k]) != NULL)
            *len += numel(c->shape[k]);
    float *res = malloc((size_t)*len * sizeof *res), *at = res;
    memcpy(at, rf_value(g, out), (size_t)n_out * sizeof *at);
    at += n_out;
    for (int k = 0; k < c->n_in; k++)
        if (rf_grad(g, in[k]) != NULL) {
            memcpy(at, rf_grad(g, in[k]), (size_t)numel(c->shape[k]) * sizeof *at);
            at += numel(c->shape[k]);
        }
    free(seed);
    rf_pool_free(pool);
    rf_graph_free(g);
    return res;
}

static rf_id build_sum(rf_graph *g, const rf_id *in, const void *ctx)
{
    return rf_sum(g, in[0], *(const int *)ctx);
}

static rf_id build_mean(rf_graph *g, const rf_id *in, const void *ctx)
{
    return rf_mean(g, in[0], *(const int *)ctx);
}

static rf_id build_ln_affine(rf_graph *g, const rf_id *in, const void *ctx)
{
    (void)ctx;
    return rf_layernorm(g, in[0], in[1], RF_NONE, 1e-5f);
}

static rf_id build_dropout_half(rf_graph *g, const rf_id *in, const void *ctx)
{
    (void)ctx;
    return rf_dropout(g, in[0], 0.5f);
}

static void test_thread_independence(void)
{
    static const int axis0 = 0, axis1 = 1, axis_all = -1;
    static const softmax_ref sm = {{4, {4, 6, 50, 61}}, {4, {4, 1, 1, 61}}, true};
    const split_case cases[] = {
        {"softmax mask [4, 1, 1, 61]", 2, {sm.x, sm.mask}, {OPCHECK_NORMAL, OPCHECK_MASK}, build_softmax, &sm},
        {"log_softmax", 1, {{2, {900, 61}}}, {OPCHECK_NORMAL}, build_log_softmax, NULL},
        {"layernorm", 2, {{2, {300, 301}}, {1, {301}}}, {OPCHECK_NORMAL, OPCHECK_NORMAL}, build_ln_affine, NULL},
        {"sum axis 1", 1, {{3, {40, 50, 33}}}, {OPCHECK_NORMAL}, build_sum, &axis1},
        {"sum axis 0", 1, {{2, {50, 1001}}}, {OPCHECK_NORMAL}, build_sum, &axis0},
        {"mean all", 1, {{2, {300, 1001}}}, {OPCHECK_NORMAL}, build_mean, &axis_all},
        {"masked_mean", 2, {{3, {16, 8, 301}}, {2, {16, 8}}}, {OPCHECK_NORMAL, OPCHECK_MASK}, build_masked_mean, NULL},
        {"cross_entropy", 2, {{2, {3000, 7}}, {1, {3000}}}, {OPCHECK_NORMAL, OPCHECK_IDS}, build_cross_entropy, NULL},
        {"bce_logits", 2, {{2, {300, 1001}}, {2, {300, 1001}}}, {OPCHECK_NORMAL, OPCHECK_PROB}, build_bce, NULL},
        {"dropout", 1, {{2, {300, 1001}}}, {OPCHECK_NORMAL}, build_dropout_half, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t n1 = 0, n4 = 0;
        float *a = run_split(&cases[i], 0, &n1), *b = run_split(&cases[i], 4, &n4);
        bool same = a != NULL && b != NULL && n1 == n4 && memcmp(a, b, (size_t)n1 * sizeof *a) == 0;
        tap_ok(same, "%s: 4 threads give bit-identical results to 1", cases[i].name);
        free(a);
        free(b);
    }
}

/* ---- shape errors ---- */

static void expect_error(rf_graph *g, rf_id id, const char *what)
{
    const char *msg = rf_graph_error(g);
    tap_ok(id == RF_NONE && !rf_graph_ok(g) && msg != NULL && msg[0] != '\0', "%s is rejected: %s", what,
           msg ? msg : "(no message)");
}

static void test_shape_errors(void)
{
    struct {
        const char *what;
        int which;
    } cases[] = {
        {"softmax mask [3, 6] for x [3, 7]", 0},
        {"softmax mask [2, 3, 7] for x [3, 7]", 1},
        {"layernorm gamma [6] for x [3, 7]", 2},
        {"layernorm beta [7, 1] for x [3, 7]", 3},
        {"sum axis 2 of [3, 7]", 4},
        {"mean axis -2 of [3, 7]", 5},
        {"masked_mean mask [3, 6] for x [3, 7, 5]", 6},
        {"masked_mean x [3, 7]", 7},
        {"cross_entropy labels [4] for logits [3, 7]", 8},
        {"bce_logits targets [7, 3] for logits [3, 7]", 9},
        {"dropout p 1", 10},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rf_graph *g = rf_graph_new(NULL);
        rf_id x = rf_input(g, "x", rf_shape2(3, 7), true);
        rf_id id = RF_NONE;
        switch (cases[i].which) {
        case 0: id = rf_softmax(g, x, rf_input(g, "m", rf_shape2(3, 6), false)); break;
        case 1: id = rf_softmax(g, x, rf_input(g, "m", rf_shape3(2, 3, 7), false)); break;
        case 2: id = rf_layernorm(g, x, rf_input(g, "w", rf_shape1(6), true), RF_NONE, 1e-5f); break;
        case 3: id = rf_layernorm(g, x, RF_NONE, rf_input(g, "b", rf_shape2(7, 1), true), 1e-5f); break;
        case 4: id = rf_sum(g, x, 2); break;
        case 5: id = rf_mean(g, x, -2); break;
        case 6:
            id = rf_masked_mean(g, rf_input(g, "t", rf_shape3(3, 7, 5), true),
                                rf_input(g, "m", rf_shape2(3, 6), false));
            break;
        case 7: id = rf_masked_mean(g, x, rf_input(g, "m", rf_shape2(3, 7), false)); break;
        case 8: id = rf_cross_entropy(g, x, rf_input(g, "y", rf_shape1(4), false)); break;
        case 9: id = rf_bce_logits(g, x, rf_input(g, "t", rf_shape2(7, 3), false)); break;
        case 10: id = rf_dropout(g, x, 1.0f); break;
        }
        expect_error(g, id, cases[i].what);
        rf_graph_free(g);
    }
}

int main(int argc, char **argv)
{
    /* --portable (suite `portable`): the softmax and LayerNorm row clones */
    bool portable = tap_portable(argc, argv);
    /* the opcheck cases first (see check) */
    test_softmax();
    test_log_softmax();
    test_layernorm();
    if (!portable) {
        test_reduce();
        test_masked_mean();
        test_losses();
        test_dropout();
    }

    test_softmax_fully_masked();
    test_log_softmax_stable();
    if (!portable) {
        test_reduce_shapes();
        test_masked_mean_empty_row();
        test_dropout_statistics();
        test_thread_independence();
        test_shape_errors();
    }
    return tap_done();
}
