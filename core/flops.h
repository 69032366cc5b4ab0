/* FLOPs of a training step, per op kind, from the planned graph.
 *
 * Counted: twice the multiply-adds of the matrix products (matmul, linear,
 * convolutions and the fused attention ops) that forward runs and that
 * backward runs for the gradients it computes (an input that needs no
 * gradient costs nothing; full attention's backward recomputes its scores,
 * core/cpu/attention.c), and the optimizer's element-wise work on every
 * parameter: AdamW's update (RF_ADAMW_FLOPS, core/optim.c) and the
 * gradient norm. Other element-wise ops, normalisation, softmax and TaLK's
 * prefix sums are left out: they are memory-bound and small next to the
 * products, and a FLOP rate is compared with the matrix-product ceiling
 * (core/peak.h). Products are counted over whole tensors, padding
 * included; rf_graph_step_flops_ran counts what the last pass ran instead,
 * leaving out the rows a row scope skipped (BLRP's padding, core/graph.h)
 * and the key blocks of padding full attention's CPU kernel skips
 * (rf_node.skipped).
 */
#ifndef RF_FLOPS_H
#define RF_FLOPS_H

#include "exec.h"

/* AdamW per parameter: the two moments (3 + 4), the bias corrections (2)
 * and the update (7); the gradient norm adds 2. */
#define RF_ADAMW_FLOPS 16
#define RF_GRAD_NORM_FLOPS 2

typedef struct rf_step_flops {
    double forward[RF_OP_COUNT];
    double backward[RF_OP_COUNT];
    double optimizer;
    double total;            /* all of the above */
} rf_step_flops;

/* A graph planned (rf_graph_plan or rf_graph_prepare) with its loss, whose
 * optimizer updates `params` floats; backward and optimizer are 0 for an
 * inference plan (params = 0). */
void rf_graph_step_flops(const rf_graph *g, int64_t params, rf_step_flops *out);
/* The same for the last forward and backward pass: a node in a row scope
 * counts only the rows it ran (call after a pass). */
void rf_graph_step_flops_ran(const rf_graph *g, int64_t params, rf_step_flops *out);

/* FLOPs of one op kind in forward and backward together. */
static inline double rf_step_flops_of(const rf_step_flops *f, rf_op op)
{
    return f->forward[op] + f->backward[op];
}

#endif
