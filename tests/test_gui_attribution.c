/* The Attribution view of the real application under Xvfb, against the
 * command line: Compute before any model says there is none; a tiny
 * ListOps run (tests/trained_view.h) is trained to its end, test sample #3 shown in the Data view,
 * the model saved and that sample attributed by
 * `rangefinder inspect --attribution grad-input --out x.npy`; then:
 *   - Compute (gradient × input, the default) returns at once with the
 *     figure still empty and "Computing…" said: the work runs off the UI
 *     thread, which keeps drawing frames meanwhile;
 *   - the values the figure draws are the CLI's, position by position, laid
 *     out as a token strip;
 *   - the Data view's Attribution check button draws the same values over
 *     the sample (and nothing while it is off): at 1024 x 600 the strip
 *     under the token that counts most is painted in its colour at least
 *     8 px high, beside a colour bar naming the method and its range;
 *   - Export Plot writes the figure as SVG;
 *   - compared with a checkpoint of the same task at step 2 (trained by the
 *     CLI), Compute draws three panels (A, B, A − B) whose values are
 *     `inspect --against`'s file, row by row, on one diverging colour range
 *     of the CLI's "range" (max |A|, |B|), its legend naming all three; a
 *     model of another input length is refused with the CLI's sentence;
 *   - with Map → layer0.attn.probs the figure's A, B and A − B maps are
 *     `inspect --against --probe`'s file on one diverging range, max |A|,
 *     |B|, the CLI's shared range;
 *   - then an image folder run (8 x 8 grey pictures in 2 x 2 patches) and
 *     an audio folder run (tones, 16 mel bins): the figure draws the CLI's
 *     values as a 4 x 4 heatmap over the picture, as frames over the
 *     log-mel spectrogram, and the Data view's overlay holds them too,
 *     changing the colour of the position that counts most (over the
 *     grey picture, to its sign's colour).
 * argv[1]: the rangefinder executable. RF_SCREENSHOT_DIR set: also writes
 * screenshot-attribution.png (1600 x 1000, for docs/), the window at
 * 1024 x 600 and 1920 x 1080, and the Data view with the overlay. */
#include <math.h>
#include <string.h>

#include <sndfile.h>

#include "../ui/figures/attribution_figure.h"
#include "../ui/figures/sample_figure.h"
#include "../ui/view.h"
#include "cli_output.h"
#include "figure_pixels.h"
#include "figure_text.h"
#include "trained_view.h"

#define SAMPLE 3

/* The CLI's attribution of test sample SAMPLE: its values (NULL on failure). */
static GArray *cli_values(const char *rangefinder, const char *checkpoint, const char *npy)
{
    g_autofree char *sample = g_strdup_printf("%d", SAMPLE);
    const char *argv[] = {rangefinder, "inspect", "--checkpoint", checkpoint, "--split", "test", "--sample",
                          sample, "--attribution", "grad-input", "--out", npy, NULL};
    g_autofree char *out = cli_run(argv);
    return out != NULL ? npy_values(npy) : NULL;
}

/* The same values within float rounding; the first difference told. */
static gboolean same_values(const float *drawn, int len, const GArray *cli, const char *what)
{
    if (drawn == NULL || cli == NULL || (guint)len != cli->len) {
        tap_diag("%s: %d values drawn, the CLI gives %u", what, drawn != NULL ? len : 0, cli != NULL ? cli->len : 0);
        return FALSE;
    }
    double scale = 0;
    for (int i = 0; i < len; i++)
        scale = fmax(scale, fabs(g_array_index(cli, float, i)));
    for (int i = 0; i < len; i++) {
        float want = g_array_index(cli, float, i);
        if (fabs(drawn[i] - want) > 1e-4 * fmax(scale, 1e-6)) {
            tap_diag("%s: position %d drawn as %g, the CLI gives %g", what, i, drawn[i], want);
            return FALSE;
        }
    }
    return TRUE;
}

static gboolean computed(gpointer page)
{
    int len = 0;
    return rf_attribution_view_values(page, &len) != NULL;
}

static gboolean count_frame(GtkWidget *widget, GdkFrameClock *clock, gpointer frames)
{
    (void)widget;
    (void)clock;
    (*(int *)frames)++;
    return G_SOURCE_CONTINUE;
}


static gboolean has_exact_text(GPtrArray *texts, const char *wanted)
{
    for (guint i = 0; i < texts->len; i++)
        if (strcmp(g_ptr_array_index(texts, i), wanted) == 0)
            return TRUE;
    return FALSE;
}

/* The pixels of column x from y up and down that are colour c (within
 * rounding): the height of what is painted there. */
static int painted_height(cairo_surface_t *s, int x, int y, rf_rgb c)
{
    int h = cairo_image_surface_get_height(s), top = y, bottom = y;
    for (;;) {
        int r, g, b, at = top - 1;
        if (at < 0)
            break;
        pixel(s, x, at, &r, &g, &b);
        if (fabs(r - 255 * c.r) > 6 || fabs(g - 255 * c.g) > 6 || fabs(b - 255 * c.b) > 6)
            break;
        top = at;
    }
    for (;;) {
        int r, g, b, at = bottom + 1;
        if (at >= h)
            break;
        pixel(s, x, at, &r, &g, &b);
        if (fabs(r - 255 * c.r) > 6 || fabs(g - 255 * c.g) > 6 || fabs(b - 255 * c.b) > 6)
            break;
        bottom = at;
    }
    int r, g, b;
    pixel(s, x, y, &r, &g, &b);
    bool there = fabs(r - 255 * c.r) <= 6 && fabs(g - 255 * c.g) <= 6 && fabs(b - 255 * c.b) <= 6;
    if (!there)
        tap_diag("at (%d, %d): %d %d %d, wanted %.0f %.0f %.0f", x, y, r, g, b, 255 * c.r, 255 * c.g, 255 * c.b);
    return there ? bottom - top + 1 : 0;
}

/* At 1024 x 600 the strip under the token that counts most is painted in
 * its colour at least 8 px high, and the colour bar beside the text names
 * the method and reads the range's ends. */
static void check_overlay_drawn(RfWindow *win, GtkWidget *data, const float *values, int len)
{
    gtk_window_set_default_size(GTK_WINDOW(win), 1024, 600);
    spin_for(0.8);
    RfPlotView *plot = rf_view_get_plot(data);
    const rf_sample_figure *fig = rf_plot_view_get_figure(plot)->data;
    int most = 0;
    for (int i = 1; i < len; i++)
        most = fabsf(values[i]) > fabsf(values[most]) ? i : most;
    rf_map_scale scale = rf_attribution_scale(values, len, RF_ATTR_GRAD_INPUT);
    rf_rgb colour = rf_colormap_of(scale.kind, (values[most] - scale.vmin) / (scale.vmax - scale.vmin));
    int w = gtk_widget_get_width(GTK_WIDGET(plot)), h = gtk_widget_get_height(GTK_WIDGET(plot));
    rf_zoom zoom = rf_plot_view_get_zoom(plot);
    rf_rect strip;
    cairo_surface_t *s = draw_plot(plot);
    int painted = rf_sample_figure_attribution_strip(fig, w, h, &zoom, most, &strip)
                      ? painted_height(s, (int)(strip.x + strip.w / 2), (int)(strip.y + strip.h / 2), colour)
                      : -1;
    cairo_surface_destroy(s);
    tap_ok(painted >= 8, "at 1024 x 600 the strip under token %d (%g, the largest) is painted %d px high", most,
           values[most], painted);
    g_autoptr(GPtrArray) texts = figure_texts(plot);
    char hi[32], lo[32];
    rf_format_number(scale.vmax, hi, sizeof hi);
    rf_format_number(scale.vmin, lo, sizeof lo);
    const char *method = rf_attr_method_name(RF_ATTR_GRAD_INPUT);
    tap_ok(has_text(texts, method) && has_exact_text(texts, hi) && has_exact_text(texts, lo),
           "its colour bar names the method (%s) and reads the range's ends, %s and %s", method, lo, hi);
}

static void check_overlay(RfWindow *win, const GArray *cli)
{
    show_page(win, "data");
    GtkWidget *data = gtk_stack_get_child_by_name(rf_window_get_stack(win), "data");
    GtkWidget *toggle = find_named(data, "data-attribution");
    int len = 0;
    tap_ok(toggle != NULL && !gtk_check_button_get_active(GTK_CHECK_BUTTON(toggle)) &&
               rf_data_view_attribution(data, &len) == NULL,
           "the Data view's Attribution is off by default and draws nothing over the sample");
    if (toggle == NULL)
        return;
    gtk_check_button_set_active(GTK_CHECK_BUTTON(toggle), TRUE);
    spin_for(0.3);
    const float *over = rf_data_view_attribution(data, &len);
    tap_ok(same_values(over, len, cli, "overlay"), "checked, it draws the CLI's values over the sample");
    if (over != NULL)
        check_overlay_drawn(win, data, over, len);
    if (g_getenv("RF_SCREENSHOT_DIR") != NULL) {
        spin_for(0.5);
        screenshot(win, "attribution-overlay");
    }
    gtk_check_button_set_active(GTK_CHECK_BUTTON(toggle), FALSE);
    spin_for(0.2);
    tap_ok(rf_data_view_attribution(data, &len) == NULL, "unchecked, the overlay goes");
}

static gboolean compared(gpointer page)
{
    RfPlotView *plot = rf_view_get_plot(page);
    return rf_attribution_figure_panels(rf_plot_view_get_figure(plot)->data) == 3;
}

static gboolean not_computing(gpointer page)
{
    return gtk_widget_get_sensitive(find_named(page, "attribution-compute"));
}

/* The largest |value| over the first 2n values of `both` (A and B). */
static double largest_of_a_and_b(const GArray *both, guint n)
{
    double top = 0;
    for (guint i = 0; i < 2 * n; i++)
        top = fmax(top, fabsf(g_array_index(both, float, i)));
    return top;
}

/* Compare mode with a probe map: Map → MAP_TAP, Compute; the figure's A,
 * B and A − B maps are `inspect --against --probe`'s file, row by row, on
 * one diverging range, max |A|, |B|, which is the CLI's shared range. */
#define MAP_TAP "layer0.attn.probs"

static void check_compare_maps(RfWindow *win, GtkWidget *page, const char *rangefinder, const char *dir,
                               const char *ckpt, const char *b)
{
    g_autofree char *npy = g_build_filename(dir, "maps.npy", NULL);
    g_autofree char *sample = g_strdup_printf("%d", SAMPLE);
    const char *inspect[] = {rangefinder, "inspect", "--checkpoint", ckpt, "--against", b, "--split", "test",
                             "--sample", sample, "--probe", MAP_TAP, "--out", npy, NULL};
    g_autofree char *said = cli_run(inspect);
    const char *range_at = said != NULL ? strstr(said, "shared range ") : NULL;
    g_autoptr(GArray) cli = range_at != NULL ? npy_values(npy) : NULL;
    if (!tap_ok(cli != NULL && cli->len % 3 == 0, "inspect --against --probe %s writes maps.npy", MAP_TAP))
        return;
    double range = g_ascii_strtod(range_at + strlen("shared range "), NULL);

    GtkWidget *menu = find_named(page, "attribution-map");
    GListModel *items = menu != NULL ? gtk_drop_down_get_model(GTK_DROP_DOWN(menu)) : NULL;
    guint at = GTK_INVALID_LIST_POSITION;
    for (guint i = 0; items != NULL && i < g_list_model_get_n_items(items); i++)
        if (strcmp(gtk_string_list_get_string(GTK_STRING_LIST(items), i), MAP_TAP) == 0)
            at = i;
    if (!tap_ok(at != GTK_INVALID_LIST_POSITION && gtk_widget_get_sensitive(menu),
                "in compare mode the Map menu offers the model's %s", MAP_TAP))
        return;
    gtk_drop_down_set_selected(GTK_DROP_DOWN(menu), at);
    rf_attribution_figure *fig = rf_plot_view_get_figure(rf_view_get_plot(page))->data;
    g_signal_emit_by_name(find_named(page, "attribution-compute"), "clicked");
    spin_until(not_computing, page, 60.0);
    if (!tap_ok(g_strcmp0(rf_attribution_figure_map_name(fig), MAP_TAP) == 0,
                "Compute draws the map of both models (%s)",
                gtk_label_get_text(GTK_LABEL(find_named(page, "attribution-status")))))
        return;
    static const char *const names[3] = {"A", "B", "A − B"};
    guint n = cli->len / 3;
    for (int i = 0; i < 3; i++) {
        size_t len = 0;
        rf_shape shape;
        const float *drawn = rf_attribution_figure_map(fig, i, &len, &shape);
        g_autoptr(GArray) row = g_array_new(FALSE, FALSE, sizeof(float));
        g_array_append_vals(row, &g_array_index(cli, float, i * n), n);
        tap_ok(same_values(drawn, (int)len, row, names[i]), "map %s draws row %d of inspect --against --probe's file",
               names[i], i);
    }
    rf_map_scale scale = rf_attribution_figure_map_scale(fig);
    double top = largest_of_a_and_b(cli, n);
    tap_ok(scale.kind == RF_COLORMAP_DIVERGING && scale.vmin == -scale.vmax && fabs(scale.vmax - top) <= 1e-6 * top &&
               fabs(range - top) <= 1e-5 * top && g_strcmp0(scale.units, "A, B, A − B") == 0,
           "the maps share one diverging range, max |A|, |B| = %g (drawn %g, the CLI's %g), its legend naming all "
           "three",
           top, scale.vmax, range);
    view_screenshots(win, "attribution-compare-maps");
    gtk_drop_down_set_selected(GTK_DROP_DOWN(menu), 0);
}

/* Compare mode against `inspect --against` with a step-2 checkpoint. */
static void check_compare(RfWindow *win, const char *rangefinder, const char *dir, const char *ckpt)
{
    g_autofree char *ini = g_build_filename(dir, "b.ini", NULL);
    g_autofree char *run = g_build_filename(dir, "b-run", NULL);
    g_autofree char *b = g_build_filename(run, "checkpoint.safetensors", NULL);
    g_autofree char *npy = g_build_filename(dir, "both.npy", NULL);
    g_autofree char *sample = g_strdup_printf("%d", SAMPLE);
    g_file_set_contents(ini, trained_view_config, -1, NULL);
    const char *train[] = {rangefinder, "train", "--config", ini, "--set", "train.steps=2", "--out", run, NULL};
    g_autofree char *trained = cli_run(train);
    const char *inspect[] = {rangefinder, "inspect", "--checkpoint", ckpt, "--against", b, "--split", "test",
                             "--sample", sample, "--attribution", "grad-input", "--out", npy, NULL};
    g_autofree char *summary = trained != NULL ? cli_run(inspect) : NULL;
    const char *range_at = summary != NULL ? strstr(summary, "\"range\":") : NULL;
    g_autoptr(GArray) cli = range_at != NULL ? npy_values(npy) : NULL;
    if (!tap_ok(cli != NULL && cli->len % 3 == 0, "a step-2 checkpoint is trained and inspect --against writes "
                                                   "both.npy"))
        return;
    double range = g_ascii_strtod(range_at + strlen("\"range\":"), NULL);

    show_page(win, "attribution");
    GtkWidget *page = gtk_stack_get_child_by_name(rf_window_get_stack(win), "attribution");
    rf_attribution_view_compare_with(page, b);
    GtkWidget *menu = find_named(page, "attribution-against");
    GListModel *items = gtk_drop_down_get_model(GTK_DROP_DOWN(menu));
    guint chosen = gtk_drop_down_get_selected(GTK_DROP_DOWN(menu));
    const char *shown = chosen < g_list_model_get_n_items(items)
                            ? gtk_string_list_get_string(GTK_STRING_LIST(items), chosen)
                            : "";
    tap_ok(strcmp(shown, "b-run") == 0, "Compare with shows the checkpoint chosen by its run folder: %s", shown);
    g_signal_emit_by_name(find_named(page, "attribution-compute"), "clicked");
    gboolean done = spin_until(compared, page, 60.0);
    if (!tap_ok(done, "Compute in compare mode draws three panels (%s)",
                gtk_label_get_text(GTK_LABEL(find_named(page, "attribution-status")))))
        return;
    rf_attribution_figure *fig = rf_plot_view_get_figure(rf_view_get_plot(page))->data;
    int n = (int)cli->len / 3, len = 0;
    static const char *const names[3] = {"A", "B", "A − B"};
    for (int i = 0; i < 3; i++) {
        const float *drawn = rf_attribution_figure_panel(fig, i, &len);
        g_autoptr(GArray) row = g_array_new(FALSE, FALSE, sizeof(float));
        g_array_append_vals(row, &g_array_index(cli, float, (guint)(i * n)), (guint)n);
        tap_ok(same_values(drawn, len, row, names[i]), "panel %s draws row %d of inspect --against's file", names[i],
               i);
    }
    rf_map_scale scale = rf_attribution_figure_scale(fig);
    tap_ok(scale.kind == RF_COLORMAP_DIVERGING && scale.vmin == -scale.vmax &&
               fabs(scale.vmax - range) <= 1e-4 * range && g_strcmp0(scale.units, "A, B, A − B") == 0,
           "one diverging range for the three panels, the CLI's shared range %g (drawn %g), the legend names all three",
           range, scale.vmax);
    view_screenshots(win, "attribution-compare");
    check_compare_maps(win, page, rangefinder, dir, ckpt, b);

    /* a model of another input length is refused with the CLI's sentence */
    g_autofree char *longer = g_build_filename(dir, "longer-run", NULL);
    g_autofree char *longer_ckpt = g_build_filename(longer, "checkpoint.safetensors", NULL);
    const char *train_longer[] = {rangefinder, "train", "--config", ini, "--set", "train.steps=1", "--set",
                                  "data.max_len=40", "--out", longer, NULL};
    g_autofree char *trained_longer = cli_run(train_longer);
    rf_attribution_view_compare_with(page, longer_ckpt);
    g_signal_emit_by_name(find_named(page, "attribution-compute"), "clicked");
    spin_until(not_computing, page, 60.0);
    const char *said = gtk_label_get_text(GTK_LABEL(find_named(page, "attribution-status")));
    tap_ok(trained_longer != NULL && strstr(said, "cannot be compared with this model: their models differ in "
                                                  "input length 40 against 32") != NULL,
           "a model of another input length is refused in one sentence: %s", said);
    rf_attribution_view_compare_with(page, NULL);
}

/* ---- a picture and a sound: image folder and audio folder runs ---- */

/* 8 grey 8 x 8 PNGs a class (a light ground with a dark square, or the
 * other way round, the square's place varying) under `root`. */
static void write_pictures(const char *root)
{
    const char *const classes[2] = {"light", "dark"};
    for (int c = 0; c < 2; c++) {
        g_autofree char *folder = g_build_filename(root, classes[c], NULL);
        g_mkdir_with_parents(folder, 0700);
        for (int k = 0; k < 8; k++) {
            cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 8, 8);
            cairo_t *cr = cairo_create(img);
            double ground = c == 0 ? 0.85 : 0.2;
            cairo_set_source_rgb(cr, ground, ground, ground);
            cairo_paint(cr);
            cairo_set_source_rgb(cr, 1 - ground, 1 - ground, 1 - ground);
            cairo_rectangle(cr, k % 4, k / 2, 4, 4);
            cairo_fill(cr);
            cairo_destroy(cr);
            g_autofree char *file = g_strdup_printf("%d.png", k);
            g_autofree char *path = g_build_filename(folder, file, NULL);
            cairo_surface_write_to_png(img, path);
            cairo_surface_destroy(img);
        }
    }
}

/* 6 quarter-second tones a class at 8 kHz (high or low pitches) under `root`. */
static void write_sounds(const char *root)
{
    const char *const classes[2] = {"high", "low"};
    enum { RATE = 8000, SAMPLES = RATE / 4 };
    static float wave[SAMPLES];
    for (int c = 0; c < 2; c++) {
        g_autofree char *folder = g_build_filename(root, classes[c], NULL);
        g_mkdir_with_parents(folder, 0700);
        for (int k = 0; k < 6; k++) {
            double hz = (c == 0 ? 2000 : 300) + 100 * k;
            for (int i = 0; i < SAMPLES; i++)
                wave[i] = (float)(0.5 * sin(2 * M_PI * hz * i / RATE));
            g_autofree char *file = g_strdup_printf("%d.wav", k);
            g_autofree char *path = g_build_filename(folder, file, NULL);
            SF_INFO info = {.samplerate = RATE, .channels = 1, .format = SF_FORMAT_WAV | SF_FORMAT_PCM_16};
            SNDFILE *sf = sf_open(path, SFM_WRITE, &info);
            if (sf != NULL) {
                sf_write_float(sf, wave, SAMPLES);
                sf_close(sf);
            }
        }
    }
}

/* A data kind's run: its files, its [data] section, how the figure lays
 * it out and how the Data view's read-out names a position. */
typedef struct other_data {
    const char *name, *task;
    void (*write)(const char *root);
    const char *data_keys;       /* after task and path */
    char layout;                 /* rf_attribution_figure_layout's */
    int rows, cols;              /* its grid (0: the data set's) */
    const char *position_words;  /* in the Data view's read-out, with the position's number */
    gboolean signed_hue;         /* the sample is grey: the overlay's hue is its sign's */
} other_data;

static const other_data picture_data = {
    "picture", "image_folder", write_pictures, "image_size = 8\npatch = 2\nval_size = 4\ntest_size = 4\nbatch = 4\n",
    'p', 4, 4, "· token %d", TRUE};
static const other_data audio_data = {
    "audio", "audio_folder", write_sounds, "sample_rate = 8000\nmel_bins = 16\nval_size = 2\ntest_size = 4\n"
    "batch = 4\n", 'a', 0, 0, "(frame %d)", FALSE};

static const char *loading_task;
static gboolean task_loaded(gpointer s)
{
    const rf_dataset *ds = rf_session_get_dataset(s);
    return ds != NULL && !rf_session_data_loading(s) && strcmp(ds->name, loading_task) == 0;
}

/* The point of the Data view's sample whose pointer read-out names
 * position `at` in `words` (the middle of its run across), found on a
 * grid; FALSE if none. */
static gboolean position_point(RfPlotView *plot, const char *words, int at, int *px, int *py)
{
    const rf_figure *fig = rf_plot_view_get_figure(plot);
    rf_zoom zoom = rf_plot_view_get_zoom(plot);
    int w = gtk_widget_get_width(GTK_WIDGET(plot)), h = gtk_widget_get_height(GTK_WIDGET(plot));
    char text[256], want[48];
    snprintf(want, sizeof want, words, at);
    for (int y = h - 3; y > 0; y -= 3) {   /* from the bottom: the spectrogram under the waveform */
        int first = -1, last = -1;
        for (int x = 1; x < w; x++)
            if (fig->hover(fig->data, w, h, &zoom, x, y, text, sizeof text) && strstr(text, want) != NULL) {
                first = first < 0 ? x : first;
                last = x;
            }
        if (first >= 0 && last - first >= 2) {
            *px = (first + last) / 2;
            *py = y - 3;
            return TRUE;
        }
    }
    return FALSE;
}

/* The Data view's overlay: its values the CLI's, and the pixels of the
 * position that counts most change colour when it is shown (from grey to
 * its sign's colour over a grey picture). */
static void check_other_overlay(RfWindow *win, const other_data *d, const GArray *cli)
{
    show_page(win, "data");
    GtkWidget *data = gtk_stack_get_child_by_name(rf_window_get_stack(win), "data");
    GtkWidget *toggle = find_named(data, "data-attribution");
    RfPlotView *plot = rf_view_get_plot(data);
    int most = 0;
    for (guint i = 1; i < cli->len; i++)
        most = fabsf(g_array_index(cli, float, i)) > fabsf(g_array_index(cli, float, most)) ? (int)i : most;
    int x = 0, y = 0;
    gboolean found = position_point(plot, d->position_words, most, &x, &y);
    cairo_surface_t *off = draw_plot(plot);
    gtk_check_button_set_active(GTK_CHECK_BUTTON(toggle), TRUE);
    spin_for(0.3);
    int len = 0;
    const float *over = rf_data_view_attribution(data, &len);
    tap_ok(same_values(over, len, cli, d->name), "%s: the Data view's overlay holds the CLI's values", d->name);
    cairo_surface_t *on = draw_plot(plot);
    int r0 = 0, g0 = 0, b0 = 0, r1 = 0, g1 = 0, b1 = 0;
    if (found) {
        pixel(off, x, y, &r0, &g0, &b0);
        pixel(on, x, y, &r1, &g1, &b1);
    }
    float v = g_array_index(cli, float, (guint)most);
    gboolean changed = abs(r1 - r0) + abs(g1 - g0) + abs(b1 - b0) > 30;
    gboolean hue = !d->signed_hue || (abs(r0 - b0) < 6 && (v > 0 ? r1 - b1 > 20 : b1 - r1 > 20));
    tap_ok(found && changed && hue, "%s: over the sample, position %d (%g, the largest) turns from %d %d %d to %d %d %d "
           "at (%d, %d)", d->name, most, v, r0, g0, b0, r1, g1, b1, x, y);
    cairo_surface_destroy(off);
    cairo_surface_destroy(on);
    if (g_getenv("RF_SCREENSHOT_DIR") != NULL) {
        g_autofree char *shot = g_strdup_printf("attribution-overlay-%s", d->name);
        screenshot(win, shot);
    }
    gtk_check_button_set_active(GTK_CHECK_BUTTON(toggle), FALSE);
    spin_for(0.2);
}

/* A run on data of kind `d`: test sample SAMPLE's attribution, drawn in
 * the data's own terms, is the CLI's, and so is the Data view's overlay. */
static void check_other_data(RfWindow *win, const char *rangefinder, const char *dir, const other_data *d)
{
    g_autofree char *sub = g_build_filename(dir, d->name, NULL);
    g_autofree char *files = g_build_filename(sub, "files", NULL);
    d->write(files);
    g_autofree char *ini = g_build_filename(sub, "run.ini", NULL);
    g_autofree char *config = g_strdup_printf(
        "[data]\ntask = %s\npath = %s\n%s[model]\nencoder = full\nlayers = 1\ndim = 16\nheads = 2\nff = 32\n"
        "[train]\nsteps = 4\nlr = 0.01\nwarmup = 0\neval_every = 2\nlog_every = 2\ncheckpoint_every = 0\n"
        "threads = 1\n", d->task, files, d->data_keys);
    g_file_set_contents(ini, config, -1, NULL);
    RfSession *s = rf_window_get_session(win);
    g_autoptr(GError) error = NULL;
    gboolean loaded = rf_session_load_config_file(s, ini, &error);
    if (loaded)
        rf_session_open_data(s);
    loading_task = d->task;
    loaded = loaded && spin_until(task_loaded, s, 60.0);
    if (!tap_ok(loaded, "%s: the %s opens (%s)", d->name, d->task, error != NULL ? error->message : "") ||
        !train_run(win, d->name))
        return;
    show_page(win, "data");
    rf_data_view_show_sample(gtk_stack_get_child_by_name(rf_window_get_stack(win), "data"), RF_SPLIT_TEST, SAMPLE);
    spin_for(0.3);
    g_autofree char *ckpt = save_model_for_cli(win, sub);
    g_autofree char *npy = g_build_filename(sub, "x.npy", NULL);
    g_autoptr(GArray) cli = cli_values(rangefinder, ckpt, npy);
    if (!tap_ok(cli != NULL && cli->len > 8, "%s: inspect --attribution writes x.npy", d->name))
        return;
    show_page(win, "attribution");
    GtkWidget *page = gtk_stack_get_child_by_name(rf_window_get_stack(win), "attribution");
    rf_attribution_figure *fig = rf_plot_view_get_figure(rf_view_get_plot(page))->data;
    rf_attribution_figure_set_message(fig, "recomputing");
    g_signal_emit_by_name(find_named(page, "attribution-compute"), "clicked");
    gboolean done = spin_until(computed, page, 60.0);
    if (!tap_ok(done, "%s: Compute fills the figure (%s)", d->name,
                gtk_label_get_text(GTK_LABEL(find_named(page, "attribution-status")))))
        return;
    int len = 0, rows = 0, cols = 0;
    const float *drawn = rf_attribution_view_values(page, &len);
    tap_ok(same_values(drawn, len, cli, d->name), "%s: the figure draws the CLI's values", d->name);
    const rf_dataset *ds = rf_session_get_dataset(s);
    int want_rows = d->rows > 0 ? d->rows : ds->feat_dim, want_cols = d->cols > 0 ? d->cols : len;
    char layout = rf_attribution_figure_layout(fig, &rows, &cols);
    tap_ok(layout == d->layout && rows == want_rows && cols == want_cols,
           "%s: drawn in the data's terms, laid out '%c' %d x %d (wanted '%c' %d x %d)", d->name, layout, rows, cols,
           d->layout, want_rows, want_cols);
    g_autofree char *shots = g_strdup_printf("attribution-%s", d->name);
    view_screenshots(win, shots);
    check_other_overlay(win, d, cli);
}

static void check_attribution(RfWindow *win, const char *rangefinder, const char *dir)
{
    show_page(win, "data");
    rf_data_view_show_sample(gtk_stack_get_child_by_name(rf_window_get_stack(win), "data"), RF_SPLIT_TEST, SAMPLE);
    spin_for(0.3);
    g_autofree char *ckpt = save_model_for_cli(win, dir);
    g_autofree char *npy = g_build_filename(dir, "x.npy", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(GArray) cli = cli_values(rangefinder, ckpt, npy);
    if (!tap_ok(cli != NULL && cli->len >= 8, "rangefinder inspect --attribution grad-input writes x.npy"))
        return;

    show_page(win, "attribution");
    GtkWidget *page = gtk_stack_get_child_by_name(rf_window_get_stack(win), "attribution");
    RfPlotView *plot = rf_view_get_plot(page);
    GtkWidget *method = find_named(page, "attribution-method");
    tap_ok(gtk_drop_down_get_selected(GTK_DROP_DOWN(method)) == RF_ATTR_GRAD_INPUT,
           "gradient × input is the method chosen at first");
    int frames = 0;
    guint tick = gtk_widget_add_tick_callback(GTK_WIDGET(plot), count_frame, &frames, NULL);
    g_signal_emit_by_name(find_named(page, "attribution-compute"), "clicked");
    const char *said = gtk_label_get_text(GTK_LABEL(find_named(page, "attribution-status")));
    tap_ok(!computed(page) && strstr(said, "Computing") != NULL,
           "Compute returns before the result exists (off the UI thread): %s", said);
    gboolean done = spin_until(computed, page, 60.0);
    gtk_widget_remove_tick_callback(GTK_WIDGET(plot), tick);
    if (!tap_ok(done, "Compute fills the figure (%s)",
                gtk_label_get_text(GTK_LABEL(find_named(page, "attribution-status")))))
        return;
    tap_diag("%d frames drawn while it computed", frames);
    int len = 0;
    const float *drawn = rf_attribution_view_values(page, &len);
    tap_ok(same_values(drawn, len, cli, "figure"),
           "the figure draws the CLI's gradient × input for test #%d, position by position (%d)", SAMPLE, len);
    rf_attribution_figure *fig = rf_plot_view_get_figure(plot)->data;
    int rows = 0, cols = 0;
    tap_ok(rf_attribution_figure_layout(fig, &rows, &cols) == 't' && cols == len,
           "ListOps is drawn as the expression's tokens over a strip");
    rf_map_scale scale = rf_attribution_figure_scale(fig);
    tap_ok(scale.kind == RF_COLORMAP_DIVERGING && scale.vmin == -scale.vmax,
           "a signed method is coloured diverging, centred at 0");

    g_autofree char *svg = g_build_filename(dir, "attribution.svg", NULL);
    tap_ok(rf_window_export_plot(win, "attribution", svg, 1000, 600, &error) &&
               g_file_test(svg, G_FILE_TEST_IS_REGULAR),
           "Export Plot writes the figure as SVG (%s)", error != NULL ? error->message : "");
    view_screenshots(win, "attribution");
    check_overlay(win, cli);
    check_compare(win, rangefinder, dir, ckpt);
    check_other_data(win, rangefinder, dir, &picture_data);
    check_other_data(win, rangefinder, dir, &audio_data);
}

static void before_any_model(RfWindow *win)
{
    const char *said = click_without_model(win, "attribution", "attribution-compute", "attribution-status");
    tap_ok(strstr(said, "no model yet") != NULL &&
               !computed(gtk_stack_get_child_by_name(rf_window_get_stack(win), "attribution")),
           "Compute before any model says so and draws nothing: %s", said);
}

int main(int argc, char **argv)
{
    return trained_view_main(argc, argv, "the Attribution view against the CLI", before_any_model,
                             check_attribution);
}
