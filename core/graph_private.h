/* The graph's private layout, shared by graph.c and exec.c only. */
#ifndef RF_GRAPH_PRIVATE_H
#define RF_GRAPH_PRIVATE_H

#include "exec.h"

struct rf_graph {
    rf_params *params;
    rf_node *nodes;
    bool *keep;                 /* value must survive to the end of the step */
    int count;
    int capacity;
    bool failed;
    char error[RF_STATUS_MSG];
    rf_id row_scope;            /* rf_graph_row_scope's rows_by, or RF_NONE */
    rf_id row_scope_start;      /* the first node added in it */

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

/* Free the arena and planning tables (the nodes stay). */
void rf_graph_release(rf_graph *g);

#endif
