/* Activation recomputation (train.recompute): trading compute for memory
 * by a graph transformation before planning.
 *
 * Encoders mark their regions while they build (rf_graph_region: a block
 * of a layered encoder, a step of BLRP's recurrence over the segments, the
 * second part of a block that segments recomputes alone).
 * rf_graph_recompute appends, for every marked region the mode covers, a
 * clone of each of its ops, reading the clones of the region's nodes and
 * the original nodes outside it (the region's inputs: the block's input,
 * masks, parameters). The forward pass runs the originals only; the
 * backward pass runs a region's clones forward just before it reaches the
 * region, then differentiates the clones in place of the originals, each
 * clone sharing its original's gradient buffer (so the gradients arriving
 * at the region's outputs from outside are where its backward reads
 * them). The planner (core/exec.c) then sees the forward activations die
 * at their last forward reader, except the region's inputs, and the clones
 * live only while their region's backward runs: the peak drops with no
 * change to how buffers are placed.
 *
 * The same kernels on the same inputs with the same thread count give the
 * same bits, and dropout keys its masks by the original node's id
 * (rf_dropout_node), so the gradients equal those of the stored run bit
 * for bit.
 */
#ifndef RF_RECOMPUTE_H
#define RF_RECOMPUTE_H

#include <stdbool.h>

#include "graph.h"
#include "status.h"

typedef enum rf_recompute {
    RF_RECOMPUTE_OFF,        /* every activation is kept for the backward pass */
    RF_RECOMPUTE_LAYERS,     /* per encoder block (BLRP: its Θ_SELF layers) */
    RF_RECOMPUTE_SEGMENTS,   /* layers, a block's sublayers one at a time, and each step of
                              * BLRP's recurrence over the segments, its Φ and Θ_X's queries */
} rf_recompute;

/* "off", "layers" or "segments" (train.recompute's values); false for
 * anything else. */
bool rf_recompute_parse(const char *name, rf_recompute *out);
const char *rf_recompute_name(rf_recompute mode);

/* Clone the regions `mode` covers, as above; off changes nothing. Once
 * per graph, after it is built and before it is planned. */
bool rf_graph_recompute(rf_graph *g, rf_recompute mode, rf_status *st);

/* The clones rf_graph_recompute added (0 before or without it). */
int rf_graph_recompute_clones(const rf_graph *g);

#endif
