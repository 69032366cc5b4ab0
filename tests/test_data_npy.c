/* NumPy arrays (datasets/npy_read.c, datasets/npy_task.c): every dtype in
 * both byte orders and both layouts against known values, format versions
 * 1.0 to 3.0, each header field refused with a message naming the file and
 * the field, the data set's tokens, features, labels, splits and
 * featurise hook, and bad contents (shape mismatches, negative or
 * fractional ids, NaN features). The fixtures are written here, header
 * bytes and all, so the test needs nothing but the C library. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../datasets/datasets.h"
#include "../datasets/npy_read.h"
#include "../datasets/npy_task.h"
#include "tap.h"

static char *tmp_root;

/* ---- writing .npy files ---- */

/* magic, version, header length (2 or 4 bytes), the header padded with
 * spaces and '\n' to a multiple of 64, then `n` data bytes. */
static GByteArray *npy_bytes(int major, const char *dict, const void *data, size_t n)
{
    GByteArray *b = g_byte_array_new();
    size_t field = major == 1 ? 2 : 4, start = 8 + field, len = strlen(dict) + 1;
    size_t total = (start + len + 63) / 64 * 64, hlen = total - start;
    uint8_t head[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', (uint8_t)major, 0,
                        (uint8_t)hlen, (uint8_t)(hlen >> 8), 0, 0};
    g_byte_array_append(b, head, (guint)start);
    g_byte_array_append(b, (const uint8_t *)dict, (guint)strlen(dict));
    for (size_t i = strlen(dict); i + 1 < hlen; i++)
        g_byte_array_append(b, (const uint8_t *)" ", 1);
    g_byte_array_append(b, (const uint8_t *)"\n", 1);
    g_byte_array_append(b, data, (guint)n);
    return b;
}

static char *write_bytes(const char *dir, const char *name, const GByteArray *b)
{
    char *path = g_build_filename(dir, name, NULL);
    g_file_set_contents(path, (const char *)b->data, b->len, NULL);
    return path;
}

static char *make_dir(const char *name)
{
    char *dir = g_build_filename(tmp_root, name, NULL);
    g_mkdir_with_parents(dir, 0700);
    return dir;
}

typedef struct dtype {
    const char *code;   /* without the byte order */
    int item;
    bool is_float;
} dtype;

static const dtype dtypes[] = {
    {"i1", 1, false}, {"u1", 1, false}, {"i2", 2, false}, {"i4", 4, false},
    {"i8", 8, false}, {"f4", 4, true},  {"f8", 8, true},
};

/* Value v as `t` in the given byte order into out. */
static void encode(const dtype *t, bool big, double v, uint8_t *out)
{
    uint8_t b[8];
    if (t->is_float && t->item == 4) {
        float f = (float)v;
        memcpy(b, &f, 4);
    } else if (t->is_float) {
        memcpy(b, &v, 8);
    } else {
        int64_t i = (int64_t)v;
        memcpy(b, &i, 8);   /* little-endian machine: the low bytes first */
    }
    for (int k = 0; k < t->item; k++)
        out[k] = b[big ? t->item - 1 - k : k];
}

/* The data bytes of `count` values val(i) (i in C order) over `shape`, laid
 * out in C or Fortran order. */
static uint8_t *layout(const dtype *t, bool big, bool fortran, int ndim, const int64_t *shape,
                       double (*val)(int64_t), size_t *n)
{
    int64_t count = 1;
    for (int d = 0; d < ndim; d++)
        count *= shape[d];
    uint8_t *data = g_malloc0((size_t)count * t->item + 1);
    for (int64_t i = 0; i < count; i++) {
        int64_t rest = i, coord[8], off = 0, stride = 1;
        for (int d = ndim - 1; d >= 0; d--) {
            coord[d] = rest % shape[d];
            rest /= shape[d];
        }
        if (fortran)
            for (int d = 0; d < ndim; d++) {
                off += coord[d] * stride;
                stride *= shape[d];
            }
        else
            off = i;
        encode(t, big, val(i), data + off * t->item);
    }
    *n = (size_t)count * t->item;
    return data;
}

static char *dict_for(const char *descr, bool fortran, const char *shape)
{
    return g_strdup_printf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr,
                           fortran ? "True" : "False", shape);
}

/* An array file with val(i) in any dtype, order and layout. */
static char *write_array(const char *dir, const char *name, const char *descr, bool fortran, int ndim,
                         const int64_t *shape, double (*val)(int64_t))
{
    const dtype *t = NULL;
    for (size_t k = 0; k < G_N_ELEMENTS(dtypes); k++)
        if (strcmp(descr + 1, dtypes[k].code) == 0)
            t = &dtypes[k];
    GString *s = g_string_new("(");
    for (int d = 0; d < ndim; d++)
        g_string_append_printf(s, "%s%lld", d ? ", " : "", (long long)shape[d]);
    g_string_append(s, ndim == 1 ? ",)" : ")");
    size_t n;
    uint8_t *data = layout(t, descr[0] == '>', fortran, ndim, shape, val, &n);
    char *dict = dict_for(descr, fortran, s->str);
    GByteArray *b = npy_bytes(1, dict, data, n);
    char *path = write_bytes(dir, name, b);
    g_byte_array_unref(b);
    g_free(dict);
    g_free(data);
    g_string_free(s, TRUE);
    return path;
}

/* ---- the reader ---- */

/* Fits every dtype: -100 .. 100, with halves for floats only in val_half. */
static double val_small(int64_t i)
{
    return (double)((i * 37) % 201 - 100);
}

static double val_unsigned(int64_t i)
{
    return (double)((i * 37) % 256);
}

static double val_half(int64_t i)
{
    return val_small(i) + 0.5;
}

static void test_dtypes(void)
{
    char *dir = make_dir("dtypes");
    const int64_t shape[3] = {3, 4, 2};
    for (size_t k = 0; k < G_N_ELEMENTS(dtypes); k++)
        for (int big = 0; big < 2; big++)
            for (int fortran = 0; fortran < 2; fortran++) {
                const dtype *t = &dtypes[k];
                char descr[8];
                snprintf(descr, sizeof descr, "%c%s", t->item == 1 && big ? '|' : big ? '>' : '<', t->code);
                double (*val)(int64_t) = strcmp(t->code, "u1") == 0 ? val_unsigned : t->is_float ? val_half
                                                                                                 : val_small;
                char *path = write_array(dir, "a.npy", descr, fortran, 3, shape, val);
                rf_npy_array a;
                rf_status st = {0};
                bool ok = rf_npy_open(path, &a, &st);
                int64_t bad = -1;
                for (int64_t i = 0; ok && i < 24 && bad < 0; i++)
                    if (rf_npy_value(&a, i) != val(i))
                        bad = i;
                tap_ok(ok && bad < 0 && a.count == 24 && a.ndim == 3 && a.fortran == (fortran != 0),
                       "%s %s order: 3x4x2 values as written (%s%s%lld)", descr, fortran ? "Fortran" : "C", st.msg,
                       bad >= 0 ? " first wrong at " : "", (long long)bad);
                if (ok)
                    rf_npy_close(&a);
                g_free(path);
            }
    /* versions 2.0 and 3.0: a 4-byte header length */
    for (int major = 2; major <= 3; major++) {
        int8_t data[6] = {1, -2, 3, -4, 5, -6};
        GByteArray *b = npy_bytes(major, "{'shape': (2, 3), 'fortran_order': False, 'descr': '|i1'}", data, 6);
        char *path = write_bytes(dir, "v.npy", b);
        rf_npy_array a;
        rf_status st = {0};
        bool ok = rf_npy_open(path, &a, &st);
        tap_ok(ok && a.count == 6 && rf_npy_value(&a, 3) == -4 && rf_npy_value(&a, 5) == -6,
               "version %d.0, keys in another order, no trailing comma: read (%s)", major, st.msg);
        if (ok)
            rf_npy_close(&a);
        g_byte_array_unref(b);
        g_free(path);
    }
    g_free(dir);
}

/* The file must be refused with a message holding the file name and `field`. */
static void expect_refused(const char *dir, const char *what, const GByteArray *b, const char *field)
{
    char *path = write_bytes(dir, "bad.npy", b);
    rf_npy_array a;
    rf_status st = {0};
    bool ok = rf_npy_open(path, &a, &st);
    tap_ok(!ok && strstr(st.msg, path) != NULL && strstr(st.msg, field) != NULL, "%s -> refused: %s", what,
           st.msg);
    if (ok)
        rf_npy_close(&a);
    g_free(path);
}

static void test_header_faults(void)
{
    char *dir = make_dir("faults");
    float data[6] = {0};
    const char *good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    static const struct {
        const char *what, *dict, *field;
    } dicts[] = {
        {"a dtype outside the list (complex)", "{'descr': '<c8', 'fortran_order': False, 'shape': (2, 3), }", "descr"},
        {"a structured dtype", "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2, 3), }", "descr"},
        {"no byte order on a 4-byte type", "{'descr': '|f4', 'fortran_order': False, 'shape': (2, 3), }", "descr"},
        {"fortran_order not a bool", "{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3), }", "fortran_order"},
        {"a negative dimension", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }", "shape"},
        {"a shape that is a list", "{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3], }", "shape"},
        {"(6) without its comma", "{'descr': '<f4', 'fortran_order': False, 'shape': (6), }", "shape"},
        {"a dimension past 16 GiB", "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }",
         "shape"},
        {"dimensions multiplying past 16 GiB",
         "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", "shape"},
        {"shape missing", "{'descr': '<f4', 'fortran_order': False, }", "shape"},
        {"descr given twice", "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", "descr"},
        {"an unknown key", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}", "header"},
        {"not a dict", "('<f4', False, (2, 3))", "header"},
        {"an unterminated string", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'a", "unterminated"},
        {"text after the dict", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } x", "header"},
        {"a non-ASCII byte", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), '\xc3\xa9': 1}", "header"},
        {"the shape holds more data than the file", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }",
         "data"},
        {"the shape holds less data than the file", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
         "data"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(dicts); i++) {
        GByteArray *b = npy_bytes(1, dicts[i].dict, data, sizeof data);
        expect_refused(dir, dicts[i].what, b, dicts[i].field);
        g_byte_array_unref(b);
    }
    GByteArray *b = npy_bytes(1, good, data, sizeof data);
    b->data[0] = 'X';
    expect_refused(dir, "bad magic", b, "magic");
    b->data[0] = 0x93;
    b->data[6] = 4;
    expect_refused(dir, "version 4.0", b, "version");
    b->data[6] = 1;
    b->data[7] = 1;
    expect_refused(dir, "version 1.1", b, "version");
    b->data[7] = 0;
    uint8_t saved = b->data[8];
    b->data[8] = (uint8_t)(saved + 16);   /* longer than it is: the data's bytes read as header */
    expect_refused(dir, "a header length 16 bytes too long", b, "header");
    b->data[8] = (uint8_t)(saved - 20);   /* shorter: the data starts inside the padding */
    expect_refused(dir, "a header length 20 bytes too short", b, "data");
    b->data[8] = (uint8_t)(saved - 90);   /* the dict is cut */
    expect_refused(dir, "a header length that cuts the dict", b, "header");
    b->data[8] = 0xff;
    b->data[9] = 0xff;
    expect_refused(dir, "a header length past the end of the file", b, "header length");
    b->data[8] = saved;
    b->data[9] = 0;
    g_byte_array_set_size(b, b->len - 5);
    expect_refused(dir, "truncated data", b, "truncated");
    g_byte_array_set_size(b, 9);
    expect_refused(dir, "cut inside the header length", b, "header length");
    g_byte_array_unref(b);
    b = g_byte_array_new();
    expect_refused(dir, "an empty file", b, "magic");
    g_byte_array_unref(b);
    rf_npy_array a;
    rf_status st = {0};
    char *missing = g_build_filename(dir, "missing.npy", NULL);
    tap_ok(!rf_npy_open(missing, &a, &st) && strstr(st.msg, "missing.npy: no such file") != NULL,
           "a missing file -> %s", st.msg);
    g_free(missing);
    g_free(dir);
}

/* ---- the data set ---- */

static rf_config config_for(const char *path)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.data.task, "npy");
    snprintf(cfg.data.path, sizeof cfg.data.path, "%s", path);
    cfg.data.val_size = 3;
    cfg.data.test_size = 3;
    return cfg;
}

static void expect_error(const char *dir, const char *what, const char *file, const char *piece)
{
    rf_config cfg = config_for(dir);
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    tap_ok(ds == NULL && strstr(st.msg, file) != NULL && strstr(st.msg, piece) != NULL, "%s -> error: %s", what,
           st.msg);
    rf_dataset_free(ds);
}

#define ROWS 12
#define LEN 6

/* Token ids: row r holds r % 5 + 1 ids 1..9, padded with zeros after
 * them, or before them (as Keras pads) when r % 4 == 3. */
static int first_id(int64_t r)
{
    return r % 4 == 3 ? LEN - (int)(r % 5 + 1) : 0;
}

static double token(int64_t i)
{
    int64_t r = i / LEN, t = i % LEN - first_id(r);
    return t >= 0 && t <= r % 5 ? (double)((r + t) % 9 + 1) : 0.0;
}

static double label_of(int64_t r)
{
    return (double)(r % 3);
}

static double feature(int64_t i)
{
    return sin((double)i) * 10.0;
}

/* The file row of a sample, from describe ("x.npy row 7"). */
static int64_t row_of(const rf_dataset *ds, rf_split s, int64_t i, char *file, size_t size)
{
    char text[128];
    long long row = -1;
    if (!ds->describe(ds, s, i, text, sizeof text) || sscanf(text, "%63s row %lld", file, &row) != 2)
        return -1;
    (void)size;
    return row;
}

static void test_tokens(void)
{
    char *dir = make_dir("tokens");
    const int64_t xs[2] = {ROWS, LEN}, ys[1] = {ROWS};
    g_free(write_array(dir, "x.npy", ">i2", true, 2, xs, token));
    g_free(write_array(dir, "y.npy", "<i8", false, 1, ys, label_of));
    rf_config cfg = config_for(dir);
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    if (!tap_ok(ds != NULL, "tokens N x L (>i2, Fortran order) open (%s)", st.msg)) {
        g_free(dir);
        return;
    }
    tap_ok(ds->feat_dim == 0 && ds->vocab == 10 && ds->classes == 3 && ds->seq_len == LEN,
           "token ids: vocab = largest id + 1 = 10, 3 classes, seq_len 6 (got %d, %d, %d)", ds->vocab, ds->classes,
           ds->seq_len);
    tap_ok(ds->size[0] == ROWS - 6 && ds->size[1] == 3 && ds->size[2] == 3, "splits 6/3/3 (%lld/%lld/%lld)",
           (long long)ds->size[0], (long long)ds->size[1], (long long)ds->size[2]);
    GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    bool values = true, unique = true;
    float x[LEN];
    for (int s = 0; s < RF_SPLIT_COUNT; s++)
        for (int64_t i = 0; i < ds->size[s]; i++) {
            char file[64];
            int64_t r = row_of(ds, (rf_split)s, i, file, sizeof file);
            int len = 0, label = -1;
            memset(x, 0, sizeof x);
            values = values && r >= 0 && ds->get(ds, (rf_split)s, i, x, &len, &label, &st) &&
                     len == r % 5 + 1 && label == label_of(r);
            for (int t = 0; values && t < len; t++)
                values = x[t] == token(r * LEN + first_id(r) + t);
            unique = unique && g_hash_table_add(seen, GINT_TO_POINTER(r + 1));
        }
    tap_ok(values, "every sample: the row's ids without the padding before or after them, its label");
    tap_ok(unique && g_hash_table_size(seen) == ROWS, "the splits are disjoint and cover every row");
    g_hash_table_destroy(seen);

    /* the same seed, the same split; another seed, another */
    rf_dataset *again = rf_dataset_open(&cfg, &st);
    cfg.train.seed = 99;
    rf_dataset *other = rf_dataset_open(&cfg, &st);
    bool same = again != NULL, differs = false;
    for (int64_t i = 0; again != NULL && other != NULL && i < ds->size[0]; i++) {
        char f[64];
        same = same && row_of(ds, 0, i, f, 64) == row_of(again, 0, i, f, 64);
        differs = differs || row_of(ds, 0, i, f, 64) != row_of(other, 0, i, f, 64);
    }
    tap_ok(same && differs, "the split is seeded by train.seed (same seed same rows, seed 99 others)");
    rf_dataset_free(again);
    rf_dataset_free(other);

    /* featurise: one (L,) file */
    const int64_t one[1] = {4};
    char *input = write_array(dir, "input.npy", "<i4", false, 1, one, token);
    float fx[LEN] = {0};
    int len = 0;
    bool ok = ds->featurise(ds, input, NULL, fx, &len, &st);
    tap_ok(ok && len == 1 && fx[0] == 1.0f, "featurise: a (4,) int32 file of ids 1, 0, 0, 0 -> length 1 (%s)",
           st.msg);
    g_free(input);
    const int64_t wide[2] = {2, 2};
    input = write_array(dir, "input2.npy", "<i4", false, 2, wide, token);
    rf_status_clear(&st);
    tap_ok(!ds->featurise(ds, input, NULL, fx, &len, &st) && strstr(st.msg, "input2.npy: shape: (2, 2)") != NULL,
           "featurise: a (2, 2) file for a token data set -> %s", st.msg);
    g_free(input);
    rf_status_clear(&st);
    tap_ok(!ds->featurise(ds, NULL, "hello", fx, &len, &st) && strstr(st.msg, ".npy") != NULL,
           "featurise: text -> %s", st.msg);
    rf_dataset_free(ds);

    /* data.max_len cuts the rows, with a warning */
    cfg = config_for(dir);
    cfg.data.max_len = 3;
    rf_status_clear(&st);
    ds = rf_dataset_open(&cfg, &st);
    tap_ok(ds != NULL && ds->seq_len == 3 && st.warnings == 1 && strstr(st.warning_lines, "max_len") != NULL,
           "data.max_len = 3 cuts rows of 6 to 3, one warning (%lld)", st.warnings);
    rf_dataset_free(ds);
    g_free(dir);
}

static void test_features(void)
{
    char *dir = make_dir("features");
    const int64_t xs[3] = {ROWS, LEN, 3}, ys[1] = {ROWS}, tests[3] = {4, LEN, 3}, yt[1] = {4};
    g_free(write_array(dir, "x.npy", ">f8", true, 3, xs, feature));
    g_free(write_array(dir, "y.npy", "|u1", false, 1, ys, label_of));
    g_free(write_array(dir, "x_test.npy", "<f4", false, 3, tests, feature));
    g_free(write_array(dir, "y_test.npy", "<i4", false, 1, yt, label_of));
    rf_config cfg = config_for(dir);
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    if (!tap_ok(ds != NULL, "features N x L x C (>f8 Fortran) with x_test.npy/y_test.npy open (%s)", st.msg)) {
        g_free(dir);
        return;
    }
    tap_ok(ds->feat_dim == 3 && ds->seq_len == LEN && ds->size[2] == 4 && ds->size[1] == 3 && ds->size[0] == 9,
           "3 features a position; test = x_test.npy's 4 rows, val 3 of x.npy's 12 (%lld/%lld/%lld)",
           (long long)ds->size[0], (long long)ds->size[1], (long long)ds->size[2]);
    bool values = true;
    float x[LEN * 3];
    for (int s = 0; s < RF_SPLIT_COUNT; s++)
        for (int64_t i = 0; i < ds->size[s]; i++) {
            char file[64];
            int64_t r = row_of(ds, (rf_split)s, i, file, sizeof file);
            int len = 0, label = -1;
            values = values && r >= 0 && ds->get(ds, (rf_split)s, i, x, &len, &label, &st) && len == LEN &&
                     label == label_of(r) && (s == RF_SPLIT_TEST) == (strcmp(file, "x_test.npy") == 0);
            for (int k = 0; values && k < LEN * 3; k++)
                values = x[k] == (float)feature(r * LEN * 3 + k);
        }
    tap_ok(values, "every sample: the row's features (float64 and float32 files), its label, test from x_test.npy");
    const int64_t one[2] = {2, 3}, other[2] = {2, 4};
    char *input = write_array(dir, "in.npy", "<f8", true, 2, one, feature);
    float fx[LEN * 3] = {0};
    int len = 0;
    bool ok = ds->featurise(ds, input, NULL, fx, &len, &st);
    tap_ok(ok && len == 2 && fx[4] == (float)feature(4), "featurise: a (2, 3) file (Fortran order) -> 2 positions");
    g_free(input);
    input = write_array(dir, "in4.npy", "<f8", false, 2, other, feature);
    tap_ok(!ds->featurise(ds, input, NULL, fx, &len, &st) && strstr(st.msg, "in4.npy: shape") != NULL &&
               strstr(st.msg, "(L, 3)") != NULL,
           "featurise: 4 features for a 3-feature data set -> %s", st.msg);
    g_free(input);
    rf_dataset_free(ds);
    g_free(dir);
}

static double with_nan(int64_t i)
{
    return i == 7 ? NAN : feature(i);
}

static double negative_token(int64_t i)
{
    return i == 5 ? -3 : token(i);
}

static double fraction(int64_t i)
{
    return token(i) + (i == 2 ? 0.25 : 0);
}

static double all_zero(int64_t i)
{
    (void)i;
    return 0;
}

static double gap(int64_t i)
{
    return i == LEN * 4 + 1 ? 0 : i % LEN < 3 ? 1 + i % 3 : 0;   /* row 4: 1 0 3 0 0 0 */
}

static double empty_row(int64_t i)
{
    return i / LEN == 2 ? 0 : token(i);
}

static void test_contents(void)
{
    const int64_t xs[2] = {ROWS, LEN}, ys[1] = {ROWS}, short_y[1] = {ROWS - 1}, y2[2] = {ROWS, 1},
                  f3[3] = {ROWS, LEN, 2}, xt[2] = {4, LEN + 1};
    char *dir = make_dir("c_mismatch");
    g_free(write_array(dir, "x.npy", "<i4", false, 2, xs, token));
    g_free(write_array(dir, "y.npy", "<i4", false, 1, short_y, label_of));
    expect_error(dir, "11 labels for 12 rows", "y.npy: shape", "12 rows");
    g_free(write_array(dir, "y.npy", "<i4", false, 2, y2, label_of));
    expect_error(dir, "labels of shape (12, 1)", "y.npy: shape", "(N,)");
    g_free(write_array(dir, "y.npy", "<i4", false, 1, ys, all_zero));
    expect_error(dir, "every label 0", "y.npy", "two classes");
    g_free(write_array(dir, "y.npy", "<f4", false, 1, ys, val_half));
    expect_error(dir, "fractional labels", "y.npy: label [0]", "class number");
    g_free(write_array(dir, "y.npy", "<i4", false, 1, ys, label_of));
    g_free(write_array(dir, "x.npy", "<i4", false, 2, xs, negative_token));
    expect_error(dir, "a negative token id", "x.npy: value [0, 5]", "negative");
    g_free(write_array(dir, "x.npy", "<f4", false, 2, xs, fraction));
    expect_error(dir, "a token id of 0.25", "x.npy: value [0, 2]", "not an integer");
    g_free(write_array(dir, "x.npy", "<i4", false, 2, xs, gap));
    expect_error(dir, "padding between ids", "x.npy: value [4, 2]", "after padding");
    g_free(write_array(dir, "x.npy", "<i4", false, 2, xs, empty_row));
    expect_error(dir, "a row of padding only", "x.npy: value [2, 5]", "all padding");
    g_free(write_array(dir, "x.npy", "<f4", false, 3, f3, with_nan));
    expect_error(dir, "a NaN feature", "x.npy: value [0, 3, 1]", "finite");
    g_free(write_array(dir, "x.npy", "<i4", false, 1, ys, token));
    expect_error(dir, "1-D x", "x.npy: shape", "(N, L)");
    g_free(write_array(dir, "x.npy", "<i4", false, 2, xs, token));
    g_free(write_array(dir, "x_test.npy", "<i4", false, 2, xt, token));
    expect_error(dir, "x_test.npy without y_test.npy", "x_test.npy", "y_test.npy");
    const int64_t yt[1] = {4};
    g_free(write_array(dir, "y_test.npy", "<i4", false, 1, yt, label_of));
    expect_error(dir, "x_test.npy rows of 7 against x.npy's 6", "x_test.npy: shape", "(12, 6)");
    char *bad = g_build_filename(dir, "x.npy", NULL);
    g_file_set_contents(bad, "not numpy", -1, NULL);
    expect_error(dir, "x.npy not a .npy file", "x.npy: magic", "NUMPY");
    g_free(bad);
    g_free(dir);
    dir = make_dir("c_empty");
    expect_error(dir, "a folder without x.npy", "x.npy", "no such file");
    g_free(dir);
}

int main(void)
{
    tmp_root = g_dir_make_tmp("rf-npy-XXXXXX", NULL);
    if (!tap_ok(tmp_root != NULL, "temporary folder for the fixtures"))
        return tap_done();
    test_dtypes();
    test_header_faults();
    test_tokens();
    test_features();
    test_contents();
    char *cmd = g_strdup_printf("rm -rf '%s'", tmp_root);
    if (system(cmd) != 0)
        tap_diag("could not remove %s", tmp_root);
    g_free(cmd);
    g_free(tmp_root);
    return tap_done();
}
