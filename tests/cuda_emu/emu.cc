/* The emulator's launches, warps and runtime (see emu.h for the model). */
#include "emu.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <thread>
#include <vector>

RF_EMU_TLS uint3 threadIdx, blockIdx;
RF_EMU_TLS dim3 blockDim, gridDim;

namespace rf_emu {
namespace {

/* std::barrier's interface, but a waiter sleeps on a futex at once.
 * libstdc++'s std::barrier spins and yields first, and a condition
 * variable makes every woken waiter queue for its mutex: with 256 threads
 * on two busy cores both took about 10 ms a phase (a launch of 256 blocks
 * took 25 s); this one about 1 ms. */
class barrier {
public:
    /* on_phase(ctx) runs in the last thread to arrive, before any waiter
     * goes on (NULL: nothing) */
    explicit barrier(unsigned n, void (*on_phase)(void *) = nullptr, void *ctx = nullptr)
        : state_((uint64_t)n << 32), on_phase_(on_phase), ctx_(ctx)
    {
    }

    void arrive_and_wait(void)
    {
        unsigned phase = phase_.load(std::memory_order_acquire);
        if (arrive(false))
            return;
        while (phase_.load(std::memory_order_acquire) == phase)
            syscall(SYS_futex, &phase_, FUTEX_WAIT_PRIVATE, phase, nullptr, nullptr, 0);
    }

    /* arrive, and be expected in no later phase */
    void arrive_and_drop(void) { arrive(true); }

private:
    /* Counts an arrival (drop: and one thread fewer expected); the last
     * one of a phase opens the next. True for that last one. */
    bool arrive(bool drop)
    {
        uint64_t s = state_.load(std::memory_order_relaxed), next;
        bool last;
        do {
            next = drop ? s - (1ull << 32) : s + 1;
            last = (uint32_t)next == next >> 32;
            if (last)
                next &= ~0xffffffffull;   /* nobody has arrived at the next phase */
        } while (!state_.compare_exchange_weak(s, next, std::memory_order_acq_rel, std::memory_order_relaxed));
        if (last) {
            if (on_phase_ != nullptr)
                on_phase_(ctx_);
            phase_.fetch_add(1, std::memory_order_release);
            syscall(SYS_futex, &phase_, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
        }
        return last;
    }

    std::atomic<uint64_t> state_;         /* threads expected << 32 | threads arrived */
    std::atomic<unsigned> phase_{0};      /* the futex word */
    void (*on_phase_)(void *);
    void *ctx_;
};

/* A warp exchange (shuffle, vote, __syncwarp) is one barrier phase: each
 * lane writes its offer and the exchange's number (counted per lane from
 * the block's start) into the slots of that number's parity, waits, and
 * reads. A lane can write the same parity again only two exchanges later,
 * after every lane has passed the exchange in between, so nobody is still
 * reading. The lanes whose number matches are the ones taking part. */
struct warp {
    std::optional<barrier> bar;   /* the lanes that have not returned */
    uint64_t slot[2][32];
    unsigned stamp[2][32];        /* the exchange number each lane wrote last */
};

/* A floating-point atomicAdd waiting for its turn (emu.h's model). */
struct pending_add {
    void *p;
    double v;
    bool is_double;
};

struct launch_state {
    explicit launch_state(unsigned threads)
        : gate(threads + 1), warps(new warp[(threads + 31) / 32]), adds(threads)
    {
    }
    barrier gate;                       /* the launcher and every thread: a block starts, ends */
    std::optional<barrier> block_bar;   /* __syncthreads; its last arrival applies `adds` */
    std::unique_ptr<warp[]> warps;
    std::vector<std::vector<pending_add>> adds;   /* per thread, in program order */
    uint3 block{};
    bool done = false;
    unsigned char *shared = nullptr;
};

/* The threads that run the kernels: created when a launch needs more than
 * exist, then kept for later launches (creating 256 threads took about
 * 100 ms under ASan: most of the kernel test's time when every launch made
 * its own). */
class workers {
public:
    ~workers()
    {
        {
            std::lock_guard<std::mutex> lock(m_);
            quit_ = true;
        }
        wake_.notify_all();
        for (std::thread &t : threads_)
            t.join();
    }

    /* Runs (*job)(t) on threads t = 0..n-1. */
    void start(unsigned n, const std::function<void(unsigned)> *job)
    {
        std::lock_guard<std::mutex> lock(m_);
        while (threads_.size() < n)
            threads_.emplace_back(&workers::loop, this, (unsigned)threads_.size());
        job_ = job;
        job_threads_ = busy_ = n;
        job_id_++;
        wake_.notify_all();
    }

    /* Waits until every thread of the job has returned from it. */
    void finish(void)
    {
        std::unique_lock<std::mutex> lock(m_);
        idle_.wait(lock, [&] { return busy_ == 0; });
    }

private:
    void loop(unsigned t)
    {
        uint64_t seen = 0;
        std::unique_lock<std::mutex> lock(m_);
        for (;;) {
            wake_.wait(lock, [&] { return quit_ || (job_id_ != seen && t < job_threads_); });
            if (quit_)
                return;
            seen = job_id_;
            const std::function<void(unsigned)> *job = job_;
            lock.unlock();
            (*job)(t);
            lock.lock();
            if (--busy_ == 0)
                idle_.notify_one();
        }
    }

    std::mutex m_;
    std::condition_variable wake_, idle_;
    std::vector<std::thread> threads_;
    const std::function<void(unsigned)> *job_ = nullptr;
    unsigned job_threads_ = 0, busy_ = 0;
    uint64_t job_id_ = 0;
    bool quit_ = false;
};

std::mutex launch_mutex;           /* one launch at a time: `__shared__` statics are the block's */
thread_local launch_state *t_state;
thread_local unsigned t_thread, t_lane, t_warp, t_exchanges;
thread_local cudaError_t t_last_error = cudaSuccess;   /* per host thread, as CUDA's */

[[noreturn]] void fail(const char *what)
{
    fprintf(stderr, "cuda emulator: %s (block %u,%u,%u thread %u,%u,%u)\n", what, blockIdx.x, blockIdx.y,
            blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z);
    abort();
}

warp &my_warp(void)
{
    if (t_state == nullptr)
        fail("a warp or block primitive called outside a kernel");
    return t_state->warps[t_warp];
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

bool valid_config(dim3 grid, dim3 block, size_t shared_bytes)
{
    unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
    return grid.x >= 1 && grid.y >= 1 && grid.z >= 1 && grid.x <= 0x7fffffffu && grid.y <= 65535 &&
           grid.z <= 65535 && threads >= 1 && threads <= 1024 && block.z <= 64 && shared_bytes <= 48 * 1024;
}

/* Timing perturbation (emu.h, perturb_timing): the seed, from the
 * environment until a test sets it. */
unsigned seed_from_env(void)
{
    const char *s = getenv("RF_CUDA_EMU_PERTURB");
    return s != nullptr ? (unsigned)strtoul(s, nullptr, 10) : 0;
}

std::atomic<unsigned> perturb_seed{seed_from_env()};
thread_local uint64_t t_pauses;

/* One pseudo-random pause of the calling thread, where perturbation is on. */
void perturb_point(void)
{
    if (perturb_seed.load(std::memory_order_relaxed) == 0)
        return;
    /* splitmix64 of (seed, block, thread, this thread's pause count) */
    uint64_t h = (uint64_t)perturb_seed.load(std::memory_order_relaxed) << 32 ^
                 (uint64_t)(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)) << 12 ^
                 (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) ^ ++t_pauses << 48;
    h += 0x9e3779b97f4a7c15ull;
    h = (h ^ h >> 30) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ h >> 27) * 0x94d049bb133111ebull;
    h ^= h >> 31;
    if (h % 4 == 0)
        usleep((useconds_t)(h >> 8) % 200);
    else
        std::this_thread::yield();
}

/* One thread of the launch: runs body() for each block the launcher opens. */
void worker(launch_state &st, dim3 grid, dim3 block, unsigned t, const std::function<void()> &body)
{
    t_state = &st;
    threadIdx = {t % block.x, t / block.x % block.y, t / (block.x * block.y)};
    blockDim = block;
    gridDim = grid;
    t_thread = t;
    t_lane = t % 32;
    t_warp = t / 32;
    warp &w = st.warps[t_warp];
    for (;;) {
        st.gate.arrive_and_wait();
        if (st.done)
            break;
        blockIdx = st.block;
        t_exchanges = 0;
        perturb_point();
        body();
        /* a returned thread no longer holds up its warp's or block's barriers */
        w.bar->arrive_and_drop();
        st.block_bar->arrive_and_drop();
        st.gate.arrive_and_wait();
    }
    t_state = nullptr;
}

}   // namespace

void perturb_timing(unsigned seed) { perturb_seed.store(seed); }

void run(dim3 grid, dim3 block, size_t shared_bytes, const std::function<void()> &body)
{
    if (!valid_config(grid, block, shared_bytes)) {
        t_last_error = cudaErrorInvalidConfiguration;
        return;
    }
    std::lock_guard<std::mutex> lock(launch_mutex);
    unsigned threads = block.x * block.y * block.z;
    launch_state st(threads);
    std::unique_ptr<unsigned char[]> shared(new unsigned char[shared_bytes > 0 ? shared_bytes : 1]);
    st.shared = shared.get();
    static workers pool;
    const std::function<void(unsigned)> job = [&](unsigned t) { worker(st, grid, block, t, body); };
    pool.start(threads, &job);
    for (unsigned z = 0; z < grid.z; z++)
        for (unsigned y = 0; y < grid.y; y++)
            for (unsigned x = 0; x < grid.x; x++) {
                /* every thread waits at the gate: the barriers can be renewed */
                st.block = {x, y, z};
                st.block_bar.emplace(threads, apply_adds, &st);
                for (unsigned k = 0; k < (threads + 31) / 32; k++) {
                    unsigned n = threads - 32 * k < 32 ? threads - 32 * k : 32;
                    st.warps[k].bar.emplace(n);
                    memset(st.warps[k].stamp, 0, sizeof st.warps[k].stamp);
                }
                memset(st.shared, 0xff, shared_bytes);   /* NaN floats */
                st.gate.arrive_and_wait();   /* the block starts */
                st.gate.arrive_and_wait();   /* every thread has returned */
                apply_adds(&st);
            }
    st.done = true;
    st.gate.arrive_and_wait();
    pool.finish();
}

void *dynamic_shared(void)
{
    if (t_state == nullptr)
        fail("dynamic shared memory used outside a kernel");
    return t_state->shared;
}

int lane(void) { return (int)t_lane; }

/* Offers `mine` in the warp's next exchange; returns the slots of that
 * exchange and the lanes taking part, which must be exactly `mask`. */
static const uint64_t *exchange(unsigned mask, uint64_t mine, unsigned *lanes)
{
    warp &w = my_warp();
    unsigned n = ++t_exchanges, k = n & 1;
    w.slot[k][t_lane] = mine;
    w.stamp[k][t_lane] = n;
    w.bar->arrive_and_wait();
    *lanes = 0;
    for (unsigned l = 0; l < 32; l++)
        if (w.stamp[k][l] == n)
            *lanes |= 1u << l;
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
    if (t_state == nullptr)
        fail("atomicAdd called outside a kernel");
    perturb_point();
    t_state->adds[t_thread].push_back({p, v, is_double});
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

void __syncthreads(void)
{
    rf_emu::my_warp();   /* checks that a kernel is running */
    rf_emu::t_state->block_bar->arrive_and_wait();
}

void __syncwarp(unsigned mask) { rf_emu::warp_ballot(mask, false); }

/* ---- runtime: host memory, synchronous ---- */

struct CUstream_st {
    int unused;
};

cudaError_t cudaMalloc(void **ptr, size_t bytes)
{
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
    free(ptr);
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
    (void)kind;
    if (bytes > 0)
        memcpy(dst, src, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream)
{
    (void)stream;
    return cudaMemcpy(dst, src, bytes, kind);
}

cudaError_t cudaMemset(void *ptr, int value, size_t bytes)
{
    if (bytes > 0)
        memset(ptr, value, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *ptr, int value, size_t bytes, cudaStream_t stream)
{
    (void)stream;
    return cudaMemset(ptr, value, bytes);
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

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    (void)stream;
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
    (void)stream;
    (void)flags;
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
    (void)stream;
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }

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
    }
    return "unknown error";
}
