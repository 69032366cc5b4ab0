/* The .npy writer (app/npy.c) round trip: the input gives a shape (first
 * byte: 0..5 dimensions; then one byte per dimension, 0..7, or with the top
 * bit of the first byte set 8 raw bytes per dimension, so negative and
 * overflowing shapes come too) and the float data (the rest, as raw bits,
 * NaNs included). A shape outside the writer's limits must be refused
 * (NULL); any other is encoded and read back here, field by field as the
 * format (NumPy's format version 1.0) defines it: magic, version, header
 * length, the header dict with the shape, 64-byte alignment, and the
 * floats bit for bit. */
#include <glib.h>

#include "fuzz_common.h"
#include "npy.h"

static bool shape_ok(int ndim, const int64_t *dims, int64_t *count)
{
    __int128 n = 1;
    for (int i = 0; i < ndim; i++) {
        if (dims[i] < 0)
            return false;
        n *= dims[i];
        if (n > RF_NPY_MAX_BYTES / 4)
            return n == 0;
    }
    *count = (int64_t)n;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int ndim = data[0] % 6, wide = data[0] & 0x80;
    size_t at = 1;
    int64_t dims[8] = {0};
    for (int i = 0; i < ndim; i++) {
        if (wide && at + 8 <= size) {
            memcpy(&dims[i], data + at, 8);
            at += 8;
        } else {
            dims[i] = at < size ? data[at] % 8 : 1;
            at++;
        }
    }
    int64_t count = 0;
    bool valid = shape_ok(ndim, dims, &count);
    size_t have = at < size ? (size - at) / 4 : 0;
    if (!valid) {
        FUZZ_CHECK(rf_npy_encode(ndim, dims, NULL) == NULL, "an invalid shape was encoded");
        return 0;
    }
    if ((uint64_t)count > have)
        return 0;   /* a valid shape with more data than the input holds */
    float *values = malloc((size_t)count * 4 + 1);
    memcpy(values, data + at, (size_t)count * 4);
    GBytes *file = rf_npy_encode(ndim, dims, values);
    FUZZ_CHECK(file != NULL, "a valid shape was refused");
    gsize n = 0;
    const uint8_t *b = g_bytes_get_data(file, &n);
    FUZZ_CHECK(n >= 10 && memcmp(b, "\x93NUMPY\x01\x00", 8) == 0, "magic or version");
    size_t header = (size_t)b[8] | (size_t)b[9] << 8;
    FUZZ_CHECK((10 + header) % 64 == 0 && 10 + header + (size_t)count * 4 == n, "header %zu, file %zu", header, n);
    char *dict = g_strndup((const char *)b + 10, header);
    FUZZ_CHECK(dict[header - 1] == '\n', "header does not end with a newline");
    const char *prefix = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
    FUZZ_CHECK(g_str_has_prefix(dict, prefix), "header %s", dict);
    char *close = strchr(dict, ')');
    FUZZ_CHECK(close != NULL && g_str_has_prefix(close, "), }"), "header %s", dict);
    for (char *p = close + 4; p < dict + header - 1; p++)
        FUZZ_CHECK(*p == ' ', "padding holds '%c'", *p);
    char *tuple = g_strndup(dict + strlen(prefix), (size_t)(close - dict) - strlen(prefix));
    char **parts = g_strsplit(tuple, ",", -1);
    int read = 0;
    for (char **q = parts; *q != NULL; q++) {
        char *item = g_strstrip(*q);
        if (*item == '\0') {
            FUZZ_CHECK(ndim == 1 && q[1] == NULL, "empty item in (%s)", tuple);   /* (5,) */
            continue;
        }
        gint64 v = -1;
        FUZZ_CHECK(read < ndim && g_ascii_string_to_signed(item, 10, 0, G_MAXINT64, &v, NULL) && v == dims[read],
                   "shape (%s), dimension %d", tuple, read);
        read++;
    }
    FUZZ_CHECK(read == ndim && (ndim != 1 || strchr(tuple, ',') != NULL), "shape (%s) for %d dimensions", tuple, ndim);
    FUZZ_CHECK(count == 0 || memcmp(b + 10 + header, values, (size_t)count * 4) == 0, "data changed");
    g_strfreev(parts);
    g_free(tuple);
    g_free(dict);
    g_bytes_unref(file);
    free(values);
    return 0;
}
