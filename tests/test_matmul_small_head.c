/* Batched matmuls with a side of 8, which core/cpu/linalg.c runs on the
 * small-head kernels (core/cpu/small_head.h) in f32: LS's landmark products
 * K̄_i = P_i^T K_i and their gradients, at shapes that reach every block
 * edge (rows past a block of 16, columns past a block of 256). The output
 * and both gradients against a double reference, within the bound of
 * their f32 sums (tests/tolerance.h); gradients added onto what a second
 * matmul of the same inputs left, so a kernel that overwrites instead of
 * adding shows; and the same bits on 1 and 2 threads. The rules that tie
 * the gradients to finite differences are test_ops_basic's (its 9-group
 * matmuls run these kernels too, at smaller sizes). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/exec.h"
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

typedef struct {
    float *out, *da, *db;
} result;

/* out = op(a) op(b) + op(a) op(b) (two nodes, so the second backward adds
 * onto the first's gradients), forward and backward with seed dout, on
 * `threads` threads; twice, so the second pass's products write over what
 * the first left in the arena. */
static result run(const form *f, const float *a, const float *b, const float *dout, int threads)
{
    int64_t na = (int64_t)GROUPS * f->m * f->k, nb = (int64_t)GROUPS * f->k * f->n, no = (int64_t)GROUPS * f->m * f->n;
    rf_params *p = rf_params_new(2);
    rf_graph *g = rf_graph_new(p);
    rf_id ia = rf_input(g, "a", f->ta ? rf_shape3(GROUPS, f->k, f->m) : rf_shape3(GROUPS, f->m, f->k), true);
    rf_id ib = rf_input(g, "b", f->tb ? rf_shape3(GROUPS, f->n, f->k) : rf_shape3(GROUPS, f->k, f->n), true);
    rf_id out = rf_add(g, rf_matmul(g, ia, ib, f->ta, f->tb), rf_matmul(g, ia, ib, f->ta, f->tb));
    rf_status st = {0};
    result r = {0};
    if (!rf_graph_prepare(g, out, 2, NULL, &st)) {
        tap_diag("%s", st.msg);
        return r;
    }
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
    result r = run(f, a, b, dout, 2), one = run(f, a, b, dout, 1);
    if (r.out == NULL || one.out == NULL) {
        tap_ok(false, "%s: the graph prepares", f->name);
        return;
    }
    double w_out = 0, w_da = 0, w_db = 0;
    for (int g = 0; g < GROUPS; g++) {
        for (int i = 0; i < f->m; i++)
            for (int j = 0; j < f->n; j++) {
                double s = 0, mag = 0;
                for (int p = 0; p < f->k; p++) {
                    s += at_a(f, a, g, i, p) * at_b(f, b, g, p, j);
                    mag += fabs(at_a(f, a, g, i, p) * at_b(f, b, g, p, j));
                }
                update(&w_out, r.out[((int64_t)g * f->m + i) * f->n + j], s, f->k, mag);
            }
        /* d op(a)_ip = Σ_j dO_ij op(b)_pj;  d op(b)_pj = Σ_i op(a)_ip dO_ij */
        for (int i = 0; i < f->m; i++)
            for (int p = 0; p < f->k; p++) {
                double s = 0, mag = 0;
                for (int j = 0; j < f->n; j++) {
                    double t = dout[((int64_t)g * f->m + i) * f->n + j] * at_b(f, b, g, p, j);
                    s += t;
                    mag += fabs(t);
                }
                update(&w_da, *grad_slot(f, r.da, g, i, p), s, f->n, mag);
            }
        for (int p = 0; p < f->k; p++)
            for (int j = 0; j < f->n; j++) {
                double s = 0, mag = 0;
                for (int i = 0; i < f->m; i++) {
                    double t = at_a(f, a, g, i, p) * dout[((int64_t)g * f->m + i) * f->n + j];
                    s += t;
                    mag += fabs(t);
                }
                update(&w_db, *grad_slot_b(f, r.db, g, p, j), s, f->m, mag);
            }
    }
    if (!tap_ok(w_out <= 1, "%s: output within its bound", f->name))
        tap_diag("worst error %.3g of its bound", w_out);
    if (!tap_ok(w_da <= 1, "%s: gradient of a within its bound", f->name))
        tap_diag("worst error %.3g of its bound", w_da);
    if (!tap_ok(w_db <= 1, "%s: gradient of b within its bound", f->name))
        tap_diag("worst error %.3g of its bound", w_db);
    tap_ok(memcmp(r.out, one.out, (size_t)no * sizeof *r.out) == 0 &&
               memcmp(r.da, one.da, (size_t)na * sizeof *r.da) == 0 &&
               memcmp(r.db, one.db, (size_t)nb * sizeof *r.db) == 0,
           "%s: the same bits on 1 and 2 threads", f->name);
    free_result(&r);
    free_result(&one);
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
