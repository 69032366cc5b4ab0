/* .npy arrays as outside inputs (see npy_input.h). */
#include "npy_input.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAGIC "\x93NUMPY"
#define MAX_HEADER 65536

typedef struct npy_header {
    char kind;          /* 'f', 'i' or 'u' */
    int size;           /* bytes per element */
    bool big_endian, fortran;
    int ndim;
    int64_t dim[2];
    size_t data_offset;
} npy_header;

bool rf_npy_input_is(const char *path)
{
    char head[6];
    FILE *f = fopen(path, "rb");
    bool is = f != NULL && fread(head, 1, sizeof head, f) == sizeof head && memcmp(head, MAGIC, 6) == 0;
    if (f != NULL)
        fclose(f);
    return is;
}

/* The value of 'key' in the header's dict text: the text after "'key':". */
static const char *field(const char *dict, const char *key)
{
    g_autofree char *quoted = g_strdup_printf("'%s':", key);
    const char *at = strstr(dict, quoted);
    if (at == NULL)
        return NULL;
    at += strlen(quoted);
    while (*at == ' ')
        at++;
    return at;
}

static bool parse_header(const char *path, const guint8 *bytes, size_t n, npy_header *h, rf_status *st)
{
    if (n < 10 || memcmp(bytes, MAGIC, 6) != 0)
        return rf_fail(st, "%s: not a NumPy .npy file", path);
    int major = bytes[6];
    size_t len = (size_t)bytes[8] | (size_t)bytes[9] << 8, start = 10;
    if (major >= 2) {   /* a 4-byte header length */
        if (n < 12)
            return rf_fail(st, "%s: the .npy header is cut short", path);
        len = (size_t)bytes[8] | (size_t)bytes[9] << 8 | (size_t)bytes[10] << 16 | (size_t)bytes[11] << 24;
        start = 12;
    }
    if (major < 1 || major > 3 || len > MAX_HEADER || start + len > n)
        return rf_fail(st, "%s: the .npy header (version %d, %zu bytes) is not one this reader takes", path, major,
                       len);
    g_autofree char *dict = g_strndup((const char *)bytes + start, len);
    h->data_offset = start + len;
    const char *descr = field(dict, "descr"), *order = field(dict, "fortran_order"), *shape = field(dict, "shape");
    if (descr == NULL || order == NULL || shape == NULL)
        return rf_fail(st, "%s: the .npy header lacks 'descr', 'fortran_order' or 'shape'", path);
    /* '<f4': byte order, kind, bytes per element */
    bool known = descr[0] == '\'' && descr[1] != '\0' && strchr("<>|=", descr[1]) != NULL && descr[2] != '\0' &&
                 strchr("fiu", descr[2]) != NULL && strchr("1248", descr[3]) != NULL && descr[3] != '\0' &&
                 descr[4] == '\'' && !(descr[2] == 'f' && descr[3] < '4');
    h->size = known ? descr[3] - '0' : 0;
    if (!known)
        return rf_fail(st, "%s: dtype %.12s is not one this reader takes (int8..64, uint8..64, float32, float64)",
                       path, descr);
    h->kind = descr[2];
    h->big_endian = descr[1] == '>' || (descr[1] == '=' && G_BYTE_ORDER == G_BIG_ENDIAN);
    h->fortran = g_str_has_prefix(order, "True");
    if (shape[0] != '(')
        return rf_fail(st, "%s: the .npy shape is not a tuple", path);
    h->ndim = 0;
    const char *p = shape + 1;
    while (*p != ')') {
        char *end;
        gint64 d = g_ascii_strtoll(p, &end, 10);
        if (end == p || d < 0 || h->ndim == 2)
            return rf_fail(st, "%s: shape %.40s: an outside input is a 1-D or 2-D array", path, shape);
        h->dim[h->ndim++] = d;
        p = end;
        while (*p == ',' || *p == ' ')
            p++;
    }
    if (h->ndim == 0)
        return rf_fail(st, "%s: a 0-D array; an outside input is a 1-D or 2-D array", path);
    return true;
}

static double element(const guint8 *p, const npy_header *h)
{
    guint8 b[8];
    for (int i = 0; i < h->size; i++)
        b[i] = p[h->big_endian == (G_BYTE_ORDER == G_LITTLE_ENDIAN) ? h->size - 1 - i : i];
    if (h->kind == 'f') {
        if (h->size == 4) {
            float f;
            memcpy(&f, b, 4);
            return f;
        }
        double d;
        memcpy(&d, b, 8);
        return d;
    }
    guint64 u = 0;
    memcpy(&u, b, (size_t)h->size);   /* host order now; the value sits in the low bytes */
    if (G_BYTE_ORDER == G_BIG_ENDIAN)
        u >>= 8 * (8 - h->size);
    if (h->kind == 'u')
        return (double)u;
    int shift = 64 - 8 * h->size;
    return (double)((gint64)(u << shift) >> shift);
}

bool rf_npy_input_read(const rf_dataset *ds, const char *path, float *x, int *len, rf_status *st)
{
    int feat = ds->feat_dim > 0 ? ds->feat_dim : 1;
    GStatBuf sb;
    if (g_stat(path, &sb) != 0)
        return rf_fail(st, "%s: cannot read the file", path);
    /* the largest array any model here takes, as float64, plus the header */
    if ((uint64_t)sb.st_size > (uint64_t)MAX_HEADER + 12 + (uint64_t)ds->seq_len * (uint64_t)feat * 8)
        return rf_fail(st, "%s: %lld bytes, more than an array of at most %d x %d values can hold", path,
                       (long long)sb.st_size, ds->seq_len, feat);
    g_autofree guint8 *bytes = NULL;
    gsize n = 0;
    if (!g_file_get_contents(path, (char **)&bytes, &n, NULL))
        return rf_fail(st, "%s: cannot read the file", path);
    npy_header h = {0};
    if (!parse_header(path, bytes, n, &h, st))
        return false;
    int64_t positions = h.dim[0], per = h.ndim == 2 ? h.dim[1] : 1;
    char shape[64];
    if (h.ndim == 2)
        snprintf(shape, sizeof shape, "(%lld, %lld)", (long long)positions, (long long)per);
    else
        snprintf(shape, sizeof shape, "(%lld,)", (long long)positions);
    if (ds->feat_dim == 0 && h.ndim != 1)
        return rf_fail(st, "%s: shape %s; this %s model takes a 1-D array of token ids", path, shape, ds->name);
    if (per != feat)
        return rf_fail(st, "%s: shape %s, %lld values per position; this %s model takes %d", path, shape,
                       (long long)per, ds->name, feat);
    if (positions < 1 || positions > ds->seq_len)
        return rf_fail(st, "%s: shape %s, %lld positions; this %s model takes 1 to %d", path, shape,
                       (long long)positions, ds->name, ds->seq_len);
    size_t count = (size_t)positions * (size_t)per;
    if (h.data_offset + count * (size_t)h.size != n)
        return rf_fail(st, "%s: %zu bytes of data where shape %s needs %zu", path, n - h.data_offset, shape,
                       count * (size_t)h.size);
    for (int64_t i = 0; i < positions; i++)
        for (int64_t j = 0; j < per; j++) {
            size_t at = h.fortran ? (size_t)(j * positions + i) : (size_t)(i * per + j);
            double v = element(bytes + h.data_offset + at * (size_t)h.size, &h);
            if (!isfinite(v) || fabs(v) > 1e30)
                return rf_fail(st, "%s: element %lld is %g; inputs are finite", path, (long long)at, v);
            if (ds->feat_dim == 0 && (v != floor(v) || v < 1 || v >= ds->vocab))
                return rf_fail(st, "%s: element %lld is %g, not a token id of this %s model (1..%d)", path,
                               (long long)at, v, ds->name, ds->vocab - 1);
            x[i * per + j] = (float)v;
        }
    *len = (int)positions;
    return true;
}
