/* The computation graph: nodes, op constructors, and the rules every kernel
 * follows.
 *
 * A model is built once per input shape as a list of nodes in execution
 * order. Each node is an input (filled by the caller), a parameter (its value
 * and gradient live in an rf_params store), or an op over earlier nodes.
 * Constructors only check shapes and record the op; nothing is computed and
 * nothing is allocated for data until rf_graph_prepare() runs the memory
 * planner and hands every node its buffers inside one arena.
 *
 *     rf_graph *g = rf_graph_new(params);
 *     rf_id x = rf_input(g, "x", rf_shape2(B, D), false);
 *     rf_id w = rf_param(g, "fc.weight", rf_shape2(D, C), RF_INIT_NORMAL, 0.02f);
 *     rf_id y = rf_matmul(g, x, w, false, false);
 *     rf_graph_prepare(g, true, &st);      // plan + allocate, training mode
 *     ... fill rf_value(g, x) ..., rf_graph_forward(g, &exec), ...
 *
 * Shapes are row-major and contiguous; dim[ndim-1] varies fastest.
 * Integer data (token ids, labels) travels as f32 holding exact integers;
 * masks are f32 with 1 = valid, 0 = padding.
 *
 * Gradient rule (one rule, for every kernel): a backward kernel ADDS (+=) its
 * contribution into each input's grad buffer, if that buffer is non-NULL. The
 * executor zeroes an activation's grad buffer just before its first writer
 * runs, and zeroes parameter grads once per step (rf_params_zero_grads), so
 * kernels never zero anything themselves.
 */
#ifndef RF_GRAPH_H
#define RF_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"
#include "tiles.h"

#define RF_MAX_DIMS 4
#define RF_MAX_INPUTS 4
#define RF_MAX_IARGS 8
#define RF_MAX_FARGS 4
#define RF_NAME_LEN 96

typedef int32_t rf_id;          /* index of a node in its graph */
#define RF_NONE ((rf_id)-1)     /* "no node", e.g. no mask or no bias */

typedef struct rf_shape {
    int ndim;
    int64_t dim[RF_MAX_DIMS];
} rf_shape;

static inline rf_shape rf_shape1(int64_t a) { return (rf_shape){1, {a, 1, 1, 1}}; }
static inline rf_shape rf_shape2(int64_t a, int64_t b) { return (rf_shape){2, {a, b, 1, 1}}; }
static inline rf_shape rf_shape3(int64_t a, int64_t b, int64_t c) { return (rf_shape){3, {a, b, c, 1}}; }
static inline rf_shape rf_shape4(int64_t a, int64_t b, int64_t c, int64_t d) { return (rf_shape){4, {a, b, c, d}}; }
static inline rf_shape rf_shape_scalar(void) { return (rf_shape){0, {1, 1, 1, 1}}; }
int64_t rf_shape_numel(rf_shape s);
bool rf_shape_equal(rf_shape a, rf_shape b);

/* The op codes. OP_INPUT and OP_PARAM are leaves. */
typedef enum rf_op {
    RF_OP_INPUT,
    RF_OP_PARAM,
    RF_OP_MATMUL,
    RF_OP_LINEAR,
    RF_OP_ADD,
    RF_OP_SUB,
    RF_OP_MUL,
    RF_OP_SCALE,
    RF_OP_UNARY,
    RF_OP_RESHAPE,
    RF_OP_PERMUTE,
    RF_OP_CONCAT,
    RF_OP_SLICE,
    RF_OP_PAD,
    RF_OP_SOFTMAX,
    RF_OP_LOG_SOFTMAX,
    RF_OP_LAYERNORM,
    RF_OP_EMBEDDING,
    RF_OP_CONV1D,
    RF_OP_CONV2D,
    RF_OP_SUM,
    RF_OP_MEAN,
    RF_OP_MASKED_MEAN,
    RF_OP_DROPOUT,
    RF_OP_CROSS_ENTROPY,
    RF_OP_BCE_LOGITS,
    RF_OP_ATTENTION,
    RF_OP_LS_ATTENTION,       /* core/ops/ls_attention.h */
    RF_OP_LINEAR_ATTENTION,   /* core/ops/linear_attention.h */
    RF_OP_TALK,               /* core/ops/talk.h */
    RF_OP_SORT_ROWS,
    RF_OP_GLU,
    RF_OP_COUNT
} rf_op;

typedef enum rf_unary_kind {
    RF_UNARY_GELU,      /* exact, with erf (as torch.nn.GELU()) */
    RF_UNARY_RELU,
    RF_UNARY_ELU,       /* alpha = 1 */
    RF_UNARY_SOFTPLUS,  /* log(1 + e^x), computed stably */
    RF_UNARY_SIGMOID,
    RF_UNARY_COUNT
} rf_unary_kind;

typedef enum rf_init {
    RF_INIT_ZEROS,
    RF_INIT_ONES,
    RF_INIT_NORMAL,     /* N(0, scale^2) */
    RF_INIT_UNIFORM,    /* U(-scale, scale) */
    RF_INIT_SINUSOIDAL, /* [rows, cols]: row r is position r, Vaswani et al.'s sin on even and cos on odd
                           channels (scale unused) */
} rf_init;

/* The element type of a node's value buffer. RF_BF16 (uint16_t: the top
 * half of an f32, rounded to nearest even) only where train.precision =
 * bf16 lets the CPU keep an activation in bf16 (core/bf16_storage.h);
 * gradients, aux, inputs and parameters are f32 always. */
typedef enum rf_dtype { RF_F32, RF_BF16 } rf_dtype;

typedef struct rf_node {
    rf_op op;
    int n_in;
    rf_id in[RF_MAX_INPUTS];
    rf_shape shape;
    int64_t ia[RF_MAX_IARGS];   /* op arguments; meaning documented per constructor */
    float fa[RF_MAX_FARGS];
    /* Parameter name, input name, probe name or "": text the graph holds
     * (rf_set_name), not inline, as most nodes have none. */
    const char *name;
    bool needs_grad;            /* some parameter/input upstream wants a gradient */
    int param_index;            /* OP_PARAM: slot in the params store, else -1 */

    /* Filled by rf_graph_prepare. */
    float *value;               /* numel floats; numel uint16_t where dtype is RF_BF16 */
    rf_dtype dtype;             /* set when planned (core/bf16_storage.h) */
    float *grad;                /* numel floats, NULL when !needs_grad */
    float *aux;                 /* aux_floats floats saved from forward for backward */
    size_t aux_floats;
    /* While a probe is attached, the probed sample's part of the layout its
     * op's probe_aux_floats describes (full attention's probabilities
     * [heads, N, M], computed on demand), which taps of kind RF_TAP_AUX
     * read from instead of aux; NULL: they read aux. */
    const float *probe_aux;
    /* rf_graph_row_scope: the node computes only the batch rows r < R, R =
     * 1 + the last row whose first element of rows_by is nonzero (RF_NONE:
     * every row), and R as found by the last forward pass. */
    rf_id rows_by;
    int64_t rows_active;
    /* The share of its products the op's last forward skipped as all
     * padding (the CPU's full attention: key blocks whose keys are all
     * masked, skipped by its backward too); 0 for every other op. */
    double skipped;
    /* rf_graph_region: the recomputation region the node was added in, or
     * -1. rf_graph_recompute: for a node of a recomputed region, the clone
     * that recomputes it in the backward pass (RF_NONE otherwise); for a
     * clone, the node it recomputes (RF_NONE otherwise). */
    int32_t region;
    rf_id recompute_as;
    rf_id recompute_of;
    /* Full attention on the CPU: the block it runs with, chosen for this
     * CPU when the graph is first planned (core/tiles.h); {0, 0} before. */
    rf_attn_tile tile;
} rf_node;

typedef struct rf_params rf_params;   /* see params.h */
typedef struct rf_graph rf_graph;

rf_graph *rf_graph_new(rf_params *params);
void rf_graph_free(rf_graph *g);

int rf_graph_size(const rf_graph *g);
rf_node *rf_graph_node(rf_graph *g, rf_id id);
const rf_node *rf_graph_cnode(const rf_graph *g, rf_id id);
rf_params *rf_graph_params(rf_graph *g);
/* After prepare; for nodes whose value is f32 (inputs, parameters, kept
 * nodes such as logits and the loss, named nodes: never kept in bf16). */
float *rf_value(rf_graph *g, rf_id id);
float *rf_grad(rf_graph *g, rf_id id);    /* after prepare; NULL if no grad */
rf_shape rf_node_shape(const rf_graph *g, rf_id id);
rf_id rf_graph_find(const rf_graph *g, const char *name); /* RF_NONE if absent */

/* Bytes the graph holds for itself rather than for tensors: its nodes,
 * their names, its taps and the backward pass's order (those in use). No
 * plan counts them (BLRP at a million tokens: some 2.6 million nodes). */
size_t rf_graph_own_bytes(const rf_graph *g);

/* Give node `id` a name (for probes: "layer1.attn.probs"); printf-style,
 * cut at RF_NAME_LEN - 1 bytes. */
void rf_set_name(rf_graph *g, rf_id id, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The first shape error met while building; constructors return RF_NONE
 * after it and every later constructor given RF_NONE returns RF_NONE, so a
 * builder can check once at the end. */
bool rf_graph_ok(const rf_graph *g);
const char *rf_graph_error(const rf_graph *g);

/* ---- leaves ---- */
rf_id rf_input(rf_graph *g, const char *name, rf_shape shape, bool needs_grad);
/* Finds the parameter `name` in the store, or creates and initialises it
 * (deterministically from the store's seed and the name). */
rf_id rf_param(rf_graph *g, const char *name, rf_shape shape, rf_init init, float scale);
/* Parameters declared after this call need no gradient: the backward pass
 * gives the inputs' gradients only and skips every weight-gradient product
 * (attribution, which explains a fixed model). */
void rf_graph_freeze_params(rf_graph *g);

/* ---- linear algebra ---- */
/* a: [..., M, K] ([..., K, M] if ta), b: [..., K, N] ([..., N, K] if tb).
 * Leading (batch) dims of a and b must be equal, or b is 2-D and shared by
 * every batch. Out: [..., M, N]. ia = {ta, tb}. */
rf_id rf_matmul(rf_graph *g, rf_id a, rf_id b, bool ta, bool tb);
/* x: [..., K], w: [K, N], bias: [N] or RF_NONE. Out [..., N]. One GEMM. */
rf_id rf_linear(rf_graph *g, rf_id x, rf_id w, rf_id bias);

/* ---- elementwise ---- */
/* NumPy broadcasting (right-aligned, size-1 dims stretch). */
rf_id rf_add(rf_graph *g, rf_id a, rf_id b);
rf_id rf_sub(rf_graph *g, rf_id a, rf_id b);
rf_id rf_mul(rf_graph *g, rf_id a, rf_id b);
rf_id rf_scale(rf_graph *g, rf_id x, float s);           /* fa[0] = s */
rf_id rf_unary(rf_graph *g, rf_id x, rf_unary_kind kind); /* ia[0] = kind */
rf_id rf_gelu(rf_graph *g, rf_id x);
rf_id rf_relu(rf_graph *g, rf_id x);
rf_id rf_elu(rf_graph *g, rf_id x);
rf_id rf_softplus(rf_graph *g, rf_id x);
rf_id rf_sigmoid(rf_graph *g, rf_id x);
/* x [..., 2d] -> [..., d]: the first half times the sigmoid of the second
 * (torch.nn.GLU over the last axis), one pass instead of two slices, a
 * sigmoid and a product */
rf_id rf_glu(rf_graph *g, rf_id x);

/* ---- shape ---- */
rf_id rf_reshape(rf_graph *g, rf_id x, rf_shape shape);  /* same numel */
/* perm[i] = which input axis becomes output axis i; ia[0..ndim-1] = perm. */
rf_id rf_permute(rf_graph *g, rf_id x, const int *perm);
rf_id rf_transpose(rf_graph *g, rf_id x, int axis0, int axis1);
/* Two to four inputs with equal shapes except along `axis`; ia[0] = axis. */
rf_id rf_concat(rf_graph *g, const rf_id *xs, int n, int axis);
/* ia = {axis, start, len}. */
rf_id rf_slice(rf_graph *g, rf_id x, int axis, int64_t start, int64_t len);
/* ia = {axis, before, after}, fa[0] = fill value. */
rf_id rf_pad(rf_graph *g, rf_id x, int axis, int64_t before, int64_t after, float value);
/* Row scopes, for work a batch's padding makes useless (BLRP's segment
 * steps, core/encoders/blrp.c). Between rf_graph_row_scope(g, rows_by) and
 * rf_graph_row_scope(g, RF_NONE), every op added runs, on the CPU, only on
 * the batch rows r < R, R = 1 + the last row b whose first element of
 * rows_by [B, ...] is nonzero (found at each forward pass): the other rows
 * of its output are zero, its backward adds nothing from them, and
 * parameters get gradients from rows < R only. That is the unscoped result
 * wherever rows >= R do not reach the loss (a gate by rows_by after the
 * scope), and sorting the batch first (rf_sort_rows) makes R the number of
 * rows that need the work. Only row-wise ops may be scoped (linear, the
 * element-wise ops, layernorm, dropout, attention; reshape, concat, slice
 * and pad not along axis 0), each [B, ...] like every input it takes that
 * is not a parameter; closing the scope fails the graph otherwise. A probe
 * attached to the graph turns scopes off for its passes. */
void rf_graph_row_scope(rf_graph *g, rf_id rows_by);

/* x [B, ...] with its rows reordered by how many valid entries (nonzero)
 * each row of mask [B, M] has, most first, ties in row order: out[i] =
 * x[p[i]]. With `inverse` the rows go back, out[p[i]] = x[i], so sorting
 * and then unsorting with the same mask gives x. The order is found from
 * the mask in each forward pass (kept in aux for backward; the mask gets no
 * gradient); while a probe is attached it is the identity, so that taps see
 * the batch's rows in the batch's order. ia[0] = inverse. For
 * rf_graph_row_scope: sorted, a segment's valid rows come first. */
rf_id rf_sort_rows(rf_graph *g, rf_id x, rf_id mask, bool inverse);

/* Recomputation regions (train.recompute, core/recompute.h). Every op added
 * after rf_graph_region(g, kind) belongs to one new region of that kind
 * (an encoder block, a BLRP segment step), until the next call opens
 * another or rf_graph_region(g, RF_REGION_NONE) closes it. Marking changes
 * nothing until rf_graph_recompute transforms the graph. */
typedef enum rf_region_kind {
    RF_REGION_NONE,
    RF_REGION_LAYER,     /* one block of a layered encoder */
    RF_REGION_SEGMENT,   /* recomputed by segments alone: a step of BLRP's recurrence
                          * over the segments, its Φ, Θ_X's queries */
    RF_REGION_SUBLAYER,  /* the rest of the block before it: part of that
                          * region under layers, one of its own under segments */
} rf_region_kind;
void rf_graph_region(rf_graph *g, rf_region_kind kind);

/* ---- softmax and normalisation (all over the last axis) ---- */
/* mask: RF_NONE, or broadcastable to x (right-aligned); entries where
 * mask == 0 get probability 0. A row with every entry masked gives zeros. */
rf_id rf_softmax(rf_graph *g, rf_id x, rf_id mask);
rf_id rf_log_softmax(rf_graph *g, rf_id x);
/* gamma, beta: [D] where D = last dim of x (either may be RF_NONE). fa[0] = eps;
 * ia[0], ia[1] = input slots of gamma, beta (-1 when absent). */
rf_id rf_layernorm(rf_graph *g, rf_id x, rf_id gamma, rf_id beta, float eps);

/* ---- embedding and convolution ---- */
/* ids: any shape, integer values in [0, V). table: [V, D]. Out: ids.shape + [D].
 * An out-of-range id is a programmer error caught by the data layer. */
rf_id rf_embedding(rf_graph *g, rf_id ids, rf_id table);
/* x: [B, Cin, L], w: [Cout, Cin, K], bias: [Cout] or RF_NONE.
 * Out: [B, Cout, (L + 2*pad - K)/stride + 1]. ia = {stride, pad}. */
rf_id rf_conv1d(rf_graph *g, rf_id x, rf_id w, rf_id bias, int stride, int pad);
/* x: [B, Cin, H, W], w: [Cout, Cin, KH, KW]. ia = {stride_h, stride_w, pad_h, pad_w}. */
rf_id rf_conv2d(rf_graph *g, rf_id x, rf_id w, rf_id bias, int stride_h, int stride_w,
                int pad_h, int pad_w);

/* ---- reductions ---- */
/* axis in [0, ndim) removes that axis; axis = -1 reduces everything to a
 * scalar. ia[0] = axis. */
rf_id rf_sum(rf_graph *g, rf_id x, int axis);
rf_id rf_mean(rf_graph *g, rf_id x, int axis);
/* x: [B, N, D], mask: [B, N]. Out [B, D]: mean over valid tokens (zeros for
 * a row with no valid token). */
rf_id rf_masked_mean(rf_graph *g, rf_id x, rf_id mask);

/* ---- regularisation ---- */
/* Inverted dropout with probability p. Element i of node `node` is kept
 * when rf_uniform(seed ^ 0xd40, step * 0x100000001b3 + node, i) >= p, with
 * the executor's seed and step (core/rng.h: the top 53 bits of the
 * splitmix64 finaliser applied as mix(mix(mix(seed) ^ stream) ^ counter));
 * so reproducible and independent of thread count (rf_dropout_keep in
 * core/op.h). Identity when the executor is not training. fa[0] = p. */
rf_id rf_dropout(rf_graph *g, rf_id x, float p);

/* ---- losses (scalar outputs, mean over the batch) ---- */
/* logits: [B, C], labels: [B] integer class ids. */
rf_id rf_cross_entropy(rf_graph *g, rf_id logits, rf_id labels);
/* logits, targets: same shape, targets in [0, 1]; mean over all elements. */
rf_id rf_bce_logits(rf_graph *g, rf_id logits, rf_id targets);

/* ---- attention ---- */
/* Multi-head scaled dot-product attention, fused.
 * q: [B, N, D], k and v: [B, M, D], key_mask: [B, M] or RF_NONE.
 * Heads split D into `heads` contiguous groups of D/heads.
 * Out [B, N, D] (heads concatenated). Flash-style: no N x M matrix is kept;
 * aux holds each query row's log-sum-exp [B, heads, N] and backward
 * recomputes the probabilities from it. The probabilities [B, heads, N, M]
 * are computed for one sample only while a probe asks for them (the
 * "layer<i>.attn.probs" taps). A query whose keys are all masked outputs
 * zeros. `dropout`: while training, probability (b, h, i, j) is dropped
 * (the rest scaled by 1 / (1 - dropout)) by rf_dropout's rule with element
 * index ((b heads + h) N + i) M + j of this node, so the mask depends on
 * neither the blocking nor the thread count. ia[0] = heads, fa[0] = scale,
 * fa[1] = dropout. */
rf_id rf_attention(rf_graph *g, rf_id q, rf_id k, rf_id v, rf_id key_mask, int heads, float scale, float dropout);

#endif
