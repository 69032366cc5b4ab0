/* Fused multi-head attention: the constructor and op info.
 * Kernels: core/cpu/attention.c. */
#include "../op.h"

/* Forward keeps each query row's log-sum-exp of its scores, [B, heads, N]:
 * backward recomputes the probabilities from it block by block, so nothing
 * N x M is planned (the CUDA kernels keep the same). */
static size_t attention_aux(const rf_graph *g, const rf_node *n)
{
    (void)g;
    return (size_t)(n->shape.dim[0] * n->ia[0] * n->shape.dim[1]);
}

/* Per thread: a block of scores or probabilities and one of their
 * gradients [qb, kb] (the node's tile, core/tiles.h; the largest candidate's
 * on a backend that chooses none), per query of the block its running max and sum
 * (forward), and per query of a head rowsum(dO * O) (backward). */
static size_t attention_scratch(const rf_graph *g, const rf_node *n, int threads)
{
    (void)g;
    return (size_t)threads * rf_attn_thread_floats(n->tile, n->shape.dim[1]);
}

/* The probabilities [B, heads, N, M] that the attention-map taps view,
 * computed for the probed sample only while a probe is attached. */
static size_t attention_probe_aux(const rf_graph *g, const rf_node *n)
{
    rf_shape k = rf_node_shape(g, n->in[1]);
    return (size_t)(n->shape.dim[0] * n->ia[0] * n->shape.dim[1] * k.dim[1]);
}

/* Backward reads q, k, v, the row statistics in aux and its own output
 * (rowsum(dO * O)). */
const rf_op_info rf_info_attention = {"attention", RF_BWD_READS_INPUTS | RF_BWD_READS_OUTPUT, attention_aux,
                                      attention_scratch, attention_probe_aux};

bool rf_qkv_shapes_ok(rf_graph *g, const char *op, rf_id q, rf_id k, rf_id v, rf_id key_mask, int heads)
{
    rf_shape sq = rf_node_shape(g, q), sk = rf_node_shape(g, k), sv = rf_node_shape(g, v);
    char a[64], b[64], c[64];
    if (sq.ndim != 3 || sk.ndim != 3 || sv.ndim != 3) {
        rf_graph_fail(g, "%s: q %s, k %s and v %s must all be [B, len, D]", op, rf_shape_str(sq, a, sizeof a),
                      rf_shape_str(sk, b, sizeof b), rf_shape_str(sv, c, sizeof c));
        return false;
    }
    if (!rf_shape_equal(sk, sv) || sq.dim[0] != sk.dim[0] || sq.dim[2] != sk.dim[2]) {
        rf_graph_fail(g, "%s: q %s, k %s, v %s do not fit q [B, N, D], k = v [B, M, D]", op,
                      rf_shape_str(sq, a, sizeof a), rf_shape_str(sk, b, sizeof b), rf_shape_str(sv, c, sizeof c));
        return false;
    }
    if (heads < 1 || sq.dim[2] % heads != 0) {
        rf_graph_fail(g, "%s: %d heads do not divide the model width of q %s", op, heads,
                      rf_shape_str(sq, a, sizeof a));
        return false;
    }
    if (key_mask == RF_NONE)
        return true;
    rf_shape sm = rf_node_shape(g, key_mask);
    if (sm.ndim != 2 || sm.dim[0] != sk.dim[0] || sm.dim[1] != sk.dim[1]) {
        rf_graph_fail(g, "%s: key mask %s must be [B, M] = [%lld, %lld] for k %s", op, rf_shape_str(sm, a, sizeof a),
                      (long long)sk.dim[0], (long long)sk.dim[1], rf_shape_str(sk, b, sizeof b));
        return false;
    }
    if (rf_graph_cnode(g, key_mask)->needs_grad) {
        rf_graph_fail(g, "%s: the key mask must not need a gradient", op);
        return false;
    }
    return true;
}

rf_id rf_attention(rf_graph *g, rf_id q, rf_id k, rf_id v, rf_id key_mask, int heads, float scale, float dropout)
{
    if (!(dropout >= 0.0f && dropout < 1.0f))
        return rf_graph_fail(g, "attention: dropout %g is outside [0, 1)", (double)dropout);
    rf_id in[4] = {q, k, v, key_mask};
    int n_in = key_mask == RF_NONE ? 3 : 4;
    if (!rf_graph_inputs_ok(g, in, n_in) || !rf_qkv_shapes_ok(g, "attention", q, k, v, key_mask, heads))
        return RF_NONE;
    rf_id id = rf_graph_add_op(g, RF_OP_ATTENTION, in, n_in, rf_node_shape(g, q));
    if (id == RF_NONE)
        return RF_NONE;
    rf_node *n = rf_graph_node(g, id);
    n->ia[0] = heads;
    n->fa[0] = scale;
    n->fa[1] = dropout;
    return id;
}
