#include "npy.h"

#include <string.h>

#include "cli.h"

#define NPY_ALIGN 64
#define NPY_PREAMBLE 10   /* magic (6), version (2), header length (2) */

GBytes *rf_npy_encode(int ndim, const int64_t *dims, const float *data)
{
    if (ndim < 0 || ndim > RF_NPY_MAX_DIMS)
        return NULL;
    int64_t count = 1;
    for (int i = 0; i < ndim; i++) {
        if (dims[i] < 0)
            return NULL;
        if (dims[i] == 0)
            count = 0;
        else if (count > RF_NPY_MAX_BYTES / 4 / dims[i])   /* checked before multiplying */
            return NULL;
        else
            count *= dims[i];
    }
    g_autoptr(GString) dict = g_string_new("{'descr': '<f4', 'fortran_order': False, 'shape': (");
    for (int i = 0; i < ndim; i++)
        g_string_append_printf(dict, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", dims[i]);
    /* A one-element tuple needs its comma: (5,). */
    g_string_append(dict, ndim == 1 ? ",), }" : "), }");
    while ((NPY_PREAMBLE + dict->len + 1) % NPY_ALIGN != 0)
        g_string_append_c(dict, ' ');
    g_string_append_c(dict, '\n');

    size_t header = dict->len, bytes = (size_t)count * sizeof(float);
    guint8 *out = g_malloc(NPY_PREAMBLE + header + bytes);
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (guint8)(header & 0xff);
    out[9] = (guint8)(header >> 8);
    memcpy(out + NPY_PREAMBLE, dict->str, header);
    guint8 *p = out + NPY_PREAMBLE + header;
    for (int64_t i = 0; i < count; i++) {
        guint32 bits;
        memcpy(&bits, &data[i], sizeof bits);
        bits = GUINT32_TO_LE(bits);
        memcpy(p + 4 * i, &bits, sizeof bits);
    }
    return g_bytes_new_take(out, NPY_PREAMBLE + header + bytes);
}

gboolean rf_npy_write(const char *path, int ndim, const int64_t *dims, const float *data, GError **error)
{
    g_autofree char *dir = g_path_get_dirname(path);
    if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, "cannot write %s: no directory %s", path, dir);
        return FALSE;
    }
    g_autoptr(GBytes) file = rf_npy_encode(ndim, dims, data);
    if (file == NULL) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, "cannot write %s: an array of %d dimensions "
                    "that are negative or hold more than %lld bytes", path, ndim, (long long)RF_NPY_MAX_BYTES);
        return FALSE;
    }
    gsize size = 0;
    const char *bytes = g_bytes_get_data(file, &size);
    g_autoptr(GError) local = NULL;
    if (!g_file_set_contents(path, bytes, (gssize)size, &local)) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, "cannot write %s: %s", path, local->message);
        return FALSE;
    }
    return TRUE;
}
