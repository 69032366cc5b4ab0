/* Ops that work on a batch's rows as wholes: rf_sort_rows through the op
 * harness (forward against a double reference, backward against finite
 * differences), and row scopes (graph.h, rf_graph_row_scope): a scoped
 * linear against a double reference, and a scope refusing an op that
 * mixes rows. */
#include <math.h>
#include <string.h>

#include "../core/exec.h"
#include "../core/flops.h"
#include "../core/params.h"
#include "../core/rng.h"
#include "opcheck.h"
#include "tap.h"

/* ---- sort_rows: rows by their mask's valid count, most first ---- */

typedef struct {
    rf_shape x, mask;
    bool inverse;
} sort_ctx;

static rf_id build_sort_rows(rf_graph *g, const rf_id *in, const void *ctx)
{
    const sort_ctx *c = ctx;
    return rf_sort_rows(g, in[0], in[1], c->inverse);
}

/* The order by a selection, independent of the kernel's insertion sort:
 * position i holds the row with the i-th most valid entries, ties in row
 * order (rank = rows with more, plus equal rows before it). */
static void ref_sort_rows(const double *const *in, double *out, const void *ctx)
{
    const sort_ctx *c = ctx;
    int64_t rows = c->x.dim[0], width = rf_shape_numel(c->x) / rows, m = c->mask.dim[1];
    double count[64];
    for (int64_t r = 0; r < rows; r++) {
        count[r] = 0;
        for (int64_t j = 0; j < m; j++)
            count[r] += in[1][r * m + j] != 0;
    }
    for (int64_t r = 0; r < rows; r++) {
        int64_t rank = 0;
        for (int64_t q = 0; q < rows; q++)
            rank += count[q] > count[r] || (count[q] == count[r] && q < r);
        int64_t to = c->inverse ? r : rank, from = c->inverse ? rank : r;
        for (int64_t e = 0; e < width; e++)
            out[to * width + e] = in[0][from * width + e];
    }
}

static void test_sort_rows(void)
{
    static const sort_ctx forward = {{3, {9, 4, 3, 1}}, {2, {9, 6, 1, 1}}, false};
    static const sort_ctx inverse = {{2, {7, 5, 1, 1}}, {2, {7, 3, 1, 1}}, true};
    opcheck_case a = {"sort_rows [9,4,3] by mask [9,6]", 2, {forward.x, forward.mask}, {OPCHECK_NORMAL, OPCHECK_MASK},
                      {0}, build_sort_rows, ref_sort_rows, &forward, .seed = 121};
    opcheck_run(&a);
    opcheck_case b = {"sort_rows inverse [7,5] by mask [7,3] (param)", 2, {inverse.x, inverse.mask},
                      {OPCHECK_PARAM, OPCHECK_MASK}, {0}, build_sort_rows, ref_sort_rows, &inverse, .seed = 122};
    opcheck_run(&b);
}

/* ---- row scopes (graph.h, rf_graph_row_scope) ---- */

/* y = x W in a scope by rows_by = {1, 1, 0, 1, 0, 0}: R = 4 (up to the last
 * nonzero row), so rows 0-3 are x W (row 2 too: a scope counts rows, it does
 * not select them), rows 4-5 are zero; backward gives x's gradient zero
 * there and W's gradient from rows 0-3 alone, each against a plain double
 * reference. */
static void test_row_scope(void)
{
    enum { B = 6, K = 5, N = 3, R = 4 };
    rf_params *p = rf_params_new(3);
    rf_graph *g = rf_graph_new(p);
    rf_id by = rf_input(g, "by", rf_shape3(B, 1, 1), false);
    rf_id x = rf_input(g, "x", rf_shape2(B, K), true);
    rf_id w = rf_param(g, "w", rf_shape2(K, N), RF_INIT_NORMAL, 1.0f);
    rf_graph_row_scope(g, by);
    rf_id y = rf_linear(g, x, w, RF_NONE);
    rf_graph_row_scope(g, RF_NONE);
    rf_status st = {0};
    rf_graph_keep(g, y);
    bool ok = rf_graph_ok(g) && rf_params_allocate(p, &st) && rf_graph_prepare(g, y, 1, NULL, &st);
    if (!tap_ok(ok, "a scoped linear builds (%s)", ok ? "" : st.failed ? st.msg : rf_graph_error(g))) {
        rf_graph_free(g);
        rf_params_free(p);
        return;
    }
    static const float rows_by[B] = {1, 1, 0, 1, 0, 0};
    memcpy(rf_value(g, by), rows_by, sizeof rows_by);
    rf_rng rng = {17};
    float *xv = rf_value(g, x), *wv = rf_value(g, w), dy[B * N];
    for (int i = 0; i < B * K; i++)
        xv[i] = (float)rf_rng_normal(&rng);
    for (int i = 0; i < B * N; i++)
        dy[i] = (float)rf_rng_normal(&rng);
    rf_exec ex;
    rf_exec_init(&ex, g, NULL, 1, 0, true);
    rf_graph_forward(g, &ex);
    rf_params_zero_grads(p);
    rf_graph_backward(g, &ex, dy);
    double err_y = 0, err_dx = 0, err_dw = 0;
    const float *yv = rf_value(g, y), *dx = rf_grad(g, x), *dw = rf_grad(g, w);
    for (int b = 0; b < B; b++)
        for (int j = 0; j < N; j++) {
            double want = 0;
            for (int k = 0; k < K; k++)
                want += b < R ? (double)xv[b * K + k] * wv[k * N + j] : 0;
            err_y = fmax(err_y, fabs(yv[b * N + j] - want));
        }
    for (int b = 0; b < B; b++)
        for (int k = 0; k < K; k++) {
            double want = 0;
            for (int j = 0; j < N; j++)
                want += b < R ? (double)dy[b * N + j] * wv[k * N + j] : 0;
            err_dx = fmax(err_dx, fabs(dx[b * K + k] - want));
        }
    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++) {
            double want = 0;
            for (int b = 0; b < R; b++)
                want += (double)xv[b * K + k] * dy[b * N + j];
            err_dw = fmax(err_dw, fabs(dw[k * N + j] - want));
        }
    tap_ok(err_y < 1e-5 && err_dx < 1e-5 && err_dw < 1e-5,
           "a scoped linear computes rows below the last active one, zeros after, and takes gradients from "
           "those rows alone (errors %.2g, %.2g, %.2g)", err_y, err_dx, err_dw);
    tap_ok(rf_graph_node(g, y)->shape.dim[0] == B && rf_graph_node(g, x)->shape.dim[0] == B,
           "the shapes are whole again after the passes");
    /* the product's FLOPs: 2 B K N planned forward, 2 R K N run (and as much
     * again backward for each of x's and W's gradients) */
    rf_step_flops planned, ran;
    rf_graph_step_flops(g, 0, &planned);
    rf_graph_step_flops_ran(g, 0, &ran);
    tap_ok(planned.forward[RF_OP_LINEAR] == 2.0 * B * K * N && ran.forward[RF_OP_LINEAR] == 2.0 * R * K * N &&
               ran.backward[RF_OP_LINEAR] == planned.backward[RF_OP_LINEAR] * R / B,
           "FLOPs: %g planned, %g run forward (%d of %d rows); backward %g of %g", planned.forward[RF_OP_LINEAR],
           ran.forward[RF_OP_LINEAR], R, B, ran.backward[RF_OP_LINEAR], planned.backward[RF_OP_LINEAR]);
    rf_graph_free(g);
    rf_params_free(p);

    /* an op that mixes rows is refused when the scope closes */
    g = rf_graph_new(NULL);
    by = rf_input(g, "by", rf_shape2(B, 1), false);
    x = rf_input(g, "x", rf_shape2(B, K), true);
    rf_graph_row_scope(g, by);
    rf_sum(g, x, 0);
    rf_graph_row_scope(g, RF_NONE);
    tap_ok(!rf_graph_ok(g) && strstr(rf_graph_error(g), "row scope: sum") != NULL,
           "a sum over the batch in a row scope is refused (%s)", rf_graph_error(g));
    rf_graph_free(g);
}

int main(void)
{
    test_sort_rows();
    test_row_scope();
    return tap_done();
}
