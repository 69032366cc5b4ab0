/* The CUDA emulator (tests/cuda_emu) keeps the execution model the kernels
 * rely on: barriers, shared memory per block, warp shuffles and votes at
 * their documented edge cases, atomics among concurrent threads (float
 * sums in thread order, however the threads' timing goes), early returns,
 * and refusing the launches a GPU refuses; and it shows the mistakes a GPU
 * would hide or hang on: a missing barrier, a deadlock. Stream capture
 * records work and graphs replay it, and the calls a capture forbids fail
 * as on a GPU. The kernel tests (test_cuda_kernels.cc) stand on these. */
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <thread>

#include <vector>

#include "../kernels/cuda_compat.h"
#include "tap.h"

#define FULL 0xffffffffu

/* out[block, t] = in[block, T - 1 - t] through static shared memory: every
 * thread reads a slot another thread wrote, so only the barrier makes it right */
__global__ void reverse_kernel(const int *in, int *out)
{
    __shared__ int s[256];
    unsigned t = threadIdx.x, T = blockDim.x;
    s[t] = in[blockIdx.x * T + t];
    __syncthreads();
    out[blockIdx.x * T + t] = s[T - 1 - t];
}

/* out[block, t] = in[block, t + step] through shared memory (in[t] past
 * the edges), with no barrier between the write and the neighbour's read:
 * wrong in at least one of any two threads' orders */
__global__ void unsynced_shift_kernel(const int *in, int *out, int step)
{
    __shared__ int s[64];
    int t = (int)threadIdx.x, T = (int)blockDim.x, n = t + step;
    s[t] = in[blockIdx.x * T + t];
    out[blockIdx.x * T + t] = n >= 0 && n < T ? s[n] : s[t];
}

/* Thread 0 of block 1 skips the __syncthreads and waits at the shuffle for
 * the rest of its warp, which waits at the __syncthreads for it. */
__global__ void deadlock_kernel(int *out)
{
    if (blockIdx.x != 1 || threadIdx.x != 0)
        __syncthreads();
    out[threadIdx.x] = __shfl_sync(FULL, (int)threadIdx.x, 0);
}

/* the same through dynamic shared memory, whose bytes start as NaN */
__global__ void dynamic_kernel(const int *in, int *out, float *before)
{
    RF_DYNAMIC_SHARED(int, s);
    unsigned t = threadIdx.x, T = blockDim.x;
    if (t == 0)
        before[blockIdx.x] = reinterpret_cast<float *>(s)[T - 1];
    __syncthreads();
    s[t] = in[blockIdx.x * T + t];
    __syncthreads();
    out[blockIdx.x * T + t] = s[T - 1 - t];
}

/* each lane writes what the shuffles and votes gave it (8 ints per lane) */
__global__ void warp_kernel(int *out)
{
    int l = (int)(threadIdx.x % 32);
    int *o = out + 8 * threadIdx.x;
    o[0] = __shfl_down_sync(FULL, l, 5);
    o[1] = __shfl_up_sync(FULL, l, 3);
    o[2] = __shfl_xor_sync(FULL, l, 4, 8);
    o[3] = __shfl_sync(FULL, l, 3);
    o[4] = __shfl_sync(FULL, l, 9, 8);
    o[5] = (int)__ballot_sync(FULL, l % 3 == 0);
    o[6] = __all_sync(FULL, l < 32) + 2 * __all_sync(FULL, l < 31);
    o[7] = __any_sync(FULL, l == 7) + 2 * __any_sync(FULL, l > 40);
}

__global__ void atomic_kernel(int *sum, int *max, unsigned *cas_wins, float *fsum)
{
    int t = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    atomicAdd(sum, 1);
    atomicMax(max, t);
    atomicAdd(fsum, 0.5f);
    if (atomicCAS(reinterpret_cast<int *>(cas_wins), 0, t + 1) == 0)
        atomicAdd(cas_wins + 1, 1u);   /* exactly one thread swaps the 0 away */
}

/* threads past `live` return at once; the rest still pass two barriers */
__global__ void early_return_kernel(int *out, unsigned live)
{
    __shared__ int s[128];
    if (threadIdx.x >= live)
        return;
    s[threadIdx.x] = (int)threadIdx.x;
    __syncthreads();
    __syncthreads();
    out[threadIdx.x] = s[live - 1 - threadIdx.x];
}

__global__ void count_kernel(int *runs) { atomicAdd(runs, 1); }

/* Every thread adds its value into one float and one double in global
 * memory and into the block's shared float, which thread 0 reads after
 * the barrier; odd threads return first, the rest add once more after it. */
__global__ void float_sum_kernel(const float *v, float *sum, double *dsum, float *block_sums)
{
    __shared__ float acc;
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0)
        acc = 0.0f;
    __syncthreads();
    atomicAdd(sum, v[t]);
    atomicAdd(dsum, (double)v[t]);
    atomicAdd(&acc, v[t]);
    if (threadIdx.x % 2 == 1)
        return;
    __syncthreads();
    if (threadIdx.x == 0)
        block_sums[blockIdx.x] = acc;
    atomicAdd(sum, -v[t] / 3);
}

template <class T> static T *device(const std::vector<T> &h)
{
    T *d;
    cudaMalloc(&d, h.size() * sizeof(T));
    cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
    return d;
}

template <class T> static std::vector<T> host(const T *d, size_t n)
{
    std::vector<T> h(n);
    cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
    return h;
}

static void test_shared(void)
{
    const unsigned T = 256, B = 3;
    std::vector<int> in(T * B);
    for (unsigned i = 0; i < T * B; i++)
        in[i] = (int)(i * 7 + 1);
    int *din = device(in), *dout = device(std::vector<int>(T * B));
    float *before = device(std::vector<float>(B));
    auto reversed = [&] {
        std::vector<int> o = host(dout, T * B);
        bool ok = cudaGetLastError() == cudaSuccess;
        for (unsigned i = 0; i < T * B; i++)
            ok = ok && o[i] == in[i / T * T + T - 1 - i % T];
        return ok;
    };
    RF_LAUNCH(reverse_kernel, B, T, 0, 0, din, dout);
    tap_ok(reversed(), "__syncthreads orders static shared memory across 256 threads");
    cudaMemset(dout, 0, T * B * sizeof(int));
    RF_LAUNCH(dynamic_kernel, B, T, T * sizeof(int), 0, din, dout, before);
    bool nan = true;
    for (float v : host(before, B))
        nan = nan && v != v;
    tap_ok(reversed() && nan, "dynamic shared memory holds the launch's bytes, NaN at every block's start");
    cudaFree(din);
    cudaFree(dout);
    cudaFree(before);
}

/* A missing barrier shows: the emulator runs a block's threads in
 * ascending order in one block and descending in the next, so reading the
 * left neighbour's value early (wrong when the threads go in descending
 * order) and the right one's (ascending) each go wrong in one of two
 * blocks. A real GPU may well give the right answer. */
static void test_missing_barrier(void)
{
    const unsigned T = 64, B = 2;
    std::vector<int> in(T * B);
    for (unsigned i = 0; i < T * B; i++)
        in[i] = (int)(i + 1);
    int *din = device(in), *dout = device(std::vector<int>(T * B));
    for (int step : {-1, 1}) {
        RF_LAUNCH(unsynced_shift_kernel, B, T, 0, 0, din, dout, step);
        std::vector<int> o = host(dout, T * B);
        unsigned wrong_blocks = 0;
        for (unsigned b = 0; b < B; b++) {
            bool wrong = false;
            for (unsigned t = 0; t < T; t++) {
                int n = (int)t + step;
                wrong = wrong || o[b * T + t] != in[b * T + (n >= 0 && n < (int)T ? n : t)];
            }
            wrong_blocks += wrong;
        }
        tap_ok(cudaGetLastError() == cudaSuccess && wrong_blocks >= 1,
               "a thread reading its %s neighbour's shared value with no __syncthreads reads it too early "
               "(%u of %u blocks wrong)", step < 0 ? "left" : "right", wrong_blocks, B);
    }
    cudaFree(din);
    cudaFree(dout);
}

/* A deadlock is reported, naming the block and where each waiting thread
 * waits, and aborts (a GPU would hang). Run in a child process. */
static void test_deadlock(void)
{
    int fds[2];
    if (pipe(fds) != 0) {
        tap_ok(false, "a pipe for the deadlocking child");
        return;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        const struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        dup2(fds[1], 2);
        close(fds[0]);
        int *d;
        cudaMalloc(&d, 64 * sizeof(int));
        RF_LAUNCH(deadlock_kernel, 2, 64, 0, 0, d);
        _exit(0);   /* not reached when the deadlock is caught */
    }
    close(fds[1]);
    std::string err;
    char buf[512];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
        err.append(buf, (size_t)n);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    const char *want = "cuda emulator: deadlock in block 1,0,0: no thread can go on (threads by index in the block, x "
                       "fastest); waiting at __syncthreads: 1-63; waiting at a warp shuffle, vote or __syncwarp: 0\n";
    if (!tap_ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT && err.find(want) != std::string::npos,
                "a thread that skips a __syncthreads and waits at a shuffle for its warp is a deadlock: reported "
                "with the block and the waiting threads, then abort"))
        tap_diag("child status %d, stderr: %s", status, err.c_str());
}

static void test_warp(void)
{
    const unsigned T = 64;
    int *d = device(std::vector<int>(8 * T));
    RF_LAUNCH(warp_kernel, 1, T, 0, 0, d);
    std::vector<int> o = host(d, 8 * T);
    bool ok = true;
    for (int t = 0; t < (int)T; t++) {
        int l = t % 32;
        const int *v = o.data() + 8 * t;
        int want[8] = {l + 5 < 32 ? l + 5 : l, l >= 3 ? l - 3 : l, l ^ 4, 3, l / 8 * 8 + 1,
                       (int)0x49249249u, 1, 1};
        for (int k = 0; k < 8; k++)
            if (v[k] != want[k]) {
                tap_diag("thread %d result %d: got %d want %d", t, k, v[k], want[k]);
                ok = false;
            }
    }
    tap_ok(ok, "shuffles (down, up, xor and indexed, width 32 and 8) and votes per warp");
    cudaFree(d);
}

static void test_atomics(void)
{
    int *sum = device(std::vector<int>{0}), *max = device(std::vector<int>{-1});
    unsigned *cas = device(std::vector<unsigned>{0, 0});
    float *fsum = device(std::vector<float>{0});
    RF_LAUNCH(atomic_kernel, 4, 256, 0, 0, sum, max, cas, fsum);
    std::vector<unsigned> c = host(cas, 2);
    tap_ok(host(sum, 1)[0] == 1024 && host(max, 1)[0] == 1023 && c[0] != 0 && c[1] == 1 &&
               host(fsum, 1)[0] == 512.0f,
           "atomicAdd (int, float), atomicMax and atomicCAS among 1024 concurrent threads");
    cudaFree(sum);
    cudaFree(max);
    cudaFree(cas);
    cudaFree(fsum);
}

/* Float sums depend on their order: the emulator's atomics add in block
 * order, thread order within a block (emu.h), whatever the timing. Values
 * of both signs over 40 binary orders of magnitude make almost any other
 * order round otherwise. */
static void test_float_atomics_in_order(void)
{
    const unsigned T = 256, B = 3;
    std::vector<float> v(T * B);
    uint32_t h = 12345;
    for (float &x : v) {
        h = h * 1664525u + 1013904223u;
        x = ldexpf(1.0f + (float)(h >> 22) / 1024.0f, (int)(h >> 8) % 40 - 20) * (h & 1 ? -1.0f : 1.0f);
    }
    float want = 0.0f;
    double dwant = 0.0;
    std::vector<float> want_blocks(B, 0.0f);
    for (unsigned b = 0; b < B; b++) {
        for (unsigned t = 0; t < T; t++) {   /* before the barrier */
            want += v[b * T + t];
            dwant += (double)v[b * T + t];
            want_blocks[b] += v[b * T + t];
        }
        for (unsigned t = 0; t < T; t += 2)   /* after it, the even threads */
            want -= v[b * T + t] / 3;
    }
    const float *dv = device(v);
    bool ok = true;
    for (unsigned seed : {0u, 1u, 2u, 3u}) {
        float *sum = device(std::vector<float>{0.0f}), *blocks = device(std::vector<float>(B));
        double *dsum = device(std::vector<double>{0.0});
        rf_emu::perturb_timing(seed);
        RF_LAUNCH(float_sum_kernel, B, T, 0, 0, dv, sum, dsum, blocks);
        rf_emu::perturb_timing(0);
        float got = host(sum, 1)[0];
        double dgot = host(dsum, 1)[0];
        std::vector<float> got_blocks = host(blocks, B);
        if (memcmp(&got, &want, sizeof got) != 0 || memcmp(&dgot, &dwant, sizeof dgot) != 0 ||
            memcmp(got_blocks.data(), want_blocks.data(), B * sizeof(float)) != 0) {
            tap_diag("timing seed %u: float sum %.9g (want %.9g), double %.17g (want %.17g), block 0 %.9g (want "
                     "%.9g)", seed, got, want, dgot, dwant, got_blocks[0], want_blocks[0]);
            ok = false;
        }
        cudaFree(sum);
        cudaFree(dsum);
        cudaFree(blocks);
    }
    tap_ok(ok, "float and double atomicAdd sum in block and thread order, bit for bit, under four thread timings "
               "(seen in shared memory after __syncthreads, in global memory after the launch)");
    cudaFree(const_cast<float *>(dv));
}

static void test_early_return(void)
{
    const unsigned live = 70;
    int *d = device(std::vector<int>(live));
    RF_LAUNCH(early_return_kernel, 2, 128, 0, 0, d, live);
    std::vector<int> o = host(d, live);
    bool ok = cudaGetLastError() == cudaSuccess;
    for (unsigned t = 0; t < live; t++)
        ok = ok && o[t] == (int)(live - 1 - t);
    tap_ok(ok, "threads that return early do not hold up the block's barriers");
    cudaFree(d);
}

static void test_refused(void)
{
    int *runs = device(std::vector<int>{0});
    struct {
        dim3 grid, block;
        size_t shared;
        const char *what;
    } bad[] = {
        {1, 1025, 0, "1025 threads"},
        {0, 32, 0, "an empty grid"},
        {1, dim3(1, 1, 65), 0, "block.z 65"},
        {dim3(1, 65536), 32, 0, "grid.y 65536"},
        {1, 32, 48 * 1024 + 1, "48 KiB + 1 of dynamic shared memory"},
    };
    for (const auto &b : bad) {
        RF_LAUNCH(count_kernel, b.grid, b.block, b.shared, 0, runs);
        cudaError_t e = cudaGetLastError();
        tap_ok(e == cudaErrorInvalidConfiguration && host(runs, 1)[0] == 0 && cudaGetLastError() == cudaSuccess,
               "a launch with %s is refused (%s) and runs nothing", b.what, cudaGetErrorString(e));
    }
    RF_LAUNCH(count_kernel, dim3(2, 3, 1), dim3(32, 2, 2), 48 * 1024, 0, runs);
    tap_ok(cudaGetLastError() == cudaSuccess && host(runs, 1)[0] == 6 * 128,
           "a 3-D launch at the limits runs every thread of every block once");
    cudaFree(runs);
}

/* x[i] = x[i] * 2 + 1 (order matters: a replay must keep the records' order) */
__global__ void affine_kernel(int *x, int n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (unsigned)n)
        x[i] = x[i] * 2 + 1;
}

/* Work issued on a capturing stream is recorded, not run; each launch of
 * the instantiated graph runs it in order, as the counters say. */
static void test_capture_replay(void)
{
    cudaStream_t s;
    cudaStreamCreate(&s);
    int *x = device(std::vector<int>{1, 2, 3});
    int *y = device(std::vector<int>{0, 0, 0});
    rf_emu::counters before = rf_emu::counts();
    cudaStreamCaptureStatus status;
    bool began = cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess &&
                 cudaStreamIsCapturing(s, &status) == cudaSuccess && status == cudaStreamCaptureStatusActive;
    RF_LAUNCH(affine_kernel, 1, 32, 0, s, x, 3);
    cudaMemcpyAsync(y, x, 3 * sizeof(int), cudaMemcpyDeviceToDevice, s);
    cudaMemsetAsync(x, 0, sizeof(int), s);
    RF_LAUNCH(affine_kernel, 1, 32, 0, s, x, 3);
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    bool ended = cudaStreamEndCapture(s, &graph) == cudaSuccess && graph != nullptr &&
                 cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess;
    rf_emu::counters captured = rf_emu::counts();
    bool untouched = host(x, 3) == std::vector<int>{1, 2, 3} && host(y, 3) == std::vector<int>{0, 0, 0};
    tap_ok(began && ended && untouched && captured.captured - before.captured == 4 &&
               captured.host_launches == before.host_launches && captured.host_copies == before.host_copies,
           "a capture records two launches, a copy and a memset and runs none of them");
    bool once = cudaGraphLaunch(exec, s) == cudaSuccess && host(x, 3) == std::vector<int>{1, 11, 15} &&
                host(y, 3) == std::vector<int>{3, 5, 7};
    bool twice = cudaGraphLaunch(exec, s) == cudaSuccess && host(x, 3) == std::vector<int>{1, 47, 63} &&
                 host(y, 3) == std::vector<int>{3, 23, 31};
    rf_emu::counters after = rf_emu::counts();
    tap_ok(once && twice && after.replayed - captured.replayed == 8 && after.graph_launches - captured.graph_launches == 2 &&
               after.host_launches == before.host_launches && cudaStreamIsCapturing(s, &status) == cudaSuccess &&
               status == cudaStreamCaptureStatusNone,
           "each graph launch runs the records in order on the values memory holds then, none from the host");
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaFree(x);
    cudaFree(y);
    cudaStreamDestroy(s);
}

/* What a capture forbids fails with CUDA's error and invalidates it:
 * EndCapture then returns no graph; later work on the stream is refused. */
static void test_capture_forbidden(void)
{
    cudaStream_t s;
    cudaStreamCreate(&s);
    int *x = device(std::vector<int>{5});
    int h = 0;
    void *p = nullptr;
    struct {
        const char *what;
        cudaError_t want;
        std::function<cudaError_t()> call;
    } calls[] = {
        {"cudaMalloc", cudaErrorStreamCaptureUnsupported, [&] { return cudaMalloc(&p, 64); }},
        {"cudaMallocManaged", cudaErrorStreamCaptureUnsupported, [&] { return cudaMallocManaged(&p, 64); }},
        {"cudaFree", cudaErrorStreamCaptureUnsupported, [&] { return cudaFree(x); }},
        {"cudaMemcpy", cudaErrorStreamCaptureImplicit,
         [&] { return cudaMemcpy(&h, x, sizeof h, cudaMemcpyDeviceToHost); }},
        {"cudaMemset", cudaErrorStreamCaptureImplicit, [&] { return cudaMemset(x, 0, sizeof h); }},
        {"cudaStreamSynchronize", cudaErrorStreamCaptureUnsupported, [&] { return cudaStreamSynchronize(s); }},
        {"cudaDeviceSynchronize", cudaErrorStreamCaptureUnsupported, [&] { return cudaDeviceSynchronize(); }},
        {"a launch on the legacy stream", cudaErrorStreamCaptureImplicit, [&] {
             RF_LAUNCH(affine_kernel, 1, 32, 0, 0, x, 1);
             return cudaGetLastError();
         }},
    };
    for (const auto &c : calls) {
        cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
        RF_LAUNCH(affine_kernel, 1, 32, 0, s, x, 1);
        cudaError_t e = c.call();
        cudaStreamCaptureStatus status;
        cudaStreamIsCapturing(s, &status);
        RF_LAUNCH(affine_kernel, 1, 32, 0, s, x, 1);
        cudaError_t later = cudaGetLastError();
        cudaGraph_t graph = nullptr;
        cudaError_t end = cudaStreamEndCapture(s, &graph);
        tap_ok(e == c.want && status == cudaStreamCaptureStatusInvalidated &&
                   later == cudaErrorStreamCaptureInvalidated && end == cudaErrorStreamCaptureInvalidated &&
                   graph == nullptr && host(x, 1)[0] == 5,
               "%s during a capture fails (%s), and the capture ends with no graph (%s), nothing run", c.what,
               cudaGetErrorString(e), cudaGetErrorString(end));
    }
    bool outside = cudaMalloc(&p, 64) == cudaSuccess && cudaFree(p) == cudaSuccess &&
                   cudaStreamSynchronize(s) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
    tap_ok(outside, "outside a capture the same calls succeed");

    /* thread-local: another host thread may allocate, the capturing one not */
    cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    cudaError_t other = cudaErrorInvalidValue;
    std::thread([&] {
        void *q = nullptr;
        other = cudaMalloc(&q, 64);
        cudaFree(q);
    }).join();
    cudaStreamCaptureStatus valid;
    cudaStreamIsCapturing(s, &valid);
    cudaError_t own = cudaMalloc(&p, 64);
    cudaGraph_t graph = nullptr;
    cudaError_t end = cudaStreamEndCapture(s, &graph);
    tap_ok(other == cudaSuccess && valid == cudaStreamCaptureStatusActive &&
               own == cudaErrorStreamCaptureUnsupported && end == cudaErrorStreamCaptureInvalidated,
           "in thread-local mode another thread's cudaMalloc succeeds and leaves the capture valid; the capturing "
           "thread's fails (%s)", cudaGetErrorString(own));
    cudaFree(x);
    cudaStreamDestroy(s);
}

int main(void)
{
    test_shared();
    test_missing_barrier();
    test_deadlock();
    test_warp();
    test_atomics();
    test_float_atomics_in_order();
    test_early_return();
    test_refused();
    test_capture_replay();
    test_capture_forbidden();
    return tap_done();
}
