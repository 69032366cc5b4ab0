/* Device helpers shared by the kernels: warp and block reductions, grid
 * sizes. Every reduction needs all 32 lanes of each warp it runs in (block
 * sizes are multiples of 32, and warps leave a kernel together). */
#ifndef RF_KERNELS_COMMON_CUH
#define RF_KERNELS_COMMON_CUH

#include <stdint.h>

#include "cuda_compat.h"

#define RF_FULL_MASK 0xffffffffu

/* The sum over the warp, in every lane. The butterfly adds the same two
 * values in every lane of a pair (a + b = b + a), so all lanes end with the
 * same bits. */
template <class T> static __device__ __forceinline__ T rf_warp_sum(T v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(RF_FULL_MASK, v, o);
    return v;
}

static __device__ __forceinline__ float rf_warp_max(float v)
{
    for (int o = 16; o > 0; o >>= 1)
        v = fmaxf(v, __shfl_xor_sync(RF_FULL_MASK, v, o));
    return v;
}

/* The sum over the block, in every thread: each warp's sum goes to shared
 * memory, then every warp adds the partials (in the same order, so every
 * thread gets the same bits). */
template <class T> static __device__ T rf_block_sum(T v)
{
    __shared__ T part[32];
    unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned warps = blockDim.x * blockDim.y * blockDim.z / 32;
    v = rf_warp_sum(v);
    __syncthreads();   /* a previous call's readers are done with part */
    if (t % 32 == 0)
        part[t / 32] = v;
    __syncthreads();
    return rf_warp_sum(t % 32 < warps ? part[t % 32] : T(0));
}

/* Blocks of `per_block` threads for a grid-stride loop over n items: enough
 * to fill a GPU, never more than the items need. */
static inline unsigned rf_blocks(int64_t n, unsigned per_block)
{
    int64_t b = (n + per_block - 1) / per_block;
    return (unsigned)(b < 4096 ? b : 4096);
}

/* A grid-stride loop over [0, n) for a one-dimensional grid. */
#define RF_FOR_EACH(i, n)                                                                 \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
         i += (int64_t)blockDim.x * gridDim.x)

#endif
