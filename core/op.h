/* What the executor needs to know about each op, and the kernel interface
 * every backend implements. Internal to the engine: models use graph.h.
 *
 * Adding an op: an enum value in graph.h, a constructor and an rf_op_info
 * in core/ops/<family>.c, CPU kernels in core/cpu/<family>.c, one line in
 * core/ops/registry.c and core/cpu/backend.c, and a case in tests/test_ops_*.c.
 */
#ifndef RF_OP_H
#define RF_OP_H

#include "graph.h"
#include "pool.h"
#include "rng.h"

/* Per-step execution context handed to kernels. */
typedef struct rf_exec {
    rf_graph *g;
    rf_pool *pool;            /* may be NULL: run inline */
    float *scratch;           /* shared temporary space, valid during one kernel call */
    size_t scratch_floats;
    uint64_t seed;            /* run seed (dropout) */
    uint64_t step;            /* training step (dropout) */
    bool training;            /* dropout active */
    bool probing;             /* a probe is attached (set by forward and backward): kernels
                                 leave in aux what the taps read, or in node->probe_aux
                                 what their op's probe_aux_floats describes */
    int64_t probe_sample;     /* the batch row the attached probe reads */
    bool queued;              /* a device step: forward and backward return without
                                 waiting for the device (the trainer syncs when it reads) */
    int shard;                /* this process's rank in a data-parallel run (0 alone): its
                                 rows are rows shard*batch.. of the global batch, so dropout
                                 keys element i of a tensor as shard*numel + i */
    bool fresh[RF_MAX_INPUTS];   /* backward, for ops in the backend's fresh_grads: input k's
                                    gradient is not written yet this step and was not zeroed,
                                    so the kernel writes it (=) instead of adding (+=) */
} rf_exec;

typedef void (*rf_kernel)(rf_exec *x, rf_node *n);

enum {
    RF_BWD_READS_INPUTS = 1u << 0,   /* backward reads input values */
    RF_BWD_READS_OUTPUT = 1u << 1,   /* backward reads this node's value */
    RF_SCRATCH_BWD_ONLY = 1u << 2,   /* only backward uses scratch_floats: a node whose
                                        backward never runs (inference) plans none */
};

typedef struct rf_op_info {
    const char *name;
    unsigned flags;
    /* floats saved by forward for backward (node->aux); NULL means none */
    size_t (*aux_floats)(const rf_graph *g, const rf_node *n);
    /* temporary floats a forward or backward call needs, for `threads`
     * threads (exec->scratch); NULL means none */
    size_t (*scratch_floats)(const rf_graph *g, const rf_node *n, int threads);
    /* The layout taps of kind RF_TAP_AUX read, where it is not aux: full
     * attention's probabilities [B, heads, N, M], which no kernel keeps;
     * while a probe is attached, forward computes the probed sample's rows
     * into node->probe_aux. NULL: the taps read aux. */
    size_t (*probe_aux_floats)(const rf_graph *g, const rf_node *n);
} rf_op_info;

extern const rf_op_info *const rf_op_infos[RF_OP_COUNT];

/* AdamW's scalars for one step (core/optim.c computes them). */
typedef struct rf_adamw_args {
    float lr, beta1, beta2, eps, decay;
    float c1, c2;            /* bias corrections 1 - beta^t */
} rf_adamw_args;

/* What a device's guard leaves after each queued optimiser step (see
 * rf_backend.queue_step), in the backend's host-addressable memory. */
typedef struct rf_step_report {
    double loss, norm;           /* the last queued step's loss and gradient norm */
    int64_t first_bad;           /* the first step (1-based) whose loss or norm was not finite; 0: none */
    double bad_loss, bad_norm;   /* that step's */
    float scale;                 /* the backend's own: the clipping factor it applied */
    int32_t skip;                /* the backend's own: the last step was skipped */
} rf_step_report;

struct rf_collective;   /* core/collective.h */
struct rf_gemm_list;   /* core/gemm.h */

typedef struct rf_backend {
    const char *name;
    rf_kernel forward[RF_OP_COUNT];
    rf_kernel backward[RF_OP_COUNT];
    /* Per op, the inputs (bit k: input k) whose gradient its backward
     * kernel writes with = when rf_exec.fresh[k] says so: the first of a
     * node's consumers to run backward then overwrites its gradient, which
     * saves zeroing it first (2.2 GB of memset per BLRP step otherwise). */
    unsigned char fresh_grads[RF_OP_COUNT];
    /* bf16 storage (core/bf16_storage.h), per op. bf16_writes: its forward
     * kernel can write its value in bf16 (computed in f32, rounded to
     * nearest even as rf_bf16_round); such an op's backward never reads
     * its own value. bf16_reads: the inputs (bit k: input k) its forward
     * and backward kernels can read in bf16 wherever they read that
     * input's value. bf16_moves: ops that only move elements (reshape,
     * permute), which read a bf16 input only into a bf16 value, so the
     * copy stays exact. A backend that leaves them zero keeps every value
     * in f32. */
    bool bf16_writes[RF_OP_COUNT];
    unsigned char bf16_reads[RF_OP_COUNT];
    bool bf16_moves[RF_OP_COUNT];
    /* A device backend's memory and per-step services; the CPU backend
     * leaves them all NULL (rf_alloc, memset and core/optim.c's loops).
     * Device memory must be addressable by the host too (CUDA managed
     * memory), so inputs, logits, checkpoints and probes keep using plain
     * pointers; kernels are queued, and `sync` waits for them before the
     * host reads or writes what they touch. */
    void *(*alloc)(size_t bytes);                 /* zeroed; NULL on failure */
    void (*free)(void *p);
    void (*zero)(float *p, int64_t n);
    void (*fill)(float *p, int64_t n, float v);   /* queued: a loss's gradient seed of ones */
    void (*sync)(void);
    double (*sum_squares)(const float *p, int64_t n);   /* NaN and Inf propagate */
    void (*scale)(float *p, int64_t n, float s);
    void (*adamw)(rf_params *p, const rf_adamw_args *a);
    /* What this backend's kernels save in a node's aux and need as scratch,
     * where that differs from the op table (NULL: rf_op_infos' functions).
     * The planner plans with these, so a device's plan is its memory. */
    size_t (*aux_floats)(const rf_graph *g, const rf_node *n);
    size_t (*scratch_floats)(const rf_graph *g, const rf_node *n, int threads);
    /* The matrix products node n's forward (or backward) kernel will run,
     * added to `out` when the graph is prepared, so the library for each
     * shape is chosen before the first step (core/gemm.h). NULL: none. */
    void (*products)(rf_graph *g, const rf_node *n, bool backward, struct rf_gemm_list *out);
    /* The most device memory the engine held at once (NULL: host memory,
     * core/alloc.h's rf_alloc_peak_bytes). */
    size_t (*peak_bytes)(void);
    /* The optimiser step without the host waiting (NULL: the host reads the
     * loss and the gradient norm after every step and runs rf_clip_grads
     * and adamw itself): the gradients' global norm, the guard (a loss or
     * norm that is not finite skips the update and, the first time, is
     * kept in `report`), clipping to the clip of step_scalars (<= 0: none)
     * as rf_clip_grads does, and AdamW with its scalars, queued after the
     * backward pass. `report` lives in this backend's memory (alloc), read
     * after sync. */
    void (*queue_step)(rf_params *p, const float *loss, rf_step_report *report);
    /* A queued step's scalars, sent in stream order before its kernels,
     * which read them when they run: `step` the steps finished before it
     * (rf_exec.step: dropout's key; the guard names step + 1), the clip and
     * AdamW's. So a step captured once (below) replays with each step's
     * own values. False when they could not be sent. Set with queue_step. */
    bool (*step_scalars)(uint64_t step, double clip, const rf_adamw_args *a);
    /* A queued step captured once and replayed (CUDA graphs; NULL: the
     * backend cannot). capture_begin: the work queued from now on is
     * recorded, not run; capture_end: the recording, ready to replay, or
     * NULL with one sentence in `why` when the capture failed (a call the
     * capture refused; nothing recorded ran); replay queues a recording's
     * work again, reading the memory it was recorded with (false on
     * failure); release frees one. */
    bool (*capture_begin)(void);
    void *(*capture_end)(char *why, size_t size);
    bool (*replay)(void *recording);
    void (*release)(void *recording);
    /* Copy host arrays into device buffers in stream order (after the
     * kernels queued before, before those queued after), returning once the
     * host arrays may be reused: through pinned staging on a copy stream,
     * so a batch's transfer overlaps the previous step's kernels. False on
     * failure. NULL: the host writes device memory itself. */
    bool (*upload)(int count, float *const *dst, const float *const *src, const size_t *bytes);
    /* Whether its kernels take this node's shapes (NULL: all): false with
     * one sentence in `why` (a head too wide for a kernel's tiles). */
    bool (*accepts)(const rf_graph *g, const rf_node *n, char *why, size_t size);
    /* Data parallelism between devices, one per rank (NCCL): join the
     * ranks of `c` once per process (false with one sentence in `why`),
     * then average `n` floats of device memory over them in stream order,
     * after the kernels queued before. NULL: this backend cannot, and the
     * trainer refuses several ranks on it. */
    bool (*join_ranks)(struct rf_collective *c, char *why, size_t size);
    void (*average_ranks)(float *p, int64_t n);
} rf_backend;

extern const rf_backend rf_cpu_backend;

/* The linear backward's chunks of rows (core/cpu/linalg.c): weights of up
 * to RF_LINEAR_CHUNK_MAX_WEIGHT floats with at least two chunks of
 * RF_LINEAR_ROW_CHUNK rows keep each chunk's partial dW and dbias in
 * scratch, chunks x (K N + N) floats. */
#define RF_LINEAR_ROW_CHUNK 2048
#define RF_LINEAR_CHUNK_MAX_WEIGHT 65536

/* Room for one node's probe_aux (rf_op_info.probe_aux_floats) while a probe
 * is attached: the graph keeps one buffer for all nodes, outside the plan
 * (the hook copies each node's before the next node runs), grown to the
 * largest request and freed when the probe is detached. NULL if it cannot
 * be had. */
float *rf_graph_probe_space(rf_graph *g, size_t floats);

/* A bf16 node's value (dtype RF_BF16) as what it holds. */
static inline uint16_t *rf_value16(const rf_node *n)
{
    return (uint16_t *)(void *)n->value;
}

/* Convenience for kernels. */
static inline rf_node *rf_in(rf_exec *x, const rf_node *n, int k)
{
    return rf_graph_node(x->g, n->in[k]);
}

/* The node id dropout keys its masks by: a recomputing clone's is its
 * original's (core/recompute.h), so it draws the same mask. */
static inline rf_id rf_dropout_node(rf_exec *x, const rf_node *n)
{
    return n->recompute_of != RF_NONE ? n->recompute_of : (rf_id)(n - rf_graph_node(x->g, 0));
}

/* Dropout's keep decision, as rf_dropout documents it (graph.h). */
static inline bool rf_dropout_keep(uint64_t seed, uint64_t step, rf_id node, int64_t i, float p)
{
    return rf_uniform(seed ^ 0xd40u, step * 0x100000001b3ull + (uint64_t)node, (uint64_t)i) >= p;
}

/* ---- for constructors (core/ops/) ---- */
/* Append an op node over `in` with output `shape`; needs_grad is the OR of
 * the inputs'. Returns RF_NONE (and records nothing) if any input is RF_NONE
 * or the graph already failed. */
rf_id rf_graph_add_op(rf_graph *g, rf_op op, const rf_id *in, int n_in, rf_shape shape);
/* Record a shape error (first one wins) and return RF_NONE. */
rf_id rf_graph_fail(rf_graph *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* True if every id is a valid node and the graph has not failed. */
bool rf_graph_inputs_ok(const rf_graph *g, const rf_id *in, int n_in);
/* The shared checks of multi-head attention ops `op` ("attention",
 * "linear_attention"): q [B, N, D], k = v [B, M, D], heads dividing D, a key
 * mask [B, M] (or RF_NONE) that needs no gradient. On a mismatch records
 * the error and returns false. */
bool rf_qkv_shapes_ok(rf_graph *g, const char *op, rf_id q, rf_id k, rf_id v, rf_id key_mask, int heads);
/* "[2, 3, 4]" into buf; returns buf. */
const char *rf_shape_str(rf_shape s, char *buf, size_t size);

#endif
