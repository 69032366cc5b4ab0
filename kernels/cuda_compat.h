/* The one header every .cu file in kernels/ includes first: the CUDA runtime under
 * nvcc, or the CPU emulator (tests/cuda_emu/emu.h) when the .cu file is
 * compiled as C++ with RF_CUDA_EMULATE defined. Kernel code uses only what
 * both provide; the two constructs nvcc alone understands are behind macros:
 *
 *   RF_LAUNCH(kernel, grid, block, shared_bytes, stream, args...)
 *       kernel<<<grid, block, shared_bytes, stream>>>(args...). The kernel
 *       name must not contain a comma (at most one template argument).
 *   RF_DYNAMIC_SHARED(type, name)
 *       declares `type *name` pointing at the launch's dynamic shared memory
 *       (extern __shared__), 16-byte aligned.
 *   RF_HD
 *       __host__ __device__, for code shared with the host (dropout's hash).
 *
 * Host code that only calls the launchers (kernels.h) against the real
 * runtime gets <cuda_runtime.h> and none of the macros. */
#ifndef RF_CUDA_COMPAT_H
#define RF_CUDA_COMPAT_H

#if defined(__CUDACC__)

#include <cuda_runtime.h>

#define RF_LAUNCH(kernel, grid, block, shared_bytes, stream, ...) \
    kernel<<<(grid), (block), (shared_bytes), (stream)>>>(__VA_ARGS__)
#define RF_DYNAMIC_SHARED(type, name)                                   \
    extern __shared__ __align__(16) unsigned char rf_dynamic_shared_[]; \
    type *name = reinterpret_cast<type *>(rf_dynamic_shared_)

#elif defined(RF_CUDA_EMULATE)

#include "../tests/cuda_emu/emu.h"

#define RF_LAUNCH(kernel, grid, block, shared_bytes, stream, ...) \
    rf_emu::launch((grid), (block), (shared_bytes), (stream), kernel, __VA_ARGS__)
#define RF_DYNAMIC_SHARED(type, name) type *name = static_cast<type *>(rf_emu::dynamic_shared())

#else

#include <cuda_runtime.h>

#endif

#define RF_HD __host__ __device__

#endif
