/* The CUDA backend as the executor sees it (rf_backend, core/op.h): one
 * forward and one backward kernel per op, each unpacking its node (shapes,
 * op arguments, aux) into a launcher of kernels.h on the device runtime's
 * stream and cuBLAS handle; the memory and optimiser services come from
 * device_runtime.cu. Compiled by nvcc for the GPU and, like every .cu
 * here, as C++ against the emulator (tests/cuda_emu), where the same table
 * trains whole models in the tests. */
#include "backend.h"

#include <stddef.h>
#include <stdio.h>

#include "device_runtime.h"
#include "kernels.h"

extern "C" {
#include "../core/backend_layout.h"
#include "../core/device.h"
#include "../core/op.h"
#include "../core/probe.h"
}

/* ---- unpacking nodes ---- */

static rf_cuda_shape shape_of(rf_shape s)
{
    rf_cuda_shape c = {s.ndim, {1, 1, 1, 1}};
    for (int i = 0; i < s.ndim; i++)
        c.dim[i] = s.dim[i];
    return c;
}

static int64_t numel(const rf_node *n)
{
    return rf_shape_numel(n->shape);
}

static int64_t last_dim(const rf_node *n)
{
    return n->shape.dim[n->shape.ndim - 1];
}

/* ---- element-wise ---- */

static void binary_forward(rf_exec *x, rf_node *n, rf_cuda_binary op)
{
    const rf_node *a = rf_in(x, n, 0), *b = rf_in(x, n, 1);
    rf_cuda_binary_forward(op, a->value, shape_of(a->shape), b->value, shape_of(b->shape), n->value,
                           shape_of(n->shape), rf_cuda_stream);
}

static void binary_backward(rf_exec *x, rf_node *n, rf_cuda_binary op)
{
    rf_node *a = rf_in(x, n, 0), *b = rf_in(x, n, 1);
    rf_cuda_binary_backward(op, n->grad, shape_of(n->shape), a->value, shape_of(a->shape), a->grad, b->value,
                            shape_of(b->shape), b->grad, rf_cuda_stream);
}

static void add_forward(rf_exec *x, rf_node *n) { binary_forward(x, n, RF_CUDA_ADD); }
static void add_backward(rf_exec *x, rf_node *n) { binary_backward(x, n, RF_CUDA_ADD); }
static void sub_forward(rf_exec *x, rf_node *n) { binary_forward(x, n, RF_CUDA_SUB); }
static void sub_backward(rf_exec *x, rf_node *n) { binary_backward(x, n, RF_CUDA_SUB); }
static void mul_forward(rf_exec *x, rf_node *n) { binary_forward(x, n, RF_CUDA_MUL); }
static void mul_backward(rf_exec *x, rf_node *n) { binary_backward(x, n, RF_CUDA_MUL); }

static void scale_forward(rf_exec *x, rf_node *n)
{
    rf_cuda_scale_forward(rf_in(x, n, 0)->value, n->value, numel(n), n->fa[0], rf_cuda_stream);
}

static void scale_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_scale_backward(n->grad, in->grad, numel(n), n->fa[0], rf_cuda_stream);
}

static void unary_forward(rf_exec *x, rf_node *n)
{
    rf_cuda_unary_forward((int)n->ia[0], rf_in(x, n, 0)->value, n->value, numel(n), rf_cuda_stream);
}

static void unary_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_unary_backward((int)n->ia[0], in->value, n->grad, in->grad, numel(n), rf_cuda_stream);
}

static int64_t glu_half(const rf_node *n) { return n->shape.dim[n->shape.ndim - 1]; }

static void glu_forward(rf_exec *x, rf_node *n)
{
    rf_cuda_glu_forward(rf_in(x, n, 0)->value, n->value, numel(n), glu_half(n), rf_cuda_stream);
}

static void glu_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_glu_backward(in->value, n->grad, in->grad, numel(n), glu_half(n), rf_cuda_stream);
}

/* ---- softmax, layernorm ---- */

static void softmax_forward(rf_exec *x, rf_node *n)
{
    const rf_node *in = rf_in(x, n, 0), *mask = n->n_in > 1 ? rf_in(x, n, 1) : NULL;
    rf_shape none = {0, {0}};
    rf_cuda_softmax_forward(in->value, shape_of(in->shape), mask ? mask->value : NULL,
                            shape_of(mask ? mask->shape : none), n->value, rf_cuda_stream);
}

static void softmax_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_softmax_backward(n->value, n->grad, in->grad, numel(n) / last_dim(n), last_dim(n), rf_cuda_stream);
}

static void log_softmax_forward(rf_exec *x, rf_node *n)
{
    rf_cuda_log_softmax_forward(rf_in(x, n, 0)->value, n->value, numel(n) / last_dim(n), last_dim(n), rf_cuda_stream);
}

static void log_softmax_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_log_softmax_backward(n->value, n->grad, in->grad, numel(n) / last_dim(n), last_dim(n), rf_cuda_stream);
}

/* gamma and beta are inputs ia[0] and ia[1] when present (-1: absent) */
static rf_node *optional_in(rf_exec *x, rf_node *n, int64_t k)
{
    return k >= 0 ? rf_in(x, n, (int)k) : NULL;
}

static void layernorm_forward(rf_exec *x, rf_node *n)
{
    const rf_node *gamma = optional_in(x, n, n->ia[0]), *beta = optional_in(x, n, n->ia[1]);
    rf_cuda_layernorm_forward(rf_in(x, n, 0)->value, gamma ? gamma->value : NULL, beta ? beta->value : NULL,
                              n->value, n->aux, numel(n) / last_dim(n), last_dim(n), n->fa[0], rf_cuda_stream);
}

static void layernorm_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0), *gamma = optional_in(x, n, n->ia[0]), *beta = optional_in(x, n, n->ia[1]);
    rf_cuda_layernorm_backward(in->value, gamma ? gamma->value : NULL, n->aux, n->grad, in->grad,
                               gamma ? gamma->grad : NULL, beta ? beta->grad : NULL, numel(n) / last_dim(n),
                               last_dim(n), rf_cuda_stream);
}

/* ---- embedding, reductions, losses, dropout ---- */

static void embedding_forward(rf_exec *x, rf_node *n)
{
    const rf_node *ids = rf_in(x, n, 0), *table = rf_in(x, n, 1);
    rf_cuda_embedding_forward(ids->value, table->value, n->value, numel(ids), table->shape.dim[1], rf_cuda_stream);
}

static void embedding_backward(rf_exec *x, rf_node *n)
{
    const rf_node *ids = rf_in(x, n, 0);
    rf_node *table = rf_in(x, n, 1);
    if (table->grad != NULL)
        rf_cuda_embedding_backward(ids->value, n->grad, table->grad, numel(ids), table->shape.dim[1], rf_cuda_stream);
}

static void reduce_forward(rf_exec *x, rf_node *n, bool mean)
{
    const rf_node *in = rf_in(x, n, 0);
    rf_cuda_reduce_forward(in->value, shape_of(in->shape), (int)n->ia[0], mean, n->value, rf_cuda_partials, rf_cuda_stream);
}

static void reduce_backward(rf_exec *x, rf_node *n, bool mean)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_reduce_backward(n->grad, shape_of(in->shape), (int)n->ia[0], mean, in->grad, rf_cuda_stream);
}

static void sum_forward(rf_exec *x, rf_node *n) { reduce_forward(x, n, false); }
static void sum_backward(rf_exec *x, rf_node *n) { reduce_backward(x, n, false); }
static void mean_forward(rf_exec *x, rf_node *n) { reduce_forward(x, n, true); }
static void mean_backward(rf_exec *x, rf_node *n) { reduce_backward(x, n, true); }

static void masked_mean_forward(rf_exec *x, rf_node *n)
{
    const rf_node *in = rf_in(x, n, 0);
    rf_cuda_masked_mean_forward(in->value, rf_in(x, n, 1)->value, n->value, n->aux, in->shape.dim[0],
                                in->shape.dim[1], in->shape.dim[2], rf_cuda_stream);
}

static void masked_mean_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_masked_mean_backward(n->aux, n->grad, in->grad, in->shape.dim[0], in->shape.dim[1],
                                     in->shape.dim[2], rf_cuda_stream);
}

/* the rows' losses go to the scratch the CPU op uses for them (B floats) */
static void cross_entropy_forward(rf_exec *x, rf_node *n)
{
    const rf_node *logits = rf_in(x, n, 0);
    rf_cuda_cross_entropy_forward(logits->value, rf_in(x, n, 1)->value, n->value, n->aux, x->scratch,
                                  logits->shape.dim[0], logits->shape.dim[1], rf_cuda_stream);
}

static void cross_entropy_backward(rf_exec *x, rf_node *n)
{
    rf_node *logits = rf_in(x, n, 0);
    if (logits->grad != NULL)
        rf_cuda_cross_entropy_backward(n->aux, n->grad, logits->grad, logits->shape.dim[0], logits->shape.dim[1],
                                       rf_cuda_stream);
}

static void bce_logits_forward(rf_exec *x, rf_node *n)
{
    const rf_node *z = rf_in(x, n, 0);
    rf_cuda_bce_logits_forward(z->value, rf_in(x, n, 1)->value, n->value, rf_shape_numel(z->shape), rf_cuda_stream);
}

static void bce_logits_backward(rf_exec *x, rf_node *n)
{
    rf_node *z = rf_in(x, n, 0), *t = rf_in(x, n, 1);
    rf_cuda_bce_logits_backward(z->value, t->value, n->grad, z->grad, t->grad, rf_shape_numel(z->shape), rf_cuda_stream);
}

static int32_t node_id(rf_exec *x, const rf_node *n)
{
    return (int32_t)rf_dropout_node(x, n);
}

/* A queued training step's dropout reads its step from the step's clock,
 * so a captured step draws new masks at every replay. */
static void dropout_forward(rf_exec *x, rf_node *n)
{
    rf_cuda_dropout_forward(rf_in(x, n, 0)->value, n->value, numel(n), n->fa[0], x->training, x->seed, x->step,
                            rf_cuda_clock_step(x), node_id(x, n), (int64_t)x->shard * numel(n), rf_cuda_stream);
}

static void dropout_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_dropout_backward(n->grad, in->grad, numel(n), n->fa[0], x->training, x->seed, x->step,
                                 rf_cuda_clock_step(x), node_id(x, n), (int64_t)x->shard * numel(n),
                                 rf_cuda_stream);
}

/* ---- products (cuBLAS), convolutions, shapes ---- */

static void matmul_forward(rf_exec *x, rf_node *n)
{
    const rf_node *a = rf_in(x, n, 0), *b = rf_in(x, n, 1);
    rf_cuda_matmul_forward(a->value, shape_of(a->shape), b->value, shape_of(b->shape), n->ia[0] != 0, n->ia[1] != 0,
                           n->value, rf_cuda_blas, rf_cuda_stream);
}

static void matmul_backward(rf_exec *x, rf_node *n)
{
    rf_node *a = rf_in(x, n, 0), *b = rf_in(x, n, 1);
    rf_cuda_matmul_backward(a->value, shape_of(a->shape), b->value, shape_of(b->shape), n->ia[0] != 0,
                            n->ia[1] != 0, n->grad, a->grad, b->grad, rf_cuda_blas, rf_cuda_stream);
}

/* x [..., k] w [k, n] (+ bias [n]): rows = numel(x) / k */
static void linear_forward(rf_exec *x, rf_node *n)
{
    const rf_node *in = rf_in(x, n, 0), *w = rf_in(x, n, 1);
    int64_t k = w->shape.dim[0];
    rf_cuda_linear_forward(in->value, w->value, n->n_in == 3 ? rf_in(x, n, 2)->value : NULL, n->value,
                           rf_shape_numel(in->shape) / k, k, w->shape.dim[1], rf_cuda_blas, rf_cuda_stream);
}

static void linear_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0), *w = rf_in(x, n, 1), *bias = n->n_in == 3 ? rf_in(x, n, 2) : NULL;
    int64_t k = w->shape.dim[0];
    rf_cuda_linear_backward(in->value, w->value, n->grad, in->grad, w->grad, bias ? bias->grad : NULL,
                            rf_shape_numel(in->shape) / k, k, w->shape.dim[1], rf_cuda_blas, rf_cuda_stream);
}

static void conv1d_forward(rf_exec *x, rf_node *n)
{
    const rf_node *in = rf_in(x, n, 0), *w = rf_in(x, n, 1);
    rf_cuda_conv1d_forward(in->value, shape_of(in->shape), w->value, shape_of(w->shape),
                           n->n_in == 3 ? rf_in(x, n, 2)->value : NULL, n->value, (int)n->ia[0], (int)n->ia[1],
                           x->scratch, rf_cuda_blas, rf_cuda_stream);
}

static void conv1d_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0), *w = rf_in(x, n, 1), *bias = n->n_in == 3 ? rf_in(x, n, 2) : NULL;
    rf_cuda_conv1d_backward(in->value, shape_of(in->shape), w->value, shape_of(w->shape), n->grad, in->grad,
                            w->grad, bias ? bias->grad : NULL, (int)n->ia[0], (int)n->ia[1], x->scratch, rf_cuda_blas,
                            rf_cuda_stream);
}

static void conv2d_forward(rf_exec *x, rf_node *n)
{
    const rf_node *in = rf_in(x, n, 0), *w = rf_in(x, n, 1);
    rf_cuda_conv2d_forward(in->value, shape_of(in->shape), w->value, shape_of(w->shape),
                           n->n_in == 3 ? rf_in(x, n, 2)->value : NULL, n->value, (int)n->ia[0], (int)n->ia[1],
                           (int)n->ia[2], (int)n->ia[3], x->scratch, rf_cuda_blas, rf_cuda_stream);
}

static void conv2d_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0), *w = rf_in(x, n, 1), *bias = n->n_in == 3 ? rf_in(x, n, 2) : NULL;
    rf_cuda_conv2d_backward(in->value, shape_of(in->shape), w->value, shape_of(w->shape), n->grad, in->grad,
                            w->grad, bias ? bias->grad : NULL, (int)n->ia[0], (int)n->ia[1], (int)n->ia[2],
                            (int)n->ia[3], x->scratch, rf_cuda_blas, rf_cuda_stream);
}

static void reshape_forward(rf_exec *x, rf_node *n)
{
    rf_cuda_reshape_forward(rf_in(x, n, 0)->value, n->value, numel(n), rf_cuda_stream);
}

static void reshape_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_reshape_backward(n->grad, in->grad, numel(n), rf_cuda_stream);
}

static void perm_of(const rf_node *n, int *perm)
{
    for (int i = 0; i < n->shape.ndim; i++)
        perm[i] = (int)n->ia[i];
}

static void permute_forward(rf_exec *x, rf_node *n)
{
    const rf_node *in = rf_in(x, n, 0);
    int perm[RF_MAX_DIMS];
    perm_of(n, perm);
    rf_cuda_permute_forward(in->value, shape_of(in->shape), perm, n->value, rf_cuda_stream);
}

static void permute_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    int perm[RF_MAX_DIMS];
    perm_of(n, perm);
    if (in->grad != NULL)
        rf_cuda_permute_backward(n->grad, shape_of(in->shape), perm, in->grad, rf_cuda_stream);
}

static void concat_forward(rf_exec *x, rf_node *n)
{
    const float *xs[RF_MAX_INPUTS];
    int64_t lens[RF_MAX_INPUTS];
    int axis = (int)n->ia[0];
    for (int k = 0; k < n->n_in; k++) {
        xs[k] = rf_in(x, n, k)->value;
        lens[k] = rf_in(x, n, k)->shape.dim[axis];
    }
    rf_cuda_concat_forward(xs, lens, n->n_in, shape_of(n->shape), axis, n->value, rf_cuda_stream);
}

static void concat_backward(rf_exec *x, rf_node *n)
{
    float *dxs[RF_MAX_INPUTS];
    int64_t lens[RF_MAX_INPUTS];
    int axis = (int)n->ia[0];
    for (int k = 0; k < n->n_in; k++) {
        dxs[k] = rf_in(x, n, k)->grad;
        lens[k] = rf_in(x, n, k)->shape.dim[axis];
    }
    rf_cuda_concat_backward(n->grad, lens, n->n_in, shape_of(n->shape), axis, dxs, rf_cuda_stream);
}

static void slice_forward(rf_exec *x, rf_node *n)
{
    const rf_node *in = rf_in(x, n, 0);
    rf_cuda_slice_forward(in->value, shape_of(in->shape), (int)n->ia[0], n->ia[1], n->ia[2], n->value, rf_cuda_stream);
}

static void slice_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_slice_backward(n->grad, shape_of(in->shape), (int)n->ia[0], n->ia[1], n->ia[2], in->grad, rf_cuda_stream);
}

static void sort_rows_forward(rf_exec *x, rf_node *n)
{
    const rf_node *in = rf_in(x, n, 0), *mask = rf_in(x, n, 1);
    rf_cuda_sort_rows_forward(in->value, mask->value, shape_of(in->shape), mask->shape.dim[1], n->ia[0] != 0,
                              x->probing, n->aux, x->scratch, n->value, rf_cuda_stream);
}

static void sort_rows_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_sort_rows_backward(n->grad, n->aux, shape_of(in->shape), n->ia[0] != 0, in->grad, rf_cuda_stream);
}

static void pad_forward(rf_exec *x, rf_node *n)
{
    const rf_node *in = rf_in(x, n, 0);
    rf_cuda_pad_forward(in->value, shape_of(in->shape), (int)n->ia[0], n->ia[1], n->ia[2], n->fa[0], n->value,
                        rf_cuda_stream);
}

static void pad_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_pad_backward(n->grad, shape_of(in->shape), (int)n->ia[0], n->ia[1], n->ia[2], in->grad, rf_cuda_stream);
}

/* ---- the mechanisms (their CPU ops' aux layouts, so probes read the same) ---- */

static rf_cuda_heads heads_of(rf_exec *x, const rf_node *n)
{
    const rf_node *q = rf_in(x, n, 0), *k = rf_in(x, n, 1);
    return rf_cuda_heads{q->shape.dim[0], q->shape.dim[1], k->shape.dim[1], q->shape.dim[2], (int)n->ia[0],
                         n->fa[0]};
}

static const float *key_mask(rf_exec *x, const rf_node *n, int k)
{
    return n->n_in > k ? rf_in(x, n, k)->value : NULL;
}

/* Flash-style: aux keeps the rows' log-sum-exp (b heads n floats), backward
 * recomputes the probabilities from it, so nothing n x m is planned. With
 * train.tf32 = on (rf_device_tf32) both directions run on tensor cores
 * (attention_tf32.cu; heads over 128 wide stay f32). While
 * a probe is attached, the probed sample's rows of the probabilities
 * [b, heads, n, m] are also written to the probe buffer that the attention-map taps read
 * (probe_aux), as the CPU's kernel does. */
static void attention_forward(rf_exec *x, rf_node *n)
{
    const rf_node *q = rf_in(x, n, 0), *k = rf_in(x, n, 1), *v = rf_in(x, n, 2);
    rf_cuda_heads a = heads_of(x, n);
    const float *mask = key_mask(x, n, 3);
    (rf_device_tf32() ? rf_cuda_attention_forward_tf32 : rf_cuda_attention_forward)(q->value, k->value, v->value, mask,
                                                                                   n->value, n->aux, a, rf_cuda_stream);
    n->probe_aux = NULL;
    rf_id id = (rf_id)(n - rf_graph_node(x->g, 0));
    int64_t rows = rf_tap_rows_per_sample(x->g, id, a.b), b0 = x->probe_sample * rows;
    /* a pooled tap is computed by the probe's hook from q, k and aux instead */
    if (x->probing && rows > 0 && b0 >= 0 && b0 + rows <= a.b && rf_probe_wants_aux(x->g, id)) {
        float *p = rf_cuda_probe_space((size_t)(rows * a.heads * a.n * a.m));
        rf_cuda_heads part = a;
        part.b = rows;
        if (p != NULL)
            rf_cuda_attention_probs(q->value + b0 * a.n * a.d, k->value + b0 * a.m * a.d,
                                    mask != NULL ? mask + b0 * a.m : NULL, n->aux + b0 * a.heads * a.n, p, part,
                                    rf_cuda_stream);
        n->probe_aux = p;
    }
}

/* scratch: the rows' rowsum(dO * O), b heads n floats */
static void attention_backward(rf_exec *x, rf_node *n)
{
    rf_node *q = rf_in(x, n, 0), *k = rf_in(x, n, 1), *v = rf_in(x, n, 2);
    (rf_device_tf32() ? rf_cuda_attention_backward_tf32 : rf_cuda_attention_backward)(
        q->value, k->value, v->value, key_mask(x, n, 3), n->value, n->aux, n->grad, q->grad, k->grad, v->grad,
        x->scratch, heads_of(x, n), rf_cuda_stream);
}

static void ls_attention_forward(rf_exec *x, rf_node *n)
{
    rf_cuda_ls_attention_forward(rf_in(x, n, 0)->value, rf_in(x, n, 1)->value, rf_in(x, n, 2)->value,
                                 key_mask(x, n, 3), n->value, n->aux, heads_of(x, n), (int)n->ia[1], rf_cuda_stream);
}

static void ls_attention_backward(rf_exec *x, rf_node *n)
{
    rf_node *q = rf_in(x, n, 0), *k = rf_in(x, n, 1), *v = rf_in(x, n, 2);
    float *w = q->grad != NULL || k->grad != NULL ? x->scratch : NULL;
    rf_cuda_ls_attention_backward(q->value, k->value, v->value, n->aux, n->grad, q->grad, k->grad, v->grad, w,
                                  heads_of(x, n), (int)n->ia[1], rf_cuda_blas, rf_cuda_stream);
}

static void linear_attention_forward(rf_exec *x, rf_node *n)
{
    rf_cuda_linear_attention_forward(rf_in(x, n, 0)->value, rf_in(x, n, 1)->value, rf_in(x, n, 2)->value,
                                     key_mask(x, n, 3), n->value, n->aux, heads_of(x, n), (int)n->ia[1], rf_cuda_stream);
}

static void linear_attention_backward(rf_exec *x, rf_node *n)
{
    rf_node *q = rf_in(x, n, 0), *k = rf_in(x, n, 1), *v = rf_in(x, n, 2);
    float *w = k->grad != NULL || v->grad != NULL ? x->scratch : NULL;
    rf_cuda_linear_attention_backward(v->value, key_mask(x, n, 3), n->aux, n->value, n->grad, q->grad, k->grad,
                                      v->grad, w, heads_of(x, n), (int)n->ia[1], rf_cuda_stream);
}

static void talk_forward(rf_exec *x, rf_node *n)
{
    rf_cuda_talk_forward(rf_in(x, n, 0)->value, rf_in(x, n, 1)->value, key_mask(x, n, 2), n->value, n->aux,
                         n->shape.dim[0], n->shape.dim[1], n->shape.dim[2], (int)n->ia[0], (int)n->ia[1],
                         (int)n->ia[2], rf_cuda_stream);
}

static void talk_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0), *offsets = rf_in(x, n, 1);
    float *w = in->grad != NULL ? x->scratch : NULL;
    rf_cuda_talk_backward(n->aux, n->grad, in->grad, offsets->grad, w, n->shape.dim[0], n->shape.dim[1],
                          n->shape.dim[2], (int)n->ia[0], (int)n->ia[1], (int)n->ia[2], rf_cuda_stream);
}

/* ---- what the kernels keep and need, for the planner ---- */

/* Every op keeps the CPU's aux (attention: its rows' log-sum-exp). */
static size_t dev_aux_floats(const rf_graph *g, const rf_node *n)
{
    const rf_op_info *info = rf_op_infos[n->op];
    return info->aux_floats != NULL ? info->aux_floats(g, n) : 0;
}

/* Launches run one at a time on the stream, so no op needs the CPU's
 * per-thread copies: one thread's worth of the CPU op's scratch (the
 * im2col of a convolution, the rows' losses of the cross-entropy), or
 * what the mechanisms' backward launchers take. */
static size_t dev_scratch_floats(const rf_graph *g, const rf_node *n, int threads)
{
    (void)threads;
    rf_shape q = n->n_in > 0 ? rf_node_shape(g, n->in[0]) : rf_shape_scalar();
    switch (n->op) {
    case RF_OP_ATTENTION:   /* rowsum(dO * O) per row */
        return (size_t)(q.dim[0] * n->ia[0] * q.dim[1]);
    case RF_OP_LS_ATTENTION:   /* the probabilities' gradients, laid out as aux */
        return dev_aux_floats(g, n);
    case RF_OP_LINEAR_ATTENTION: {   /* per head: d(phi(K)^T V) and d(sum phi(K)) */
        int64_t dk = q.dim[2] / n->ia[0];
        return (size_t)(q.dim[0] * n->ia[0] * (dk * dk + dk));
    }
    case RF_OP_TALK:   /* the window sums' gradients, one per output */
        return (size_t)rf_shape_numel(n->shape);
    default: {
        const rf_op_info *info = rf_op_infos[n->op];
        return info->scratch_floats != NULL ? info->scratch_floats(g, n, 1) : 0;
    }
    }
}

/* Full attention's head rows live in shared-memory tiles; its kernels have
 * no dropout. */
static bool dev_accepts(const rf_graph *g, const rf_node *n, char *why, size_t size)
{
    if (n->op != RF_OP_ATTENTION)
        return true;
    if (n->fa[1] > 0.0f) {
        snprintf(why, size, "attention dropout (model.attn_dropout) is not in the CUDA kernels; set it to 0 or "
                 "train on the CPU");
        return false;
    }
    int64_t dk = rf_node_shape(g, n->in[0]).dim[2] / n->ia[0];
    if (dk <= RF_CUDA_ATTENTION_MAX_DK)
        return true;
    snprintf(why, size, "attention heads %lld wide are wider than the %d the CUDA kernels' tiles hold (raise "
             "model.heads or lower model.dim)", (long long)dk, RF_CUDA_ATTENTION_MAX_DK);
    return false;
}

/* ---- the table ---- */

static rf_backend table;

static void fill_table(void)
{
    table.name = "cuda";
#define OP(code, name)                          \
    table.forward[code] = name##_forward;       \
    table.backward[code] = name##_backward
    OP(RF_OP_MATMUL, matmul);
    OP(RF_OP_LINEAR, linear);
    OP(RF_OP_CONV1D, conv1d);
    OP(RF_OP_CONV2D, conv2d);
    OP(RF_OP_RESHAPE, reshape);
    OP(RF_OP_PERMUTE, permute);
    OP(RF_OP_CONCAT, concat);
    OP(RF_OP_SLICE, slice);
    OP(RF_OP_PAD, pad);
    OP(RF_OP_ADD, add);
    OP(RF_OP_SUB, sub);
    OP(RF_OP_MUL, mul);
    OP(RF_OP_SCALE, scale);
    OP(RF_OP_UNARY, unary);
    OP(RF_OP_GLU, glu);
    OP(RF_OP_SOFTMAX, softmax);
    OP(RF_OP_LOG_SOFTMAX, log_softmax);
    OP(RF_OP_LAYERNORM, layernorm);
    OP(RF_OP_EMBEDDING, embedding);
    OP(RF_OP_SUM, sum);
    OP(RF_OP_MEAN, mean);
    OP(RF_OP_MASKED_MEAN, masked_mean);
    OP(RF_OP_CROSS_ENTROPY, cross_entropy);
    OP(RF_OP_BCE_LOGITS, bce_logits);
    OP(RF_OP_DROPOUT, dropout);
    OP(RF_OP_ATTENTION, attention);
    OP(RF_OP_LS_ATTENTION, ls_attention);
    OP(RF_OP_LINEAR_ATTENTION, linear_attention);
    OP(RF_OP_TALK, talk);
    OP(RF_OP_SORT_ROWS, sort_rows);
#undef OP
    table.accepts = dev_accepts;
    table.aux_floats = dev_aux_floats;
    table.scratch_floats = dev_scratch_floats;
    rf_cuda_runtime_services(&table);
}

extern "C" const rf_backend *rf_cuda_backend(void)
{
    if (table.name == NULL)
        fill_table();
    return &table;
}

extern "C" uint64_t rf_cuda_layout(void)
{
    return rf_backend_layout();
}
