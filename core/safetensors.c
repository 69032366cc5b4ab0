#include "safetensors.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "alloc.h"
#include "atomic_file.h"

/* Tensor bytes are copied straight between files and float arrays. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors I/O assumes a little-endian host");

#define RF_ST_META_KEY "__metadata__"

struct rf_safetensors {
    json_t *header;         /* kept alive: metadata values point into it */
    json_t *meta;           /* borrowed from header; NULL if absent */
    int count;
    rf_st_tensor *tensors;
    int64_t *offsets;       /* [count]: each tensor's first byte in the data section */
    const rf_st_tensor **by_name;   /* the tensors sorted by name, for rf_safetensors_find */
    float *data;            /* the data section, rf_alloc'd (64-byte aligned); NULL when opened */
    size_t data_size;
    char *path;             /* for messages */
    int fd;                 /* opened (rf_safetensors_open): the file, else -1 */
    int64_t data_start;     /* the data section's first byte in the file */
};

/* ---------------------------------------------------------------- helpers */

static int64_t shape_numel(int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= shape[i];
    return n;
}

/* "[2, 3]" (or "[]" for a scalar) into buf. */
static const char *shape_text(int ndim, const int64_t *shape, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < ndim && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%" PRId64, i ? ", " : "", shape[i]);
    if (used < size)
        snprintf(buf + used, size - used, "]");
    return buf;
}

/* False with errno set on a read error, or errno = 0 at an early end of file. */
static bool read_all(int fd, void *buf, size_t size)
{
    char *p = buf;
    while (size > 0) {
        size_t chunk = size < (1u << 30) ? size : (1u << 30);
        ssize_t n = read(fd, p, chunk);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        if (n == 0) {
            errno = 0;
            return false;
        }
        p += n;
        size -= (size_t)n;
    }
    return true;
}

/* ---------------------------------------------------------------- writing */

static bool check_tensor(const char *path, const rf_st_tensor *t, rf_status *st)
{
    if (strnlen(t->name, RF_NAME_LEN) >= RF_NAME_LEN)
        return rf_fail(st, "%s: tensor name longer than %d bytes", path, RF_NAME_LEN - 1);
    if (strcmp(t->name, RF_ST_META_KEY) == 0)
        return rf_fail(st, "%s: '%s' is reserved and cannot name a tensor", path, RF_ST_META_KEY);
    if (t->ndim < 0 || t->ndim > RF_MAX_DIMS)
        return rf_fail(st, "%s: tensor '%s' has %d dimensions (0..%d supported)", path, t->name, t->ndim,
                       RF_MAX_DIMS);
    for (int d = 0; d < t->ndim; d++)
        if (t->shape[d] < 0)
            return rf_fail(st, "%s: tensor '%s' has negative dimension %" PRId64, path, t->name, t->shape[d]);
    return true;
}

/* The header JSON, padded with spaces so the data section starts 8-byte
 * aligned (as the reference implementation writes it). Malloc'd. */
static char *build_header(const char *path, const rf_st_tensor *tensors, int n_tensors,
                          const rf_st_meta *meta, int n_meta, size_t *len, rf_status *st)
{
    json_t *root = json_object();
    bool ok = root != NULL;
    if (ok && n_meta > 0) {
        json_t *m = json_object();
        ok = json_object_set_new(root, RF_ST_META_KEY, m) == 0;
        for (int i = 0; ok && i < n_meta; i++) {
            if (json_object_get(m, meta[i].key) != NULL) {
                rf_fail(st, "%s: metadata key '%s' given twice", path, meta[i].key);
                ok = false;
            } else if (json_object_set_new(m, meta[i].key, json_string(meta[i].value)) != 0) {
                rf_fail(st, "%s: metadata '%s' is not valid UTF-8", path, meta[i].key);
                ok = false;
            }
        }
    }
    int64_t offset = 0;
    for (int i = 0; ok && i < n_tensors; i++) {
        const rf_st_tensor *t = &tensors[i];
        if (!check_tensor(path, t, st)) {
            ok = false;
            break;
        }
        if (json_object_get(root, t->name) != NULL) {
            ok = rf_fail(st, "%s: tensor '%s' given twice", path, t->name);
            break;
        }
        json_t *shape = json_array();
        for (int d = 0; d < t->ndim; d++)
            json_array_append_new(shape, json_integer(t->shape[d]));
        int64_t end = offset + shape_numel(t->ndim, t->shape) * (int64_t)sizeof(float);
        json_t *entry = json_pack("{s:s, s:o, s:[I, I]}", "dtype", "F32", "shape", shape, "data_offsets",
                                  (json_int_t)offset, (json_int_t)end);
        if (entry == NULL || json_object_set_new(root, t->name, entry) != 0) {
            ok = rf_fail(st, "%s: tensor name '%s' is not valid UTF-8", path, t->name);
            break;
        }
        offset = end;
    }
    char *text = ok ? json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(root);
    if (text == NULL) {
        if (ok)
            rf_fail(st, "%s: out of memory building the header", path);
        return NULL;
    }
    size_t n = strlen(text), padded = (n + 7) / 8 * 8;
    char *header = realloc(text, padded + 1);
    if (header == NULL) {
        free(text);
        rf_fail(st, "%s: out of memory building the header", path);
        return NULL;
    }
    memset(header + n, ' ', padded - n);
    header[padded] = '\0';
    *len = padded;
    return header;
}

typedef struct contents {
    const char *header;
    size_t header_len;
    const rf_st_tensor *tensors;
    int n_tensors;
} contents;

static bool write_contents(int fd, void *ctx)
{
    const contents *c = ctx;
    unsigned char len_le[8];
    for (int i = 0; i < 8; i++)
        len_le[i] = (unsigned char)((uint64_t)c->header_len >> (8 * i));
    if (!rf_write_all(fd, len_le, sizeof len_le) || !rf_write_all(fd, c->header, c->header_len))
        return false;
    for (int i = 0; i < c->n_tensors; i++) {
        const rf_st_tensor *t = &c->tensors[i];
        size_t bytes = (size_t)shape_numel(t->ndim, t->shape) * sizeof(float);
        if (bytes > 0 && !rf_write_all(fd, t->data, bytes))
            return false;
    }
    return true;
}

bool rf_safetensors_write(const char *path, const rf_st_tensor *tensors, int n_tensors,
                          const rf_st_meta *meta, int n_meta, rf_status *st)
{
    contents c = {.tensors = tensors, .n_tensors = n_tensors};
    char *header = build_header(path, tensors, n_tensors, meta, n_meta, &c.header_len, st);
    if (header == NULL)
        return false;
    c.header = header;
    bool ok = rf_atomic_write(path, write_contents, &c, st);
    free(header);
    return ok;
}

/* ---------------------------------------------------------------- reading */

typedef struct span {
    int64_t begin, end;
    int index;
} span;

static int span_cmp(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
}

static bool parse_shape(const char *path, const char *name, json_t *shape, rf_st_tensor *t, rf_status *st)
{
    if (!json_is_array(shape))
        return rf_fail(st, "%s: tensor '%s': shape is missing or not an array", path, name);
    size_t ndim = json_array_size(shape);
    if (ndim > RF_MAX_DIMS)
        return rf_fail(st, "%s: tensor '%s': shape has %zu dimensions (at most %d supported)", path, name,
                       ndim, RF_MAX_DIMS);
    t->ndim = (int)ndim;
    for (size_t d = 0; d < ndim; d++) {
        json_t *dim = json_array_get(shape, d);
        if (!json_is_integer(dim) || json_integer_value(dim) < 0)
            return rf_fail(st, "%s: tensor '%s': shape dimension %zu is not a non-negative integer", path,
                           name, d);
        t->shape[d] = json_integer_value(dim);
    }
    for (size_t d = ndim; d < RF_MAX_DIMS; d++)
        t->shape[d] = 1;
    return true;
}

/* Byte size of an F32 tensor of shape t, or -1 if that overflows int64. */
static int64_t shape_bytes(const rf_st_tensor *t)
{
    for (int d = 0; d < t->ndim; d++)
        if (t->shape[d] == 0)
            return 0;
    int64_t n = (int64_t)sizeof(float);
    for (int d = 0; d < t->ndim; d++) {
        if (n > INT64_MAX / t->shape[d])
            return -1;
        n *= t->shape[d];
    }
    return n;
}

static bool parse_entry(const char *path, const char *name, json_t *entry, int64_t data_size,
                        rf_st_tensor *t, span *sp, rf_status *st)
{
    if (strlen(name) >= RF_NAME_LEN)
        return rf_fail(st, "%s: tensor name '%.40s...' is longer than %d bytes", path, name, RF_NAME_LEN - 1);
    strcpy(t->name, name);
    if (!json_is_object(entry))
        return rf_fail(st, "%s: tensor '%s': entry is not an object", path, name);
    json_t *dtype = json_object_get(entry, "dtype");
    if (!json_is_string(dtype))
        return rf_fail(st, "%s: tensor '%s': dtype is missing or not a string", path, name);
    if (strcmp(json_string_value(dtype), "F32") != 0)
        return rf_fail(st, "%s: unsupported dtype %s for tensor '%s' (only F32 is supported)", path,
                       json_string_value(dtype), name);
    if (!parse_shape(path, name, json_object_get(entry, "shape"), t, st))
        return false;

    json_t *offsets = json_object_get(entry, "data_offsets");
    json_t *b = json_array_get(offsets, 0), *e = json_array_get(offsets, 1);
    if (json_array_size(offsets) != 2 || !json_is_integer(b) || !json_is_integer(e) ||
        json_integer_value(b) < 0 || json_integer_value(e) < 0)
        return rf_fail(st, "%s: tensor '%s': data_offsets must be [begin, end], two non-negative integers",
                       path, name);
    sp->begin = json_integer_value(b);
    sp->end = json_integer_value(e);
    if (sp->begin > sp->end)
        return rf_fail(st, "%s: tensor '%s': data_offsets [%" PRId64 ", %" PRId64 "] has begin after end",
                       path, name, sp->begin, sp->end);
    if (sp->end > data_size)
        return rf_fail(st, "%s: tensor '%s': data_offsets [%" PRId64 ", %" PRId64 "] out of bounds "
                           "(data section is %" PRId64 " bytes)", path, name, sp->begin, sp->end, data_size);
    int64_t bytes = shape_bytes(t);
    if (bytes != sp->end - sp->begin) {
        char buf[128];
        shape_text(t->ndim, t->shape, buf, sizeof buf);
        if (bytes < 0)
            return rf_fail(st, "%s: tensor '%s': shape %s is too large", path, name, buf);
        return rf_fail(st, "%s: tensor '%s': data_offsets [%" PRId64 ", %" PRId64 "] span %" PRId64
                           " bytes but F32 shape %s needs %" PRId64, path, name, sp->begin, sp->end,
                       sp->end - sp->begin, buf, bytes);
    }
    return true;
}

static bool check_metadata(const char *path, json_t *meta, rf_status *st)
{
    if (!json_is_object(meta))
        return rf_fail(st, "%s: %s is not an object", path, RF_ST_META_KEY);
    const char *key;
    json_t *value;
    json_object_foreach(meta, key, value) {
        if (!json_is_string(value))
            return rf_fail(st, "%s: %s value for '%s' is not a string", path, RF_ST_META_KEY, key);
    }
    return true;
}

/* Sorted by begin, every tensor must start where the previous one ended and
 * the last must end at the end of the data section. */
static bool check_layout(const char *path, const rf_safetensors *f, span *spans, int64_t data_size,
                         rf_status *st)
{
    qsort(spans, (size_t)f->count, sizeof *spans, span_cmp);
    int64_t covered = 0;
    for (int i = 0; i < f->count; i++) {
        const span *s = &spans[i];
        if (s->begin < covered) {
            const span *prev = &spans[i - 1];
            return rf_fail(st, "%s: tensors '%s' [%" PRId64 ", %" PRId64 "] and '%s' [%" PRId64 ", %" PRId64
                               "] overlap", path, f->tensors[prev->index].name, prev->begin, prev->end,
                           f->tensors[s->index].name, s->begin, s->end);
        }
        if (s->begin > covered)
            return rf_fail(st, "%s: data section bytes [%" PRId64 ", %" PRId64 ") are not covered by any "
                               "tensor", path, covered, s->begin);
        covered = s->end;
    }
    if (covered < data_size)
        return rf_fail(st, "%s: data section bytes [%" PRId64 ", %" PRId64 ") are not covered by any tensor",
                       path, covered, data_size);
    return true;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp((*(const rf_st_tensor *const *)a)->name, (*(const rf_st_tensor *const *)b)->name);
}

/* f->by_name: the tensors in name order (names are unique: the JSON parser
 * rejects duplicate keys). */
static bool index_names(rf_safetensors *f)
{
    f->by_name = malloc(((size_t)f->count + 1) * sizeof *f->by_name);
    if (f->by_name == NULL)
        return false;
    for (int i = 0; i < f->count; i++)
        f->by_name[i] = &f->tensors[i];
    qsort(f->by_name, (size_t)f->count, sizeof *f->by_name, name_cmp);
    return true;
}

/* Check the parsed header against the data section and fill f->tensors. */
static bool parse_header(const char *path, rf_safetensors *f, int64_t data_size, rf_status *st)
{
    if (!json_is_object(f->header))
        return rf_fail(st, "%s: header JSON is not an object", path);
    size_t entries = json_object_size(f->header);
    size_t n_tensors = entries - (json_object_get(f->header, RF_ST_META_KEY) != NULL);
    if (n_tensors > RF_ST_MAX_TENSORS)
        return rf_fail(st, "%s: %zu tensors; at most %d are read", path, n_tensors, RF_ST_MAX_TENSORS);
    f->tensors = calloc(entries ? entries : 1, sizeof *f->tensors);
    span *spans = calloc(entries ? entries : 1, sizeof *spans);
    if (f->tensors == NULL || spans == NULL) {
        free(spans);
        return rf_fail(st, "%s: out of memory reading the header", path);
    }
    bool ok = true;
    const char *name;
    json_t *entry;
    json_object_foreach(f->header, name, entry) {
        if (strcmp(name, RF_ST_META_KEY) == 0) {
            ok = check_metadata(path, entry, st);
            f->meta = entry;
        } else {
            ok = parse_entry(path, name, entry, data_size, &f->tensors[f->count], &spans[f->count], st);
            spans[f->count].index = f->count;
            f->count++;
        }
        if (!ok)
            break;
    }
    ok = ok && check_layout(path, f, spans, data_size, st);
    /* every begin is a sum of F32 sizes, so the pointers are float-aligned */
    f->offsets = ok ? malloc(((size_t)f->count + 1) * sizeof *f->offsets) : NULL;
    if (ok && f->offsets == NULL)
        ok = rf_fail(st, "%s: out of memory reading the header", path);
    for (int i = 0; ok && i < f->count; i++) {
        f->offsets[spans[i].index] = spans[i].begin;
        f->tensors[spans[i].index].data =
            f->data != NULL ? (const float *)((const char *)f->data + spans[i].begin) : NULL;
    }
    free(spans);
    if (ok && !index_names(f))
        ok = rf_fail(st, "%s: out of memory reading the header", path);
    return ok;
}

/* Read the length field, header text and (`whole`) the data section;
 * parse the JSON. */
static bool load_file(const char *path, int fd, rf_safetensors *f, int64_t *data_size, bool whole, rf_status *st)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        return rf_fail(st, "%s: cannot stat: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return rf_fail(st, "%s: not a regular file", path);
    int64_t size = sb.st_size;
    if (size < 8)
        return rf_fail(st, "%s: file is %" PRId64 " bytes, too short for a safetensors file "
                           "(the header length alone takes 8)", path, size);
    unsigned char len_le[8];
    if (!read_all(fd, len_le, sizeof len_le))
        return rf_fail(st, "%s: read failed: %s", path, errno ? strerror(errno) : "unexpected end of file");
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--)
        n = n << 8 | len_le[i];
    if (n > (uint64_t)(size - 8))
        return rf_fail(st, "%s: header length %" PRIu64 " exceeds the %" PRId64 " bytes that follow it", path,
                       n, size - 8);
    if (n > RF_ST_MAX_HEADER)
        return rf_fail(st, "%s: header length %" PRIu64 " is implausibly large (limit %llu bytes)", path, n,
                       (unsigned long long)RF_ST_MAX_HEADER);
    if (size - 8 - (int64_t)n > RF_ST_MAX_DATA)
        return rf_fail(st, "%s: %" PRId64 " bytes of tensor data; at most %lld are read", path,
                       size - 8 - (int64_t)n, (long long)RF_ST_MAX_DATA);

    char *header = malloc(n ? n : 1);
    *data_size = size - 8 - (int64_t)n;
    f->data_start = 8 + (int64_t)n;
    f->data = whole ? rf_alloc((size_t)*data_size) : NULL;
    if (header == NULL || (whole && f->data == NULL)) {
        free(header);
        return rf_fail(st, "%s: out of memory reading %" PRId64 " bytes", path, size);
    }
    if (!read_all(fd, header, n) || (whole && !read_all(fd, f->data, (size_t)*data_size))) {
        free(header);
        return rf_fail(st, "%s: read failed: %s", path, errno ? strerror(errno) : "unexpected end of file");
    }
    json_error_t err;
    f->header = json_loadb(header, n, JSON_REJECT_DUPLICATES, &err);
    free(header);
    if (f->header == NULL)
        return rf_fail(st, "%s: header JSON, line %d column %d: %s", path, err.line, err.column, err.text);
    return true;
}

static rf_safetensors *read_file(const char *path, bool whole, rf_status *st)
{
    rf_safetensors *f = calloc(1, sizeof *f);
    char *name = strdup(path);
    if (f == NULL || name == NULL) {
        free(f);
        free(name);
        rf_fail(st, "%s: out of memory", path);
        return NULL;
    }
    f->path = name;
    f->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (f->fd < 0) {
        rf_fail(st, "%s: cannot open: %s", path, strerror(errno));
        rf_safetensors_free(f);
        return NULL;
    }
    int64_t data_size = 0;
    bool ok = load_file(path, f->fd, f, &data_size, whole, st);
    if (whole) {
        close(f->fd);
        f->fd = -1;
    }
    f->data_size = (size_t)data_size;
    ok = ok && parse_header(path, f, data_size, st);
    if (!ok) {
        rf_safetensors_free(f);
        return NULL;
    }
    return f;
}

rf_safetensors *rf_safetensors_read(const char *path, rf_status *st) { return read_file(path, true, st); }

rf_safetensors *rf_safetensors_open(const char *path, rf_status *st) { return read_file(path, false, st); }

void rf_safetensors_free(rf_safetensors *f)
{
    if (f == NULL)
        return;
    if (f->fd >= 0)
        close(f->fd);
    json_decref(f->header);
    free(f->tensors);
    free(f->offsets);
    free(f->by_name);
    rf_free(f->data);
    free(f->path);
    free(f);
}

/* size bytes at `offset` of the data section into buf. */
static bool read_data(const rf_safetensors *f, int64_t offset, void *buf, size_t size, const char *what,
                      rf_status *st)
{
    if (f->data != NULL) {
        memcpy(buf, (const char *)f->data + offset, size);
        return true;
    }
    char *p = buf;
    off_t at = (off_t)(f->data_start + offset);
    while (size > 0) {
        ssize_t n = pread(f->fd, p, size < (1u << 30) ? size : (1u << 30), at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return rf_fail(st, "%s: reading %s failed: %s", f->path, what,
                           n < 0 ? strerror(errno) : "the file ends early (was it truncated?)");
        p += n;
        at += n;
        size -= (size_t)n;
    }
    return true;
}

bool rf_safetensors_read_tensor(const rf_safetensors *f, const rf_st_tensor *t, float *dst, rf_status *st)
{
    char what[RF_NAME_LEN + 16];
    snprintf(what, sizeof what, "tensor '%s'", t->name);
    return read_data(f, f->offsets[t - f->tensors], dst, (size_t)shape_bytes(t), what, st);
}

bool rf_safetensors_data_crc32(const rf_safetensors *f, unsigned long *crc, rf_status *st)
{
    enum { PIECE = 1 << 20 };
    *crc = crc32_z(0, Z_NULL, 0);
    if (f->data != NULL) {
        *crc = crc32_z(*crc, (const Bytef *)f->data, f->data_size);
        return true;
    }
    unsigned char *buf = malloc(PIECE);
    if (buf == NULL)
        return rf_fail(st, "%s: out of memory", f->path);
    bool ok = true;
    for (size_t at = 0; ok && at < f->data_size; at += PIECE) {
        size_t n = f->data_size - at < PIECE ? f->data_size - at : PIECE;
        ok = read_data(f, (int64_t)at, buf, n, "the tensor data", st);
        if (ok)
            *crc = crc32_z(*crc, buf, n);
    }
    free(buf);
    return ok;
}

int rf_safetensors_count(const rf_safetensors *f) { return f->count; }

const rf_st_tensor *rf_safetensors_tensor(const rf_safetensors *f, int i)
{
    return i >= 0 && i < f->count ? &f->tensors[i] : NULL;
}

const rf_st_tensor *rf_safetensors_find(const rf_safetensors *f, const char *name)
{
    int lo = 0, hi = f->count;   /* binary search of by_name: loading a model is n log n, not n^2 */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2, c = strcmp(f->by_name[mid]->name, name);
        if (c == 0)
            return f->by_name[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const char *rf_safetensors_meta(const rf_safetensors *f, const char *key)
{
    return json_string_value(json_object_get(f->meta, key));
}

const void *rf_safetensors_data(const rf_safetensors *f, size_t *size)
{
    *size = f->data_size;
    return f->data;
}
