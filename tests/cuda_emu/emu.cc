/* The emulator's launches, warps and runtime (see emu.h for the model;
 * block.cc runs a block's threads). */
#include "emu.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

#include "block.h"
#include "capture.h"

RF_EMU_TLS uint3 threadIdx, blockIdx;
RF_EMU_TLS dim3 blockDim, gridDim;

namespace rf_emu {

[[noreturn]] void fail(const char *what)
{
    fprintf(stderr, "cuda emulator: %s (block %u,%u,%u thread %u,%u,%u)\n", what, blockIdx.x, blockIdx.y,
            blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z);
    abort();
}

namespace {

/* A warp exchange (shuffle, vote, __syncwarp) is one warp barrier: each
 * lane writes its offer and the exchange's number (counted per lane from
 * the block's start) into the slots of that number's parity, waits, and
 * reads. A lane can write the same parity again only two exchanges later,
 * after every lane has passed the exchange in between, so nobody is still
 * reading. The lanes whose number matches are the ones taking part. */
struct warp {
    uint64_t slot[2][32];
    unsigned stamp[2][32];   /* the exchange number each lane wrote last */
};

/* A floating-point atomicAdd waiting for its turn (emu.h's model). */
struct pending_add {
    void *p;
    double v;
    bool is_double;
};

struct launch_state {
    explicit launch_state(unsigned threads)
        : warps(new warp[(threads + 31) / 32]), exchanges(threads), adds(threads)
    {
    }
    std::unique_ptr<warp[]> warps;
    std::vector<unsigned> exchanges;              /* per thread: warp exchanges since the block started */
    std::vector<std::vector<pending_add>> adds;   /* per thread, in program order */
    unsigned char *shared = nullptr;
};

std::mutex launch_mutex;                /* one launch at a time: `__shared__` statics are the block's */
launch_state *running_launch;           /* under launch_mutex */
unsigned long long launches;            /* under launch_mutex: launches so far, for the threads' order */
thread_local cudaError_t t_last_error = cudaSuccess;   /* per host thread, as CUDA's */

/* The running launch, and in *thread the calling kernel thread's index
 * in its block; aborts, naming `what`, outside a kernel. */
launch_state &kernel_launch(const char *what, unsigned *thread = nullptr)
{
    unsigned t = current_thread(what);
    if (thread != nullptr)
        *thread = t;
    return *running_launch;
}

/* The block's queued float adds, thread 0's first, each thread's in the
 * order it made them. Runs while no thread of the block can run. */
void apply_adds(void *state)
{
    for (std::vector<pending_add> &q : static_cast<launch_state *>(state)->adds) {
        for (const pending_add &a : q)
            if (a.is_double)
                *static_cast<double *>(a.p) += a.v;
            else
                *static_cast<float *>(a.p) += (float)a.v;
        q.clear();
    }
}

}   // namespace

void perturb_timing(unsigned seed) { set_perturb_seed(seed); }

void set_last_error(cudaError_t e) { t_last_error = e; }

bool launch_config_ok(dim3 grid, dim3 block, size_t shared_bytes)
{
    unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
    bool ok = grid.x >= 1 && grid.y >= 1 && grid.z >= 1 && grid.x <= 0x7fffffffu && grid.y <= 65535 &&
              grid.z <= 65535 && threads >= 1 && threads <= 1024 && block.z <= 64 && shared_bytes <= 48 * 1024;
    if (!ok)
        t_last_error = cudaErrorInvalidConfiguration;
    return ok;
}

void run(dim3 grid, dim3 block, size_t shared_bytes, const std::function<void()> &body)
{
    if (!launch_config_ok(grid, block, shared_bytes))
        return;
    std::lock_guard<std::mutex> lock(launch_mutex);
    unsigned threads = block.x * block.y * block.z;
    launch_state st(threads);
    std::unique_ptr<unsigned char[]> shared(new unsigned char[shared_bytes > 0 ? shared_bytes : 1]);
    st.shared = shared.get();
    running_launch = &st;
    blockDim = block;
    gridDim = grid;
    /* The threads run in ascending order in one block and descending in
     * the next, the first block's order alternating from launch to launch:
     * a thread that reads what another wrote without a barrier between
     * them reads it too early in one of the two orders. */
    unsigned long long order = launches++;
    for (unsigned z = 0; z < grid.z; z++)
        for (unsigned y = 0; y < grid.y; y++)
            for (unsigned x = 0; x < grid.x; x++) {
                blockIdx = {x, y, z};
                for (unsigned k = 0; k < (threads + 31) / 32; k++)
                    memset(st.warps[k].stamp, 0, sizeof st.warps[k].stamp);
                std::fill(st.exchanges.begin(), st.exchanges.end(), 0u);
                memset(st.shared, 0xff, shared_bytes);   /* NaN floats */
                run_block(threads, order++ % 2 == 1, body, apply_adds, &st);
                apply_adds(&st);
            }
    running_launch = nullptr;
}

void *dynamic_shared(void) { return kernel_launch("dynamic shared memory used outside a kernel").shared; }

int lane(void) { return (int)(current_thread("a warp primitive called outside a kernel") % 32); }

/* Offers `mine` in the warp's next exchange; returns the slots of that
 * exchange and the lanes taking part, which must be exactly `mask`. */
static const uint64_t *exchange(unsigned mask, uint64_t mine, unsigned *lanes)
{
    unsigned t;
    launch_state &st = kernel_launch("a warp shuffle, vote or __syncwarp called outside a kernel", &t);
    unsigned l = t % 32;
    warp &w = st.warps[t / 32];
    unsigned n = ++st.exchanges[t], k = n & 1;
    w.slot[k][l] = mine;
    w.stamp[k][l] = n;
    warp_barrier();
    *lanes = 0;
    for (unsigned i = 0; i < 32; i++)
        if (w.stamp[k][i] == n)
            *lanes |= 1u << i;
    if (mask != *lanes)
        fail("warp shuffle, vote or __syncwarp whose mask is not the warp's live lanes");
    return w.slot[k];
}

uint64_t warp_exchange(unsigned mask, uint64_t mine, int src)
{
    unsigned lanes;
    const uint64_t *slot = exchange(mask, mine, &lanes);
    if (src < 0 || src >= 32 || !(lanes >> src & 1))
        fail("warp shuffle reads a lane that does not exist or has returned");
    return slot[src];
}

void warp_gather(unsigned mask, uint64_t mine, uint64_t all[32])
{
    unsigned lanes;
    const uint64_t *slot = exchange(mask, mine, &lanes);
    if (lanes != 0xffffffffu)
        fail("a warp-wide matrix instruction needs all 32 lanes");
    memcpy(all, slot, 32 * sizeof *all);
}

unsigned warp_ballot(unsigned mask, bool pred)
{
    unsigned lanes, bits = 0;
    const uint64_t *slot = exchange(mask, pred, &lanes);
    for (unsigned l = 0; l < 32; l++)
        if (lanes >> l & 1 && slot[l] != 0)
            bits |= 1u << l;
    return bits;
}

/* Queues a float atomicAdd of the calling kernel thread. */
static void queue_add(void *p, double v, bool is_double)
{
    unsigned t;
    launch_state &st = kernel_launch("atomicAdd called outside a kernel", &t);
    perturb_point();
    st.adds[t].push_back({p, v, is_double});
}

}   // namespace rf_emu

float atomicAdd(float *p, float v)
{
    rf_emu::queue_add(p, v, false);
    return NAN;
}

double atomicAdd(double *p, double v)
{
    rf_emu::queue_add(p, v, true);
    return NAN;
}

void __syncthreads(void) { rf_emu::block_barrier(); }

void __syncwarp(unsigned mask) { rf_emu::warp_ballot(mask, false); }

/* ---- runtime: host memory, synchronous ---- */

struct CUstream_st {
    int unused;
};

cudaError_t cudaMalloc(void **ptr, size_t bytes)
{
    if (cudaError_t e = rf_emu::unsafe_in_capture(cudaErrorStreamCaptureUnsupported))
        return e;
    *ptr = bytes > 0 ? malloc(bytes) : nullptr;
    return bytes > 0 && *ptr == nullptr ? cudaErrorMemoryAllocation : cudaSuccess;
}

cudaError_t cudaMallocManaged(void **ptr, size_t bytes, unsigned flags)
{
    (void)flags;
    return cudaMalloc(ptr, bytes);
}

cudaError_t cudaFree(void *ptr)
{
    if (cudaError_t e = rf_emu::unsafe_in_capture(cudaErrorStreamCaptureUnsupported))
        return e;
    free(ptr);
    return cudaSuccess;
}

/* The synchronous copies run on the legacy stream, which waits for a
 * capturing stream: CUDA refuses them during a capture. */
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
    (void)kind;
    if (cudaError_t e = rf_emu::forbidden_in_capture(cudaErrorStreamCaptureImplicit))
        return e;
    if (bytes > 0)
        memcpy(dst, src, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream)
{
    (void)kind;
    return rf_emu::issue(stream, rf_emu::work::copy, [=] {
        if (bytes > 0)
            memcpy(dst, src, bytes);
    });
}

cudaError_t cudaMemset(void *ptr, int value, size_t bytes)
{
    if (cudaError_t e = rf_emu::forbidden_in_capture(cudaErrorStreamCaptureImplicit))
        return e;
    if (bytes > 0)
        memset(ptr, value, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *ptr, int value, size_t bytes, cudaStream_t stream)
{
    return rf_emu::issue(stream, rf_emu::work::copy, [=] {
        if (bytes > 0)
            memset(ptr, value, bytes);
    });
}

cudaError_t cudaHostAlloc(void **ptr, size_t bytes, unsigned flags)
{
    (void)flags;
    return cudaMalloc(ptr, bytes);
}

cudaError_t cudaFreeHost(void *ptr)
{
    return cudaFree(ptr);
}

struct CUevent_st {
    bool recorded;
};

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned flags)
{
    (void)flags;
    *event = new CUevent_st{};
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    delete event;
    return cudaSuccess;
}

/* Events inside a capture (a fork or join of streams) are not emulated:
 * refused, so a test that would need them fails rather than passes. */
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    if (rf_emu::capturing(stream))
        return rf_emu::forbidden_in_capture(cudaErrorStreamCaptureUnsupported);
    event->recorded = true;
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    (void)event;
    return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned flags)
{
    (void)flags;
    if (rf_emu::capturing(stream))
        return rf_emu::forbidden_in_capture(cudaErrorStreamCaptureUnsupported);
    return event != nullptr ? cudaSuccess : cudaErrorInvalidValue;
}

cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
    *stream = new CUstream_st{};
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    delete stream;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    if (stream == nullptr)
        return rf_emu::forbidden_in_capture(cudaErrorStreamCaptureImplicit);
    if (rf_emu::capturing(stream))
        return rf_emu::forbidden_in_capture(cudaErrorStreamCaptureUnsupported);
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) { return rf_emu::forbidden_in_capture(cudaErrorStreamCaptureUnsupported); }

cudaError_t cudaGetDeviceCount(int *count)
{
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = rf_emu::t_last_error;
    rf_emu::t_last_error = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void) { return rf_emu::t_last_error; }

const char *cudaGetErrorString(cudaError_t error)
{
    switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorIllegalState: return "the operation cannot be performed in the present state";
    case cudaErrorStreamCaptureUnsupported: return "operation not permitted when stream is capturing";
    case cudaErrorStreamCaptureInvalidated: return "operation failed due to a previous error during capture";
    case cudaErrorStreamCaptureImplicit:
        return "operation would make the legacy stream depend on a capturing blocking stream";
    }
    return "unknown error";
}
