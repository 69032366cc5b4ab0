/* Activation recomputation as a graph transformation (recompute.h). */
#include "recompute.h"

#include <string.h>

#include "graph_private.h"

static const char *const names[] = {"off", "layers", "segments"};

bool rf_recompute_parse(const char *name, rf_recompute *out)
{
    for (int m = 0; m < (int)(sizeof names / sizeof *names); m++)
        if (strcmp(name, names[m]) == 0) {
            *out = (rf_recompute)m;
            return true;
        }
    return false;
}

const char *rf_recompute_name(rf_recompute mode)
{
    return mode >= RF_RECOMPUTE_OFF && mode <= RF_RECOMPUTE_SEGMENTS ? names[mode] : "?";
}

static bool covers(rf_recompute mode, rf_region_kind kind)
{
    bool block = kind == RF_REGION_LAYER || kind == RF_REGION_SUBLAYER;
    return (mode == RF_RECOMPUTE_LAYERS && block) ||
           (mode == RF_RECOMPUTE_SEGMENTS && (block || kind == RF_REGION_SEGMENT));
}

/* Under layers a sublayer region joins the block before it: one region
 * per block, as the fewest tensors kept through the forward pass. Under
 * segments each part is recomputed alone, for the lowest peak of a long
 * sequence. */
static void join_sublayers(rf_graph *g)
{
    for (rf_id i = 0; i < g->count; i++) {
        int32_t r = g->nodes[i].region;
        while (r > 0 && g->region_kind[r] == RF_REGION_SUBLAYER)
            r--;
        g->nodes[i].region = r;
    }
}

/* The node a clone reads for input id: the clone of a node of its own
 * region, the original anywhere else. */
static rf_id clone_input(const rf_graph *g, rf_id id, int32_t region)
{
    if (id == RF_NONE)
        return RF_NONE;
    const rf_node *in = &g->nodes[id];
    return in->region == region && in->recompute_as != RF_NONE ? in->recompute_as : id;
}

bool rf_graph_recompute(rf_graph *g, rf_recompute mode, rf_status *st)
{
    if (g->failed)
        return rf_fail(st, "graph construction failed: %s", g->error);
    if (g->originals > 0 || g->prepared)
        return rf_fail(st, "recompute: the graph is already %s", g->prepared ? "prepared" : "transformed");
    if (mode == RF_RECOMPUTE_OFF)
        return true;
    if (mode == RF_RECOMPUTE_LAYERS)
        join_sublayers(g);
    int n = g->count;
    /* Regions are contiguous runs of ids (rf_graph_region), so cloning in
     * id order clones a region's nodes in order and together. */
    for (rf_id i = 0; i < n; i++) {
        int32_t region = g->nodes[i].region;
        rf_op op = g->nodes[i].op;
        if (region < 0 || op == RF_OP_INPUT || op == RF_OP_PARAM || !covers(mode, g->region_kind[region]))
            continue;
        rf_id c = rf_graph_append_copy(g, i);
        if (c == RF_NONE)
            return rf_fail(st, "recompute: %s", g->error);
        rf_node *clone = &g->nodes[c];
        for (int k = 0; k < clone->n_in; k++)
            clone->in[k] = clone_input(g, clone->in[k], region);
        clone->rows_by = clone_input(g, clone->rows_by, region);
        clone->recompute_of = i;
        g->nodes[i].recompute_as = c;
        g->keep[c] = false;
    }
    g->originals = n;
    return true;
}

int rf_graph_recompute_clones(const rf_graph *g)
{
    return g->originals > 0 ? g->count - g->originals : 0;
}
