/* Averaging parameter gradients over the ranks of a data-parallel run,
 * overlapped with backward.
 *
 * The gradient block is cut into contiguous buckets of whole parameters.
 * A parameter's gradient is complete when backward reaches its node (the
 * graph's param-ready hook); a bucket whose parameters are all complete is
 * handed to the collective at once, while backward goes on with earlier
 * layers. After backward the rest is started, everything is awaited and
 * divided by the rank count. Buckets start in the same order on every rank
 * and every step (the graph fixes it), so a run is deterministic for a
 * given rank count.
 */
#ifndef RF_GRAD_SYNC_H
#define RF_GRAD_SYNC_H

#include "collective.h"
#include "exec.h"
#include "params.h"

typedef struct rf_grad_sync rf_grad_sync;

/* For the prepared training graph `g` over `p` (allocated); buckets of at
 * least `bucket_floats` floats (the last may be smaller). */
rf_grad_sync *rf_grad_sync_new(rf_graph *g, rf_params *p, rf_collective *c, size_t bucket_floats);
void rf_grad_sync_free(rf_grad_sync *s);

/* Around one backward pass: begin hooks the graph, end starts the buckets
 * not yet started, waits for all and leaves the ranks' mean in p->grad. */
void rf_grad_sync_begin(rf_grad_sync *s);
void rf_grad_sync_end(rf_grad_sync *s);

typedef struct rf_grad_sync_stats {
    int buckets;
    size_t floats;             /* per step, over all buckets */
    int64_t steps;
    double wait_seconds;       /* summed over steps: waiting in end(), i.e. not hidden behind backward */
    int started_in_backward;   /* buckets of the last step started before backward ended */
} rf_grad_sync_stats;
rf_grad_sync_stats rf_grad_sync_stats_get(const rf_grad_sync *s);

/* One blocking mean of the whole gradient block in the same buckets, with
 * nothing to overlap it: what a step's reduction costs when exposed (for
 * `bench`). Leaves the gradients averaged again; call between steps. */
double rf_grad_sync_time_alone(rf_grad_sync *s);

#endif
