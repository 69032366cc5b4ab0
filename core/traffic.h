/* Bytes a training step's ops move, per op kind: the compulsory traffic
 * that bounds an element-wise or shape op, as FLOPs bound a matrix product
 * (core/flops.h). `bench --profile` divides each op's time by the larger
 * of its two bounds (its roofline).
 *
 * Counted once per pass, as if every tensor crossed memory exactly once:
 * forward reads each input and writes the output, plus the saved aux
 * tensor it writes for backward; backward reads the output's gradient,
 * the inputs (ops flagged RF_BWD_READS_INPUTS), the output
 * (RF_BWD_READS_OUTPUT) and the saved aux, and writes each input gradient
 * it computes. An embedding reads only the table rows it gathers (as many
 * floats as its output). A value kept in bf16 (core/bf16_storage.h)
 * counts 2 bytes an element, everything else 4. Caches that keep a tensor between ops make the
 * real traffic smaller, tiles re-read from memory and gradients added into
 * (not written) make it larger; the count is the floor a kernel cannot
 * beat without fusing ops.
 */
#ifndef RF_TRAFFIC_H
#define RF_TRAFFIC_H

#include "exec.h"

typedef struct rf_step_bytes {
    double forward[RF_OP_COUNT];
    double backward[RF_OP_COUNT];
    double total;
} rf_step_bytes;

/* A graph planned with its loss (rf_graph_plan or rf_graph_prepare). */
void rf_graph_step_bytes(const rf_graph *g, rf_step_bytes *out);

#endif
