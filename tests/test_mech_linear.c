/* Kernelised linear attention and MAELRE (SPEC 4).
 *
 * The fused op against the explicit N x M kernel matrix normalised by rows
 * (double), its gradients against finite differences, shape errors, the
 * zero-denominator rule and thread-count independence; then the `linear`
 * mixer and the `maelre` encoder inside the whole classifier (parameter
 * gradients, padding invariance, the block plan, memory growth) and
 * MAELRE's 2-D token merge called directly on a token grid. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/encoders/maelre.h"
#include "../core/exec.h"
#include "../core/model.h"
#include "../core/ops/linear_attention.h"
#include "../core/params.h"
#include "../core/probe.h"
#include "../core/rng.h"
#include "opcheck.h"
#include "modelcheck.h"
#include "tap.h"
#include "tolerance.h"

/* ---------------- the op against the explicit kernel matrix ---------------- */

typedef struct {
    int64_t B, N, M, D, H;
    rf_kernel_map map;
    float scale;
    bool mask;
    bool self;          /* q = k = v = input 0 (N == M) */
} la_case;

static double ref_phi(rf_kernel_map map, double x)
{
    switch (map) {
    case RF_KMAP_ELU1: return x > 0 ? x + 1 : exp(x);
    case RF_KMAP_RELU: return x > 0 ? x : 0;
    default: return fmax(x, 0) + log1p(exp(-fabs(x)));
    }
}

static rf_id build_la(rf_graph *g, const rf_id *in, const void *ctx)
{
    const la_case *c = ctx;
    if (c->self)
        return rf_linear_attention(g, in[0], in[0], in[0], c->mask ? in[1] : RF_NONE, (int)c->H, c->map, c->scale);
    return rf_linear_attention(g, in[0], in[1], in[2], c->mask ? in[3] : RF_NONE, (int)c->H, c->map, c->scale);
}

/* A[n][m] = phi(s q_n) . phi(s k_m) for valid keys m, 0 for padded ones;
 * O_n = sum_m A[n][m] v_m / sum_m A[n][m] (0 when the row sums to 0). */
static void ref_la(const double *const *in, double *out, const void *ctx)
{
    const la_case *c = ctx;
    const double *q = in[0], *k = c->self ? in[0] : in[1], *v = c->self ? in[0] : in[2];
    const double *mask = c->mask ? in[c->self ? 1 : 3] : NULL;
    int64_t B = c->B, N = c->N, M = c->M, D = c->D, dk = D / c->H;
    double *A = malloc((size_t)(N * M) * sizeof *A);
    /* the feature maps once per element, not once per product term: under
     * emulation (suite `portable`) the exp and log1p calls were the
     * finite differences' whole cost */
    double *fq = malloc((size_t)(B * N * D) * sizeof *fq), *fk = malloc((size_t)(B * M * D) * sizeof *fk);
    for (int64_t i = 0; i < B * N * D; i++)
        fq[i] = ref_phi(c->map, c->scale * q[i]);
    for (int64_t i = 0; i < B * M * D; i++)
        fk[i] = ref_phi(c->map, c->scale * k[i]);
    for (int64_t b = 0; b < B; b++)
        for (int64_t h = 0; h < c->H; h++) {
            for (int64_t n = 0; n < N; n++)
                for (int64_t m = 0; m < M; m++) {
                    double a = 0;
                    if (mask == NULL || mask[b * M + m] != 0)
                        for (int64_t j = 0; j < dk; j++)
                            a += fq[(b * N + n) * D + h * dk + j] * fk[(b * M + m) * D + h * dk + j];
                    A[n * M + m] = a;
                }
            for (int64_t n = 0; n < N; n++) {
                double den = 0;
                for (int64_t m = 0; m < M; m++)
                    den += A[n * M + m];
                for (int64_t j = 0; j < dk; j++) {
                    double num = 0;
                    for (int64_t m = 0; m < M; m++)
                        num += A[n * M + m] * v[(b * M + m) * D + h * dk + j];
                    out[(b * N + n) * D + h * dk + j] = den > 0 ? num / den : 0;
                }
            }
        }
    free(A);
    free(fq);
    free(fk);
}

static void run_la(const char *name, la_case lc)
{
    opcheck_case c = {
        .name = name,
        .build = build_la,
        .reference = ref_la,
        .ctx = &lc,
    };
    int i = 0;
    c.shape[i] = rf_shape3(lc.B, lc.N, lc.D);
    c.kind[i++] = OPCHECK_NORMAL;
    if (!lc.self) {
        c.shape[i] = c.shape[i + 1] = rf_shape3(lc.B, lc.M, lc.D);
        c.kind[i++] = OPCHECK_NORMAL;
        c.kind[i++] = OPCHECK_NORMAL;
    }
    if (lc.mask) {
        c.shape[i] = rf_shape2(lc.B, lc.M);
        c.kind[i++] = OPCHECK_MASK;
    }
    c.n_in = i;
    opcheck_run(&c);
}

static void test_op(void)
{
    /* B, N, M, D, heads, map, scale, mask, self */
    run_la("elu+1, 1 head, N 5 != M 7, mask", (la_case){2, 5, 7, 4, 1, RF_KMAP_ELU1, 0.7f, true, false});
    run_la("elu+1, 3 heads, N 6 != M 4, mask", (la_case){2, 6, 4, 6, 3, RF_KMAP_ELU1, 1.0f, true, false});
    run_la("relu, 1 head, N 4 != M 6, mask", (la_case){2, 4, 6, 3, 1, RF_KMAP_RELU, 0.9f, true, false});
    run_la("relu, 3 heads, N 5 != M 7, mask", (la_case){1, 5, 7, 6, 3, RF_KMAP_RELU, 1.2f, true, false});
    run_la("softplus, 1 head, N 3 != M 5, mask", (la_case){2, 3, 5, 4, 1, RF_KMAP_SOFTPLUS, 0.5f, true, false});
    run_la("softplus, 3 heads, N 7 != M 5, mask", (la_case){2, 7, 5, 9, 3, RF_KMAP_SOFTPLUS, 1.0f, true, false});
    run_la("elu+1, 2 heads, no mask", (la_case){2, 5, 5, 4, 2, RF_KMAP_ELU1, 1.0f, false, false});
    run_la("softplus, 3 heads, q = k = v (gradients accumulate), mask",
           (la_case){2, 6, 6, 6, 3, RF_KMAP_SOFTPLUS, 0.8f, true, true});
    /* heads of 8 and 16 take the kernel's vector paths of a constant width,
     * 24 that of any multiple of 8; heads over RF_LINEAR_ATTENTION_ROW_HEADS
     * wide take one BLAS product per head */
    run_la("elu+1, 2 heads of 8, N 5 != M 7, mask", (la_case){2, 5, 7, 16, 2, RF_KMAP_ELU1, 0.6f, true, false});
    run_la("softplus, 2 heads of 8, q = k = v, mask", (la_case){1, 6, 6, 16, 2, RF_KMAP_SOFTPLUS, 0.7f, true, true});
    run_la("relu, 1 head of 16, N 4 != M 6, mask", (la_case){2, 4, 6, 16, 1, RF_KMAP_RELU, 0.8f, true, false});
    run_la("elu+1, 2 heads of 24, N 3 != M 4, mask", (la_case){1, 3, 4, 48, 2, RF_KMAP_ELU1, 0.5f, true, false});
    run_la("softplus, 1 head of 40, N 4 != M 3, mask", (la_case){2, 4, 3, 40, 1, RF_KMAP_SOFTPLUS, 0.4f, true, false});
}

/* ---------------- shape errors ---------------- */

static void expect_error(const char *what, rf_shape sq, rf_shape skv, rf_shape sm, bool mask_grad, int heads,
                         int map, float scale, const char *needle)
{
    rf_params *p = rf_params_new(1);
    rf_graph *g = rf_graph_new(p);
    rf_id q = rf_input(g, "q", sq, true), k = rf_input(g, "k", skv, true), v = rf_input(g, "v", skv, true);
    rf_id m = sm.ndim > 0 ? rf_input(g, "mask", sm, mask_grad) : RF_NONE;
    rf_id o = rf_linear_attention(g, q, k, v, m, heads, (rf_kernel_map)map, scale);
    const char *err = rf_graph_error(g);
    if (!tap_ok(o == RF_NONE && !rf_graph_ok(g) && err != NULL && strstr(err, needle) != NULL,
                "shape error: %s", what))
        tap_diag("error: %s", err != NULL ? err : "(none)");
    rf_graph_free(g);
    rf_params_free(p);
}

static void test_shape_errors(void)
{
    rf_shape q = rf_shape3(2, 5, 6), kv = rf_shape3(2, 7, 6), m = rf_shape2(2, 7), none = rf_shape_scalar();
    expect_error("2-D q", rf_shape2(5, 6), kv, none, false, 2, RF_KMAP_ELU1, 1, "must all be [B, len, D]");
    expect_error("width of k differs from q", q, rf_shape3(2, 7, 4), none, false, 2, RF_KMAP_ELU1, 1,
                 "do not fit");
    expect_error("batch of k differs from q", q, rf_shape3(3, 7, 6), none, false, 2, RF_KMAP_ELU1, 1, "do not fit");
    expect_error("4 heads do not divide 6", q, kv, none, false, 4, RF_KMAP_ELU1, 1, "do not divide");
    expect_error("mask [2, 5] for 7 keys", q, kv, rf_shape2(2, 5), false, 2, RF_KMAP_ELU1, 1, "key mask");
    expect_error("mask needing a gradient", q, kv, m, true, 2, RF_KMAP_ELU1, 1, "must not need a gradient");
    expect_error("unknown feature map", q, kv, m, false, 2, 7, 1, "unknown feature map");
    expect_error("zero scale", q, kv, m, false, 2, RF_KMAP_RELU, 0, "positive and finite");

    /* v differing from k */
    rf_params *p = rf_params_new(1);
    rf_graph *g = rf_graph_new(p);
    rf_id o = rf_linear_attention(g, rf_input(g, "q", q, true), rf_input(g, "k", kv, true),
                                  rf_input(g, "v", rf_shape3(2, 6, 6), true), RF_NONE, 1, RF_KMAP_ELU1, 1);
    tap_ok(o == RF_NONE && strstr(rf_graph_error(g), "do not fit") != NULL, "shape error: v [2, 6, 6] != k [2, 7, 6]");
    rf_graph_free(g);
    rf_params_free(p);

    rf_kernel_map km = RF_KMAP_COUNT;
    bool ok = rf_kernel_map_parse("elu", &km) && km == RF_KMAP_ELU1;
    ok = ok && rf_kernel_map_parse("relu", &km) && km == RF_KMAP_RELU;
    ok = ok && rf_kernel_map_parse("softplus", &km) && km == RF_KMAP_SOFTPLUS;
    tap_ok(ok && !rf_kernel_map_parse("ELU", &km) && !rf_kernel_map_parse("exp", &km),
           "rf_kernel_map_parse knows elu, relu, softplus and nothing else");
}

/* ---------------- one op in a graph, run directly ---------------- */

typedef struct {
    rf_params *params;
    rf_graph *g;
    rf_id q, k, v, mask, out;
    rf_pool *pool;
    rf_exec x;
} la_graph;

/* q [B, N, D], k = v [B, M, D], mask [B, M]; inputs filled from seed 5 */
static la_graph la_graph_new(int64_t B, int64_t N, int64_t M, int64_t D, int heads, rf_kernel_map map, int threads)
{
    la_graph t = {.params = rf_params_new(1)};
    t.g = rf_graph_new(t.params);
    t.q = rf_input(t.g, "q", rf_shape3(B, N, D), true);
    t.k = rf_input(t.g, "k", rf_shape3(B, M, D), true);
    t.v = rf_input(t.g, "v", rf_shape3(B, M, D), true);
    t.mask = rf_input(t.g, "mask", rf_shape2(B, M), false);
    t.out = rf_linear_attention(t.g, t.q, t.k, t.v, t.mask, heads, map, 0.9f);
    rf_graph_keep(t.g, t.out);
    rf_status st = {0};
    rf_graph_prepare(t.g, t.out, threads, NULL, &st);
    rf_rng rng = {5};
    const rf_id filled[3] = {t.q, t.k, t.v};
    for (int i = 0; i < 3; i++) {
        float *val = rf_value(t.g, filled[i]);
        for (int64_t j = 0; j < rf_shape_numel(rf_node_shape(t.g, filled[i])); j++)
            val[j] = (float)rf_rng_normal(&rng);
    }
    float *m = rf_value(t.g, t.mask);
    for (int64_t j = 0; j < B * M; j++)
        m[j] = rf_rng_uniform(&rng) < 0.2 ? 0.0f : 1.0f;
    t.pool = rf_pool_new(threads);
    rf_exec_init(&t.x, t.g, t.pool, 1, 0, true);
    return t;
}

/* forward, then backward seeded with sin(i) */
static void la_graph_run(la_graph *t)
{
    rf_graph_forward(t->g, &t->x);
    int64_t n = rf_shape_numel(rf_node_shape(t->g, t->out));
    float *seed = malloc((size_t)n * sizeof *seed);
    for (int64_t i = 0; i < n; i++)
        seed[i] = sinf((float)i);
    rf_graph_backward(t->g, &t->x, seed);
    free(seed);
}

static void la_graph_free(la_graph *t)
{
    rf_pool_free(t->pool);
    rf_graph_free(t->g);
    rf_params_free(t->params);
}

static bool all_finite(const float *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return false;
    return true;
}

/* A batch row whose keys are all masked, and ReLU queries with no positive
 * feature, have a zero denominator: they output zeros and pass no gradient. */
static void test_zero_denominator(void)
{
    la_graph t = la_graph_new(2, 3, 4, 4, 2, RF_KMAP_RELU, 1);
    float *m = rf_value(t.g, t.mask), *q = rf_value(t.g, t.q);
    for (int j = 0; j < 4; j++)
        m[j] = 0.0f;                          /* row 0: no valid key */
    for (int j = 0; j < 4; j++)
        q[12 + j] = -fabsf(q[12 + j]) - 0.1f; /* row 1, query 0: every feature negative */
    la_graph_run(&t);
    const float *o = rf_value(t.g, t.out);
    const float *gq = rf_grad(t.g, t.q), *gk = rf_grad(t.g, t.k), *gv = rf_grad(t.g, t.v);
    bool zero = true;
    for (int j = 0; j < 12; j++)
        zero = zero && o[j] == 0.0f && gq[j] == 0.0f;
    for (int j = 0; j < 16; j++)
        zero = zero && gk[j] == 0.0f && gv[j] == 0.0f;
    for (int j = 12; j < 16; j++)
        zero = zero && o[j] == 0.0f && gq[j] == 0.0f;
    tap_ok(zero && all_finite(o, 24) && all_finite(gq, 24) && all_finite(gk, 32) && all_finite(gv, 32),
           "zero denominators give zero outputs and gradients, no NaN");
    la_graph_free(&t);
}

/* Sums over rows are taken per chunk of RF_LINEAR_ATTENTION_CHUNK rows and
 * the chunks added in order, whatever the thread count: 1 and 3 threads
 * give identical bits. */
static void test_thread_independence(void)
{
    la_graph a = la_graph_new(2, 2100, 1900, 16, 2, RF_KMAP_ELU1, 1);
    la_graph b = la_graph_new(2, 2100, 1900, 16, 2, RF_KMAP_ELU1, 3);
    la_graph_run(&a);
    la_graph_run(&b);
    size_t nq = 2 * 2100 * 16 * sizeof(float), nk = 2 * 1900 * 16 * sizeof(float);
    bool same = memcmp(rf_value(a.g, a.out), rf_value(b.g, b.out), nq) == 0 &&
                memcmp(rf_grad(a.g, a.q), rf_grad(b.g, b.q), nq) == 0 &&
                memcmp(rf_grad(a.g, a.k), rf_grad(b.g, b.k), nk) == 0 &&
                memcmp(rf_grad(a.g, a.v), rf_grad(b.g, b.v), nk) == 0;
    tap_ok(same, "N 2100, M 1900: 1 and 3 threads give bit-identical outputs and gradients");
    la_graph_free(&a);
    la_graph_free(&b);
}

/* sum(R * ref(x)) for the chunks case: x = (q, k, v, mask) */
static double weighted_ref(const la_case *c, double *const *x, const double *r, double *out, int64_t n)
{
    ref_la((const double *const *)x, out, c);
    double s = 0;
    for (int64_t i = 0; i < n; i++)
        s += r[i] * out[i];
    return s;
}

/* Lengths over two chunks of rows (three, the last short): the outputs
 * against the double reference, and the gradients along a random
 * direction U against the reference's central difference, so a chunk
 * dropped, counted twice or reduced out of place shows. The bound: sums
 * of up to M·dk terms in three stages, λ√k·u each (tests/tolerance.h),
 * relative to the norm of what is compared. */
static void test_chunks(void)
{
    const int64_t B = 2, N = 600, M = 560, D = 16, H = 2;
    la_case c = {B, N, M, D, H, RF_KMAP_ELU1, 0.9f, true, false};
    la_graph t = la_graph_new(B, N, M, D, (int)H, RF_KMAP_ELU1, 2);
    const rf_id ids[4] = {t.q, t.k, t.v, t.mask};
    const int64_t sizes[4] = {B * N * D, B * M * D, B * M * D, B * M};
    double *x[4], *u[3], *out = malloc((size_t)(B * N * D) * sizeof *out), *r = malloc((size_t)(B * N * D) * sizeof *r);
    rf_rng rng = {9};
    for (int i = 0; i < 4; i++) {
        x[i] = malloc((size_t)sizes[i] * sizeof *x[i]);
        const float *v = rf_value(t.g, ids[i]);
        for (int64_t j = 0; j < sizes[i]; j++)
            x[i][j] = v[j];
    }
    for (int i = 0; i < 3; i++) {
        u[i] = malloc((size_t)sizes[i] * sizeof *u[i]);
        for (int64_t j = 0; j < sizes[i]; j++)
            u[i][j] = rf_rng_normal(&rng);
    }
    rf_graph_forward(t.g, &t.x);
    float *seed = malloc((size_t)(B * N * D) * sizeof *seed);
    for (int64_t i = 0; i < B * N * D; i++)
        r[i] = seed[i] = (float)rf_rng_normal(&rng);
    rf_graph_backward(t.g, &t.x, seed);

    double bound = 3 * TOL_LAMBDA * sqrt((double)(M * D / H)) * TOL_U;
    weighted_ref(&c, x, r, out, B * N * D);
    const float *o = rf_value(t.g, t.out);
    double diff = 0, norm = 0;
    for (int64_t i = 0; i < B * N * D; i++) {
        diff += (o[i] - out[i]) * (o[i] - out[i]);
        norm += out[i] * out[i];
    }
    tap_ok(sqrt(diff) <= bound * sqrt(norm), "N 600, M 560 (chunks of %d rows): outputs within %.2g of the "
           "reference's norm (%.2g)", RF_LINEAR_ATTENTION_CHUNK, bound, sqrt(diff / norm));

    double analytic = 0, scale = 0, eps = 1e-5;
    for (int i = 0; i < 3; i++) {
        const float *g = rf_grad(t.g, ids[i]);
        for (int64_t j = 0; j < sizes[i]; j++) {
            analytic += g[j] * u[i][j];
            scale += fabs(g[j] * u[i][j]);
        }
    }
    for (int i = 0; i < 3; i++)
        for (int64_t j = 0; j < sizes[i]; j++)
            x[i][j] += eps * u[i][j];
    double plus = weighted_ref(&c, x, r, out, B * N * D);
    for (int i = 0; i < 3; i++)
        for (int64_t j = 0; j < sizes[i]; j++)
            x[i][j] -= 2 * eps * u[i][j];
    double numeric = (plus - weighted_ref(&c, x, r, out, B * N * D)) / (2 * eps);
    tap_ok(fabs(analytic - numeric) <= bound * scale, "N 600, M 560: the gradients along a random direction "
           "(%.6g) match the reference's central difference (%.6g) within %.2g of %.3g", analytic, numeric,
           bound * scale, scale);
    for (int i = 0; i < 4; i++)
        free(x[i]);
    for (int i = 0; i < 3; i++)
        free(u[i]);
    free(out);
    free(r);
    free(seed);
    la_graph_free(&t);
}

/* ---------------- parameter gradients by finite differences ---------------- */

typedef struct {
    rf_graph *g;
    rf_id loss;
    rf_exec x;
} evaluator;

static double loss_of(evaluator *ev)
{
    rf_graph_forward(ev->g, &ev->x);
    return rf_value(ev->g, ev->loss)[0];
}

/* Every parameter against central differences in f32, as tests/test_model.c
 * does. */
static void check_param_grads(const char *what, rf_params *p, evaluator *ev)
{
    modelcheck_param_grads(what, p, ev->g, ev->loss, &ev->x, 1e-2f);
}

/* ---------------- the classifier with the linear mixer / MAELRE ---------------- */

static rf_config small_config(const char *encoder, const char *pool)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.model.encoder, encoder);
    strcpy(cfg.model.pool, pool);
    cfg.model.dim = 8;
    cfg.model.heads = 2;
    cfg.model.ff = 12;
    cfg.model.layers = 2;
    strcpy(cfg.model.blocks, "1,1");
    cfg.model.reduce = 2;
    cfg.data.classes = 5;
    cfg.data.vocab = 11;
    cfg.train.threads = 2;
    return cfg;
}

/* rows of `len - 3 * b` valid tokens (random ids), the rest padding */
static void fill_tokens(rf_model *m, uint64_t seed)
{
    rf_graph *g = m->graph;
    rf_rng rng = {seed};
    float *x = rf_value(g, m->x), *mask = rf_value(g, m->mask), *labels = rf_value(g, m->labels);
    for (int b = 0; b < m->batch; b++) {
        int len = m->seq_len - 3 * b;
        for (int t = 0; t < m->seq_len; t++) {
            x[b * m->seq_len + t] = t < len ? (float)rf_rng_int(&rng, 1, 10) : 0.0f;
            mask[b * m->seq_len + t] = t < len ? 1.0f : 0.0f;
        }
        labels[b] = (float)rf_rng_int(&rng, 0, 4);
    }
}

static void check_model_gradients(const char *what, const rf_config *cfg)
{
    rf_status st = {0};
    rf_params *p = rf_params_new(3);
    rf_model *m = rf_model_new(cfg, 3, 13, 0, 11, 5, p, true, &st);
    if (!tap_ok(m != NULL, "%s: the classifier builds", what)) {
        tap_diag("%s", st.msg);
        rf_params_free(p);
        return;
    }
    fill_tokens(m, 7);
    evaluator ev = {m->graph, m->loss, {0}};
    rf_exec_init(&ev.x, m->graph, NULL, 1, 0, false);
    check_param_grads(what, p, &ev);
    rf_model_free(m);
    rf_params_free(p);
}

/* One sample of `len` tokens, alone (seq_len = len) and padded to `padded`:
 * the logits must agree. */
static void check_padding(const char *what, const rf_config *cfg, int len, int padded)
{
    float ids[64];
    rf_rng rng = {11};
    for (int t = 0; t < len && t < 64; t++)
        ids[t] = (float)rf_rng_int(&rng, 1, 10);
    modelcheck_padding(what, cfg, ids, len, padded);
}

static void test_linear_model(void)
{
    rf_config cfg = small_config("linear", "mean");
    check_model_gradients("linear, mean pool, elu+1", &cfg);
    check_padding("linear, mean pool", &cfg, 5, 9);
    strcpy(cfg.model.kernel_map, "softplus");
    cfg.model.linear_scale = 1.5f;
    check_model_gradients("linear, mean pool, softplus, linear_scale 1.5", &cfg);
    cfg = small_config("linear", "cls");
    check_model_gradients("linear, cls pool, elu+1", &cfg);
    check_padding("linear, cls pool", &cfg, 5, 9);
}

static void test_maelre_model(void)
{
    rf_config cfg = small_config("maelre", "cls");
    check_model_gradients("maelre blocks 1,1 reduce 2, cls pool", &cfg);
    /* 9 -> 10 pads inside the last merge cell, 9 -> 13 adds whole cells; the
     * blocks stay linear (9, 10, 13 > 8) then dot-product (5, 7 <= 16) */
    check_padding("maelre, cls pool", &cfg, 9, 10);
    check_padding("maelre, cls pool", &cfg, 9, 13);
    cfg = small_config("maelre", "mean");
    strcpy(cfg.model.kernel_map, "softplus");
    check_model_gradients("maelre blocks 1,1 reduce 2, mean pool, softplus", &cfg);
    check_padding("maelre, mean pool", &cfg, 9, 13);
}

/* ---------------- MAELRE's block plan ---------------- */

static int count_ops(rf_graph *g, rf_op op)
{
    int n = 0;
    for (int i = 0; i < rf_graph_size(g); i++)
        n += rf_graph_node(g, i)->op == op;
    return n;
}

static bool tap_has_shape(const rf_graph *g, const char *name, rf_shape s)
{
    const rf_tap *t = rf_tap_find(g, name);
    return t != NULL && rf_shape_equal(t->shape, s);
}

static void test_block_plan(void)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    cfg.model.dim = 96;
    cfg.model.heads = 8;
    cfg.model.ff = 384;
    cfg.model.reduce = 4;
    strcpy(cfg.model.blocks, "1,2,11,2");
    rf_maelre_block blk[RF_MAELRE_MAX_BLOCKS];
    int nb = rf_maelre_blocks(&cfg, 8192, 0, 0, blk, RF_MAELRE_MAX_BLOCKS);
    const int layers[4] = {1, 2, 11, 2}, tokens[4] = {8192, 2048, 512, 128}, width[4] = {96, 192, 384, 768};
    const int heads[4] = {1, 2, 4, 8};
    bool ok = nb == 4;
    for (int b = 0; ok && b < 4; b++)
        ok = blk[b].layers == layers[b] && blk[b].tokens == tokens[b] && blk[b].width == width[b] &&
             blk[b].heads == heads[b] && blk[b].ff == 384 << b && blk[b].linear == (b < 3);
    tap_ok(ok, "paper's small model at 8192 tokens: tokens 8192/2048/512/128, widths 96..768, heads 1/2/4/8, "
               "linear in the first three blocks");

    ok = true;
    strcpy(cfg.model.blocks, "1,1,1");
    for (int nu = 1; nu <= 5 && ok; nu++)
        for (int n = 1; n <= 40 && ok; n++) {
            cfg.model.reduce = nu;
            int want1 = (n + nu - 1) / nu, want2 = (want1 + nu - 1) / nu;
            ok = rf_maelre_blocks(&cfg, n, 0, 0, blk, RF_MAELRE_MAX_BLOCKS) == 3 && blk[0].tokens == n &&
                 blk[1].tokens == want1 && blk[2].tokens == want2;
        }
    tap_ok(ok, "1-D merges give ceil(N / nu) tokens for N 1..40, nu 1..5");

    nb = rf_maelre_blocks(&cfg, 35, 7, 5, blk, RF_MAELRE_MAX_BLOCKS);
    tap_ok(nb == 3 && blk[1].grid_h == 4 && blk[1].grid_w == 3 && blk[1].tokens == 12 && blk[2].grid_h == 2 &&
               blk[2].grid_w == 2 && blk[2].tokens == 4,
           "2-D merges halve each axis of a 7x5 grid, rounding up: 4x3, then 2x2");

    strcpy(cfg.model.blocks, " ");
    cfg.model.layers = 3;
    nb = rf_maelre_blocks(&cfg, 100, 0, 0, blk, RF_MAELRE_MAX_BLOCKS);
    tap_ok(nb == 3 && blk[0].layers == 1 && blk[2].layers == 1 && blk[0].heads == 2 && blk[2].heads == 8,
           "empty model.blocks: model.layers blocks of one layer");

    const char *bad[] = {"1,,2", "0,1", "1,x", "1,2,", "-1", "1,1,1,1,1,1,1,1,1"};
    ok = true;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        strcpy(cfg.model.blocks, bad[i]);
        ok = ok && rf_maelre_blocks(&cfg, 100, 0, 0, blk, RF_MAELRE_MAX_BLOCKS) == -1;
    }
    strcpy(cfg.model.blocks, "1,1");
    ok = ok && rf_maelre_blocks(&cfg, 100, 3, 4, blk, RF_MAELRE_MAX_BLOCKS) == -1;
    tap_ok(ok, "malformed model.blocks and a grid that does not hold the tokens are refused");

    /* the classifier: dim 8, 13 tokens, reduce 2, blocks 1,2 */
    rf_config small = small_config("maelre", "cls");
    strcpy(small.model.blocks, "1,2");
    rf_status st = {0};
    rf_params *p = rf_params_new(3);
    rf_model *m = rf_model_new(&small, 3, 13, 0, 11, 5, p, true, &st);
    if (!tap_ok(m != NULL, "maelre blocks 1,2 builds")) {
        tap_diag("%s", st.msg);
        rf_params_free(p);
        return;
    }
    rf_graph *g = m->graph;
    tap_ok(count_ops(g, RF_OP_LINEAR_ATTENTION) == 1 && count_ops(g, RF_OP_ATTENTION) == 2,
           "block 0 (13 tokens > width 8) uses linear attention, block 1 (7 tokens <= width 16) dot-product");
    tap_ok(tap_has_shape(g, "maelre.block0.tokens", rf_shape3(3, 14, 8)) &&
               tap_has_shape(g, "maelre.block1.tokens", rf_shape3(3, 8, 16)) &&
               tap_has_shape(g, "layer0.attn.kv", rf_shape4(3, 1, 8, 8)) &&
               tap_has_shape(g, "layer2.attn.probs", rf_shape4(3, 2, 8, 8)),
           "taps: block outputs [B, 1 + N_b, D_b], linear KV [B, 1, 8, 8], dot probabilities [B, 2, 8, 8]");
    fill_tokens(m, 3);
    const char *names[2] = {"maelre.block1.tokens", "layer0.attn.kv"};
    rf_probe_set *ps = rf_probe_set_new(g, names, 2, 1, &st);
    rf_probe_attach(g, ps);
    rf_exec x;
    rf_exec_init(&x, g, NULL, 1, 0, false);
    rf_graph_forward(g, &x);
    tap_ok(ps != NULL && ps->values[0].filled && ps->values[1].filled &&
               all_finite(ps->values[0].data, 8 * 16) && all_finite(ps->values[1].data, 64),
           "the block and KV probes fill during a forward pass");
    rf_probe_attach(g, NULL);
    rf_probe_set_free(ps);
    rf_model_free(m);
    rf_params_free(p);

    small.model.heads = 14;   /* block 0 of three gets 14 / 4 = 3 heads for width 14 */
    small.model.dim = 14;
    small.model.ff = 6;
    strcpy(small.model.blocks, "1,1,1");
    p = rf_params_new(3);
    m = rf_model_new(&small, 1, 13, 0, 11, 5, p, false, &st);
    tap_ok(m == NULL && strstr(st.msg, "do not divide its width") != NULL,
           "block heads that do not divide the block width are refused");
    rf_model_free(m);
    rf_params_free(p);
}

/* Planned bytes grow linearly: 16x the tokens costs at most 20x the memory. */
static void test_memory_growth(const char *encoder)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.model.encoder, encoder);
    strcpy(cfg.model.blocks, "1,1,1,1");
    cfg.train.threads = 2;
    modelcheck_memory_growth(encoder, &cfg, 1, 1024, 16384, 20);
}

/* ---------------- MAELRE on a 2-D token grid ---------------- */

typedef struct {
    rf_params *params;       /* borrowed */
    rf_graph *g;
    rf_id x, mask, out, out_mask, r, loss;
    int batch, h, w, tokens, out_tokens;
} grid_graph;

/* rf_encoder_maelre on a CLS token + an h x w grid of width-4 tokens; loss =
 * sum(out * r) for a fixed r. */
static bool grid_graph_new(grid_graph *t, rf_params *p, const rf_config *cfg, int batch, int h, int w)
{
    *t = (grid_graph){.params = p, .batch = batch, .h = h, .w = w, .tokens = 1 + h * w};
    t->g = rf_graph_new(p);
    t->x = rf_input(t->g, "x", rf_shape3(batch, t->tokens, cfg->model.dim), false);
    t->mask = rf_input(t->g, "mask", rf_shape2(batch, t->tokens), false);
    rf_encoder_ctx e = {t->g, cfg, t->mask, batch, t->tokens, h, w};
    t->out = rf_encoder_maelre(&e, t->x, &t->out_mask);
    if (t->out == RF_NONE || t->out_mask == RF_NONE)
        return false;
    rf_shape os = rf_node_shape(t->g, t->out);
    t->out_tokens = (int)os.dim[1];
    t->r = rf_input(t->g, "r", os, false);
    t->loss = rf_sum(t->g, rf_mul(t->g, t->out, t->r), -1);
    rf_graph_keep(t->g, t->out);
    rf_graph_keep(t->g, t->out_mask);
    rf_status st = {0};
    if (!rf_graph_ok(t->g) || !rf_graph_prepare(t->g, t->loss, 2, NULL, &st))
        return false;
    rf_rng rng = {17};
    float *r = rf_value(t->g, t->r);
    for (int64_t i = 0; i < rf_shape_numel(os); i++)
        r[i] = (float)rf_rng_normal(&rng);
    return true;
}

/* The token at grid (i, j) of sample b (1 + i*w + j; CLS at 0). */
static float *grid_token(grid_graph *t, int b, int i, int j)
{
    int d = (int)rf_node_shape(t->g, t->x).dim[2];
    return rf_value(t->g, t->x) + ((size_t)b * t->tokens + 1 + (size_t)i * t->w + j) * d;
}

static void test_grid(void)
{
    rf_config cfg = small_config("maelre", "cls");
    cfg.model.dim = 4;
    cfg.model.ff = 6;
    rf_params *p = rf_params_new(9);
    grid_graph a;   /* 5 x 4 grid, sample 1 with holes, sample 0 with its last column padded */
    if (!tap_ok(grid_graph_new(&a, p, &cfg, 2, 5, 4), "maelre on a 5x4 token grid builds")) {
        tap_diag("%s", rf_graph_error(a.g));
        rf_graph_free(a.g);
        rf_params_free(p);
        return;
    }
    tap_ok(rf_shape_equal(rf_node_shape(a.g, a.out), rf_shape3(2, 1 + 3 * 2, 8)) &&
               rf_shape_equal(rf_node_shape(a.g, a.out_mask), rf_shape2(2, 1 + 3 * 2)),
           "a 5x4 grid merges to 3x2 tokens of width 8, plus CLS");
    rf_rng rng = {23};
    float *x = rf_value(a.g, a.x), *m = rf_value(a.g, a.mask);
    for (int64_t i = 0; i < 2 * a.tokens * 4; i++)
        x[i] = (float)rf_rng_normal(&rng);
    for (int b = 0; b < 2; b++) {
        m[b * a.tokens] = 1;
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 4; j++)
                m[b * a.tokens + 1 + i * 4 + j] = b == 0 ? (j < 3) : rf_rng_uniform(&rng) < 0.3;
    }
    evaluator ev = {a.g, a.loss, {0}};
    rf_exec_init(&ev.x, a.g, NULL, 1, 0, false);
    check_param_grads("maelre on a 5x4 grid", p, &ev);

    /* merged mask: a cell [2i, 2i+2) x [2j, 2j+2) is valid iff it holds a valid token */
    loss_of(&ev);
    const float *om = rf_value(a.g, a.out_mask);
    bool ok = true;
    for (int b = 0; b < 2; b++) {
        ok = ok && om[b * 7] == 1.0f;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 2; j++) {
                float want = 0;
                for (int di = 0; di < 2; di++)
                    for (int dj = 0; dj < 2; dj++)
                        if (2 * i + di < 5 && 2 * j + dj < 4 && m[b * a.tokens + 1 + (2 * i + di) * 4 + 2 * j + dj])
                            want = 1;
                ok = ok && om[b * 7 + 1 + i * 2 + j] == want;
            }
    }
    tap_ok(ok, "merged grid mask: 1 exactly where the 2x2 stride cell holds a valid token");

    /* sample 0 again on a 5x3 grid without the padded column */
    grid_graph c;
    if (!tap_ok(grid_graph_new(&c, p, &cfg, 1, 5, 3), "maelre on a 5x3 token grid builds")) {
        rf_graph_free(a.g);
        rf_graph_free(c.g);
        rf_params_free(p);
        return;
    }
    memcpy(rf_value(c.g, c.x), x, 4 * sizeof(float));   /* CLS */
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 3; j++)
            memcpy(grid_token(&c, 0, i, j), grid_token(&a, 0, i, j), 4 * sizeof(float));
    for (int t = 0; t < c.tokens; t++)
        rf_value(c.g, c.mask)[t] = 1;
    rf_exec xc;
    rf_exec_init(&xc, c.g, NULL, 1, 0, false);
    rf_graph_forward(c.g, &xc);
    double diff = 0;
    for (int i = 0; i < 7 * 8; i++)
        diff = fmax(diff, fabs(rf_value(a.g, a.out)[i] - rf_value(c.g, c.out)[i]));
    /* both runs are within the encoder's bound of the exact result
     * (tests/tolerance.h): two blocks of about ten stages (a pre-LN layer)
     * and a merge, sums of at most max(ff, tokens, 2x2 cell x width + 1)
     * terms of size up to the largest output */
    double scale = 1;
    for (int i = 0; i < 7 * 8; i++)
        scale = fmax(scale, fabs(rf_value(a.g, a.out)[i]));
    double tol = 2 * tol_stages(21, fmax(12, fmax(a.tokens, 4 * 8 + 1)), scale);
    tap_ok(diff <= tol, "a padded grid column changes no merged token (max diff %g, bound %.3g)", diff, tol);
    rf_graph_free(a.g);
    rf_graph_free(c.g);

    /* no mask at all: every merged token is valid, the mask stays RF_NONE */
    rf_graph *g = rf_graph_new(p);
    rf_id xi = rf_input(g, "x", rf_shape3(1, 1 + 12, 4), false);
    rf_encoder_ctx e = {g, &cfg, RF_NONE, 1, 13, 3, 4};
    rf_id om2 = 0;
    rf_id out = rf_encoder_maelre(&e, xi, &om2);
    tap_ok(out != RF_NONE && om2 == RF_NONE && rf_shape_equal(rf_node_shape(g, out), rf_shape3(1, 1 + 4, 8)),
           "without a mask a 3x4 grid merges to 2x2 and the mask stays RF_NONE");
    rf_graph_free(g);
    rf_params_free(p);
}

int main(int argc, char **argv)
{
    /* --portable (suite `portable`): the op's feature and gradient row
     * clones, with and without a zero denominator */
    bool portable = tap_portable(argc, argv);
    test_op();
    test_zero_denominator();
    if (!portable) {
        test_shape_errors();
        test_thread_independence();
        test_chunks();
        test_linear_model();
        test_maelre_model();
        test_block_plan();
        test_memory_growth("linear");
        test_memory_growth("maelre");
        test_grid();
    }
    return tap_done();
}
