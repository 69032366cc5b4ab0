/* Warp-level matrix instructions (tensor cores) and asynchronous copies,
 * for the attention kernels on TF32 (attention_tf32.cu).
 *
 * Under nvcc each function is one inline PTX instruction (sm_80 and
 * later). Under the CPU emulator (tests/cuda_emu, RF_CUDA_EMULATE) the
 * matrix product is a function that gathers the 32 lanes' fragments at a
 * warp barrier (rf_emu::warp_gather), multiplies with the operand rounding
 * the instruction applies and f32 accumulation, and gives each lane its
 * result fragment by the PTX ISA's layout tables; a copy is synchronous.
 *
 * The one instruction: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32,
 * D (16x8) = A (16x8) B (8x8) + C, A and B in TF32 (an f32's sign, 8-bit
 * exponent and the top 10 of its 23 mantissa bits), C and D in f32. Its
 * fragments, per lane with g = lane / 4 and t = lane % 4 (PTX ISA,
 * "Matrix Fragments for mma.m16n8k8", the .tf32 tables for A and B and the
 * f32 accumulator table for C and D):
 *     a[0] = A[g][t]     a[1] = A[g+8][t]    a[2] = A[g][t+4]    a[3] = A[g+8][t+4]
 *     b[0] = B[t][g]     b[1] = B[t+4][g]
 *     c[0] = C[g][2t]    c[1] = C[g][2t+1]   c[2] = C[g+8][2t]   c[3] = C[g+8][2t+1]
 * Lanes are threadIdx.x % 32: blocks are (32, warps), as in every kernel
 * here.
 *
 * Rounding. The instruction reads only the top 19 bits of an operand
 * register (an f32 truncated to TF32, which the emulator applies); the
 * loaders here first convert with cvt.rna.tf32.f32, round to nearest with
 * ties away from zero, so every operand is within 2^-11 of its f32 value
 * relatively (truncation alone would be 2^-10, and biased). The products of
 * two TF32 significands (11 bits each) are exact in f32; PTX does not
 * specify the order or rounding of the accumulation, which the emulator
 * does in f32 in k order, so the tests bound it for any order and any
 * rounding (the worst case, tests/tolerance.h's tol_gamma). */
#ifndef RF_KERNELS_MMA_CUH
#define RF_KERNELS_MMA_CUH

#include <stdint.h>
#include <string.h>

#include "common.cuh"

/* f32 bits rounded to TF32 as cvt.rna.tf32.f32 (round to nearest, ties
 * away from zero: add half of TF32's last place to the magnitude, then
 * clear the 13 bits below it); infinities and NaN stay as they are. Host
 * code too, so tests compute the emulated instruction's operands. */
RF_HD inline uint32_t rf_tf32_rna_bits(uint32_t f32_bits)
{
    if ((f32_bits & 0x7f800000u) == 0x7f800000u)
        return f32_bits;
    return (f32_bits + 0x1000u) & 0xffffe000u;
}

/* x rounded to TF32 (cvt.rna.tf32.f32), as an operand register's bits. */
static __device__ __forceinline__ uint32_t rf_tf32(float x)
{
#if defined(__CUDACC__)
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
#else
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return rf_tf32_rna_bits(b);
#endif
}

#if !defined(__CUDACC__)
/* One lane's operands, offered to the warp by address: the lanes that read
 * them do so while their owner waits at the same barrier. */
struct rf_mma_tf32_operands {
    uint32_t a[4], b[2];
};

/* The value the instruction reads from an operand register: its top 19 bits. */
inline float rf_mma_tf32_operand(uint32_t bits)
{
    uint32_t top = bits & 0xffffe000u;
    float v;
    memcpy(&v, &top, sizeof v);
    return v;
}
#endif

/* d = A b + c for the warp (the instruction above); d may be c. */
static __device__ __forceinline__ void rf_mma_tf32(float d[4], const uint32_t a[4], const uint32_t b[2],
                                                   const float c[4])
{
#if defined(__CUDACC__)
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                 "{%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
                   "f"(c[2]), "f"(c[3]));
#else
    const rf_mma_tf32_operands mine = {{a[0], a[1], a[2], a[3]}, {b[0], b[1]}};
    uint64_t at[32];
    rf_emu::warp_gather(RF_FULL_MASK, rf_emu::to_bits(&mine), at);
    float A[16][8], B[8][8];
    for (int l = 0; l < 32; l++) {
        const rf_mma_tf32_operands *f = rf_emu::from_bits<const rf_mma_tf32_operands *>(at[l]);
        int g = l / 4, t = l % 4;
        A[g][t] = rf_mma_tf32_operand(f->a[0]);
        A[g + 8][t] = rf_mma_tf32_operand(f->a[1]);
        A[g][t + 4] = rf_mma_tf32_operand(f->a[2]);
        A[g + 8][t + 4] = rf_mma_tf32_operand(f->a[3]);
        B[t][g] = rf_mma_tf32_operand(f->b[0]);
        B[t + 4][g] = rf_mma_tf32_operand(f->b[1]);
    }
    __syncwarp();   /* every lane has read the others' operands before any goes on to change its own */
    const int g = (int)(threadIdx.x % 32) / 4, t = (int)threadIdx.x % 4;
    float r[4];
    for (int i = 0; i < 4; i++) {
        int row = g + (i >= 2 ? 8 : 0), col = 2 * t + (i & 1);
        float s = c[i];
        for (int k = 0; k < 8; k++)
            s += A[row][k] * B[k][col];   /* the product is exact: two 11-bit significands */
        r[i] = s;
    }
    for (int i = 0; i < 4; i++)
        d[i] = r[i];
#endif
}

/* ---- fragment loads from row-major f32 matrices (shared memory), rounded to TF32 ----
 * x points at the block's element (0, 0); ld is its row pitch. */

/* A = the 16x8 block of x. */
static __device__ __forceinline__ void rf_mma_load_a(uint32_t a[4], const float *x, int ld)
{
    const int g = (int)(threadIdx.x % 32) / 4, t = (int)threadIdx.x % 4;
    a[0] = rf_tf32(x[g * ld + t]);
    a[1] = rf_tf32(x[(g + 8) * ld + t]);
    a[2] = rf_tf32(x[g * ld + t + 4]);
    a[3] = rf_tf32(x[(g + 8) * ld + t + 4]);
}

/* B = X^T for the 8x8 block X of x: B's columns are x's rows (keys' rows
 * for the scores Q K^T). */
static __device__ __forceinline__ void rf_mma_load_bt(uint32_t b[2], const float *x, int ld)
{
    const int g = (int)(threadIdx.x % 32) / 4, t = (int)threadIdx.x % 4;
    b[0] = rf_tf32(x[g * ld + t]);
    b[1] = rf_tf32(x[g * ld + t + 4]);
}

/* ---- products whose A is a previous product's result ----
 * A result's lane holds columns 2t and 2t+1 of its rows; an A operand's,
 * columns t and t+4. A sum over k does not depend on the order of k, so
 * such a product takes its k-th term in the order k = t <-> 2t, k = t+4
 * <-> 2t+1: rf_mma_a_from_result keeps the lane's values where they are,
 * and rf_mma_load_b_paired reads B's rows in that order. */

/* A (16x8) from a result fragment c (16x8), the k order above. */
static __device__ __forceinline__ void rf_mma_a_from_result(uint32_t a[4], const float c[4])
{
    a[0] = rf_tf32(c[0]);   /* row g,   k 2t   */
    a[1] = rf_tf32(c[2]);   /* row g+8, k 2t   */
    a[2] = rf_tf32(c[1]);   /* row g,   k 2t+1 */
    a[3] = rf_tf32(c[3]);   /* row g+8, k 2t+1 */
}

/* B = the 8x8 block of x, its rows in the k order above. */
static __device__ __forceinline__ void rf_mma_load_b_paired(uint32_t b[2], const float *x, int ld)
{
    const int g = (int)(threadIdx.x % 32) / 4, t = (int)threadIdx.x % 4;
    b[0] = rf_tf32(x[2 * t * ld + g]);
    b[1] = rf_tf32(x[(2 * t + 1) * ld + g]);
}

/* ---- asynchronous copies (cp.async, sm_80) ----
 * dst (shared memory) = *src, 4 bytes, or 0 where !valid (a source size
 * of 0 fills with zeros and reads nothing). Visible to the block after
 * rf_cp_async_wait_all and a __syncthreads. The emulator copies at once. */
static __device__ __forceinline__ void rf_cp_async4(float *dst, const float *src, bool valid)
{
#if defined(__CUDACC__)
    unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(s), "l"(src), "r"(valid ? 4 : 0) : "memory");
#else
    *dst = valid ? *src : 0.0f;
#endif
}

/* Waits for the calling thread's copies (commit, then wait for all groups). */
static __device__ __forceinline__ void rf_cp_async_wait_all(void)
{
#if defined(__CUDACC__)
    asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 0;" ::: "memory");
#endif
}

#endif
