/* The joint softmax of long-short attention (core/cpu/ls_attention.c) and
 * its gradient, a segment's rows at a time, on AVX-512.
 *
 * A query row's scores are its band of L local keys, of which the columns
 * [jlo, jhi) lie inside the sequence, and its G global keys; all the rows
 * of a segment share the band. A generic row loop costs more in calls and
 * scalar edges (a max, an exponential and a scaling pass over two short
 * rows, at L = 16 and G = 32) than in arithmetic; here the band's valid
 * columns are one mask per 16 columns, computed once per segment, and a
 * row is three vector passes over L + G floats.
 */
#ifndef RF_CPU_BAND_SOFTMAX_H
#define RF_CPU_BAND_SOFTMAX_H

#include <stdbool.h>

/* The columns of one segment's band: L columns (at most RF_BAND_N), valid
 * in [jlo, jhi), and of those only the ones whose key_mask entry is
 * nonzero (key_mask[j - jlo] for band column j; NULL: all of them). */
typedef struct {
    int L, jlo, jhi;
    const float *key_mask;
} rf_band_cols;

/* `rows` rows of pl [rows, L] and pg [rows, G] (ld L and G): each becomes
 * the softmax of its valid band columns and its globals jointly, the other
 * band columns 0. A row whose row_mask entry is 0 (row_mask NULL: none),
 * or with no valid column, becomes all zeros. Returns false, writing
 * nothing, on a CPU without AVX-512. */
bool rf_band_softmax(const rf_band_cols *cols, int rows, const float *row_mask, float *pl, float *pg, int G);

/* Its gradient in place: dl [rows, L] and dg [rows, G] hold dP (dl only on
 * the columns [jlo, jhi): the others are neither read nor written) and
 * become dS = P (dP - sum(dP P)) over the joint row, from the
 * probabilities pl and pg. Returns false, writing nothing, on a CPU
 * without AVX-512. */
bool rf_band_softmax_grad(const rf_band_cols *cols, int rows, const float *pl, const float *pg, float *dl, float *dg,
                          int G);

#endif
