/* Embedding lookup: the constructor and op info. Kernels: core/cpu/embedding.c. */
#include "../op.h"

/* The backward reads the ids to know which table rows to scatter into. */
const rf_op_info rf_info_embedding = {"embedding", RF_BWD_READS_INPUTS, NULL, NULL, NULL};

rf_id rf_embedding(rf_graph *g, rf_id ids, rf_id table)
{
    rf_id in[2] = {ids, table};
    if (!rf_graph_inputs_ok(g, in, 2))
        return RF_NONE;
    rf_shape si = rf_node_shape(g, ids), st = rf_node_shape(g, table);
    char a[64], b[64];
    if (st.ndim != 2)
        return rf_graph_fail(g, "embedding: table must be [V, D], got %s", rf_shape_str(st, b, sizeof b));
    if (si.ndim + 1 > RF_MAX_DIMS)
        return rf_graph_fail(g, "embedding: ids %s have too many dims (at most %d)",
                             rf_shape_str(si, a, sizeof a), RF_MAX_DIMS - 1);
    if (rf_graph_cnode(g, ids)->needs_grad)
        return rf_graph_fail(g, "embedding: ids %s must not need a gradient",
                             rf_shape_str(si, a, sizeof a));
    rf_shape out = si;
    out.dim[out.ndim++] = st.dim[1];
    return rf_graph_add_op(g, RF_OP_EMBEDDING, in, 2, out);
}
