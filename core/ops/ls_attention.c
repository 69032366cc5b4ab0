/* Long-short attention (SPEC §2): the constructor and op info.
 * Kernels: core/cpu/ls_attention.c. */
#include "ls_attention.h"

#include "../op.h"

/* Globals per batch item: the rows of k past the N queries. */
static int64_t ls_globals(const rf_graph *g, const rf_node *n)
{
    return rf_node_shape(g, n->in[1]).dim[1] - n->shape.dim[1];
}

/* The probabilities, local band [B, H, N, L] then global [B, H, N, G]. */
static size_t ls_aux(const rf_graph *g, const rf_node *n)
{
    int64_t rows = n->shape.dim[0] * n->ia[0] * n->shape.dim[1];
    return (size_t)(rows * (rf_ls_band((int)n->ia[1]) + ls_globals(g, n)));
}

/* Per thread, for one (batch, head): backward's dP, then dS, [N, L] and
 * [N, G], and both passes' transposed head K^T or V^T [dk, N]. */
static size_t ls_scratch(const rf_graph *g, const rf_node *n, int threads)
{
    int64_t dk = n->shape.dim[2] / n->ia[0];
    return (size_t)threads * (size_t)(n->shape.dim[1] * (rf_ls_band((int)n->ia[1]) + ls_globals(g, n) + dk));
}

/* Backward reads q, k, v, the mask (and P from aux), never its own output. */
const rf_op_info rf_info_ls_attention = {"ls_attention", RF_BWD_READS_INPUTS, ls_aux, ls_scratch, NULL};

/* q [B, N, D], k, v [B, N + G, D], key_mask [B, N] or RF_NONE -> [B, N, D] */
rf_id rf_ls_attention(rf_graph *g, rf_id q, rf_id k, rf_id v, rf_id key_mask, int heads, int window,
                      float scale)
{
    rf_id in[4] = {q, k, v, key_mask};
    int n_in = key_mask == RF_NONE ? 3 : 4;
    if (!rf_graph_inputs_ok(g, in, n_in))
        return RF_NONE;
    rf_shape sq = rf_node_shape(g, q), sk = rf_node_shape(g, k), sv = rf_node_shape(g, v);
    char a[64], b[64], c[64];
    if (sq.ndim != 3 || sk.ndim != 3 || sv.ndim != 3)
        return rf_graph_fail(g, "ls_attention: q %s, k %s and v %s must all be [B, len, D]",
                             rf_shape_str(sq, a, sizeof a), rf_shape_str(sk, b, sizeof b),
                             rf_shape_str(sv, c, sizeof c));
    if (!rf_shape_equal(sk, sv) || sq.dim[0] != sk.dim[0] || sq.dim[2] != sk.dim[2] || sk.dim[1] < sq.dim[1])
        return rf_graph_fail(g,
                             "ls_attention: q %s, k %s, v %s do not fit q [B, N, D], k = v [B, N + G, D] "
                             "(N local rows, then G >= 0 global rows)",
                             rf_shape_str(sq, a, sizeof a), rf_shape_str(sk, b, sizeof b),
                             rf_shape_str(sv, c, sizeof c));
    if (heads < 1 || sq.dim[2] % heads != 0)
        return rf_graph_fail(g, "ls_attention: %d heads do not divide the model width of q %s", heads,
                             rf_shape_str(sq, a, sizeof a));
    if (window < 1 || sq.dim[1] < window || sq.dim[1] % window != 0)
        return rf_graph_fail(g, "ls_attention: the length of q %s is not a positive multiple of the window %d",
                             rf_shape_str(sq, a, sizeof a), window);
    if (key_mask != RF_NONE) {
        rf_shape sm = rf_node_shape(g, key_mask);
        if (sm.ndim != 2 || sm.dim[0] != sq.dim[0] || sm.dim[1] != sq.dim[1])
            return rf_graph_fail(g, "ls_attention: key mask %s must be [B, N] = [%lld, %lld] for q %s",
                                 rf_shape_str(sm, a, sizeof a), (long long)sq.dim[0], (long long)sq.dim[1],
                                 rf_shape_str(sq, b, sizeof b));
        if (rf_graph_cnode(g, key_mask)->needs_grad)
            return rf_graph_fail(g, "ls_attention: the key mask must not need a gradient");
    }
    rf_id id = rf_graph_add_op(g, RF_OP_LS_ATTENTION, in, n_in, sq);
    if (id == RF_NONE)
        return RF_NONE;
    rf_node *n = rf_graph_node(g, id);
    n->ia[0] = heads;
    n->ia[1] = window;
    n->fa[0] = scale;
    return id;
}
