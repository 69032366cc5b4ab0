/* IDX files (the MNIST / Fashion-MNIST container), read through zlib so a
 * gzip-compressed file and a plain one both work.
 *
 * Layout: a big-endian 32-bit magic 0x00000800 | ndim for unsigned bytes
 * (0x801 labels, 0x803 images), ndim big-endian 32-bit sizes, then the
 * product of the sizes in bytes, and nothing after. */
#ifndef RF_IDX_H
#define RF_IDX_H

#include <stddef.h>
#include <stdint.h>

#include "../core/status.h"

#define RF_IDX_MAX_DIMS 3
/* At most 1 GiB of data (the largest IDX data set, EMNIST ByClass, holds
 * 547 MB; Fashion-MNIST's training images 47 MB), checked against the
 * header before reading and against the bytes as they decompress. */
#define RF_IDX_MAX_BYTES ((size_t)1 << 30)

typedef struct rf_idx {
    int ndim;
    int64_t dims[RF_IDX_MAX_DIMS];
    uint8_t *data;      /* malloc'd, dims[0] x ... x dims[ndim-1] bytes */
    size_t bytes;
} rf_idx;

/* Read an unsigned-byte IDX file with `ndim` dimensions (1..3). Fails with a
 * message naming the file and the problem (missing, not gzip/IDX, wrong
 * magic, truncated, trailing bytes, corrupt compressed stream). On success
 * the caller frees out->data. */
bool rf_idx_read(const char *path, int ndim, rf_idx *out, rf_status *st);

#endif
