/* NumPy .npy files (format version 1.0) of float32 arrays, for probes.
 *
 *   \x93NUMPY, 1, 0, header length (uint16, little-endian), then
 *   "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 8, 8), }"
 *   padded with spaces and ended by '\n' so that the data starts at a
 *   multiple of 64 bytes, then the floats, little-endian, C order.
 *
 * numpy.load reads them as they are.
 */
#ifndef RF_APP_NPY_H
#define RF_APP_NPY_H

#include <glib.h>
#include <stdint.h>

/* The whole file in memory: `ndim` dims (0 for a scalar), prod(dims) floats. */
GBytes *rf_npy_encode(int ndim, const int64_t *dims, const float *data);

/* Write it atomically (a complete file or the old one). */
gboolean rf_npy_write(const char *path, int ndim, const int64_t *dims, const float *data, GError **error);

#endif
