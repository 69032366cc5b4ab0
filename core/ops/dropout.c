/* Inverted dropout. */
#include "../op.h"

rf_id rf_dropout(rf_graph *g, rf_id x, float p)
{
    if (!rf_graph_inputs_ok(g, &x, 1))
        return RF_NONE;
    if (!(p >= 0.0f && p < 1.0f))
        return rf_graph_fail(g, "dropout: p must be in [0, 1), got %g", (double)p);
    rf_id id = rf_graph_add_op(g, RF_OP_DROPOUT, &x, 1, rf_node_shape(g, x));
    if (id != RF_NONE)
        rf_graph_node(g, id)->fa[0] = p;
    return id;
}

/* backward recomputes the keep mask from (seed, step, node, i): no aux */
const rf_op_info rf_info_dropout = {"dropout", 0, NULL, NULL, NULL};
