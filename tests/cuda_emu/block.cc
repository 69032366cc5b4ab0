/* The scheduler of a block's threads (block.h): one fiber per thread,
 * switched at barriers, on the launching host thread. */
#include "block.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "emu.h"
#include "fiber.h"

namespace rf_emu {
namespace {

enum class state : unsigned char { runnable, at_syncthreads, at_warp, done };

struct block_state {
    const std::function<void()> *body;
    void (*on_syncthreads)(void *);
    void *ctx;
    unsigned live;       /* threads that have not returned */
    unsigned at_sync;    /* of them, those waiting at __syncthreads */
    unsigned running;    /* the thread whose fiber runs now */
    std::vector<state> threads;
    std::vector<unsigned> warp_live, warp_waiting;   /* per warp: lanes not returned, lanes at a warp barrier */
    std::vector<uint64_t> pauses;                    /* per thread: perturbation points passed */
};

/* the block being run by this host thread (NULL: none) */
thread_local block_state *t_block;

unsigned seed_from_env(void)
{
    const char *s = getenv("RF_CUDA_EMU_PERTURB");
    return s != nullptr ? (unsigned)strtoul(s, nullptr, 10) : 0;
}

std::atomic<unsigned> perturb_seed{seed_from_env()};

uint64_t splitmix(uint64_t h)
{
    h += 0x9e3779b97f4a7c15ull;
    h = (h ^ h >> 30) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ h >> 27) * 0x94d049bb133111ebull;
    return h ^ h >> 31;
}

uint64_t linear_block(void)
{
    return blockIdx.x + (uint64_t)gridDim.x * (blockIdx.y + (uint64_t)gridDim.y * blockIdx.z);
}

block_state &running(const char *what)
{
    if (t_block == nullptr)
        fail(what);
    return *t_block;
}

void thread_main(void);

fiber &fiber_of(unsigned thread) { return fiber::get(thread, thread_main); }

void open_syncthreads(block_state &b)
{
    if (b.on_syncthreads != nullptr)
        b.on_syncthreads(b.ctx);
    for (state &s : b.threads)
        if (s == state::at_syncthreads)
            s = state::runnable;
    b.at_sync = 0;
}

void open_warp(block_state &b, unsigned w)
{
    unsigned end = std::min(32 * w + 32, (unsigned)b.threads.size());
    for (unsigned t = 32 * w; t < end; t++)
        if (b.threads[t] == state::at_warp)
            b.threads[t] = state::runnable;
    b.warp_waiting[w] = 0;
}

/* One emulated thread, from its fiber: body(), then it no longer holds up
 * its warp's or block's barriers. */
void thread_main(void)
{
    block_state &b = *t_block;
    unsigned t = b.running, w = t / 32;
    perturb_point();
    (*b.body)();
    b.threads[t] = state::done;
    b.live--;
    if (--b.warp_live[w] > 0 && b.warp_waiting[w] == b.warp_live[w])
        open_warp(b, w);
    if (b.live > 0 && b.at_sync == b.live)
        open_syncthreads(b);
}

void resume(block_state &b, unsigned t)
{
    b.running = t;
    threadIdx = {t % blockDim.x, t / blockDim.x % blockDim.y, t / (blockDim.x * blockDim.y)};
    fiber_of(t).resume();
}

/* "1-31, 33" for the threads in state s */
std::string threads_in(const block_state &b, state s)
{
    std::string out;
    unsigned n = (unsigned)b.threads.size();
    for (unsigned t = 0; t < n; t++) {
        if (b.threads[t] != s)
            continue;
        unsigned end = t;
        while (end + 1 < n && b.threads[end + 1] == s)
            end++;
        /* appended piece by piece: GCC 12 at -O3 misreads "-" + std::string as an overlapping copy */
        if (!out.empty())
            out += ", ";
        out += std::to_string(t);
        if (end > t)
            out += '-' + std::to_string(end);
        t = end;
    }
    return out.empty() ? "none" : out;
}

[[noreturn]] void deadlock(const block_state &b)
{
    fprintf(stderr,
            "cuda emulator: deadlock in block %u,%u,%u: no thread can go on (threads by index in the block, x "
            "fastest); waiting at __syncthreads: %s; waiting at a warp shuffle, vote or __syncwarp: %s\n",
            blockIdx.x, blockIdx.y, blockIdx.z, threads_in(b, state::at_syncthreads).c_str(),
            threads_in(b, state::at_warp).c_str());
    abort();
}

/* With perturbation on, each round takes the threads in an order drawn
 * from the seed, the block and the round (Fisher-Yates). */
void shuffle(std::vector<unsigned> &order, unsigned seed, uint64_t round)
{
    uint64_t h = (uint64_t)seed << 32 ^ linear_block() << 8 ^ round;
    for (size_t i = order.size(); i > 1; i--) {
        h = splitmix(h);
        std::swap(order[i - 1], order[h % i]);
    }
}

}   // namespace

void run_block(unsigned threads, bool descending, const std::function<void()> &body,
               void (*on_syncthreads)(void *), void *ctx)
{
    static block_state b;   /* reused: launches run one at a time */
    unsigned warps = (threads + 31) / 32;
    b.body = &body;
    b.on_syncthreads = on_syncthreads;
    b.ctx = ctx;
    b.live = threads;
    b.at_sync = 0;
    b.threads.assign(threads, state::runnable);
    b.warp_live.assign(warps, 32);
    b.warp_live[warps - 1] = threads - 32 * (warps - 1);
    b.warp_waiting.assign(warps, 0);
    b.pauses.assign(threads, 0);
    std::vector<unsigned> order(threads);
    for (unsigned k = 0; k < threads; k++)
        order[k] = descending ? threads - 1 - k : k;
    unsigned seed = perturb_seed.load(std::memory_order_relaxed);
    t_block = &b;
    for (uint64_t round = 0;; round++) {
        if (seed != 0)
            shuffle(order, seed, round);
        bool ran = false;
        for (unsigned t : order)
            if (b.threads[t] == state::runnable) {
                resume(b, t);
                ran = true;
            }
        if (!ran)
            break;
    }
    t_block = nullptr;
    if (b.live > 0)
        deadlock(b);
}

unsigned current_thread(const char *what) { return running(what).running; }

void block_barrier(void)
{
    block_state &b = running("__syncthreads called outside a kernel");
    unsigned t = b.running;
    b.threads[t] = state::at_syncthreads;
    if (++b.at_sync == b.live)
        open_syncthreads(b);
    fiber_of(t).yield();
}

void warp_barrier(void)
{
    block_state &b = running("a warp shuffle, vote or __syncwarp called outside a kernel");
    unsigned t = b.running, w = t / 32;
    b.threads[t] = state::at_warp;
    if (++b.warp_waiting[w] == b.warp_live[w])
        open_warp(b, w);
    fiber_of(t).yield();
}

void set_perturb_seed(unsigned seed) { perturb_seed.store(seed); }

void perturb_point(void)
{
    unsigned seed = perturb_seed.load(std::memory_order_relaxed);
    if (seed == 0)
        return;
    block_state &b = running("a perturbation point outside a kernel");
    unsigned t = b.running;
    /* splitmix64 of (seed, block, thread, this thread's pause count): half
     * the time the thread lets the others of this round go first */
    if (splitmix((uint64_t)seed << 32 ^ linear_block() << 12 ^ t ^ ++b.pauses[t] << 48) % 2 == 0)
        fiber_of(t).yield();
}

}   // namespace rf_emu
