/* train.cuda_graph = auto: a training step on a device that can capture
 * (rf_backend.capture_begin) runs its first step eagerly, captures the
 * next one as a graph and replays that for every later step, so the host
 * issues one launch a step instead of every kernel. What the host does
 * each step stays outside: the batch's upload and the step's scalars
 * (rf_backend.step_scalars) go before the replay, in stream order; the
 * loss is read when the metrics are due.
 *
 * A capture is for one graph (the model's): a step of another graph
 * captures again, as does a replay the device refuses (a recording gone
 * stale). A step with a probe, gradient hook or profile attached runs
 * eagerly and keeps the recording for the steps after it. A capture that
 * fails gives graphs up for the rest of the run (the step runs eagerly;
 * the reason is kept), since it fails again at every step. */
#ifndef RF_TRAIN_GRAPH_H
#define RF_TRAIN_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "op.h"
#include "status.h"

typedef struct rf_step_graph {
    const rf_backend *device;   /* NULL: off (train.cuda_graph = off, the CPU, several ranks) */
    const rf_graph *graph;      /* the graph the recording's step ran */
    void *recording;            /* NULL until captured */
    bool ran_eagerly;           /* a step of `graph` ran eagerly since the last capture */
    int64_t captures, replays;
    char given_up[RF_STATUS_MSG];   /* why a capture failed; "" if none did */
} rf_step_graph;

/* Off unless cuda_graph is "auto" and the device captures. */
void rf_step_graph_init(rf_step_graph *sg, const rf_backend *device, const char *cuda_graph);
void rf_step_graph_free(rf_step_graph *sg);

/* Queue one step of `g`: body(ctx) queues its work (forward, backward,
 * the optimiser), eagerly or under capture, or a replay stands in for it. */
void rf_step_graph_run(rf_step_graph *sg, const rf_graph *g, void (*body)(void *ctx), void *ctx);

#endif
