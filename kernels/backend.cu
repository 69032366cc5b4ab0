/* The CUDA backend as the executor sees it (rf_backend, core/op.h): one
 * forward and one backward kernel per op, each unpacking its node (shapes,
 * op arguments, aux) into a launcher of kernels.h, plus the memory and
 * optimiser services. Compiled by nvcc for the GPU and, like every .cu
 * here, as C++ against the emulator (tests/cuda_emu), where the same table
 * trains whole models in the tests.
 *
 * Memory is CUDA managed memory: the host reads the loss and logits and
 * writes each batch through plain pointers, and checkpoints and probes read
 * the parameters and activations the same way, after `sync`. Everything
 * runs on one stream, so kernels are ordered without events. */
#include "backend.h"

#include <stddef.h>

#include <mutex>
#include <unordered_map>
#include <vector>

#include "common.cuh"
#include "cublas_compat.h"
#include "kernels.h"
#include "nccl_compat.h"

extern "C" {
#include "../core/backend_layout.h"
#include "../core/collective.h"
#include "../core/op.h"
#include "../core/params.h"
#include "../core/probe.h"
}

/* ---- the device state: one stream, reduction space, AdamW's table ---- */

static cudaStream_t stream;
static cublasHandle_t blas;     /* default math mode: no TF32 (kernels.h) */
static double *partials;        /* RF_CUDA_PARTIALS doubles, then the result */
static rf_cuda_param *adamw_table;
static std::vector<rf_cuda_param> adamw_entries;   /* the table's host copy, read while kernels run */
static int64_t adamw_max_numel;

static bool ok(cudaError_t e)
{
    return e == cudaSuccess;
}

static bool init_state(void)
{
    if (partials != NULL)
        return true;
    if (!ok(cudaStreamCreate(&stream)) || cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS)
        return false;
    return ok(cudaMallocManaged((void **)&partials, (RF_CUDA_PARTIALS + 1) * sizeof(double), cudaMemAttachGlobal));
}

/* What the engine holds on the device (params, arena, scratch, probe
 * buffer), for `bench`'s measured peak next to the plan. */
static std::mutex sizes_lock;
static std::unordered_map<void *, size_t> sizes;
static size_t live_bytes, peak_bytes;

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    if (!init_state() || !ok(cudaMallocManaged(&p, bytes, cudaMemAttachGlobal)))
        return NULL;
    if (!ok(cudaMemset(p, 0, bytes))) {
        cudaFree(p);
        return NULL;
    }
    std::lock_guard<std::mutex> hold(sizes_lock);
    sizes[p] = bytes;
    live_bytes += bytes;
    peak_bytes = live_bytes > peak_bytes ? live_bytes : peak_bytes;
    return p;
}

static void dev_free(void *p)
{
    if (p == NULL)
        return;
    cudaStreamSynchronize(stream);
    cudaFree(p);
    std::lock_guard<std::mutex> hold(sizes_lock);
    auto at = sizes.find(p);
    if (at != sizes.end()) {
        live_bytes -= at->second;
        sizes.erase(at);
    }
}

static size_t dev_peak_bytes(void)
{
    std::lock_guard<std::mutex> hold(sizes_lock);
    return peak_bytes;
}

static void dev_zero(float *p, int64_t n)
{
    cudaMemsetAsync(p, 0, (size_t)n * sizeof(float), stream);
}

static void dev_sync(void)
{
    cudaStreamSynchronize(stream);
}

static double dev_sum_squares(const float *p, int64_t n)
{
    rf_cuda_sum_squares(p, n, partials + RF_CUDA_PARTIALS, partials, stream);
    cudaStreamSynchronize(stream);
    return partials[RF_CUDA_PARTIALS];
}

static void dev_scale(float *p, int64_t n, float s)
{
    rf_cuda_scale_forward(p, p, n, s, stream);
}

/* The parameter table AdamW walks, rebuilt when the store's entries
 * change (once per run). Judged by the entries themselves, not by the
 * store's address: a later run's store may be allocated where an earlier
 * one was, with as many entries laid out otherwise. */
static bool adamw_table_matches(const rf_params *p)
{
    if (adamw_table == NULL || adamw_entries.size() != (size_t)p->count)
        return false;
    for (int i = 0; i < p->count; i++) {
        const rf_param_entry *e = &p->entries[i];
        const rf_cuda_param &t = adamw_entries[i];
        if (t.offset != (int64_t)e->offset || t.numel != e->numel || t.decay != (int)e->decay)
            return false;
    }
    return true;
}

static bool adamw_table_for(const rf_params *p)
{
    if (adamw_table_matches(p))
        return true;
    dev_free(adamw_table);
    adamw_table = NULL;
    if (!ok(cudaMallocManaged((void **)&adamw_table, (size_t)(p->count ? p->count : 1) * sizeof *adamw_table,
                              cudaMemAttachGlobal)))
        return false;
    adamw_entries.clear();
    adamw_max_numel = 0;
    for (int i = 0; i < p->count; i++) {
        const rf_param_entry *e = &p->entries[i];
        adamw_entries.push_back((rf_cuda_param){(int64_t)e->offset, e->numel, e->decay});
        adamw_table[i] = adamw_entries.back();
        adamw_max_numel = e->numel > adamw_max_numel ? e->numel : adamw_max_numel;
    }
    return true;
}

static void dev_adamw(rf_params *p, const rf_adamw_args *a)
{
    if (!adamw_table_for(p))
        return;
    rf_cuda_adamw_args args = {a->lr, a->beta1, a->beta2, a->eps, a->decay, a->c1, a->c2};
    rf_cuda_adamw(p->value, p->grad, p->m, p->v, adamw_table, p->count, adamw_max_numel, args, NULL, stream);
}

static_assert(sizeof(rf_step_report) == sizeof(rf_cuda_step_report) &&
                  offsetof(rf_step_report, first_bad) == offsetof(rf_cuda_step_report, first_bad) &&
                  offsetof(rf_step_report, skip) == offsetof(rf_cuda_step_report, skip),
              "rf_cuda_step_report is rf_step_report, field for field");

/* The norm, the guard, clipping and AdamW, queued: the host waits for none
 * of it (it reads `report` when it next syncs). */
static void dev_queue_step(rf_params *p, const float *loss, double clip, int64_t step, const rf_adamw_args *a,
                           rf_step_report *report)
{
    rf_cuda_step_report *r = (rf_cuda_step_report *)report;
    rf_cuda_sum_squares(p->grad, (int64_t)p->total, partials + RF_CUDA_PARTIALS, partials, stream);
    rf_cuda_step_guard(loss, partials + RF_CUDA_PARTIALS, clip, step, r, stream);
    if (!adamw_table_for(p))
        return;
    rf_cuda_adamw_args args = {a->lr, a->beta1, a->beta2, a->eps, a->decay, a->c1, a->c2};
    rf_cuda_adamw(p->value, p->grad, p->m, p->v, adamw_table, p->count, adamw_max_numel, args, r, stream);
}

/* ---- several ranks, a GPU each: gradients averaged with NCCL ---- */

#if defined(RF_BACKEND_NCCL)
static ncclComm_t ranks_comm;

/* Rank 0 makes the communicator's id and hands it out through the host
 * collective (with whether it could, so no rank waits for a missing id). */
static bool dev_join_ranks(rf_collective *c, char *why, size_t size)
{
    if (ranks_comm != nullptr)
        return true;
    struct {
        ncclUniqueId id;
        int made;
    } first = {};
    if (c->rank == 0)
        first.made = ncclGetUniqueId(&first.id) == ncclSuccess;
    c->broadcast(c, &first, sizeof first);
    if (!first.made) {
        snprintf(why, size, "NCCL could not make a communicator id on rank 0");
        return false;
    }
#if defined(RF_CUDA_EMULATE)
    rf_nccl_emu_transport(c);
#endif
    ncclResult_t r = ncclCommInitRank(&ranks_comm, c->ranks, first.id, c->rank);
    if (r != ncclSuccess) {
        snprintf(why, size, "NCCL could not join rank %d of %d: %s", c->rank, c->ranks, ncclGetErrorString(r));
        ranks_comm = nullptr;
        return false;
    }
    return true;
}

static void dev_average_ranks(float *p, int64_t n)
{
    ncclAllReduce(p, p, (size_t)n, ncclFloat, ncclAvg, ranks_comm, stream);
}
#endif

/* ---- batches in: pinned staging on a copy stream ---- */

/* Two slots, so a batch's transfer overlaps the previous step's kernels:
 * the host fills a slot's pinned buffer, the copy stream moves it to the
 * slot's device buffer, and the compute stream, once that is done, copies
 * it into the graph's inputs. A slot is reused two uploads later; its
 * events say when its pinned buffer (sent) and its device buffer (placed)
 * are free again. */
enum { UPLOAD_SLOTS = 2 };
typedef struct upload_slot {
    char *pinned, *staged;
    size_t bytes;
    cudaEvent_t sent, placed;
} upload_slot;
static upload_slot slots[UPLOAD_SLOTS];
static int next_slot;
static cudaStream_t copy_stream;

/* Room for `bytes` (grown only while the first batches arrive: it waits
 * for the device before freeing). */
static bool slot_room(upload_slot *s, size_t bytes)
{
    if (s->sent == NULL && (!ok(cudaEventCreateWithFlags(&s->sent, cudaEventDisableTiming)) ||
                            !ok(cudaEventCreateWithFlags(&s->placed, cudaEventDisableTiming))))
        return false;
    if (bytes <= s->bytes)
        return true;
    cudaDeviceSynchronize();
    cudaFreeHost(s->pinned);
    dev_free(s->staged);
    s->staged = NULL;
    s->bytes = 0;
    if (!ok(cudaHostAlloc((void **)&s->pinned, bytes, cudaHostAllocDefault))) {
        s->pinned = NULL;
        return false;
    }
    s->staged = (char *)dev_alloc(bytes);
    s->bytes = s->staged != NULL ? bytes : 0;
    return s->staged != NULL;
}

static bool dev_upload(int count, float *const *dst, const float *const *src, const size_t *bytes)
{
    size_t total = 0;
    for (int i = 0; i < count; i++)
        total += bytes[i];
    if (!init_state() || (copy_stream == NULL && !ok(cudaStreamCreate(&copy_stream))))
        return false;
    upload_slot *s = &slots[next_slot];
    next_slot = (next_slot + 1) % UPLOAD_SLOTS;
    if (!slot_room(s, total) || !ok(cudaEventSynchronize(s->sent)))
        return false;
    for (size_t i = 0, at = 0; i < (size_t)count; at += bytes[i], i++)
        memcpy(s->pinned + at, src[i], bytes[i]);
    bool sent = ok(cudaStreamWaitEvent(copy_stream, s->placed, 0)) &&
                ok(cudaMemcpyAsync(s->staged, s->pinned, total, cudaMemcpyHostToDevice, copy_stream)) &&
                ok(cudaEventRecord(s->sent, copy_stream)) && ok(cudaStreamWaitEvent(stream, s->sent, 0));
    for (size_t i = 0, at = 0; sent && i < (size_t)count; at += bytes[i], i++)
        sent = ok(cudaMemcpyAsync(dst[i], s->staged + at, bytes[i], cudaMemcpyDeviceToDevice, stream));
    return sent && ok(cudaEventRecord(s->placed, stream));
}

/* The attention probabilities for probes (the views' maps): not part of
 * the plan, allocated only while a probe is attached, grown to the largest
 * request. */
static float *probe_buffer;
static size_t probe_buffer_floats;

static float *probe_space(size_t floats)
{
    if (floats <= probe_buffer_floats)
        return probe_buffer;
    dev_free(probe_buffer);
    probe_buffer = (float *)dev_alloc(floats * sizeof(float));
    probe_buffer_floats = probe_buffer != NULL ? floats : 0;
    return probe_buffer;
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
                           shape_of(n->shape), stream);
}

static void binary_backward(rf_exec *x, rf_node *n, rf_cuda_binary op)
{
    rf_node *a = rf_in(x, n, 0), *b = rf_in(x, n, 1);
    rf_cuda_binary_backward(op, n->grad, shape_of(n->shape), a->value, shape_of(a->shape), a->grad, b->value,
                            shape_of(b->shape), b->grad, stream);
}

static void add_forward(rf_exec *x, rf_node *n) { binary_forward(x, n, RF_CUDA_ADD); }
static void add_backward(rf_exec *x, rf_node *n) { binary_backward(x, n, RF_CUDA_ADD); }
static void sub_forward(rf_exec *x, rf_node *n) { binary_forward(x, n, RF_CUDA_SUB); }
static void sub_backward(rf_exec *x, rf_node *n) { binary_backward(x, n, RF_CUDA_SUB); }
static void mul_forward(rf_exec *x, rf_node *n) { binary_forward(x, n, RF_CUDA_MUL); }
static void mul_backward(rf_exec *x, rf_node *n) { binary_backward(x, n, RF_CUDA_MUL); }

static void scale_forward(rf_exec *x, rf_node *n)
{
    rf_cuda_scale_forward(rf_in(x, n, 0)->value, n->value, numel(n), n->fa[0], stream);
}

static void scale_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_scale_backward(n->grad, in->grad, numel(n), n->fa[0], stream);
}

static void unary_forward(rf_exec *x, rf_node *n)
{
    rf_cuda_unary_forward((int)n->ia[0], rf_in(x, n, 0)->value, n->value, numel(n), stream);
}

static void unary_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_unary_backward((int)n->ia[0], in->value, n->grad, in->grad, numel(n), stream);
}

static int64_t glu_half(const rf_node *n) { return n->shape.dim[n->shape.ndim - 1]; }

static void glu_forward(rf_exec *x, rf_node *n)
{
    rf_cuda_glu_forward(rf_in(x, n, 0)->value, n->value, numel(n), glu_half(n), stream);
}

static void glu_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_glu_backward(in->value, n->grad, in->grad, numel(n), glu_half(n), stream);
}

/* ---- softmax, layernorm ---- */

static void softmax_forward(rf_exec *x, rf_node *n)
{
    const rf_node *in = rf_in(x, n, 0), *mask = n->n_in > 1 ? rf_in(x, n, 1) : NULL;
    rf_shape none = {0, {0}};
    rf_cuda_softmax_forward(in->value, shape_of(in->shape), mask ? mask->value : NULL,
                            shape_of(mask ? mask->shape : none), n->value, stream);
}

static void softmax_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_softmax_backward(n->value, n->grad, in->grad, numel(n) / last_dim(n), last_dim(n), stream);
}

static void log_softmax_forward(rf_exec *x, rf_node *n)
{
    rf_cuda_log_softmax_forward(rf_in(x, n, 0)->value, n->value, numel(n) / last_dim(n), last_dim(n), stream);
}

static void log_softmax_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_log_softmax_backward(n->value, n->grad, in->grad, numel(n) / last_dim(n), last_dim(n), stream);
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
                              n->value, n->aux, numel(n) / last_dim(n), last_dim(n), n->fa[0], stream);
}

static void layernorm_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0), *gamma = optional_in(x, n, n->ia[0]), *beta = optional_in(x, n, n->ia[1]);
    rf_cuda_layernorm_backward(in->value, gamma ? gamma->value : NULL, n->aux, n->grad, in->grad,
                               gamma ? gamma->grad : NULL, beta ? beta->grad : NULL, numel(n) / last_dim(n),
                               last_dim(n), stream);
}

/* ---- embedding, reductions, losses, dropout ---- */

static void embedding_forward(rf_exec *x, rf_node *n)
{
    const rf_node *ids = rf_in(x, n, 0), *table = rf_in(x, n, 1);
    rf_cuda_embedding_forward(ids->value, table->value, n->value, numel(ids), table->shape.dim[1], stream);
}

static void embedding_backward(rf_exec *x, rf_node *n)
{
    const rf_node *ids = rf_in(x, n, 0);
    rf_node *table = rf_in(x, n, 1);
    if (table->grad != NULL)
        rf_cuda_embedding_backward(ids->value, n->grad, table->grad, numel(ids), table->shape.dim[1], stream);
}

static void reduce_forward(rf_exec *x, rf_node *n, bool mean)
{
    const rf_node *in = rf_in(x, n, 0);
    rf_cuda_reduce_forward(in->value, shape_of(in->shape), (int)n->ia[0], mean, n->value, partials, stream);
}

static void reduce_backward(rf_exec *x, rf_node *n, bool mean)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_reduce_backward(n->grad, shape_of(in->shape), (int)n->ia[0], mean, in->grad, stream);
}

static void sum_forward(rf_exec *x, rf_node *n) { reduce_forward(x, n, false); }
static void sum_backward(rf_exec *x, rf_node *n) { reduce_backward(x, n, false); }
static void mean_forward(rf_exec *x, rf_node *n) { reduce_forward(x, n, true); }
static void mean_backward(rf_exec *x, rf_node *n) { reduce_backward(x, n, true); }

static void masked_mean_forward(rf_exec *x, rf_node *n)
{
    const rf_node *in = rf_in(x, n, 0);
    rf_cuda_masked_mean_forward(in->value, rf_in(x, n, 1)->value, n->value, n->aux, in->shape.dim[0],
                                in->shape.dim[1], in->shape.dim[2], stream);
}

static void masked_mean_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_masked_mean_backward(n->aux, n->grad, in->grad, in->shape.dim[0], in->shape.dim[1],
                                     in->shape.dim[2], stream);
}

/* the rows' losses go to the scratch the CPU op uses for them (B floats) */
static void cross_entropy_forward(rf_exec *x, rf_node *n)
{
    const rf_node *logits = rf_in(x, n, 0);
    rf_cuda_cross_entropy_forward(logits->value, rf_in(x, n, 1)->value, n->value, n->aux, x->scratch,
                                  logits->shape.dim[0], logits->shape.dim[1], stream);
}

static void cross_entropy_backward(rf_exec *x, rf_node *n)
{
    rf_node *logits = rf_in(x, n, 0);
    if (logits->grad != NULL)
        rf_cuda_cross_entropy_backward(n->aux, n->grad, logits->grad, logits->shape.dim[0], logits->shape.dim[1],
                                       stream);
}

static void bce_logits_forward(rf_exec *x, rf_node *n)
{
    const rf_node *z = rf_in(x, n, 0);
    rf_cuda_bce_logits_forward(z->value, rf_in(x, n, 1)->value, n->value, rf_shape_numel(z->shape), stream);
}

static void bce_logits_backward(rf_exec *x, rf_node *n)
{
    rf_node *z = rf_in(x, n, 0), *t = rf_in(x, n, 1);
    rf_cuda_bce_logits_backward(z->value, t->value, n->grad, z->grad, t->grad, rf_shape_numel(z->shape), stream);
}

static int32_t node_id(rf_exec *x, const rf_node *n)
{
    return (int32_t)rf_dropout_node(x, n);
}

static void dropout_forward(rf_exec *x, rf_node *n)
{
    rf_cuda_dropout_forward(rf_in(x, n, 0)->value, n->value, numel(n), n->fa[0], x->training, x->seed, x->step,
                            node_id(x, n), (int64_t)x->shard * numel(n), stream);
}

static void dropout_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_dropout_backward(n->grad, in->grad, numel(n), n->fa[0], x->training, x->seed, x->step,
                                 node_id(x, n), (int64_t)x->shard * numel(n), stream);
}

/* ---- products (cuBLAS), convolutions, shapes ---- */

static void matmul_forward(rf_exec *x, rf_node *n)
{
    const rf_node *a = rf_in(x, n, 0), *b = rf_in(x, n, 1);
    rf_cuda_matmul_forward(a->value, shape_of(a->shape), b->value, shape_of(b->shape), n->ia[0] != 0, n->ia[1] != 0,
                           n->value, blas, stream);
}

static void matmul_backward(rf_exec *x, rf_node *n)
{
    rf_node *a = rf_in(x, n, 0), *b = rf_in(x, n, 1);
    rf_cuda_matmul_backward(a->value, shape_of(a->shape), b->value, shape_of(b->shape), n->ia[0] != 0,
                            n->ia[1] != 0, n->grad, a->grad, b->grad, blas, stream);
}

/* x [..., k] w [k, n] (+ bias [n]): rows = numel(x) / k */
static void linear_forward(rf_exec *x, rf_node *n)
{
    const rf_node *in = rf_in(x, n, 0), *w = rf_in(x, n, 1);
    int64_t k = w->shape.dim[0];
    rf_cuda_linear_forward(in->value, w->value, n->n_in == 3 ? rf_in(x, n, 2)->value : NULL, n->value,
                           rf_shape_numel(in->shape) / k, k, w->shape.dim[1], blas, stream);
}

static void linear_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0), *w = rf_in(x, n, 1), *bias = n->n_in == 3 ? rf_in(x, n, 2) : NULL;
    int64_t k = w->shape.dim[0];
    rf_cuda_linear_backward(in->value, w->value, n->grad, in->grad, w->grad, bias ? bias->grad : NULL,
                            rf_shape_numel(in->shape) / k, k, w->shape.dim[1], blas, stream);
}

static void conv1d_forward(rf_exec *x, rf_node *n)
{
    const rf_node *in = rf_in(x, n, 0), *w = rf_in(x, n, 1);
    rf_cuda_conv1d_forward(in->value, shape_of(in->shape), w->value, shape_of(w->shape),
                           n->n_in == 3 ? rf_in(x, n, 2)->value : NULL, n->value, (int)n->ia[0], (int)n->ia[1],
                           x->scratch, blas, stream);
}

static void conv1d_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0), *w = rf_in(x, n, 1), *bias = n->n_in == 3 ? rf_in(x, n, 2) : NULL;
    rf_cuda_conv1d_backward(in->value, shape_of(in->shape), w->value, shape_of(w->shape), n->grad, in->grad,
                            w->grad, bias ? bias->grad : NULL, (int)n->ia[0], (int)n->ia[1], x->scratch, blas,
                            stream);
}

static void conv2d_forward(rf_exec *x, rf_node *n)
{
    const rf_node *in = rf_in(x, n, 0), *w = rf_in(x, n, 1);
    rf_cuda_conv2d_forward(in->value, shape_of(in->shape), w->value, shape_of(w->shape),
                           n->n_in == 3 ? rf_in(x, n, 2)->value : NULL, n->value, (int)n->ia[0], (int)n->ia[1],
                           (int)n->ia[2], (int)n->ia[3], x->scratch, blas, stream);
}

static void conv2d_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0), *w = rf_in(x, n, 1), *bias = n->n_in == 3 ? rf_in(x, n, 2) : NULL;
    rf_cuda_conv2d_backward(in->value, shape_of(in->shape), w->value, shape_of(w->shape), n->grad, in->grad,
                            w->grad, bias ? bias->grad : NULL, (int)n->ia[0], (int)n->ia[1], (int)n->ia[2],
                            (int)n->ia[3], x->scratch, blas, stream);
}

static void reshape_forward(rf_exec *x, rf_node *n)
{
    rf_cuda_reshape_forward(rf_in(x, n, 0)->value, n->value, numel(n), stream);
}

static void reshape_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_reshape_backward(n->grad, in->grad, numel(n), stream);
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
    rf_cuda_permute_forward(in->value, shape_of(in->shape), perm, n->value, stream);
}

static void permute_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    int perm[RF_MAX_DIMS];
    perm_of(n, perm);
    if (in->grad != NULL)
        rf_cuda_permute_backward(n->grad, shape_of(in->shape), perm, in->grad, stream);
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
    rf_cuda_concat_forward(xs, lens, n->n_in, shape_of(n->shape), axis, n->value, stream);
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
    rf_cuda_concat_backward(n->grad, lens, n->n_in, shape_of(n->shape), axis, dxs, stream);
}

static void slice_forward(rf_exec *x, rf_node *n)
{
    const rf_node *in = rf_in(x, n, 0);
    rf_cuda_slice_forward(in->value, shape_of(in->shape), (int)n->ia[0], n->ia[1], n->ia[2], n->value, stream);
}

static void slice_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_slice_backward(n->grad, shape_of(in->shape), (int)n->ia[0], n->ia[1], n->ia[2], in->grad, stream);
}

static void sort_rows_forward(rf_exec *x, rf_node *n)
{
    const rf_node *in = rf_in(x, n, 0), *mask = rf_in(x, n, 1);
    rf_cuda_sort_rows_forward(in->value, mask->value, shape_of(in->shape), mask->shape.dim[1], n->ia[0] != 0,
                              x->probing, n->aux, x->scratch, n->value, stream);
}

static void sort_rows_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_sort_rows_backward(n->grad, n->aux, shape_of(in->shape), n->ia[0] != 0, in->grad, stream);
}

static void pad_forward(rf_exec *x, rf_node *n)
{
    const rf_node *in = rf_in(x, n, 0);
    rf_cuda_pad_forward(in->value, shape_of(in->shape), (int)n->ia[0], n->ia[1], n->ia[2], n->fa[0], n->value,
                        stream);
}

static void pad_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad != NULL)
        rf_cuda_pad_backward(n->grad, shape_of(in->shape), (int)n->ia[0], n->ia[1], n->ia[2], in->grad, stream);
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
 * recomputes the probabilities from it, so nothing n x m is planned. While
 * a probe is attached, the probed sample's rows of the probabilities
 * [b, heads, n, m] are also written to the probe buffer that the attention-map taps read
 * (probe_aux), as the CPU's kernel does. */
static void attention_forward(rf_exec *x, rf_node *n)
{
    const rf_node *q = rf_in(x, n, 0), *k = rf_in(x, n, 1), *v = rf_in(x, n, 2);
    rf_cuda_heads a = heads_of(x, n);
    const float *mask = key_mask(x, n, 3);
    rf_cuda_attention_forward(q->value, k->value, v->value, mask, n->value, n->aux, a, stream);
    n->probe_aux = NULL;
    rf_id id = (rf_id)(n - rf_graph_node(x->g, 0));
    int64_t rows = rf_tap_rows_per_sample(x->g, id, a.b), b0 = x->probe_sample * rows;
    /* a pooled tap is computed by the probe's hook from q, k and aux instead */
    if (x->probing && rows > 0 && b0 >= 0 && b0 + rows <= a.b && rf_probe_wants_aux(x->g, id)) {
        float *p = probe_space((size_t)(rows * a.heads * a.n * a.m));
        rf_cuda_heads part = a;
        part.b = rows;
        if (p != NULL)
            rf_cuda_attention_probs(q->value + b0 * a.n * a.d, k->value + b0 * a.m * a.d,
                                    mask != NULL ? mask + b0 * a.m : NULL, n->aux + b0 * a.heads * a.n, p, part,
                                    stream);
        n->probe_aux = p;
    }
}

/* scratch: the rows' rowsum(dO * O), b heads n floats */
static void attention_backward(rf_exec *x, rf_node *n)
{
    rf_node *q = rf_in(x, n, 0), *k = rf_in(x, n, 1), *v = rf_in(x, n, 2);
    rf_cuda_attention_backward(q->value, k->value, v->value, key_mask(x, n, 3), n->value, n->aux, n->grad, q->grad,
                               k->grad, v->grad, x->scratch, heads_of(x, n), stream);
}

static void ls_attention_forward(rf_exec *x, rf_node *n)
{
    rf_cuda_ls_attention_forward(rf_in(x, n, 0)->value, rf_in(x, n, 1)->value, rf_in(x, n, 2)->value,
                                 key_mask(x, n, 3), n->value, n->aux, heads_of(x, n), (int)n->ia[1], stream);
}

static void ls_attention_backward(rf_exec *x, rf_node *n)
{
    rf_node *q = rf_in(x, n, 0), *k = rf_in(x, n, 1), *v = rf_in(x, n, 2);
    float *w = q->grad != NULL || k->grad != NULL ? x->scratch : NULL;
    rf_cuda_ls_attention_backward(q->value, k->value, v->value, n->aux, n->grad, q->grad, k->grad, v->grad, w,
                                  heads_of(x, n), (int)n->ia[1], stream);
}

static void linear_attention_forward(rf_exec *x, rf_node *n)
{
    rf_cuda_linear_attention_forward(rf_in(x, n, 0)->value, rf_in(x, n, 1)->value, rf_in(x, n, 2)->value,
                                     key_mask(x, n, 3), n->value, n->aux, heads_of(x, n), (int)n->ia[1], stream);
}

static void linear_attention_backward(rf_exec *x, rf_node *n)
{
    rf_node *q = rf_in(x, n, 0), *k = rf_in(x, n, 1), *v = rf_in(x, n, 2);
    float *w = k->grad != NULL || v->grad != NULL ? x->scratch : NULL;
    rf_cuda_linear_attention_backward(v->value, key_mask(x, n, 3), n->aux, n->value, n->grad, q->grad, k->grad,
                                      v->grad, w, heads_of(x, n), (int)n->ia[1], stream);
}

static void talk_forward(rf_exec *x, rf_node *n)
{
    rf_cuda_talk_forward(rf_in(x, n, 0)->value, rf_in(x, n, 1)->value, key_mask(x, n, 2), n->value, n->aux,
                         n->shape.dim[0], n->shape.dim[1], n->shape.dim[2], (int)n->ia[0], (int)n->ia[1],
                         (int)n->ia[2], stream);
}

static void talk_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0), *offsets = rf_in(x, n, 1);
    float *w = in->grad != NULL ? x->scratch : NULL;
    rf_cuda_talk_backward(n->aux, n->grad, in->grad, offsets->grad, w, n->shape.dim[0], n->shape.dim[1],
                          n->shape.dim[2], (int)n->ia[0], (int)n->ia[1], (int)n->ia[2], stream);
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
    table.alloc = dev_alloc;
    table.free = dev_free;
    table.zero = dev_zero;
    table.sync = dev_sync;
    table.sum_squares = dev_sum_squares;
    table.scale = dev_scale;
    table.adamw = dev_adamw;
    table.peak_bytes = dev_peak_bytes;
    table.queue_step = dev_queue_step;
    table.upload = dev_upload;
    table.accepts = dev_accepts;
    table.aux_floats = dev_aux_floats;
    table.scratch_floats = dev_scratch_floats;
#if defined(RF_BACKEND_NCCL)
    table.join_ranks = dev_join_ranks;
    table.average_ranks = dev_average_ranks;
#endif
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
