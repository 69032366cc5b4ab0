/* NumPy arrays as a data set (data.task = npy).
 *
 * data.path is a folder holding x.npy and y.npy, and optionally the pair
 * x_test.npy and y_test.npy (read as npy_read.h says: int8/16/32/64, uint8,
 * float32/64, either byte order, C or Fortran order).
 *
 *   x.npy  N x L: token ids, integers in [0, 2^24) (floats allowed when
 *          every value is whole); 0 is padding, before the ids (as Keras
 *          pads) or after them, never between; a sample is its ids without
 *          the padding (a row of padding only is refused); vocab = the
 *          largest id + 1.
 *          N x L x C: C float features per position, every value finite
 *          and within float32's range; every sample is L positions long.
 *   y.npy  N integer labels in [0, 100000) (1-D); classes = the largest
 *          label + 1, at least 2.
 *
 * Sequences longer than data.max_len are cut to it (one warning). Any
 * value out of these rules is an error naming the file, the field or the
 * value's position, and the problem.
 *
 * Splits: with x_test.npy, test is that pair whole and val is drawn from
 * x.npy's rows; else test, val and train are drawn from x.npy's rows (see
 * holdout.h). The file's rows are read from the memory map when a sample
 * is asked for, never copied. */
#ifndef RF_DATASETS_NPY_TASK_H
#define RF_DATASETS_NPY_TASK_H

#include "../core/config.h"
#include "../core/data.h"

#define RF_NPY_MAX_VOCAB (1 << 24)       /* ids stay exact as floats */
#define RF_NPY_MAX_CLASSES 100000        /* data.classes' own limit */
#define RF_NPY_MAX_FEATURES 65536

rf_dataset *rf_npy_task_open(const rf_config *cfg, rf_status *st);

#endif
