/* File-backed data sets: Fashion-MNIST (generated IDX files, and the real
 * ones when installed), image folders (PNG/JPEG written with gdk-pixbuf),
 * UCR time series and LRA ListOps TSV files. Shapes, values, labels,
 * deterministic disjoint splits, patches against pixels, and a table of bad
 * inputs per loader, each of which must give a clear error (or a counted
 * skip), never a crash. */
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../datasets/datasets.h"
#include "../datasets/fashion_mnist.h"
#include "../datasets/image_folder.h"
#include "../datasets/listops.h"
#include "../datasets/lra_tsv.h"
#include "tap.h"

#define SIDE 28
#define PIXELS (SIDE * SIDE)

static char *tmp_root;

/* ---- fixture helpers ---- */

static char *fixture_path(const char *a, const char *b)
{
    return g_build_filename(tmp_root, a, b, NULL);
}

static char *make_dir(const char *name)
{
    char *dir = g_build_filename(tmp_root, name, NULL);
    g_mkdir_with_parents(dir, 0700);
    return dir;
}

static void remove_fixture(const char *a, const char *b)
{
    char *path = fixture_path(a, b);
    g_remove(path);
    g_free(path);
}

static void write_text(const char *dir, const char *name, const char *text)
{
    char *path = g_build_filename(dir, name, NULL);
    g_file_set_contents(path, text, -1, NULL);
    g_free(path);
}

static void write_gz(const char *dir, const char *name, const void *data, size_t n)
{
    char *path = g_build_filename(dir, name, NULL);
    gzFile f = gzopen(path, "wb");
    gzwrite(f, data, (unsigned)n);
    gzclose(f);
    g_free(path);
}

static void remove_tree(const char *path)
{
    if (g_file_test(path, G_FILE_TEST_IS_DIR) && !g_file_test(path, G_FILE_TEST_IS_SYMLINK)) {
        GDir *d = g_dir_open(path, 0, NULL);
        for (const char *name; d != NULL && (name = g_dir_read_name(d)) != NULL;) {
            char *child = g_build_filename(path, name, NULL);
            remove_tree(child);
            g_free(child);
        }
        if (d != NULL)
            g_dir_close(d);
    }
    g_remove(path);
}

static rf_config config_for(const char *task, const char *path)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.data.task, task);
    snprintf(cfg.data.path, sizeof cfg.data.path, "%s", path);
    return cfg;
}

static rf_dataset *open_ok(const rf_config *cfg, const char *what)
{
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(cfg, &st);
    tap_ok(ds != NULL, "%s opens%s%s", what, st.failed ? ": " : "", st.msg);
    return ds;
}

/* The open must fail with a message holding both pieces (the file, the problem). */
static void expect_error(const rf_config *cfg, const char *what, const char *piece1, const char *piece2)
{
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(cfg, &st);
    bool ok = ds == NULL && st.failed && strstr(st.msg, piece1) != NULL &&
              (piece2 == NULL || strstr(st.msg, piece2) != NULL);
    tap_ok(ok, "%s -> error: %s", what, st.msg);
    rf_dataset_free(ds);
}

static float *sample_buffer(const rf_dataset *ds)
{
    return calloc((size_t)ds->seq_len * (size_t)(ds->feat_dim > 0 ? ds->feat_dim : 1), sizeof(float));
}

/* Raw rasters of every sample are distinct storage: no sample in two splits. */
static bool splits_disjoint(const rf_dataset *ds)
{
    GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    bool ok = true;
    for (int s = 0; s < RF_SPLIT_COUNT; s++)
        for (int64_t i = 0; i < ds->size[s]; i++) {
            int h, w, c;
            const uint8_t *p = rf_image_pixels(ds, (rf_split)s, i, &h, &w, &c);
            ok = ok && p != NULL && g_hash_table_add(seen, (gpointer)p);
        }
    g_hash_table_destroy(seen);
    return ok;
}

/* Patch tokens hold the same values as pixel tokens, rearranged (raster
 * patches, raster pixels inside, channels interleaved). */
static bool patches_match_pixels(const rf_dataset *pix, const rf_dataset *pat, int side, int p, int channels)
{
    float *a = sample_buffer(pix), *b = sample_buffer(pat);
    bool ok = pix->size[RF_SPLIT_TRAIN] == pat->size[RF_SPLIT_TRAIN];
    for (int s = 0; ok && s < RF_SPLIT_COUNT; s++)
        for (int64_t i = 0; ok && i < pix->size[s]; i++) {
            int la, lb, ya, yb;
            ok = pix->get(pix, (rf_split)s, i, a, &la, &ya, NULL) && pat->get(pat, (rf_split)s, i, b, &lb, &yb, NULL) &&
                 ya == yb && la == side * side && lb == (side / p) * (side / p);
            int g = side / p;
            for (int t = 0; ok && t < lb; t++)
                for (int dy = 0; dy < p; dy++)
                    for (int dx = 0; dx < p; dx++)
                        for (int c = 0; c < channels; c++) {
                            int y = (t / g) * p + dy, x = (t % g) * p + dx;
                            ok = ok && b[(size_t)t * p * p * channels + (dy * p + dx) * channels + c] ==
                                           a[(size_t)(y * side + x) * channels + c];
                        }
        }
    free(a);
    free(b);
    return ok;
}

/* ---- Fashion-MNIST from generated IDX files ---- */

static uint8_t fm_pixel(int64_t i, int y, int x)
{
    return (uint8_t)((i * 7 + y * 28 + x * 3) & 255);
}

/* An IDX ubyte file: magic, sizes, then the data. */
static size_t idx_bytes(uint8_t *buf, int ndim, const uint32_t *dims, const uint8_t *data, size_t n)
{
    size_t at = 0;
    uint32_t words[4] = {0x800u | (uint32_t)ndim, dims[0], ndim > 1 ? dims[1] : 0, ndim > 2 ? dims[2] : 0};
    for (int w = 0; w <= ndim; w++)
        for (int k = 3; k >= 0; k--)
            buf[at++] = (uint8_t)(words[w] >> (8 * k));
    memcpy(buf + at, data, n);
    return at + n;
}

typedef struct fm_fault {
    const char *file;       /* which file to spoil: "train-images" ... */
    uint32_t magic;         /* 0: right */
    uint32_t rows;          /* 0: 28 */
    int64_t count_delta;    /* labels count minus images count */
    int bad_label;          /* 1: a label of 10 */
    size_t cut;             /* bytes cut off the end */
    size_t extra;           /* bytes added at the end */
} fm_fault;

/* train (n_train) and t10k (n_test) files, with one optional fault. */
static char *write_fashion(const char *name, int64_t n_train, int64_t n_test, const fm_fault *fault)
{
    char *dir = make_dir(name);
    const char *prefixes[2] = {"train", "t10k"};
    const int64_t counts[2] = {n_train, n_test};
    for (int f = 0; f < 2; f++) {
        int64_t n = counts[f];
        uint8_t *pix = malloc((size_t)n * PIXELS), *lab = malloc((size_t)n);
        for (int64_t i = 0; i < n; i++) {
            for (int p = 0; p < PIXELS; p++)
                pix[i * PIXELS + p] = fm_pixel(f * 1000 + i, p / SIDE, p % SIDE);
            lab[i] = (uint8_t)((i + f) % 10);
        }
        char stem[64];
        for (int kind = 0; kind < 2; kind++) {
            snprintf(stem, sizeof stem, "%s-%s", prefixes[f], kind == 0 ? "images" : "labels");
            bool spoil = fault != NULL && strcmp(fault->file, stem) == 0;
            uint32_t rows = spoil && fault->rows != 0 ? fault->rows : SIDE;
            int64_t items = n + (spoil && kind == 1 ? fault->count_delta : 0);
            uint32_t dims[3] = {(uint32_t)items, rows, SIDE};
            size_t data_n = kind == 0 ? (size_t)items * rows * SIDE : (size_t)items;
            size_t have = kind == 0 ? (size_t)n * PIXELS : (size_t)n;
            uint8_t *data = calloc(data_n + 1, 1);
            memcpy(data, kind == 0 ? pix : lab, data_n < have ? data_n : have);
            if (spoil && fault->bad_label)
                data[n / 2] = 10;
            uint8_t *buf = calloc(16 + data_n + 64, 1);
            size_t len = idx_bytes(buf, kind == 0 ? 3 : 1, dims, data, data_n);
            if (spoil && fault->magic != 0) {
                buf[2] = (uint8_t)(fault->magic >> 8);
                buf[3] = (uint8_t)fault->magic;
            }
            if (spoil)
                len = len - fault->cut + fault->extra;
            char file[96];
            snprintf(file, sizeof file, "%s-%s-ubyte.gz", stem, kind == 0 ? "idx3" : "idx1");
            write_gz(dir, file, buf, len);
            free(buf);
            free(data);
        }
        free(pix);
        free(lab);
    }
    return dir;
}

static void test_fashion_fixture(void)
{
    char *dir = write_fashion("fm", 50, 20, NULL);
    rf_config cfg = config_for("fashion_mnist", dir);
    cfg.data.train_size = 1000;
    cfg.data.val_size = 10;
    cfg.data.test_size = 15;
    rf_dataset *ds = open_ok(&cfg, "fashion_mnist (generated IDX files)");
    if (ds == NULL) {
        g_free(dir);
        return;
    }
    tap_ok(ds->size[0] == 40 && ds->size[1] == 10 && ds->size[2] == 15,
           "splits: train = the rest (40), val = last 10 of train, test = first 15 of t10k (%lld %lld %lld)",
           (long long)ds->size[0], (long long)ds->size[1], (long long)ds->size[2]);
    tap_ok(ds->seq_len == PIXELS && ds->feat_dim == 1 && ds->grid_h == SIDE && ds->grid_w == SIDE &&
               ds->classes == 10 && strcmp(ds->class_names[0], "T-shirt/top") == 0 &&
               strcmp(ds->class_names[9], "Ankle boot") == 0,
           "pixels: 784 tokens of 1 float, grid 28x28, 10 named classes");

    /* split -> index in its file, file */
    const int64_t where[3][2] = {{3, 0}, {0 + 40, 0}, {14, 1}};
    const int64_t index[3] = {3, 0, 14};
    float *x = sample_buffer(ds);
    bool values = true, raw = true;
    for (int s = 0; s < 3; s++) {
        int len = 0, label = -1;
        values = values && ds->get(ds, (rf_split)s, index[s], x, &len, &label, NULL) && len == PIXELS &&
                 label == (where[s][0] + where[s][1]) % 10;
        int64_t id = where[s][1] * 1000 + where[s][0];
        for (int p = 0; values && p < PIXELS; p++) {
            float want = ((float)fm_pixel(id, p / SIDE, p % SIDE) / 255.0f - 0.2860f) / 0.3530f;
            values = fabsf(x[p] - want) < 1e-6f;
        }
        int h, w, c;
        const uint8_t *px = rf_image_pixels(ds, (rf_split)s, index[s], &h, &w, &c);
        raw = raw && px != NULL && h == SIDE && w == SIDE && c == 1 && px[5 * SIDE + 9] == fm_pixel(id, 5, 9);
    }
    tap_ok(values, "values (x/255 - 0.2860)/0.3530 and labels of train #3, val #0 (train file #40), test #14");
    tap_ok(raw, "rf_image_pixels gives the raw 28x28 bytes");
    char text[64];
    tap_ok(ds->describe(ds, RF_SPLIT_TRAIN, 7, text, sizeof text) && strcmp(text, "train #7: Sneaker") == 0,
           "describe: '%s'", text);
    int len, label;
    rf_status st = {0};
    tap_ok(!ds->get(ds, RF_SPLIT_VAL, 10, x, &len, &label, &st) && strstr(st.msg, "val sample 10") != NULL,
           "get past the end of a split fails: %s", st.msg);
    tap_ok(splits_disjoint(ds), "splits are disjoint");
    int h, w, c;
    tap_ok(rf_image_pixels(ds, RF_SPLIT_TEST, 15, &h, &w, &c) == NULL && rf_image_skipped(ds) == 0,
           "no raw pixels past the end; nothing skipped");

    cfg.data.patch = 4;
    rf_dataset *pat = open_ok(&cfg, "fashion_mnist patch 4");
    if (pat != NULL) {
        tap_ok(pat->seq_len == 49 && pat->feat_dim == 16 && pat->grid_h == 7 && pat->grid_w == 7,
               "patch 4: 49 tokens of 16 floats, grid 7x7");
        tap_ok(patches_match_pixels(ds, pat, SIDE, 4, 1), "patch tokens hold the pixel tokens' values");
    }
    cfg.data.patch = 28;
    rf_dataset *whole = open_ok(&cfg, "fashion_mnist patch 28");
    tap_ok(whole != NULL && whole->seq_len == 1 && whole->feat_dim == PIXELS, "patch 28: one token of 784 floats");
    cfg.data.patch = 5;
    expect_error(&cfg, "patch 5", "data.patch = 5", "1, 2, 4, 7, 14, 28");
    cfg.data.patch = 0;
    cfg.data.val_size = 50;
    expect_error(&cfg, "val_size = the whole train file", "leaves no training images", NULL);

    /* the uncompressed files work too */
    char *plain = make_dir("fm_plain");
    uint8_t *buf = malloc(16 + 20 * PIXELS);
    for (int f = 0; f < 4; f++) {
        const char *names[4] = {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte",
                                "t10k-labels-idx1-ubyte"};
        uint32_t dims[3] = {20, SIDE, SIDE};
        uint8_t *zero = calloc(20 * PIXELS, 1);
        size_t n = idx_bytes(buf, f % 2 == 0 ? 3 : 1, dims, zero, f % 2 == 0 ? 20 * PIXELS : 20);
        free(zero);
        if (f < 2) {
            write_gz(plain, names[f], buf, n);
        } else {
            char *path = g_build_filename(plain, names[f], NULL);
            g_file_set_contents(path, (const char *)buf, (gssize)n, NULL);
            g_free(path);
        }
    }
    free(buf);
    rf_config pc = config_for("fashion_mnist", plain);
    pc.data.val_size = 5;
    rf_dataset *pds = open_ok(&pc, "fashion_mnist with uncompressed t10k files");
    tap_ok(pds != NULL && pds->size[RF_SPLIT_TEST] == 20, "uncompressed IDX read (test 20)");
    rf_dataset_free(pds);
    g_free(plain);

    rf_dataset_free(whole);
    rf_dataset_free(pat);
    free(x);
    rf_dataset_free(ds);
    g_free(dir);
}

static void test_fashion_faults(void)
{
    static const struct {
        const char *what;
        fm_fault fault;
        const char *file, *problem;
    } cases[] = {
        {"truncated images", {.file = "train-images", .cut = 1000}, "train-images-idx3-ubyte.gz", "truncated"},
        {"truncated header", {.file = "t10k-labels", .cut = 20 + 6}, "t10k-labels-idx1-ubyte.gz", "header"},
        {"wrong magic", {.file = "train-images", .magic = 0x802}, "train-images-idx3-ubyte.gz", "wrong magic"},
        {"labels file with an image magic", {.file = "t10k-labels", .magic = 0x803}, "t10k-labels", "0x00000801"},
        {"27x28 images", {.file = "t10k-images", .rows = 27}, "t10k-images-idx3-ubyte.gz", "expected 28x28"},
        {"count mismatch", {.file = "train-labels", .count_delta = -1}, "train-labels-idx1-ubyte.gz", "49 labels"},
        {"label out of range", {.file = "train-labels", .bad_label = 1}, "train-labels-idx1-ubyte.gz", "label 10"},
        {"trailing bytes", {.file = "t10k-images", .extra = 3}, "t10k-images-idx3-ubyte.gz", "unexpected bytes"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char name[32];
        snprintf(name, sizeof name, "fm_bad%zu", k);
        char *dir = write_fashion(name, 50, 20, &cases[k].fault);
        rf_config cfg = config_for("fashion_mnist", dir);
        cfg.data.val_size = 5;
        expect_error(&cfg, cases[k].what, cases[k].file, cases[k].problem);
        g_free(dir);
    }

    /* a damaged gzip stream: flip bytes in the middle of the compressed data */
    char *dir = write_fashion("fm_corrupt", 50, 20, NULL);
    char *path = g_build_filename(dir, "train-images-idx3-ubyte.gz", NULL);
    gchar *gz = NULL;
    gsize n = 0;
    g_file_get_contents(path, &gz, &n, NULL);
    for (gsize i = n / 2; i < n / 2 + 16 && i < n; i++)
        gz[i] = (gchar)~gz[i];
    g_file_set_contents(path, gz, (gssize)n, NULL);
    rf_config cfg = config_for("fashion_mnist", dir);
    cfg.data.val_size = 5;
    expect_error(&cfg, "corrupt gzip data", "train-images-idx3-ubyte.gz", "corrupt compressed data");
    /* cut the gzip file itself */
    g_file_set_contents(path, gz, (gssize)(n / 2), NULL);
    expect_error(&cfg, "gzip file cut in half", "train-images-idx3-ubyte.gz", NULL);
    g_free(gz);
    g_remove(path);
    expect_error(&cfg, "missing images file", "train-images-idx3-ubyte.gz", "cannot open");
    g_free(path);
    g_free(dir);
}

/* ---- the real Fashion-MNIST ---- */

static void test_fashion_real(void)
{
    char *probe = g_build_filename(RF_FASHION_MNIST_DIR, "train-images-idx3-ubyte.gz", NULL);
    bool present = g_file_test(probe, G_FILE_TEST_EXISTS);
    g_free(probe);
    if (!present) {
        static const char *const checks[] = {"real Fashion-MNIST opens", "real splits 58000 / 2000 / 10000",
                                             "real test set: 1000 of each class", "normalised pixels",
                                             "every training sample reads as 4x4 patches too"};
        for (size_t k = 0; k < sizeof checks / sizeof checks[0]; k++)
            tap_skip(checks[k], "Fashion-MNIST not installed in %s", RF_FASHION_MNIST_DIR);
        return;
    }
    rf_config cfg = config_for("fashion_mnist", "");
    cfg.data.test_size = 10000;
    rf_status st = {0};
    gint64 t0 = g_get_monotonic_time();
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    double load_s = (double)(g_get_monotonic_time() - t0) * 1e-6;
    if (!tap_ok(ds != NULL, "real Fashion-MNIST opens (%.2f s): %s", load_s, st.msg))
        return;
    tap_ok(ds->size[0] == 58000 && ds->size[1] == 2000 && ds->size[2] == 10000,
           "real splits 58000 / 2000 / 10000 (%lld %lld %lld)", (long long)ds->size[0], (long long)ds->size[1],
           (long long)ds->size[2]);
    float *x = sample_buffer(ds);
    int per_class[10] = {0}, len, label;
    bool ok = true;
    for (int64_t i = 0; i < ds->size[RF_SPLIT_TEST]; i++) {
        ok = ok && ds->get(ds, RF_SPLIT_TEST, i, x, &len, &label, NULL) && label >= 0 && label < 10;
        per_class[ok ? label : 0]++;
    }
    bool balanced = ok;
    for (int c = 0; c < 10; c++)
        balanced = balanced && per_class[c] == 1000;
    tap_ok(balanced, "real test set: 1000 of each class");

    /* normalised training pixels: mean about 0, deviation about 1; and the speed of get() */
    double sum = 0, sq = 0;
    int64_t n = ds->size[RF_SPLIT_TRAIN];
    t0 = g_get_monotonic_time();
    for (int64_t i = 0; i < n; i++) {
        ds->get(ds, RF_SPLIT_TRAIN, i, x, &len, &label, NULL);
        sum += x[i % PIXELS];
        sq += (double)x[i % PIXELS] * x[i % PIXELS];
    }
    double rate = (double)n / ((double)(g_get_monotonic_time() - t0) * 1e-6);
    double mean = sum / (double)n, sd = sqrt(sq / (double)n - mean * mean);
    tap_ok(fabs(mean) < 0.05 && fabs(sd - 1) < 0.05, "normalised pixels: mean %.3f, deviation %.3f", mean, sd);
    cfg.data.patch = 4;
    rf_dataset *pat = rf_dataset_open(&cfg, &st);
    double patch_rate = 0;
    bool patch_ok = true;
    if (pat != NULL) {
        t0 = g_get_monotonic_time();
        for (int64_t i = 0; i < n; i++)
            patch_ok = pat->get(pat, RF_SPLIT_TRAIN, i, x, &len, &label, NULL) && patch_ok;
        patch_rate = (double)n / ((double)(g_get_monotonic_time() - t0) * 1e-6);
    }
    tap_diag("Fashion-MNIST: load %.2f s; get() %.0f samples/s (pixels), %.0f samples/s (4x4 patches)", load_s,
             rate, patch_rate);
    /* The speed is a benchmark figure (the line above), not a timed check:
     * a loaded machine would fail it. */
    tap_ok(pat != NULL && patch_ok, "every training sample reads as 4x4 patches too");
    rf_dataset_free(pat);
    free(x);
    rf_dataset_free(ds);
}

/* ---- image folders ---- */

/* ant k: a pattern; bee: solid colours as JPEG; cow: solid colours, other sizes, with alpha */
static void ant_rgb(int k, int x, int y, uint8_t rgb[3])
{
    rgb[0] = (uint8_t)(k * 40 + x * 30);
    rgb[1] = (uint8_t)(y * 30 + k * 5);
    rgb[2] = (uint8_t)(x * y * 3 + k);
}

static void save_image(const char *dir, const char *name, int w, int h, bool alpha, const char *format,
                       void (*fill)(int k, int x, int y, uint8_t rgb[3]), int k)
{
    GdkPixbuf *pb = gdk_pixbuf_new(GDK_COLORSPACE_RGB, alpha, 8, w, h);
    guint8 *px = gdk_pixbuf_get_pixels(pb);
    int stride = gdk_pixbuf_get_rowstride(pb), nc = alpha ? 4 : 3;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            guint8 *p = px + y * stride + x * nc;
            fill(k, x, y, p);
            if (alpha)
                p[3] = 255;   /* opaque: test_data_formats.c checks transparency */
        }
    char *path = g_build_filename(dir, name, NULL);
    GError *err = NULL;
    bool ok = strcmp(format, "jpeg") == 0 ? gdk_pixbuf_save(pb, path, "jpeg", &err, "quality", "100", NULL)
                                          : gdk_pixbuf_save(pb, path, "png", &err, NULL);
    if (!ok) {
        tap_diag("cannot write %s: %s", path, err->message);
        g_error_free(err);
    }
    g_free(path);
    g_object_unref(pb);
}

static void solid_rgb(int k, int x, int y, uint8_t rgb[3])
{
    (void)x;
    (void)y;
    rgb[0] = (uint8_t)(200 - k * 20);
    rgb[1] = (uint8_t)(100 + k * 10);
    rgb[2] = (uint8_t)(50 + k * 5);
}

#define ANTS 6
#define BEES 4
#define COWS 4
#define IMAGES (ANTS + BEES + COWS)

static char *write_image_folder(const char *name)
{
    char *root = make_dir(name);
    char *ant = fixture_path(name, "ant"), *bee = fixture_path(name, "bee"), *cow = fixture_path(name, "cow");
    g_mkdir(ant, 0700);
    g_mkdir(bee, 0700);
    g_mkdir(cow, 0700);
    char file[32];
    for (int k = 0; k < ANTS; k++) {
        snprintf(file, sizeof file, "a%d.png", k);
        save_image(ant, file, 8, 8, false, "png", ant_rgb, k);
    }
    for (int k = 0; k < BEES; k++) {
        snprintf(file, sizeof file, "b%d.%s", k, k % 2 ? "JPG" : "jpeg");
        save_image(bee, file, 16, 16, false, "jpeg", solid_rgb, k);
    }
    for (int k = 0; k < COWS; k++) {
        snprintf(file, sizeof file, "c%d.png", k);
        save_image(cow, file, 20 + k, 12, true, "png", solid_rgb, k);
    }
    write_text(cow, ".hidden", "ignored");
    g_free(ant);
    g_free(bee);
    g_free(cow);
    return root;
}

/* The split and index of the sample whose describe() ends with "(name)". */
static bool find_sample(const rf_dataset *ds, const char *name, rf_split *split, int64_t *index)
{
    char text[256], want[128];
    snprintf(want, sizeof want, "(%s)", name);
    for (int s = 0; s < RF_SPLIT_COUNT; s++)
        for (int64_t i = 0; i < ds->size[s]; i++)
            if (ds->describe(ds, (rf_split)s, i, text, sizeof text) && g_str_has_suffix(text, want)) {
                *split = (rf_split)s;
                *index = i;
                return true;
            }
    return false;
}

/* Every sample's description, split by split: the split layout as text. */
static char *layout(const rf_dataset *ds)
{
    GString *s = g_string_new(NULL);
    char text[256];
    for (int sp = 0; sp < RF_SPLIT_COUNT; sp++)
        for (int64_t i = 0; i < ds->size[sp]; i++)
            if (ds->describe(ds, (rf_split)sp, i, text, sizeof text))
                g_string_append_printf(s, "%s\n", text);
    return g_string_free(s, FALSE);
}

static void test_image_folder_values(const char *root)
{
    rf_config cfg = config_for("image_folder", root);
    cfg.data.image_size = 8;
    strcpy(cfg.data.channels, "rgb");
    cfg.data.val_size = 3;
    cfg.data.test_size = 2;
    rf_dataset *ds = open_ok(&cfg, "image_folder rgb 8x8");
    if (ds == NULL)
        return;
    tap_ok(ds->classes == 3 && strcmp(ds->class_names[0], "ant") == 0 && strcmp(ds->class_names[2], "cow") == 0 &&
               ds->seq_len == 64 && ds->feat_dim == 3 && ds->grid_h == 8 && ds->grid_w == 8,
           "classes ant, bee, cow (sorted); 64 tokens of 3 floats, grid 8x8");
    tap_ok(ds->size[0] == IMAGES - 5 && ds->size[1] == 3 && ds->size[2] == 2 && rf_image_skipped(ds) == 0,
           "splits %lld / %lld / %lld of %d images; hidden file ignored, nothing skipped", (long long)ds->size[0],
           (long long)ds->size[1], (long long)ds->size[2], IMAGES);
    tap_ok(splits_disjoint(ds), "image_folder splits are disjoint");

    rf_split sp;
    int64_t idx;
    float *x = sample_buffer(ds);
    int len, label, h, w, c;
    bool exact = find_sample(ds, "ant/a3.png", &sp, &idx) && ds->get(ds, sp, idx, x, &len, &label, NULL) &&
                 label == 0 && len == 64;
    const uint8_t *px = exact ? rf_image_pixels(ds, sp, idx, &h, &w, &c) : NULL;
    exact = exact && px != NULL && h == 8 && w == 8 && c == 3;
    for (int p = 0; exact && p < 64; p++) {
        uint8_t rgb[3];
        ant_rgb(3, p % 8, p / 8, rgb);
        for (int ch = 0; ch < 3; ch++)
            exact = exact && px[p * 3 + ch] == rgb[ch] && fabsf(x[p * 3 + ch] - (rgb[ch] / 127.5f - 1.0f)) < 1e-6f;
    }
    tap_ok(exact, "a lossless 8x8 PNG: stored bytes exact, values pixel/127.5 - 1");

    bool solid = find_sample(ds, "cow/c2.png", &sp, &idx) && ds->get(ds, sp, idx, x, &len, &label, NULL) &&
                 label == 2;
    px = solid ? rf_image_pixels(ds, sp, idx, &h, &w, &c) : NULL;
    uint8_t want[3];
    solid_rgb(2, 0, 0, want);
    for (int p = 0; solid && px != NULL && p < 64 * 3; p++)
        solid = px[p] == want[p % 3];
    tap_ok(solid && px != NULL, "an opaque 22x12 RGBA PNG cropped to 8x8 keeps its solid colour");

    bool jpeg = find_sample(ds, "bee/b1.JPG", &sp, &idx);
    px = jpeg ? rf_image_pixels(ds, sp, idx, &h, &w, &c) : NULL;
    solid_rgb(1, 0, 0, want);
    for (int p = 0; jpeg && px != NULL && p < 64 * 3; p++)
        jpeg = abs(px[p] - want[p % 3]) <= 3;
    tap_ok(jpeg && px != NULL, "a JPEG (.JPG) decodes within 3 levels of its colour");
    char text[128];
    tap_ok(ds->describe(ds, sp, idx, text, sizeof text) && strstr(text, ": bee (bee/b1.JPG)") != NULL,
           "describe: '%s'", text);

    bool range = true;
    for (int s = 0; s < RF_SPLIT_COUNT; s++)
        for (int64_t i = 0; i < ds->size[s]; i++) {
            range = range && ds->get(ds, (rf_split)s, i, x, &len, &label, NULL);
            for (int k = 0; k < 64 * 3; k++)
                range = range && x[k] >= -1.0f && x[k] <= 1.0f;
        }
    tap_ok(range, "every value in [-1, 1]");

    /* gray: 0.299 R + 0.587 G + 0.114 B */
    strcpy(cfg.data.channels, "gray");
    rf_dataset *gray = open_ok(&cfg, "image_folder gray");
    bool gray_ok = gray != NULL && gray->feat_dim == 1 && find_sample(gray, "ant/a3.png", &sp, &idx);
    px = gray_ok ? rf_image_pixels(gray, sp, idx, &h, &w, &c) : NULL;
    gray_ok = gray_ok && px != NULL && c == 1;
    for (int p = 0; gray_ok && p < 64; p++) {
        uint8_t rgb[3];
        ant_rgb(3, p % 8, p / 8, rgb);
        gray_ok = px[p] == (uint8_t)((299 * rgb[0] + 587 * rgb[1] + 114 * rgb[2] + 500) / 1000);
    }
    tap_ok(gray_ok, "gray = rounded 0.299 R + 0.587 G + 0.114 B");

    /* patches against pixels, rgb */
    strcpy(cfg.data.channels, "rgb");
    cfg.data.patch = 4;
    rf_dataset *pat = open_ok(&cfg, "image_folder rgb patch 4");
    tap_ok(pat != NULL && pat->seq_len == 4 && pat->feat_dim == 48 && pat->grid_h == 2 &&
               patches_match_pixels(ds, pat, 8, 4, 3),
           "patch 4 of 8x8 rgb: 4 tokens of 48 floats, the pixel values rearranged");
    cfg.data.patch = 3;
    expect_error(&cfg, "image_folder patch 3 of 8x8", "data.patch = 3", "1, 2, 4, 8");

    rf_dataset_free(pat);
    rf_dataset_free(gray);
    free(x);
    rf_dataset_free(ds);
}

static void test_image_folder_splits(const char *root)
{
    rf_config cfg = config_for("image_folder", root);
    cfg.data.image_size = 8;
    cfg.data.val_size = 3;
    cfg.data.test_size = 3;
    cfg.train.seed = 11;
    rf_dataset *a = open_ok(&cfg, "image_folder seed 11");
    rf_dataset *b = open_ok(&cfg, "image_folder seed 11 again");
    cfg.train.seed = 12;
    rf_dataset *c = open_ok(&cfg, "image_folder seed 12");
    if (a != NULL && b != NULL && c != NULL) {
        char *la = layout(a), *lb = layout(b), *lc = layout(c);
        tap_ok(strcmp(la, lb) == 0, "same seed: same splits in the same order");
        tap_ok(strcmp(la, lc) != 0, "another seed: another shuffle");
        g_free(la);
        g_free(lb);
        g_free(lc);
    }
    rf_dataset_free(a);
    rf_dataset_free(b);
    rf_dataset_free(c);

    cfg.data.val_size = 100;
    cfg.data.test_size = 100;
    rf_dataset *capped = open_ok(&cfg, "image_folder with val/test larger than the folder");
    tap_ok(capped != NULL && capped->size[1] == IMAGES / 4 && capped->size[2] == IMAGES / 4 &&
               capped->size[0] == IMAGES - 2 * (IMAGES / 4),
           "val_size and test_size capped at a quarter each, the rest trains");
    rf_dataset_free(capped);
    cfg.data.val_size = 2;
    cfg.data.test_size = 2;
    cfg.data.train_size = 5;
    rf_dataset *small = open_ok(&cfg, "image_folder train_size 5");
    tap_ok(small != NULL && small->size[0] == 5, "train_size caps the training split");
    rf_dataset_free(small);
}

static void test_image_folder_faults(void)
{
    /* a corrupt PNG, a truncated PNG, a text file and a stray top-level file: skipped, or fatal when strict */
    char *root = write_image_folder("if_bad");
    char *ant = fixture_path("if_bad", "ant");
    write_text(ant, "broken.png", "this is not a PNG at all");
    char *good = g_build_filename(ant, "a0.png", NULL), *png = NULL;
    gsize n = 0;
    g_file_get_contents(good, &png, &n, NULL);
    char *cut = g_build_filename(ant, "cut.png", NULL);
    g_file_set_contents(cut, png, (gssize)(n / 2), NULL);
    write_text(ant, "notes.txt", "a note");
    write_text(root, "README", "about the images");
    rf_config cfg = config_for("image_folder", root);
    cfg.data.image_size = 8;
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    tap_ok(ds != NULL && rf_image_skipped(ds) == 4 &&
               ds->size[0] + ds->size[1] + ds->size[2] == IMAGES,
           "4 bad files skipped and counted, %d images kept (skipped %lld)", IMAGES,
           (long long)(ds != NULL ? rf_image_skipped(ds) : -1));
    /* The warnings reach the caller too (the workbench shows them). */
    const char *lines = st.warning_lines;
    int newlines = 0;
    for (const char *c = lines; *c != '\0'; c++)
        newlines += *c == '\n';
    tap_ok(st.warnings == 5 && newlines == 5 && strstr(lines, "broken.png: ") != NULL &&
               strstr(lines, "cut.png: ") != NULL && strstr(lines, "notes.txt: ") != NULL &&
               strstr(lines, "README") != NULL && strstr(lines, "capped") != NULL,
           "the status holds the 4 skipped files and the capped splits, one line each (%lld)", st.warnings);
    rf_dataset_free(ds);
    strcpy(cfg.data.strict, "true");
    expect_error(&cfg, "strict: stray top-level file", "README", "not a class folder");
    remove_fixture("if_bad", "README");
    expect_error(&cfg, "strict: corrupt PNG", "broken.png", "strict");
    remove_fixture("if_bad", "ant/broken.png");
    expect_error(&cfg, "strict: truncated PNG", "cut.png", "strict");
    g_remove(cut);
    expect_error(&cfg, "strict: non-image file", "notes.txt", "not an image format the installed gdk-pixbuf loaders read");
    g_free(png);
    g_free(cut);
    g_free(good);
    g_free(ant);
    g_free(root);

    /* folders */
    root = write_image_folder("if_empty");
    char *empty = fixture_path("if_empty", "dog");
    g_mkdir(empty, 0700);
    cfg = config_for("image_folder", root);
    cfg.data.image_size = 8;
    expect_error(&cfg, "empty class folder", empty, "class folder without an image");
    write_text(empty, "only.jpg", "garbage");
    expect_error(&cfg, "class folder whose only image is corrupt", empty, "1 file skipped");
    g_free(empty);
    g_free(root);

    root = make_dir("if_one");
    char *only = fixture_path("if_one", "ant");
    g_mkdir(only, 0700);
    save_image(only, "a.png", 8, 8, false, "png", ant_rgb, 0);
    cfg = config_for("image_folder", root);
    expect_error(&cfg, "one class folder", root, "at least two");
    g_free(only);
    g_free(root);

    char *missing = fixture_path("no_such_folder", NULL);
    cfg = config_for("image_folder", missing);
    expect_error(&cfg, "missing folder", missing, "cannot read the folder");
    g_free(missing);
    cfg = config_for("image_folder", "");
    expect_error(&cfg, "empty data.path", "image_folder needs data.path", NULL);
}

/* ---- UCR ---- */

static const char *const ucr_train =
    "1\t0.5\t1.5\t-2\t3e-1\t4\n"
    "-1\t1\t2\t3\t4\t5\n"
    "2\t-1\t-2\tNaN\tNaN\tNaN\n"
    "1\t0\t0\t0\t0\t1\n"
    "-1\t1\t1\t1\t1\t1\n"
    "2\t2\t2\t2\t2\t2\n"
    "1\t3\t3\t3\t3\t3\n"
    "-1\t4\t4\t4\t4\t4\n"
    "2\t5\t5\t5\t5\t5\n"
    "1\t6\t6\t6\t6\t6\n"
    "-1\t7\t7\t7\t7\t7\n"
    "2\t8\t8\t8\t8\t8\n";
static const char *const ucr_test =
    "2\t9\t9\t9\t9\t9\r\n"
    "1\t10\t10\t10\t10\t10\r\n"
    "-1\t11\t11\t11\t11\t11\r\n"
    "\r\n";

static void test_ucr(void)
{
    char *dir = make_dir("ucr");
    write_text(dir, "Toy_TRAIN.tsv", ucr_train);
    write_text(dir, "Toy_TEST.tsv", ucr_test);
    rf_config cfg = config_for("ucr", dir);
    cfg.data.val_size = 3;
    cfg.data.test_size = 2;
    rf_dataset *ds = open_ok(&cfg, "ucr folder");
    if (ds != NULL) {
        tap_ok(ds->classes == 3 && strcmp(ds->class_names[0], "-1") == 0 && strcmp(ds->class_names[2], "2") == 0 &&
                   ds->feat_dim == 1 && ds->seq_len == 5 && ds->grid_h == 0,
               "ucr: classes -1, 1, 2 in order; 1 float per position; seq_len 5");
        tap_ok(ds->size[0] == 9 && ds->size[1] == 3 && ds->size[2] == 2, "ucr splits 9 / 3 / 2");
        float x[8];
        int len = 0, label = -1;
        bool first = false, short_one = false;
        char text[128];
        /* the training file's first row is train #0 unless drawn for val */
        for (int s = 0; s < 2; s++)
            for (int64_t i = 0; i < ds->size[s]; i++) {
                ds->describe(ds, (rf_split)s, i, text, sizeof text);
                ds->get(ds, (rf_split)s, i, x, &len, &label, NULL);
                if (strstr(text, "Toy_TRAIN.tsv line 1,") != NULL)
                    first = len == 5 && label == 1 && x[0] == 0.5f && x[2] == -2.0f && x[3] == 0.3f && x[4] == 4.0f;
                if (strstr(text, "Toy_TRAIN.tsv line 3,") != NULL)
                    short_one = len == 2 && label == 2 && x[1] == -2.0f && strstr(text, "2 values") != NULL;
            }
        tap_ok(first, "ucr values and label of line 1");
        tap_ok(short_one, "a series padded with NaN ends at the NaN (length 2)");
        tap_ok(ds->get(ds, RF_SPLIT_TEST, 1, x, &len, &label, NULL) && label == 1 && x[0] == 10.0f &&
                   ds->describe(ds, RF_SPLIT_TEST, 1, text, sizeof text) &&
                   strcmp(text, "test #1: Toy_TEST.tsv line 2, class 1, 5 values") == 0,
               "test = the test file in order (CRLF lines, trailing blank line): '%s'", text);
        char *la = layout(ds);
        rf_dataset *again = rf_dataset_open(&cfg, NULL);
        char *lb = again != NULL ? layout(again) : g_strdup("");
        cfg.train.seed = 99;
        rf_dataset *other = rf_dataset_open(&cfg, NULL);
        char *lc = other != NULL ? layout(other) : g_strdup("");
        tap_ok(strcmp(la, lb) == 0 && strcmp(la, lc) != 0, "ucr val draw: same seed same, another seed another");
        /* disjoint: every training-file line once over train and val */
        int seen[13] = {0};
        bool disjoint = true;
        for (int s = 0; s < 2; s++)
            for (int64_t i = 0; i < ds->size[s]; i++) {
                int line = 0;
                ds->describe(ds, (rf_split)s, i, text, sizeof text);
                const char *at = strstr(text, "line ");
                disjoint = disjoint && at != NULL && sscanf(at, "line %d", &line) == 1 && line >= 1 && line <= 12 &&
                           seen[line]++ == 0;
            }
        tap_ok(disjoint, "ucr train and val are disjoint and cover the training file");
        g_free(la);
        g_free(lb);
        g_free(lc);
        rf_dataset_free(again);
        rf_dataset_free(other);
        rf_dataset_free(ds);
    }
    cfg.train.seed = 1;
    char *prefix = g_build_filename(dir, "Toy", NULL);
    snprintf(cfg.data.path, sizeof cfg.data.path, "%s", prefix);
    ds = open_ok(&cfg, "ucr by NAME prefix");
    rf_dataset_free(ds);
    snprintf(cfg.data.path, sizeof cfg.data.path, "%s_TRAIN.tsv", prefix);
    ds = open_ok(&cfg, "ucr by the _TRAIN.tsv file");
    rf_dataset_free(ds);
    cfg.data.val_size = 2000;
    snprintf(cfg.data.path, sizeof cfg.data.path, "%s", dir);
    ds = open_ok(&cfg, "ucr with the default-sized val_size");
    tap_ok(ds != NULL && ds->size[1] == 3 && ds->size[0] == 9, "val_size capped at a quarter of the training file");
    rf_dataset_free(ds);
    g_free(prefix);
    g_free(dir);
}

static void test_ucr_faults(void)
{
    static const struct {
        const char *what, *train, *piece1, *piece2;
    } cases[] = {
        {"bad number", "1\t1\t2\n2\t1\t2\n1\t0.5\tabc\n", "B0_TRAIN.tsv:3:3", "'abc' is not a number"},
        {"empty field", "1\t1\t2\n2\t\t2\n", "B1_TRAIN.tsv:2:2", "is not a number"},
        {"wrong column count", "1\t1\t2\t3\n2\t1\t2\n", "B2_TRAIN.tsv:2", "3 columns, expected 4"},
        {"value after NaN", "1\t1\tNaN\t3\n2\t1\t2\t3\n", "B3_TRAIN.tsv:1:4", "a value after NaN"},
        {"label not a number", "1\t1\t2\nx\t1\t2\n", "B4_TRAIN.tsv:2:1", "label 'x'"},
        {"blank line inside", "1\t1\t2\n\n2\t1\t2\n", "B5_TRAIN.tsv:2", "blank line inside the table"},
        {"comma-separated", "1,1,2\n2,1,2\n", "B6_TRAIN.tsv:1", "separated by tabs"},
        {"infinite value", "1\t1\tinf\n2\t1\t2\n", "B7_TRAIN.tsv:1:3", "out of range"},
        {"only NaN", "1\tNaN\tNaN\n2\t1\t2\n", "B8_TRAIN.tsv:1", "no values before NaN"},
        {"empty file", "", "B9_TRAIN.tsv", "no series"},
        {"one class", "1\t1\t2\n1\t3\t4\n", "B10", "at least two"},
        {"overflowing float", "1\t1\t1e39\n2\t1\t2\n", "B11_TRAIN.tsv:1:3", "out of range for a float"},
    };
    char *dir = make_dir("ucr_bad");
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char name[32];
        snprintf(name, sizeof name, "B%zu_TRAIN.tsv", k);
        write_text(dir, name, cases[k].train);
        snprintf(name, sizeof name, "B%zu_TEST.tsv", k);
        write_text(dir, name, "1\t5\t6\n");
        snprintf(name, sizeof name, "B%zu", k);
        char *prefix = g_build_filename(dir, name, NULL);
        rf_config cfg = config_for("ucr", prefix);
        expect_error(&cfg, cases[k].what, cases[k].piece1, cases[k].piece2);
        g_free(prefix);
    }
    rf_config cfg = config_for("ucr", dir);
    expect_error(&cfg, "a folder with several pairs", dir, "exactly one *_TRAIN.tsv");
    char *missing = g_build_filename(dir, "Nope", NULL);
    cfg = config_for("ucr", missing);
    expect_error(&cfg, "missing files", "Nope_TRAIN.tsv", "cannot open");
    g_free(missing);
    char *lonely = make_dir("ucr_lonely");
    write_text(lonely, "L_TRAIN.tsv", "1\t1\n2\t2\n");
    cfg = config_for("ucr", lonely);
    expect_error(&cfg, "a folder without a test file", lonely, "found 1 and 0");
    char *prefix = g_build_filename(lonely, "L", NULL);
    cfg = config_for("ucr", prefix);
    expect_error(&cfg, "missing test file", "L_TEST.tsv", "cannot open");
    write_text(lonely, "L_TEST.tsv", "1\t1\n2\tNaN\n");
    expect_error(&cfg, "bad test file", "L_TEST.tsv:2", "no values");
    g_free(prefix);
    g_free(lonely);
    g_free(dir);
}

/* ---- LRA ListOps TSV ---- */

static void write_lra(const char *dir, const char *prefix, const char *train)
{
    char name[64];
    snprintf(name, sizeof name, "%strain.tsv", prefix);
    write_text(dir, name, train);
    snprintf(name, sizeof name, "%sval.tsv", prefix);
    write_text(dir, name, "Source\tTarget\n( [MIN 4 7 ] )\t4\n( [SM 5 6 ] )\t1\n");
    snprintf(name, sizeof name, "%stest.tsv", prefix);
    write_text(dir, name, "Source\tTarget\r\n( ( [MED 1 2 ) 9 ] )\t2\r\n");
}

static const char *const lra_train =
    "Source\tTarget\n"
    "( ( ( [MAX 2 ) 3 ) ] )\t3\n"
    "( [MIN 4 ( [MAX 1 9 ] ) 0 ] )\t0\n"
    "( [SM 1 2 3 4 5 ] )\t5\n"
    "( [MED 1 2 X )\t1\n";

static void test_lra(void)
{
    char *dir = make_dir("lra");
    write_lra(dir, "basic_", lra_train);
    rf_config cfg = config_for("lra_tsv", dir);
    rf_dataset *ds = open_ok(&cfg, "lra_tsv");
    if (ds != NULL) {
        tap_ok(ds->size[0] == 4 && ds->size[1] == 2 && ds->size[2] == 1 && ds->vocab == 16 && ds->classes == 10 &&
                   ds->feat_dim == 0 && ds->seq_len == 8 && rf_lra_tsv_truncated(ds) == 0,
               "lra_tsv: splits 4 / 2 / 1 from the files, vocab 16, 10 classes, seq_len 8");
        float x[16];
        int len = 0, label = -1;
        bool ids = ds->get(ds, RF_SPLIT_TRAIN, 0, x, &len, &label, NULL) && len == 4 && label == 3 &&
                   x[0] == RF_LISTOPS_MAX && x[1] == RF_LISTOPS_DIGIT0 + 2 && x[2] == RF_LISTOPS_DIGIT0 + 3 &&
                   x[3] == RF_LISTOPS_CLOSE;
        tap_ok(ids, "token ids of '( ( ( [MAX 2 ) 3 ) ] )', label 3");
        char text[64];
        tap_ok(ds->describe(ds, RF_SPLIT_TRAIN, 1, text, sizeof text) &&
                   strcmp(text, "[MIN 4 [MAX 1 9 ] 0 ]") == 0,
               "describe: '%s'", text);
        tap_ok(ds->get(ds, RF_SPLIT_TRAIN, 3, x, &len, &label, NULL) && len == 4 && x[3] == RF_LISTOPS_CLOSE &&
                   ds->get(ds, RF_SPLIT_TEST, 0, x, &len, &label, NULL) && label == 2 && len == 5,
               "'X' closes like ']'; CRLF test file");
        rf_dataset_free(ds);
    }
    cfg.data.max_len = 5;
    cfg.data.train_size = 2;
    ds = open_ok(&cfg, "lra_tsv max_len 5, train_size 2");
    tap_ok(ds != NULL && ds->seq_len == 5 && rf_lra_tsv_truncated(ds) == 1 && ds->size[0] == 2,
           "rows longer than max_len cut and counted; train_size reads the first rows");
    rf_dataset_free(ds);

    /* data.concat = 2: each row is [MAX e e ], as listops builds its samples */
    cfg.data.max_len = 2000;
    cfg.data.train_size = 4;
    cfg.data.concat = 2;
    ds = open_ok(&cfg, "lra_tsv with data.concat = 2");
    if (ds != NULL) {
        static const float want[] = {RF_LISTOPS_MAX, RF_LISTOPS_MAX, RF_LISTOPS_DIGIT0 + 2, RF_LISTOPS_DIGIT0 + 3,
                                     RF_LISTOPS_CLOSE, RF_LISTOPS_MAX, RF_LISTOPS_DIGIT0 + 2,
                                     RF_LISTOPS_DIGIT0 + 3, RF_LISTOPS_CLOSE, RF_LISTOPS_CLOSE};
        float x[32];
        uint8_t ids[32];
        int len = 0, label = -1;
        bool got = ds->get(ds, RF_SPLIT_TRAIN, 0, x, &len, &label, NULL);
        for (int t = 0; got && t < len; t++)
            ids[t] = (uint8_t)x[t];
        tap_ok(got && ds->seq_len == 2 * 8 + 2 && len == 10 && memcmp(x, want, sizeof want) == 0 && label == 3 &&
                   rf_listops_eval(ids, len) == 3,
               "lra_tsv concat 2: '( ( ( [MAX 2 ) 3 ) ] )' reads [MAX [MAX 2 3 ] [MAX 2 3 ] ], label 3 kept and "
               "evaluated, seq_len 2 * 8 + 2");
        char text[96];
        tap_ok(ds->describe(ds, RF_SPLIT_VAL, 0, text, sizeof text) &&
                   strcmp(text, "[MAX [MIN 4 7 ] [MIN 4 7 ] ]") == 0,
               "lra_tsv concat 2: describe '%s'", text);
        rf_dataset_free(ds);
    }

    char *plain = make_dir("lra_plain");
    write_lra(plain, "", lra_train);
    cfg = config_for("lra_tsv", plain);
    ds = open_ok(&cfg, "lra_tsv with train.tsv, val.tsv, test.tsv");
    rf_dataset_free(ds);
    g_free(plain);
    g_free(dir);
}

/* One token table: the generator's samples written out as LRA files (in
 * the generator's own text) read back as the same ids, labels and order,
 * with and without data.concat; so a model trained on either source
 * evaluates on the other. */
static void test_lra_same_tokens(void)
{
    rf_config gen;
    rf_config_defaults(&gen);
    gen.data.min_len = 20;
    gen.data.max_len = 120;
    gen.data.train_size = 40;
    gen.data.val_size = gen.data.test_size = 20;
    char *dir = make_dir("lra_generated");
    rf_config files = config_for("lra_tsv", dir);
    files.data.max_len = gen.data.max_len;
    for (int concat = 1; concat <= 2; concat++) {
        gen.data.concat = files.data.concat = concat;
        rf_dataset *a = open_ok(&gen, "listops (for LRA files)");
        static const char *const names[RF_SPLIT_COUNT] = {"basic_train.tsv", "basic_val.tsv", "basic_test.tsv"};
        static char text[1 << 13];
        static float xa[1 << 10], xb[1 << 10];
        int len_a, len_b, label_a, label_b;
        for (int s = 0; a != NULL && concat == 1 && s < RF_SPLIT_COUNT; s++) {
            GString *tsv = g_string_new("Source\tTarget\n");
            for (int64_t i = 0; i < a->size[s]; i++) {
                a->describe(a, (rf_split)s, i, text, sizeof text);
                a->get(a, (rf_split)s, i, xa, &len_a, &label_a, NULL);
                g_string_append_printf(tsv, "%s\t%d\n", text, label_a);
            }
            write_text(dir, names[s], tsv->str);
            g_string_free(tsv, TRUE);
        }
        rf_dataset *b = open_ok(&files, "the generated samples as LRA files");
        int same = 0, total = 0;
        for (int s = 0; a != NULL && b != NULL && s < RF_SPLIT_COUNT; s++)
            for (int64_t i = 0; i < a->size[s]; i++, total++)
                same += a->get(a, (rf_split)s, i, xa, &len_a, &label_a, NULL) &&
                        b->get(b, (rf_split)s, i, xb, &len_b, &label_b, NULL) && len_a == len_b &&
                        label_a == label_b && memcmp(xa, xb, (size_t)len_a * sizeof *xa) == 0;
        tap_ok(a != NULL && b != NULL && total == 80 && same == total && a->vocab == b->vocab &&
                   a->classes == b->classes,
               "concat %d: listops and lra_tsv give the same ids and labels for the same expressions (%d of %d)",
               concat, same, total);
        rf_dataset_free(a);
        rf_dataset_free(b);
    }
    g_free(dir);
}

static void test_lra_faults(void)
{
    static const struct {
        const char *what, *train, *problem;
    } cases[] = {
        {"unknown token", "Source\tTarget\n( [MAX 2 ] )\t2\n( [FOO 1 ] )\t1\n",
         "basic_train.tsv:3: unknown ListOps token '[FOO'"},
        {"target out of range", "Source\tTarget\n( [MAX 2 ] )\t12\n", "basic_train.tsv:2: target"},
        {"target not a number", "Source\tTarget\n( [MAX 2 ] )\tseven\n", "basic_train.tsv:2: target"},
        {"no tab", "Source\tTarget\n( [MAX 2 ] ) 2\n", "basic_train.tsv:2: expected 'source<TAB>target'"},
        {"three columns", "Source\tTarget\n( [MAX 2 ] )\t2\t1\n", "basic_train.tsv:2: more than two"},
        {"no header", "( [MAX 2 ] )\t2\n", "basic_train.tsv:1: expected the header"},
        {"empty source", "Source\tTarget\n ( ) \t2\n", "basic_train.tsv:2: the source has no tokens"},
        {"header only", "Source\tTarget\n", "basic_train.tsv: no rows after the header"},
        {"empty file", "", "basic_train.tsv: empty file"},
        {"blank line inside", "Source\tTarget\n( [MAX 2 ] )\t2\n\n( [MAX 2 ] )\t2\n", "basic_train.tsv:3: blank line"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char name[32];
        snprintf(name, sizeof name, "lra_bad%zu", k);
        char *dir = make_dir(name);
        write_lra(dir, "basic_", cases[k].train);
        rf_config cfg = config_for("lra_tsv", dir);
        expect_error(&cfg, cases[k].what, dir, cases[k].problem);
        g_free(dir);
    }
    char *dir = make_dir("lra_missing");
    rf_config cfg = config_for("lra_tsv", dir);
    expect_error(&cfg, "no files", dir, "neither basic_train.tsv nor train.tsv");
    write_text(dir, "basic_train.tsv", lra_train);
    expect_error(&cfg, "missing val file", "basic_val.tsv", "cannot open");
    g_free(dir);
}

int main(void)
{
    tmp_root = g_dir_make_tmp("rf-images-XXXXXX", NULL);
    if (!tap_ok(tmp_root != NULL, "temporary folder for the fixtures"))
        return tap_done();
    test_fashion_fixture();
    test_fashion_faults();
    test_fashion_real();
    char *root = write_image_folder("if");
    test_image_folder_values(root);
    test_image_folder_splits(root);
    g_free(root);
    test_image_folder_faults();
    test_ucr();
    test_ucr_faults();
    test_lra();
    test_lra_same_tokens();
    test_lra_faults();
    remove_tree(tmp_root);
    g_free(tmp_root);
    return tap_done();
}
