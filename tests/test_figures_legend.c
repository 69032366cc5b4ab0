/* Every heatmap's one legend, headless: each heatmap figure (the attention
 * map, a key-value state, the long-short band, the attention and TaLK
 * pictures, the attention overview, the latent states, the audio
 * spectrogram, a features strip) is drawn with its text collected as the
 * SVG export writes it, and that text must hold the legend: the quantity,
 * the scale's kind (sequential, diverging around 0, or one scale per map)
 * and the exact ends of the range the map is coloured over. Pixels then
 * check the bar is drawn in the scale's own colours, and the hovers that
 * name a cell by the data's words. */
#include <glib.h>

#include "../datasets/logmel.h"
#include "../ui/figures/attention_figure.h"
#include "../ui/figures/latent_figure.h"
#include "../ui/figures/sample_figure.h"
#include "../ui/figures/talk_figure.h"
#include "figure_checks.h"
#include "tap.h"

/* The text a figure draws at W x H, one <text> element a line. */
static char *drawn_text(const rf_figure *fig)
{
    GString *out = g_string_new(NULL);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
    cairo_t *cr = cairo_create(s);
    rf_plot_collect_svg_text(cr, out);
    fig->draw(fig->data, cr, W, H, &RF_ZOOM_ALL);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    return g_string_free(out, FALSE);
}

/* Whether a drawn text element reads exactly `words`. */
static bool has_text(const char *svg, const char *words)
{
    g_autofree char *escaped = g_markup_escape_text(words, -1);
    g_autofree char *element = g_strdup_printf(">%s</text>", escaped);
    return strstr(svg, element) != NULL;
}

/* The legend of `what`: its quantity (with "(units)" on its line or the
 * next), its kind's words, and both ends of [lo, hi] as rf_format_number
 * writes them. */
static void check_legend(const rf_figure *fig, const char *what, const char *quantity, const char *units,
                         const char *kind1, const char *kind2, double lo, double hi)
{
    g_autofree char *svg = drawn_text(fig);
    char lo_text[32], hi_text[32];
    rf_format_number(lo, lo_text, sizeof lo_text);
    rf_format_number(hi, hi_text, sizeof hi_text);
    g_autofree char *one_line = g_strdup_printf("%s (%s)", quantity, units != NULL ? units : "");
    g_autofree char *own_line = g_strdup_printf("(%s)", units != NULL ? units : "");
    bool named = units == NULL ? has_text(svg, quantity)
                               : has_text(svg, one_line) || (has_text(svg, quantity) && has_text(svg, own_line));
    bool kind = has_text(svg, kind1) && (kind2 == NULL || has_text(svg, kind2));
    bool ends = has_text(svg, lo_text) && has_text(svg, hi_text);
    tap_ok(named && kind && ends, "%s: the legend says '%s' (%s), '%s%s%s', range %s .. %s (%s)", what, quantity,
           named ? "drawn" : "missing", kind1, kind2 != NULL ? " " : "", kind2 != NULL ? kind2 : "", lo_text, hi_text,
           kind && ends ? "drawn" : "kind or an end missing");
}

/* The right edge of the map whose hover starts with `prefix`, along y. */
static double map_right(const rf_figure *fig, const char *prefix, double y)
{
    char text[256];
    for (int x = W - 1; x > 0; x--)
        if (fig->hover(fig->data, W, H, &RF_ZOOM_ALL, x + 0.5, y, text, sizeof text) &&
            g_str_has_prefix(text, prefix))
            return x + 1;
    return W;
}

/* The legend's bar right of the map: the colours of the scale's top
 * (`top`) and bottom (`bottom`) appear right of `from_x`. */
static bool bar_colours(const rf_figure *fig, double from_x, bool (*top)(int, int, int), bool (*bottom)(int, int, int))
{
    cairo_surface_t *s = render(fig, W, H, &RF_ZOOM_ALL, NULL);
    box right = {from_x + 2, 0, W, H};
    bool found = isfinite(find_shade(s, right, top).x0) && isfinite(find_shade(s, right, bottom).x0);
    cairo_surface_destroy(s);
    return found;
}

static bool mid_grey(int r, int g, int b) { return r == g && g == b && r > 120 && r < 136; }
static bool black(int r, int g, int b) { return r < 5 && g < 5 && b < 5; }
static bool dark_purple(int r, int g, int b) { return r > 50 && r < 90 && g < 20 && b > 70 && b < 110; }   /* viridis' floor */

static float *random_rows(int rows, int cols, unsigned seed)
{
    float *m = malloc((size_t)rows * cols * sizeof *m);
    srand(seed);
    for (int r = 0; r < rows; r++) {
        double sum = 0;
        for (int c = 0; c < cols; c++)
            sum += m[(size_t)r * cols + c] = (float)(rand() % 1000 + 1);
        for (int c = 0; c < cols; c++)
            m[(size_t)r * cols + c] /= (float)sum;
    }
    return m;
}

static double largest(const float *v, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, v[i]);
    return m;
}

static void test_attention(void)
{
    enum { N = 48 };
    float *map = random_rows(N, N, 3);
    rf_attention_figure f;
    rf_attention_figure_init(&f);
    rf_attention_figure_set_matrix(&f, map, N, N, "query", "key");
    rf_attention_figure_set_title(&f, "Layer 1 · head 1");
    rf_figure fig = rf_attention_figure_get(&f);
    check_legend(&fig, "an attention map", "attention weight", NULL, "sequential", NULL, 0, largest(map, N * N));
    tap_ok(bar_colours(&fig, map_right(&fig, "query", H / 2), yellow, dark_purple),
           "its bar, right of the map, runs from viridis' floor to its top");

    /* names taken for the cells: the hover says them beside the indices */
    char **names = g_new0(char *, N + 1);
    for (int i = 0; i < N; i++)
        names[i] = g_strdup_printf("row %d, col %d", i / 8, i % 8);
    rf_attention_figure_take_names(&f, names, N);
    char text[256], expect[256];
    double x, y;
    bool found = find_hover(&fig, &RF_ZOOM_ALL, "query 12 ", &x, &y, text, sizeof text);
    int key = -1;
    found = found && sscanf(text, "query 12 \"row 1, col 4\", key %d", &key) == 1 && key >= 0 && key < N;
    snprintf(expect, sizeof expect, "query 12 \"row 1, col 4\", key %d \"row %d, col %d\": %.4g", key, key / 8, key % 8,
             map[12 * N + (key >= 0 ? key : 0)]);
    tap_ok(found && strcmp(text, expect) == 0, "hover names query and key in the data's words: '%s'", text);

    /* a key-value state is signed: diverging, centred on 0 */
    float kv[16 * 16];
    for (int i = 0; i < 16 * 16; i++)
        kv[i] = (float)sin(0.7 * i) * 0.5f + 0.2f;   /* about -0.3 .. 0.7 */
    rf_attention_figure_set_quantity(&f, "key-value state", RF_COLORMAP_DIVERGING);
    rf_attention_figure_take_names(&f, NULL, 0);
    rf_attention_figure_set_matrix(&f, kv, 16, 16, "key feature", "value feature");
    double m = 0;
    for (int i = 0; i < 16 * 16; i++)
        m = fmax(m, fabs(kv[i]));
    check_legend(&fig, "a key-value state", "key-value state", NULL, "diverging,", "white = 0", -m, m);
    tap_ok(f.heat.vmin == -f.heat.vmax && f.heat.colormap == RF_COLORMAP_DIVERGING,
           "and its map is coloured on the symmetric range it states (%g .. %g)", f.heat.vmin, f.heat.vmax);
    tap_ok(bar_colours(&fig, map_right(&fig, "key feature", H / 2), deep_red, deep_blue),
           "its bar, right of the map, runs from deep blue to deep red");

    /* the long-short band: weights again */
    rf_attention_figure_set_quantity(&f, "attention weight", RF_COLORMAP_SEQUENTIAL);
    int band = 3 * 8;    /* rf_ls_band(8): w + 2 e, e = w / 2 */
    float *local = random_rows(N, band, 5);
    rf_attention_figure_set_band(&f, local, N, 8, NULL, 0);
    check_legend(&fig, "a long-short band", "attention weight", NULL, "sequential", NULL, 0, largest(local, (size_t)N * band));

    /* the picture: the chosen query's weights over the image */
    enum { SIDE = 6 };
    float px[SIDE * SIDE];
    for (int i = 0; i < SIDE * SIDE; i++)
        px[i] = (float)i / (SIDE * SIDE);
    float *pmap = random_rows(SIDE * SIDE, SIDE * SIDE, 9);
    rf_attention_figure_set_matrix(&f, pmap, SIDE * SIDE, SIDE * SIDE, "query", "key");
    rf_picture_set(&f.picture, px, SIDE, SIDE, 1, SIDE, SIDE, 0);
    rf_attention_figure_show_picture(&f, true);
    rf_attention_figure_set_query(&f, 7);
    check_legend(&fig, "an attention picture", "attention weight", NULL, "sequential", NULL, 0,
                 largest(pmap + 7 * SIDE * SIDE, SIDE * SIDE));
    char **pixels = g_new0(char *, SIDE * SIDE + 1);
    for (int i = 0; i < SIDE * SIDE; i++)
        pixels[i] = g_strdup_printf("rows %d-%d, cols %d-%d", i / SIDE * 4, i / SIDE * 4 + 3, i % SIDE * 4,
                                    i % SIDE * 4 + 3);
    rf_attention_figure_take_names(&f, pixels, SIDE * SIDE);
    found = find_hover(&fig, &RF_ZOOM_ALL, "patch (2, 5)", &x, &y, text, sizeof text);
    snprintf(expect, sizeof expect, "patch (2, 5) = key 17 \"rows 8-11, cols 20-23\": %.4g",
             pmap[7 * SIDE * SIDE + 17]);
    tap_ok(found && strcmp(text, expect) == 0, "hover over the picture names the key's pixels: '%s'", text);
    rf_attention_figure_free(&f);
    free(pmap);
    free(local);
    free(map);
}

static void test_overview(void)
{
    enum { N = 10 };
    float maps[3][N][N];
    for (int h = 0; h < 3; h++)
        for (int i = 0; i < N * N; i++)
            maps[h][i / N][i % N] = (float)((i * 31 + h * 7) % 50) / (50.0f * (h + 1));
    rf_attention_overview o;
    rf_attention_overview_init(&o);
    rf_attention_overview_resize(&o, 2, 3);
    rf_attention_overview_set_layer(&o, 0, 0, &maps[0][0][0], 3, N, N, 0);
    rf_attention_overview_set_layer(&o, 1, 1, &maps[0][0][0], 3, N, N, 0);
    rf_attention_overview_set_title(&o, "Attention overview");
    rf_figure fig = rf_attention_overview_get(&o);
    check_legend(&fig, "the overview", "attention weight", NULL, "each map: 0", "to its max", 0, 0);
    g_autofree char *svg = drawn_text(&fig);
    int legends = 0;
    for (const char *p = svg; (p = strstr(p, ">attention weight</text>")) != NULL; p++)
        legends++;
    tap_ok(legends == 1 && has_text(svg, "own max") && has_text(svg, "L1 H1") && has_text(svg, "L2 H3"),
           "one legend for the whole grid (%d drawn), its top 'own max'; thumbnails counted from 1 (L1 H1 .. L2 H3)",
           legends);
    char text[200];
    double x, y;
    tap_ok(find_hover(&fig, &RF_ZOOM_ALL, "Layer 2 · head 3", &x, &y, text, sizeof text),
           "the last thumbnail's hover counts from 1 too: '%s'", text);
    rf_attention_overview_free(&o);
}

static void test_latent(void)
{
    enum { SEGMENTS = 3, L = 6, D = 16 };
    rf_latent_figure f;
    rf_latent_figure_init(&f);
    rf_latent_figure_resize(&f, SEGMENTS, L, D);
    float block[L * D];
    double m = 0;
    /* the view gives the chosen segment's block of each pass */
    const int s = 2;
    for (int p = 0; p < 2; p++) {
        for (int i = 0; i < L * D; i++) {
            block[i] = (float)(cos(0.3 * i + s) * s) + 0.25f * p;
            if (p == RF_LATENT_FORWARD)    /* the block shown sets the range */
                m = fmax(m, fabs(block[i]));
        }
        rf_latent_figure_set_state(&f, (rf_latent_pass)p, s, block);
    }
    rf_latent_figure_select(&f, 2, RF_LATENT_FORWARD);
    rf_figure fig = rf_latent_figure_get(&f);
    check_legend(&fig, "the latent states", "latent value", NULL, "diverging,", "white = 0", -m, m);
    tap_ok(bar_colours(&fig, map_right(&fig, "segment 2", H / 4), deep_red, deep_blue),
           "its bar, right of the map, runs from deep blue to deep red");

    /* a token layer's rows named by the sample's positions */
    rf_latent_layer self = {RF_LATENT_LAYER_SELF, 1};
    rf_latent_figure_set_layer(&f, self, 4);
    float tokens[4 * D];
    double tm = 0;
    for (int i = 0; i < 4 * D; i++) {
        tokens[i] = (float)sin(i);
        tm = fmax(tm, fabs(tokens[i]));
    }
    rf_latent_figure_set_tokens(&f, RF_LATENT_FORWARD, s, tokens);
    char **names = g_new0(char *, 5);
    const char *words[4] = {"[MAX", "3", "[MIN", "]"};
    for (int i = 0; i < 4; i++)
        names[i] = g_strdup(words[i]);
    rf_latent_figure_take_names(&f, names, 4);
    char text[256];
    double x, y;
    bool found = find_hover(&fig, &RF_ZOOM_ALL, "segment 2 forward, Θ_SELF 1, token 3", &x, &y, text, sizeof text);
    tap_ok(found && strstr(text, "token 3 \"[MIN\", dimension") != NULL,
           "hover names a token row by the sample's token: '%s'", found ? text : "");
    check_legend(&fig, "a token layer", "state value", NULL, "diverging,", "white = 0", -tm, tm);
    rf_latent_figure_free(&f);
}

static void test_talk(void)
{
    enum { SIDE = 6, N = SIDE * SIDE };
    float px[N], bounds[2 * N];
    double widest = 0;
    for (int t = 0; t < N; t++) {
        px[t] = (float)t / N;
        bounds[2 * t] = (float)fmax(0, t - 2);
        bounds[2 * t + 1] = (float)fmin(N - 1, t + 1 + t % 4);
        widest = fmax(widest, bounds[2 * t + 1] - bounds[2 * t]);
    }
    rf_talk_figure f;
    rf_talk_figure_init(&f);
    rf_talk_figure_set_bounds(&f, bounds, N, 1, 0);
    rf_picture_set(&f.picture, px, SIDE, SIDE, 1, SIDE, SIDE, 0);
    rf_talk_figure_show_picture(&f, true);
    rf_figure fig = rf_talk_figure_get(&f);
    check_legend(&fig, "TaLK's window widths", "window width", "positions", "sequential", NULL, 0, widest);

    /* the bands: a token named in the data's words */
    rf_talk_figure_show_picture(&f, false);
    char **names = g_new0(char *, N + 1);
    for (int i = 0; i < N; i++)
        names[i] = g_strdup_printf("%.2f s", i * 0.01);
    rf_talk_figure_take_names(&f, names, N);
    char text[256];
    double x, y;
    bool found = find_hover(&fig, &RF_ZOOM_ALL, "token 20 ", &x, &y, text, sizeof text);
    char expect[128];
    snprintf(expect, sizeof expect, "token 20 \"0.20 s\": window [%.1f, %.1f]", bounds[40], bounds[41]);
    tap_ok(found && strcmp(text, expect) == 0, "hover names the token in the data's words: '%s'", text);
    rf_talk_figure_free(&f);
}

static void test_samples(void)
{
    enum { RATE = 16000, BINS = 40 };
    const int64_t n = RATE / 2;
    float *wave = malloc((size_t)n * sizeof *wave);
    for (int64_t i = 0; i < n; i++)
        wave[i] = (float)(0.5 * sin(2 * M_PI * 440.0 * i / RATE));
    rf_status st = {0};
    rf_logmel *lm = rf_logmel_new(RATE, BINS, 1000, &st);
    int frames = rf_logmel_frames(lm, n);
    float *mel = malloc((size_t)frames * BINS * sizeof *mel), hz[BINS];
    rf_logmel_compute(lm, wave, n, mel);
    for (int b = 0; b < BINS; b++)
        hz[b] = (float)(100 * (b + 1));
    double top = -INFINITY;
    for (int i = 0; i < frames * BINS; i++)
        top = fmax(top, mel[i] * 10.0 / log(10.0));
    rf_sample_figure *f = rf_sample_figure_new();
    rf_sample_figure_set_caption(f, "a.wav", "label: a");
    rf_sample_figure_set_audio(f, wave, n, RATE, NULL, mel, frames, BINS, RF_LOGMEL_HOP_MS / 1000.0, hz);
    rf_figure fig = rf_sample_figure_get(f);
    check_legend(&fig, "the spectrogram", "log-mel power", "dB", "sequential", NULL, top - 80, top);

    /* signed features: diverging around 0 */
    enum { LEN = 50, FEAT = 4 };
    float x[LEN * FEAT];
    double m = 0;
    for (int i = 0; i < LEN * FEAT; i++) {
        x[i] = (float)(sin(0.2 * i) * 2 + 0.5);
        m = fmax(m, fabs(x[i]));
    }
    rf_sample_figure_set_sequence(f, x, LEN, FEAT);
    check_legend(&fig, "a signed features strip", "feature value", NULL, "diverging,", "white = 0", -m, m);
    for (int i = 0; i < LEN * FEAT; i++)
        x[i] = fabsf(x[i]);
    rf_sample_figure_set_sequence(f, x, LEN, FEAT);
    double lo = INFINITY;
    for (int i = 0; i < LEN * FEAT; i++)
        lo = fmin(lo, x[i]);
    check_legend(&fig, "a non-negative features strip", "feature value", NULL, "sequential", NULL, lo, m);

    /* a grey picture: its pixels' grey scale, 0 .. 255 for stored bytes,
     * the inputs' range where the values are stretched; colour pictures
     * need none */
    enum { SIDE = 12 };
    uint8_t bytes[SIDE * SIDE * 3];
    float values[SIDE * SIDE * 3];
    for (int i = 0; i < SIDE * SIDE * 3; i++) {
        bytes[i] = (uint8_t)(i * 7 % 256);
        values[i] = bytes[i] / 127.5f - 1;
    }
    rf_sample_figure_set_picture(f, bytes, values, SIDE, SIDE, 1, 1);
    check_legend(&fig, "a grey picture", "pixel value", NULL, "sequential", NULL, 0, 255);
    tap_ok(bar_colours(&fig, map_right(&fig, "row", H / 2), mid_grey, black),
           "its bar, right of the picture, runs from black through grey");
    rf_sample_figure_set_picture(f, NULL, values, SIDE, SIDE, 1, 1);
    check_legend(&fig, "a stretched grey picture", "input value", NULL, "sequential", NULL, -1, 1);
    rf_sample_figure_set_picture(f, bytes, values, SIDE, SIDE, 3, 1);
    g_autofree char *svg = drawn_text(&fig);
    tap_ok(!has_text(svg, "pixel value") && !has_text(svg, "sequential"), "a colour picture has no scale legend");
    rf_sample_figure_free(f);
    rf_logmel_free(lm);
    free(mel);
    free(wave);
}

int main(void)
{
    test_attention();
    test_overview();
    test_latent();
    test_talk();
    test_samples();
    return tap_done();
}
