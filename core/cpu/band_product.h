/* The products of one segment of long-short attention's band
 * (core/cpu/ls_attention.c): w queries against their band of at most 2w
 * keys, in heads of dk floats. At ListOps' settings (w = 16, a band of 32,
 * dk = 32) each is 16K multiply-adds, where a BLAS call costs about as
 * much in packing and dispatch as in arithmetic, and a step makes about a
 * hundred thousand of them. This kernel keeps a block of output rows in
 * registers across the whole inner dimension and reads each row of the
 * right operand once per block, with nothing packed: on 256-bit vectors
 * for outputs of up to 8 columns, and over a long inner dimension in
 * chunks sized to the CPU's L1 data cache (rf_cpu_l1d_bytes).
 */
#ifndef RF_CPU_BAND_PRODUCT_H
#define RF_CPU_BAND_PRODUCT_H

#include <stdbool.h>

/* The widest output the kernel takes (four 16-float vectors). */
enum { RF_BAND_N = 64 };

/* Row-major C [m, n] = beta C + alpha op(A) B, beta 0 (C only written) or
 * 1: op(A) = A [m, inner] (lda) or, with ta, A^T for A [inner, m]; B
 * [inner, n] (ldb). Returns false, writing nothing, when n > RF_BAND_N or
 * the CPU has no AVX-512: the caller then runs the product on a BLAS. */
bool rf_band_product(bool ta, int m, int n, int inner, float alpha, const float *A, int lda, const float *B,
                     int ldb, float beta, float *C, int ldc);

/* `count` such products one after the other, the i-th on A + i a_step,
 * B + i b_step and C + i c_step (floats): the segments of a band whose
 * keys all lie inside the sequence, in one call (each product's fixed cost
 * is most of its time at ListOps' sizes). Products whose C overlap
 * accumulate in order. Returns false, writing nothing, as
 * rf_band_product does. */
bool rf_band_products(int count, long a_step, long b_step, long c_step, bool ta, int m, int n, int inner,
                      float alpha, const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc);

#endif
