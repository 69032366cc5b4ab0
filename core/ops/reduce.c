/* Reductions: sum and mean over one axis or everything, masked mean over tokens. */
#include "../op.h"

static rf_id reduce(rf_graph *g, rf_op op, const char *what, rf_id x, int axis)
{
    if (!rf_graph_inputs_ok(g, &x, 1))
        return RF_NONE;
    rf_shape xs = rf_node_shape(g, x);
    char a[64];
    if (axis < -1 || axis >= xs.ndim)
        return rf_graph_fail(g, "%s: axis %d is out of range for x %s (use -1 for all)", what, axis,
                             rf_shape_str(xs, a, sizeof a));
    rf_shape out = rf_shape_scalar();
    for (int i = 0; axis >= 0 && i < xs.ndim; i++)
        if (i != axis)
            out.dim[out.ndim++] = xs.dim[i];
    rf_id id = rf_graph_add_op(g, op, &x, 1, out);
    if (id != RF_NONE)
        rf_graph_node(g, id)->ia[0] = axis;
    return id;
}

rf_id rf_sum(rf_graph *g, rf_id x, int axis) { return reduce(g, RF_OP_SUM, "sum", x, axis); }
rf_id rf_mean(rf_graph *g, rf_id x, int axis) { return reduce(g, RF_OP_MEAN, "mean", x, axis); }

rf_id rf_masked_mean(rf_graph *g, rf_id x, rf_id mask)
{
    rf_id in[2] = {x, mask};
    if (!rf_graph_inputs_ok(g, in, 2))
        return RF_NONE;
    rf_shape xs = rf_node_shape(g, x), ms = rf_node_shape(g, mask);
    char a[64], b[64];
    if (xs.ndim != 3 || ms.ndim != 2 || ms.dim[0] != xs.dim[0] || ms.dim[1] != xs.dim[1])
        return rf_graph_fail(g, "masked_mean: needs x [B, N, D] and mask [B, N], got x %s and mask %s",
                             rf_shape_str(xs, a, sizeof a), rf_shape_str(ms, b, sizeof b));
    return rf_graph_add_op(g, RF_OP_MASKED_MEAN, in, 2, rf_shape2(xs.dim[0], xs.dim[2]));
}

/* the token weights mask / count [B, N]: backward then reads no input */
static size_t masked_mean_aux(const rf_graph *g, const rf_node *n)
{
    return (size_t)rf_shape_numel(rf_graph_cnode(g, n->in[1])->shape);
}

const rf_op_info rf_info_sum = {"sum", 0, NULL, NULL, NULL};
const rf_op_info rf_info_mean = {"mean", 0, NULL, NULL, NULL};
const rf_op_info rf_info_masked_mean = {"masked_mean", 0, masked_mean_aux, NULL, NULL};
