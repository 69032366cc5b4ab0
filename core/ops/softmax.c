/* Softmax (with an optional broadcast mask) and log-softmax, over the last axis. */
#include "../op.h"

/* NumPy right-aligned broadcasting of `mask` onto `x`, without growing x. */
static bool mask_broadcasts(rf_shape mask, rf_shape x)
{
    if (mask.ndim > x.ndim)
        return false;
    for (int i = 1; i <= mask.ndim; i++) {
        int64_t m = mask.dim[mask.ndim - i];
        if (m != 1 && m != x.dim[x.ndim - i])
            return false;
    }
    return true;
}

rf_id rf_softmax(rf_graph *g, rf_id x, rf_id mask)
{
    rf_id in[2] = {x, mask};
    int n_in = mask == RF_NONE ? 1 : 2;
    if (!rf_graph_inputs_ok(g, in, n_in))
        return RF_NONE;
    rf_shape xs = rf_node_shape(g, x);
    char a[64], b[64];
    if (xs.ndim < 1)
        return rf_graph_fail(g, "softmax: x must have at least one axis, got %s",
                             rf_shape_str(xs, a, sizeof a));
    if (mask != RF_NONE && !mask_broadcasts(rf_node_shape(g, mask), xs))
        return rf_graph_fail(g, "softmax: mask %s does not broadcast to x %s",
                             rf_shape_str(rf_node_shape(g, mask), a, sizeof a),
                             rf_shape_str(xs, b, sizeof b));
    return rf_graph_add_op(g, RF_OP_SOFTMAX, in, n_in, xs);
}

rf_id rf_log_softmax(rf_graph *g, rf_id x)
{
    if (!rf_graph_inputs_ok(g, &x, 1))
        return RF_NONE;
    rf_shape xs = rf_node_shape(g, x);
    char a[64];
    if (xs.ndim < 1)
        return rf_graph_fail(g, "log_softmax: x must have at least one axis, got %s",
                             rf_shape_str(xs, a, sizeof a));
    return rf_graph_add_op(g, RF_OP_LOG_SOFTMAX, &x, 1, xs);
}

/* Both backward passes need only the output (the mask's zeros are in it). */
const rf_op_info rf_info_softmax = {"softmax", RF_BWD_READS_OUTPUT, NULL, NULL, NULL};
const rf_op_info rf_info_log_softmax = {"log_softmax", RF_BWD_READS_OUTPUT, NULL, NULL, NULL};
