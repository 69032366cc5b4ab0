/* Batched matmuls with a side of 8, which core/cpu/linalg.c runs on the
 * small-head kernels (core/cpu/small_head.h): LS's landmark products K̄_i =
 * P_i^T K_i and their gradients, at shapes that reach every block edge
 * (rows past a block of 16, columns past a block of 256). The output and
 * both gradients against a double reference, within the bound of their f32
 * sums (tests/tolerance.h); gradients added onto what a second matmul of
 * the same inputs left, so a kernel that overwrites instead of adding
 * shows; and the same bits on 1 and 2 threads. The rules that tie the
 * gradients to finite differences are test_ops_products's (its 9-group
 * matmuls run these kernels too, at smaller sizes).
 *
 * With train.precision = bf16 (where the CPU has it) these products stay on
 * oneDNN's bf16 products, which round every operand to bf16 (the small-head
 * kernels fed rounded operands were no faster there): the reference then
 * multiplies the rounded operands (the gradient dO too) within the same
 * bound, the result differs from the f32 one, and operands stored in bf16
 * (core/bf16_storage.h: a ReLU of positive inputs writes them) give the
 * same bits as operands rounded on the way in. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/bf16_storage.h"
#include "../core/exec.h"
#include "../core/gemm.h"
#include "../core/gemm_bf16.h"
#include "../core/graph.h"
#include "../core/params.h"
#include "../core/pool.h"
#include "tap.h"
#include "tolerance.h"

enum { GROUPS = 9 };

/* One form: a [G, ar, ac], b [G, br, bc], out = op(a) op(b) [G, m, n]. */
typedef struct {
    const char *name;
    bool ta, tb;
    int m, n, k;
} form;

static const form forms[] = {
    {"a b with n = 8 (K̄ = P^T K)", false, false, 35, 8, 300},
    {"a b^T with k = 8 (dP = dK̄ K^T)", false, true, 19, 530, 8},
    {"a^T b with n = 8 (dK = P dK̄)", true, false, 300, 8, 35},
};

static uint64_t state = 0x9e3779b97f4a7c15u;

static float uniform(void)
{
    state = state * 6364136223846793005u + 1442695040888963407u;
    return (float)(state >> 40) * 0x1p-23f - 1.0f;
}

/* x rounded to bf16, nearest even (finite x). */
static double rounded(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    bits = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
    float y;
    memcpy(&y, &bits, sizeof y);
    return y;
}

/* How a run computes: f32, or bf16 with values stored in bf16 or not. */
typedef enum { F32, BF16_ROUNDED, BF16_STORED } mode;

typedef struct {
    float *out, *da, *db;
} result;

/* out = op(a') op(b') + op(a') op(b') (two nodes, so the second backward
 * adds onto the first's gradients), a' = ReLU(a) and b' = ReLU(b) in bf16
 * (the inputs are positive there, so a' = a), a' = a in f32; forward and
 * backward with seed dout, on `threads` threads; twice, so the second
 * pass's products write over what the first left in the arena. */
static result run(const form *f, const float *a, const float *b, const float *dout, int threads, mode how)
{
    int64_t na = (int64_t)GROUPS * f->m * f->k, nb = (int64_t)GROUPS * f->k * f->n, no = (int64_t)GROUPS * f->m * f->n;
    rf_params *p = rf_params_new(2);
    rf_graph *g = rf_graph_new(p);
    rf_id ia = rf_input(g, "a", f->ta ? rf_shape3(GROUPS, f->k, f->m) : rf_shape3(GROUPS, f->m, f->k), true);
    rf_id ib = rf_input(g, "b", f->tb ? rf_shape3(GROUPS, f->n, f->k) : rf_shape3(GROUPS, f->k, f->n), true);
    rf_id xa = how == F32 ? ia : rf_relu(g, ia), xb = how == F32 ? ib : rf_relu(g, ib);
    rf_id out = rf_add(g, rf_matmul(g, xa, xb, f->ta, f->tb), rf_matmul(g, xa, xb, f->ta, f->tb));
    rf_gemm_set_precision(how == F32 ? "f32" : "bf16", NULL);
    rf_graph_set_bf16_storage(g, how == BF16_STORED);
    rf_status st = {0};
    result r = {0};
    if (!rf_graph_prepare(g, out, 2, NULL, &st)) {
        tap_diag("%s", st.msg);
        return r;
    }
    if (how == BF16_STORED)
        tap_ok(rf_graph_bf16_nodes(g) == 2, "%s: the two ReLUs' values are stored in bf16 (%d values)", f->name,
               rf_graph_bf16_nodes(g));
    memcpy(rf_value(g, ia), a, (size_t)na * sizeof *a);
    memcpy(rf_value(g, ib), b, (size_t)nb * sizeof *b);
    rf_pool *pool = rf_pool_new(threads);
    rf_exec ex;
    rf_exec_init(&ex, g, pool, 1, 1, true);
    r.out = malloc((size_t)no * sizeof *r.out);
    r.da = malloc((size_t)na * sizeof *r.da);
    r.db = malloc((size_t)nb * sizeof *r.db);
    for (int pass = 0; pass < 2; pass++) {
        rf_graph_forward(g, &ex);
        memcpy(r.out, rf_value(g, out), (size_t)no * sizeof *r.out);   /* the backward may reuse its memory */
        rf_graph_backward(g, &ex, dout);
    }
    memcpy(r.da, rf_grad(g, ia), (size_t)na * sizeof *r.da);
    memcpy(r.db, rf_grad(g, ib), (size_t)nb * sizeof *r.db);
    rf_pool_free(pool);
    rf_graph_free(g);
    rf_params_free(p);
    rf_gemm_set_precision("f32", NULL);
    return r;
}

static void free_result(result *r)
{
    free(r->out);
    free(r->da);
    free(r->db);
}

/* Element (i, p) of op(a) and (p, j) of op(b) in group g. */
static double at_a(const form *f, const float *a, int g, int i, int p)
{
    return f->ta ? a[((int64_t)g * f->k + p) * f->m + i] : a[((int64_t)g * f->m + i) * f->k + p];
}

static double at_b(const form *f, const float *b, int g, int p, int j)
{
    return f->tb ? b[((int64_t)g * f->n + j) * f->k + p] : b[((int64_t)g * f->k + p) * f->n + j];
}

static float *grad_slot(const form *f, float *da, int g, int i, int p)
{
    return f->ta ? &da[((int64_t)g * f->k + p) * f->m + i] : &da[((int64_t)g * f->m + i) * f->k + p];
}

static float *grad_slot_b(const form *f, float *db, int g, int p, int j)
{
    return f->tb ? &db[((int64_t)g * f->n + j) * f->k + p] : &db[((int64_t)g * f->k + p) * f->n + j];
}

/* The worst |got - exact| / bound of a sum of `terms` products (twice:
 * two nodes, summed), its bound tol_sum of the terms plus the addition. */
static void update(double *worst, float got, double exact, int terms, double mag)
{
    double bound = 2 * tol_sum(terms, mag) + TOL_CHAIN * TOL_U * 2 * mag + 1e-30;
    double e = fabs(got - 2 * exact) / bound;
    *worst = isnan(e) ? INFINITY : fmax(*worst, e);
}

static bool same(const result *x, const result *y, const form *f)
{
    int64_t na = (int64_t)GROUPS * f->m * f->k, nb = (int64_t)GROUPS * f->k * f->n, no = (int64_t)GROUPS * f->m * f->n;
    return memcmp(x->out, y->out, (size_t)no * sizeof *x->out) == 0 &&
           memcmp(x->da, y->da, (size_t)na * sizeof *x->da) == 0 &&
           memcmp(x->db, y->db, (size_t)nb * sizeof *x->db) == 0;
}

/* v(x): the value a product multiplies, x or (bf16) x rounded. */
static double v(float x, bool bf16)
{
    return bf16 ? rounded(x) : x;
}

/* r's output and gradients against the double reference of the operands
 * as the product multiplies them. */
static void check_reference(const form *f, const float *a, const float *b, const float *dout, const result *r,
                            bool bf16, const char *how)
{
    double w_out = 0, w_da = 0, w_db = 0;
    for (int g = 0; g < GROUPS; g++) {
        for (int i = 0; i < f->m; i++)
            for (int j = 0; j < f->n; j++) {
                double s = 0, mag = 0;
                for (int p = 0; p < f->k; p++) {
                    double t = v(at_a(f, a, g, i, p), bf16) * v(at_b(f, b, g, p, j), bf16);
                    s += t;
                    mag += fabs(t);
                }
                update(&w_out, r->out[((int64_t)g * f->m + i) * f->n + j], s, f->k, mag);
            }
        /* d op(a)_ip = Σ_j dO_ij op(b)_pj;  d op(b)_pj = Σ_i op(a)_ip dO_ij */
        for (int i = 0; i < f->m; i++)
            for (int p = 0; p < f->k; p++) {
                double s = 0, mag = 0;
                for (int j = 0; j < f->n; j++) {
                    double t = v(dout[((int64_t)g * f->m + i) * f->n + j], bf16) * v(at_b(f, b, g, p, j), bf16);
                    s += t;
                    mag += fabs(t);
                }
                update(&w_da, *grad_slot(f, r->da, g, i, p), s, f->n, mag);
            }
        for (int p = 0; p < f->k; p++)
            for (int j = 0; j < f->n; j++) {
                double s = 0, mag = 0;
                for (int i = 0; i < f->m; i++) {
                    double t = v(at_a(f, a, g, i, p), bf16) * v(dout[((int64_t)g * f->m + i) * f->n + j], bf16);
                    s += t;
                    mag += fabs(t);
                }
                update(&w_db, *grad_slot_b(f, r->db, g, p, j), s, f->m, mag);
            }
    }
    if (!tap_ok(w_out <= 1, "%s, %s: output within its bound", f->name, how))
        tap_diag("worst error %.3g of its bound", w_out);
    if (!tap_ok(w_da <= 1, "%s, %s: gradient of a within its bound", f->name, how))
        tap_diag("worst error %.3g of its bound", w_da);
    if (!tap_ok(w_db <= 1, "%s, %s: gradient of b within its bound", f->name, how))
        tap_diag("worst error %.3g of its bound", w_db);
}

static void check_form(const form *f)
{
    int64_t na = (int64_t)GROUPS * f->m * f->k, nb = (int64_t)GROUPS * f->k * f->n, no = (int64_t)GROUPS * f->m * f->n;
    float *a = malloc((size_t)na * sizeof *a), *b = malloc((size_t)nb * sizeof *b);
    float *dout = malloc((size_t)no * sizeof *dout);
    for (int64_t i = 0; i < na; i++)
        a[i] = uniform();
    for (int64_t i = 0; i < nb; i++)
        b[i] = uniform();
    for (int64_t i = 0; i < no; i++)
        dout[i] = uniform();
    result r = run(f, a, b, dout, 2, F32), one = run(f, a, b, dout, 1, F32);
    if (tap_ok(r.out != NULL && one.out != NULL, "%s: the graph prepares", f->name)) {
        check_reference(f, a, b, dout, &r, false, "f32");
        tap_ok(same(&r, &one, f), "%s: the same bits on 1 and 2 threads", f->name);
    }
    free_result(&r);
    free_result(&one);
    if (!rf_bf16_supported()) {
        tap_skip("%s: in bf16: this CPU has no bf16", f->name);
    } else {
        for (int64_t i = 0; i < na; i++)   /* positive, so the ReLUs pass them on */
            a[i] = fabsf(a[i]) + 0.05f;
        for (int64_t i = 0; i < nb; i++)
            b[i] = fabsf(b[i]) + 0.05f;
        result f32 = run(f, a, b, dout, 2, F32), rnd = run(f, a, b, dout, 2, BF16_ROUNDED);
        result stored = run(f, a, b, dout, 2, BF16_STORED);
        if (tap_ok(f32.out != NULL && rnd.out != NULL && stored.out != NULL, "%s: the bf16 graphs prepare", f->name)) {
            check_reference(f, a, b, dout, &rnd, true, "bf16");
            tap_ok(memcmp(f32.out, rnd.out, (size_t)no * sizeof *rnd.out) != 0, "%s: bf16's output is not f32's",
                   f->name);
            tap_ok(same(&rnd, &stored, f), "%s: operands stored in bf16 give the bits of operands rounded on the way in",
                   f->name);
        }
        free_result(&f32);
        free_result(&rnd);
        free_result(&stored);
    }
    free(a);
    free(b);
    free(dout);
}

int main(void)
{
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        check_form(&forms[i]);
    return tap_done();
}
