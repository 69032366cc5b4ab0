/* Dropout's keep decision, for host and device code alike: a port of
 * rf_dropout_keep (core/op.h) and the counter-based hash under it
 * (rf_uniform, core/rng.h), so the GPU drops exactly the units the CPU
 * drops. tests/test_cuda_kernels.cc compares the two over many arguments. */
#ifndef RF_DROPOUT_KEEP_H
#define RF_DROPOUT_KEEP_H

#include <stdint.h>

#include "cuda_compat.h"

/* splitmix64's finaliser (rf_mix64) */
static inline RF_HD uint64_t rf_cuda_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* rf_uniform(seed ^ 0xd40, step * 0x100000001b3 + node, i) >= p */
static inline RF_HD bool rf_cuda_dropout_keep(uint64_t seed, uint64_t step, int32_t node, int64_t i, float p)
{
    uint64_t stream = step * 0x100000001b3ull + (uint64_t)node;
    uint64_t h = rf_cuda_mix64(rf_cuda_mix64(rf_cuda_mix64(seed ^ 0xd40u) ^ stream) ^ (uint64_t)i);
    return (double)(h >> 11) * 0x1.0p-53 >= p;
}

#endif
