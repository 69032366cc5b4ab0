/* The CUDA backend's device services (rf_backend, core/op.h), beside its
 * op table (backend.cu): the one stream and cuBLAS handle every kernel
 * runs on, managed memory and its accounting, AdamW's parameter table and
 * the fused optimiser step, NCCL between ranks, batch uploads through
 * pinned staging, and the probes' buffer. Compiled by nvcc for the GPU
 * and, like every .cu here, as C++ against the emulator (tests/cuda_emu).
 *
 * Memory is CUDA managed memory: the host reads the loss and logits and
 * writes each batch through plain pointers, and checkpoints and probes read
 * the parameters and activations the same way, after `sync`. Everything
 * runs on one stream, so kernels are ordered without events. A training
 * step's kernels read what changes from step to step from the step's clock
 * in device memory, so the step can be captured once as a CUDA graph and
 * replayed (the graph services at the end). */
#include "device_runtime.h"

#include <assert.h>
#include <stddef.h>
#include <stdio.h>

#include <mutex>
#include <unordered_map>
#include <vector>

#include "nccl_compat.h"

extern "C" {
#include "../core/collective.h"
#include "../core/params.h"
}

/* ---- the device state: one stream, reduction space, AdamW's table ---- */

cudaStream_t rf_cuda_stream;
cublasHandle_t rf_cuda_blas;
double *rf_cuda_partials;
static rf_cuda_param *adamw_table;
static std::vector<rf_cuda_param> adamw_entries;   /* the table's host copy, read while kernels run */
static int64_t adamw_max_numel;
static unsigned long long adamw_table_builds;       /* a recorded step is stale once the table is rebuilt */
static rf_cuda_step_clock *step_clock;              /* the queued step's scalars (step_scalars) */
static rf_cuda_step_clock step_clock_sent;          /* its host copy: the last values sent */

static bool ok(cudaError_t e)
{
    return e == cudaSuccess;
}

static bool init_state(void)
{
    if (rf_cuda_partials != NULL)
        return true;
    if (!ok(cudaStreamCreate(&rf_cuda_stream)) || cublasCreate(&rf_cuda_blas) != CUBLAS_STATUS_SUCCESS)
        return false;
    return ok(cudaMallocManaged((void **)&rf_cuda_partials, (RF_CUDA_PARTIALS + 1) * sizeof(double), cudaMemAttachGlobal));
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
    cudaStreamSynchronize(rf_cuda_stream);
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
    cudaMemsetAsync(p, 0, (size_t)n * sizeof(float), rf_cuda_stream);
}

static void dev_fill(float *p, int64_t n, float v)
{
    rf_cuda_fill(p, n, v, rf_cuda_stream);
}

static void dev_sync(void)
{
    cudaStreamSynchronize(rf_cuda_stream);
}

static double dev_sum_squares(const float *p, int64_t n)
{
    rf_cuda_sum_squares(p, n, rf_cuda_partials + RF_CUDA_PARTIALS, rf_cuda_partials, rf_cuda_stream);
    cudaStreamSynchronize(rf_cuda_stream);
    return rf_cuda_partials[RF_CUDA_PARTIALS];
}

static void dev_scale(float *p, int64_t n, float s)
{
    rf_cuda_scale_forward(p, p, n, s, rf_cuda_stream);
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
    adamw_table_builds++;
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
    rf_cuda_adamw(p->value, p->grad, p->m, p->v, adamw_table, p->count, adamw_max_numel, args, NULL, NULL,
                  rf_cuda_stream);
}

static_assert(sizeof(rf_step_report) == sizeof(rf_cuda_step_report) &&
                  offsetof(rf_step_report, first_bad) == offsetof(rf_cuda_step_report, first_bad) &&
                  offsetof(rf_step_report, skip) == offsetof(rf_cuda_step_report, skip),
              "rf_cuda_step_report is rf_step_report, field for field");

static bool dev_upload(int count, float *const *dst, const float *const *src, const size_t *bytes);

/* The step's clock, in stream order (through upload, as a batch). */
static bool dev_step_scalars(uint64_t step, double clip, const rf_adamw_args *a)
{
    if (step_clock == NULL && (step_clock = (rf_cuda_step_clock *)dev_alloc(sizeof *step_clock)) == NULL)
        return false;
    step_clock_sent = (rf_cuda_step_clock){step, clip, {a->lr, a->beta1, a->beta2, a->eps, a->decay, a->c1, a->c2}};
    float *dst = (float *)(void *)step_clock;
    const float *src = (const float *)(const void *)&step_clock_sent;
    size_t bytes = sizeof step_clock_sent;
    return dev_upload(1, &dst, &src, &bytes);
}

const uint64_t *rf_cuda_clock_step(const rf_exec *x)
{
    return x->queued && step_clock != NULL ? &step_clock->step : NULL;
}

/* The norm, the guard, clipping and AdamW, queued with the clock's
 * scalars: the host waits for none of it (it reads `report` when it next
 * syncs). */
static void dev_queue_step(rf_params *p, const float *loss, rf_step_report *report)
{
    assert(step_clock != NULL && "step_scalars sends a step's scalars before queue_step");
    rf_cuda_step_report *r = (rf_cuda_step_report *)report;
    rf_cuda_sum_squares(p->grad, (int64_t)p->total, rf_cuda_partials + RF_CUDA_PARTIALS, rf_cuda_partials, rf_cuda_stream);
    rf_cuda_step_guard(loss, rf_cuda_partials + RF_CUDA_PARTIALS, step_clock, r, rf_cuda_stream);
    if (!adamw_table_for(p))
        return;
    rf_cuda_adamw(p->value, p->grad, p->m, p->v, adamw_table, p->count, adamw_max_numel, step_clock_sent.adamw,
                  &step_clock->adamw, r, rf_cuda_stream);
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
    ncclAllReduce(p, p, (size_t)n, ncclFloat, ncclAvg, ranks_comm, rf_cuda_stream);
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
                ok(cudaEventRecord(s->sent, copy_stream)) && ok(cudaStreamWaitEvent(rf_cuda_stream, s->sent, 0));
    for (size_t i = 0, at = 0; sent && i < (size_t)count; at += bytes[i], i++)
        sent = ok(cudaMemcpyAsync(dst[i], s->staged + at, bytes[i], cudaMemcpyDeviceToDevice, rf_cuda_stream));
    return sent && ok(cudaEventRecord(s->placed, rf_cuda_stream));
}

/* ---- a step as a CUDA graph: captured once, replayed ---- */

/* A captured step, instantiated, and the AdamW table it reads: a table
 * rebuilt since (another parameter store's steps ran) makes it stale. */
typedef struct recording {
    cudaGraphExec_t exec;
    unsigned long long table_build;
} recording;

/* Thread-local: the calls a capture forbids are refused in the capturing
 * thread (the trainer's), while another (the workbench's, listing the
 * GPUs) may still allocate. */
static bool dev_capture_begin(void)
{
    return init_state() && ok(cudaStreamBeginCapture(rf_cuda_stream, cudaStreamCaptureModeThreadLocal));
}

static void *dev_capture_end(char *why, size_t size)
{
    cudaGraph_t graph = NULL;
    cudaError_t e = cudaStreamEndCapture(rf_cuda_stream, &graph);
    cudaError_t launch = cudaGetLastError();   /* a launch the capture refused, if any */
    cudaGraphExec_t exec = NULL;
    if (e == cudaSuccess)
        e = cudaGraphInstantiate(&exec, graph, 0);
    if (graph != NULL)
        cudaGraphDestroy(graph);
    if (e == cudaSuccess) {
        recording *r = new recording{exec, adamw_table_builds};
        return r;
    }
    snprintf(why, size, "the step could not be captured as a CUDA graph: %s%s%s", cudaGetErrorString(e),
             launch != cudaSuccess ? "; a launch failed with: " : "",
             launch != cudaSuccess ? cudaGetErrorString(launch) : "");
    return NULL;
}

static bool dev_replay(void *rec)
{
    recording *r = (recording *)rec;
    return r->table_build == adamw_table_builds && ok(cudaGraphLaunch(r->exec, rf_cuda_stream));
}

static void dev_release(void *rec)
{
    recording *r = (recording *)rec;
    if (r == NULL)
        return;
    cudaGraphExecDestroy(r->exec);
    delete r;
}

/* The probes' buffer (device_runtime.h). */
static float *probe_buffer;
static size_t probe_buffer_floats;

float *rf_cuda_probe_space(size_t floats)
{
    if (floats <= probe_buffer_floats)
        return probe_buffer;
    dev_free(probe_buffer);
    probe_buffer = (float *)dev_alloc(floats * sizeof(float));
    probe_buffer_floats = probe_buffer != NULL ? floats : 0;
    return probe_buffer;
}

void rf_cuda_runtime_services(rf_backend *table)
{
    table->alloc = dev_alloc;
    table->free = dev_free;
    table->zero = dev_zero;
    table->fill = dev_fill;
    table->sync = dev_sync;
    table->sum_squares = dev_sum_squares;
    table->scale = dev_scale;
    table->adamw = dev_adamw;
    table->peak_bytes = dev_peak_bytes;
    table->queue_step = dev_queue_step;
    table->step_scalars = dev_step_scalars;
    table->upload = dev_upload;
    table->capture_begin = dev_capture_begin;
    table->capture_end = dev_capture_end;
    table->replay = dev_replay;
    table->release = dev_release;
#if defined(RF_BACKEND_NCCL)
    table->join_ranks = dev_join_ranks;
    table->average_ranks = dev_average_ranks;
#endif
}
