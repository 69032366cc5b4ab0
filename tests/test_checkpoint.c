/* safetensors reading/writing and checkpoints.
 *
 * Besides the TAP run, two modes serve tests/check_safetensors_torch.py:
 *   test_checkpoint --write-fixture DIR   writes DIR/tensors.safetensors and
 *                                         DIR/checkpoint.safetensors (known values)
 *   test_checkpoint --dump FILE           reads FILE and prints its tensors and
 *                                         metadata as JSON (exit 1 with the error)
 */
#include <dirent.h>
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "alloc.h"
#include "checkpoint.h"
#include "config.h"
#include "params.h"
#include "safetensors.h"
#include "tap.h"

#define PATH_SIZE 512

static char test_dir[] = "/tmp/rf_test_checkpoint.XXXXXX";

static void make_path(char *buf, const char *name)
{
    snprintf(buf, PATH_SIZE, "%s/%s", test_dir, name);
}

/* ------------------------------------------------------------ file helpers */

static unsigned char *read_bytes(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n + 1);
    *size = fread(buf, 1, (size_t)n, f);
    fclose(f);
    return buf;
}

static void write_bytes(const char *path, const void *buf, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(buf, 1, size, f) != size) {
        perror(path);
        exit(2);
    }
    fclose(f);
}

static bool file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* Leftover temporary files of the atomic writer in the test directory. */
static int count_temp_files(void)
{
    int n = 0;
    DIR *d = opendir(test_dir);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        n += strstr(e->d_name, ".tmp-") != NULL;
    if (d != NULL)
        closedir(d);
    return n;
}

static void remove_test_dir(void)
{
    DIR *d = opendir(test_dir);
    char path[PATH_SIZE];
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        make_path(path, e->d_name);
        if (unlink(path) != 0)
            rmdir(path);
    }
    if (d != NULL)
        closedir(d);
    rmdir(test_dir);
}

static uint64_t le64(const unsigned char *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

/* The failure names the file first and mentions `expect`. */
static void check_error(const rf_status *st, const char *path, const char *expect, const char *label)
{
    size_t n = strlen(path);
    bool names_file = strncmp(st->msg, path, n) == 0 && st->msg[n] == ':';
    tap_ok(st->failed && names_file && strstr(st->msg, expect) != NULL, "%s: rejected, message names the "
           "file and says '%s'", label, expect);
    tap_diag("%s", st->msg);
}

/* ------------------------------------------------------------ tensor fixture */

enum { N_FIXTURE = 5 };
static float fx_a[6], fx_scalar[1], fx_four[24], fx_vec[5];

/* Known values, mirrored in check_safetensors_torch.py. */
static void fixture(rf_st_tensor t[N_FIXTURE], rf_st_meta meta[2])
{
    for (int i = 0; i < 6; i++)
        fx_a[i] = (float)i;
    fx_scalar[0] = 3.5f;
    for (int i = 0; i < 24; i++)
        fx_four[i] = 1.0f - 0.5f * (float)i;
    const float vec[5] = {-0.0f, 1.5f, -2.25f, 0x1p100f, FLT_MAX};
    memcpy(fx_vec, vec, sizeof vec);
    t[0] = (rf_st_tensor){"a", 2, {2, 3, 1, 1}, fx_a};
    t[1] = (rf_st_tensor){"scalar", 0, {1, 1, 1, 1}, fx_scalar};
    t[2] = (rf_st_tensor){"four", 4, {2, 1, 3, 4}, fx_four};
    t[3] = (rf_st_tensor){"vec", 1, {5, 1, 1, 1}, fx_vec};
    t[4] = (rf_st_tensor){"empty", 2, {0, 4, 1, 1}, NULL};
    meta[0] = (rf_st_meta){"note", "written by test_checkpoint"};
    meta[1] = (rf_st_meta){"k", "v"};
}

static int64_t numel_of(const rf_st_tensor *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        n *= t->shape[d];
    return n;
}

static bool same_tensor(const rf_st_tensor *a, const rf_st_tensor *b)
{
    if (strcmp(a->name, b->name) != 0 || a->ndim != b->ndim)
        return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d])
            return false;
    size_t bytes = (size_t)numel_of(a) * sizeof(float);
    return bytes == 0 || memcmp(a->data, b->data, bytes) == 0;
}

static void test_round_trip(void)
{
    rf_st_tensor t[N_FIXTURE];
    rf_st_meta meta[2];
    fixture(t, meta);
    char path[PATH_SIZE];
    make_path(path, "round_trip.safetensors");
    rf_status st = {0};
    tap_ok(rf_safetensors_write(path, t, N_FIXTURE, meta, 2, &st), "write fixture (%s)", st.msg);

    rf_safetensors *f = rf_safetensors_read(path, &st);
    tap_ok(f != NULL, "read it back (%s)", st.msg);
    if (f == NULL)
        return;
    tap_ok(rf_safetensors_count(f) == N_FIXTURE, "tensor count %d", rf_safetensors_count(f));
    bool same = true, aligned = true;
    for (int i = 0; i < N_FIXTURE && i < rf_safetensors_count(f); i++) {
        const rf_st_tensor *r = rf_safetensors_tensor(f, i);
        same = same && same_tensor(&t[i], r);
        aligned = aligned && (uintptr_t)r->data % sizeof(float) == 0;
    }
    tap_ok(same, "names (in order), shapes incl. scalar and 4-D, and bytes round-trip");
    tap_ok(aligned, "tensor data is float-aligned");
    const rf_st_tensor *four = rf_safetensors_find(f, "four");
    tap_ok(four != NULL && four->ndim == 4 && four->data[23] == fx_four[23], "find 4-D tensor by name");
    tap_ok(rf_safetensors_find(f, "missing") == NULL && rf_safetensors_tensor(f, N_FIXTURE) == NULL,
           "absent name / index give NULL");
    const char *note = rf_safetensors_meta(f, "note"), *k = rf_safetensors_meta(f, "k");
    tap_ok(note && strcmp(note, "written by test_checkpoint") == 0 && k && strcmp(k, "v") == 0,
           "metadata round-trips");
    tap_ok(rf_safetensors_meta(f, "absent") == NULL, "absent metadata key gives NULL");
    rf_safetensors_free(f);
}

/* rf_safetensors_open: the header alone; each tensor read on request equals
 * what the whole-file reader holds; the data section's crc32 read in 1 MiB
 * pieces (a 1.2 MB tensor spans two) equals zlib's over the bytes in
 * memory; a file cut short after opening fails the read, naming the file
 * and the tensor. */
static void test_open_lazily(void)
{
    enum { BIG = 300000 };
    float *big = malloc(BIG * sizeof *big);
    for (int i = 0; i < BIG; i++)
        big[i] = (float)i * 0.25f - 7.0f;
    rf_st_tensor t[N_FIXTURE + 1];
    rf_st_meta meta[2];
    fixture(t, meta);
    t[N_FIXTURE] = (rf_st_tensor){"big", 1, {BIG, 1, 1, 1}, big};
    char path[PATH_SIZE];
    make_path(path, "lazy.safetensors");
    rf_status st = {0};
    tap_ok(rf_safetensors_write(path, t, N_FIXTURE + 1, meta, 2, &st), "write a file with a 1.2 MB tensor (%s)",
           st.msg);
    rf_safetensors *whole = rf_safetensors_read(path, &st), *lazy = rf_safetensors_open(path, &st);
    tap_ok(whole != NULL && lazy != NULL, "it reads whole and opens (%s)", st.msg);
    if (whole == NULL || lazy == NULL) {
        rf_safetensors_free(whole);
        rf_safetensors_free(lazy);
        free(big);
        return;
    }
    size_t size = 0;
    bool same = rf_safetensors_count(lazy) == N_FIXTURE + 1 && rf_safetensors_data(lazy, &size) == NULL;
    float *got = malloc(BIG * sizeof *got);
    for (int i = 0; same && i < N_FIXTURE + 1; i++) {
        const rf_st_tensor *a = rf_safetensors_tensor(whole, i), *b = rf_safetensors_find(lazy, a->name);
        same = b != NULL && b->data == NULL && rf_safetensors_read_tensor(lazy, b, got, &st) &&
               memcmp(got, a->data, (size_t)numel_of(a) * sizeof(float)) == 0;
    }
    tap_ok(same, "each tensor read from the opened file equals the whole read's (no data held: %s)", st.msg);
    unsigned long lazy_crc = 0, whole_crc = 0;
    const void *data = rf_safetensors_data(whole, &size);
    bool crc_read = rf_safetensors_data_crc32(lazy, &lazy_crc, &st) && rf_safetensors_data_crc32(whole, &whole_crc, &st);
    unsigned long want = crc32_z(crc32_z(0, Z_NULL, 0), data, size);
    tap_ok(crc_read && lazy_crc == want && whole_crc == want && size > (1u << 20),
           "the crc32 read in pieces equals zlib's over %zu bytes in memory (%08lx, %08lx)", size, lazy_crc, want);
    tap_ok(truncate(path, 4096) == 0, "the file is cut to 4 KiB after opening");
    rf_status cut = {0};
    const rf_st_tensor *b = rf_safetensors_find(lazy, "big");
    tap_ok(b != NULL && !rf_safetensors_read_tensor(lazy, b, got, &cut) && strstr(cut.msg, path) != NULL &&
               strstr(cut.msg, "'big'") != NULL && strstr(cut.msg, "ends early") != NULL,
           "then reading a tensor fails, naming the file and the tensor: %s", cut.msg);
    rf_safetensors_free(whole);
    rf_safetensors_free(lazy);
    free(got);
    free(big);
}

/* Parse the bytes with Jansson here, independently of the reader. */
static void test_file_format(void)
{
    rf_st_tensor t[N_FIXTURE];
    rf_st_meta meta[2];
    fixture(t, meta);
    char path[PATH_SIZE];
    make_path(path, "format.safetensors");
    rf_status st = {0};
    rf_safetensors_write(path, t, N_FIXTURE, meta, 2, &st);
    size_t size = 0;
    unsigned char *bytes = read_bytes(path, &size);
    if (!tap_ok(bytes != NULL && size >= 8, "file written (%s)", st.msg)) {
        free(bytes);
        return;
    }
    uint64_t n = le64(bytes);
    tap_ok(n <= size - 8 && (8 + n) % 8 == 0, "header length %llu little-endian, data starts 8-aligned",
           (unsigned long long)n);
    bool spaces = n > 0 && bytes[8] == '{';
    size_t end = (size_t)n;
    while (end > 0 && bytes[8 + end - 1] == ' ')
        end--;
    spaces = spaces && end > 0 && bytes[8 + end - 1] == '}' && n - end < 8;
    tap_ok(spaces, "header is one JSON object padded with fewer than 8 spaces");

    json_error_t err;
    json_t *root = json_loadb((const char *)bytes + 8, (size_t)n, 0, &err);
    tap_ok(json_is_object(root), "header parses as a JSON object (%s)", root ? "" : err.text);
    json_t *m = json_object_get(root, "__metadata__");
    tap_ok(json_is_object(m) && json_object_size(m) == 2 &&
               strcmp(json_string_value(json_object_get(m, "note")), "written by test_checkpoint") == 0,
           "__metadata__ holds the string metadata");

    const char *name;
    json_t *entry;
    int i = 0;
    int64_t offset = 0;
    bool ok = json_object_size(root) == N_FIXTURE + 1;
    json_object_foreach(root, name, entry) {
        if (strcmp(name, "__metadata__") == 0 || i >= N_FIXTURE)
            continue;
        json_t *shape = json_object_get(entry, "shape"), *offs = json_object_get(entry, "data_offsets");
        ok = ok && strcmp(name, t[i].name) == 0 &&
             strcmp(json_string_value(json_object_get(entry, "dtype")), "F32") == 0 &&
             json_array_size(shape) == (size_t)t[i].ndim;
        for (int d = 0; ok && d < t[i].ndim; d++)
            ok = json_integer_value(json_array_get(shape, (size_t)d)) == t[i].shape[d];
        int64_t bytes_i = numel_of(&t[i]) * 4;
        ok = ok && json_integer_value(json_array_get(offs, 0)) == offset &&
             json_integer_value(json_array_get(offs, 1)) == offset + bytes_i;
        ok = ok && (bytes_i == 0 || memcmp(bytes + 8 + n + offset, t[i].data, (size_t)bytes_i) == 0);
        offset += bytes_i;
        i++;
    }
    tap_ok(ok && i == N_FIXTURE, "entries in the given order: dtype F32, shape, contiguous data_offsets, "
           "raw little-endian floats at those offsets");
    tap_ok(8 + n + (uint64_t)offset == size, "file ends exactly after the last tensor");
    json_decref(root);
    free(bytes);
}

/* ------------------------------------------------------------ atomic writes */

static void test_atomic(void)
{
    rf_st_tensor t[N_FIXTURE];
    rf_st_meta meta[2];
    fixture(t, meta);
    rf_status st = {0};

    char path[PATH_SIZE];
    snprintf(path, sizeof path, "%s/no/such/dir/x.safetensors", test_dir);
    tap_ok(!rf_safetensors_write(path, t, N_FIXTURE, meta, 2, &st), "write into a missing directory fails");
    check_error(&st, path, "No such file or directory", "missing directory");
    tap_ok(!file_exists(path), "and creates no file");

    make_path(path, "atomic.safetensors");
    rf_status_clear(&st);
    rf_safetensors_write(path, t, 1, NULL, 0, &st);
    bool ok = rf_safetensors_write(path, t, N_FIXTURE, meta, 2, &st);
    rf_safetensors *f = rf_safetensors_read(path, &st);
    tap_ok(ok && f && rf_safetensors_count(f) == N_FIXTURE, "overwrite replaces the file (%s)", st.msg);
    rf_safetensors_free(f);
    tap_ok(count_temp_files() == 0, "no temporary file left after successful writes");

    /* As root no permission can make the write fail, but a file size limit can. */
    size_t before_size = 0, after_size = 0;
    unsigned char *before = read_bytes(path, &before_size);
    static float big[16384];
    rf_st_tensor huge = {"huge", 1, {16384, 1, 1, 1}, big};
    struct rlimit saved, small;
    getrlimit(RLIMIT_FSIZE, &saved);
    small = saved;
    small.rlim_cur = 4096;
    signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &small);
    rf_status_clear(&st);
    ok = rf_safetensors_write(path, &huge, 1, NULL, 0, &st);
    setrlimit(RLIMIT_FSIZE, &saved);
    signal(SIGXFSZ, SIG_DFL);
    tap_ok(!ok, "a write that runs out of space fails");
    check_error(&st, path, "File too large", "failed write");
    unsigned char *after = read_bytes(path, &after_size);
    tap_ok(before && after && before_size == after_size && memcmp(before, after, before_size) == 0,
           "the previous file is byte-identical after the failed write");
    tap_ok(count_temp_files() == 0, "the failed write removed its temporary file");
    free(before);
    free(after);

    make_path(path, "a_directory");
    mkdir(path, 0755);
    rf_status_clear(&st);
    tap_ok(!rf_safetensors_write(path, t, N_FIXTURE, NULL, 0, &st), "writing over a directory fails");
    check_error(&st, path, "renaming", "target is a directory");
    tap_ok(count_temp_files() == 0, "no temporary file left after the failed rename");

    rf_status_clear(&st);
    rf_st_tensor bad[2] = {t[0], t[0]};
    tap_ok(!rf_safetensors_write(path, bad, 2, NULL, 0, &st) && strstr(st.msg, "given twice") != NULL,
           "duplicate tensor names are refused on write (%s)", st.msg);
}

/* ------------------------------------------------------------ corrupt files */

typedef struct corrupt_case {
    const char *label;
    const char *header;     /* NULL: the file is `raw` */
    int64_t data_bytes;     /* zero bytes after the header */
    uint64_t length;        /* header length field; 0: strlen(header) */
    int64_t file_size;      /* truncate/extend the file to this; 0: as written */
    const char *raw;
    size_t raw_len;
    const char *expect;
} corrupt_case;

#define T1(name, dtype, shape, b, e) "\"" name "\":{\"dtype\":\"" dtype "\",\"shape\":" shape \
                                     ",\"data_offsets\":[" #b "," #e "]}"

static const corrupt_case corrupt_cases[] = {
    {"empty file", NULL, 0, 0, 0, "", 0, "too short"},
    {"4-byte file", NULL, 0, 0, 0, "\x02\0\0\0", 4, "too short"},
    {"header length beyond the file", "{}", 0, 100, 0, NULL, 0, "header length 100 exceeds"},
    {"huge header length", "{}", 0, 1ull << 62, 0, NULL, 0, "header length"},
    {"header length over the sanity limit", "{}", 0, 150000000, 200000000, NULL, 0, "implausibly large"},
    {"bad JSON", "{\"a\": {\"dtype\": ", 0, 0, 0, NULL, 0, "header JSON, line 1 column"},
    {"top-level array", "[1, 2]", 0, 0, 0, NULL, 0, "not an object"},
    {"entry not an object", "{\"a\": 5}", 0, 0, 0, NULL, 0, "tensor 'a': entry is not an object"},
    {"dtype missing", "{\"a\":{\"shape\":[1],\"data_offsets\":[0,4]}}", 4, 0, 0, NULL, 0, "dtype is missing"},
    {"dtype F16", "{" T1("a", "F16", "[2]", 0, 4) "}", 4, 0, 0, NULL, 0, "unsupported dtype F16 for tensor 'a'"},
    {"negative shape", "{" T1("a", "F32", "[-1]", 0, 4) "}", 4, 0, 0, NULL, 0, "shape dimension 0 is not"},
    {"fractional shape", "{" T1("a", "F32", "[1.5]", 0, 4) "}", 4, 0, 0, NULL, 0, "shape dimension 0 is not"},
    {"5-D shape", "{" T1("a", "F32", "[1,1,1,1,1]", 0, 4) "}", 4, 0, 0, NULL, 0, "5 dimensions"},
    {"offsets not integers", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0.0,4.0]}}", 4, 0, 0,
     NULL, 0, "data_offsets must be"},
    {"offsets begin after end", "{" T1("a", "F32", "[0]", 8, 4) "}", 8, 0, 0, NULL, 0, "begin after end"},
    {"offsets out of bounds", "{" T1("fc.weight", "F32", "[3]", 0, 12) "}", 8, 0, 0, NULL, 0,
     "tensor 'fc.weight': data_offsets [0, 12] out of bounds (data section is 8 bytes)"},
    {"overlapping offsets", "{" T1("a", "F32", "[2]", 0, 8) "," T1("b", "F32", "[2]", 4, 12) "}", 12, 0, 0,
     NULL, 0, "overlap"},
    {"gap in the data section", "{" T1("a", "F32", "[1]", 0, 4) "," T1("b", "F32", "[1]", 8, 12) "}", 12, 0,
     0, NULL, 0, "bytes [4, 8) are not covered"},
    {"trailing bytes", "{" T1("a", "F32", "[1]", 0, 4) "}", 8, 0, 0, NULL, 0, "bytes [4, 8) are not covered"},
    {"offsets not matching the shape", "{" T1("a", "F32", "[3]", 0, 8) "}", 8, 0, 0, NULL, 0,
     "span 8 bytes but F32 shape [3] needs 12"},
    {"metadata not an object", "{\"__metadata__\": [1]}", 0, 0, 0, NULL, 0, "__metadata__ is not an object"},
    {"metadata value not a string", "{\"__metadata__\": {\"k\": 1}}", 0, 0, 0, NULL, 0,
     "value for 'k' is not a string"},
    {"duplicate tensor names", "{" T1("a", "F32", "[1]", 0, 4) "," T1("a", "F32", "[1]", 4, 8) "}", 8, 0, 0,
     NULL, 0, "duplicate object key"},
#define TEN "0123456789"
    {"name too long", "{" T1("n" TEN TEN TEN TEN TEN TEN TEN TEN TEN TEN, "F32", "[1]", 0, 4) "}", 4, 0, 0, NULL,
     0, "longer than 95 bytes"},
#undef TEN
};

static void write_corrupt(const char *path, const corrupt_case *c)
{
    if (c->header == NULL) {
        write_bytes(path, c->raw, c->raw_len);
        return;
    }
    size_t hlen = strlen(c->header), size = 8 + hlen + (size_t)c->data_bytes;
    unsigned char *buf = calloc(1, size);
    uint64_t length = c->length ? c->length : hlen;
    for (int i = 0; i < 8; i++)
        buf[i] = (unsigned char)(length >> (8 * i));
    memcpy(buf + 8, c->header, hlen);
    write_bytes(path, buf, size);
    free(buf);
    /* a sparse file: big enough for a huge header length without writing it */
    if (c->file_size > 0 && truncate(path, c->file_size) != 0)
        perror(path);
}

static void test_corrupt_files(void)
{
    int n = (int)(sizeof corrupt_cases / sizeof *corrupt_cases);
    char path[PATH_SIZE];
    for (int i = 0; i < n; i++) {
        const corrupt_case *c = &corrupt_cases[i];
        snprintf(path, sizeof path, "%s/corrupt%02d.safetensors", test_dir, i);
        write_corrupt(path, c);
        rf_status st = {0};
        rf_safetensors *f = rf_safetensors_read(path, &st);
        tap_ok(f == NULL, "%s: read returns NULL", c->label);
        check_error(&st, path, c->expect, c->label);
        rf_safetensors_free(f);
        unlink(path);
    }
    rf_status st = {0};
    make_path(path, "does-not-exist.safetensors");
    tap_ok(rf_safetensors_read(path, &st) == NULL, "missing file: read returns NULL");
    check_error(&st, path, "No such file or directory", "missing file");
}

/* ------------------------------------------------------------ checkpoints */

typedef struct param_spec {
    const char *name;
    rf_shape shape;
} param_spec;

/* Mirrored in check_safetensors_torch.py. */
static const param_spec base_specs[] = {
    {"embed.weight", {2, {10, 4, 1, 1}}},
    {"layer0.attn.wq", {2, {4, 4, 1, 1}}},
    {"layer0.norm.gain", {1, {4, 1, 1, 1}}},
    {"head.bias", {1, {3, 1, 1, 1}}},
    {"scale", {0, {1, 1, 1, 1}}},
};
enum { N_BASE = sizeof base_specs / sizeof *base_specs };

static rf_params *make_store(const param_spec *specs, int n, uint64_t seed)
{
    rf_params *p = rf_params_new(seed);
    rf_status st = {0};
    for (int i = 0; i < n; i++)
        rf_params_register(p, specs[i].name, specs[i].shape, RF_INIT_NORMAL, 0.1f, &st);
    rf_params_allocate(p, &st);
    if (st.failed) {
        fprintf(stderr, "make_store: %s\n", st.msg);
        exit(2);
    }
    return p;
}

/* Exactly representable values: parameter k, element i. */
static void fill_store(rf_params *p)
{
    for (int k = 0; k < p->count; k++) {
        const rf_param_entry *e = &p->entries[k];
        for (int64_t i = 0; i < e->numel; i++) {
            p->value[e->offset + i] = (float)k + 0.5f * (float)i;
            p->m[e->offset + i] = -0.25f * (float)i;
            p->v[e->offset + i] = 0.125f * (float)i + (float)k;
        }
    }
}

static bool same_store(const rf_params *a, const rf_params *b)
{
    if (a->count != b->count)
        return false;
    for (int k = 0; k < a->count; k++) {
        const rf_param_entry *e = &a->entries[k];
        size_t bytes = (size_t)e->numel * sizeof(float);
        if (memcmp(a->value + e->offset, b->value + e->offset, bytes) != 0 ||
            memcmp(a->m + e->offset, b->m + e->offset, bytes) != 0 ||
            memcmp(a->v + e->offset, b->v + e->offset, bytes) != 0)
            return false;
    }
    return true;
}

static void test_config(rf_config *cfg)
{
    rf_status st = {0};
    rf_config_defaults(cfg);
    rf_config_set(cfg, "model.dim", "48", &st);
    rf_config_set(cfg, "train.lr", "0.00125", &st);
    rf_config_set(cfg, "data.task", "random", &st);
    rf_config_set(cfg, "train.seed", "18446744073709551615", &st);
    if (st.failed) {
        fprintf(stderr, "test_config: %s\n", st.msg);
        exit(2);
    }
}

static void test_checkpoint_round_trip(void)
{
    rf_config cfg;
    test_config(&cfg);
    rf_params *p = make_store(base_specs, N_BASE, 1);
    fill_store(p);
    char path[PATH_SIZE];
    make_path(path, "ckpt.safetensors");
    rf_status st = {0};
    tap_ok(rf_checkpoint_save(path, &cfg, p, 1234, &st), "checkpoint save (%s)", st.msg);

    rf_params *q = make_store(base_specs, N_BASE, 99);
    tap_ok(!same_store(p, q), "a fresh store starts different");
    int64_t step = -1;
    rf_alloc_reset_peak();
    size_t live = rf_alloc_live_bytes();
    tap_ok(rf_checkpoint_load(path, q, &step, &st), "checkpoint load (%s)", st.msg);
    tap_ok(rf_alloc_peak_bytes() == live, "loading takes nothing from the engine's allocator (peak %zu, live %zu "
           "bytes): the file is read a tensor at a time", rf_alloc_peak_bytes(), live);
    tap_ok(same_store(p, q), "values and both moments are byte-identical after load");
    tap_ok(step == 1234, "step restored (%lld)", (long long)step);

    rf_config back;
    step = -1;
    tap_ok(rf_checkpoint_read_config(path, &back, &step, &st), "read_config (%s)", st.msg);
    char *a = rf_config_to_json(&cfg), *b = rf_config_to_json(&back);
    tap_ok(a && b && strcmp(a, b) == 0 && back.model.dim == 48 && back.train.seed == UINT64_MAX,
           "read_config returns the saved config");
    tap_ok(step == 1234, "read_config returns the step");
    free(a);
    free(b);

    rf_safetensors *f = rf_safetensors_read(path, &st);
    bool layout = f && rf_safetensors_count(f) == 3 * N_BASE;
    for (int i = 0; layout && i < N_BASE; i++)
        layout = strcmp(rf_safetensors_tensor(f, i)->name, base_specs[i].name) == 0;
    layout = layout && rf_safetensors_find(f, "optimizer.m.scale") && rf_safetensors_find(f, "optimizer.v.scale");
    const char *fmt = f ? rf_safetensors_meta(f, "format") : NULL, *opt = f ? rf_safetensors_meta(f, "optimizer") : NULL;
    tap_ok(layout && fmt && strcmp(fmt, "rangefinder-checkpoint") == 0 && opt && strcmp(opt, "adamw") == 0,
           "file layout: parameters in registration order, optimizer.m./v. moments, metadata");
    rf_safetensors_free(f);
    rf_params_free(p);
    rf_params_free(q);
}

/* A file with the store's tensors (and optionally its moments) and the given metadata. */
static void write_store_file(const char *path, const rf_params *p, bool moments, const rf_st_meta *meta,
                             int n_meta)
{
    rf_st_tensor t[3 * 16];
    int n = 0;
    const char *prefix[3] = {"", "optimizer.m.", "optimizer.v."};
    const float *block[3] = {p->value, p->m, p->v};
    for (int kind = 0; kind < (moments ? 3 : 1); kind++) {
        for (int k = 0; k < p->count; k++, n++) {
            const rf_param_entry *e = &p->entries[k];
            snprintf(t[n].name, RF_NAME_LEN, "%s%s", prefix[kind], e->name);
            t[n].ndim = e->shape.ndim;
            memcpy(t[n].shape, e->shape.dim, sizeof t[n].shape);
            t[n].data = block[kind] + e->offset;
        }
    }
    rf_status st = {0};
    if (!rf_safetensors_write(path, t, n, meta, n_meta, &st)) {
        fprintf(stderr, "write_store_file: %s\n", st.msg);
        exit(2);
    }
}

/* Load `path` into a filled base store; it must fail naming `expect` and change nothing. */
static void expect_load_rejected(const char *path, const char *expect, const char *label)
{
    rf_params *p = make_store(base_specs, N_BASE, 7);
    size_t bytes = rf_params_bytes(p);
    float *snap[3] = {malloc(bytes), malloc(bytes), malloc(bytes)};
    memcpy(snap[0], p->value, bytes);
    memcpy(snap[1], p->m, bytes);
    memcpy(snap[2], p->v, bytes);
    rf_status st = {0};
    int64_t step = -7;
    tap_ok(!rf_checkpoint_load(path, p, &step, &st), "%s: load fails", label);
    check_error(&st, path, expect, label);
    tap_ok(step == -7 && memcmp(snap[0], p->value, bytes) == 0 && memcmp(snap[1], p->m, bytes) == 0 &&
               memcmp(snap[2], p->v, bytes) == 0, "%s: store and step unchanged", label);
    for (int i = 0; i < 3; i++)
        free(snap[i]);
    rf_params_free(p);
}

static void test_checkpoint_rejects(void)
{
    rf_config cfg;
    test_config(&cfg);
    char path[PATH_SIZE];
    rf_status st = {0};

    param_spec specs[N_BASE + 1];
    memcpy(specs, base_specs, sizeof base_specs);
    specs[N_BASE] = (param_spec){"extra.w", {2, {2, 2, 1, 1}}};
    rf_params *extra = make_store(specs, N_BASE + 1, 3);
    make_path(path, "extra.safetensors");
    rf_checkpoint_save(path, &cfg, extra, 5, &st);
    expect_load_rejected(path, "tensor 'extra.w' is not a parameter", "extra tensor");
    rf_params_free(extra);

    /* base_specs without head.bias */
    memcpy(specs, base_specs, sizeof base_specs);
    specs[3] = specs[4];
    rf_params *missing = make_store(specs, N_BASE - 1, 3);
    make_path(path, "missing.safetensors");
    rf_checkpoint_save(path, &cfg, missing, 5, &st);
    expect_load_rejected(path, "tensor 'head.bias' is missing", "missing tensor");

    memcpy(specs, base_specs, sizeof base_specs);
    specs[1].shape = (rf_shape){2, {4, 8, 1, 1}};
    rf_params *wide = make_store(specs, N_BASE, 3);
    make_path(path, "shape.safetensors");
    rf_checkpoint_save(path, &cfg, wide, 5, &st);
    expect_load_rejected(path, "tensor 'layer0.attn.wq' has shape [4, 8], the model expects [4, 4]",
                         "shape mismatch");
    rf_params_free(wide);

    rf_params *base = make_store(base_specs, N_BASE, 3);
    char *config = rf_config_to_json(&cfg);
    rf_st_meta meta[] = {{"format", "rangefinder-checkpoint"}, {"version", "1"}, {"config", config},
                         {"step", "5"}, {"optimizer", "adamw"}};
    make_path(path, "no_moments.safetensors");
    write_store_file(path, base, false, meta, 5);
    expect_load_rejected(path, "tensor 'optimizer.m.embed.weight' is missing", "missing moments");

    make_path(path, "format.safetensors");
    meta[0].value = "something-else";
    write_store_file(path, base, true, meta, 5);
    expect_load_rejected(path, "metadata format is 'something-else'", "wrong format");
    rf_config back;
    int64_t step = -7;
    tap_ok(!rf_checkpoint_read_config(path, &back, &step, &st), "wrong format: read_config fails");
    check_error(&st, path, "not a Rangefinder checkpoint", "wrong format (read_config)");

    make_path(path, "plain.safetensors");
    write_store_file(path, base, true, NULL, 0);
    expect_load_rejected(path, "no \"format\"", "plain safetensors file");

    make_path(path, "version.safetensors");
    meta[0].value = "rangefinder-checkpoint";
    meta[1].value = "2";
    write_store_file(path, base, true, meta, 5);
    expect_load_rejected(path, "version '2' is not supported", "future version");

    const char *bad_steps[] = {"-3", "12x", "", "99999999999999999999"};
    meta[1].value = "1";
    for (int i = 0; i < 4; i++) {
        meta[3].value = bad_steps[i];
        make_path(path, "step.safetensors");
        write_store_file(path, base, true, meta, 5);
        rf_status_clear(&st);
        tap_ok(!rf_checkpoint_read_config(path, &back, &step, &st), "step '%s': read_config fails", bad_steps[i]);
        check_error(&st, path, "is not a non-negative integer", "bad step");
    }

    meta[3].value = "5";
    meta[2].value = "{\"model.bogus\": \"1\"}";
    make_path(path, "config.safetensors");
    write_store_file(path, base, true, meta, 5);
    rf_status_clear(&st);
    tap_ok(!rf_checkpoint_read_config(path, &back, &step, &st), "unknown config key: read_config fails");
    check_error(&st, path, "model.bogus", "unknown config key");
    tap_ok(step == -7, "failed read_config leaves step alone");

    meta[2].value = config;
    rf_status_clear(&st);
    rf_params *unallocated = rf_params_new(1);
    tap_ok(!rf_checkpoint_save(path, &cfg, unallocated, 1, &st), "saving an unallocated store fails (%s)", st.msg);
    rf_params_free(unallocated);

    free(config);
    rf_params_free(base);
    rf_params_free(missing);
}

/* Warnings caught instead of printed. */
typedef struct caught {
    int count;
    char last[RF_STATUS_MSG];
} caught;

static void catch_warning(const char *msg, void *ctx)
{
    caught *c = ctx;
    c->count++;
    snprintf(c->last, sizeof c->last, "%s", msg);
}

/* The crc32 in the metadata, the checks on load: a damaged file is refused,
 * one without a checksum loads with a warning, non-finite values are refused. */
static void test_checkpoint_integrity(void)
{
    rf_config cfg;
    test_config(&cfg);
    rf_params *p = make_store(base_specs, N_BASE, 1);
    fill_store(p);
    char path[PATH_SIZE];
    make_path(path, "crc.safetensors");
    rf_status st = {0};
    rf_checkpoint_save(path, &cfg, p, 7, &st);

    /* zlib over the raw bytes after the header, independently of the reader */
    size_t size = 0;
    unsigned char *bytes = read_bytes(path, &size);
    uint64_t n = le64(bytes);
    char want[16];
    snprintf(want, sizeof want, "%08lx", crc32(crc32(0, Z_NULL, 0), bytes + 8 + n, (uInt)(size - 8 - n)));
    rf_safetensors *f = rf_safetensors_read(path, &st);
    const char *crc = f ? rf_safetensors_meta(f, "crc32") : NULL;
    tap_ok(crc != NULL && strcmp(crc, want) == 0, "metadata crc32 '%s' is zlib's CRC-32 of the data section (%s)",
           crc ? crc : "(missing)", want);
    rf_safetensors_free(f);

    caught warnings = {0};
    rf_set_warn_handler(catch_warning, &warnings);
    rf_params *q = make_store(base_specs, N_BASE, 2);
    int64_t step = 0;
    tap_ok(rf_checkpoint_load(path, q, &step, &st) && warnings.count == 0, "a checkpoint with its crc32 loads "
           "without a warning (%s)", st.msg);

    bytes[8 + n + 13] ^= 0x10;   /* one bit of embed.weight */
    make_path(path, "damaged.safetensors");
    write_bytes(path, bytes, size);
    expect_load_rejected(path, "checksum mismatch", "one flipped bit");
    free(bytes);

    char *config = rf_config_to_json(&cfg);
    rf_st_meta meta[] = {{"format", "rangefinder-checkpoint"}, {"version", "1"}, {"config", config},
                         {"step", "5"}, {"optimizer", "adamw"}};
    make_path(path, "no_crc.safetensors");
    write_store_file(path, p, true, meta, 5);
    rf_status_clear(&st);
    bool loaded = rf_checkpoint_load(path, q, &step, &st);
    tap_ok(loaded && same_store(p, q) && step == 5, "a checkpoint without crc32 (as PyTorch users write) loads "
           "(%s)", st.msg);
    tap_ok(warnings.count == 1 && strncmp(warnings.last, path, strlen(path)) == 0 &&
               strstr(warnings.last, "no \"crc32\"") != NULL, "with one warning naming the file: %s", warnings.last);
    rf_set_warn_handler(NULL, NULL);
    free(config);

    p->value[p->entries[1].offset + 5] = NAN;
    make_path(path, "nan.safetensors");
    rf_checkpoint_save(path, &cfg, p, 7, &st);
    expect_load_rejected(path, "tensor 'layer0.attn.wq' holds a non-finite value (nan at element 5)", "NaN weight");
    fill_store(p);
    p->v[p->entries[3].offset + 2] = -INFINITY;
    make_path(path, "inf.safetensors");
    rf_checkpoint_save(path, &cfg, p, 7, &st);
    expect_load_rejected(path, "tensor 'optimizer.v.head.bias' holds a non-finite value (-inf at element 2)",
                         "infinite moment");
    rf_params_free(p);
    rf_params_free(q);
}

/* ------------------------------------------------------------ helper modes */

static int write_fixture(const char *dir)
{
    char path[PATH_SIZE];
    rf_st_tensor t[N_FIXTURE];
    rf_st_meta meta[2];
    fixture(t, meta);
    rf_status st = {0};
    snprintf(path, sizeof path, "%s/tensors.safetensors", dir);
    bool ok = rf_safetensors_write(path, t, N_FIXTURE, meta, 2, &st);

    rf_config cfg;
    test_config(&cfg);
    rf_params *p = make_store(base_specs, N_BASE, 1);
    fill_store(p);
    snprintf(path, sizeof path, "%s/checkpoint.safetensors", dir);
    ok = ok && rf_checkpoint_save(path, &cfg, p, 1234, &st);
    rf_params_free(p);
    if (!ok)
        fprintf(stderr, "%s\n", st.msg);
    return ok ? 0 : 1;
}

/* {"tensors": [{"name", "shape", "data"}], "metadata": {...}} on stdout. */
static int dump(const char *path)
{
    rf_status st = {0};
    rf_safetensors *f = rf_safetensors_read(path, &st);
    if (f == NULL) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    json_t *tensors = json_array();
    for (int i = 0; i < rf_safetensors_count(f); i++) {
        const rf_st_tensor *t = rf_safetensors_tensor(f, i);
        json_t *shape = json_array(), *data = json_array();
        for (int d = 0; d < t->ndim; d++)
            json_array_append_new(shape, json_integer(t->shape[d]));
        for (int64_t j = 0; j < numel_of(t); j++)
            json_array_append_new(data, json_real(t->data[j]));
        json_array_append_new(tensors, json_pack("{s:s, s:o, s:o}", "name", t->name, "shape", shape, "data", data));
    }
    json_t *meta = json_object();
    const char *keys[] = {"format", "note"};
    for (int i = 0; i < 2; i++)
        if (rf_safetensors_meta(f, keys[i]) != NULL)
            json_object_set_new(meta, keys[i], json_string(rf_safetensors_meta(f, keys[i])));
    json_t *root = json_pack("{s:o, s:o}", "tensors", tensors, "metadata", meta);
    /* 9 significant digits read back to the same float */
    json_dumpf(root, stdout, JSON_REAL_PRECISION(9));
    printf("\n");
    json_decref(root);
    rf_safetensors_free(f);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-fixture") == 0)
        return write_fixture(argv[2]);
    if (argc == 3 && strcmp(argv[1], "--dump") == 0)
        return dump(argv[2]);
    if (mkdtemp(test_dir) == NULL) {
        perror("mkdtemp");
        return 2;
    }
    test_round_trip();
    test_open_lazily();
    test_file_format();
    test_atomic();
    test_corrupt_files();
    test_checkpoint_round_trip();
    test_checkpoint_rejects();
    test_checkpoint_integrity();
    remove_test_dir();
    return tap_done();
}
