/* A NumPy .npy file as an outside input (rf_dataset_featurise): the array
 * holds the model's input itself, as the data set's samples hold it.
 *
 * Token models (feat_dim 0): a 1-D array of token ids (integers, or floats
 * holding integers) in 1..vocab-1. Feature models: (positions, feat_dim),
 * or 1-D when feat_dim is 1. Positions at most seq_len. Integer (int8..64,
 * uint8..64), float32 and float64 arrays, either byte order, C or Fortran
 * order; the header is checked against the file's size before anything is
 * read, and every refusal names the file and what differs. */
#ifndef RF_DATASETS_NPY_INPUT_H
#define RF_DATASETS_NPY_INPUT_H

#include <stdbool.h>

#include "../core/data.h"

/* The file starts with the NumPy magic (false when it cannot be read). */
bool rf_npy_input_is(const char *path);

/* x gets len * max(1, feat_dim) floats. */
bool rf_npy_input_read(const rf_dataset *ds, const char *path, float *x, int *len, rf_status *st);

#endif
