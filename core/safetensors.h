/* Reading and writing the safetensors format (the Hugging Face standard):
 *
 *   [8 bytes: little-endian u64 header length n]
 *   [n bytes: JSON header {"name": {"dtype": "F32", "shape": [..],
 *              "data_offsets": [begin, end]}, ..., "__metadata__": {str: str}}]
 *   [tensor bytes; offsets are relative to the end of the header]
 *
 * Only F32 is written and accepted. Writes are atomic (atomic_file.h), so a
 * crash never leaves a half-written checkpoint where a good one was.
 * Reads validate everything before trusting it, and every error names the
 * file and the problem.
 */
#ifndef RF_SAFETENSORS_H
#define RF_SAFETENSORS_H

#include <stdbool.h>
#include <stdint.h>

#include "graph.h"
#include "status.h"

/* Limits on what a read accepts, checked before allocating: the header
 * (JSON) at most 4 MiB (our checkpoints' are a few KiB plus ~110 bytes a
 * tensor: 38,000 tensors, 12,700 parameters with their moments), at most
 * 65536 tensors, and at most 16 GiB of tensor data, which
 * rf_safetensors_read reads whole (rf_safetensors_open a tensor at a time).
 * Jansson takes up to ~80 bytes per header byte (measured: 77 for a header
 * of empty objects, 45 for empty arrays), so reading a file allocates at
 * most its data section plus 320 MiB. */
#define RF_ST_MAX_HEADER ((uint64_t)4 << 20)
#define RF_ST_MAX_TENSORS 65536
#define RF_ST_MAX_DATA ((int64_t)16 << 30)

typedef struct rf_st_tensor {
    char name[RF_NAME_LEN];
    int ndim;                       /* 0..4 */
    int64_t shape[RF_MAX_DIMS];
    const float *data;              /* numel floats; NULL in a file from rf_safetensors_open */
} rf_st_tensor;

typedef struct rf_st_meta {
    const char *key;
    const char *value;
} rf_st_meta;

bool rf_safetensors_write(const char *path, const rf_st_tensor *tensors, int n_tensors,
                          const rf_st_meta *meta, int n_meta, rf_status *st);

typedef struct rf_safetensors rf_safetensors;

/* Read and validate a whole file: header length within the file, JSON
 * well-formed, every entry with dtype F32, a shape of 0..4 non-negative dims,
 * data_offsets in bounds, matching the shape's byte size, not overlapping,
 * covering the data section exactly; metadata values are strings. */
rf_safetensors *rf_safetensors_read(const char *path, rf_status *st);
/* rf_safetensors_read without reading the data section: the header is
 * read and validated the same way, every tensor's `data` is NULL, and the
 * file stays open until rf_safetensors_free for rf_safetensors_read_tensor
 * and rf_safetensors_data_crc32. Loading a checkpoint this way holds one
 * tensor at a time, not the whole file. */
rf_safetensors *rf_safetensors_open(const char *path, rf_status *st);
void rf_safetensors_free(rf_safetensors *f);

/* Copy tensor t (one of f's) numel floats into dst (from memory, or read from the
 * file); false with a message naming the file and the tensor when the read
 * fails or comes up short (the file was truncated under us). */
bool rf_safetensors_read_tensor(const rf_safetensors *f, const rf_st_tensor *t, float *dst, rf_status *st);
/* zlib's crc32 of the whole data section (read in 1 MiB pieces when it is
 * not in memory). */
bool rf_safetensors_data_crc32(const rf_safetensors *f, unsigned long *crc, rf_status *st);

int rf_safetensors_count(const rf_safetensors *f);
const rf_st_tensor *rf_safetensors_tensor(const rf_safetensors *f, int i);
const rf_st_tensor *rf_safetensors_find(const rf_safetensors *f, const char *name);
const char *rf_safetensors_meta(const rf_safetensors *f, const char *key);  /* NULL if absent */
/* The data section: every byte after the header, which the tensors cover
 * exactly (NULL, with its size, in a file from rf_safetensors_open). */
const void *rf_safetensors_data(const rf_safetensors *f, size_t *size);

#endif
