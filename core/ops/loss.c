/* Losses: softmax cross-entropy and binary cross-entropy on logits. */
#include "../op.h"

rf_id rf_cross_entropy(rf_graph *g, rf_id logits, rf_id labels)
{
    rf_id in[2] = {logits, labels};
    if (!rf_graph_inputs_ok(g, in, 2))
        return RF_NONE;
    rf_shape ls = rf_node_shape(g, logits), ys = rf_node_shape(g, labels);
    char a[64], b[64];
    if (ls.ndim != 2 || ys.ndim != 1 || ys.dim[0] != ls.dim[0])
        return rf_graph_fail(g, "cross_entropy: needs logits [B, C] and labels [B], got logits %s and "
                             "labels %s", rf_shape_str(ls, a, sizeof a), rf_shape_str(ys, b, sizeof b));
    return rf_graph_add_op(g, RF_OP_CROSS_ENTROPY, in, 2, rf_shape_scalar());
}

rf_id rf_bce_logits(rf_graph *g, rf_id logits, rf_id targets)
{
    rf_id in[2] = {logits, targets};
    if (!rf_graph_inputs_ok(g, in, 2))
        return RF_NONE;
    rf_shape ls = rf_node_shape(g, logits), ts = rf_node_shape(g, targets);
    char a[64], b[64];
    if (!rf_shape_equal(ls, ts))
        return rf_graph_fail(g, "bce_logits: logits %s and targets %s must have the same shape",
                             rf_shape_str(ls, a, sizeof a), rf_shape_str(ts, b, sizeof b));
    return rf_graph_add_op(g, RF_OP_BCE_LOGITS, in, 2, rf_shape_scalar());
}

/* The probabilities [B, C], then the labels [B]: backward reads no input,
 * so the logits buffer is free after forward. */
static size_t cross_entropy_aux(const rf_graph *g, const rf_node *n)
{
    rf_shape ls = rf_graph_cnode(g, n->in[0])->shape;
    return (size_t)(ls.dim[0] * ls.dim[1] + ls.dim[0]);
}

/* one loss per row, summed in order afterwards */
static size_t cross_entropy_scratch(const rf_graph *g, const rf_node *n, int threads)
{
    (void)threads;
    return (size_t)rf_graph_cnode(g, n->in[0])->shape.dim[0];
}

const rf_op_info rf_info_cross_entropy = {"cross_entropy", 0, cross_entropy_aux, cross_entropy_scratch, NULL};
const rf_op_info rf_info_bce_logits = {"bce_logits", RF_BWD_READS_INPUTS, NULL, NULL, NULL};
