/* bf16 storage: activations kept in bf16 between ops (train.precision =
 * bf16 on the CPU).
 *
 * bf16 products (core/gemm_bf16.h) round both operands to bf16 anyway. So
 * an activation that only products read, directly or through ops that just
 * move its elements (reshape, permute), can be stored in bf16 by the op
 * that writes it: computed in f32 and rounded to nearest even on its way
 * out, exactly as the product would have rounded it. Its buffer takes half
 * the memory and half the traffic, and the products read it as it is
 * instead of rounding it, with the same bits: a bf16 run with this pass
 * is the bf16 run without it, bit for bit. Gradients, aux and scratch stay
 * f32.
 *
 * The backend's op tables say what its kernels can (rf_backend.bf16_writes,
 * bf16_reads, bf16_moves, core/op.h); a later slice adds ops by setting
 * their bits and writing their bf16 kernels. When a graph is planned, a
 * node's value is made bf16 exactly when
 *  - its op can write bf16, and it is not an input or a parameter;
 *  - nothing outside the executor reads it as floats: it is not kept
 *    (rf_graph_keep: logits, the loss), not the loss, not named (probe
 *    taps, logits) and no row scope's rows_by;
 *  - every consumer, forward and backward, can read that input slot in
 *    bf16 (a move only when its own value is bf16 too).
 */
#ifndef RF_BF16_STORAGE_H
#define RF_BF16_STORAGE_H

#include <stddef.h>

#include "graph.h"

/* Whether g's values may be kept in bf16 (false at first): set before
 * planning, for a model whose products run in bf16 (train.precision =
 * bf16 on a CPU that has it, core/model.c). */
void rf_graph_set_bf16_storage(rf_graph *g, bool on);

/* Set every node's dtype as above when bf16 storage is on and the graph
 * runs on the CPU backend; every value f32 otherwise. The planner calls it
 * each time it plans. RF_BF16_STORAGE=off in the environment keeps every
 * value f32 (the tests compare the two). */
void rf_graph_bf16_storage(rf_graph *g, rf_id loss);

/* How many nodes' values are bf16 (after planning). */
int rf_graph_bf16_nodes(const rf_graph *g);

/* The floats a node's value takes in the arena: numel for f32, half of it
 * (rounded up) for bf16. */
size_t rf_value_floats(const rf_node *n);

#endif
