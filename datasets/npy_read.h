/* Reading NumPy .npy files (format versions 1.0, 2.0 and 3.0).
 *
 *   \x93NUMPY, major (1, 2 or 3), minor (0), the header length (uint16
 *   little-endian in 1.0, uint32 in 2.0 and 3.0), the header: a Python dict
 *   literal "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
 *   padded with spaces and a newline, then the data.
 *
 * Only that dict's small fixed grammar is read: the three keys, each once,
 * in any order, quoted with ' or "; descr one of int8/16/32/64, uint8,
 * float32/64 ('|i1', '<i2', '>f8', ...; byte order '<', '>' or '|' for one
 * byte, '=' as this machine's); fortran_order True or False; shape a tuple
 * of non-negative integers. Anything else (structured dtypes, object
 * arrays, pickles) is refused with a message naming the file and field.
 *
 * The file is memory-mapped, not copied: values are read from the map in
 * the file's byte order and layout (rf_npy_value, rf_npy_integer). */
#ifndef RF_DATASETS_NPY_READ_H
#define RF_DATASETS_NPY_READ_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "../core/data.h"

/* Limits, checked before anything is mapped or allocated for them: a
 * header of at most 64 KiB (NumPy writes ~128 bytes; its own reader stops
 * at 10,000), at most 8 dimensions, and at most 16 GiB of data. */
#define RF_NPY_READ_MAX_HEADER 65536
#define RF_NPY_READ_MAX_DIMS 8
#define RF_NPY_READ_MAX_BYTES ((int64_t)16 << 30)

typedef enum rf_npy_type {
    RF_NPY_INT8,
    RF_NPY_UINT8,
    RF_NPY_INT16,
    RF_NPY_INT32,
    RF_NPY_INT64,
    RF_NPY_FLOAT32,
    RF_NPY_FLOAT64,
} rf_npy_type;

typedef struct rf_npy_array {
    rf_npy_type type;
    int item;                   /* bytes per value */
    bool big_endian;
    bool fortran;               /* column-major layout */
    int ndim;
    int64_t shape[RF_NPY_READ_MAX_DIMS];
    int64_t count;              /* values: the product of shape */
    const uint8_t *data;        /* count * item bytes inside the map */
    GMappedFile *map;
} rf_npy_array;

/* Map and check `path`; false with "PATH: FIELD: problem" in st. */
bool rf_npy_open(const char *path, rf_npy_array *a, rf_status *st);

/* The same checks on `size` bytes in memory (the map's, or a fuzzer's);
 * a->data points into `file`. `path` names it in messages. */
bool rf_npy_parse(const char *path, const uint8_t *file, size_t size, rf_npy_array *a, rf_status *st);

void rf_npy_close(rf_npy_array *a);

/* "int16", "float32", ... */
const char *rf_npy_type_name(rf_npy_type t);

/* Value `index` in C (row-major) order of the shape, whatever the file's
 * layout. */
double rf_npy_value(const rf_npy_array *a, int64_t index);

/* The same value as an integer: false when it is not one (a float with a
 * fraction, NaN, infinite, or beyond int64). */
bool rf_npy_integer(const rf_npy_array *a, int64_t index, int64_t *out);

/* "(2, 3)" into buf. */
void rf_npy_shape_text(const rf_npy_array *a, char *buf, size_t size);

#endif
