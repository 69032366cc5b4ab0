/* A small emulation of the CUDA execution model, so the kernels in kernels/
 * compile with g++ and run on the CPU (tests/test_cuda_kernels.cc) where
 * there is no GPU. kernels/cuda_compat.h includes it when RF_CUDA_EMULATE
 * is defined; nothing else should.
 *
 * The model:
 * - A launch runs its blocks one after another, on the launching host
 *   thread. A block's threads are fibers there (block.cc, fiber.cc): one
 *   runs at a time, until it waits at a barrier (__syncthreads, a warp
 *   exchange) or returns, then the next runnable one in the block's order
 *   runs. The order is ascending thread index in one block and descending
 *   in the next, the first block's alternating from launch to launch, so a
 *   thread that reads another's write with no barrier between them reads
 *   it too early in one of the two orders: a missing barrier shows. A
 *   block in which every thread that has not returned waits, and none can
 *   go on, is a deadlock: the emulator names the block and the waiting
 *   threads and aborts (a GPU would hang).
 * - Everything is deterministic by construction: the order of the threads
 *   is fixed, so a launch gives the same bits on every run (emulated runs
 *   may be compared bit for bit).
 * - `__shared__` is `static`: a kernel's shared arrays become one instance
 *   per function, seen by every thread. That is the block's shared memory
 *   because only one block of one launch runs at a time (launches hold a
 *   global lock). Dynamic shared memory (RF_DYNAMIC_SHARED) is a buffer of
 *   the launch's size, filled with NaN bytes before every block so a read
 *   before a write shows.
 * - A warp is 32 consecutive threads of the block. Shuffles, votes and
 *   __syncwarp exchange values through per-warp slots at a barrier of the
 *   warp's lanes. The mask must name exactly the warp's lanes that have not
 *   returned (the emulator aborts on a returned one; a lane left out that
 *   has not returned leaves the others waiting, a deadlock if nothing else
 *   can run): partial-warp shuffles are not emulated.
 * - Floating-point atomicAdd is deterministic: a thread's adds are queued,
 *   and the queues are applied in thread order (each in program order)
 *   when the block's threads meet at __syncthreads and when the block
 *   ends. A sum of floats depends on its order, and the threads' order
 *   (descending in every other block, drawn at random under
 *   perturb_timing) would otherwise choose it. So the old value is not
 *   known: the call returns NaN (no kernel uses it), and an add is seen by
 *   the block's threads from its next __syncthreads, by later blocks and
 *   the host once its block ends. Integer atomics act at once (their
 *   sums do not depend on order). Blocks run in order, so a launch's sums
 *   have one order in all: a real GPU orders them as its threads come.
 * - Memory is host memory (cudaMalloc is malloc), streams are ignored and
 *   every call is synchronous. Launch configurations the hardware refuses
 *   (over 1024 threads, 48 KiB of dynamic shared memory, an empty grid) set
 *   cudaErrorInvalidConfiguration and run nothing.
 * - Stream capture and graphs (cudaStreamBeginCapture .. cudaGraphLaunch):
 *   while a stream captures, a kernel launched on it, cudaMemcpyAsync and
 *   cudaMemsetAsync on it and a cuBLAS call whose handle is bound to it
 *   are recorded, not run (their arguments, and a cuBLAS call's alpha and
 *   beta, copied as the call is made); cudaGraphLaunch runs an
 *   instantiated graph's records in the order they were made. While a
 *   stream captures, cudaMalloc, cudaMallocManaged, cudaHostAlloc,
 *   cudaFree and cudaFreeHost fail with cudaErrorStreamCaptureUnsupported
 *   where the capture's mode prohibits them (global: in every host
 *   thread; thread-local: in the thread that began it; relaxed: never);
 *   cudaDeviceSynchronize and cudaStreamSynchronize of the capturing
 *   stream fail so in any thread, and the synchronous cudaMemcpy and
 *   cudaMemset and any work on the legacy stream 0 with
 *   cudaErrorStreamCaptureImplicit, as CUDA fails them; each invalidates
 *   the capture, so the stream's later calls fail with
 *   cudaErrorStreamCaptureInvalidated and cudaStreamEndCapture returns that
 *   error and no graph. The emulator's own limits: one stream captures at
 *   a time, and events inside a capture (cross-stream forks and joins) are
 *   refused with cudaErrorStreamCaptureUnsupported (nothing of ours uses
 *   them). What it cannot catch: the host reading or writing managed
 *   memory that a captured step will touch (a plain pointer access is no
 *   call; on a GPU it reads values of the last replay, or races with one).
 * - Counters (rf_emu::counts): launches run as they were issued from the
 *   host, records made by captures, records run by graph replays, so a
 *   test can check that a replayed step issues nothing from the host.
 */
#ifndef RF_CUDA_EMU_H
#define RF_CUDA_EMU_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <atomic>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

/* ---- qualifiers ---- */
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static

/* ---- built-in variables ---- */
struct uint3 {
    unsigned x, y, z;
};

struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

/* The general-dynamic model (a call, even in an executable): with the
 * default initial-exec model in a non-PIC executable, GCC 12 tests the
 * flags of an add that ld's relaxation turns into a lea, and UBSan's null
 * check then fires on a valid address. */
#define RF_EMU_TLS thread_local __attribute__((tls_model("global-dynamic")))
extern RF_EMU_TLS uint3 threadIdx, blockIdx;
extern RF_EMU_TLS dim3 blockDim, gridDim;
constexpr int warpSize = 32;

/* ---- runtime ---- */
typedef enum cudaError {   /* CUDA's own values (driver_types.h) */
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorIllegalState = 401,
    cudaErrorStreamCaptureUnsupported = 900,
    cudaErrorStreamCaptureInvalidated = 901,
    cudaErrorStreamCaptureImplicit = 906,
} cudaError_t;

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4,
};

typedef struct CUstream_st *cudaStream_t;

cudaError_t cudaMalloc(void **ptr, size_t bytes);
template <class T> cudaError_t cudaMalloc(T **ptr, size_t bytes)
{
    return cudaMalloc(reinterpret_cast<void **>(ptr), bytes);
}
/* Managed memory is host memory too, as all memory is here. */
enum { cudaMemAttachGlobal = 1 };
cudaError_t cudaMallocManaged(void **ptr, size_t bytes, unsigned flags = cudaMemAttachGlobal);
cudaError_t cudaFree(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream = 0);
cudaError_t cudaMemset(void *ptr, int value, size_t bytes);
cudaError_t cudaMemsetAsync(void *ptr, int value, size_t bytes, cudaStream_t stream = 0);
/* Pinned host memory is plain host memory here. */
enum { cudaHostAllocDefault = 0 };
cudaError_t cudaHostAlloc(void **ptr, size_t bytes, unsigned flags);
cudaError_t cudaFreeHost(void *ptr);
/* Every call completes before it returns, so an event is done once
 * recorded: waiting on one returns at once. */
typedef struct CUevent_st *cudaEvent_t;
enum { cudaEventDisableTiming = 2 };
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned flags = 0);
cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaGetDeviceCount(int *count);

/* Stream capture and graphs (the model above). */
enum cudaStreamCaptureMode {
    cudaStreamCaptureModeGlobal = 0,
    cudaStreamCaptureModeThreadLocal = 1,
    cudaStreamCaptureModeRelaxed = 2,
};
enum cudaStreamCaptureStatus {
    cudaStreamCaptureStatusNone = 0,
    cudaStreamCaptureStatusActive = 1,
    cudaStreamCaptureStatusInvalidated = 2,
};
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus *status);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags = 0);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t error);

/* ---- synchronisation ---- */
void __syncthreads(void);
void __syncwarp(unsigned mask = 0xffffffffu);
inline void __threadfence(void) { std::atomic_thread_fence(std::memory_order_seq_cst); }

namespace rf_emu {

/* Inside a kernel: every lane of the calling thread's warp (those named by
 * `mask`) offers `mine`; returns lane src's offer (src = own lane: own). */
uint64_t warp_exchange(unsigned mask, uint64_t mine, int src);
/* The lanes of `mask` whose predicate is true. */
unsigned warp_ballot(unsigned mask, bool pred);
/* Every lane of `mask` (all 32) offers `mine`; all[l] = lane l's offer, at
 * one warp barrier. For the warp-wide matrix instructions
 * (kernels/mma.cuh), which gather the lanes' fragments. */
void warp_gather(unsigned mask, uint64_t mine, uint64_t all[32]);
int lane(void);

template <class T> uint64_t to_bits(T v)
{
    static_assert(sizeof(T) <= sizeof(uint64_t) && std::is_trivially_copyable_v<T>);
    uint64_t b = 0;
    memcpy(&b, &v, sizeof v);
    return b;
}

template <class T> T from_bits(uint64_t b)
{
    T v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* For tests: with seed != 0, every round of a block's scheduler takes the
 * runnable threads in a pseudo-random order (drawn from seed, block and
 * round), and before it starts and before each floating-point atomic a
 * thread lets the rest of the round go first half the time (drawn from
 * seed, block, thread and a count), so runs with different seeds
 * interleave the threads differently; 0 (the default unless the
 * environment sets RF_CUDA_EMU_PERTURB=seed) runs them in the fixed
 * order of the model above. */
void perturb_timing(unsigned seed);

/* Runs body() as every thread of every block of the launch. */
void run(dim3 grid, dim3 block, size_t shared_bytes, const std::function<void()> &body);

/* What was run, recorded and replayed since the process started (the
 * model above): host_launches, kernels and cuBLAS calls run as the host
 * issued them; host_copies, cudaMemcpyAsync and cudaMemsetAsync run so;
 * captured, the records captures made (of all three kinds); replayed,
 * the records graph launches ran; graph_launches, cudaGraphLaunch calls. */
struct counters {
    unsigned long long host_launches, host_copies, captured, replayed, graph_launches;
};
counters counts(void);

enum class work { launch, copy };
/* Issues `w` on `stream`: records it if the stream captures, runs it now
 * otherwise (counted as issued from the host). Returns the capture's
 * error where the capture refuses it (then nothing is recorded or run). */
cudaError_t issue(cudaStream_t stream, work kind, std::function<void()> w);
/* Whether a launch takes this configuration; if not, sets
 * cudaErrorInvalidConfiguration as the launch's error. */
bool launch_config_ok(dim3 grid, dim3 block, size_t shared_bytes);
/* Sets the calling host thread's last error (cudaGetLastError's). */
void set_last_error(cudaError_t e);
/* The launch's dynamic shared memory. */
void *dynamic_shared(void);

/* kernel<<<grid, block, shared_bytes, stream>>>(args...): the arguments are
 * converted to the kernel's parameter types once, as a launch does, and
 * every thread gets its own copy. */
template <class... P, class... A>
void launch(dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream, void (*kernel)(P...), A &&...args)
{
    static_assert(sizeof...(P) == sizeof...(A), "kernel launched with the wrong number of arguments");
    if (!launch_config_ok(grid, block, shared_bytes))
        return;
    std::tuple<std::decay_t<P>...> params(std::forward<A>(args)...);
    cudaError_t e = issue(stream, work::launch,
                          [=] { run(grid, block, shared_bytes, [&] { std::apply(kernel, params); }); });
    if (e != cudaSuccess)
        set_last_error(e);
}

}   // namespace rf_emu

/* ---- warp shuffles and votes (width: a power of two up to 32) ---- */
template <class T> T __shfl_sync(unsigned mask, T v, int src, int width = warpSize)
{
    int l = rf_emu::lane(), base = l / width * width;
    return rf_emu::from_bits<T>(rf_emu::warp_exchange(mask, rf_emu::to_bits(v), base + src % width));
}

template <class T> T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = warpSize)
{
    int l = rf_emu::lane(), s = l + (int)delta;
    return rf_emu::from_bits<T>(rf_emu::warp_exchange(mask, rf_emu::to_bits(v), s / width == l / width ? s : l));
}

template <class T> T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = warpSize)
{
    int l = rf_emu::lane(), s = l - (int)delta;
    return rf_emu::from_bits<T>(rf_emu::warp_exchange(mask, rf_emu::to_bits(v), s >= l / width * width ? s : l));
}

/* a lane may read from its own and earlier width-groups, never later ones */
template <class T> T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = warpSize)
{
    int l = rf_emu::lane(), s = l ^ lane_mask;
    return rf_emu::from_bits<T>(rf_emu::warp_exchange(mask, rf_emu::to_bits(v), s < (l / width + 1) * width ? s : l));
}

inline unsigned __ballot_sync(unsigned mask, int pred) { return rf_emu::warp_ballot(mask, pred != 0); }
inline int __any_sync(unsigned mask, int pred) { return rf_emu::warp_ballot(mask, pred != 0) != 0; }
inline int __all_sync(unsigned mask, int pred) { return rf_emu::warp_ballot(mask, pred != 0) == mask; }

/* ---- atomics (integer ones act at once; launches on several host threads take turns) ---- */
template <class T> T rf_emu_atomic_add(T *p, T v) { return std::atomic_ref<T>(*p).fetch_add(v); }
/* queued, applied in thread order (the model above); returns NaN */
float atomicAdd(float *p, float v);
double atomicAdd(double *p, double v);
inline int atomicAdd(int *p, int v) { return rf_emu_atomic_add(p, v); }
inline unsigned atomicAdd(unsigned *p, unsigned v) { return rf_emu_atomic_add(p, v); }
inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) { return rf_emu_atomic_add(p, v); }

inline int atomicMax(int *p, int v)
{
    std::atomic_ref<int> a(*p);
    int old = a.load();
    while (old < v && !a.compare_exchange_weak(old, v)) {
    }
    return old;
}

template <class T> T rf_emu_atomic_cas(T *p, T expected, T desired)
{
    std::atomic_ref<T>(*p).compare_exchange_strong(expected, desired);
    return expected;   /* the old value, whether or not it was swapped */
}
inline int atomicCAS(int *p, int cmp, int v) { return rf_emu_atomic_cas(p, cmp, v); }
inline unsigned atomicCAS(unsigned *p, unsigned cmp, unsigned v) { return rf_emu_atomic_cas(p, cmp, v); }
inline unsigned long long atomicCAS(unsigned long long *p, unsigned long long cmp, unsigned long long v)
{
    return rf_emu_atomic_cas(p, cmp, v);
}

/* ---- math intrinsics: libm (the fast variants are only less accurate on a GPU) ---- */
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline float __saturatef(float x) { return fminf(fmaxf(x, 0.0f), 1.0f); }

#endif
