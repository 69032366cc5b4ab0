/* The bytes a step's ops move (core/traffic.h) against counts by hand:
 * element-wise ops with and without an input that needs a gradient, a
 * forward-only plan, and an embedding, which reads only the table rows it
 * gathers. Counts below are in floats (4 bytes each). */
#include "../core/exec.h"
#include "../core/params.h"
#include "../core/traffic.h"
#include "tap.h"

enum { R = 4, C = 8 };

/* x [R, C] (gradient), y [R, C] (none): s = sum((x + y) * x, axis 1) */
static void check_elementwise(bool training)
{
    rf_graph *g = rf_graph_new(NULL);
    rf_id x = rf_input(g, "x", rf_shape2(R, C), true), y = rf_input(g, "y", rf_shape2(R, C), false);
    rf_id s = rf_sum(g, rf_mul(g, rf_add(g, x, y), x), 1);
    rf_status st = {0};
    rf_step_bytes b;
    bool planned = rf_graph_plan(g, training ? s : RF_NONE, 1, NULL, &st);
    if (planned)
        rf_graph_step_bytes(g, &b);
    const double t = R * C;
    /* forward: add and mul read two [R, C] and write one; sum reads one, writes R */
    double add_fwd = 3 * t, mul_fwd = 3 * t, sum_fwd = t + R;
    /* backward: sum reads dS (R) and writes d(mul) (t); mul reads d(mul), both
     * inputs (it is flagged as reading them) and writes d(add) and dx; add
     * reads d(add) and writes dx only (y needs none) */
    double sum_bwd = R + t, mul_bwd = t + 2 * t + 2 * t, add_bwd = t + t;
    double want = 4 * (add_fwd + mul_fwd + sum_fwd + (training ? sum_bwd + mul_bwd + add_bwd : 0));
    tap_ok(planned && b.forward[RF_OP_ADD] == 4 * add_fwd && b.forward[RF_OP_MUL] == 4 * mul_fwd &&
               b.forward[RF_OP_SUM] == 4 * sum_fwd &&
               b.backward[RF_OP_MUL] == (training ? 4 * mul_bwd : 0) &&
               b.backward[RF_OP_ADD] == (training ? 4 * add_bwd : 0) && b.total == want,
           "element-wise, %s: %.0f bytes per step (by hand %.0f), mul backward %.0f (by hand %.0f)",
           training ? "training" : "forward only", planned ? b.total : -1.0, want,
           planned ? b.backward[RF_OP_MUL] : -1.0, training ? 4 * mul_bwd : 0);
    rf_graph_free(g);
}

/* ids [2, 5] into a table [20, 4]: the gather reads 10 ids and 10 rows of
 * 4, not the whole table; backward reads dE and the ids and the rows again
 * (the op reads its inputs) and writes 10 rows of the table's gradient. */
static void check_embedding(void)
{
    rf_params *p = rf_params_new(1);
    rf_graph *g = rf_graph_new(p);
    rf_id ids = rf_input(g, "ids", rf_shape2(2, 5), false);
    rf_id table = rf_param(g, "table", rf_shape2(20, 4), RF_INIT_NORMAL, 0.1f);
    rf_id e = rf_embedding(g, ids, table);
    rf_id s = rf_sum(g, e, 2);
    rf_status st = {0};
    rf_step_bytes b;
    bool planned = rf_graph_plan(g, s, 1, NULL, &st);
    if (planned)
        rf_graph_step_bytes(g, &b);
    double fwd = 10 + 40 + 40, bwd = 40 + (10 + 40) + 40;
    tap_ok(planned && b.forward[RF_OP_EMBEDDING] == 4 * fwd && b.backward[RF_OP_EMBEDDING] == 4 * bwd,
           "embedding: forward %.0f bytes (by hand %.0f), backward %.0f (by hand %.0f)",
           planned ? b.forward[RF_OP_EMBEDDING] : -1.0, 4 * fwd, planned ? b.backward[RF_OP_EMBEDDING] : -1.0,
           4 * bwd);
    rf_graph_free(g);
    rf_params_free(p);
}

int main(void)
{
    check_elementwise(true);
    check_elementwise(false);
    check_embedding();
    return tap_done();
}
