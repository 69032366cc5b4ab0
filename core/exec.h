/* Planning, allocating and running a graph.
 *
 * rf_graph_plan computes where every buffer goes (without allocating);
 * rf_graph_prepare plans and allocates one arena for all activations,
 * gradients, saved tensors, and one shared scratch buffer. After prepare,
 * forward/backward may run any number of times with no allocation.
 */
#ifndef RF_EXEC_H
#define RF_EXEC_H

#include "op.h"
#include "plan_pack.h"

typedef struct rf_graph_plan_info {
    size_t arena_bytes;        /* activations + activation grads + saved tensors */
    size_t buffer_bytes;       /* all arena buffers together, before reuse */
    size_t scratch_bytes;      /* the shared scratch buffer */
    int backward_nodes;        /* nodes on the path from parameters/inputs to loss */
} rf_graph_plan_info;

/* `loss`: the node backward starts from (its grad is seeded with ones), or
 * RF_NONE for an inference-only graph. `threads`: for scratch sizing. */
bool rf_graph_plan(rf_graph *g, rf_id loss, int threads, rf_graph_plan_info *out, rf_status *st);
/* rf_graph_plan's placement itself: every buffer with its live slots and
 * offset (floats into the arena), for checking the planner. The caller
 * frees *buf. */
bool rf_graph_plan_buffers(rf_graph *g, rf_id loss, int threads, rf_plan_buffer **buf, int *count, rf_status *st);
bool rf_graph_prepare(rf_graph *g, rf_id loss, int threads, rf_graph_plan_info *out, rf_status *st);
/* Prepare g inside `host`'s arena and scratch instead of allocating its
 * own: for graphs that run one at a time over the same parameters (the
 * same model built for shorter inputs). Fails, allocating nothing, when g
 * needs more than host holds. The graphs overwrite each other's buffers,
 * constants included: whoever runs next refills what it keeps. g must be
 * released before host. */
bool rf_graph_prepare_inside(rf_graph *g, const rf_graph *host, rf_id loss, int threads, rf_graph_plan_info *out,
                             rf_status *st);

/* After rf_graph_plan or rf_graph_prepare: whether node `id`'s backward runs
 * (it needs a gradient and leads to the loss; with rf_graph_recompute, a
 * recomputed node's clone runs it instead); false before. */
bool rf_graph_runs_backward(const rf_graph *g, rf_id id);

/* After rf_graph_plan or rf_graph_prepare: whether node `id` gets a
 * gradient (its backward, or with rf_graph_recompute its clone's, runs;
 * or it is a parameter or input that wants one); false before. */
bool rf_graph_gets_grad(const rf_graph *g, rf_id id);

/* Keep a node's value alive to the end of the step (the caller reads it:
 * logits, loss). Must be called before prepare. */
void rf_graph_keep(rf_graph *g, rf_id id);

/* Probe hook: called after each node's forward (backward = false) and after
 * its gradient is complete (backward = true), for nodes with a name. NULL to
 * disable: then it costs one pointer test per node. `sample`: the batch row
 * the hook reads (kernels that compute a probe's view on demand compute
 * that row's only). Detaching (fn NULL) frees what the kernels took for
 * such views (rf_graph_probe_space): a full-attention map of one sample
 * at 8,192 tokens is 2 GiB, which a run must not keep after a look. */
typedef void (*rf_probe_fn)(void *ctx, rf_graph *g, rf_id id, bool backward);
void rf_graph_set_probe(rf_graph *g, rf_probe_fn fn, void *ctx, int64_t sample);

/* Gradient hook: called in backward when a parameter node is reached, so
 * its gradient is complete from this node's uses (a parameter used by
 * several nodes is complete at the first of them). Data parallelism starts
 * summing a bucket of gradients over the ranks from here while backward
 * goes on. NULL to disable. */
typedef void (*rf_param_ready_fn)(void *ctx, rf_graph *g, rf_id id);
void rf_graph_set_param_ready(rf_graph *g, rf_param_ready_fn fn, void *ctx);

/* A probe, a gradient hook or a profile is attached: the host acts between
 * the kernels of a step, so a device cannot capture the step as a graph. */
bool rf_graph_host_hooks(const rf_graph *g);

/* Time spent per op kind (for `rangefinder bench --profile`): attach one
 * and every forward and backward kernel call is timed into it; NULL
 * detaches (then timing costs one pointer test per node). */
typedef struct rf_op_profile {
    double seconds[RF_OP_COUNT][2];   /* [op][0 forward, 1 backward] */
    int64_t calls[RF_OP_COUNT][2];
    double zero_seconds;              /* zeroing activation gradients */
} rf_op_profile;
void rf_graph_set_profile(rf_graph *g, rf_op_profile *p);
const char *rf_op_name(rf_op op);

/* Run this graph's kernels on `b` (core/op.h; the default is the CPU).
 * Before prepare, which then allocates the arena and scratch there. */
void rf_graph_set_backend(rf_graph *g, const rf_backend *b);
const rf_backend *rf_graph_backend(const rf_graph *g);

/* The first op of `g` (forward or backward) that `b` has no kernel for,
 * or RF_OP_COUNT when it can run the whole graph. */
rf_op rf_backend_missing_op(const rf_backend *b, const rf_graph *g);

/* Whether `b`'s kernels take every node's shapes; false with the first
 * refusal's sentence in `why`. */
bool rf_backend_accepts(const rf_backend *b, const rf_graph *g, char *why, size_t size);

/* Fill an rf_exec for this graph (scratch from the prepared graph). */
void rf_exec_init(rf_exec *x, rf_graph *g, rf_pool *pool, uint64_t seed, uint64_t step, bool training);

void rf_graph_forward(rf_graph *g, rf_exec *x);
/* Seeds grad(loss) with `seed` (numel floats), or with ones if seed == NULL,
 * then runs the backward kernels in reverse order (with rf_graph_recompute,
 * each recomputed region's clones forward first, then their backward).
 * Parameter grads accumulate; call rf_params_zero_grads first for a fresh
 * step. */
void rf_graph_backward(rf_graph *g, rf_exec *x, const float *seed);

#endif
