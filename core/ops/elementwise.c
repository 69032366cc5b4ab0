/* Element-wise ops: broadcasting add/sub/mul, scale, and the unary
 * activations. Kernels in core/cpu/elementwise.c. */
#include "../op.h"

/* mul's backward needs scratch for g * other when its operand is broadcast
 * (the product is formed at the output's shape, then reduced). */
static size_t mul_scratch(const rf_graph *g, const rf_node *n, int threads)
{
    (void)threads;
    if (!n->needs_grad)
        return 0;
    rf_shape a = rf_graph_cnode(g, n->in[0])->shape, b = rf_graph_cnode(g, n->in[1])->shape;
    bool broadcast = !rf_shape_equal(a, n->shape) || !rf_shape_equal(b, n->shape);
    return broadcast ? (size_t)rf_shape_numel(n->shape) : 0;
}

const rf_op_info rf_info_add = {"add", 0, NULL, NULL, NULL};
const rf_op_info rf_info_sub = {"sub", 0, NULL, NULL, NULL};
const rf_op_info rf_info_mul = {"mul", RF_BWD_READS_INPUTS, NULL, mul_scratch, NULL};
const rf_op_info rf_info_scale = {"scale", 0, NULL, NULL, NULL};
/* every kind's derivative is computed from x (GELU cannot be from its output) */
const rf_op_info rf_info_unary = {"unary", RF_BWD_READS_INPUTS, NULL, NULL, NULL};
/* both halves' gradients come from the input: a, and sigmoid(b) again */
const rf_op_info rf_info_glu = {"glu", RF_BWD_READS_INPUTS, NULL, NULL, NULL};

/* NumPy broadcasting: align right, size-1 dims stretch. */
static rf_id binary(rf_graph *g, rf_op op, rf_id a, rf_id b)
{
    rf_id in[2] = {a, b};
    if (!rf_graph_inputs_ok(g, in, 2))
        return RF_NONE;
    rf_shape sa = rf_node_shape(g, a), sb = rf_node_shape(g, b);
    rf_shape out = sa.ndim >= sb.ndim ? sa : sb;
    for (int i = 1; i <= out.ndim; i++) {
        int64_t da = i <= sa.ndim ? sa.dim[sa.ndim - i] : 1;
        int64_t db = i <= sb.ndim ? sb.dim[sb.ndim - i] : 1;
        if (da != db && da != 1 && db != 1) {
            char ba[64], bb[64];
            return rf_graph_fail(g, "%s: shapes %s and %s do not broadcast", rf_op_infos[op]->name,
                                 rf_shape_str(sa, ba, sizeof ba), rf_shape_str(sb, bb, sizeof bb));
        }
        out.dim[out.ndim - i] = da != 1 ? da : db;
    }
    return rf_graph_add_op(g, op, in, 2, out);
}

rf_id rf_add(rf_graph *g, rf_id a, rf_id b) { return binary(g, RF_OP_ADD, a, b); }
rf_id rf_sub(rf_graph *g, rf_id a, rf_id b) { return binary(g, RF_OP_SUB, a, b); }
rf_id rf_mul(rf_graph *g, rf_id a, rf_id b) { return binary(g, RF_OP_MUL, a, b); }

rf_id rf_scale(rf_graph *g, rf_id x, float s)
{
    if (!rf_graph_inputs_ok(g, &x, 1))
        return RF_NONE;
    rf_id id = rf_graph_add_op(g, RF_OP_SCALE, &x, 1, rf_node_shape(g, x));
    if (id != RF_NONE)
        rf_graph_node(g, id)->fa[0] = s;
    return id;
}

rf_id rf_unary(rf_graph *g, rf_id x, rf_unary_kind kind)
{
    if (!rf_graph_inputs_ok(g, &x, 1))
        return RF_NONE;
    if ((int)kind < 0 || kind >= RF_UNARY_COUNT)
        return rf_graph_fail(g, "unary: unknown kind %d", (int)kind);
    rf_id id = rf_graph_add_op(g, RF_OP_UNARY, &x, 1, rf_node_shape(g, x));
    if (id != RF_NONE)
        rf_graph_node(g, id)->ia[0] = kind;
    return id;
}

rf_id rf_gelu(rf_graph *g, rf_id x) { return rf_unary(g, x, RF_UNARY_GELU); }
rf_id rf_relu(rf_graph *g, rf_id x) { return rf_unary(g, x, RF_UNARY_RELU); }
rf_id rf_elu(rf_graph *g, rf_id x) { return rf_unary(g, x, RF_UNARY_ELU); }
rf_id rf_softplus(rf_graph *g, rf_id x) { return rf_unary(g, x, RF_UNARY_SOFTPLUS); }
rf_id rf_sigmoid(rf_graph *g, rf_id x) { return rf_unary(g, x, RF_UNARY_SIGMOID); }

rf_id rf_glu(rf_graph *g, rf_id x)
{
    if (!rf_graph_inputs_ok(g, &x, 1))
        return RF_NONE;
    rf_shape s = rf_node_shape(g, x);
    if (s.ndim < 1 || s.dim[s.ndim - 1] % 2 != 0) {
        char b[64];
        return rf_graph_fail(g, "glu: the last axis of %s must have an even size", rf_shape_str(s, b, sizeof b));
    }
    s.dim[s.ndim - 1] /= 2;
    return rf_graph_add_op(g, RF_OP_GLU, &x, 1, s);
}
