/* The short-head kernels of full attention in bf16 (train.precision =
 * bf16), for heads of 8 (the ListOps models) on CPUs with AVX512-BF16.
 *
 * The same products as small_head.h's, with both operands rounded to bf16
 * (nearest even) and the products of a pair added into an f32 accumulator
 * by VDPBF16PS: half the instructions of the f32 kernels' FMAs. Pairs run
 * along the inner dimension: for the scores Q K^T pairs of head
 * dimensions, for P V and dS K pairs of keys, for dS^T Q and P^T dO pairs
 * of queries. Accumulation, the epilogues (the online softmax's max, the
 * exponentials, dS = P (dP - D)) and every result stay f32; the
 * probabilities' exponentials are rf_exp16_coarse's (exp16.h: relative
 * error below 1e-4, forty times under the rounding the products give
 * them).
 *
 * A key (or value) block is rounded once, into both layouts the kernels
 * read, and serves every query block against it. Callers fall back to the
 * f32 kernels where rf_sh16_load declines.
 */
#ifndef RF_CPU_SMALL_HEAD_BF16_H
#define RF_CPU_SMALL_HEAD_BF16_H

#include <stdbool.h>
#include <stdint.h>

#include "small_head.h"

/* The head width these kernels take, and the longest inner dimension of
 * rf_sh16_acc_tn (a query block). */
enum { RF_SH16_K = 8, RF_SH16_INNER = 256 };

/* A block of cols keys B [cols, 8] in bf16 pairs (each uint32_t two bf16,
 * the first in its low half), zero past cols up to a multiple of 16:
 * t[d W + c] = scale (B[c][2d], B[c][2d + 1]) for the score kernels (W =
 * RF_SMALL_HEAD_COLS), p[j 8 + e] = (B[2j][e], B[2j + 1][e]) unscaled for
 * rf_sh16_acc. */
typedef struct rf_sh16_keys {
    uint32_t t[RF_SH16_K / 2 * RF_SMALL_HEAD_COLS] __attribute__((aligned(64)));
    uint32_t p[RF_SMALL_HEAD_COLS / 2 * RF_SH16_K] __attribute__((aligned(64)));
    int cols;
} rf_sh16_keys;

/* Whether this CPU runs the bf16 kernels (AVX-512 F, BW and VL, and
 * AVX512-BF16; RF_CPU_ISA=avx2 or RF_BF16=off in the environment: no). */
bool rf_sh16_available(void);

/* Whether full attention runs its products on these kernels when
 * train.precision = bf16: where they are faster than the f32 kernels.
 * They are on AMD CPUs (Zen 4 on), whose VDPBF16PS issues at the rate of
 * an f32 FMA: a full-attention step about 1.5x faster. An Intel CPU issues
 * it at half that rate, so the same work takes as long and the rounding
 * comes on top (a step 1.2-1.5x slower): there attention stays on the f32
 * kernels, while the other products still run in bf16. The choice goes by
 * the CPU's vendor, not by a timing, so a run's results do not depend on
 * how busy the machine was. RF_BF16_ATTENTION=on or off in the environment
 * overrides it (on: wherever rf_sh16_available()). */
bool rf_sh16_for_attention(void);

/* Loads B [cols, k] (ldb) as above; false, loading nothing, unless k = 8,
 * 1 <= cols <= RF_SMALL_HEAD_COLS and rf_sh16_available(). */
bool rf_sh16_load(rf_sh16_keys *keys, int cols, int k, float scale, const float *B, int ldb);

/* rf_small_head_scores, rf_small_head_probs and rf_small_head_ds against
 * bf16 keys, A [rows, 8] (lda) rounded to bf16: the same arguments, widths
 * and epilogues (the probabilities' e^x rf_exp16_coarse's, as
 * rf_attn_exp_row_coarse gives them). */
int rf_sh16_scores(int rows, const float *A, int lda, const rf_sh16_keys *keys, const float *bias, bool pad, float *S,
                   int lds, float *row_max);
int rf_sh16_probs(int rows, const float *A, int lda, const rf_sh16_keys *keys, const float *bias, const float *lse,
                  float *P, int ldp);
int rf_sh16_ds(int rows, const float *A, int lda, const rf_sh16_keys *values, const float *P, int ldp,
               const float *D, float *dS, int lds);

/* C [m, 8] += alpha A B, A [m, inner] (lda) rounded to bf16 (its columns
 * from inner on are not read), B the loaded block's keys in pairs
 * (inner <= its cols): P V and dS K. */
void rf_sh16_acc(int m, int inner, float alpha, const float *A, int lda, const rf_sh16_keys *b, float *C, int ldc);

/* C [m, 8] += alpha A^T B, A [inner, m] (lda) and B [inner, 8] (ldb)
 * rounded to bf16: dS^T Q and P^T dO. Returns false, writing nothing,
 * when inner > RF_SH16_INNER or !rf_sh16_available(). */
bool rf_sh16_acc_tn(int m, int inner, float alpha, const float *A, int lda, const float *B, int ldb, float *C,
                    int ldc);

#endif
