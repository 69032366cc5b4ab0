/* FLOPs of a step: the matrix products of every node, forward and backward
 * (core/flops.h). */
#include "flops.h"

#include <string.h>

#include "model.h"
#include "ops/ls_attention.h"

static double product_count(int64_t rows, int64_t inner, int64_t cols)
{
    return (double)rows * (double)inner * (double)cols;
}

/* Multiply-adds of one node's forward (0 for ops that are not matrix
 * products). */
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

/* Multiply-adds of one node's backward: each product's input gradient is
 * one product of the forward's size (dA = dC B^T, dB = A^T dC), run only
 * for the inputs that get a gradient. */
static double node_backward_macs(const rf_graph *g, const rf_node *n, double fwd)
{
    bool grad[RF_MAX_INPUTS];
    for (int k = 0; k < n->n_in; k++)
        grad[k] = rf_graph_gets_grad(g, n->in[k]);
    switch (n->op) {
    case RF_OP_MATMUL:
    case RF_OP_LINEAR:
    case RF_OP_CONV1D:
    case RF_OP_CONV2D:
        return fwd * (grad[0] + grad[1]);
    case RF_OP_ATTENTION: {
        /* in units of one of the forward's two products: the scores again
         * (flash-style), dP = dO V^T for dQ or dK, then dQ, dK and dV */
        double unit = fwd / 2;
        bool any = grad[0] || grad[1] || grad[2];
        return unit * (any + (grad[0] || grad[1]) + grad[0] + grad[1] + grad[2]);
    }
    case RF_OP_LS_ATTENTION: {
        /* the probabilities are kept: dP, dQ, dK, dV */
        double unit = fwd / 2;
        return unit * ((grad[0] || grad[1]) + grad[0] + grad[1] + grad[2]);
    }
    case RF_OP_LINEAR_ATTENTION:
        /* the gradients of both of the forward's sums of products */
        return grad[0] || grad[1] || grad[2] ? 2 * fwd : 0;
    default:
        return 0;
    }
}

/* The share of a node's products the last pass ran: a row scope's active
 * rows (core/graph.h), less what the op skipped as padding. */
static double share_ran(const rf_node *n)
{
    double rows = n->rows_by == RF_NONE || n->shape.dim[0] < 1
                      ? 1
                      : (double)n->rows_active / (double)n->shape.dim[0];
    return rows * (1 - n->skipped);
}

static void step_flops(const rf_graph *g, int64_t params, bool ran, rf_step_flops *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < rf_graph_size(g); i++) {
        const rf_node *n = rf_graph_cnode(g, i);
        double fwd = node_macs(g, n), share = ran ? share_ran(n) : 1;
        out->forward[n->op] += 2 * fwd * share;
        if (rf_graph_runs_backward(g, i))
            out->backward[n->op] += 2 * node_backward_macs(g, n, fwd) * share;
    }
    bool training = false;
    for (int i = 0; i < rf_graph_size(g) && !training; i++)
        training = rf_graph_runs_backward(g, i);
    out->optimizer = training ? (double)params * (RF_ADAMW_FLOPS + RF_GRAD_NORM_FLOPS) : 0;
    out->total = out->optimizer;
    for (int op = 0; op < RF_OP_COUNT; op++)
        out->total += out->forward[op] + out->backward[op];
}

void rf_graph_step_flops(const rf_graph *g, int64_t params, rf_step_flops *out)
{
    step_flops(g, params, false, out);
}

void rf_graph_step_flops_ran(const rf_graph *g, int64_t params, rf_step_flops *out)
{
    step_flops(g, params, true, out);
}

double rf_model_flops_per_sample(const rf_model *m)
{
    double flops = 0;
    for (int i = 0; i < rf_graph_size(m->graph); i++)   /* the model's, without recomputation */
        if (rf_graph_cnode(m->graph, i)->recompute_of == RF_NONE)
            flops += 2 * node_macs(m->graph, rf_graph_cnode(m->graph, i));
    return flops / m->batch;
}

void rf_model_step_flops(const rf_model *m, rf_step_flops *out)
{
    rf_graph_step_flops(m->graph, rf_model_param_count(m), out);
}

void rf_model_step_flops_ran(const rf_model *m, rf_step_flops *out)
{
    rf_graph_step_flops_ran(m->graph, rf_model_param_count(m), out);
}
