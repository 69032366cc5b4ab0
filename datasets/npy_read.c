/* Reading .npy files (see npy_read.h). */
#include "npy_read.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAGIC "\x93NUMPY"
#define MAGIC_LEN 6

static const struct {
    char code[3];
    rf_npy_type type;
    int item;
    const char *name;
} types[] = {
    {"i1", RF_NPY_INT8, 1, "int8"},       {"u1", RF_NPY_UINT8, 1, "uint8"},     {"i2", RF_NPY_INT16, 2, "int16"},
    {"i4", RF_NPY_INT32, 4, "int32"},     {"i8", RF_NPY_INT64, 8, "int64"},     {"f4", RF_NPY_FLOAT32, 4, "float32"},
    {"f8", RF_NPY_FLOAT64, 8, "float64"},
};

const char *rf_npy_type_name(rf_npy_type t)
{
    for (size_t i = 0; i < G_N_ELEMENTS(types); i++)
        if (types[i].type == t)
            return types[i].name;
    return "?";
}

/* ---- the header dict: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } ---- */

typedef struct cursor {
    const char *p, *begin, *end;   /* begin: the header's first byte */
    const char *path;
    rf_status *st;
} cursor;

static void skip_space(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static bool eat(cursor *c, char ch)
{
    skip_space(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return true;
    }
    return false;
}

/* A quoted string without escapes into buf. */
static bool read_string(cursor *c, char *buf, size_t size, const char *what)
{
    skip_space(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return rf_fail(c->st, "%s: header: expected a quoted %s at byte %td", c->path, what, c->p - c->begin);
    char quote = *c->p++;
    const char *start = c->p;
    while (c->p < c->end && *c->p != quote && *c->p != '\\')
        c->p++;
    if (c->p >= c->end || *c->p != quote)
        return rf_fail(c->st, "%s: header: unterminated or escaped %s", c->path, what);
    size_t n = (size_t)(c->p - start);
    c->p++;
    if (n >= size)
        return rf_fail(c->st, "%s: header: %s '%.*s' is too long", c->path, what, (int)(n < 32 ? n : 32), start);
    memcpy(buf, start, n);
    buf[n] = '\0';
    return true;
}

static bool read_descr(cursor *c, rf_npy_array *a)
{
    char d[16];
    if (!read_string(c, d, sizeof d, "'descr' value"))
        return false;
    char order = d[0];
    const char *code = d + 1;
    for (size_t i = 0; i < G_N_ELEMENTS(types); i++) {
        if (strcmp(code, types[i].code) != 0)
            continue;
        if (order == '|' && types[i].item != 1)
            return rf_fail(c->st, "%s: descr: '%s' has no byte order ('|' is for one-byte types)", c->path, d);
        if (order != '<' && order != '>' && order != '|' && order != '=')
            break;
        a->type = types[i].type;
        a->item = types[i].item;
        a->big_endian = order == '>' || (order == '=' && G_BYTE_ORDER == G_BIG_ENDIAN);
        return true;
    }
    return rf_fail(c->st, "%s: descr: '%s' is not one of int8/16/32/64, uint8, float32/64 ('<i4', '>f8', '|u1', "
                          "...)", c->path, d);
}

static bool read_fortran(cursor *c, rf_npy_array *a)
{
    skip_space(c);
    size_t left = (size_t)(c->end - c->p);
    if (left >= 4 && memcmp(c->p, "True", 4) == 0) {
        a->fortran = true;
        c->p += 4;
    } else if (left >= 5 && memcmp(c->p, "False", 5) == 0) {
        a->fortran = false;
        c->p += 5;
    } else {
        return rf_fail(c->st, "%s: fortran_order: expected True or False", c->path);
    }
    return true;
}

/* (), (5,), (2, 3), (2, 3,); Python 2's "3L" too. */
static bool read_shape(cursor *c, rf_npy_array *a)
{
    if (!eat(c, '('))
        return rf_fail(c->st, "%s: shape: expected a tuple '(...)'", c->path);
    a->ndim = 0;
    bool comma = true;   /* a dimension may follow */
    while (!eat(c, ')')) {
        if (!comma)
            return rf_fail(c->st, "%s: shape: expected ',' or ')' after dimension %d", c->path, a->ndim);
        skip_space(c);
        const char *start = c->p;
        while (c->p < c->end && g_ascii_isdigit(*c->p))
            c->p++;
        size_t n = (size_t)(c->p - start);
        if (n == 0)
            return rf_fail(c->st, "%s: shape: dimension %d is not a non-negative integer", c->path, a->ndim);
        if (a->ndim == RF_NPY_READ_MAX_DIMS)
            return rf_fail(c->st, "%s: shape: more than %d dimensions", c->path, RF_NPY_READ_MAX_DIMS);
        char digits[24];
        if (n >= sizeof digits)
            return rf_fail(c->st, "%s: shape: dimension %d is too large", c->path, a->ndim);
        memcpy(digits, start, n);
        digits[n] = '\0';
        errno = 0;
        gint64 v = g_ascii_strtoll(digits, NULL, 10);
        if (errno != 0 || v > RF_NPY_READ_MAX_BYTES)
            return rf_fail(c->st, "%s: shape: dimension %d (%s) is too large", c->path, a->ndim, digits);
        if (c->p < c->end && *c->p == 'L')
            c->p++;
        a->shape[a->ndim++] = v;
        comma = eat(c, ',');
    }
    if (a->ndim == 1 && !comma)
        return rf_fail(c->st, "%s: shape: a one-dimension tuple needs its comma, '(N,)'", c->path);
    return true;
}

static bool parse_dict(cursor *c, rf_npy_array *a)
{
    if (!eat(c, '{'))
        return rf_fail(c->st, "%s: header: expected a dict starting with '{'", c->path);
    bool seen[3] = {false, false, false};
    static const char *const keys[3] = {"descr", "fortran_order", "shape"};
    while (!eat(c, '}')) {
        char key[32];
        if (!read_string(c, key, sizeof key, "key"))
            return false;
        int k = 0;
        while (k < 3 && strcmp(key, keys[k]) != 0)
            k++;
        if (k == 3)
            return rf_fail(c->st, "%s: header: unknown key '%s' (expected 'descr', 'fortran_order', 'shape')",
                           c->path, key);
        if (seen[k])
            return rf_fail(c->st, "%s: header: key '%s' given twice", c->path, key);
        seen[k] = true;
        if (!eat(c, ':'))
            return rf_fail(c->st, "%s: %s: expected ':' after the key", c->path, key);
        bool ok = k == 0 ? read_descr(c, a) : k == 1 ? read_fortran(c, a) : read_shape(c, a);
        if (!ok)
            return false;
        bool comma = eat(c, ',');
        skip_space(c);
        if (!comma && (c->p == c->end || *c->p != '}'))
            return rf_fail(c->st, "%s: header: expected ',' or '}' after '%s'", c->path, key);
    }
    for (int k = 0; k < 3; k++)
        if (!seen[k])
            return rf_fail(c->st, "%s: %s: missing from the header", c->path, keys[k]);
    skip_space(c);
    if (c->p != c->end)
        return rf_fail(c->st, "%s: header: '%c' after the dict (the header length may be wrong)", c->path,
                       g_ascii_isprint(*c->p) ? *c->p : '?');
    return true;
}

/* ---- the file ---- */

bool rf_npy_parse(const char *path, const uint8_t *file, size_t size, rf_npy_array *a, rf_status *st)
{
    GMappedFile *map = a->map;
    memset(a, 0, sizeof *a);
    a->map = map;
    if (size < MAGIC_LEN + 2 || memcmp(file, MAGIC, MAGIC_LEN) != 0)
        return rf_fail(st, "%s: magic: not a .npy file (it does not start with \\x93NUMPY)", path);
    int major = file[6], minor = file[7];
    if ((major != 1 && major != 2 && major != 3) || minor != 0)
        return rf_fail(st, "%s: version: %d.%d; .npy versions 1.0, 2.0 and 3.0 are read", path, major, minor);
    size_t field = major == 1 ? 2 : 4, start = MAGIC_LEN + 2 + field;
    if (size < start)
        return rf_fail(st, "%s: header length: the file ends inside it", path);
    uint64_t hlen = file[8] | (uint64_t)file[9] << 8;
    if (field == 4)
        hlen |= (uint64_t)file[10] << 16 | (uint64_t)file[11] << 24;
    if (hlen > RF_NPY_READ_MAX_HEADER)
        return rf_fail(st, "%s: header length: %llu bytes; at most %d are read", path, (unsigned long long)hlen,
                       RF_NPY_READ_MAX_HEADER);
    if (hlen > size - start)
        return rf_fail(st, "%s: header length: %llu bytes, but only %zu follow", path, (unsigned long long)hlen,
                       size - start);
    const char *header = (const char *)file + start;
    for (uint64_t i = 0; i < hlen; i++) {   /* printable, so messages can quote it */
        unsigned char ch = (unsigned char)header[i];
        if (ch >= 0x7f || (ch < 0x20 && ch != '\n' && ch != '\r' && ch != '\t'))
            return rf_fail(st, "%s: header: byte %llu (0x%02x) is not ASCII text", path, (unsigned long long)i, ch);
    }
    cursor c = {header, header, header + hlen, path, st};
    if (!parse_dict(&c, a))
        return false;
    int64_t count = 1;
    for (int i = 0; i < a->ndim; i++)
        if (__builtin_mul_overflow(count, a->shape[i], &count) || count > RF_NPY_READ_MAX_BYTES)
            return rf_fail(st, "%s: shape: more than %lld bytes of data", path, (long long)RF_NPY_READ_MAX_BYTES);
    int64_t bytes = count * a->item;
    if (bytes > RF_NPY_READ_MAX_BYTES)
        return rf_fail(st, "%s: shape: %lld bytes of data; at most %lld are read", path, (long long)bytes,
                       (long long)RF_NPY_READ_MAX_BYTES);
    size_t have = size - start - (size_t)hlen;
    char shape[160];
    a->count = count;
    rf_npy_shape_text(a, shape, sizeof shape);
    if ((uint64_t)bytes != have)
        return rf_fail(st, "%s: data: shape %s of %s needs %lld bytes after the header, the file holds %zu (%s)",
                       path, shape, rf_npy_type_name(a->type), (long long)bytes, have,
                       (uint64_t)bytes > have ? "truncated" : "the header's shape or length is wrong");
    a->data = file + start + hlen;
    return true;
}

bool rf_npy_open(const char *path, rf_npy_array *a, rf_status *st)
{
    memset(a, 0, sizeof *a);
    if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
        return rf_fail(st, "%s: %s", path, g_file_test(path, G_FILE_TEST_EXISTS) ? "not a regular file"
                                                                                   : "no such file");
    GError *err = NULL;
    a->map = g_mapped_file_new(path, FALSE, &err);
    if (a->map == NULL) {
        rf_fail(st, "%s: cannot read (%s)", path, err->message);
        g_error_free(err);
        return false;
    }
    const uint8_t *file = (const uint8_t *)g_mapped_file_get_contents(a->map);
    if (rf_npy_parse(path, file, g_mapped_file_get_length(a->map), a, st))
        return true;
    rf_npy_close(a);
    return false;
}

void rf_npy_close(rf_npy_array *a)
{
    if (a->map != NULL)
        g_mapped_file_unref(a->map);
    memset(a, 0, sizeof *a);
}

void rf_npy_shape_text(const rf_npy_array *a, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "(");
    for (int i = 0; i < a->ndim && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%lld", i > 0 ? ", " : "", (long long)a->shape[i]);
    if (used < size)
        snprintf(buf + used, size - used, a->ndim == 1 ? ",)" : ")");
}

/* ---- values ---- */

/* Where value `index` (C order) lies in the file's layout. */
static int64_t file_offset(const rf_npy_array *a, int64_t index)
{
    if (!a->fortran || a->ndim < 2)
        return index;
    int64_t offset = 0, stride = 1, rest = index, coord[RF_NPY_READ_MAX_DIMS];
    for (int i = a->ndim - 1; i >= 0; i--) {
        coord[i] = rest % a->shape[i];
        rest /= a->shape[i];
    }
    for (int i = 0; i < a->ndim; i++) {
        offset += coord[i] * stride;
        stride *= a->shape[i];
    }
    return offset;
}

/* The raw bits of a value, in this machine's byte order. */
static uint64_t raw_bits(const rf_npy_array *a, int64_t index)
{
    const uint8_t *p = a->data + file_offset(a, index) * a->item;
    uint8_t b[8];
    for (int i = 0; i < a->item; i++)
        b[i] = p[(a->big_endian != (G_BYTE_ORDER == G_BIG_ENDIAN)) ? a->item - 1 - i : i];
    uint64_t v = 0;
    switch (a->item) {
    case 1: v = b[0]; break;
    case 2: { uint16_t u; memcpy(&u, b, 2); v = u; break; }
    case 4: { uint32_t u; memcpy(&u, b, 4); v = u; break; }
    default: memcpy(&v, b, 8); break;
    }
    return v;
}

double rf_npy_value(const rf_npy_array *a, int64_t index)
{
    uint64_t v = raw_bits(a, index);
    switch (a->type) {
    case RF_NPY_INT8: return (int8_t)v;
    case RF_NPY_UINT8: return (uint8_t)v;
    case RF_NPY_INT16: return (int16_t)v;
    case RF_NPY_INT32: return (int32_t)v;
    case RF_NPY_INT64: return (double)(int64_t)v;
    case RF_NPY_FLOAT32: { uint32_t u = (uint32_t)v; float f; memcpy(&f, &u, 4); return f; }
    case RF_NPY_FLOAT64: { double d; memcpy(&d, &v, 8); return d; }
    }
    return NAN;
}

bool rf_npy_integer(const rf_npy_array *a, int64_t index, int64_t *out)
{
    if (a->type == RF_NPY_INT64) {
        *out = (int64_t)raw_bits(a, index);
        return true;
    }
    double v = rf_npy_value(a, index);
    /* 2^63 is exact in double: the range check is exact too */
    if (!isfinite(v) || v != floor(v) || v < -9223372036854775808.0 || v >= 9223372036854775808.0)
        return false;
    *out = (int64_t)v;
    return true;
}
