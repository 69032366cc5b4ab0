/* The featurise hook of every task (core/data.h): an input from outside
 * the data set, given as the same file or text a sample came from, must
 * give exactly that sample's get(); inputs the model cannot take (another
 * kind of file, an unknown token, too long) are refused with one sentence
 * naming the input and what differs. */
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../datasets/datasets.h"
#include "../datasets/featurise.h"
#include "../datasets/image_table.h"
#include "../datasets/listops.h"
#include "tap.h"

static char *tmp_root;

static char *in_tmp(const char *a, const char *b)
{
    return g_build_filename(tmp_root, a, b, NULL);
}

static void remove_tree(const char *path)
{
    GDir *d = g_dir_open(path, 0, NULL);
    if (d != NULL) {
        for (const char *name; (name = g_dir_read_name(d)) != NULL;) {
            char *child = g_build_filename(path, name, NULL);
            remove_tree(child);
            g_free(child);
        }
        g_dir_close(d);
    }
    g_remove(path);
}

static rf_config config_for(const char *task, const char *path)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.data.task, task);
    g_strlcpy(cfg.data.path, path, sizeof cfg.data.path);
    return cfg;
}

static size_t sample_floats(const rf_dataset *ds)
{
    return (size_t)ds->seq_len * (size_t)(ds->feat_dim > 0 ? ds->feat_dim : 1);
}

/* featurise(path or text) equals get(split, index), bit for bit. */
static bool same_as_sample(const rf_dataset *ds, const char *path, const char *text, rf_split split, int64_t index)
{
    size_t n = sample_floats(ds);
    float *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
    int len_a = 0, len_b = 0, label = 0;
    rf_status st = {0};
    bool ok = ds->featurise(ds, path, text, a, &len_a, &st);
    if (!ok)
        tap_diag("featurise: %s", st.msg);
    ok = ok && ds->get(ds, split, index, b, &len_b, &label, &st) && len_a == len_b &&
         memcmp(a, b, n * sizeof *a) == 0;
    if (len_a != len_b)
        tap_diag("lengths %d and %d", len_a, len_b);
    free(a);
    free(b);
    return ok;
}

/* The hook refuses with one sentence holding both pieces. */
static void expect_refusal(const rf_dataset *ds, const char *path, const char *text, const char *what,
                           const char *piece1, const char *piece2)
{
    float *x = calloc(sample_floats(ds), sizeof *x);
    int len = 0;
    rf_status st = {0};
    bool refused = !ds->featurise(ds, path, text, x, &len, &st);
    bool ok = refused && strstr(st.msg, piece1) != NULL && (piece2 == NULL || strstr(st.msg, piece2) != NULL) &&
              strchr(st.msg, '\n') == NULL;
    tap_ok(ok, "%s: %s -> %s", ds->name, what, refused ? st.msg : "accepted");
    free(x);
}

static char *write_png(const char *dir, const char *name, int side, uint8_t (*fill)(int x, int y, int c))
{
    GdkPixbuf *pb = gdk_pixbuf_new(GDK_COLORSPACE_RGB, FALSE, 8, side, side);
    guint8 *px = gdk_pixbuf_get_pixels(pb);
    int stride = gdk_pixbuf_get_rowstride(pb);
    for (int y = 0; y < side; y++)
        for (int x = 0; x < side; x++)
            for (int c = 0; c < 3; c++)
                px[y * stride + x * 3 + c] = fill(x, y, c);
    char *path = g_build_filename(dir, name, NULL);
    gdk_pixbuf_save(pb, path, "png", NULL, NULL);
    g_object_unref(pb);
    return path;
}

static char *write_file(const char *name, const char *text)
{
    char *path = in_tmp(name, NULL);
    g_file_set_contents(path, text, -1, NULL);
    return path;
}

static uint8_t stripes(int x, int y, int c)
{
    return (uint8_t)(x * 29 + y * 7 + c * 80);
}

static bool write_tone(const char *path, int rate, double hz, double seconds)
{
    SF_INFO info = {.samplerate = rate, .channels = 1, .format = SF_FORMAT_WAV | SF_FORMAT_PCM_16};
    SNDFILE *sf = sf_open(path, SFM_WRITE, &info);
    if (sf == NULL)
        return false;
    sf_count_t frames = (sf_count_t)(seconds * rate);
    float *buf = malloc((size_t)frames * sizeof *buf);
    for (sf_count_t i = 0; i < frames; i++)
        buf[i] = (float)(0.5 * sin(2 * M_PI * hz * (double)i / rate));
    bool ok = sf_writef_float(sf, buf, frames) == frames;
    sf_close(sf);
    free(buf);
    return ok;
}

/* An .npy file (version 1.0) of `count` elements of `size` bytes. */
static char *write_npy(const char *name, const char *descr, bool fortran, const char *shape, const void *data,
                       size_t count, size_t size)
{
    GString *h = g_string_new(NULL);
    g_string_printf(h, "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, fortran ? "True" : "False",
                    shape);
    while ((10 + h->len + 1) % 64 != 0)
        g_string_append_c(h, ' ');
    g_string_append_c(h, '\n');
    GByteArray *b = g_byte_array_new();
    guint8 head[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (guint8)(h->len & 0xff), (guint8)(h->len >> 8)};
    g_byte_array_append(b, head, 10);
    g_byte_array_append(b, (const guint8 *)h->str, h->len);
    g_byte_array_append(b, data, (guint)(count * size));
    char *path = in_tmp(name, NULL);
    g_file_set_contents(path, (const char *)b->data, b->len, NULL);
    g_byte_array_unref(b);
    g_string_free(h, TRUE);
    return path;
}

/* rf_dataset_featurise(.npy) equals get(split, index). */
static bool npy_same_as_sample(const rf_dataset *ds, const char *path, rf_split split, int64_t index)
{
    size_t n = sample_floats(ds);
    float *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
    int len_a = 0, len_b = 0, label = 0;
    rf_status st = {0};
    bool ok = rf_dataset_featurise(ds, path, NULL, a, &len_a, &st);
    if (!ok)
        tap_diag("featurise: %s", st.msg);
    ok = ok && ds->get(ds, split, index, b, &len_b, &label, &st) && len_a == len_b &&
         memcmp(a, b, n * sizeof *a) == 0;
    free(a);
    free(b);
    return ok;
}

static void expect_npy_refusal(const rf_dataset *ds, const char *path, const char *what, const char *piece)
{
    float *x = calloc(sample_floats(ds), sizeof *x);
    int len = 0;
    rf_status st = {0};
    bool refused = !rf_dataset_featurise(ds, path, NULL, x, &len, &st);
    tap_ok(refused && strstr(st.msg, piece) != NULL && strstr(st.msg, path) != NULL, "%s: %s -> %s", ds->name, what,
           refused ? st.msg : "accepted");
    free(x);
}

/* ---- token tasks ---- */

static void test_listops(const char *png)
{
    for (int concat = 1; concat <= 2; concat++) {
        rf_config cfg = config_for("listops", "");
        cfg.data.train_size = 20;
        cfg.data.val_size = 5;
        cfg.data.test_size = 5;
        cfg.data.max_len = 40;
        cfg.data.min_len = 5;
        cfg.data.concat = concat;
        rf_status st = {0};
        rf_dataset *ds = rf_dataset_open(&cfg, &st);
        if (!tap_ok(ds != NULL && ds->featurise != NULL, "listops (concat %d) opens with a featurise hook", concat))
            return;
        /* describe() prints the sample itself; with concat it is [MAX e e ]: take e from the stored tokens */
        bool all = true;
        for (int64_t i = 0; i < ds->size[RF_SPLIT_TEST]; i++) {
            float x[200] = {0};
            int len = 0, label = 0;
            ds->get(ds, RF_SPLIT_TEST, i, x, &len, &label, &st);
            int n = concat > 1 ? (len - 2) / concat : len, from = concat > 1 ? 1 : 0;
            GString *text = g_string_new("( ");
            for (int t = 0; t < n; t++)
                g_string_append_printf(text, "%s ", rf_listops_token_text((int)x[from + t]));
            g_string_append(text, ")");
            all &= same_as_sample(ds, NULL, text->str, RF_SPLIT_TEST, i);
            if (i == 0 && concat == 1) {
                char *file = write_file("expr.txt", text->str);
                tap_ok(same_as_sample(ds, file, NULL, RF_SPLIT_TEST, 0), "listops: a file holding sample 0's "
                       "expression featurises to sample 0");
                g_remove(file);
                g_free(file);
            }
            g_string_free(text, TRUE);
        }
        tap_ok(all, "listops (concat %d): every test sample's expression featurises to that sample", concat);
        if (concat == 1) {
            expect_refusal(ds, png, NULL, "an image", "is an image (png)", "takes text (a ListOps expression)");
            expect_refusal(ds, NULL, "[MAX 2 foo ]", "an unknown token", "the text '[MAX 2 foo ]'", "'foo'");
            expect_refusal(ds, NULL, "[MAX 2 3", "an unclosed expression", "not one well-formed", NULL);
            expect_refusal(ds, NULL, "  ", "nothing", "no ListOps tokens", NULL);
            GString *longer = g_string_new("[SM");
            for (int k = 0; k < 45; k++)
                g_string_append(longer, " 1");
            g_string_append(longer, " ]");
            expect_refusal(ds, NULL, longer->str, "47 tokens", "47 tokens", "at most 40");
            g_string_free(longer, TRUE);
            float x[40] = {0};
            int64_t ids[40];
            int len = 0, label = 0;
            ds->get(ds, RF_SPLIT_TEST, 2, x, &len, &label, &st);
            for (int t = 0; t < len; t++)
                ids[t] = (int64_t)x[t];
            char shape[32];
            snprintf(shape, sizeof shape, "(%d,)", len);
            char *npy = write_npy("ids.npy", "<i8", false, shape, ids, (size_t)len, 8);
            tap_ok(npy_same_as_sample(ds, npy, RF_SPLIT_TEST, 2), "listops: test sample 2's ids as an int64 .npy "
                   "featurise to it");
            g_free(npy);
            ids[1] = 16;
            npy = write_npy("bad-id.npy", "<i8", false, shape, ids, (size_t)len, 8);
            expect_npy_refusal(ds, npy, "an id past the vocabulary", "element 1 is 16, not a token id");
            g_free(npy);
            npy = write_npy("matrix.npy", "<i8", false, "(2, 3)", ids, 6, 8);
            expect_npy_refusal(ds, npy, "a 2-D array", "takes a 1-D array of token ids");
            g_free(npy);
        }
        rf_dataset_free(ds);
    }
}

static void test_random(void)
{
    rf_config cfg = config_for("random", "");
    cfg.data.max_len = 12;
    cfg.data.vocab = 50;
    cfg.data.train_size = cfg.data.val_size = cfg.data.test_size = 3;
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    float x[12];
    int len = 0, label = 0;
    ds->get(ds, RF_SPLIT_VAL, 2, x, &len, &label, &st);
    GString *text = g_string_new("");
    for (int t = 0; t < len; t++)
        g_string_append_printf(text, t % 3 ? " %d" : "\t%d", (int)x[t]);
    tap_ok(same_as_sample(ds, NULL, text->str, RF_SPLIT_VAL, 2), "random: a sample's ids as text featurise to it");
    g_string_append(text, " 7");
    expect_refusal(ds, NULL, text->str, "13 ids", "more than 12 token ids", NULL);
    expect_refusal(ds, NULL, "3 50 2", "id 50", "'50' is not a token id", "1..49");
    expect_refusal(ds, NULL, "3 x", "a word", "'x' is not a token id", NULL);
    g_string_free(text, TRUE);
    rf_dataset_free(ds);
}

/* ---- image tasks ---- */

static const uint8_t *stored;   /* the raster write_stored() copies */
static int stored_side, stored_channels;

static uint8_t from_stored(int x, int y, int c)
{
    return stored[(y * stored_side + x) * stored_channels + (stored_channels == 1 ? 0 : c)];
}

static void test_fashion(const char *wav, const char *txt)
{
    rf_config cfg = config_for("fashion_mnist", "");
    cfg.data.train_size = 10;
    cfg.data.val_size = 10;
    cfg.data.test_size = 10;
    cfg.data.patch = 4;
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    if (ds == NULL) {
        tap_skip("fashion_mnist: featurise of a sample written as PNG", "data set not installed (%s)", st.msg);
        return;
    }
    int h, w;
    stored = rf_image_pixels(ds, RF_SPLIT_TEST, 3, &h, &w, &stored_channels);
    stored_side = w;
    char *png = write_png(tmp_root, "fashion3.png", w, from_stored);
    tap_ok(same_as_sample(ds, png, NULL, RF_SPLIT_TEST, 3), "fashion_mnist: test sample 3 written as a PNG "
           "featurises to the sample (4x4 patches, the data set's normalisation)");
    expect_refusal(ds, NULL, "[MAX 1 2 ]", "text", "is text", "takes an image file (28x28 gray)");
    expect_refusal(ds, wav, NULL, "an audio clip", "is an audio clip (wav)", "takes an image file");
    expect_refusal(ds, txt, NULL, "a text file", "is text", "takes an image file");
    /* the sample's features as .npy: float32 in C order, then big-endian float64 in Fortran order */
    size_t n = sample_floats(ds);
    float *x = calloc(n, sizeof *x);
    double *t = calloc(n, sizeof *t);
    int len = 0, label = 0;
    ds->get(ds, RF_SPLIT_TEST, 3, x, &len, &label, &st);
    char *npy = write_npy("features.npy", "<f4", false, "(49, 16)", x, n, 4);
    tap_ok(npy_same_as_sample(ds, npy, RF_SPLIT_TEST, 3), "fashion_mnist: test sample 3's features as a float32 "
           ".npy featurise to it");
    g_free(npy);
    for (int i = 0; i < 49; i++)
        for (int j = 0; j < 16; j++) {
            double v = x[i * 16 + j];
            guint64 bits;
            memcpy(&bits, &v, 8);
            bits = GUINT64_TO_BE(bits);
            memcpy(&t[j * 49 + i], &bits, 8);
        }
    npy = write_npy("features-f.npy", ">f8", true, "(49, 16)", t, n, 8);
    tap_ok(npy_same_as_sample(ds, npy, RF_SPLIT_TEST, 3), "fashion_mnist: the same as big-endian float64 in Fortran "
           "order");
    g_free(npy);
    g_autofree float *rgb = g_new0(float, 49 * 48);
    npy = write_npy("rgb.npy", "<f4", false, "(49, 48)", rgb, 49 * 48, 4);
    expect_npy_refusal(ds, npy, "three channels' patches", "48 values per position; this fashion_mnist model takes 16");
    g_free(npy);
    npy = write_npy("short.npy", "<f4", false, "(49, 16)", x, n / 2, 4);
    expect_npy_refusal(ds, npy, "data cut short", "shape (49, 16) of float32 needs 3136 bytes");
    g_free(npy);
    free(x);
    free(t);
    g_remove(png);
    g_free(png);
    rf_dataset_free(ds);
}

static uint8_t shade(int x, int y, int c)
{
    return (uint8_t)(x * 20 + c * 60 + y);
}

static uint8_t checker(int x, int y, int c)
{
    return (uint8_t)(((x / 2 + y / 2) % 2) * 200 + c * 20);
}

static void test_image_folder(const char *wav)
{
    char *root = in_tmp("images", NULL);
    uint8_t (*fills[2])(int, int, int) = {shade, checker};
    const char *classes[2] = {"cat", "dog"};
    for (int c = 0; c < 2; c++) {
        char *dir = in_tmp("images", classes[c]);
        g_mkdir_with_parents(dir, 0700);
        for (int k = 0; k < 4; k++) {
            char name[16];
            snprintf(name, sizeof name, "%d.png", k);
            /* different sizes: the hook resizes as the loader does */
            g_free(write_png(dir, name, 10 + k * 3, fills[c]));
        }
        g_free(dir);
    }
    for (int rgb = 0; rgb < 2; rgb++) {
        rf_config cfg = config_for("image_folder", root);
        cfg.data.image_size = 8;
        cfg.data.patch = rgb ? 2 : 0;
        strcpy(cfg.data.channels, rgb ? "rgb" : "gray");
        cfg.data.val_size = 1;
        cfg.data.test_size = 1;
        rf_status st = {0};
        rf_dataset *ds = rf_dataset_open(&cfg, &st);
        if (!tap_ok(ds != NULL, "image_folder (%s) opens %s", cfg.data.channels, st.msg))
            continue;
        int matched = 0, total = 0;
        for (int s = 0; s < RF_SPLIT_COUNT; s++)
            for (int64_t i = 0; i < ds->size[s]; i++) {
                char text[256];
                ds->describe(ds, (rf_split)s, i, text, sizeof text);
                char *open = strrchr(text, '('), *close = strrchr(text, ')');
                *close = '\0';
                char *file = g_build_filename(root, open + 1, NULL);
                matched += same_as_sample(ds, file, NULL, (rf_split)s, i);
                total++;
                g_free(file);
            }
        tap_ok(matched == total && total == 8, "image_folder (%s): each of its %d files featurises to its sample "
               "(%d matched)", cfg.data.channels, total, matched);
        expect_refusal(ds, wav, NULL, "an audio clip", "is an audio clip (wav)", "takes an image file (8x8");
        expect_refusal(ds, NULL, "1 2 3", "text", "the text '1 2 3' is text", NULL);
        char *missing = in_tmp("no-such.png", NULL);
        expect_refusal(ds, missing, NULL, "a missing file", "no-such.png: not a readable", NULL);
        g_free(missing);
        rf_dataset_free(ds);
    }
    remove_tree(root);
    g_free(root);
}

/* ---- audio ---- */

static void test_audio_folder(const char *png)
{
    char *root = in_tmp("audio", NULL);
    const char *classes[2] = {"high", "low"};
    for (int c = 0; c < 2; c++) {
        char *dir = in_tmp("audio", classes[c]);
        g_mkdir_with_parents(dir, 0700);
        for (int k = 0; k < 3; k++) {
            char name[16];
            snprintf(name, sizeof name, "%d.wav", k);
            char *path = g_build_filename(dir, name, NULL);
            write_tone(path, 16000, c ? 300 + 50 * k : 2000 + 100 * k, 0.2 + 0.05 * k);
            g_free(path);
        }
        g_free(dir);
    }
    rf_config cfg = config_for("audio_folder", root);
    cfg.data.sample_rate = 8000;
    cfg.data.mel_bins = 16;
    cfg.data.max_frames = 40;
    cfg.data.val_size = 1;
    cfg.data.test_size = 1;
    strcpy(cfg.data.cache, "off");
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    if (tap_ok(ds != NULL, "audio_folder opens %s", st.msg)) {
        int matched = 0, total = 0;
        for (int s = 0; s < RF_SPLIT_COUNT; s++)
            for (int64_t i = 0; i < ds->size[s]; i++) {
                char text[256];
                ds->describe(ds, (rf_split)s, i, text, sizeof text);
                *strchr(text, ' ') = '\0';
                char *file = g_build_filename(root, text, NULL);
                matched += same_as_sample(ds, file, NULL, (rf_split)s, i);
                total++;
                g_free(file);
            }
        tap_ok(matched == total && total == 6, "audio_folder: each of its %d clips featurises to its sample "
               "(resampled 16 -> 8 kHz, log-mel, the training split's normalisation; %d matched)", total, matched);
        char *longer = in_tmp("long.wav", NULL);
        write_tone(longer, 16000, 440, 1.0);
        expect_refusal(ds, longer, NULL, "a 1 s clip", "1.00 s long", "(40 frames)");
        expect_refusal(ds, png, NULL, "an image", "is an image (png)", "takes an audio clip");
        expect_refusal(ds, NULL, "[MAX 1 ]", "text", "is text", "takes an audio clip");
        g_remove(longer);
        g_free(longer);
        rf_dataset_free(ds);
    }
    remove_tree(root);
    g_free(root);
}

/* ---- tables ---- */

static void test_ucr(const char *png)
{
    char *dir = in_tmp("ucr", NULL);
    g_mkdir_with_parents(dir, 0700);
    char *train = g_build_filename(dir, "Toy_TRAIN.tsv", NULL), *test = g_build_filename(dir, "Toy_TEST.tsv", NULL);
    g_file_set_contents(train, "1\t0.5\t1.5\t-2\t3\n2\t1\t2\t3\t4\n1\t0\t0\t1\t1\n2\t4\t3\t2\t1\n", -1, NULL);
    const char *first_test = "2\t-1.25\t0.75\t2.5\tNaN";
    char *test_text = g_strdup_printf("%s\n1\t3\t2\t1\t0\n", first_test);
    g_file_set_contents(test, test_text, -1, NULL);
    rf_config cfg = config_for("ucr", dir);
    cfg.data.val_size = 1;
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    if (tap_ok(ds != NULL, "ucr opens %s", st.msg)) {
        tap_ok(same_as_sample(ds, NULL, first_test, RF_SPLIT_TEST, 0), "ucr: the test file's first line as text "
               "featurises to test sample 0 (NaN padding ends the series)");
        char *one = write_file("ucr-line.tsv", "\n2\t3\t2\t1\t0\r\n\n");
        tap_ok(same_as_sample(ds, one, NULL, RF_SPLIT_TEST, 1), "ucr: a file of one line (CRLF, blank lines "
               "around) featurises to its sample");
        g_remove(one);
        g_free(one);
        expect_refusal(ds, NULL, "1\t1\t2\t3\t4\t5", "5 values", "5 values", "at most 4");
        expect_refusal(ds, NULL, "1\t1\tx\t3", "a word", "'x' is not a number", NULL);
        expect_refusal(ds, NULL, "1\t1\t2\n1\t2\t3", "two lines", "more than one line", NULL);
        expect_refusal(ds, png, NULL, "an image", "is an image (png)", "takes text");
        rf_dataset_free(ds);
    }
    remove_tree(dir);
    g_free(dir);
    g_free(train);
    g_free(test);
    g_free(test_text);
}

static void test_lra(void)
{
    char *dir = in_tmp("lra", NULL);
    g_mkdir_with_parents(dir, 0700);
    const char *rows[3] = {"( ( [MAX 2 9 ) ] )\t9\n( [MIN 4 7 ] )\t4\n", "( [SM 1 2 ] )\t3\n",
                           "( ( ( [MED 1 5 ) 3 ) ] )\t3\n( [MAX 0 ] )\t0\n"};
    const char *names[3] = {"basic_train.tsv", "basic_val.tsv", "basic_test.tsv"};
    for (int s = 0; s < 3; s++) {
        char *path = g_build_filename(dir, names[s], NULL);
        char *text = g_strconcat("Source\tTarget\n", rows[s], NULL);
        g_file_set_contents(path, text, -1, NULL);
        g_free(text);
        g_free(path);
    }
    rf_config cfg = config_for("lra_tsv", dir);
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    if (tap_ok(ds != NULL, "lra_tsv opens %s", st.msg)) {
        tap_ok(same_as_sample(ds, NULL, "( ( ( [MED 1 5 ) 3 ) ] )\t3", RF_SPLIT_TEST, 0),
               "lra_tsv: a row as text featurises to its sample");
        tap_ok(same_as_sample(ds, NULL, "[MIN 4 7 ]", RF_SPLIT_TRAIN, 1), "lra_tsv: the source alone too");
        char *one = write_file("lra-row.tsv", "( [SM 1 2 ] )\t3\n");
        tap_ok(same_as_sample(ds, one, NULL, RF_SPLIT_VAL, 0), "lra_tsv: a file of one row featurises to its sample");
        g_remove(one);
        g_free(one);
        expect_refusal(ds, NULL, "[MAX 1 2 3 4 5 6 7 ]", "9 tokens", "9 tokens", "at most 5");
        expect_refusal(ds, NULL, "[MAX 1 Q ]", "a word", "unknown ListOps token 'Q'", NULL);
        expect_refusal(ds, NULL, " ( ) \t3", "a row without tokens", "no ListOps tokens", "lra_tsv model");
        rf_dataset_free(ds);
    }
    remove_tree(dir);
    g_free(dir);
}

int main(void)
{
    tmp_root = g_dir_make_tmp("rf-featurise-XXXXXX", NULL);
    char *png = write_png(tmp_root, "picture.png", 12, stripes);
    char *wav = in_tmp("clip.wav", NULL);
    write_tone(wav, 8000, 440, 0.1);
    char *txt = write_file("notes.txt", "just some words\n");
    test_listops(png);
    test_random();
    test_fashion(wav, txt);
    test_image_folder(wav);
    test_audio_folder(png);
    test_ucr(png);
    test_lra();
    g_free(png);
    g_free(wav);
    g_free(txt);
    remove_tree(tmp_root);
    g_free(tmp_root);
    return tap_done();
}
