/* Matrix products in bf16 (train.precision = bf16): both operands rounded
 * to bfloat16, the products accumulated and written in f32, on oneDNN's
 * matmul (its AVX512-BF16 or AMX kernels).
 *
 * The weights stay f32 (the optimizer's master copy) and every product's
 * result is f32. An f32 operand block is rounded to nearest even into a
 * per-thread scratch buffer right before its product; an operand already
 * stored in bf16 (an activation core/bf16_storage.h keeps in bf16, rounded
 * the same way by the op that wrote it) is read as it is.
 */
#ifndef RF_GEMM_BF16_H
#define RF_GEMM_BF16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether this CPU computes bf16 products in hardware (AVX512-BF16 or
 * AMX-BF16). RF_BF16=off in the environment says no on any CPU (to see
 * the refusal, or to evaluate a bf16 run in f32). */
bool rf_bf16_supported(void);

/* f32 -> bf16, rounded to nearest even (NaN stays NaN). Needs
 * rf_bf16_supported(). */
void rf_bf16_round(const float *x, uint16_t *y, size_t n);

/* bf16 -> f32, exactly (any bf16 is an f32 with 16 zero low bits). */
void rf_bf16_widen(const uint16_t *x, float *y, size_t n);

/* Row-major C [m, n] = alpha op(A) op(B) + beta C, op(A) and op(B) rounded
 * to bf16, on the calling thread alone (rf_gemm1_mixed's arguments: A is
 * uint16_t bf16 when a16, else float; B likewise). Needs
 * rf_bf16_supported(), m, n, k > 0; returns false if oneDNN refused the
 * product (the caller then runs it in f32). */
bool rf_gemm_bf16(bool ta, bool tb, int m, int n, int k, float alpha, const void *A, bool a16, int lda,
                  const void *B, bool b16, int ldb, float beta, float *C, int ldc);

#endif
