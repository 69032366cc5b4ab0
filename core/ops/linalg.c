/* Linear algebra ops: matmul and linear (both one cblas_sgemm where the
 * layout allows). Kernels in core/cpu/linalg.c. */
#include "../op.h"

/* Backward of both ops reads A and B (x and w) to form dB and dA. */
const rf_op_info rf_info_matmul = {"matmul", RF_BWD_READS_INPUTS, NULL, NULL, NULL};
/* The chunked backward's partials (op.h, RF_LINEAR_ROW_CHUNK). */
static size_t linear_scratch(const rf_graph *g, const rf_node *n, int threads)
{
    (void)threads;
    rf_shape w = rf_node_shape(g, n->in[1]);
    int64_t k = w.dim[0], cols = w.dim[1], rows = rf_shape_numel(rf_node_shape(g, n->in[0])) / k;
    if (rows < 2 * RF_LINEAR_ROW_CHUNK || k * cols > RF_LINEAR_CHUNK_MAX_WEIGHT)
        return 0;
    return (size_t)((rows + RF_LINEAR_ROW_CHUNK - 1) / RF_LINEAR_ROW_CHUNK * (k * cols + cols));
}

const rf_op_info rf_info_linear = {"linear", RF_BWD_READS_INPUTS | RF_SCRATCH_BWD_ONLY, NULL, linear_scratch, NULL};

rf_id rf_matmul(rf_graph *g, rf_id a, rf_id b, bool ta, bool tb)
{
    rf_id in[2] = {a, b};
    if (!rf_graph_inputs_ok(g, in, 2))
        return RF_NONE;
    rf_shape sa = rf_node_shape(g, a), sb = rf_node_shape(g, b);
    char ba[64], bb[64];
    rf_shape_str(sa, ba, sizeof ba);
    rf_shape_str(sb, bb, sizeof bb);
    if (sa.ndim < 2 || sb.ndim < 2)
        return rf_graph_fail(g, "matmul: both inputs need at least 2 dims, got a %s and b %s", ba, bb);
    int64_t m = sa.dim[sa.ndim - (ta ? 1 : 2)], ka = sa.dim[sa.ndim - (ta ? 2 : 1)];
    int64_t kb = sb.dim[sb.ndim - (tb ? 1 : 2)], nn = sb.dim[sb.ndim - (tb ? 2 : 1)];
    if (ka != kb)
        return rf_graph_fail(g, "matmul: inner dims differ: a %s (ta=%d) has K=%lld, b %s (tb=%d) has K=%lld",
                             ba, ta, (long long)ka, bb, tb, (long long)kb);
    if (sb.ndim > 2) {
        bool same = sa.ndim == sb.ndim;
        for (int i = 0; same && i < sa.ndim - 2; i++)
            same = sa.dim[i] == sb.dim[i];
        if (!same)
            return rf_graph_fail(g, "matmul: batch dims of a %s and b %s differ (b may also be 2-D)", ba, bb);
    }
    rf_shape out = sa;
    out.dim[out.ndim - 2] = m;
    out.dim[out.ndim - 1] = nn;
    rf_id id = rf_graph_add_op(g, RF_OP_MATMUL, in, 2, out);
    if (id == RF_NONE)
        return RF_NONE;
    rf_node *node = rf_graph_node(g, id);
    node->ia[0] = ta;
    node->ia[1] = tb;
    return id;
}

rf_id rf_linear(rf_graph *g, rf_id x, rf_id w, rf_id bias)
{
    rf_id in[3] = {x, w, bias};
    int n_in = bias == RF_NONE ? 2 : 3;
    if (!rf_graph_inputs_ok(g, in, n_in))
        return RF_NONE;
    rf_shape sx = rf_node_shape(g, x), sw = rf_node_shape(g, w);
    char bx[64], bw[64], bbias[64];
    rf_shape_str(sx, bx, sizeof bx);
    rf_shape_str(sw, bw, sizeof bw);
    if (sw.ndim != 2)
        return rf_graph_fail(g, "linear: weight must be [K, N], got %s", bw);
    if (sx.ndim < 1 || sx.dim[sx.ndim - 1] != sw.dim[0])
        return rf_graph_fail(g, "linear: x %s must end in K = %lld (weight %s)", bx, (long long)sw.dim[0], bw);
    if (bias != RF_NONE) {
        rf_shape sbias = rf_node_shape(g, bias);
        if (sbias.ndim != 1 || sbias.dim[0] != sw.dim[1])
            return rf_graph_fail(g, "linear: bias must be [%lld] for weight %s, got %s", (long long)sw.dim[1],
                                 bw, rf_shape_str(sbias, bbias, sizeof bbias));
    }
    rf_shape out = sx;
    out.dim[out.ndim - 1] = sw.dim[1];
    return rf_graph_add_op(g, RF_OP_LINEAR, in, n_in, out);
}
