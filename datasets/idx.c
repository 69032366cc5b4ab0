/* The IDX reader (see idx.h). */
#include "idx.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define IDX_UBYTE 0x08
#define READ_CHUNK (1u << 20)
/* The data buffer starts at 1 MiB and doubles as bytes arrive, so a short
 * file claiming a large size costs at most 1 MiB before it fails. */
#define FIRST_ALLOC ((size_t)1 << 20)
#define MAX_BYTES RF_IDX_MAX_BYTES

static uint32_t big_endian32(const uint8_t b[4])
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | (uint32_t)b[3];
}

static bool stream_error(gzFile f, const char *path, rf_status *st)
{
    int code = 0;
    const char *msg = gzerror(f, &code);
    size_t n = strlen(path);
    if (strncmp(msg, path, n) == 0 && strncmp(msg + n, ": ", 2) == 0)
        msg += n + 2;   /* zlib prefixes the path, which ours already names */
    if (code == Z_ERRNO)
        return rf_fail(st, "%s: cannot read (%s)", path, msg);
    if (code == Z_BUF_ERROR)
        return rf_fail(st, "%s: truncated compressed data (%s)", path, msg);
    return rf_fail(st, "%s: corrupt compressed data (%s)", path, msg);
}

/* Up to n bytes into buf; *got says how many arrived before the end. */
static bool read_some(gzFile f, const char *path, uint8_t *buf, size_t n, size_t *got, rf_status *st)
{
    *got = 0;
    while (*got < n) {
        size_t left = n - *got;
        int r = gzread(f, buf + *got, left > READ_CHUNK ? READ_CHUNK : (unsigned)left);
        if (r < 0)
            return stream_error(f, path, st);
        if (r == 0)
            break;
        *got += (size_t)r;
    }
    return true;
}

static bool read_header(gzFile f, const char *path, int ndim, rf_idx *out, rf_status *st)
{
    uint8_t head[4 + 4 * RF_IDX_MAX_DIMS];
    size_t need = 4 + 4 * (size_t)ndim, got = 0;
    if (!read_some(f, path, head, need, &got, st))
        return false;
    uint32_t magic = got >= 4 ? big_endian32(head) : 0;
    uint32_t want = (uint32_t)IDX_UBYTE << 8 | (uint32_t)ndim;
    if (got >= 4 && magic != want)
        return rf_fail(st, "%s: wrong magic number 0x%08x (expected 0x%08x: an IDX file of unsigned bytes with %d "
                           "dimension%s)", path, magic, want, ndim, ndim == 1 ? "" : "s");
    if (got < need)
        return rf_fail(st, "%s: truncated IDX header (%zu of %zu bytes)", path, got, need);
    out->ndim = ndim;
    out->bytes = 1;
    for (int d = 0; d < ndim; d++) {
        out->dims[d] = big_endian32(head + 4 + 4 * d);
        out->bytes *= (size_t)out->dims[d];
        if (out->bytes > MAX_BYTES)
            return rf_fail(st, "%s: implausible IDX sizes in the header (more than %zu bytes of data)", path,
                           MAX_BYTES);
    }
    return true;
}

/* The data, grown as it arrives so a truncated file with a large claimed
 * size fails on the truncation, not on the allocation. */
static bool read_data(gzFile f, const char *path, rf_idx *out, rf_status *st)
{
    size_t cap = out->bytes < FIRST_ALLOC ? out->bytes : FIRST_ALLOC, have = 0;
    out->data = malloc(cap > 0 ? cap : 1);
    for (;;) {
        if (out->data == NULL)
            return rf_fail(st, "%s: out of memory for %zu bytes of IDX data", path, out->bytes);
        size_t got = 0;
        if (!read_some(f, path, out->data + have, cap - have, &got, st))
            return false;
        have += got;
        if (have < cap)
            return rf_fail(st, "%s: truncated: the header promises %zu bytes of data, the file holds %zu", path,
                           out->bytes, have);
        if (cap == out->bytes)
            break;
        cap = cap * 2 < out->bytes ? cap * 2 : out->bytes;
        uint8_t *grown = realloc(out->data, cap);
        if (grown == NULL) {
            free(out->data);
            out->data = NULL;
        } else {
            out->data = grown;
        }
    }
    /* Reading past the end also makes zlib check the gzip trailer (CRC, length). */
    uint8_t extra;
    size_t got = 0;
    if (!read_some(f, path, &extra, 1, &got, st))
        return false;
    if (got != 0)
        return rf_fail(st, "%s: unexpected bytes after the %zu bytes of data the header promises", path, out->bytes);
    return true;
}

bool rf_idx_read(const char *path, int ndim, rf_idx *out, rf_status *st)
{
    memset(out, 0, sizeof *out);
    if (ndim < 1 || ndim > RF_IDX_MAX_DIMS)
        return rf_fail(st, "%s: IDX files with %d dimensions are not supported", path, ndim);
    errno = 0;
    gzFile f = gzopen(path, "rb");
    if (f == NULL)
        return rf_fail(st, "%s: cannot open (%s)", path, errno != 0 ? strerror(errno) : "out of memory");
    gzbuffer(f, 1u << 18);
    bool ok = read_header(f, path, ndim, out, st) && read_data(f, path, out, st);
    gzclose(f);
    if (!ok) {
        free(out->data);
        out->data = NULL;
    }
    return ok;
}
