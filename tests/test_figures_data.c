/* The Data view's sample figure, headless: a picture reassembled from patch
 * tokens is drawn pixel for pixel (and zoomed), audio draws its waveform and
 * its spectrogram, a ListOps expression draws with the right nesting levels,
 * other sequences draw as a line or a heat strip, and every hover reads back
 * the real value under the pointer. Real data sets (generated ListOps, an
 * audio folder and a text folder written here, random tokens) go through the Data view's
 * sample loader (ui/figures/data_sample.c) into the figure. With RF_FIGURE_DIR set, each drawing is
 * also written there as a PNG to look at. */
#include <cairo.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sndfile.h>

#include "../datasets/audio_folder.h"
#include "../datasets/datasets.h"
#include "../datasets/listops.h"
#include "../datasets/logmel.h"
#include "../ui/figures/prediction_figure.h"
#include "../ui/figures/sample_figure.h"
#include "../ui/figures/data_sample.h"
#include "../ui/figures/position_words.h"
#include "tap.h"

#define W 1000
#define H 640
#define HEADER 50   /* the figure's header: nothing but text above this */

typedef struct canvas {
    cairo_surface_t *surface;
    const uint8_t *data;
    int stride;
} canvas;

static canvas render(rf_sample_figure *f, const rf_zoom *zoom, const char *name)
{
    canvas c;
    c.surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
    cairo_t *cr = cairo_create(c.surface);
    rf_figure fig = rf_sample_figure_get(f);
    fig.draw(fig.data, cr, W, H, zoom);
    cairo_destroy(cr);
    cairo_surface_flush(c.surface);
    c.data = cairo_image_surface_get_data(c.surface);
    c.stride = cairo_image_surface_get_stride(c.surface);
    const char *dir = g_getenv("RF_FIGURE_DIR");
    if (dir != NULL) {
        char *path = g_strdup_printf("%s/%s.png", dir, name);
        cairo_surface_write_to_png(c.surface, path);
        g_free(path);
    }
    return c;
}

static void pixel(const canvas *c, int x, int y, int *r, int *g, int *b)
{
    uint32_t v = *(const uint32_t *)(c->data + (size_t)y * c->stride + (size_t)x * 4);
    *r = v >> 16 & 0xff;
    *g = v >> 8 & 0xff;
    *b = v & 0xff;
}

/* Pixels of clear hue (plot data and colour maps; not the greys of text,
 * grid lines and frames) in rows [y0, y1). */
static int coloured(const canvas *c, int y0, int y1)
{
    int n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < W; x++) {
            int r, g, b;
            pixel(c, x, y, &r, &g, &b);
            int hi = r > g ? (r > b ? r : b) : (g > b ? g : b), lo = r < g ? (r < b ? r : b) : (g < b ? g : b);
            n += hi - lo > 40;
        }
    return n;
}

static bool hover(rf_sample_figure *f, const rf_zoom *zoom, double x, double y, char *text, size_t size)
{
    rf_figure fig = rf_sample_figure_get(f);
    return fig.hover(fig.data, W, H, zoom, x, y, text, size);
}

/* ---- a picture from patch tokens ---- */

#define SIDE 28
#define PATCH 4

static uint8_t test_byte(int row, int col)
{
    /* a checkerboard of two gradients: every cell differs from its neighbours */
    return (uint8_t)((row + col) % 2 ? 30 + 7 * row : 220 - 6 * col);
}

static bool inked(const canvas *c, int x, int y)
{
    int r, g, b;
    pixel(c, x, y, &r, &g, &b);
    return r < 250 || g < 250 || b < 250;
}

/* The bounding box of the picture: the non-white pixels below the header
 * and above the caption, in the columns that run on from the first inked
 * one (a grey picture's legend stands apart on its right). */
static void ink_box(const canvas *c, int *x0, int *y0, int *x1, int *y1)
{
    *x0 = W;
    *y0 = H;
    *x1 = *y1 = -1;
    int first = -1, last = -1;
    for (int x = 0; x < W && (first < 0 || last == x - 1); x++) {
        bool any = false;
        for (int y = HEADER; y < H - 30 && !any; y++)
            any = inked(c, x, y);
        if (any && first < 0)
            first = x;
        if (any)
            last = x;
    }
    for (int y = HEADER; y < H - 30; y++)
        for (int x = first; x >= 0 && x <= last; x++) {
            if (inked(c, x, y)) {
                *x0 = x < *x0 ? x : *x0;
                *x1 = x > *x1 ? x : *x1;
                *y0 = y < *y0 ? y : *y0;
                *y1 = y > *y1 ? y : *y1;
            }
        }
}

/* Compares the centre of every visible cell with the source; returns mismatches. */
static int check_cells(const canvas *c, int first_row, int first_col, int rows, int cols)
{
    int x0, y0, x1, y1, bad = 0;
    ink_box(c, &x0, &y0, &x1, &y1);
    double cw = (x1 - x0 - 1) / (double)cols, ch = (y1 - y0 - 1) / (double)rows;   /* 1 px frame each side */
    for (int row = 0; row < rows; row++)
        for (int col = 0; col < cols; col++) {
            int r, g, b;
            pixel(c, (int)(x0 + 1 + (col + 0.5) * cw), (int)(y0 + 1 + (row + 0.5) * ch), &r, &g, &b);
            int want = test_byte(first_row + row, first_col + col);
            if (abs(r - want) > 1 || r != g || g != b) {
                if (bad++ < 3)
                    tap_diag("cell (%d, %d): drawn %d %d %d, want %d", first_row + row, first_col + col, r, g, b,
                             want);
            }
        }
    return bad;
}

static void test_picture(void)
{
    /* The sample as a data set gives it: 7 x 7 patch tokens of 16 normalised values. */
    const float mean = 0.2860f, std = 0.3530f;
    float pixels[SIDE * SIDE], tokens[SIDE * SIDE], image[SIDE * SIDE];
    uint8_t bytes[SIDE * SIDE];
    for (int row = 0; row < SIDE; row++)
        for (int col = 0; col < SIDE; col++) {
            bytes[row * SIDE + col] = test_byte(row, col);
            pixels[row * SIDE + col] = (test_byte(row, col) / 255.0f - mean) / std;
        }
    const int grid = SIDE / PATCH, feat = PATCH * PATCH;
    for (int gy = 0; gy < grid; gy++)
        for (int gx = 0; gx < grid; gx++)
            for (int k = 0; k < feat; k++)
                tokens[(gy * grid + gx) * feat + k] = pixels[(gy * PATCH + k / PATCH) * SIDE + gx * PATCH + k % PATCH];

    int h, w, ch, p;
    bool ok = rf_sample_unpatch(tokens, grid, grid, feat, image, &h, &w, &ch, &p);
    tap_ok(ok && h == SIDE && w == SIDE && ch == 1 && p == PATCH, "16 features per token unpatch to 28x28 gray, patch 4");
    tap_ok(ok && memcmp(image, pixels, sizeof pixels) == 0, "unpatched values are the pixels in raster order");
    tap_ok(rf_sample_unpatch(tokens, 2, 2, 48, NULL, &h, &w, &ch, &p) && ch == 3 && p == 4 && h == 8,
           "48 features per token read as 4x4 RGB patches");
    tap_ok(!rf_sample_unpatch(tokens, 2, 2, 20, NULL, &h, &w, &ch, &p), "20 features per token fit no patch layout");

    rf_sample_figure *f = rf_sample_figure_new();
    rf_sample_figure_set_caption(f, "train #0: test pattern", "label: pattern (class 3)");
    rf_sample_figure_set_picture(f, bytes, image, SIDE, SIDE, 1, 1);
    canvas c = render(f, &RF_ZOOM_ALL, "picture");
    int bad = check_cells(&c, 0, 0, SIDE, SIDE);
    tap_ok(bad == 0, "every one of the 784 pixels is drawn as one flat cell of its value (%d differ)", bad);
    cairo_surface_destroy(c.surface);

    rf_zoom quarter = {0.5, 1.0, 0.0, 0.5};
    c = render(f, &quarter, "picture-zoomed");
    bad = check_cells(&c, 0, SIDE / 2, SIDE / 2, SIDE / 2);
    tap_ok(bad == 0, "zoomed to the top-right quarter, its 14x14 pixels fill the view (%d differ)", bad);
    cairo_surface_destroy(c.surface);

    /* Hover over the centre of pixel (row 5, col 9), shown with its patch grid. */
    rf_sample_figure_set_picture(f, bytes, image, SIDE, SIDE, 1, PATCH);
    c = render(f, &RF_ZOOM_ALL, "picture-patches");
    int x0, y0, x1, y1;
    ink_box(&c, &x0, &y0, &x1, &y1);
    double cell = (x1 - x0 - 1) / (double)SIDE;
    char text[256], want[256];
    bool hit = hover(f, &RF_ZOOM_ALL, x0 + 1 + 9.5 * cell, y0 + 1 + 5.5 * cell, text, sizeof text);
    snprintf(want, sizeof want, "row 5, col 9: pixel %u · input %.3g · token %d", test_byte(5, 9),
             pixels[5 * SIDE + 9], (5 / PATCH) * grid + 9 / PATCH);
    tap_ok(hit && strcmp(text, want) == 0, "hover reads the pixel, its input value and its token: '%s'", text);
    tap_ok(!hover(f, &RF_ZOOM_ALL, 3, H / 2, text, sizeof text), "hover left of the picture reads nothing");
    cairo_surface_destroy(c.surface);

    /* Without the stored bytes the values are stretched to the full gray range. */
    rf_sample_figure_set_picture(f, NULL, image, SIDE, SIDE, 1, 1);
    c = render(f, &RF_ZOOM_ALL, "picture-stretched");
    ink_box(&c, &x0, &y0, &x1, &y1);
    cell = (x1 - x0 - 1) / (double)SIDE;
    int darkest = 255, lightest = 0;
    for (int row = 0; row < SIDE; row++)
        for (int col = 0; col < SIDE; col++) {
            int r, g, b;
            pixel(&c, (int)(x0 + 1 + (col + 0.5) * cell), (int)(y0 + 1 + (row + 0.5) * cell), &r, &g, &b);
            darkest = r < darkest ? r : darkest;
            lightest = r > lightest ? r : lightest;
        }
    tap_ok(darkest <= 1 && lightest >= 254, "values without bytes span black to white (%d..%d)", darkest, lightest);
    cairo_surface_destroy(c.surface);
    rf_sample_figure_free(f);
}

/* ---- audio ---- */

static void test_audio(void)
{
    const int rate = 16000, bins = 64;
    const int64_t n = rate * 3 / 4;
    float *wave = malloc((size_t)n * sizeof *wave);
    double phase = 0;
    for (int64_t i = 0; i < n; i++) {   /* a chirp from 200 Hz to 4 kHz, fading in */
        double t = (double)i / rate, hz = 200 + 3800 * t / 0.75;
        phase += 2 * M_PI * hz / rate;
        wave[i] = (float)(0.8 * fmin(1.0, t * 4) * sin(phase));
    }
    rf_status st = {0};
    rf_logmel *lm = rf_logmel_new(rate, bins, 1000, &st);
    int frames = rf_logmel_frames(lm, n);
    float *mel = malloc((size_t)frames * bins * sizeof *mel), hz[64];
    rf_logmel_compute(lm, wave, n, mel);
    for (int b = 0; b < bins; b++)
        hz[b] = (float)rf_hz_from_mel(rf_mel_from_hz(rate / 2.0) * (b + 1) / (bins + 1));

    rf_sample_figure *f = rf_sample_figure_new();
    rf_sample_figure_set_caption(f, "train #4: chirp.wav (0.75 s)", "label: chirp (class 1)");
    rf_sample_figure_set_audio(f, wave, n, rate, NULL, mel, frames, bins, RF_LOGMEL_HOP_MS / 1000.0, hz);
    canvas c = render(f, &RF_ZOOM_ALL, "audio");
    int body = H - HEADER, split = HEADER + (int)(body * 0.36);
    int top = coloured(&c, HEADER, split), bottom = coloured(&c, split, H);
    tap_ok(top > 5000, "the waveform panel draws the signal (%d coloured pixels)", top);
    tap_ok(bottom > (H - split) * W / 3, "the spectrogram panel is mostly colour map (%d coloured pixels)", bottom);

    /* Hover reads back the real values: scan down a column through both panels. */
    bool wave_ok = false, spec_ok = true;
    int spec_hits = 0;
    char text[256];
    for (int y = HEADER; y < H; y += 2) {
        if (!hover(f, &RF_ZOOM_ALL, W / 2, y, text, sizeof text))
            continue;
        long long sample;
        double amplitude, seconds, db;
        int frame, bin;
        char hzs[32];
        if (sscanf(text, "%lf s (sample %lld): amplitude %lf", &seconds, &sample, &amplitude) == 3) {
            wave_ok = sample >= 0 && sample < n && fabs(amplitude - wave[sample]) < 1e-4;
        } else if (sscanf(text, "%lf s (frame %d), %31s Hz (mel bin %d): %lf dB", &seconds, &frame, hzs, &bin, &db) ==
                   5) {
            double want = mel[(size_t)frame * bins + bin] * 10.0 / log(10.0);
            spec_ok = spec_ok && fabs(db - want) < 0.05;
            spec_hits++;
        }
    }
    tap_ok(wave_ok, "hover on the waveform reads the sample's amplitude");
    tap_ok(spec_hits > 20 && spec_ok, "hover on the spectrogram reads each cell's dB (%d cells checked)", spec_hits);

    /* Zoom into the last quarter: the spectrogram still fills its panel. */
    rf_zoom tail = {0.75, 1.0, 0.0, 1.0};
    canvas z = render(f, &tail, "audio-zoomed");
    tap_ok(coloured(&z, split, H) > (H - split) * W / 3, "zoomed, the spectrogram still fills its panel");
    hover(f, &tail, 200, H - 100, text, sizeof text);
    double seconds = 0;
    sscanf(text, "%lf s", &seconds);
    tap_ok(seconds >= 0.75 * frames * RF_LOGMEL_HOP_MS / 1000.0 - 0.01, "zoomed, hover reads times in the last quarter "
           "('%s')", text);
    cairo_surface_destroy(z.surface);
    cairo_surface_destroy(c.surface);

    rf_sample_figure_set_audio(f, NULL, 0, rate, "chirp.wav: file not found", mel, frames, bins, 0.01, hz);
    c = render(f, &RF_ZOOM_ALL, "audio-no-wave");
    tap_ok(coloured(&c, HEADER, split) < 200 && coloured(&c, split, H) > (H - split) * W / 3,
           "without the file the spectrogram is drawn and the waveform panel holds a note");
    cairo_surface_destroy(c.surface);
    rf_sample_figure_free(f);
    rf_logmel_free(lm);
    free(mel);
    free(wave);
}

/* ---- ListOps ---- */

static void test_listops(void)
{
    const char *expr[] = {"[MAX", "2", "9", "[MIN", "4", "[SM", "7", "1", "]", "]", "0", "]"};
    const int want_level[] = {1, 2, 2, 2, 3, 3, 4, 4, 3, 2, 2, 1};
    const int n = (int)(sizeof expr / sizeof expr[0]);
    rf_sample_figure *f = rf_sample_figure_new();
    rf_sample_figure_set_caption(f, "train #0: [MAX 2 9 [MIN 4 [SM 7 1 ] ] 0 ]", "label: 9");
    rf_sample_figure_set_tokens(f, expr, n);
    tap_ok(rf_sample_figure_tree_depth(f) == 4, "tree depth of [MAX 2 9 [MIN 4 [SM 7 1 ] ] 0 ] is 4 (got %d)",
           rf_sample_figure_tree_depth(f));
    canvas c = render(f, &RF_ZOOM_ALL, "listops-small");
    tap_ok(coloured(&c, HEADER, HEADER + 40) > 100, "the tokens are drawn in colour");

    /* Sweep the first text line: every token is found with its level. */
    bool seen[16] = {false}, levels_ok = true;
    char text[256];
    for (int x = 0; x < W; x++) {
        int token, level, depth;
        char word[16];
        if (!hover(f, &RF_ZOOM_ALL, x, HEADER + 18, text, sizeof text) ||
            sscanf(text, "token %d: %15s · level %d of %d", &token, word, &level, &depth) != 4)
            continue;
        seen[token] = true;
        levels_ok = levels_ok && token < n && strcmp(word, expr[token]) == 0 && level == want_level[token] &&
                    depth == 4;
    }
    int found = 0;
    for (int i = 0; i < n; i++)
        found += seen[i];
    tap_ok(found == n && levels_ok, "hover on the text finds all %d tokens with their levels (%d found)", n, found);
    cairo_surface_destroy(c.surface);

    /* A generated ListOps sample through the Data view's loader: long,
     * wrapped, its depth within the config's. */
    rf_config cfg;
    rf_config_defaults(&cfg);
    rf_config_set(&cfg, "data.train_size", "4", NULL);
    rf_config_set(&cfg, "data.val_size", "1", NULL);
    rf_config_set(&cfg, "data.test_size", "1", NULL);
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    tap_ok(rf_data_kind_of(ds) == RF_DATA_LISTOPS, "ListOps data get the expression view");
    float *x = calloc((size_t)ds->seq_len, sizeof *x);
    int len = 0, label = 0;
    ds->get(ds, RF_SPLIT_TRAIN, 0, x, &len, &label, &st);
    tap_ok(rf_data_sample_show(f, ds, RF_SPLIT_TRAIN, 0) == NULL, "a ListOps sample has no audio to play");
    int depth = rf_sample_figure_tree_depth(f);
    tap_ok(depth >= 2 && depth <= cfg.data.max_depth, "a generated sample of %d tokens has tree depth %d (max %d)", len,
           depth, cfg.data.max_depth);
    c = render(f, &RF_ZOOM_ALL, "listops");
    int text_ink = coloured(&c, HEADER, H / 2), profile = coloured(&c, H / 2 + 60, H);
    tap_ok(text_ink > 2000 && profile > 300, "text and level profile both draw (%d and %d coloured pixels)", text_ink,
           profile);
    rf_zoom later = {0.5, 0.75, 0, 1};
    hover(f, &later, 18, HEADER + 18, text, sizeof text);
    int first = -1;
    sscanf(text, "token %d", &first);
    tap_ok(first == len / 2, "zoomed to the second half, the text starts at token %d ('%s')", len / 2, text);
    /* position words: a map's cells named by the tokens, the model's CLS first */
    int named = 0;
    char **words = rf_position_words_range(ds, x, len, 1, 0, ds->seq_len, &named);
    bool tokens = words != NULL && named == 1 + len && strcmp(words[0], "CLS") == 0;
    for (int i = 0; tokens && i < len; i++)
        tokens = strcmp(words[1 + i], rf_listops_token_text((int)x[i])) == 0;
    tap_ok(tokens && words[1][0] == '[', "ListOps positions are named by their tokens after the CLS, cut to the "
           "sample's %d tokens (%d names, the first '%s')", len, named, words != NULL ? words[1] : "");
    g_strfreev(words);
    cairo_surface_destroy(c.surface);
    free(x);
    rf_dataset_free(ds);
    rf_sample_figure_free(f);
}

/* ---- other sequences ---- */

static void test_sequences(void)
{
    enum { LEN = 300, FEAT = 8 };
    float series[LEN], strip[LEN * FEAT], ids[LEN];
    for (int i = 0; i < LEN; i++) {
        series[i] = (float)sin(i * 0.05) * (1 + i / 100.0f);
        ids[i] = (float)(1 + (i * 7) % 31);
        for (int k = 0; k < FEAT; k++)
            strip[i * FEAT + k] = (float)cos(i * 0.03 * (k + 1));
    }
    rf_sample_figure *f = rf_sample_figure_new();
    rf_sample_figure_set_caption(f, "train #3: Adiac_TRAIN.tsv line 4, class 2, 300 values", "label: 2");
    char text[256];

    rf_sample_figure_set_sequence(f, series, LEN, 1);
    canvas c = render(f, &RF_ZOOM_ALL, "series");
    tap_ok(coloured(&c, HEADER, H) > 500, "a series draws as a line");
    int position = -1, hits = 0;
    double value;
    bool values_ok = true;
    for (int x = 0; x < W; x += 7)
        if (hover(f, &RF_ZOOM_ALL, x, H / 2, text, sizeof text) && sscanf(text, "position %d: %lf", &position,
                                                                             &value) == 2) {
            hits++;
            values_ok = values_ok && position >= 0 && position < LEN && fabs(value - series[position]) < 1e-3;
        }
    tap_ok(hits > 50 && values_ok, "hover along the series reads each position's value (%d read)", hits);
    cairo_surface_destroy(c.surface);

    rf_sample_figure_set_sequence(f, ids, LEN, 0);
    c = render(f, &RF_ZOOM_ALL, "token-ids");
    tap_ok(coloured(&c, HEADER, H) > 300, "token ids draw as points");
    cairo_surface_destroy(c.surface);

    rf_sample_figure_set_sequence(f, strip, LEN, FEAT);
    c = render(f, &RF_ZOOM_ALL, "strip");
    tap_ok(coloured(&c, HEADER, H) > W * (H - HEADER) / 3, "feature vectors draw as a heat strip");
    hits = 0;
    values_ok = true;
    for (int y = HEADER; y < H; y += 9) {
        int feature;
        if (hover(f, &RF_ZOOM_ALL, W / 3, y, text, sizeof text) &&
            sscanf(text, "position %d, feature %d: %lf", &position, &feature, &value) == 3) {
            hits++;
            values_ok = values_ok && fabs(value - strip[position * FEAT + feature]) < 1e-3;
        }
    }
    tap_ok(hits > 10 && values_ok, "hover on the strip reads each cell's value (%d read)", hits);
    cairo_surface_destroy(c.surface);

    rf_sample_figure_set_message(f, "Open a data set to browse its samples");
    c = render(f, &RF_ZOOM_ALL, "message");
    tap_ok(!hover(f, &RF_ZOOM_ALL, W / 2, H / 2, text, sizeof text), "a message reads nothing on hover");
    cairo_surface_destroy(c.surface);
    rf_sample_figure_free(f);
}

/* ---- real data sets through the Data view's loader ---- */

static void write_tone(const char *dir, const char *name, int rate, double hz, double seconds)
{
    char *path = g_build_filename(dir, name, NULL);
    SF_INFO info = {.samplerate = rate, .channels = 1, .format = SF_FORMAT_WAV | SF_FORMAT_PCM_16};
    SNDFILE *sf = sf_open(path, SFM_WRITE, &info);
    int n = (int)(rate * seconds);
    float *wave = malloc((size_t)n * sizeof *wave);
    for (int i = 0; i < n; i++)
        wave[i] = (float)(0.5 * sin(2 * M_PI * hz * i / rate));
    sf_write_float(sf, wave, n);
    sf_close(sf);
    free(wave);
    g_free(path);
}

static void remove_clips(char *root, const char *const classes[2])
{
    for (int k = 0; k < 2; k++) {
        for (int j = 0; j < 2; j++) {
            char *path = g_build_filename(root, classes[k], j ? "b.wav" : "a.wav", NULL);
            g_remove(path);
            g_free(path);
        }
        char *dir = g_build_filename(root, classes[k], NULL);
        g_rmdir(dir);
        g_free(dir);
    }
    g_rmdir(root);
    g_free(root);
}

static void test_audio_folder(void)
{
    char *root = g_dir_make_tmp("rf-data-view-XXXXXX", NULL);
    const char *const classes[2] = {"high", "low"};
    for (int c = 0; c < 2; c++) {
        char *dir = g_build_filename(root, classes[c], NULL);
        g_mkdir_with_parents(dir, 0700);
        write_tone(dir, "a.wav", 22050, c ? 300 : 2500, 0.5);
        write_tone(dir, "b.wav", 22050, c ? 400 : 3000, 0.5);
        g_free(dir);
    }
    rf_config cfg;
    rf_config_defaults(&cfg);
    rf_status st = {0};
    bool set = rf_config_set(&cfg, "data.task", "audio_folder", &st) && rf_config_set(&cfg, "data.path", root, &st) &&
               rf_config_set(&cfg, "data.sample_rate", "8000", &st) && rf_config_set(&cfg, "data.mel_bins", "40", &st) &&
               rf_config_set(&cfg, "data.val_size", "1", &st) && rf_config_set(&cfg, "data.test_size", "1", &st) &&
               rf_config_set(&cfg, "data.cache", "off", &st);
    rf_dataset *ds = set ? rf_dataset_open(&cfg, &st) : NULL;
    tap_ok(ds != NULL && rf_data_kind_of(ds) == RF_DATA_AUDIO, "an audio folder gets the audio view %s", st.msg);
    if (ds == NULL) {
        remove_clips(root, classes);
        return;
    }
    tap_ok(rf_audio_folder_sample_rate(ds) == 8000, "rf_audio_folder_sample_rate gives data.sample_rate (8000)");

    rf_sample_figure *f = rf_sample_figure_new();
    const char *file = rf_data_sample_show(f, ds, RF_SPLIT_TRAIN, 0);
    tap_ok(file != NULL && g_file_test(file, G_FILE_TEST_IS_REGULAR), "the sample's file is there to play: %s",
           file != NULL ? file : "(none)");
    canvas c = render(f, &RF_ZOOM_ALL, "audio-folder");
    int split = HEADER + (int)((H - HEADER) * 0.36);
    tap_ok(coloured(&c, HEADER, split) > 2000 && coloured(&c, split, H) > (H - split) * W / 3,
           "the clip draws its waveform and its spectrogram");
    /* The waveform's time axis follows the data set's rate: its right end is the clip's end. */
    char text[256];
    double seconds = -1;
    for (int x = W - 1; x > W / 2 && seconds < 0; x--)
        if (hover(f, &RF_ZOOM_ALL, x, HEADER + 60, text, sizeof text))
            sscanf(text, "%lf s", &seconds);
    tap_ok(fabs(seconds - 0.5) < 0.03, "the waveform ends at the clip's 0.5 s (%.3f s)", seconds);

    char label[128];
    float *x = calloc((size_t)ds->seq_len * ds->feat_dim, sizeof *x);
    /* position words: a frame's start time from the featuriser's hop (80 samples at 8 kHz) */
    g_autofree char *frame = rf_position_words(ds, x, ds->seq_len, 25);
    tap_ok(fabs(rf_position_frame_seconds(ds) - 0.01) < 1e-12 && g_strcmp0(frame, "0.25 s") == 0,
           "audio position 25 is named by its frame's time: '%s'", frame != NULL ? frame : "(none)");
    bool ok = rf_data_sample_label(ds, RF_SPLIT_TRAIN, 0, x, label, sizeof label);
    tap_ok(ok && (strstr(label, "high (class 0)") != NULL || strstr(label, "low (class 1)") != NULL),
           "the label names the class folder: %s", label);
    tap_ok(!rf_data_sample_label(ds, RF_SPLIT_TRAIN, 99, x, label, sizeof label) && strstr(label, "99") != NULL,
           "a sample past the end gives the data set's message: %s", label);
    rf_data_sample_show(f, ds, RF_SPLIT_TRAIN, 99);
    tap_ok(!hover(f, &RF_ZOOM_ALL, W / 2, H / 2, text, sizeof text), "showing it draws the message, not a crash");
    cairo_surface_destroy(c.surface);
    free(x);
    rf_sample_figure_free(f);
    rf_dataset_free(ds);

    remove_clips(root, classes);
}

static void test_random_tokens(void)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    rf_status st = {0};
    rf_config_set(&cfg, "data.task", "random", &st);
    rf_config_set(&cfg, "data.max_len", "256", &st);
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    tap_ok(ds != NULL && rf_data_kind_of(ds) == RF_DATA_SEQUENCE, "random tokens get the sequence view");
    if (ds == NULL)
        return;
    rf_sample_figure *f = rf_sample_figure_new();
    rf_data_sample_show(f, ds, RF_SPLIT_VAL, 1);
    canvas c = render(f, &RF_ZOOM_ALL, "random");
    float *x = calloc((size_t)ds->seq_len, sizeof *x);
    int len = 0, label = 0;
    ds->get(ds, RF_SPLIT_VAL, 1, x, &len, &label, &st);
    int hits = 0;
    bool same = true;
    char text[256];
    for (int px = 0; px < W; px += 5) {
        int position, token;
        for (int py = HEADER; py < H; py += 40)
            if (hover(f, &RF_ZOOM_ALL, px, py, text, sizeof text) &&
                sscanf(text, "position %d: token %d", &position, &token) == 2) {
                hits++;
                same = same && position < len && token == (int)x[position];
                break;
            }
    }
    tap_ok(coloured(&c, HEADER, H) > 300 && hits > 100 && same,
           "val sample 1 draws its token ids, read back on hover (%d positions)", hits);
    g_autofree char *id = rf_position_words(ds, x, len, 3), *want = g_strdup_printf("id %d", (int)x[3]);
    tap_ok(g_strcmp0(id, want) == 0, "a random task's position is named by its token id: '%s'", id != NULL ? id : "");
    cairo_surface_destroy(c.surface);
    free(x);
    rf_sample_figure_free(f);
    rf_dataset_free(ds);
}

/* The long-range match task's positions are its own characters. */
static void test_long_match_words(void)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    rf_status st = {0};
    rf_config_set(&cfg, "data.task", "long_match", &st);
    rf_config_set(&cfg, "data.max_len", "64", &st);
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    float x[64];
    int len = 0, label = 0, a = -1;
    if (ds != NULL)
        ds->get(ds, RF_SPLIT_VAL, 2, x, &len, &label, &st);
    for (int i = 0; i < len && a < 0; i++)
        a = x[i] >= 1 && x[i] <= 10 ? i : -1;   /* A0-A9 */
    int other = a == 0 ? 1 : 0;
    g_autofree char *marker = a >= 0 ? rf_position_words(ds, x, len, a) : NULL;
    g_autofree char *plain = rf_position_words(ds, x, len, other);
    char want_marker[3] = {'A', (char)('0' + (int)x[a >= 0 ? a : 0] - 1), '\0'};
    bool plain_ok = plain != NULL && (x[other] == 31 ? strcmp(plain, ".") == 0
                                      : x[other] >= 21 ? plain[0] == '0' + (int)x[other] - 21 && plain[1] == '\0'
                                                       : plain[0] == 'B');
    tap_ok(g_strcmp0(marker, want_marker) == 0 && plain_ok,
           "a long_match position is named by its token: marker '%s' (want %s), position %d '%s'",
           marker != NULL ? marker : "", want_marker, other, plain != NULL ? plain : "");
    rf_dataset_free(ds);
}

/* ---- export: the same drawing in every format ---- */

static void test_export(void)
{
    uint8_t bytes[SIDE * SIDE];
    float values[SIDE * SIDE];
    for (int i = 0; i < SIDE * SIDE; i++) {
        bytes[i] = test_byte(i / SIDE, i % SIDE);
        values[i] = bytes[i] / 255.0f;
    }
    rf_sample_figure *f = rf_sample_figure_new();
    rf_sample_figure_set_caption(f, "train #0", "label: pattern");
    rf_sample_figure_set_picture(f, bytes, values, SIDE, SIDE, 1, PATCH);
    rf_figure fig = rf_sample_figure_get(f);
    char *dir = g_dir_make_tmp("rf-figures-data-XXXXXX", NULL);
    const char *formats[] = {"png", "svg", "pdf"}, *magic[] = {"\x89PNG", "<?xml", "%PDF"};
    for (int i = 0; i < 3; i++) {
        char *path = g_strdup_printf("%s/sample.%s", dir, formats[i]), err[256] = "", *contents = NULL;
        gsize size = 0;
        bool ok = rf_figure_export(&fig, &RF_ZOOM_ALL, path, 800, 600, err, sizeof err) &&
                  g_file_get_contents(path, &contents, &size, NULL);
        tap_ok(ok && size > 1000 && memcmp(contents, magic[i], strlen(magic[i])) == 0,
               "export to %s: %zu bytes with its header %s", formats[i], (size_t)size, err);
        g_free(contents);
        remove(path);
        g_free(path);
    }
    g_rmdir(dir);
    g_free(dir);
    rf_sample_figure_free(f);
}

/* Dark pixels (text) in the right half of the header. */
static int header_ink_right(const canvas *c)
{
    int n = 0;
    for (int y = 0; y < HEADER; y++)
        for (int x = W / 2; x < W; x++) {
            int r, g, b;
            pixel(c, x, y, &r, &g, &b);
            n += r + g + b < 300;
        }
    return n;
}

/* The model's verdict sits at the right of the header, and a new sample's
 * caption clears it. */
static void test_prediction(void)
{
    float series[64];
    for (int i = 0; i < 64; i++)
        series[i] = (float)i;
    rf_sample_figure *f = rf_sample_figure_new();
    rf_sample_figure_set_caption(f, "val #3", "label: 2");
    rf_sample_figure_set_sequence(f, series, 64, 1);
    canvas before = render(f, &RF_ZOOM_ALL, "no-prediction");
    rf_sample_figure_set_prediction(f, "model: 7 (class 7) · loss 2.31 · step 40");
    canvas with = render(f, &RF_ZOOM_ALL, "prediction");
    rf_sample_figure_set_caption(f, "val #4", "label: 1");
    canvas cleared = render(f, &RF_ZOOM_ALL, "prediction-cleared");
    int a = header_ink_right(&before), b = header_ink_right(&with), c = header_ink_right(&cleared);
    tap_ok(b > a + 100 && c == a, "the prediction is drawn in the header (%d -> %d dark pixels) and cleared (%d)", a,
           b, c);
    cairo_surface_destroy(before.surface);
    cairo_surface_destroy(with.surface);
    cairo_surface_destroy(cleared.surface);
    rf_sample_figure_free(f);
}

/* ---- a text folder: the bytes as characters and ids ---- */

static void test_text_folder(void)
{
    char *root = g_dir_make_tmp("rf-figtext-XXXXXX", NULL);
    const char *files[2][2] = {{"neg/a.txt", "Dull [and] long\n\xff!"}, {"pos/b.txt", "Bright"}};
    for (int i = 0; i < 2; i++) {
        char *path = g_build_filename(root, files[i][0], NULL), *dir = g_path_get_dirname(path);
        g_mkdir_with_parents(dir, 0700);
        g_file_set_contents(path, files[i][1], -1, NULL);
        g_free(dir);
        g_free(path);
    }
    rf_config cfg;
    rf_config_defaults(&cfg);
    rf_status st = {0};
    rf_config_set(&cfg, "data.task", "text_folder", &st);
    rf_config_set(&cfg, "data.path", root, &st);
    /* two files: val and test are capped to none, all in train */
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    tap_ok(ds != NULL && rf_data_kind_of(ds) == RF_DATA_TEXT, "a text folder gets the text view (%s)", st.msg);
    int64_t index = -1;
    char text[256];
    for (int64_t i = 0; ds != NULL && i < ds->size[RF_SPLIT_TRAIN]; i++)
        if (ds->describe(ds, RF_SPLIT_TRAIN, i, text, sizeof text) && g_str_has_prefix(text, "neg/a.txt"))
            index = i;
    if (index < 0) {
        rf_dataset_free(ds);
        g_free(root);
        return;
    }
    rf_sample_figure *f = rf_sample_figure_new();
    rf_data_sample_show(f, ds, RF_SPLIT_TRAIN, index);
    canvas c = render(f, &RF_ZOOM_ALL, "text");
    tap_ok(rf_sample_figure_tree_depth(f) == 0 && coloured(&c, HEADER, HEADER + 40) > 100,
           "the bytes are drawn in colour, with no nesting levels (brackets are just characters)");
    const char *want[] = {"D", "u", "l", "l", "␣", "[", "a", "n", "d", "]", "␣", "l", "o", "n", "g", "↵", "\\xff", "!"};
    int n = (int)G_N_ELEMENTS(want), found = 0;
    bool seen[32] = {false}, right = true;
    for (int x = 0; x < W; x++) {
        int token, byte, id;
        char word[16];
        if (!hover(f, &RF_ZOOM_ALL, x, HEADER + 18, text, sizeof text) ||
            sscanf(text, "token %d: %15s · byte 0x%x · id %d", &token, word, &byte, &id) != 4 || token >= n)
            continue;
        found += !seen[token];
        seen[token] = true;
        right = right && strcmp(word, want[token]) == 0 && id == byte + 1 &&
                (token != 16 || byte == 0xff);
    }
    tap_ok(found == n && right, "hover reads each of the %d bytes: its character, byte and id = byte + 1 (%d found)",
           n, found);
    float bytes[64];
    int len = 0, label = 0;
    rf_status st2 = {0};
    ds->get(ds, RF_SPLIT_TRAIN, index, bytes, &len, &label, &st2);
    g_autofree char *space = rf_position_words(ds, bytes, len, 4), *d = rf_position_words(ds, bytes, len, 0);
    tap_ok(g_strcmp0(space, "␣") == 0 && g_strcmp0(d, "D") == 0,
           "a text's positions are named by their characters ('%s', '%s')", d != NULL ? d : "", space != NULL ? space : "");
    cairo_surface_destroy(c.surface);
    rf_sample_figure_free(f);
    rf_dataset_free(ds);
    char *cmd = g_strdup_printf("rm -rf '%s'", root);
    if (system(cmd) != 0)
        tap_diag("could not remove %s", root);
    g_free(cmd);
    g_free(root);
}

/* Dark (text) pixels in columns [x0, x1) of an ARGB/RGB24 surface. */
static int dark_in_columns(cairo_surface_t *s, int x0, int x1)
{
    const uint8_t *d = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s), h = cairo_image_surface_get_height(s), n = 0;
    for (int y = 0; y < h; y++)
        for (int x = x0; x < x1; x++) {
            uint32_t px = *(const uint32_t *)(d + y * stride + x * 4);
            n += ((px >> 16) & 0xff) + ((px >> 8) & 0xff) + (px & 0xff) < 300;
        }
    return n;
}

/* The probabilities bars in a narrow figure: a long class name shrinks the
 * font instead of being cut (no ink at either edge, ink in the name
 * column), the predicted bar is orange and 0.7 of its track, hover names
 * the class. */
static void test_probability_bars(void)
{
    enum { BW = 360, BH = 150 };
    const char *names[] = {"T-shirt/top", "A remarkably long class name that nobody should see cut short", "Bag"};
    const float probs[] = {0.2f, 0.7f, 0.1f};
    rf_prediction_figure *f = rf_prediction_figure_new();
    rf_prediction_figure_set(f, "Class probabilities", names, probs, 3);
    rf_figure fig = rf_prediction_figure_get(f);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, BW, BH);
    cairo_t *cr = cairo_create(s);
    fig.draw(fig.data, cr, BW, BH, &RF_ZOOM_ALL);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    int left = dark_in_columns(s, 0, 3), right = dark_in_columns(s, BW - 3, BW), names_ink = dark_in_columns(s, 3, 60);
    /* the best row: orange run and grey track along its middle line */
    const uint8_t *d = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s), orange = 0, track = 0, best_y = -1;
    for (int y = 0; y < BH && best_y < 0; y++)
        for (int x = 0; x < BW; x++) {
            uint32_t px = *(const uint32_t *)(d + y * stride + x * 4);
            if (abs((int)((px >> 16) & 0xff) - 217) <= 2 && abs((int)((px >> 8) & 0xff) - 94) <= 2) {
                best_y = y + 3;
                break;
            }
        }
    for (int x = 0; best_y >= 0 && x < BW; x++) {
        uint32_t px = *(const uint32_t *)(d + best_y * stride + x * 4);
        int r = (px >> 16) & 0xff;
        orange += abs(r - 217) <= 2 && abs((int)((px >> 8) & 0xff) - 94) <= 2;
        track += abs(r - 237) <= 2 && abs((int)((px >> 8) & 0xff) - 237) <= 2;
    }
    double share = orange + track > 0 ? (double)orange / (orange + track) : 0;
    tap_ok(left == 0 && right == 0 && names_ink > 50, "bars: a long class name shrinks to fit, nothing cut at either "
           "edge (%d and %d dark pixels there, %d in the name column)", left, right, names_ink);
    tap_ok(fabs(share - 0.7) < 0.02, "bars: the predicted bar is orange over %.3f of its track (probability 0.7)",
           share);
    char text[200] = "";
    bool read = fig.hover(fig.data, BW, BH, &RF_ZOOM_ALL, BW / 2.0, best_y, text, sizeof text);
    tap_ok(read && strstr(text, "nobody should see cut short: probability 0.7000 (predicted)") != NULL,
           "bars: hover names the class and its probability (\"%s\")", text);
    if (g_getenv("RF_FIGURE_DIR") != NULL) {
        g_autofree char *path = g_build_filename(g_getenv("RF_FIGURE_DIR"), "probability-bars.png", NULL);
        cairo_surface_write_to_png(s, path);
    }
    cairo_surface_destroy(s);
    rf_prediction_figure_free(f);
}

/* ---- position words of images ---- */

/* Fashion-MNIST's 28 x 28 images flattened row by row: a position is a
 * pixel's row and column, or a patch's rows and columns. */
static void test_image_words(void)
{
    const char *dir = "/usr/share/datasets/fashion-mnist";
    if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
        tap_skip("image position words", "no Fashion-MNIST at %s", dir);
        return;
    }
    rf_config cfg;
    rf_config_defaults(&cfg);
    rf_status st = {0};
    rf_config_set(&cfg, "data.task", "fashion_mnist", &st);
    rf_config_set(&cfg, "data.path", dir, &st);
    rf_config_set(&cfg, "data.train_size", "10", &st);
    rf_config_set(&cfg, "data.val_size", "2", &st);
    rf_config_set(&cfg, "data.test_size", "2", &st);
    const char *patches[2] = {"0", "4"}, *want[2] = {"row 1, col 2", "rows 4-7, cols 8-11"};
    const int position[2] = {28 + 2, 7 + 2};
    for (int k = 0; k < 2; k++) {
        rf_config_set(&cfg, "data.patch", patches[k], &st);
        rf_dataset *ds = rf_dataset_open(&cfg, &st);
        if (!tap_ok(ds != NULL && rf_data_kind_of(ds) == RF_DATA_PICTURE, "Fashion-MNIST (patch %s) is a picture %s",
                    patches[k], st.msg))
            continue;
        float *x = calloc((size_t)ds->seq_len * ds->feat_dim, sizeof *x);
        g_autofree char *words = rf_position_words(ds, x, ds->seq_len, position[k]);
        tap_ok(g_strcmp0(words, want[k]) == 0, "patch %s: position %d is '%s' (got '%s')", patches[k], position[k],
               want[k], words != NULL ? words : "");
        free(x);
        rf_dataset_free(ds);
    }
}

int main(void)
{
    test_picture();
    test_prediction();
    test_probability_bars();
    test_audio();
    test_listops();
    test_sequences();
    test_audio_folder();
    test_random_tokens();
    test_long_match_words();
    test_text_folder();
    test_image_words();
    test_export();
    return tap_done();
}
