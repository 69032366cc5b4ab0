/* The Attribution figure drawn headless in the data's own terms, with a
 * planted attribution (one position high, the rest zero) on real data
 * sets written here and opened through the data set loaders:
 *   - a picture (an image folder of grey 8 x 8 PNGs, 2 x 2 patches): the
 *     heatmap lies over the picture; the pointer over the planted patch
 *     reads that position and its value and the pixels there are red
 *     (diverging, positive), while another patch reads 0 and stays grey;
 *   - audio (an audio folder of tones, log-mel frames): the planted frame's
 *     column of the spectrogram is red, another frame's grey, each read
 *     back by hover;
 *   - compare mode with a probe map beside the picture's panels: the
 *     shared range is max |A|, |B| (B's here), A's hot cell is painted red
 *     where the figure says the cell lies and A − B's there too, a cold
 *     cell the map's grey 0, and hover there names the panel, the tap's
 *     element and its value.
 * With RF_FIGURE_DIR set, each drawing is also written there as a PNG. */
#include <cairo.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <sndfile.h>

#include "../datasets/datasets.h"
#include "../ui/figures/attribution_figure.h"
#include "../ui/figures/attribution_maps.h"
#include "../ui/figures/data_sample.h"
#include "figure_pixels.h"
#include "tap.h"

#define W 1000
#define H 640

static cairo_surface_t *render(rf_attribution_figure *f, const char *name)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
    cairo_t *cr = cairo_create(s);
    rf_figure fig = rf_attribution_figure_get(f);
    fig.draw(fig.data, cr, W, H, &RF_ZOOM_ALL);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    const char *dir = g_getenv("RF_FIGURE_DIR");
    if (dir != NULL) {
        g_autofree char *path = g_strdup_printf("%s/attribution-%s.png", dir, name);
        cairo_surface_write_to_png(s, path);
    }
    return s;
}

static bool hover(rf_attribution_figure *f, double x, double y, char *text, size_t size)
{
    rf_figure fig = rf_attribution_figure_get(f);
    return fig.hover(fig.data, W, H, &RF_ZOOM_ALL, x, y, text, size);
}

/* Red: the diverging map's positive end blended over grey. */
static bool reddish(cairo_surface_t *s, double x, double y)
{
    int r, g, b;
    pixel(s, (int)x, (int)y, &r, &g, &b);
    return r - b > 30 && r - g > 30;
}

/* No hue: the grey picture or spectrogram under a zero (white) value. */
static bool greyish(cairo_surface_t *s, double x, double y)
{
    int r, g, b;
    pixel(s, (int)x, (int)y, &r, &g, &b);
    return abs(r - b) < 16 && abs(r - g) < 16;
}

/* A point whose hover names position `want` ("position N" first after
 * an optional panel prefix), searched on a grid over the figure. */
static bool point_of(rf_attribution_figure *f, int want, double *px, double *py, double *value)
{
    char text[256], prefix[32];
    snprintf(prefix, sizeof prefix, "position %d", want);
    for (int y = 2; y < H; y += 3)
        for (int x = 2; x < W; x += 3) {
            if (!hover(f, x, y, text, sizeof text) || strncmp(text, prefix, strlen(prefix)) != 0 ||
                (text[strlen(prefix)] != ' ' && text[strlen(prefix)] != ':'))
                continue;
            const char *colon = strrchr(text, ' ');
            *value = g_ascii_strtod(colon + 1, NULL);
            /* the middle of the run of points that read it across */
            int x1 = x;
            while (x1 + 1 < W && hover(f, x1 + 1, y, text, sizeof text) && strncmp(text, prefix, strlen(prefix)) == 0)
                x1++;
            *px = (x + x1) / 2.0;
            *py = y + 1;
            return true;
        }
    return false;
}

/* One position high, the rest zero. */
static rf_attribution planted(int len, int hot)
{
    rf_attribution a = {.values = g_new0(float, len), .len = len, .fx = 1, .fbase = 0, .sum = 1,
                        .completeness = NAN};
    a.values[hot] = 1;
    return a;
}

/* ---- a picture ---- */

static void write_grey_png(const char *path, int shade)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 8, 8);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, shade / 255.0, shade / 255.0, shade / 255.0);
    cairo_paint(cr);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);   /* a dark square: something to see under the heatmap */
    cairo_rectangle(cr, 2, 2, 4, 4);
    cairo_fill(cr);
    cairo_destroy(cr);
    cairo_surface_write_to_png(s, path);
    cairo_surface_destroy(s);
}

static char *write_image_folder(void)
{
    char *root = g_dir_make_tmp("rf-attr-pictures-XXXXXX", NULL);
    const char *const classes[2] = {"light", "dark"};
    for (int c = 0; c < 2; c++) {
        g_autofree char *dir = g_build_filename(root, classes[c], NULL);
        g_mkdir_with_parents(dir, 0700);
        for (int k = 0; k < 4; k++) {
            g_autofree char *file = g_strdup_printf("%d.png", k);
            g_autofree char *path = g_build_filename(dir, file, NULL);
            write_grey_png(path, c == 0 ? 200 + 10 * k : 120 + 10 * k);
        }
    }
    return root;
}

static rf_dataset *open_data(const char *task, const char *path, const char *const *sets)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    rf_status st = {0};
    bool ok = rf_config_set(&cfg, "data.task", task, &st) && rf_config_set(&cfg, "data.path", path, &st) &&
              rf_config_set(&cfg, "data.val_size", "1", &st) && rf_config_set(&cfg, "data.test_size", "1", &st) &&
              rf_config_set(&cfg, "data.cache", "off", &st);
    for (int i = 0; ok && sets[i] != NULL; i += 2)
        ok = rf_config_set(&cfg, sets[i], sets[i + 1], &st);
    rf_dataset *ds = ok ? rf_dataset_open(&cfg, &st) : NULL;
    if (ds == NULL)
        tap_diag("%s: %s", task, st.msg);
    return ds;
}

/* The sample's input as the model takes it. */
static float *sample_input(const rf_dataset *ds, int *len)
{
    float *x = g_new0(float, (size_t)ds->seq_len * MAX(1, ds->feat_dim));
    int label = 0;
    if (!ds->get(ds, RF_SPLIT_TRAIN, 0, x, len, &label, NULL))
        *len = 0;
    return x;
}

/* The planted position reads its value and is drawn red; a zero one
 * reads 0 and stays grey. */
static void check_planted(rf_attribution_figure *f, cairo_surface_t *s, int hot, int cold, const char *what)
{
    double hx = 0, hy = 0, hv = 0, cx = 0, cy = 0, cv = 1;
    bool found = point_of(f, hot, &hx, &hy, &hv) && point_of(f, cold, &cx, &cy, &cv);
    tap_ok(found && hv == 1 && cv == 0, "%s: hover reads position %d's 1 at (%.0f, %.0f) and position %d's 0 at "
           "(%.0f, %.0f)", what, hot, hx, hy, cold, cx, cy);
    if (!found)
        return;
    int r, g, b, r2, g2, b2;
    pixel(s, (int)hx, (int)hy, &r, &g, &b);
    pixel(s, (int)cx, (int)cy, &r2, &g2, &b2);
    tap_ok(reddish(s, hx, hy) && greyish(s, cx, cy),
           "%s: the planted position is drawn red (%d %d %d), the zero one grey (%d %d %d)", what, r, g, b, r2, g2,
           b2);
}

static void test_picture(const rf_dataset *ds)
{
    int len = 0;
    g_autofree float *x = sample_input(ds, &len);
    enum { HOT = 5, COLD = 10 };
    rf_attribution a = planted(len, HOT);
    rf_attribution_figure *f = rf_attribution_figure_new();
    rf_attribution_figure_set(f, &a, RF_ATTR_GRAD_INPUT, ds, x, len, "a planted attribution over a picture");
    int rows = 0, cols = 0;
    char layout = rf_attribution_figure_layout(f, &rows, &cols);
    tap_ok(layout == 'p' && rows == 4 && cols == 4 && len == 16,
           "an image folder's 8 x 8 picture in 2 x 2 patches is drawn as a picture under a 4 x 4 heatmap (%d x %d)",
           rows, cols);
    cairo_surface_t *s = render(f, "picture");
    check_planted(f, s, HOT, COLD, "picture");
    cairo_surface_destroy(s);
    rf_attribution_figure_free(f);
    rf_attribution_clear(&a);
}

/* ---- compare mode with a probe map ---- */

static void test_compare_maps(const rf_dataset *ds)
{
    int len = 0;
    g_autofree float *x = sample_input(ds, &len);
    rf_attribution a = planted(len, 5), b = planted(len, 6);
    rf_attribution_figure *f = rf_attribution_figure_new();
    const char *const names[2] = {"A: this model", "B: the other"};
    float probs[2][2] = {{0.7f, 0.3f}, {0.4f, 0.6f}};
    rf_attribution_figure_set_compare(f, &a, &b, RF_ATTR_GRAD_INPUT, ds, x, len, "compare", names, probs[0],
                                      probs[1]);
    /* a [2, 3, 4] tap: A hot at [1, 2, 3], B largest (in magnitude) at [0, 0, 0] */
    rf_shape shape = {3, {2, 3, 4, 1}};
    enum { N = 24, HOT = 23, COLD = 10 };
    float map_a[N] = {0}, map_b[N] = {0};
    map_a[HOT] = 0.5f;
    map_b[0] = -0.8f;
    rf_attribution_figure_set_maps(f, "layer0.attn.probs", &shape, map_a, map_b);
    rf_map_scale scale = rf_attribution_figure_map_scale(f);
    tap_ok(scale.kind == RF_COLORMAP_DIVERGING && scale.vmin == -scale.vmax && fabs(scale.vmax - 0.8) < 1e-6,
           "the maps' one range is max |A|, |B| = 0.8 (B's), diverging (%g .. %g)", scale.vmin, scale.vmax);
    size_t n = 0;
    rf_shape got;
    const float *diff = rf_attribution_figure_map(f, 2, &n, &got);
    tap_ok(n == N && got.ndim == 3 && diff != NULL && diff[HOT] == 0.5f && diff[0] == 0.8f,
           "A − B is the difference, element by element");
    cairo_surface_t *s = render(f, "compare-maps");
    rf_rect hot_a, hot_diff, cold_a;
    bool placed = rf_attribution_figure_map_cell(f, W, H, 0, HOT, &hot_a) &&
                  rf_attribution_figure_map_cell(f, W, H, 2, HOT, &hot_diff) &&
                  rf_attribution_figure_map_cell(f, W, H, 0, COLD, &cold_a);
    if (!tap_ok(placed && hot_a.w >= 4 && hot_a.h >= 4, "the map cells are drawn at least 4 px wide (%.1f x %.1f)",
                hot_a.w, hot_a.h))
        goto done;
    double ax = hot_a.x + hot_a.w / 2, ay = hot_a.y + hot_a.h / 2;
    double dx = hot_diff.x + hot_diff.w / 2, dy = hot_diff.y + hot_diff.h / 2;
    double cx = cold_a.x + cold_a.w / 2, cy = cold_a.y + cold_a.h / 2;
    int r, g, bl, dr, dg, db, cr, cg, cb;
    pixel(s, (int)ax, (int)ay, &r, &g, &bl);
    pixel(s, (int)dx, (int)dy, &dr, &dg, &db);
    pixel(s, (int)cx, (int)cy, &cr, &cg, &cb);
    tap_ok(reddish(s, ax, ay) && reddish(s, dx, dy) && greyish(s, cx, cy),
           "A's hot cell is painted red (%d %d %d), A − B's there red too (%d %d %d), a cold cell the map's light grey 0 (%d %d %d)",
           r, g, bl, dr, dg, db, cr, cg, cb);
    char text[256];
    tap_ok(hover(f, ax, ay, text, sizeof text) && strcmp(text, "A: layer0.attn.probs[1, 2, 3]: 0.5") == 0,
           "hover on A's hot cell reads it: %s", text);
    rf_rect b_hot;
    tap_ok(rf_attribution_figure_map_cell(f, W, H, 1, 0, &b_hot) &&
               hover(f, b_hot.x + b_hot.w / 2, b_hot.y + b_hot.h / 2, text, sizeof text) &&
               strcmp(text, "B: layer0.attn.probs[0, 0, 0]: -0.8") == 0,
           "hover on B's strongest cell reads it: %s", text);
done:
    cairo_surface_destroy(s);
    rf_attribution_figure_free(f);
    rf_attribution_clear(&a);
    rf_attribution_clear(&b);
}

/* A map over the padded length (attention probabilities [heads, N, N],
 * TaLK's bounds [N, 2 heads]) is drawn up to the input's own length: the
 * padding's rows and columns have no cell; other dimensions stay whole. */
static void test_maps_padding(void)
{
    enum { SEQ = 8, LEN = 5 };
    static float a[2 * SEQ * SEQ], b[2 * SEQ * SEQ];
    for (int i = 0; i < 2 * SEQ * SEQ; i++)
        a[i] = (float)(i % 7) * 0.1f;
    rf_attribution_maps m = {0};
    rf_shape probs = {3, {2, SEQ, SEQ, 1}};
    rf_attribution_maps_set(&m, "layer0.attn.probs", &probs, a, b, SEQ, LEN);
    rf_rect r = {0, 0, 400, 200}, cell;
    bool inside = rf_attribution_maps_cell_rect(&m, r, 1, 1, LEN - 1, LEN - 1, &cell);
    bool pad_row = rf_attribution_maps_cell_rect(&m, r, 1, 1, LEN, 0, &cell);
    bool pad_col = rf_attribution_maps_cell_rect(&m, r, 1, 0, 0, LEN, &cell);
    tap_ok(m.shown_rows == LEN && m.shown_cols == LEN && inside && !pad_row && !pad_col && m.range > 0.5,
           "a [2, %d, %d] map of a %d-position input is drawn %d x %d, the padding left out (range %.2f over all)",
           SEQ, SEQ, LEN, m.shown_rows, m.shown_cols, m.range);
    rf_shape bounds = {2, {SEQ, 4, 1, 1}};
    rf_attribution_maps_set(&m, "talk.layer0.bounds", &bounds, a, b, SEQ, LEN);
    tap_ok(m.shown_rows == LEN && m.shown_cols == 4 && rf_attribution_maps_cell_rect(&m, r, 1, 0, LEN - 1, 3, &cell),
           "a [%d, 4] map keeps its 4 columns and draws %d of its rows", SEQ, m.shown_rows);
    rf_attribution_maps_clear(&m);
}

/* ---- audio ---- */

static void write_tone(const char *dir, const char *name, double hz)
{
    g_autofree char *path = g_build_filename(dir, name, NULL);
    SF_INFO info = {.samplerate = 8000, .channels = 1, .format = SF_FORMAT_WAV | SF_FORMAT_PCM_16};
    SNDFILE *sf = sf_open(path, SFM_WRITE, &info);
    enum { SAMPLES = 4000 };
    static float wave[SAMPLES];
    for (int i = 0; i < SAMPLES; i++)
        wave[i] = (float)(0.5 * sin(2 * M_PI * hz * i / 8000));
    sf_write_float(sf, wave, SAMPLES);
    sf_close(sf);
}

static char *write_audio_folder(void)
{
    char *root = g_dir_make_tmp("rf-attr-audio-XXXXXX", NULL);
    const char *const classes[2] = {"high", "low"};
    for (int c = 0; c < 2; c++) {
        g_autofree char *dir = g_build_filename(root, classes[c], NULL);
        g_mkdir_with_parents(dir, 0700);
        write_tone(dir, "a.wav", c ? 300 : 2500);
        write_tone(dir, "b.wav", c ? 400 : 3000);
        write_tone(dir, "c.wav", c ? 500 : 2000);
    }
    return root;
}

static void test_audio(const rf_dataset *ds)
{
    int len = 0;
    g_autofree float *x = sample_input(ds, &len);
    int hot = len / 3, cold = 2 * len / 3;
    rf_attribution a = planted(len, hot);
    rf_attribution_figure *f = rf_attribution_figure_new();
    rf_attribution_figure_set(f, &a, RF_ATTR_GRAD_INPUT, ds, x, len, "a planted attribution over a spectrogram");
    int rows = 0, cols = 0;
    char layout = rf_attribution_figure_layout(f, &rows, &cols);
    tap_ok(layout == 'a' && rows == ds->feat_dim && cols == len && len > 20,
           "an audio clip is drawn as its log-mel spectrogram, %d bins by %d frames", rows, cols);
    cairo_surface_t *s = render(f, "audio");
    check_planted(f, s, hot, cold, "audio");
    cairo_surface_destroy(s);
    rf_attribution_figure_free(f);
    rf_attribution_clear(&a);
}

static void remove_tree(const char *path)
{
    GDir *dir = g_dir_open(path, 0, NULL);
    const char *name;
    while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
        g_autofree char *child = g_build_filename(path, name, NULL);
        if (g_file_test(child, G_FILE_TEST_IS_DIR))
            remove_tree(child);
        else
            g_remove(child);
    }
    if (dir != NULL)
        g_dir_close(dir);
    g_rmdir(path);
}

int main(void)
{
    test_maps_padding();
    g_autofree char *pictures = write_image_folder();
    const char *const picture_sets[] = {"data.image_size", "8", "data.patch", "2", NULL};
    rf_dataset *ds = open_data("image_folder", pictures, picture_sets);
    if (tap_ok(ds != NULL && rf_data_kind_of(ds) == RF_DATA_PICTURE, "an image folder opens as pictures")) {
        test_picture(ds);
        test_compare_maps(ds);
    }
    rf_dataset_free(ds);
    remove_tree(pictures);

    g_autofree char *clips = write_audio_folder();
    const char *const audio_sets[] = {"data.sample_rate", "8000", "data.mel_bins", "40", NULL};
    ds = open_data("audio_folder", clips, audio_sets);
    if (tap_ok(ds != NULL && rf_data_kind_of(ds) == RF_DATA_AUDIO, "an audio folder opens as audio"))
        test_audio(ds);
    rf_dataset_free(ds);
    remove_tree(clips);
    return tap_done();
}
