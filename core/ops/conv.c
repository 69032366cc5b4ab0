/* 1-D and 2-D convolution: constructors and op info. Kernels: core/cpu/conv.c.
 *
 * A conv1d node is a conv2d with height 1 as far as the kernels go: its
 * ia = {stride, pad}, a conv2d's ia = {stride_h, stride_w, pad_h, pad_w}.
 */
#include "../op.h"
#include "conv.h"

/* A batch of one: the im2col matrix [Cin*KH*KW, OH*OW] of its item, or
 * nothing for a 1x1 kernel with stride 1 and no padding (the input is its
 * own im2col). More items (core/cpu/conv.c runs them one per pool task):
 * the weight gradient's partial sums [chunks, Cout, Cin*KH*KW], then per
 * thread an im2col matrix and its gradient. */
static size_t conv_scratch(const rf_graph *g, const rf_node *n, int threads)
{
    rf_shape w = rf_node_shape(g, n->in[1]);
    int64_t rows = rf_shape_numel(w) / w.dim[0];
    int64_t cols = n->shape.ndim == 3 ? n->shape.dim[2] : n->shape.dim[2] * n->shape.dim[3];
    bool stride1 = n->shape.ndim == 3 ? n->ia[0] == 1 : n->ia[0] == 1 && n->ia[1] == 1;
    bool pad0 = n->shape.ndim == 3 ? n->ia[1] == 0 : n->ia[2] == 0 && n->ia[3] == 0;
    bool pointwise = rows == w.dim[1] && stride1 && pad0;
    int64_t batch = n->shape.dim[0];
    if (batch >= 2) {
        int64_t cols_per_thread = pointwise ? 0 : 2 * rows * cols;
        return (size_t)(rf_conv_dw_chunks(batch) * w.dim[0] * rows + threads * cols_per_thread);
    }
    return pointwise ? 0 : (size_t)(rows * cols);
}

const rf_op_info rf_info_conv1d = {"conv1d", RF_BWD_READS_INPUTS, NULL, conv_scratch, NULL};
const rf_op_info rf_info_conv2d = {"conv2d", RF_BWD_READS_INPUTS, NULL, conv_scratch, NULL};

/* Checks shared by both: ranks, channels, bias, stride and padding.
 * `spatial` is 1 or 2. Returns false after recording the error. */
static bool conv_check(rf_graph *g, const char *op, rf_id x, rf_id w, rf_id bias, int spatial,
                       const int *stride, const int *pad)
{
    rf_shape sx = rf_node_shape(g, x), sw = rf_node_shape(g, w);
    char a[64], b[64];
    if (sx.ndim != 2 + spatial || sw.ndim != 2 + spatial) {
        rf_graph_fail(g, "%s: x %s and w %s must both have %d dims", op, rf_shape_str(sx, a, sizeof a),
                      rf_shape_str(sw, b, sizeof b), 2 + spatial);
        return false;
    }
    if (sx.dim[1] != sw.dim[1]) {
        rf_graph_fail(g, "%s: x %s has %lld channels but w %s expects %lld", op,
                      rf_shape_str(sx, a, sizeof a), (long long)sx.dim[1], rf_shape_str(sw, b, sizeof b),
                      (long long)sw.dim[1]);
        return false;
    }
    if (bias != RF_NONE) {
        rf_shape sb = rf_node_shape(g, bias);
        if (sb.ndim != 1 || sb.dim[0] != sw.dim[0]) {
            rf_graph_fail(g, "%s: bias %s must be [%lld] for w %s", op, rf_shape_str(sb, a, sizeof a),
                          (long long)sw.dim[0], rf_shape_str(sw, b, sizeof b));
            return false;
        }
    }
    for (int i = 0; i < spatial; i++) {
        if (stride[i] < 1 || pad[i] < 0) {
            rf_graph_fail(g, "%s: stride %d must be >= 1 and padding %d >= 0", op, stride[i], pad[i]);
            return false;
        }
        if (sx.dim[2 + i] + 2 * pad[i] < sw.dim[2 + i]) {
            rf_graph_fail(g, "%s: kernel %s is larger than the padded input %s (padding %d)", op,
                          rf_shape_str(sw, b, sizeof b), rf_shape_str(sx, a, sizeof a), pad[i]);
            return false;
        }
    }
    return true;
}

static int64_t conv_out_len(int64_t len, int64_t kernel, int stride, int pad)
{
    return (len + 2 * pad - kernel) / stride + 1;
}

rf_id rf_conv1d(rf_graph *g, rf_id x, rf_id w, rf_id bias, int stride, int pad)
{
    rf_id in[3] = {x, w, bias};
    int n_in = bias == RF_NONE ? 2 : 3;
    if (!rf_graph_inputs_ok(g, in, n_in))
        return RF_NONE;
    if (!conv_check(g, "conv1d", x, w, bias, 1, &stride, &pad))
        return RF_NONE;
    rf_shape sx = rf_node_shape(g, x), sw = rf_node_shape(g, w);
    rf_shape out = rf_shape3(sx.dim[0], sw.dim[0], conv_out_len(sx.dim[2], sw.dim[2], stride, pad));
    rf_id id = rf_graph_add_op(g, RF_OP_CONV1D, in, n_in, out);
    if (id == RF_NONE)
        return RF_NONE;
    rf_node *n = rf_graph_node(g, id);
    n->ia[0] = stride;
    n->ia[1] = pad;
    return id;
}

rf_id rf_conv2d(rf_graph *g, rf_id x, rf_id w, rf_id bias, int stride_h, int stride_w, int pad_h,
                int pad_w)
{
    rf_id in[3] = {x, w, bias};
    int n_in = bias == RF_NONE ? 2 : 3;
    if (!rf_graph_inputs_ok(g, in, n_in))
        return RF_NONE;
    int stride[2] = {stride_h, stride_w}, pad[2] = {pad_h, pad_w};
    if (!conv_check(g, "conv2d", x, w, bias, 2, stride, pad))
        return RF_NONE;
    rf_shape sx = rf_node_shape(g, x), sw = rf_node_shape(g, w);
    rf_shape out = rf_shape4(sx.dim[0], sw.dim[0], conv_out_len(sx.dim[2], sw.dim[2], stride_h, pad_h),
                             conv_out_len(sx.dim[3], sw.dim[3], stride_w, pad_w));
    rf_id id = rf_graph_add_op(g, RF_OP_CONV2D, in, n_in, out);
    if (id == RF_NONE)
        return RF_NONE;
    rf_node *n = rf_graph_node(g, id);
    n->ia[0] = stride_h;
    n->ia[1] = stride_w;
    n->ia[2] = pad_h;
    n->ia[3] = pad_w;
    return id;
}
