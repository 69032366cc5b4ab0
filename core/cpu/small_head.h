/* Products with a short inner dimension: one attention head's scores.
 *
 * With heads of dk = 8 floats (the ListOps models: dim 64, 8 heads), the
 * score block S = scale Q K^T is a product with k = 8, where a BLAS spends
 * more time packing its operands than multiplying them (OpenBLAS: about a
 * third of its rate on the same block with k = 256). This kernel
 * transposes the key block once into a local buffer (sixteen keys at a time
 * through registers for a head of 8) and keeps 8 query rows x 16 keys in
 * registers across the whole inner dimension. The products
 * that follow (P V, dS K, dS^T Q, P^T dO) have outputs dk floats wide; their
 * kernel keeps eight output rows in registers and reads each row of the
 * right operand once for all eight, except the two with A transposed at
 * dk = 8 (dS^T Q, P^T dO), which keep sixteen output rows in the lanes of
 * eight 512-bit registers (a row of A is contiguous there) and transpose
 * the block into C at the end.
 */
#ifndef RF_CPU_SMALL_HEAD_H
#define RF_CPU_SMALL_HEAD_H

#include <stdbool.h>

/* The longest inner dimension and key block the kernel takes. */
enum { RF_SMALL_HEAD_K = 16, RF_SMALL_HEAD_COLS = 256 };
/* The widest output rf_small_head_acc takes. */
enum { RF_SMALL_HEAD_N = 8 };

/* Row-major S [rows, cols] (leading dimension lds) = scale A B^T, A [rows,
 * k] (lda), B [cols, k] (ldb), writing only S's rows x cols. Returns false,
 * writing nothing, when k > RF_SMALL_HEAD_K, cols > RF_SMALL_HEAD_COLS or
 * the CPU has no AVX-512: the caller then runs the product on a BLAS. */
bool rf_small_head_nt(int rows, int cols, int k, float scale, const float *A, int lda, const float *B, int ldb,
                      float *S, int lds);

/* rf_small_head_nt that also writes each row's columns [cols, width) as
 * `fill`, width = cols rounded up to 16 (lds >= width): a row loop after
 * it then runs whole 16-float vectors, no scalar tail (fill -inf for
 * scores, whose e^ is 0). Returns width, or 0 when declined (writing
 * nothing). */
int rf_small_head_nt_fill(int rows, int cols, int k, float scale, const float *A, int lda, const float *B, int ldb,
                          float *S, int lds, float fill);

/* A key block in the layout the score kernels read, scale B^T [k, cols]
 * (B [cols, k], ldb), its columns past cols 0: loaded once, it serves
 * every query block against it (the flash kernel loads each key block once
 * for several query blocks, where a transpose per product took a tenth of
 * its time). */
typedef struct rf_small_head_keys {
    float t[RF_SMALL_HEAD_K * RF_SMALL_HEAD_COLS] __attribute__((aligned(64)));
    int cols, k;
} rf_small_head_keys;

/* Returns false, loading nothing, when k > RF_SMALL_HEAD_K, cols is not 1
 * to RF_SMALL_HEAD_COLS or the CPU has no AVX-512: the caller then runs
 * its products on a BLAS. */
bool rf_small_head_load_keys(rf_small_head_keys *keys, int cols, int k, float scale, const float *B, int ldb);

/* One block of attention scores against loaded keys: S = A keys + bias
 * (A [rows, k], lda), bias[c] (cols floats: a key mask's 0 or -inf) added
 * to column c when bias is not NULL; with `pad` as rf_small_head_nt_fill
 * with fill -inf, else as rf_small_head_nt. With row_max not NULL, row r's
 * largest written score goes to row_max[r] (the online softmax's max, read
 * without another pass over the block). Returns the width written (cols,
 * or with pad cols rounded up to 16). */
int rf_small_head_scores(int rows, const float *A, int lda, const rf_small_head_keys *keys, const float *bias,
                         bool pad, float *S, int lds, float *row_max);

/* The flash backward's probabilities in the same pass as their scores: P
 * = e^(A keys + bias - lse[r]) (bias as in rf_small_head_scores, row r of
 * lse -inf: zeros), each row written to cols rounded up to 16 (ldp at
 * least that), the columns past cols 0. The same values as
 * rf_small_head_scores then rf_attn_exp_row, bit for bit. Returns that
 * width. */
int rf_small_head_probs(int rows, const float *A, int lda, const rf_small_head_keys *keys, const float *bias,
                        const float *lse, float *P, int ldp);

/* And their gradients: dS = P (A values - D[r]) with A values = dP = dO
 * V^T (values loaded with scale 1), P [rows, cols rounded up to 16] (ldp)
 * as rf_small_head_probs leaves it, written to the same width (lds), the
 * columns past cols 0. Returns that width. */
int rf_small_head_ds(int rows, const float *A, int lda, const rf_small_head_keys *values, const float *P, int ldp,
                     const float *D, float *dS, int lds);

/* Row-major C [m, n] += alpha op(A) B with n <= RF_SMALL_HEAD_N: op(A) = A
 * [m, inner] (lda) or, with ta, A^T for A [inner, m]; B [inner, n] (ldb).
 * The other products of a head with dk = 8 (P V and the three gradients),
 * where a BLAS's output is only dk floats wide. Returns false, writing
 * nothing, when n > RF_SMALL_HEAD_N or the CPU has no AVX-512 (F and VL). */
bool rf_small_head_acc(bool ta, int m, int n, int inner, float alpha, const float *A, int lda, const float *B,
                       int ldb, float *C, int ldc);

/* C [rows, 8] += alpha P V for a head of 8 with the values loaded
 * (rf_small_head_load_keys, scale 1): P [rows, cols rounded up to 16]
 * (ldp), its columns past cols finite (the kernels above leave 0 or -inf's
 * e^ there), each lane a key and each of C's 8 columns a 512-bit sum,
 * added across its lanes at the end. The same product as
 * rf_small_head_acc, summed in another order: where a 256-bit FMA issues
 * at half a 512-bit one's rate (Intel), this runs nearer the peak; where
 * a 512-bit FMA is two 256-bit ones (AMD Zen 4) it gains nothing and adds
 * the sums across lanes (not yet measured there), so the flash kernel
 * takes it only with a tile that says so, chosen by timing (core/tiles.h). Returns false, writing nothing, when values->k is
 * not 8 or the CPU has no AVX-512. */
bool rf_small_head_pv(int rows, float alpha, const float *P, int ldp, const rf_small_head_keys *values, float *C,
                      int ldc);

#endif
