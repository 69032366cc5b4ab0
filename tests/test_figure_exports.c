/* Every figure the program draws, exported to SVG and PDF (and a PNG at a
 * physical size), headless: training, compare (the Training figure of
 * several runs), memory, the attention map and overview, BLRP's latent
 * states, TaLK's windows, a data sample of tokens, a picture and audio, and
 * a prediction, each filled with small data of its kind.
 *
 * SVG: no widget text (the "log" buttons, "press Train"), no glyph
 * outlines (cairo's <symbol id="glyph…">), every label a <text> element,
 * and the text size following the export's font size: the commonest size
 * (the tick labels') is the one asked for, in points, at two font sizes.
 * PDF: the text is text, checked by parsing the file (no pdffonts here):
 * its streams inflated with zlib, a content stream sets a font (Tf) and
 * shows text (Tj or TJ) between BT and ET, and a font is embedded
 * (/FontFile2 or /FontFile3 in an object or an object stream).
 * PNG: 6x4in at 300 dpi is 1800 x 1200 pixels with a pHYs chunk of
 * 300 dpi (11811 pixels per metre). */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../core/config.h"
#include "../datasets/logmel.h"
#include "../ui/figures/attention_figure.h"
#include "../ui/figures/attention_overview.h"
#include "../ui/figures/latent_figure.h"
#include "../ui/figures/memory_figure.h"
#include "../ui/figures/prediction_figure.h"
#include "../ui/figures/sample_figure.h"
#include "../ui/figures/talk_figure.h"
#include "../ui/figures/training_figure.h"
#include "../ui/plot/figure.h"
#include "../ui/plot/plot.h"
#include "tap.h"

static char *dir;

/* ---- reading the files back ---- */

/* The size in points of every <text> element: its font-size times the
 * scale of its transform matrix. */
static GArray *svg_text_sizes(const char *svg)
{
    GArray *sizes = g_array_new(FALSE, FALSE, sizeof(double));
    for (const char *t = strstr(svg, "<text "); t != NULL; t = strstr(t + 1, "<text ")) {
        const char *m = strstr(t, "matrix("), *fs = strstr(t, "font-size=\""), *end = strchr(t, '>');
        if (m == NULL || fs == NULL || m > end || fs > end)
            continue;
        double a = g_ascii_strtod(m + 7, NULL), size = g_ascii_strtod(fs + 11, NULL);
        g_array_append_val(sizes, (double){a * size});
    }
    return sizes;
}

/* The commonest of the sizes, rounded to 0.01. */
static double commonest(GArray *sizes)
{
    g_autoptr(GHashTable) counts = g_hash_table_new(g_direct_hash, g_direct_equal);
    int best_n = 0, best = 0;
    for (guint i = 0; i < sizes->len; i++) {
        int key = (int)lround(g_array_index(sizes, double, i) * 100);
        int n = GPOINTER_TO_INT(g_hash_table_lookup(counts, GINT_TO_POINTER(key))) + 1;
        g_hash_table_insert(counts, GINT_TO_POINTER(key), GINT_TO_POINTER(n));
        if (n > best_n) {
            best_n = n;
            best = key;
        }
    }
    return best / 100.0;
}

/* Whether any <text> element reads exactly `text`. */
static bool svg_has_text_element(const char *svg, const char *text)
{
    g_autofree char *wanted = g_strdup_printf(">%s</text>", text);
    return strstr(svg, wanted) != NULL;
}

/* `needle` in [hay, end): a PDF holds NUL bytes, which stop strstr. */
static const char *find(const char *hay, const char *end, const char *needle)
{
    return hay < end ? memmem(hay, (size_t)(end - hay), needle, strlen(needle)) : NULL;
}

static bool pdf_contains(const GString *pdf, const char *needle)
{
    return find(pdf->str, pdf->str + pdf->len, needle) != NULL;
}

/* The PDF's bytes with every FlateDecode stream inflated after it. */
static GString *pdf_inflated(const char *pdf, gsize len)
{
    GString *all = g_string_new_len(pdf, (gssize)len);
    const char *end = pdf + len;
    for (const char *s = find(pdf, end, "stream"); s != NULL; s = find(s + 6, end, "stream")) {
        if (s - pdf >= 3 && memcmp(s - 3, "end", 3) == 0)
            continue;
        const char *data = s + 6;
        data += *data == '\r' ? 2 : 1;
        const char *stop = find(data, end, "endstream");
        if (stop == NULL)
            break;
        z_stream z = {0};
        if (inflateInit(&z) != Z_OK)
            continue;
        unsigned char out[65536];
        z.next_in = (unsigned char *)data;
        z.avail_in = (uInt)(stop - data);
        int rc;
        do {
            z.next_out = out;
            z.avail_out = sizeof out;
            rc = inflate(&z, Z_NO_FLUSH);
            g_string_append_len(all, (const char *)out, (gssize)(sizeof out - z.avail_out));
        } while (rc == Z_OK && z.avail_out == 0);
        inflateEnd(&z);
    }
    return all;
}

/* A text object: BT, a font set with Tf, glyphs shown with Tj or TJ, ET. */
static bool pdf_has_text_object(const GString *pdf)
{
    const char *end = pdf->str + pdf->len;
    for (const char *bt = find(pdf->str, end, "BT\n"); bt != NULL; bt = find(bt + 1, end, "BT\n")) {
        const char *et = find(bt, end, "ET");
        if (et == NULL)
            return false;
        if (find(bt, et, " Tf") != NULL && (find(bt, et, "Tj") != NULL || find(bt, et, "TJ") != NULL))
            return true;
    }
    return false;
}

/* ---- the checks ---- */

static rf_export_options options(double font_size)
{
    rf_export_options o = {900, 600, RF_LENGTH_PX, RF_EXPORT_DPI, font_size};
    return o;
}

/* Exports the SVG at `font_size` and checks it; the sizes of its texts. */
static GArray *check_svg(const rf_figure *fig, const char *kind, double font_size)
{
    GArray *sizes = g_array_new(FALSE, FALSE, sizeof(double));
    g_autofree char *name = g_strdup_printf("%s-%g.svg", kind, font_size);
    g_autofree char *path = g_build_filename(dir, name, NULL);
    rf_export_options o = options(font_size);
    char err[512] = "";
    if (!tap_ok(rf_figure_export_with(fig, &RF_ZOOM_ALL, path, &o, err, sizeof err), "%s: exports to SVG at %g pt%s%s",
                kind, font_size, err[0] ? ": " : "", err))
        return sizes;
    g_autofree char *svg = NULL;
    g_file_get_contents(path, &svg, NULL, NULL);
    tap_ok(svg != NULL && strstr(svg, "width=\"675pt\"") != NULL && strstr(svg, "height=\"450pt\"") != NULL,
           "%s: 900x600 pixels at 96 dpi are 675 x 450 pt", kind);
    tap_ok(svg != NULL && !svg_has_text_element(svg, "log") && strstr(svg, "press Train") == NULL &&
               strstr(svg, "No runs yet") == NULL,
           "%s: the SVG holds no widget text (\"log\", \"press Train\")", kind);
    tap_ok(svg != NULL && strstr(svg, "glyph") == NULL, "%s: no text drawn as glyph outlines", kind);
    if (svg != NULL) {
        g_array_unref(sizes);
        sizes = svg_text_sizes(svg);
    }
    tap_ok(sizes->len >= 3, "%s: its labels are %u <text> elements", kind, sizes->len);
    return sizes;
}

static bool has_size(GArray *sizes, double size)
{
    for (guint i = 0; i < sizes->len; i++)
        if (fabs(g_array_index(sizes, double, i) - size) < 0.01)
            return true;
    return false;
}

static void check_pdf(const rf_figure *fig, const char *kind)
{
    g_autofree char *name = g_strdup_printf("%s.pdf", kind);
    g_autofree char *path = g_build_filename(dir, name, NULL);
    rf_export_options o = options(10);
    char err[512] = "";
    if (!tap_ok(rf_figure_export_with(fig, &RF_ZOOM_ALL, path, &o, err, sizeof err), "%s: exports to PDF%s%s", kind,
                err[0] ? ": " : "", err))
        return;
    g_autofree char *pdf = NULL;
    gsize len = 0;
    g_file_get_contents(path, &pdf, &len, NULL);
    g_autoptr(GString) text = pdf != NULL ? pdf_inflated(pdf, len) : g_string_new(NULL);
    tap_ok(g_str_has_prefix(text->str, "%PDF") && pdf_contains(text, "/MediaBox [ 0 0 675 450 ]"),
           "%s: a PDF page of 675 x 450 pt", kind);
    tap_ok(pdf_has_text_object(text), "%s: the PDF shows its labels as text (BT, Tf, Tj/TJ, ET)", kind);
    tap_ok(pdf_contains(text, "/FontFile2") || pdf_contains(text, "/FontFile3"), "%s: the PDF embeds its font",
           kind);
}

/* At the default font size and at 12 pt: the text is the size asked for
 * (tick labels, captions) and the rest (titles) follows in proportion. */
static void check_figure(const rf_figure *fig, const char *kind)
{
    const double large = 12;
    g_autoptr(GArray) normal = check_svg(fig, kind, RF_EXPORT_FONT_SIZE);
    g_autoptr(GArray) big = check_svg(fig, kind, large);
    tap_ok(has_size(normal, RF_EXPORT_FONT_SIZE) && has_size(big, large),
           "%s: texts at the font size asked for, %g and %g pt", kind, RF_EXPORT_FONT_SIZE, large);
    double common = normal->len > 0 ? commonest(normal) : 0, common_big = big->len > 0 ? commonest(big) : 0;
    tap_ok(common > 0 && fabs(common_big / common - large / RF_EXPORT_FONT_SIZE) < 0.005,
           "%s: the commonest text size grows with it, %.2f to %.2f pt", kind, common, common_big);
    check_pdf(fig, kind);
}

static bool svg_text_at(const char *svg, const char *text, double *x, double *y, double *size);
static void legend_at(const rf_figure *fig, const char *kind, double font_size, const char *quantity,
                      const char *top_label);
static void title_fits(const rf_figure *fig, const char *kind, double font_size, const char *start);

/* ---- the figures, with data ---- */

static rf_run_data *run_of(const char *name, int steps, double rate)
{
    rf_run_data *r = rf_run_data_new(name, NULL);
    g_strlcpy(r->cfg.data.task, "listops", sizeof r->cfg.data.task);
    for (int i = 1; i <= steps; i++) {
        double acc = 0.2 + 0.5 * (1 - exp(-i * rate));
        rf_metrics m = {.step = i, .split = RF_SPLIT_TRAIN, .loss = 2.2 - acc, .accuracy = acc, .lr = 1e-3,
                        .seconds = 0.05 * i, .step_seconds = 0.05};
        rf_run_data_append(r, &m);
        if (i % 20 == 0) {
            m.split = RF_SPLIT_VAL;
            rf_run_data_append(r, &m);
        }
    }
    return r;
}

static void training_and_compare(void)
{
    rf_run_data *runs[3] = {run_of("listops · full", 200, 0.02), run_of("listops · talk", 200, 0.01),
                            run_of("listops · blrp", 150, 0.03)};
    rf_training_figure *t = rf_training_figure_new();
    rf_training_figure_set_runs(t, runs, 1);
    rf_figure fig = rf_training_figure_figure(t);
    check_figure(&fig, "training");
    rf_training_figure_set_runs(t, runs, 3);
    check_figure(&fig, "compare");
    rf_training_figure_free(t);
    for (int i = 0; i < 3; i++)
        rf_run_data_free(runs[i]);
}

static void memory(void)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    rf_memory_figure mf;
    rf_memory_figure_init(&mf);
    int feat_dim, vocab, classes;
    rf_memory_figure_input_shape(&cfg, &feat_dim, &vocab, &classes);
    rf_memory_figure_compute(&mf, &cfg, feat_dim, vocab, classes, 0.5);
    rf_figure fig = rf_memory_figure_figure(&mf);
    check_figure(&fig, "memory");
    rf_memory_figure_clear(&mf);
}

/* Rows of softmax-like weights, a diagonal band. */
static float *attention_rows(int rows, int cols)
{
    float *m = malloc((size_t)rows * cols * sizeof *m);
    for (int r = 0; r < rows; r++) {
        double sum = 0;
        for (int c = 0; c < cols; c++)
            sum += m[(size_t)r * cols + c] = (float)exp(-abs(r - c) / 3.0);
        for (int c = 0; c < cols; c++)
            m[(size_t)r * cols + c] /= (float)sum;
    }
    return m;
}

static void attention(void)
{
    enum { N = 32, HEADS = 2, LAYERS = 2 };
    float *map = attention_rows(N, N);
    rf_attention_figure f;
    rf_attention_figure_init(&f);
    rf_attention_figure_set_matrix(&f, map, N, N, "query", "key");
    rf_attention_figure_set_title(&f, "Layer 0 · head 0 · train sample 0");
    rf_figure fig = rf_attention_figure_get(&f);
    check_figure(&fig, "attention");
    legend_at(&fig, "attention", RF_EXPORT_FONT_SIZE, "attention weight", "0.283");
    legend_at(&fig, "attention", 16, "attention weight", "0.283");
    rf_attention_figure_free(&f);

    float *maps = malloc(sizeof(float) * HEADS * N * N);
    for (int h = 0; h < HEADS; h++)
        memcpy(maps + (size_t)h * N * N, map, sizeof(float) * N * N);
    rf_attention_overview o;
    rf_attention_overview_init(&o);
    rf_attention_overview_resize(&o, LAYERS, HEADS);
    for (int l = 0; l < LAYERS; l++)
        rf_attention_overview_set_layer(&o, l, l, maps, HEADS, N, N, 0);
    rf_attention_overview_set_title(&o, "All layers and heads · train sample 0");
    fig = rf_attention_overview_get(&o);
    check_figure(&fig, "attention-overview");
    legend_at(&fig, "attention-overview", 16, "attention weight", "own max");
    rf_attention_overview_free(&o);
    free(maps);
    free(map);
}

static void latent(void)
{
    enum { SEGMENTS = 4, L = 8, D = 16 };
    rf_latent_figure f;
    rf_latent_figure_init(&f);
    rf_latent_figure_resize(&f, SEGMENTS, L, D);
    float block[L * D];
    float norms[SEGMENTS];
    for (int p = 0; p < 2; p++) {
        for (int s = 0; s < SEGMENTS; s++)
            norms[s] = (float)(1 + s + p);
        rf_latent_figure_set_norms(&f, (rf_latent_norm)p, norms, (rf_matrix_positions){0, SEGMENTS, SEGMENTS}, false);
        for (int i = 0; i < L * D; i++)
            block[i] = (float)sin(0.37 * i + 1 + 3 * p) * 2;
        rf_latent_figure_set_state(&f, (rf_latent_pass)p, 2, block);
    }
    rf_latent_figure_select(&f, 2, RF_LATENT_FORWARD);
    rf_latent_figure_set_title(&f, "BLRP latent states · train sample 0");
    rf_figure fig = rf_latent_figure_get(&f);
    check_figure(&fig, "latent");
    legend_at(&fig, "latent", 16, "latent value", NULL);
    rf_latent_figure_free(&f);
}

static void talk(void)
{
    enum { TOKENS = 48, HEADS = 2 };
    float bounds[TOKENS * 2 * HEADS];
    for (int i = 0; i < TOKENS; i++)
        for (int h = 0; h < HEADS; h++) {
            bounds[i * 2 * HEADS + h] = (float)fmax(0, i - 3 - h);
            bounds[i * 2 * HEADS + HEADS + h] = (float)fmin(TOKENS - 1, i + 5);
        }
    rf_talk_figure f;
    rf_talk_figure_init(&f);
    rf_talk_figure_set_bounds(&f, bounds, TOKENS, HEADS, 1);
    rf_talk_figure_set_title(&f, "TaLK windows · layer 0 · head 1");
    rf_figure fig = rf_talk_figure_get(&f);
    check_figure(&fig, "talk");
    title_fits(&fig, "talk", 12, "Window of each token i");
    rf_talk_figure_free(&f);
}

static void samples(void)
{
    static const char *const expr[] = {"[MAX", "2", "[MIN", "4", "7", "]", "0", "[SM", "3", "5", "]", "]"};
    rf_sample_figure *f = rf_sample_figure_new();
    rf_figure fig = rf_sample_figure_get(f);
    rf_sample_figure_set_caption(f, "train #0", "label: 7");
    rf_sample_figure_set_tokens(f, expr, (int)G_N_ELEMENTS(expr));
    check_figure(&fig, "sample-tokens");

    enum { SIDE = 28 };
    float image[SIDE * SIDE];
    for (int i = 0; i < SIDE * SIDE; i++)
        image[i] = (float)((i / SIDE + i % SIDE) % 17) / 16.0f;
    rf_sample_figure_set_caption(f, "train #1: a gradient", "label: 3");
    rf_sample_figure_set_picture(f, NULL, image, SIDE, SIDE, 1, 1);
    check_figure(&fig, "sample-image");

    const int rate = 16000, bins = 32;
    const int64_t n = rate / 4;
    float *wave = malloc((size_t)n * sizeof *wave);
    for (int64_t i = 0; i < n; i++)
        wave[i] = (float)(0.5 * sin(2 * M_PI * (300 + 2000.0 * i / n) * i / rate));
    rf_status st = {0};
    rf_logmel *lm = rf_logmel_new(rate, bins, 1000, &st);
    int frames = rf_logmel_frames(lm, n);
    float *mel = malloc((size_t)frames * bins * sizeof *mel), hz[32];
    rf_logmel_compute(lm, wave, n, mel);
    for (int b = 0; b < bins; b++)
        hz[b] = (float)rf_hz_from_mel(rf_mel_from_hz(rate / 2.0) * (b + 1) / (bins + 1));
    rf_sample_figure_set_caption(f, "train #2: chirp.wav (0.25 s)", "label: chirp");
    rf_sample_figure_set_audio(f, wave, n, rate, NULL, mel, frames, bins, RF_LOGMEL_HOP_MS / 1000.0, hz);
    check_figure(&fig, "sample-audio");
    rf_logmel_free(lm);
    free(mel);
    free(wave);
    rf_sample_figure_free(f);
}

static void prediction(void)
{
    static const char *const names[] = {"T-shirt", "Trouser", "Pullover", "Dress", "Coat"};
    const float probs[] = {0.05f, 0.02f, 0.7f, 0.03f, 0.2f};
    rf_prediction_figure *f = rf_prediction_figure_new();
    rf_prediction_figure_set(f, "model at step 300: Pullover", names, probs, 5);
    rf_figure fig = rf_prediction_figure_get(f);
    check_figure(&fig, "prediction");
    /* its rows grow with the text, so 24 pt class names are 24 pt */
    g_autoptr(GArray) large = check_svg(&fig, "prediction", 24);
    double name_x, name_y, name_size = 0;
    g_autofree char *path = g_build_filename(dir, "prediction-24.svg", NULL), *svg = NULL;
    g_file_get_contents(path, &svg, NULL, NULL);
    bool found = svg != NULL && svg_text_at(svg, "Dress", &name_x, &name_y, &name_size);
    tap_ok(found && fabs(name_size * 0.75 - 24) < 0.01, "prediction at 24 pt: the class names are %.2f pt",
           name_size * 0.75);
    rf_prediction_figure_free(f);
}

/* The <text> element reading `text`: its x, y and font-size attributes (in
 * drawing units); false when there is none. */
static bool svg_text_at(const char *svg, const char *text, double *x, double *y, double *size)
{
    g_autofree char *wanted = g_strdup_printf(">%s</text>", text);
    const char *end = strstr(svg, wanted);
    if (end == NULL)
        return false;
    const char *start = end;
    while (start > svg && strncmp(start, "<text ", 6) != 0)
        start--;
    const char *ax = strstr(start, " x=\""), *ay = strstr(start, " y=\""), *as = strstr(start, " font-size=\"");
    if (ax == NULL || ay == NULL || as == NULL || ax > end || ay > end || as > end)
        return false;
    *x = g_ascii_strtod(ax + 4, NULL);
    *y = g_ascii_strtod(ay + 4, NULL);
    *size = g_ascii_strtod(as + 12, NULL);
    return true;
}

static double svg_text_x(const char *svg, const char *text)
{
    double x, y, size;
    return svg_text_at(svg, text, &x, &y, &size) ? x : NAN;
}

/* A narrow Training figure at a large font size: its key ("train: smoothed
 * …") starts right of the Accuracy panel's title or is left out, never
 * printed over it. */
static void narrow_key(double width)
{
    rf_run_data *run = run_of("listops · full", 100, 0.02);
    rf_training_figure *t = rf_training_figure_new();
    rf_training_figure_set_runs(t, &run, 1);
    rf_figure fig = rf_training_figure_figure(t);
    g_autofree char *path = g_build_filename(dir, "narrow.svg", NULL);
    rf_export_options o = {width, 420, RF_LENGTH_PX, 96, 11};
    char err[512] = "";
    bool ok = rf_figure_export_with(&fig, &RF_ZOOM_ALL, path, &o, err, sizeof err);
    g_autofree char *svg = NULL;
    g_file_get_contents(path, &svg, NULL, NULL);
    const char *key = "train: smoothed 0.6, faint: raw · dark with points: validation";
    double title_x = svg != NULL ? svg_text_x(svg, "Accuracy") : NAN, key_x = svg != NULL ? svg_text_x(svg, key) : NAN;
    /* the title's width as the figure measures it, at the same text scale */
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t *cr = cairo_create(s);
    rf_plot_set_text_scale(cr, o.font_size / RF_EXPORT_FONT_SIZE);
    double title_w = rf_text_width(cr, RF_PLOT_TITLE, true, "Accuracy");
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    tap_ok(ok && isfinite(title_x) && (isnan(key_x) || key_x >= title_x + title_w),
           "a Training figure %g px wide at 11 pt: the key starts at %.1f, right of the Accuracy title (%.1f to "
           "%.1f), or is left out", width, key_x, title_x, title_x + title_w);
    rf_training_figure_free(t);
    rf_run_data_free(run);
}

/* A heatmap's legend at a font size: its quantity ("attention weight") lies
 * inside the figure's right edge and clear above the label of the bar's top
 * end (`top_label`, centred on the bar's end; NULL: not checked). */
static void legend_at(const rf_figure *fig, const char *kind, double font_size, const char *quantity,
                      const char *top_label)
{
    g_autofree char *name = g_strdup_printf("%s-legend-%g.svg", kind, font_size);
    g_autofree char *path = g_build_filename(dir, name, NULL);
    rf_export_options o = options(font_size);
    char err[512] = "";
    bool ok = rf_figure_export_with(fig, &RF_ZOOM_ALL, path, &o, err, sizeof err);
    g_autofree char *svg = NULL;
    g_file_get_contents(path, &svg, NULL, NULL);
    double qx = NAN, qy = NAN, qs = NAN, tx = NAN, ty = NAN, ts = NAN;
    /* (the SVG's text coordinates are the figure's pixels, 900 x 600) */
    ok = ok && svg != NULL && svg_text_at(svg, quantity, &qx, &qy, &qs) &&
         (top_label == NULL || svg_text_at(svg, top_label, &tx, &ty, &ts));
    /* the quantity's width as the figure measures it */
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t *cr = cairo_create(s);
    rf_plot_set_text_scale(cr, font_size / RF_EXPORT_FONT_SIZE);
    double qw = rf_text_width(cr, RF_PLOT_TEXT, false, quantity);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    /* baselines: the quantity's descent (0.25 em) above the label's cap (0.75 em) */
    tap_ok(ok && qx + qw <= 900 && (top_label == NULL || ty - qy >= 0.25 * qs + 0.75 * ts),
           "%s at %g pt: the legend's \"%s\" ends at %.1f of 900 px, its baseline %.1f px above \"%s\"'s (%.1f "
           "needed)",
           kind, font_size, quantity, qx + qw, ty - qy, top_label != NULL ? top_label : "-", 0.25 * qs + 0.75 * ts);
}

/* Where the figure's SVG text starting `start` lies: exported with `o` to
 * `name`, the text (g_free), its left x and its width at the size the SVG
 * gives it (the figure's pixels); NULL when there is no such text. */
static char *exported_text(const rf_figure *fig, const char *name, const rf_export_options *o, const char *start,
                           bool bold, double *x, double *w)
{
    g_autofree char *path = g_build_filename(dir, name, NULL), *svg = NULL, *wanted = g_strdup_printf(">%s", start);
    char err[512] = "";
    *x = *w = NAN;
    if (!rf_figure_export_with(fig, &RF_ZOOM_ALL, path, o, err, sizeof err) ||
        !g_file_get_contents(path, &svg, NULL, NULL))
        return NULL;
    const char *at = strstr(svg, wanted), *end = at != NULL ? strstr(at, "</text>") : NULL;
    double y, size;
    char *text = end != NULL ? g_strndup(at + 1, (gsize)(end - at - 1)) : NULL;
    if (text == NULL || !svg_text_at(svg, text, x, &y, &size))
        return text;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t *cr = cairo_create(s);
    *w = rf_text_width(cr, size, bold, text);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    return text;
}

/* A panel title starting `start`, exported at `font_size`, ends inside the
 * figure's 900 px (a long title is drawn smaller rather than cut off). */
static void title_fits(const rf_figure *fig, const char *kind, double font_size, const char *start)
{
    g_autofree char *name = g_strdup_printf("%s-title-%g.svg", kind, font_size);
    rf_export_options o = options(font_size);
    double x, w;
    g_autofree char *text = exported_text(fig, name, &o, start, true, &x, &w);
    tap_ok(isfinite(w) && x + w <= 900, "%s at %g pt: the title \"%s…\" ends at %.1f of 900 px", kind, font_size,
           start, x + w);
}

/* A narrow Training figure whose run has a long name, at a large font
 * size: the legend's label starts inside the figure and ends inside it
 * (drawn smaller, then shortened with "…"), not running off its left edge. */
static void long_run_name(void)
{
    const char *name = "2026-12-01_204007-listops-blrp-curriculum-long-warmup-sweep";
    rf_run_data *run = run_of(name, 100, 0.02);
    rf_training_figure *t = rf_training_figure_new();
    rf_training_figure_set_runs(t, &run, 1);
    rf_figure fig = rf_training_figure_figure(t);
    rf_export_options o = {600, 400, RF_LENGTH_PX, 96, 12};
    double x, w;
    g_autofree char *label = exported_text(&fig, "long-name.svg", &o, "2026-12-01_204007", false, &x, &w);
    tap_ok(isfinite(w) && x >= 0 && x + w <= 600,
           "a 600 px Training figure at 12 pt: the long run name's legend label \"%s\" lies inside it (%.1f to %.1f)",
           label != NULL ? label : "-", x, x + w);
    rf_training_figure_free(t);
    rf_run_data_free(run);
}

/* A data sample's header at 24 pt: its label line sits below the title
 * line (the header grows with the text), not over it. */
static void sample_header(void)
{
    enum { SIDE = 8 };
    float image[SIDE * SIDE];
    for (int i = 0; i < SIDE * SIDE; i++)
        image[i] = (float)i / (SIDE * SIDE);
    rf_sample_figure *f = rf_sample_figure_new();
    rf_sample_figure_set_caption(f, "train #1: a gradient", "label: 3");
    rf_sample_figure_set_picture(f, NULL, image, SIDE, SIDE, 1, 1);
    rf_figure fig = rf_sample_figure_get(f);
    g_autofree char *path = g_build_filename(dir, "sample-header.svg", NULL);
    rf_export_options o = {900, 600, RF_LENGTH_PX, 96, 24};
    char err[512] = "";
    bool ok = rf_figure_export_with(&fig, &RF_ZOOM_ALL, path, &o, err, sizeof err);
    g_autofree char *svg = NULL;
    g_file_get_contents(path, &svg, NULL, NULL);
    double tx = 0, ty = 0, ts = 0, lx = 0, ly = 0, ls = 0;
    bool found = svg != NULL && svg_text_at(svg, "train #1: a gradient", &tx, &ty, &ts) &&
                 svg_text_at(svg, "label: 3", &lx, &ly, &ls);
    /* a line's capitals reach about 0.72 of its size above its baseline */
    tap_ok(ok && found && ly - 0.72 * ls > ty, "a sample's header at 24 pt: the label line's top (%.1f) is below the "
           "title's baseline (%.1f)", ly - 0.72 * ls, ty);
    rf_sample_figure_free(f);
}

/* ---- a PNG at a physical size ---- */

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void png_resolution(void)
{
    rf_run_data *run = run_of("listops · full", 100, 0.02);
    rf_training_figure *t = rf_training_figure_new();
    rf_training_figure_set_runs(t, &run, 1);
    rf_figure fig = rf_training_figure_figure(t);
    g_autofree char *path = g_build_filename(dir, "training.png", NULL);
    rf_export_options o = {6, 4, RF_LENGTH_IN, 300, 10};
    char err[512] = "";
    bool ok = rf_figure_export_with(&fig, &RF_ZOOM_ALL, path, &o, err, sizeof err);
    g_autofree unsigned char *png = NULL;
    gsize len = 0;
    g_file_get_contents(path, (char **)&png, &len, NULL);
    tap_ok(ok && len > 33 + 21 && be32(png + 16) == 1800 && be32(png + 20) == 1200,
           "6x4in at 300 dpi is a PNG of 1800 x 1200 pixels (%u x %u)%s", len > 24 ? be32(png + 16) : 0,
           len > 24 ? be32(png + 20) : 0, err);
    const unsigned char *phys = len > 54 ? memmem(png, len, "pHYs", 4) : NULL;
    tap_ok(phys != NULL && phys - png < 64 && be32(phys + 4) == 11811 && be32(phys + 8) == 11811 && phys[12] == 1,
           "its pHYs chunk, before the image data, says 300 dpi (11811 pixels per metre)");
    tap_ok(phys != NULL && be32(phys + 13) == (uint32_t)crc32(0, phys, 13), "the chunk's CRC is right");

    rf_export_options tiny = {0.1, 0.1, RF_LENGTH_IN, 96, 10};
    ok = rf_figure_export_with(&fig, &RF_ZOOM_ALL, path, &tiny, err, sizeof err);
    tap_ok(!ok && strstr(err, path) != NULL && strstr(err, "each side") != NULL,
           "a size too small to draw is refused, naming the file (\"%s\")", err);
    rf_export_options big_font = {6, 4, RF_LENGTH_IN, 96, 200};
    ok = rf_figure_export_with(&fig, &RF_ZOOM_ALL, path, &big_font, err, sizeof err);
    tap_ok(!ok && strstr(err, "font size") != NULL, "a font size of 200 pt is refused (\"%s\")", err);
    rf_training_figure_free(t);
    rf_run_data_free(run);
}

int main(void)
{
    dir = g_dir_make_tmp("rf-figure-exports-XXXXXX", NULL);
    training_and_compare();
    memory();
    attention();
    latent();
    talk();
    samples();
    prediction();
    narrow_key(600);
    narrow_key(900);
    long_run_name();
    sample_header();
    png_resolution();
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    for (const char *name; d != NULL && (name = g_dir_read_name(d)) != NULL;) {
        g_autofree char *path = g_build_filename(dir, name, NULL);
        if (g_getenv("RF_EXPORTS_KEEP") == NULL) g_unlink(path);
    }
    if (g_getenv("RF_EXPORTS_KEEP") == NULL) g_rmdir(dir); else tap_diag("kept in %s", dir);
    g_free(dir);
    return tap_done();
}
