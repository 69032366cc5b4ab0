/* Bytes a step's ops move (core/traffic.h). */
#include "traffic.h"

#include <string.h>

#include "op.h"

/* Bytes of a node's value: 2 an element where it is kept in bf16
 * (core/bf16_storage.h), 4 otherwise; gradients and aux are f32. */
static double value_bytes(const rf_node *n)
{
    return (double)rf_shape_numel(n->shape) * (n->dtype == RF_BF16 ? 2.0 : 4.0);
}

/* Elements of input k node n touches: an embedding's table only the rows
 * it gathers. */
static double input_elements(const rf_graph *g, const rf_node *n, int k)
{
    if (n->op == RF_OP_EMBEDDING && k == 1)
        return (double)rf_shape_numel(n->shape);
    return (double)rf_shape_numel(rf_node_shape(g, n->in[k]));
}

/* Bytes of input k node n reads in forward. */
static double input_bytes(const rf_graph *g, const rf_node *n, int k)
{
    return input_elements(g, n, k) * (rf_graph_cnode(g, n->in[k])->dtype == RF_BF16 ? 2.0 : 4.0);
}

void rf_graph_step_bytes(const rf_graph *g, rf_step_bytes *out)
{
    memset(out, 0, sizeof *out);
    for (rf_id i = 0; i < rf_graph_size(g); i++) {
        const rf_node *n = rf_graph_cnode(g, i);
        if (n->op == RF_OP_INPUT || n->op == RF_OP_PARAM)
            continue;
        const rf_op_info *info = rf_op_infos[n->op];
        double grad = sizeof(float) * (double)rf_shape_numel(n->shape);
        double aux = info->aux_floats != NULL ? sizeof(float) * (double)info->aux_floats(g, n) : 0;
        double inputs = 0, grads = 0;
        for (int k = 0; k < n->n_in; k++) {
            inputs += input_bytes(g, n, k);
            if (rf_graph_gets_grad(g, n->in[k]))
                grads += sizeof(float) * input_elements(g, n, k);
        }
        out->forward[n->op] += inputs + value_bytes(n) + aux;
        if (!rf_graph_runs_backward(g, i))
            continue;
        double reads = grad + aux;   /* the output's gradient and the saved tensor */
        if (info->flags & RF_BWD_READS_INPUTS)
            reads += inputs;
        if (info->flags & RF_BWD_READS_OUTPUT)
            reads += value_bytes(n);
        out->backward[n->op] += reads + grads;
    }
    for (int op = 0; op < RF_OP_COUNT; op++)
        out->total += out->forward[op] + out->backward[op];
}
