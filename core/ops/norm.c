/* Layer normalisation over the last axis. */
#include "../op.h"

rf_id rf_layernorm(rf_graph *g, rf_id x, rf_id gamma, rf_id beta, float eps)
{
    if (!rf_graph_inputs_ok(g, &x, 1))
        return RF_NONE;
    rf_shape xs = rf_node_shape(g, x);
    char a[64], b[64], c[64];
    if (xs.ndim < 1)
        return rf_graph_fail(g, "layernorm: x must have at least one axis, got %s",
                             rf_shape_str(xs, a, sizeof a));
    if (!(eps > 0.0f))
        return rf_graph_fail(g, "layernorm: eps must be positive, got %g", (double)eps);
    rf_shape ds = rf_shape1(xs.dim[xs.ndim - 1]);
    /* inputs: x, then gamma and beta when given; ia[0], ia[1] = their input
     * slots (-1 when absent) */
    rf_id in[3] = {x};
    int n_in = 1;
    int64_t slot[2] = {-1, -1};
    const rf_id affine[2] = {gamma, beta};
    const char *what[2] = {"gamma", "beta"};
    for (int k = 0; k < 2; k++) {
        if (affine[k] == RF_NONE)
            continue;
        if (!rf_graph_inputs_ok(g, &affine[k], 1))
            return RF_NONE;
        rf_shape s = rf_node_shape(g, affine[k]);
        if (!rf_shape_equal(s, ds))
            return rf_graph_fail(g, "layernorm: %s must be %s for x %s, got %s", what[k],
                                 rf_shape_str(ds, a, sizeof a), rf_shape_str(xs, b, sizeof b),
                                 rf_shape_str(s, c, sizeof c));
        slot[k] = n_in;
        in[n_in++] = affine[k];
    }
    rf_id id = rf_graph_add_op(g, RF_OP_LAYERNORM, in, n_in, xs);
    if (id == RF_NONE)
        return RF_NONE;
    rf_node *n = rf_graph_node(g, id);
    n->ia[0] = slot[0];
    n->ia[1] = slot[1];
    n->fa[0] = eps;
    return id;
}

/* mean and rstd per row */
static size_t layernorm_aux(const rf_graph *g, const rf_node *n)
{
    (void)g;
    return 2 * (size_t)(rf_shape_numel(n->shape) / n->shape.dim[n->shape.ndim - 1]);
}

const rf_op_info rf_info_layernorm = {"layernorm", RF_BWD_READS_INPUTS, layernorm_aux, NULL, NULL};
