/* Bytes a step's ops move (core/traffic.h). */
#include "traffic.h"

#include <string.h>

#include "op.h"

static double floats_of(const rf_graph *g, rf_id id)
{
    return (double)rf_shape_numel(rf_node_shape(g, id));
}

/* Floats input k of node n reads in forward: an embedding's table only
 * the rows it gathers. */
static double input_floats(const rf_graph *g, const rf_node *n, int k)
{
    if (n->op == RF_OP_EMBEDDING && k == 1)
        return (double)rf_shape_numel(n->shape);
    return floats_of(g, n->in[k]);
}

void rf_graph_step_bytes(const rf_graph *g, rf_step_bytes *out)
{
    memset(out, 0, sizeof *out);
    for (rf_id i = 0; i < rf_graph_size(g); i++) {
        const rf_node *n = rf_graph_cnode(g, i);
        if (n->op == RF_OP_INPUT || n->op == RF_OP_PARAM)
            continue;
        const rf_op_info *info = rf_op_infos[n->op];
        double value = (double)rf_shape_numel(n->shape);
        double aux = info->aux_floats != NULL ? (double)info->aux_floats(g, n) : 0;
        double inputs = 0, grads = 0;
        for (int k = 0; k < n->n_in; k++) {
            inputs += input_floats(g, n, k);
            if (rf_graph_gets_grad(g, n->in[k]))
                grads += input_floats(g, n, k);
        }
        out->forward[n->op] += sizeof(float) * (inputs + value + aux);
        if (!rf_graph_runs_backward(g, i))
            continue;
        double reads = value + aux;   /* the output's gradient and the saved tensor */
        if (info->flags & RF_BWD_READS_INPUTS)
            reads += inputs;
        if (info->flags & RF_BWD_READS_OUTPUT)
            reads += value;
        out->backward[n->op] += sizeof(float) * (reads + grads);
    }
    for (int op = 0; op < RF_OP_COUNT; op++)
        out->total += out->forward[op] + out->backward[op];
}
