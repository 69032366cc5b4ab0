/* Which values are kept in bf16 (bf16_storage.h). */
#include "bf16_storage.h"

#include <stdlib.h>
#include <string.h>

#include "graph_private.h"

void rf_graph_set_bf16_storage(rf_graph *g, bool on)
{
    g->bf16_storage = on;
}

static bool wanted(const rf_graph *g)
{
    const char *env = getenv("RF_BF16_STORAGE");
    return g->bf16_storage && g->backend == &rf_cpu_backend && (env == NULL || strcmp(env, "off") != 0);
}

/* Whether node i may be written in bf16, consumers aside. */
static bool may_write(const rf_graph *g, rf_id i, rf_id loss)
{
    const rf_node *n = &g->nodes[i];
    return n->op != RF_OP_INPUT && n->op != RF_OP_PARAM && g->backend->bf16_writes[n->op] &&
           !(rf_op_infos[n->op]->flags & RF_BWD_READS_OUTPUT) && !g->keep[i] && i != loss && n->name[0] == '\0';
}

void rf_graph_bf16_storage(rf_graph *g, rf_id loss)
{
    bool on = wanted(g);
    for (rf_id i = 0; i < g->count; i++)
        g->nodes[i].dtype = on && may_write(g, i, loss) ? RF_BF16 : RF_F32;
    if (!on)
        return;
    const rf_backend *b = g->backend;
    for (rf_id i = 0; i < g->count; i++)
        if (g->nodes[i].rows_by != RF_NONE)
            g->nodes[g->nodes[i].rows_by].dtype = RF_F32;
    /* A consumer's inputs come before it (clones' too), so walking back
     * settles every consumer of a node before the node itself: one pass. */
    for (rf_id c = g->count - 1; c >= 0; c--) {
        const rf_node *n = &g->nodes[c];
        for (int k = 0; k < n->n_in; k++) {
            rf_node *in = &g->nodes[n->in[k]];
            bool reads = (b->bf16_reads[n->op] >> k & 1u) && (!b->bf16_moves[n->op] || n->dtype == RF_BF16);
            if (!reads)
                in->dtype = RF_F32;
        }
    }
}

int rf_graph_bf16_nodes(const rf_graph *g)
{
    int count = 0;
    for (rf_id i = 0; i < g->count; i++)
        count += g->nodes[i].dtype == RF_BF16;
    return count;
}

size_t rf_value_floats(const rf_node *n)
{
    size_t numel = (size_t)rf_shape_numel(n->shape);
    return n->dtype == RF_BF16 ? (numel + 1) / 2 : numel;
}
