/* Which ops run on the calling thread alone.
 *
 * Splitting a kernel over the pool (core/pool.h) costs a hand-off and a
 * wait for the slowest thread: a few microseconds with a worker still
 * polling, tens when it has gone to sleep, more on a busy machine. BLRP's
 * segment steps at small batches are hundreds of ops of a few microseconds
 * each (a [100, 64] LayerNorm, a GELU of 12,800 floats, 8 heads of 100 x
 * 100 attention), for which the hand-off costs more than the split saves.
 * The executor runs such ops serially (rf_pool_set_serial).
 *
 * The estimate is a node's time on one core from its shapes alone (the
 * floats it reads and writes, its multiply-adds), so the choice is the
 * same in every run of a plan: a result depends on the shapes and the
 * thread count only, never on timing. A row-scoped node (core/graph.h) is
 * judged at the rows it runs.
 */
#ifndef RF_OP_COST_H
#define RF_OP_COST_H

#include <stdbool.h>

#include "graph.h"

/* Below this estimate (nanoseconds on one core) a kernel runs serially,
 * unless the environment's RF_SERIAL_NS gives another limit (0: every op
 * split as far as its kernel splits it, which the test suite runs; a huge
 * value: everything on one thread). */
#define RF_SERIAL_NS 20000.0

/* The estimated time in nanoseconds of node n's forward (backward: its
 * backward, counted as twice the forward). */
double rf_op_cost_ns(const rf_graph *g, const rf_node *n, bool backward);

/* Whether node n's kernel runs on the calling thread alone. */
bool rf_op_runs_serial(const rf_graph *g, const rf_node *n, bool backward);

/* Replace the limit (tests: the same bits either way); negative: back to
 * RF_SERIAL_NS or the environment's. */
void rf_op_set_serial_limit(double ns);

#endif
