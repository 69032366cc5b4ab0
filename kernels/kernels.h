/* The CUDA kernels' launchers: C functions over raw device pointers, each
 * asynchronous on `stream` (launch errors: cudaGetLastError afterwards).
 *
 * Each op has the semantics of its CPU kernel in core/cpu/<family>.c,
 * including what the CPU op keeps in node->aux (same layout, so backward
 * may read either) and the gradient rule of core/graph.h: backward
 * launchers ADD (+=) into gradient buffers, and skip a NULL one. A launcher
 * given no elements launches nothing. Shapes are row-major, at most 4 dims.
 *
 * Sums run in a different order from the CPU's (warp and block trees,
 * atomics across blocks), so results agree with the CPU backend within the
 * rounding-error bounds of tests/tolerance.h, not bit for bit; dropout's
 * keep decisions, relu, add/sub/mul forward and the embedding gather are
 * exact. tests/test_cuda_kernels.cc checks every launcher against the CPU
 * backend. */
#ifndef RF_KERNELS_H
#define RF_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The CUDA runtime's own definition (driver_types.h), repeated so that C
 * code can call the launchers without the CUDA headers. */
typedef struct CUstream_st *cudaStream_t;

/* rf_shape's layout (core/graph.h); ndim 0 is a scalar. */
typedef struct rf_cuda_shape {
    int ndim;
    int64_t dim[4];
} rf_cuda_shape;

/* ---- element-wise (elementwise.cu) ---- */

typedef enum rf_cuda_binary { RF_CUDA_ADD, RF_CUDA_SUB, RF_CUDA_MUL } rf_cuda_binary;

/* out [os] = a op b, NumPy broadcasting of a [as] and b [bs] onto os. */
void rf_cuda_binary_forward(rf_cuda_binary op, const float *a, rf_cuda_shape as, const float *b, rf_cuda_shape bs,
                            float *out, rf_cuda_shape os, cudaStream_t stream);
/* da += dout (sub: db -= dout; mul: da += dout * b, db += dout * a), each
 * summed over the dims its operand is broadcast along. a and b are read
 * only for mul. */
void rf_cuda_binary_backward(rf_cuda_binary op, const float *dout, rf_cuda_shape os, const float *a,
                             rf_cuda_shape as, float *da, const float *b, rf_cuda_shape bs, float *db,
                             cudaStream_t stream);
/* y = s * x (y may be x: in-place, as gradient clipping needs) */
void rf_cuda_scale_forward(const float *x, float *y, int64_t n, float s, cudaStream_t stream);
/* dx += s * dy */
void rf_cuda_scale_backward(const float *dy, float *dx, int64_t n, float s, cudaStream_t stream);
/* y[i] = v for i < n (a loss's gradient seed, queued in stream order) */
void rf_cuda_fill(float *y, int64_t n, float v, cudaStream_t stream);
/* kind: an rf_unary_kind (0 gelu, 1 relu, 2 elu, 3 softplus, 4 sigmoid) */
void rf_cuda_unary_forward(int kind, const float *x, float *y, int64_t n, cudaStream_t stream);
/* dx += dy * f'(x) */
void rf_cuda_unary_backward(int kind, const float *x, const float *dy, float *dx, int64_t n, cudaStream_t stream);
/* x [rows, 2d] -> y [rows, d] = a * sigmoid(b), n = rows * d */
void rf_cuda_glu_forward(const float *x, float *y, int64_t n, int64_t d, cudaStream_t stream);
/* dx [rows, 2d] += (dy s, dy a s (1 - s)) */
void rf_cuda_glu_backward(const float *x, const float *dy, float *dx, int64_t n, int64_t d, cudaStream_t stream);

/* ---- softmax over the last axis (softmax.cu); one warp per row ---- */

/* mask: NULL, or [ms] broadcastable (right-aligned) to x [xs]; entries with
 * mask 0 get probability 0, a row with none valid becomes zeros. */
void rf_cuda_softmax_forward(const float *x, rf_cuda_shape xs, const float *mask, rf_cuda_shape ms, float *y,
                             cudaStream_t stream);
/* dx += y * (dy - sum(y * dy)) over rows of m */
void rf_cuda_softmax_backward(const float *y, const float *dy, float *dx, int64_t rows, int64_t m,
                              cudaStream_t stream);
void rf_cuda_log_softmax_forward(const float *x, float *y, int64_t rows, int64_t m, cudaStream_t stream);
/* dx += dy - exp(y) * sum(dy) */
void rf_cuda_log_softmax_backward(const float *y, const float *dy, float *dx, int64_t rows, int64_t m,
                                  cudaStream_t stream);

/* ---- layer normalisation over rows of d (norm.cu) ---- */

/* gamma, beta: [d] or NULL. aux: [2 rows]: the means, then the 1/std. */
void rf_cuda_layernorm_forward(const float *x, const float *gamma, const float *beta, float *y, float *aux,
                               int64_t rows, int64_t d, float eps, cudaStream_t stream);
/* dx, dgamma, dbeta: each may be NULL; dgamma and dbeta accumulate with
 * atomics across row chunks. */
void rf_cuda_layernorm_backward(const float *x, const float *gamma, const float *aux, const float *dy, float *dx,
                                float *dgamma, float *dbeta, int64_t rows, int64_t d, cudaStream_t stream);

/* ---- embedding (embedding.cu): ids hold integers in [0, V) as floats ---- */

void rf_cuda_embedding_forward(const float *ids, const float *table, float *out, int64_t rows, int64_t d,
                               cudaStream_t stream);
/* dtable [V, d] += dout rows scattered by id (atomics) */
void rf_cuda_embedding_backward(const float *ids, const float *dout, float *dtable, int64_t rows, int64_t d,
                                cudaStream_t stream);

/* ---- reductions (reduce.cu) ---- */

/* Partial sums of a whole-tensor reduction: `work` holds this many doubles. */
#define RF_CUDA_PARTIALS 256

/* y = sum (mean) of x [xs] over `axis`, or of everything (a scalar) for
 * axis -1, which needs `work` (RF_CUDA_PARTIALS doubles; else NULL). */
void rf_cuda_reduce_forward(const float *x, rf_cuda_shape xs, int axis, bool mean, float *y, double *work,
                            cudaStream_t stream);
void rf_cuda_reduce_backward(const float *dy, rf_cuda_shape xs, int axis, bool mean, float *dx,
                             cudaStream_t stream);
/* x [b, n, d], mask [b, n] -> y [b, d], the mean over valid tokens (zeros
 * for none); w [b, n] (the CPU op's aux): 1/count for valid tokens, else 0 */
void rf_cuda_masked_mean_forward(const float *x, const float *mask, float *y, float *w, int64_t b, int64_t n,
                                 int64_t d, cudaStream_t stream);
void rf_cuda_masked_mean_backward(const float *w, const float *dy, float *dx, int64_t b, int64_t n, int64_t d,
                                  cudaStream_t stream);
/* *out = the sum of x^2 in double (NaN and Inf propagate), in two stages
 * (work: RF_CUDA_PARTIALS doubles): the global gradient norm's square, as
 * the backend hook sum_squares (core/op.h) wants it. */
void rf_cuda_sum_squares(const float *x, int64_t n, double *out, double *work, cudaStream_t stream);

/* ---- losses (loss.cu) ---- */

/* logits [b, c], labels [b] (integer classes as floats) -> *loss, the mean
 * cross-entropy. aux: [b c + b], the probabilities then the labels (the CPU
 * op's aux); work: b floats (the rows' losses). */
void rf_cuda_cross_entropy_forward(const float *logits, const float *labels, float *loss, float *aux, float *work,
                                   int64_t b, int64_t c, cudaStream_t stream);
/* dlogits += dloss[0] / b * (p - onehot(label)); dloss is a device scalar */
void rf_cuda_cross_entropy_backward(const float *aux, const float *dloss, float *dlogits, int64_t b, int64_t c,
                                    cudaStream_t stream);
/* logits z and targets t of n elements -> *loss, the mean binary
 * cross-entropy (summed in double by one block) */
void rf_cuda_bce_logits_forward(const float *z, const float *t, float *loss, int64_t n, cudaStream_t stream);
/* dz += g (sigmoid(z) - t), dt -= g z, g = dloss[0] / n; either may be NULL */
void rf_cuda_bce_logits_backward(const float *z, const float *t, const float *dloss, float *dz, float *dt, int64_t n,
                                 cudaStream_t stream);

/* ---- dropout (dropout.cu): the CPU's keep decisions (dropout_keep.h) ---- */

/* y = keep(i) ? x / (1 - p) : 0 when training and p > 0, else y = x.
 * node: the dropout node's id, which the hash mixes in; base: the index of
 * element 0 in the global tensor (a data-parallel rank's shard; 0 alone).
 * device_step (device memory, may be NULL): read when the kernel runs in
 * place of `step`, so a step captured in a graph draws each replay's own
 * masks (rf_cuda_step_clock). */
void rf_cuda_dropout_forward(const float *x, float *y, int64_t n, float p, bool training, uint64_t seed,
                             uint64_t step, const uint64_t *device_step, int32_t node, int64_t base,
                             cudaStream_t stream);
/* dx += keep(i) ? dy / (1 - p) : 0, the mask recomputed */
void rf_cuda_dropout_backward(const float *dy, float *dx, int64_t n, float p, bool training, uint64_t seed,
                              uint64_t step, const uint64_t *device_step, int32_t node, int64_t base,
                              cudaStream_t stream);

/* ---- optimiser (optim.cu) ---- */

/* One parameter tensor inside the flat blocks (rf_param_entry). */
typedef struct rf_cuda_param {
    int64_t offset, numel;
    int decay;          /* weight decay applies */
} rf_cuda_param;

/* AdamW's scalars for one step: rf_adamw_args (core/op.h), which
 * core/optim.c computes (c1, c2: the bias corrections 1 - beta^t). */
typedef struct rf_cuda_adamw_args {
    float lr, beta1, beta2, eps, decay;
    float c1, c2;
} rf_cuda_adamw_args;

/* A step's guard on the device: rf_step_report (core/op.h), field for
 * field, then the factor AdamW applies to the gradients. */
typedef struct rf_cuda_step_report {
    double loss, norm;
    int64_t first_bad;
    double bad_loss, bad_norm;
    float scale;        /* the clipping factor, or 1 */
    int32_t skip;       /* a non-finite loss or norm: AdamW leaves everything as it is */
} rf_cuda_step_report;

/* What changes from one training step to the next, in device memory: the
 * host sends it in stream order before the step's kernels, which read it
 * when they run, so a step captured once as a CUDA graph runs each replay
 * with that step's values. */
typedef struct rf_cuda_step_clock {
    uint64_t step;      /* the steps finished before this one: rf_exec.step, dropout's key */
    double clip;        /* the gradient-norm clip (<= 0: none) */
    rf_cuda_adamw_args adamw;
} rf_cuda_step_clock;

/* One AdamW update of core/optim.c over the flat blocks w, g, m, v.
 * params: a device array of `count` entries; max_numel: the largest numel
 * (it sizes the grid). device_args (device memory, may be NULL): read when
 * the kernel runs in place of `args` (a step's clock). guard (device
 * memory, may be NULL): its scale multiplies each gradient as
 * core/optim.c's clipping does, and its skip flag skips the update. */
void rf_cuda_adamw(float *w, const float *g, float *m, float *v, const rf_cuda_param *params, int count,
                   int64_t max_numel, rf_cuda_adamw_args args, const rf_cuda_adamw_args *device_args,
                   const rf_cuda_step_report *guard, cudaStream_t stream);
/* The guard of step clock->step + 1, one thread: the norm is the root of
 * *sum_squares; a non-finite loss or norm sets, the first time, first_bad
 * and its values, and from then on skip; scale is clip / norm when the
 * clock's clip > 0 and the norm exceeds it, as rf_clip_grads, else 1. */
void rf_cuda_step_guard(const float *loss, const double *sum_squares, const rf_cuda_step_clock *clock,
                        rf_cuda_step_report *report, cudaStream_t stream);
/* *count += the number of NaN and infinite elements of x */
void rf_cuda_count_nonfinite(const float *x, int64_t n, int *count, cudaStream_t stream);

/* ---- linear algebra (linalg.cu) and convolution (conv.cu): cuBLAS ----
 *
 * These take a cuBLAS handle (its owner creates one per device; each call
 * binds it to `stream` with cublasSetStream) and return 0, or the first
 * cublasStatus_t other than CUBLAS_STATUS_SUCCESS, after which the rest of
 * the call is skipped. The handle must be in cuBLAS's default math mode:
 * TF32 would round the products' operands to 10 bits, outside the bounds
 * the tests hold these sums to. */

/* cuBLAS's own definition (cublas_api.h), repeated as cudaStream_t is. */
typedef struct cublasContext *cublasHandle_t;

/* C_i [m, n] = op(X_i) op(Y_i) + beta C_i for i < count, row-major and
 * contiguous: op(X) = X^T when tx (X_i stored [k, m]), op(Y) = Y^T when ty
 * (Y_i stored [n, k]); X_i = X + i sx, Y_i = Y + i sy (stride 0: shared),
 * C_i = C + i sc. With sc 0 the products go into the one C one after
 * another (beta 1: C += their sum); otherwise one batched call. */
int rf_cuda_gemm(bool tx, bool ty, int64_t m, int64_t n, int64_t k, const float *X, int64_t sx, const float *Y,
                 int64_t sy, float beta, float *C, int64_t sc, int64_t count, cublasHandle_t blas, cudaStream_t stream);
/* a [as], b [bs] -> out [..., m, n], as rf_matmul: a [..., m, k] ([..., k, m]
 * if ta), b [..., k, n] ([..., n, k] if tb) with a's batch dims or 2-D
 * (shared by every batch) */
int rf_cuda_matmul_forward(const float *a, rf_cuda_shape as, const float *b, rf_cuda_shape bs, bool ta, bool tb,
                           float *out, cublasHandle_t blas, cudaStream_t stream);
/* da, db: each may be NULL; a shared b's gradient sums over the batches */
int rf_cuda_matmul_backward(const float *a, rf_cuda_shape as, const float *b, rf_cuda_shape bs, bool ta, bool tb,
                            const float *dout, float *da, float *db, cublasHandle_t blas, cudaStream_t stream);
/* x [rows, k], w [k, n], bias [n] or NULL -> out [rows, n] */
int rf_cuda_linear_forward(const float *x, const float *w, const float *bias, float *out, int64_t rows, int64_t k,
                           int64_t n, cublasHandle_t blas, cudaStream_t stream);
/* dx, dw, dbias: each may be NULL */
int rf_cuda_linear_backward(const float *x, const float *w, const float *dout, float *dx, float *dw, float *dbias,
                            int64_t rows, int64_t k, int64_t n, cublasHandle_t blas, cudaStream_t stream);
/* out [outer, channels, inner] += bias [channels] along the middle axis */
void rf_cuda_bias_add(const float *bias, float *out, int64_t outer, int64_t channels, int64_t inner,
                      cudaStream_t stream);
/* dbias [channels] += dout [outer, channels, inner] summed over outer and
 * inner (atomics across blocks); nothing when dbias is NULL */
void rf_cuda_bias_grad(const float *dout, float *dbias, int64_t outer, int64_t channels, int64_t inner,
                       cudaStream_t stream);

/* x [b, cin, l] or [b, cin, h, w], weight [cout, cin, k] or [cout, cin, kh,
 * kw], bias [cout] or NULL -> out [b, cout, l'] or [b, cout, h', w'], as
 * rf_conv1d / rf_conv2d. work: the CPU op's scratch, cin*kh*kw * h'*w'
 * floats (one batch item's im2col), or NULL for a 1x1 kernel with stride 1
 * and no padding. Backward: dx, dw, dbias each may be NULL. */
int rf_cuda_conv1d_forward(const float *x, rf_cuda_shape xs, const float *w, rf_cuda_shape ws, const float *bias,
                           float *out, int stride, int pad, float *work, cublasHandle_t blas, cudaStream_t stream);
int rf_cuda_conv1d_backward(const float *x, rf_cuda_shape xs, const float *w, rf_cuda_shape ws, const float *dout,
                            float *dx, float *dw, float *dbias, int stride, int pad, float *work, cublasHandle_t blas,
                            cudaStream_t stream);
int rf_cuda_conv2d_forward(const float *x, rf_cuda_shape xs, const float *w, rf_cuda_shape ws, const float *bias,
                           float *out, int stride_h, int stride_w, int pad_h, int pad_w, float *work,
                           cublasHandle_t blas, cudaStream_t stream);
int rf_cuda_conv2d_backward(const float *x, rf_cuda_shape xs, const float *w, rf_cuda_shape ws, const float *dout,
                            float *dx, float *dw, float *dbias, int stride_h, int stride_w, int pad_h, int pad_w,
                            float *work, cublasHandle_t blas, cudaStream_t stream);

/* ---- shape ops (shape.cu): copies, exact; reshape copies too, as the CPU's ---- */

void rf_cuda_reshape_forward(const float *x, float *out, int64_t n, cudaStream_t stream);
void rf_cuda_reshape_backward(const float *dout, float *dx, int64_t n, cudaStream_t stream);
/* out axis i is x axis perm[i] (perm: xs.ndim entries, host memory) */
void rf_cuda_permute_forward(const float *x, rf_cuda_shape xs, const int *perm, float *out, cudaStream_t stream);
void rf_cuda_permute_backward(const float *dout, rf_cuda_shape xs, const int *perm, float *dx, cudaStream_t stream);
/* n inputs xs[k] (host array of device pointers) of lens[k] along `axis`,
 * equal elsewhere, into out [os]; backward skips NULL dxs[k], and an input
 * given twice gets both gradients */
void rf_cuda_concat_forward(const float *const *xs, const int64_t *lens, int n, rf_cuda_shape os, int axis,
                            float *out, cudaStream_t stream);
void rf_cuda_concat_backward(const float *dout, const int64_t *lens, int n, rf_cuda_shape os, int axis,
                             float *const *dxs, cudaStream_t stream);
/* out = x [xs] with `axis` cut to [start, start + len) */
void rf_cuda_slice_forward(const float *x, rf_cuda_shape xs, int axis, int64_t start, int64_t len, float *out,
                           cudaStream_t stream);
void rf_cuda_slice_backward(const float *dout, rf_cuda_shape xs, int axis, int64_t start, int64_t len, float *dx,
                            cudaStream_t stream);
/* rf_sort_rows: x [xs] with its rows reordered by mask [rows, mask_cols]'s
 * valid counts (order and count: rows floats of device memory each; the
 * order is kept for backward), the identity order while probing */
void rf_cuda_sort_rows_forward(const float *x, const float *mask, rf_cuda_shape xs, int64_t mask_cols, bool inverse,
                               bool identity, float *order, float *count, float *out, cudaStream_t stream);
void rf_cuda_sort_rows_backward(const float *dout, const float *order, rf_cuda_shape xs, bool inverse, float *dx,
                                cudaStream_t stream);
/* out = x [xs] with `before` and `after` entries of `value` around `axis` */
void rf_cuda_pad_forward(const float *x, rf_cuda_shape xs, int axis, int64_t before, int64_t after, float value,
                         float *out, cudaStream_t stream);
void rf_cuda_pad_backward(const float *dout, rf_cuda_shape xs, int axis, int64_t before, int64_t after, float *dx,
                          cudaStream_t stream);

/* ---- the mechanisms (attention.cu, ls_attention.cu, linear_attention.cu, talk.cu) ----
 *
 * Fused, as their CPU ops: no [n, m] matrix is formed. `work` is device
 * memory the launcher may overwrite (NULL where the call needs none). */

/* A multi-head op's geometry: q [b, n, d], k and v [b, m, d]; `heads`
 * contiguous column groups of dk = d / heads, read in place; scale: the
 * scores' (attention, ls) or the features' (linear attention). */
typedef struct rf_cuda_heads {
    int64_t b, n, m, d;
    int heads;
    float scale;
} rf_cuda_heads;

/* The attention kernels keep tiles of whole head rows in shared memory:
 * the largest dk whose tiles fit the 48 KiB a launch gets (with a larger
 * dk the launch fails, and cudaGetLastError says so). */
#define RF_CUDA_ATTENTION_MAX_DK 148

/* rf_attention, flash-style (attention.cu). mask [b, m] or NULL. Writes out
 * and lse [b, heads, n], each row's log-sum-exp of its valid scaled scores
 * (-inf for a row with no valid key, whose output is zeros): the flash
 * path's whole aux. Backward recomputes the probabilities tile by tile
 * from q, k, lse; it reads out (D = rowsum(dO * O)), so the backend keeps
 * the output for backward; work: b heads n floats. */
void rf_cuda_attention_forward(const float *q, const float *k, const float *v, const float *mask, float *out,
                               float *lse, rf_cuda_heads a, cudaStream_t stream);
void rf_cuda_attention_backward(const float *q, const float *k, const float *v, const float *mask, const float *out,
                                const float *lse, const float *dout, float *dq, float *dk, float *dv, float *work,
                                rf_cuda_heads a, cudaStream_t stream);
/* probs [b, heads, n, m], the CPU op's aux (its backward and the
 * layer*.attn.probs probe read it), from forward's lse: for a probe only;
 * the flash pair above never needs it. */
void rf_cuda_attention_probs(const float *q, const float *k, const float *mask, const float *lse, float *probs,
                             rf_cuda_heads a, cudaStream_t stream);

/* The same op on tensor cores (attention_tf32.cu), for train.tf32 = on:
 * the same arguments, outputs and aux as the pair above, the products'
 * operands rounded to TF32 (10-bit mantissa, f32 accumulation), for head
 * widths up to RF_CUDA_ATTENTION_TF32_MAX_DK (wider heads take the f32
 * pair). */
#define RF_CUDA_ATTENTION_TF32_MAX_DK 128
void rf_cuda_attention_forward_tf32(const float *q, const float *k, const float *v, const float *mask, float *out,
                                    float *lse, rf_cuda_heads a, cudaStream_t stream);
void rf_cuda_attention_backward_tf32(const float *q, const float *k, const float *v, const float *mask,
                                     const float *out, const float *lse, const float *dout, float *dq, float *dk,
                                     float *dv, float *work, rf_cuda_heads a, cudaStream_t stream);

/* rf_ls_attention (ls_attention.cu): k, v [b, n + G, d] (a.m = n + G), mask
 * [b, n] or NULL, the window w dividing n. aux: the CPU op's, P_l [b,
 * heads, n, w + 2e] then P_g [b, heads, n, G] (core/ops/ls_attention.h),
 * which backward reads; work: as many floats (dS) when dq or dk is given.
 * Backward returns a cublasStatus_t (the global keys' products). */
void rf_cuda_ls_attention_forward(const float *q, const float *k, const float *v, const float *mask, float *out,
                                  float *aux, rf_cuda_heads a, int window, cudaStream_t stream);
int rf_cuda_ls_attention_backward(const float *q, const float *k, const float *v, const float *aux,
                                  const float *dout, float *dq, float *dk, float *dv, float *work, rf_cuda_heads a,
                                  int window, cublasHandle_t blas, cudaStream_t stream);

/* rf_linear_attention (linear_attention.cu): map an rf_kernel_map (0 elu+1,
 * 1 relu, 2 softplus), a.scale the features' scale. aux: the CPU op's
 * (rf_linear_attention_aux_layout); backward reads it, v, the mask and the
 * output; work: b heads (dk dk + dk) floats (dKV, dKsum) when dk or dv is
 * given. */
void rf_cuda_linear_attention_forward(const float *q, const float *k, const float *v, const float *mask, float *out,
                                      float *aux, rf_cuda_heads a, int map, cudaStream_t stream);
void rf_cuda_linear_attention_backward(const float *v, const float *mask, const float *aux, const float *out,
                                       const float *dout, float *dq, float *dk, float *dv, float *work,
                                       rf_cuda_heads a, int map, cudaStream_t stream);

/* rf_talk (talk.cu): x [b, n, d], offsets [b, n, 2 heads], mask [b, n] or
 * NULL. aux: the CPU op's, S [b, n, d], the bounds [b, n, 2 heads], the
 * mask [b, n]; backward reads only aux and dout; work: b n d floats when
 * dx is given. */
void rf_cuda_talk_forward(const float *x, const float *offsets, const float *mask, float *out, float *aux, int64_t b,
                          int64_t n, int64_t d, int heads, int lmax, int rmax, cudaStream_t stream);
void rf_cuda_talk_backward(const float *aux, const float *dout, float *dx, float *doffsets, float *work, int64_t b,
                           int64_t n, int64_t d, int heads, int lmax, int rmax, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
