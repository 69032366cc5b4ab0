/* TaLK convolution (SPEC §5): the fused op against explicit window sums in
 * double, its gradients against finite differences, the window-bounds tap,
 * padding invariance, shape errors, thread-count independence, the same
 * results whether a kernel task takes some heads or whole rows, and the
 * mixer inside the classifier (parameter gradients, padding invariance,
 * per-layer lmax / rmax lists). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/exec.h"
#include "../core/model.h"
#include "../core/ops/talk.h"
#include "../core/params.h"
#include "../core/probe.h"
#include "../core/rng.h"
#include "opcheck.h"
#include "modelcheck.h"
#include "tap.h"
#include "tolerance.h"

/* ---------------- the reference ---------------- */

typedef struct {
    int64_t B, N, D, H;
    int lmax, rmax;
    bool mask;
    double widen;   /* offsets = widen * sigmoid(z) when above 0: windows past lmax and rmax */
} talk_case;

static double sigmoid(double z) { return 1.0 / (1.0 + exp(-z)); }

/* One past the last valid position of row b (N without a mask). */
static int64_t ref_length(const talk_case *c, const double *mask, int64_t b)
{
    int64_t L = c->N;
    while (mask != NULL && L > 0 && mask[b * c->N + L - 1] == 0)
        L--;
    return L;
}

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

/* The clamped window [al, ar] of token i, head h, from the offsets (already
 * through the sigmoid) off [B, N, 2H]. */
static void ref_bounds(const talk_case *c, const double *off, int64_t b, int64_t i, int64_t h, int64_t L, double *al,
                       double *ar)
{
    const double *o = off + (b * c->N + i) * 2 * c->H;
    *al = clampd((double)i - o[h] * c->lmax, 0, (double)(L - 1));
    *ar = clampd((double)i + o[c->H + h] * c->rmax, 0, (double)(L - 1));
}

/* x [B, N, D], offsets [B, N, 2H], mask [B, N] or NULL -> out [B, N, D]:
 * for a valid token, the masked x summed over the whole positions
 * ⌈al⌉..⌊ar⌋ plus the fractional ends (⌈al⌉ - al) x_⌊al⌋ and
 * (ar - ⌊ar⌋) x_⌈ar⌉, over lmax + rmax + 1. */
static void ref_talk_core(const talk_case *c, const double *x, const double *off, const double *mask, double *out)
{
    int64_t R = c->D / c->H;
    double K = c->lmax + c->rmax + 1;
    for (int64_t b = 0; b < c->B; b++) {
        int64_t L = ref_length(c, mask, b);
        for (int64_t i = 0; i < c->N; i++)
            for (int64_t h = 0; h < c->H; h++)
                for (int64_t r = 0; r < R; r++) {
                    int64_t ch = h * R + r;
                    double *o = &out[(b * c->N + i) * c->D + ch];
                    *o = 0;
                    if (mask != NULL && mask[b * c->N + i] == 0)
                        continue;
                    double al, ar;
                    ref_bounds(c, off, b, i, h, L, &al, &ar);
                    int64_t fl = (int64_t)floor(al), cl = (int64_t)ceil(al);
                    int64_t fr = (int64_t)floor(ar), cr = (int64_t)ceil(ar);
#define XM(k) ((mask == NULL || mask[b * c->N + (k)] != 0) ? x[(b * c->N + (k)) * c->D + ch] : 0.0)
                    double sum = (cl - al) * XM(fl) + (ar - fr) * XM(cr);
                    for (int64_t k = cl; k <= fr; k++)
                        sum += XM(k);
#undef XM
                    *o = sum / K;
                }
    }
}

/* in: x, z (offsets = sigmoid(z)), mask */
static void ref_talk(const double *const *in, double *out, const void *ctx)
{
    const talk_case *c = ctx;
    int64_t no = c->B * c->N * 2 * c->H;
    double *off = malloc((size_t)no * sizeof *off);
    for (int64_t i = 0; i < no; i++)
        off[i] = (c->widen > 0 ? c->widen : 1.0) * sigmoid(in[1][i]);
    ref_talk_core(c, in[0], off, c->mask ? in[2] : NULL, out);
    free(off);
}

/* Offsets through a sigmoid of normal inputs stay inside (0.05, 0.95)
 * (almost surely), so no bound lands on an integer, where the published
 * gradient convention (zero) and finite differences disagree. */
static rf_id build_talk(rf_graph *g, const rf_id *in, const void *ctx)
{
    const talk_case *c = ctx;
    rf_id off = rf_sigmoid(g, in[1]);
    if (c->widen > 0)
        off = rf_scale(g, off, (float)c->widen);
    return rf_talk(g, in[0], off, c->mask ? in[2] : RF_NONE, c->lmax, c->rmax);
}

/* talk(x) + x / 2: the half of x is made after the talk node, so its
 * backward writes x's gradient first and the talk kernel must add to it
 * (the op alone always writes it fresh). */
static rf_id build_talk_plus_x(rf_graph *g, const rf_id *in, const void *ctx)
{
    rf_id t = build_talk(g, in, ctx);
    return rf_add(g, t, rf_scale(g, in[0], 0.5f));
}

static void ref_talk_plus_x(const double *const *in, double *out, const void *ctx)
{
    const talk_case *c = ctx;
    ref_talk(in, out, ctx);
    for (int64_t i = 0; i < c->B * c->N * c->D; i++)
        out[i] += 0.5 * in[0][i];
}

static void run_talk_as(const char *name, talk_case tc, uint64_t seed, bool plus_x)
{
    opcheck_case c = {
        .name = name,
        .n_in = tc.mask ? 3 : 2,
        .shape = {rf_shape3(tc.B, tc.N, tc.D), rf_shape3(tc.B, tc.N, 2 * tc.H), rf_shape2(tc.B, tc.N)},
        .kind = {OPCHECK_NORMAL, OPCHECK_NORMAL, OPCHECK_MASK},
        .build = plus_x ? build_talk_plus_x : build_talk,
        .reference = plus_x ? ref_talk_plus_x : ref_talk,
        .ctx = &tc,
        .seed = seed,
    };
    opcheck_run(&c);
}

static void run_talk(const char *name, talk_case tc, uint64_t seed)
{
    run_talk_as(name, tc, seed, false);
}

static void test_op(void)
{
    run_talk("talk N=7 D=4, 1 head, lmax 3 rmax 2, mask", (talk_case){2, 7, 4, 1, 3, 2, true, 0}, 11);
    run_talk("talk N=9 D=6, 3 heads, lmax 4 rmax 5, mask", (talk_case){2, 9, 6, 3, 4, 5, true, 0}, 12);
    run_talk("talk causal N=11 D=6, 3 heads, lmax 5 rmax 0, mask", (talk_case){2, 11, 6, 3, 5, 0, true, 0}, 13);
    run_talk("talk N=5 D=6, 2 heads, windows past both ends (lmax 7 rmax 6), no mask",
             (talk_case){2, 5, 6, 2, 7, 6, false, 0}, 14);
    run_talk("talk N=9 D=4, 2 heads, lmax 0 rmax 0 (identity), mask", (talk_case){2, 9, 4, 2, 0, 0, true, 0}, 15);
    run_talk("talk N=13 D=3, 3 heads (R = 1), lmax 2 rmax 9, mask", (talk_case){3, 13, 3, 3, 2, 9, true, 0}, 16);
    /* wide heads: two kernel tasks per item, of one head (R = 32) and of two heads (R = 16) */
    run_talk("talk N=5 D=64, 2 heads of 32, lmax 3 rmax 2, mask", (talk_case){2, 5, 64, 2, 3, 2, true, 0}, 17);
    run_talk("talk N=7 D=64, 4 heads of 16, lmax 2 rmax 4, mask", (talk_case){1, 7, 64, 4, 2, 4, true, 0}, 18);
    /* many windows inside the sequence, and with offsets up to 1.7
     * (windows past lmax and rmax, as a caller other than the sigmoid may
     * give) */
    run_talk("talk N=40 D=6, 3 heads, lmax 5 rmax 3, mask", (talk_case){2, 40, 6, 3, 5, 3, true, 0}, 19);
    run_talk("talk N=40 D=6, 3 heads, lmax 5 rmax 3, offsets up to 1.7, mask",
             (talk_case){2, 40, 6, 3, 5, 3, true, 1.7}, 20);
    run_talk_as("talk N=9 D=6, 3 heads, lmax 4 rmax 5, mask, plus x / 2 (x's gradient added to)",
                (talk_case){2, 9, 6, 3, 4, 5, true, 0}, 21, true);
}

/* ---------------- one graph run by hand ---------------- */

typedef struct {
    rf_params *params;
    rf_graph *g;
    rf_id x, z, mask, out;
    rf_pool *pool;
    rf_exec exec;
} talk_graph;

/* x [B, N, D], z [B, N, 2H] -> talk(x, sigmoid(z), mask), prepared for backward. */
static bool talk_graph_new(talk_graph *t, const talk_case *c, int threads)
{
    t->params = rf_params_new(1);
    t->g = rf_graph_new(t->params);
    t->x = rf_input(t->g, "x", rf_shape3(c->B, c->N, c->D), true);
    t->z = rf_input(t->g, "z", rf_shape3(c->B, c->N, 2 * c->H), true);
    t->mask = rf_input(t->g, "mask", rf_shape2(c->B, c->N), false);
    t->out = rf_talk(t->g, t->x, rf_sigmoid(t->g, t->z), t->mask, c->lmax, c->rmax);
    if (t->out == RF_NONE)
        return false;
    rf_tap_add(t->g, "talk.bounds", t->out, RF_TAP_AUX, rf_shape3(c->B, c->N, 2 * c->H),
               rf_talk_bounds_offset(t->g, t->out));
    rf_graph_keep(t->g, t->out);
    rf_status st = {0};
    if (!rf_graph_prepare(t->g, t->out, threads, NULL, &st))
        return false;
    t->pool = threads > 1 ? rf_pool_new(threads) : NULL;
    rf_exec_init(&t->exec, t->g, t->pool, 1, 1, true);
    return true;
}

static void talk_graph_free(talk_graph *t)
{
    rf_pool_free(t->pool);
    rf_graph_free(t->g);
    rf_params_free(t->params);
}

/* Rows of lengths len[b]; x and z normal, the padding filled with `pad`. */
static void fill_rows(talk_graph *t, const talk_case *c, const int64_t *len, float pad, uint64_t seed)
{
    rf_rng rng = {seed};
    float *x = rf_value(t->g, t->x), *z = rf_value(t->g, t->z), *m = rf_value(t->g, t->mask);
    for (int64_t b = 0; b < c->B; b++)
        for (int64_t i = 0; i < c->N; i++) {
            bool valid = i < len[b];
            m[b * c->N + i] = valid ? 1.0f : 0.0f;
            for (int64_t d = 0; d < c->D; d++)
                x[(b * c->N + i) * c->D + d] = valid ? (float)rf_rng_normal(&rng) : pad;
            for (int64_t d = 0; d < 2 * c->H; d++)
                z[(b * c->N + i) * 2 * c->H + d] = valid ? (float)rf_rng_normal(&rng) : pad;
        }
}

/* ---------------- the bounds tap ---------------- */

static void test_bounds_tap(void)
{
    talk_case c = {2, 9, 6, 3, 4, 3, true, 0};
    talk_graph t;
    if (!tap_ok(talk_graph_new(&t, &c, 1), "bounds tap: graph builds"))
        return;
    const int64_t len[2] = {9, 6};
    fill_rows(&t, &c, len, 0.0f, 21);
    const char *names[1] = {"talk.bounds"};
    rf_status st = {0};
    rf_probe_set *ps = rf_probe_set_new(t.g, names, 1, 1, &st);
    rf_probe_attach(t.g, ps);
    rf_graph_forward(t.g, &t.exec);

    int64_t no = c.B * c.N * 2 * c.H;
    double *off = malloc((size_t)no * sizeof *off);
    const float *z = rf_value(t.g, t.z);
    for (int64_t i = 0; i < no; i++)
        off[i] = sigmoid(z[i]);
    double worst = 0;
    for (int64_t i = 0; i < c.N; i++)
        for (int64_t h = 0; h < c.H; h++) {
            double al = 0, ar = 0;
            if (i < len[1])
                ref_bounds(&c, off, 1, i, h, len[1], &al, &ar);
            const float *got = ps->values[0].data + i * 2 * c.H;
            worst = fmax(worst, fmax(fabs(got[h] - al), fabs(got[c.H + h] - ar)));
        }
    tap_ok(ps->values[0].filled && ps->values[0].shape.ndim == 2 && ps->values[0].shape.dim[1] == 2 * c.H &&
               worst <= TOL_CHAIN * TOL_U * (c.N - 1),   /* a chain on values up to the last position */
           "bounds tap of sample 1 holds the clamped a^l, a^r per head (0 on padding; max diff %g)", worst);
    free(off);
    rf_probe_attach(t.g, NULL);
    rf_probe_set_free(ps);
    talk_graph_free(&t);
}

/* ---------------- padding invariance at the op ---------------- */

static void test_op_padding(void)
{
    talk_case shortc = {1, 7, 6, 2, 5, 4, true, 0}, longc = {1, 12, 6, 2, 5, 4, true, 0};
    talk_graph a, b;
    if (!tap_ok(talk_graph_new(&a, &shortc, 1) && talk_graph_new(&b, &longc, 1), "op padding: graphs build"))
        return;
    const int64_t len[1] = {7};
    fill_rows(&a, &shortc, len, 0.0f, 31);
    fill_rows(&b, &longc, len, 1e3f, 31);
    rf_graph_forward(a.g, &a.exec);
    rf_graph_forward(b.g, &b.exec);
    const float *oa = rf_value(a.g, a.out), *ob = rf_value(b.g, b.out);
    bool same = memcmp(oa, ob, (size_t)(7 * 6) * sizeof(float)) == 0, zero = true;
    for (int64_t i = 7 * 6; i < 12 * 6; i++)
        zero &= ob[i] == 0.0f;
    tap_ok(same && zero, "appending 5 padding tokens (holding 1e3) leaves the 7 valid outputs bitwise equal, "
                         "padded outputs 0");

    /* the same upstream gradient on the valid tokens gives the same input gradients */
    float *seed_a = calloc(7 * 6, sizeof(float)), *seed_b = calloc(12 * 6, sizeof(float));
    rf_rng rng = {5};
    for (int64_t i = 0; i < 7 * 6; i++)
        seed_a[i] = seed_b[i] = (float)rf_rng_normal(&rng);
    rf_graph_backward(a.g, &a.exec, seed_a);
    rf_graph_backward(b.g, &b.exec, seed_b);
    bool gx = memcmp(rf_grad(a.g, a.x), rf_grad(b.g, b.x), (size_t)(7 * 6) * sizeof(float)) == 0;
    bool gz = memcmp(rf_grad(a.g, a.z), rf_grad(b.g, b.z), (size_t)(7 * 4) * sizeof(float)) == 0;
    for (int64_t i = 7 * 6; i < 12 * 6; i++)
        gx &= rf_grad(b.g, b.x)[i] == 0.0f;
    tap_ok(gx && gz, "and the same gradients into x and the offsets (none into padded x)");
    free(seed_a);
    free(seed_b);
    talk_graph_free(&a);
    talk_graph_free(&b);
}

/* ---------------- thread-count independence ---------------- */

/* Items alternate between full length and 37 short. *heads_per_task:
 * the op's heads per kernel task. */
static bool threaded_run(const talk_case *c, int threads, float **out, float **gx, float **gz,
                         int64_t *heads_per_task)
{
    talk_graph t;
    if (!talk_graph_new(&t, c, threads))
        return false;
    int64_t len[16];
    for (int64_t b = 0; b < c->B && b < 16; b++)
        len[b] = b % 2 == 0 ? c->N : c->N - 37;
    fill_rows(&t, c, len, 0.0f, 41);
    *heads_per_task = rf_graph_cnode(t.g, t.out)->ia[3];
    int64_t n = c->B * c->N * c->D, nz = c->B * c->N * 2 * c->H;
    float *seed = malloc((size_t)n * sizeof *seed);
    rf_rng rng = {9};
    for (int64_t i = 0; i < n; i++)
        seed[i] = (float)rf_rng_normal(&rng);
    rf_graph_forward(t.g, &t.exec);
    rf_graph_backward(t.g, &t.exec, seed);
    *out = malloc((size_t)n * sizeof(float));
    *gx = malloc((size_t)n * sizeof(float));
    *gz = malloc((size_t)nz * sizeof(float));
    memcpy(*out, rf_value(t.g, t.out), (size_t)n * sizeof(float));
    memcpy(*gx, rf_grad(t.g, t.x), (size_t)n * sizeof(float));
    memcpy(*gz, rf_grad(t.g, t.z), (size_t)nz * sizeof(float));
    free(seed);
    talk_graph_free(&t);
    return true;
}

static void test_threads(void)
{
    talk_case c = {2, 301, 64, 8, 17, 9, true, 0};
    float *o1, *x1, *z1, *o3, *x3, *z3;
    int64_t g1, g3;
    if (!tap_ok(threaded_run(&c, 1, &o1, &x1, &z1, &g1) && threaded_run(&c, 3, &o3, &x3, &z3, &g3),
                "threads: graphs build"))
        return;
    size_t n = (size_t)(c.B * c.N * c.D), nz = (size_t)(c.B * c.N * 2 * c.H);
    bool same = memcmp(o1, o3, n * sizeof(float)) == 0 && memcmp(x1, x3, n * sizeof(float)) == 0 &&
                memcmp(z1, z3, nz * sizeof(float)) == 0;
    tap_ok(same, "talk N=301 D=64, 8 heads: 1 and 3 threads give bitwise equal outputs and gradients");
    free(o1), free(x1), free(z1), free(o3), free(x3), free(z3);
}

/* A batch of 16 gives each kernel task all 8 heads (whole rows), a batch
 * of 2 four heads; the first two items come out the same either way. */
static void test_whole_rows(void)
{
    talk_case big = {16, 301, 64, 8, 17, 9, true, 0}, small = big;
    small.B = 2;
    float *ob, *xb, *zb, *os, *xs, *zs;
    int64_t gb, gs;
    if (!tap_ok(threaded_run(&big, 2, &ob, &xb, &zb, &gb) && threaded_run(&small, 2, &os, &xs, &zs, &gs),
                "whole rows: graphs build"))
        return;
    size_t n = (size_t)(small.B * small.N * small.D), nz = (size_t)(small.B * small.N * 2 * small.H);
    bool same = memcmp(ob, os, n * sizeof(float)) == 0 && memcmp(xb, xs, n * sizeof(float)) == 0 &&
                memcmp(zb, zs, nz * sizeof(float)) == 0;
    tap_ok(gb == 8 && gs == 4 && same,
           "talk N=301 D=64, 8 heads: a task takes %lld heads at batch 16 and %lld at batch 2, and the two items "
           "both hold give bitwise equal outputs and gradients", (long long)gb, (long long)gs);
    free(ob), free(xb), free(zb), free(os), free(xs), free(zs);
}

/* ---------------- shape errors ---------------- */

static void expect_error(rf_graph *g, rf_id got, const char *what)
{
    const char *err = rf_graph_error(g);
    if (tap_ok(got == RF_NONE && !rf_graph_ok(g) && strstr(err, "talk") != NULL, "rejects %s", what))
        tap_diag("%s", err);
}

typedef rf_id (*bad_build)(rf_graph *g);

static void check_bad(bad_build f, const char *what)
{
    rf_params *p = rf_params_new(1);
    rf_graph *g = rf_graph_new(p);
    expect_error(g, f(g), what);
    rf_graph_free(g);
    rf_params_free(p);
}

static rf_id bad_rank(rf_graph *g)
{
    rf_id x = rf_input(g, "x", rf_shape2(5, 6), true);
    return rf_talk(g, x, rf_input(g, "o", rf_shape3(1, 5, 4), true), RF_NONE, 2, 2);
}

static rf_id bad_length(rf_graph *g)
{
    rf_id x = rf_input(g, "x", rf_shape3(2, 5, 6), true);
    return rf_talk(g, x, rf_input(g, "o", rf_shape3(2, 7, 4), true), RF_NONE, 2, 2);
}

static rf_id bad_odd(rf_graph *g)
{
    rf_id x = rf_input(g, "x", rf_shape3(2, 5, 6), true);
    return rf_talk(g, x, rf_input(g, "o", rf_shape3(2, 5, 3), true), RF_NONE, 2, 2);
}

static rf_id bad_heads(rf_graph *g)
{
    rf_id x = rf_input(g, "x", rf_shape3(2, 5, 6), true);
    return rf_talk(g, x, rf_input(g, "o", rf_shape3(2, 5, 8), true), RF_NONE, 2, 2);
}

static rf_id bad_mask(rf_graph *g)
{
    rf_id x = rf_input(g, "x", rf_shape3(2, 5, 6), true);
    rf_id o = rf_input(g, "o", rf_shape3(2, 5, 4), true);
    return rf_talk(g, x, o, rf_input(g, "m", rf_shape2(2, 4), false), 2, 2);
}

static rf_id bad_mask_grad(rf_graph *g)
{
    rf_id x = rf_input(g, "x", rf_shape3(2, 5, 6), true);
    rf_id o = rf_input(g, "o", rf_shape3(2, 5, 4), true);
    return rf_talk(g, x, o, rf_input(g, "m", rf_shape2(2, 5), true), 2, 2);
}

static rf_id bad_lmax(rf_graph *g)
{
    rf_id x = rf_input(g, "x", rf_shape3(2, 5, 6), true);
    return rf_talk(g, x, rf_input(g, "o", rf_shape3(2, 5, 4), true), RF_NONE, -1, 2);
}

static void test_errors(void)
{
    check_bad(bad_rank, "talk with a 2-D x");
    check_bad(bad_length, "talk with offsets of another length");
    check_bad(bad_odd, "talk with an odd number of offsets per token");
    check_bad(bad_heads, "talk whose 4 heads do not divide D = 6");
    check_bad(bad_mask, "talk with a mask of the wrong length");
    check_bad(bad_mask_grad, "talk with a mask that needs a gradient");
    check_bad(bad_lmax, "talk with a negative lmax");
}

/* ---------------- the mixer in the classifier ---------------- */

static rf_config talk_config(const char *pool, const char *glu, int offset_heads)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.model.encoder, "talk");
    cfg.model.dim = 8;
    cfg.model.heads = 2;
    cfg.model.ff = 12;
    cfg.model.layers = 2;
    cfg.model.offset_heads = offset_heads;
    cfg.model.dropout = 0;
    strcpy(cfg.model.lmax, "2,3");
    strcpy(cfg.model.rmax, "1");
    strcpy(cfg.model.glu, glu);
    strcpy(cfg.model.pool, pool);
    cfg.data.classes = 5;
    cfg.data.vocab = 11;
    cfg.train.threads = 2;
    return cfg;
}

/* Rows of lengths 7, 5, 3 out of 7. */
static void fill_model(rf_model *m)
{
    rf_graph *g = m->graph;
    rf_rng rng = {7};
    float *x = rf_value(g, m->x), *mask = rf_value(g, m->mask), *labels = rf_value(g, m->labels);
    for (int b = 0; b < m->batch; b++) {
        int len = m->seq_len - 2 * b;
        for (int t = 0; t < m->seq_len; t++) {
            x[b * m->seq_len + t] = t < len ? (float)rf_rng_int(&rng, 1, 10) : 0.0f;
            mask[b * m->seq_len + t] = t < len ? 1.0f : 0.0f;
        }
        labels[b] = (float)rf_rng_int(&rng, 0, 4);
    }
}


static void check_model_gradients(const char *pool, const char *glu, int offset_heads)
{
    rf_config cfg = talk_config(pool, glu, offset_heads);
    rf_status st = {0};
    rf_params *p = rf_params_new(3);
    rf_model *m = rf_model_new(&cfg, 3, 7, 0, 11, 5, p, true, &st);
    if (!tap_ok(m != NULL, "talk model (%s pool, glu %s, %d offset heads) builds", pool, glu, offset_heads)) {
        tap_diag("%s", st.msg);
        rf_params_free(p);
        return;
    }
    fill_model(m);
    rf_exec x;
    rf_exec_init(&x, m->graph, NULL, 1, 0, false);
    char what[64];
    snprintf(what, sizeof what, "talk model (%s pool, glu %s)", pool, glu);
    modelcheck_param_grads(what, p, m->graph, m->loss, &x, 1e-2f);
    /* the window offsets' gradients are small (1e-4 to 1e-2) and the loss
     * has kinks in them: a missing one must still show */
    modelcheck_zeroed_grad_fails(what, p, m->graph, m->loss, &x, 1e-2f, "layer0.talk.offsets.bias");
    rf_model_free(m);
    rf_params_free(p);
}

/* Appending padding to a sample must not change its logits. */
static void check_model_padding(void)
{
    rf_config cfg = talk_config("mean", "on", 0);
    const float tokens[5] = {3, 1, 4, 1, 5};
    modelcheck_padding("talk model", &cfg, tokens, 5, 9);
}

/* Per-layer bounds: lmax "2,3" and rmax "1" give layer l windows inside
 * [i - lmax_l, i + 1], clamped to the sample's valid length, read from the
 * layer's bounds tap. */
static void check_model_bounds_tap(void)
{
    rf_config cfg = talk_config("mean", "on", 0);
    rf_status st = {0};
    rf_params *p = rf_params_new(3);
    rf_model *m = rf_model_new(&cfg, 3, 7, 0, 11, 5, p, true, &st);
    if (!tap_ok(m != NULL, "talk model with lmax '2,3' builds")) {
        tap_diag("%s", st.msg);
        rf_params_free(p);
        return;
    }
    fill_model(m);
    const char *names[2] = {"layer0.talk.bounds", "layer1.talk.bounds"};
    rf_probe_set *ps = rf_probe_set_new(m->graph, names, 2, 1, &st);   /* sample 1: 5 valid tokens */
    if (!tap_ok(ps != NULL, "the bounds taps of both layers exist")) {
        tap_diag("%s", st.msg);
        rf_model_free(m);
        rf_params_free(p);
        return;
    }
    rf_probe_attach(m->graph, ps);
    rf_exec x;
    rf_exec_init(&x, m->graph, NULL, 1, 0, false);
    rf_graph_forward(m->graph, &x);
    const int lmax[2] = {2, 3}, H = 2, L = 5;
    bool ok = true;
    for (int l = 0; l < 2; l++) {
        const rf_probe_value *v = &ps->values[l];
        ok &= v->filled && v->shape.ndim == 2 && v->shape.dim[0] == 7 && v->shape.dim[1] == 2 * H;
        for (int i = 0; i < 7; i++)
            for (int h = 0; h < H; h++) {
                float al = v->data[i * 2 * H + h], ar = v->data[i * 2 * H + H + h];
                if (i >= L)
                    ok &= al == 0.0f && ar == 0.0f;
                else
                    ok &= al >= fmaxf(0.0f, (float)(i - lmax[l])) && al <= (float)i && ar >= (float)i &&
                          ar <= fminf((float)(L - 1), (float)(i + 1));
            }
    }
    tap_ok(ok, "layer bounds respect their own lmax (2, then 3), rmax 1 and the valid length");
    rf_probe_attach(m->graph, NULL);
    rf_probe_set_free(ps);
    rf_model_free(m);
    rf_params_free(p);
}

static void check_bad_list(const char *key, const char *value)
{
    rf_config cfg = talk_config("mean", "on", 0);
    strcpy(strcmp(key, "lmax") == 0 ? cfg.model.lmax : cfg.model.rmax, value);
    rf_status st = {0};
    rf_params *p = rf_params_new(3);
    rf_model *m = rf_model_new(&cfg, 2, 5, 0, 11, 5, p, false, &st);
    char want[32];
    snprintf(want, sizeof want, "model.%s", key);
    if (tap_ok(m == NULL && strstr(st.msg, want) != NULL, "model.%s = '%s' with 2 layers is rejected naming the key",
               key, value))
        tap_diag("%s", st.msg);
    rf_model_free(m);
    rf_params_free(p);
}

static void test_model(void)
{
    check_model_gradients("mean", "on", 0);
    check_model_gradients("cls", "off", 4);
    check_model_padding();
    check_model_bounds_tap();
    check_bad_list("lmax", "1,3,7");
    check_bad_list("rmax", "2,x");
    check_bad_list("lmax", "-1");
    check_bad_list("rmax", "");
}

int main(int argc, char **argv)
{
    /* --portable (suite `portable`): the op's forward and backward task
     * clones, with padding and the bounds tap */
    bool portable = tap_portable(argc, argv);
    test_op();
    test_bounds_tap();
    test_op_padding();
    if (!portable) {
        test_threads();
    test_whole_rows();
        test_errors();
        test_model();
    }
    return tap_done();
}
