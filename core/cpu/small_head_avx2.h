/* The short-head kernels (small_head.h) on AVX2 with FMA, for CPUs
 * without AVX-512 (an AMD Zen 2, an Intel Haswell): the same products and
 * epilogues, eight floats a register; and the epilogue both paths share.
 * small_head.c picks them; nothing else calls these. */
#ifndef RF_CPU_SMALL_HEAD_AVX2_H
#define RF_CPU_SMALL_HEAD_AVX2_H

#include <stdbool.h>
#include <stddef.h>

#include "small_head.h"

/* What a score kernel stores of each product x = A keys: the scores
 * themselves (plus a bias, `fill` past cols with pad, each row's max),
 * the probabilities e^(x + bias - row[r]) (row: the rows' lse; a row of
 * lse -inf is zeros), or the score gradients P (x - row[r]) (x = dP, row:
 * D = rowsum(dO * O), P the block's probabilities). */
typedef enum { RF_SH_SCORES, RF_SH_PROBS, RF_SH_DS } rf_sh_mode;

typedef struct {
    rf_sh_mode mode;
    const float *bias;   /* cols floats, or NULL */
    bool pad;            /* write whole 16-float chunks */
    float fill;          /* RF_SH_SCORES: the padding's value */
    float *row_max;      /* RF_SH_SCORES: each row's max, or NULL */
    const float *row;    /* RF_SH_PROBS: lse per row; RF_SH_DS: D per row */
    const float *P;      /* RF_SH_DS: [rows, >= cols rounded up to 16] (ldp) */
    int ldp;
} rf_sh_epilogue;

/* Row r's share of the epilogue's per-row arrays (a block's rows r.. on
 * both paths). */
static inline __attribute__((always_inline)) rf_sh_epilogue rf_sh_rows_from(rf_sh_epilogue e, int r)
{
    e.row_max = e.row_max != NULL ? e.row_max + r : NULL;
    e.row = e.row != NULL ? e.row + r : NULL;
    e.P = e.P != NULL ? e.P + (long)r * e.ldp : NULL;
    return e;
}

/* bt [k, RF_SMALL_HEAD_COLS] = scale B^T (B [cols, k], ldb), columns from
 * cols to cols rounded up to 16 zero. */
void rf_sh_avx2_load(int cols, int k, float scale, const float *B, int ldb, float *bt);
/* A block of rows against loaded keys, stored as e says (lds). */
void rf_sh_avx2_block(int rows, const float *A, int lda, const rf_small_head_keys *keys, rf_sh_epilogue e, float *S,
                      int lds);
/* C [m, n] += alpha X B, X(i, j) = A[i si + j sj], B [inner, n] (ldb), n <= 8. */
void rf_sh_avx2_acc(int m, int n, int inner, float alpha, const float *A, long si, long sj, const float *B, int ldb,
                    float *C, int ldc);

#endif
