/* The graph's private layout, shared by graph.c and exec.c only. */
#ifndef RF_GRAPH_PRIVATE_H
#define RF_GRAPH_PRIVATE_H

#include "exec.h"

struct rf_graph {
    rf_params *params;
    rf_node *nodes;
    bool *keep;                 /* value must survive to the end of the step */
    struct rf_name_chunk *names;   /* the nodes' names' text (graph.c) */
    int count;
    int capacity;
    bool failed;
    char error[RF_STATUS_MSG];
    rf_id row_scope;            /* rf_graph_row_scope's rows_by, or RF_NONE */
    rf_id row_scope_start;      /* the first node added in it */
    int32_t region;             /* rf_graph_region's open region, or -1 */
    int region_count;           /* regions opened so far */
    rf_region_kind *region_kind;   /* per region */
    int originals;              /* nodes before rf_graph_recompute's clones (g->count without them) */
    bool bf16_storage;          /* rf_graph_set_bf16_storage: values may be kept in bf16 */
    bool params_frozen;         /* rf_graph_freeze_params: later parameters need no gradient */

    /* rf_graph_recompute: the backward pass's steps, in order (set by plan) */
    struct rf_step *steps;
    int step_count;

    /* set by prepare */
    bool prepared;
    rf_id loss;
    bool *on_backward;          /* node's backward runs (ancestor of loss, needs grad) */
    rf_id *first_writer;        /* the consumer whose backward first writes a node's grad */
    float *arena;
    size_t arena_bytes;
    float *scratch;
    size_t scratch_floats;
    bool borrowed;              /* arena and scratch belong to another graph */
    int planned_threads;        /* scratch is sized for at most this many pool threads */

    struct rf_tap *taps;        /* see probe.h */
    int tap_count;
    int tap_capacity;

    const rf_backend *backend;  /* where kernels run; set before prepare (default: the CPU) */

    rf_probe_fn probe;
    void *probe_ctx;
    rf_param_ready_fn param_ready;   /* see exec.h; NULL: off */
    void *param_ready_ctx;
    int64_t probe_sample;       /* the batch row the attached probe reads */
    float *probe_space;         /* rf_graph_probe_space's buffer (malloc'd) */
    size_t probe_space_floats;
    struct rf_op_profile *profile;   /* see exec.h; NULL: off */
};

/* One step of the backward pass: node's backward kernel, or, for a clone
 * of rf_graph_recompute, its forward kernel (recomputing its value). */
typedef struct rf_step {
    rf_id node;
    bool forward;
} rf_step;

/* Append a copy of node `of` (its op, inputs and arguments; no name). */
rf_id rf_graph_append_copy(rf_graph *g, rf_id of);

/* Free the arena and planning tables (the nodes stay). */
void rf_graph_release(rf_graph *g);

#endif
