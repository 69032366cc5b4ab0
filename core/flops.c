/* FLOPs estimate: twice the multiply-adds of the matrix products in a
 * model's forward graph (matmul, linear, convolutions and the fused
 * attention ops). Elementwise ops, normalisation, softmax and TaLK's prefix
 * sums are left out: they are memory-bound and small next to the products. */
#include "model.h"
#include "ops/ls_attention.h"

static double product_count(int64_t rows, int64_t inner, int64_t cols)
{
    return (double)rows * (double)inner * (double)cols;
}

/* Multiply-adds of one node (0 for ops that are not matrix products). */
static double node_macs(const rf_graph *g, const rf_node *n)
{
    rf_shape out = n->shape;
    switch (n->op) {
    case RF_OP_MATMUL: {
        rf_shape a = rf_node_shape(g, n->in[0]);
        int64_t inner = a.dim[a.ndim - (n->ia[0] ? 2 : 1)];
        return (double)rf_shape_numel(out) * (double)inner;
    }
    case RF_OP_LINEAR: {
        rf_shape w = rf_node_shape(g, n->in[1]);
        return (double)rf_shape_numel(out) * (double)w.dim[0];
    }
    case RF_OP_CONV1D:
    case RF_OP_CONV2D: {
        /* every output element is a dot product over Cin x kernel */
        rf_shape w = rf_node_shape(g, n->in[1]);
        return (double)rf_shape_numel(out) * (double)(rf_shape_numel(w) / w.dim[0]);
    }
    case RF_OP_ATTENTION: {
        /* Q K^T and P V: two [N, M] x D products per batch row */
        int64_t keys = rf_node_shape(g, n->in[1]).dim[1];
        return 2 * product_count(out.dim[0] * out.dim[1], keys, out.dim[2]);
    }
    case RF_OP_LS_ATTENTION: {
        /* each query against its band of L local keys and the G global keys */
        int64_t globals = rf_node_shape(g, n->in[1]).dim[1] - out.dim[1];
        int64_t keys = rf_ls_band((int)n->ia[1]) + globals;
        return 2 * product_count(out.dim[0] * out.dim[1], keys, out.dim[2]);
    }
    case RF_OP_LINEAR_ATTENTION: {
        /* per head: phi(K)^T V and phi(K)^T 1 over M keys, then phi(Q) (KV)
         * and phi(Q) . Ksum over N queries, each dk x (dk + 1) */
        int64_t batch = out.dim[0], queries = out.dim[1], dim = out.dim[2], heads = n->ia[0];
        int64_t keys = rf_node_shape(g, n->in[1]).dim[1], dk = dim / heads;
        return product_count(batch * heads, keys + queries, dk * (dk + 1));
    }
    default:
        return 0;
    }
}

double rf_model_flops_per_sample(const rf_model *m)
{
    double macs = 0;
    for (int i = 0; i < rf_graph_size(m->graph); i++)
        macs += node_macs(m->graph, rf_graph_cnode(m->graph, i));
    return 2 * macs / m->batch;
}
