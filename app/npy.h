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

/* At most 32 dimensions (NumPy's limit; the header then stays far below
 * version 1.0's 65535 bytes), none negative, and 16 GiB of data. */
#define RF_NPY_MAX_DIMS 32
#define RF_NPY_MAX_BYTES ((int64_t)16 << 30)

/* The whole file in memory: `ndim` dims (0 for a scalar), prod(dims) floats;
 * NULL for a shape outside the limits above. */
GBytes *rf_npy_encode(int ndim, const int64_t *dims, const float *data);

/* Write it atomically (a complete file or the old one). */
gboolean rf_npy_write(const char *path, int ndim, const int64_t *dims, const float *data, GError **error);

#endif
