/* Kernels writing a value kept in bf16 (core/bf16_storage.h): they compute
 * RF_BF16_CHUNK elements at a time in f32, exactly as for an f32 value,
 * into a buffer on the stack, and store the chunk rounded to nearest even
 * (rf_bf16_round: what a bf16 product would have done to it). */
#ifndef RF_CPU_BF16_OUT_H
#define RF_CPU_BF16_OUT_H

#include "../gemm_bf16.h"
#include "../op.h"

#define RF_BF16_CHUNK 256

/* The length of the chunk starting at `at` of a run ending at `end`. */
static inline int64_t rf_bf16_chunk(int64_t at, int64_t end)
{
    return end - at < RF_BF16_CHUNK ? end - at : RF_BF16_CHUNK;
}

#endif
