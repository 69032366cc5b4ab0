/* The threads of one block of a launch, run as fibers on the launching
 * host thread (emu.h's model). Internal to tests/cuda_emu: emu.cc runs
 * blocks through it and the kernels' barriers call into it. */
#ifndef RF_CUDA_EMU_BLOCK_H
#define RF_CUDA_EMU_BLOCK_H

#include <functional>

namespace rf_emu {

/* Runs body() as each of the block's `threads` threads (blockIdx,
 * blockDim and gridDim already set), then returns once all of them have
 * returned from it. Threads run one at a time, each until it waits at a
 * barrier or returns; every round goes through the runnable ones in
 * ascending thread order, or descending. on_syncthreads(ctx) runs when the
 * block's threads have met at __syncthreads (the last one to arrive runs
 * it, before anyone goes on). A block whose threads all wait, none able to
 * go on, is a deadlock: the emulator names them and aborts. */
void run_block(unsigned threads, bool descending, const std::function<void()> &body,
               void (*on_syncthreads)(void *), void *ctx);

/* Inside a kernel: the calling thread's index in its block (x fastest).
 * Aborts, naming `what`, outside a kernel. */
unsigned current_thread(const char *what);

/* Inside a kernel: waits until every thread of the block that has not
 * returned is here. */
void block_barrier(void);
/* Inside a kernel: waits until every lane of the calling thread's warp
 * that has not returned is at a warp barrier. */
void warp_barrier(void);
/* Where timing perturbation is on (emu.h, perturb_timing): maybe lets
 * other threads run first. */
void perturb_point(void);
void set_perturb_seed(unsigned seed);

/* Prints "cuda emulator: <what>", the block and the thread, and aborts
 * (emu.cc). */
[[noreturn]] void fail(const char *what);

/* A barrier is an opaque call in which other threads run and the
 * scheduler rewrites threadIdx for each: the compiler reloads it, like
 * any global, after the call. */

}   // namespace rf_emu

#endif
