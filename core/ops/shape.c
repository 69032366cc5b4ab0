/* Shape ops: reshape, permute (and transpose), concat, slice, pad and
 * sort_rows. Each copies; none needs its inputs' values in backward.
 * Kernels in core/cpu/shape.c. */
#include "../op.h"

const rf_op_info rf_info_reshape = {"reshape", 0, NULL, NULL, NULL};
const rf_op_info rf_info_permute = {"permute", 0, NULL, NULL, NULL};
const rf_op_info rf_info_concat = {"concat", 0, NULL, NULL, NULL};
const rf_op_info rf_info_slice = {"slice", 0, NULL, NULL, NULL};
const rf_op_info rf_info_pad = {"pad", 0, NULL, NULL, NULL};

/* aux: the row order p (B floats); scratch: each row's valid count. */
static size_t sort_rows_rows(const rf_graph *g, const rf_node *n)
{
    return (size_t)rf_node_shape(g, n->in[0]).dim[0];
}

static size_t sort_rows_scratch(const rf_graph *g, const rf_node *n, int threads)
{
    (void)threads;
    return sort_rows_rows(g, n);
}

const rf_op_info rf_info_sort_rows = {"sort_rows", 0, sort_rows_rows, sort_rows_scratch, NULL};

rf_id rf_reshape(rf_graph *g, rf_id x, rf_shape shape)
{
    if (!rf_graph_inputs_ok(g, &x, 1))
        return RF_NONE;
    rf_shape sx = rf_node_shape(g, x);
    char bx[64], bs[64];
    if (shape.ndim < 0 || shape.ndim > RF_MAX_DIMS)
        return rf_graph_fail(g, "reshape: %d dims requested (0 to %d allowed)", shape.ndim, RF_MAX_DIMS);
    if (rf_shape_numel(shape) != rf_shape_numel(sx))
        return rf_graph_fail(g, "reshape: %s has %lld elements, %s has %lld", rf_shape_str(sx, bx, sizeof bx),
                             (long long)rf_shape_numel(sx), rf_shape_str(shape, bs, sizeof bs),
                             (long long)rf_shape_numel(shape));
    return rf_graph_add_op(g, RF_OP_RESHAPE, &x, 1, shape);
}

rf_id rf_permute(rf_graph *g, rf_id x, const int *perm)
{
    if (!rf_graph_inputs_ok(g, &x, 1))
        return RF_NONE;
    rf_shape sx = rf_node_shape(g, x), out = sx;
    bool seen[RF_MAX_DIMS] = {false};
    for (int i = 0; i < sx.ndim; i++) {
        if (perm[i] < 0 || perm[i] >= sx.ndim || seen[perm[i]]) {
            char bx[64];
            return rf_graph_fail(g, "permute: entry %d (%d) makes no permutation of the %d axes of %s", i, perm[i],
                                 sx.ndim, rf_shape_str(sx, bx, sizeof bx));
        }
        seen[perm[i]] = true;
        out.dim[i] = sx.dim[perm[i]];
    }
    rf_id id = rf_graph_add_op(g, RF_OP_PERMUTE, &x, 1, out);
    if (id != RF_NONE)
        for (int i = 0; i < sx.ndim; i++)
            rf_graph_node(g, id)->ia[i] = perm[i];
    return id;
}

rf_id rf_transpose(rf_graph *g, rf_id x, int axis0, int axis1)
{
    if (!rf_graph_inputs_ok(g, &x, 1))
        return RF_NONE;
    rf_shape sx = rf_node_shape(g, x);
    if (axis0 < 0 || axis0 >= sx.ndim || axis1 < 0 || axis1 >= sx.ndim) {
        char bx[64];
        return rf_graph_fail(g, "transpose: axes %d and %d out of range for %s", axis0, axis1,
                             rf_shape_str(sx, bx, sizeof bx));
    }
    int perm[RF_MAX_DIMS] = {0, 1, 2, 3};
    perm[axis0] = axis1;
    perm[axis1] = axis0;
    return rf_permute(g, x, perm);
}

rf_id rf_concat(rf_graph *g, const rf_id *xs, int n, int axis)
{
    if (n > 0 && !rf_graph_inputs_ok(g, xs, n))
        return RF_NONE;
    if (n < 2 || n > RF_MAX_INPUTS)
        return rf_graph_fail(g, "concat: %d inputs (2 to %d allowed)", n, RF_MAX_INPUTS);
    rf_shape out = rf_node_shape(g, xs[0]);
    char b0[64], bk[64];
    rf_shape_str(out, b0, sizeof b0);
    if (axis < 0 || axis >= out.ndim)
        return rf_graph_fail(g, "concat: axis %d out of range for %s", axis, b0);
    for (int k = 1; k < n; k++) {
        rf_shape sk = rf_node_shape(g, xs[k]);
        bool match = sk.ndim == out.ndim;
        for (int i = 0; match && i < out.ndim; i++)
            match = i == axis || sk.dim[i] == out.dim[i];
        if (!match)
            return rf_graph_fail(g, "concat: input %d %s does not match input 0 %s outside axis %d", k,
                                 rf_shape_str(sk, bk, sizeof bk), b0, axis);
        out.dim[axis] += sk.dim[axis];
    }
    rf_id id = rf_graph_add_op(g, RF_OP_CONCAT, xs, n, out);
    if (id != RF_NONE)
        rf_graph_node(g, id)->ia[0] = axis;
    return id;
}

rf_id rf_slice(rf_graph *g, rf_id x, int axis, int64_t start, int64_t len)
{
    if (!rf_graph_inputs_ok(g, &x, 1))
        return RF_NONE;
    rf_shape out = rf_node_shape(g, x);
    char bx[64];
    rf_shape_str(out, bx, sizeof bx);
    if (axis < 0 || axis >= out.ndim)
        return rf_graph_fail(g, "slice: axis %d out of range for %s", axis, bx);
    if (start < 0 || len < 1 || start + len > out.dim[axis])
        return rf_graph_fail(g, "slice: [%lld, %lld) is not inside axis %d of %s", (long long)start,
                             (long long)(start + len), axis, bx);
    out.dim[axis] = len;
    rf_id id = rf_graph_add_op(g, RF_OP_SLICE, &x, 1, out);
    if (id != RF_NONE) {
        rf_node *node = rf_graph_node(g, id);
        node->ia[0] = axis;
        node->ia[1] = start;
        node->ia[2] = len;
    }
    return id;
}

rf_id rf_pad(rf_graph *g, rf_id x, int axis, int64_t before, int64_t after, float value)
{
    if (!rf_graph_inputs_ok(g, &x, 1))
        return RF_NONE;
    rf_shape out = rf_node_shape(g, x);
    char bx[64];
    rf_shape_str(out, bx, sizeof bx);
    if (axis < 0 || axis >= out.ndim)
        return rf_graph_fail(g, "pad: axis %d out of range for %s", axis, bx);
    if (before < 0 || after < 0)
        return rf_graph_fail(g, "pad: negative padding (%lld before, %lld after) of %s", (long long)before,
                             (long long)after, bx);
    out.dim[axis] += before + after;
    rf_id id = rf_graph_add_op(g, RF_OP_PAD, &x, 1, out);
    if (id != RF_NONE) {
        rf_node *node = rf_graph_node(g, id);
        node->ia[0] = axis;
        node->ia[1] = before;
        node->ia[2] = after;
        node->fa[0] = value;
    }
    return id;
}

rf_id rf_sort_rows(rf_graph *g, rf_id x, rf_id mask, bool inverse)
{
    rf_id in[2] = {x, mask};
    if (!rf_graph_inputs_ok(g, in, 2))
        return RF_NONE;
    rf_shape sx = rf_node_shape(g, x), sm = rf_node_shape(g, mask);
    if (sx.ndim < 1 || sm.ndim != 2 || sm.dim[0] != sx.dim[0]) {
        char bx[64], bm[64];
        return rf_graph_fail(g, "sort_rows: x %s and mask %s must be [B, ...] and [B, M]",
                             rf_shape_str(sx, bx, sizeof bx), rf_shape_str(sm, bm, sizeof bm));
    }
    if (rf_graph_node(g, mask)->needs_grad)
        return rf_graph_fail(g, "sort_rows: the mask takes no gradient");
    rf_id id = rf_graph_add_op(g, RF_OP_SORT_ROWS, in, 2, sx);
    if (id != RF_NONE)
        rf_graph_node(g, id)->ia[0] = inverse;
    return id;
}
