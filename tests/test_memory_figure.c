/* The Memory figure without a display: every encoder planned across
 * lengths, its notes under the plot, the current configuration's dot and
 * label, a run's measured peak beside its plan, and exports to PNG, SVG
 * and PDF (failed ones named, nothing half-written). */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../ui/figures/memory_figure.h"
#include "../ui/plot/plot.h"
#include "figure_pixels.h"
#include "tap.h"

/* The frame of a plot drawn into `s`: the rows and columns where its
 * border (the muted grey of rf_plot_end) runs across most of the picture. */
static box find_frame(cairo_surface_t *s, rf_rgb border)
{
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    box b = {w, h, 0, 0};
    for (int y = 0; y < h; y++) {
        int n = 0;
        for (int x = 0; x < w; x++)
            n += is_colour(s, x, y, border);
        if (n > w / 2) {
            b.y0 = fmin(b.y0, y);
            b.y1 = fmax(b.y1, y);
        }
    }
    for (int x = 0; x < w; x++) {
        int n = 0;
        for (int y = (int)b.y0; y <= (int)b.y1; y++)
            n += is_colour(s, x, y, border);
        if (n > (b.y1 - b.y0) * 0.9) {
            b.x0 = fmin(b.x0, x);
            b.x1 = fmax(b.x1, x);
        }
    }
    return b;
}

/* The Memory view's notes (issue 12 item 6): the key names only the marks
 * drawn, and the key and notes sit under the plot, never over its data. */
static void check_memory_notes(rf_memory_figure *mf, cairo_surface_t *drawn)
{
    const rf_rgb note_grey = {0.40, 0.40, 0.44};   /* the notes' and the frame's grey */
    box frame = find_frame(drawn, note_grey);
    int inside = 0, below = 0;
    int w = cairo_image_surface_get_width(drawn), h = cairo_image_surface_get_height(drawn);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            if (!is_colour(drawn, x, y, note_grey))
                continue;
            /* the bottom strip of the data area, where notes were once written over the curves,
             * short of the legend in its bottom-right corner (its dark text antialiases through
             * this grey too) */
            inside += x > frame.x0 + 1 && x < frame.x1 - 150 && y > frame.y1 - 3 * (RF_PLOT_TEXT + 6) &&
                      y < frame.y1 - 1;
            below += y > frame.y1 + 2 * RF_PLOT_TEXT;
        }
    tap_ok(frame.x1 - frame.x0 > 500 && frame.y1 - frame.y0 > 300 && inside == 0 && below > 50,
           "the Memory view's notes are drawn under the plot (%d grey pixels there), none in the bottom of its data area "
           "(%d; frame %.0f,%.0f to %.0f,%.0f)", below, inside, frame.x0, frame.y0, frame.x1, frame.y1);

    char key[256];
    rf_memory_figure_key(mf, key, sizeof key);
    tap_ok(strstr(key, "squares: measured peaks") != NULL && strstr(key, "large dot") != NULL,
           "with a measured peak and a planned config, the key names squares and the large dot (%s)", key);
    GArray *measured = mf->measured;
    mf->measured = g_array_new(FALSE, FALSE, sizeof(rf_memory_point));
    rf_memory_point nowhere = {.seq_len = 2000, .peak_bytes = NAN};
    g_array_append_val(mf->measured, nowhere);
    double current = mf->current_bytes;
    mf->current_bytes = NAN;
    rf_memory_figure_key(mf, key, sizeof key);
    tap_ok(strstr(key, "squares") == NULL && strstr(key, "large dot") == NULL,
           "without a peak to draw or a planned config, the key names neither (%s)", key);
    g_array_unref(mf->measured);
    mf->measured = measured;
    mf->current_bytes = current;

    /* curves drawn over each other are named in the key; distinct ones not */
    rf_memory_curve saved[RF_MEMORY_ENCODERS];
    memcpy(saved, mf->curves, sizeof saved);
    for (int e = 0; e < RF_MEMORY_ENCODERS; e++)
        for (int i = 0; i < RF_MEMORY_LENGTHS; i++)
            mf->curves[e].bytes[i] *= 1.0 + 0.1 * e;
    rf_memory_figure_key(mf, key, sizeof key);
    tap_ok(strstr(key, "coincide") == NULL, "distinct lines are not said to coincide (%s)", key);
    memcpy(mf->curves[4].bytes, mf->curves[1].bytes, sizeof mf->curves[4].bytes);
    memcpy(mf->curves[5].bytes, mf->curves[1].bytes, sizeof mf->curves[5].bytes);
    rf_memory_figure_key(mf, key, sizeof key);
    char want[96];
    g_snprintf(want, sizeof want, "lines coincide: %s = %s = %s", mf->curves[1].encoder, mf->curves[4].encoder,
               mf->curves[5].encoder);
    tap_ok(strstr(key, want) != NULL, "three encoders planning the same memory: the key says \"%s\" (%s)", want, key);

    /* lengths left unplanned: named, and said to be still planning only
     * while a full pass is to come */
    char note[256];
    for (int e = 0; e < RF_MEMORY_ENCODERS; e++)
        mf->curves[e].planned = RF_MEMORY_LENGTHS;
    rf_memory_figure_unplanned(mf, note, sizeof note);
    tap_ok(note[0] == '\0', "every length planned: no note of unplanned lengths (\"%s\")", note);
    mf->curves[4].planned = 4;
    mf->more_coming = true;
    rf_memory_figure_unplanned(mf, note, sizeof note);
    g_snprintf(want, sizeof want, "%s above N=%d: still planning", mf->curves[4].encoder, mf->lengths[3]);
    tap_ok(strcmp(note, want) == 0, "a quick pass's curves: the note says \"%s\" (\"%s\")", want, note);
    mf->more_coming = false;
    rf_memory_figure_unplanned(mf, note, sizeof note);
    tap_ok(strstr(note, "not planned (slow to plan there)") != NULL && strstr(note, "still") == NULL,
           "after the full pass, lengths it left out are said not planned (\"%s\")", note);
    memcpy(mf->curves, saved, sizeof saved);
}

/* The centre of a disc of colour c (radius 4 all that colour: wider than
 * any line or planned dot), or false. */
static bool find_disc(cairo_surface_t *s, rf_rgb c, int *cx, int *cy)
{
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    for (int y = 4; y < h - 4; y++)
        for (int x = 4; x < w - 4; x++) {
            bool disc = true;
            for (int dy = -4; dy <= 4 && disc; dy++)
                for (int dx = -4; dx <= 4 && disc; dx++)
                    disc = dx * dx + dy * dy > 16 || is_colour(s, x + dx, y + dy, c);
            if (disc) {
                *cx = x;
                *cy = y;
                return true;
            }
        }
    return false;
}

/* The large dot of the current config is drawn, and stays visible when a
 * run of that config measured its peak at the dot's very place. */
static void check_current_dot(rf_memory_figure *mf, const rf_config *cfg)
{
    rf_rgb colour = rf_series_color(7);
    for (int e = 0; e < RF_MEMORY_ENCODERS; e++)
        if (strcmp(mf->curves[e].encoder, mf->current_encoder) == 0)
            colour = rf_series_color(e);
    rf_memory_figure_set_runs(mf, NULL, 0);
    rf_figure f = rf_memory_figure_figure(mf);
    cairo_surface_t *alone = render_figure(&f, 1000, 700);
    int x = -1, y = -1;
    bool drawn = find_disc(alone, colour, &x, &y);
    tap_ok(drawn, "the current config's large dot is drawn (at %d, %d)", x, y);
    rf_run_data *run = rf_run_data_new("measured here", cfg);
    run->peak_bytes = mf->current_bytes;
    rf_memory_figure_set_runs(mf, &run, 1);
    cairo_surface_t *with_run = render_figure(&f, 1000, 700);
    int x2 = -1, y2 = -1;
    bool visible = find_disc(with_run, colour, &x2, &y2);
    tap_ok(drawn && mf->measured->len == 1 && visible && x2 == x && y2 == y,
           "and stays visible where a run of the current config measured the same peak (at %d, %d)", x2, y2);
    rf_memory_figure_set_runs(mf, NULL, 0);
    rf_run_data_free(run);
    cairo_surface_destroy(alone);
    cairo_surface_destroy(with_run);
}

/* Pixels of the current config's label text (its near-black) in rows
 * [y0, y1) and columns [x0, x1). */
static int label_ink(cairo_surface_t *s, int x0, int x1, int y0, int y1)
{
    int n = 0;
    for (int y = MAX(y0, 0); y < MIN(y1, cairo_image_surface_get_height(s)); y++)
        for (int x = MAX(x0, 0); x < MIN(x1, cairo_image_surface_get_width(s)); x++)
            n += is_colour(s, x, y, (rf_rgb){0.15, 0.15, 0.17});
    return n;
}

/* The current config's label goes under its dot, and over it where the dot
 * sits on the frame's bottom edge (a config smaller than every curve), so
 * it never covers the length ticks. */
static void check_current_label(rf_memory_figure *mf)
{
    rf_rgb colour = rf_series_color(7);
    for (int e = 0; e < RF_MEMORY_ENCODERS; e++)
        if (strcmp(mf->curves[e].encoder, mf->current_encoder) == 0)
            colour = rf_series_color(e);
    rf_figure f = rf_memory_figure_figure(mf);
    double saved = mf->current_bytes;
    int places[2][2] = {{-1, -1}, {-1, -1}}, under[2] = {0, 0}, over[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        if (k == 1)
            mf->current_bytes = saved / 100;   /* the lowest point: the axis starts there */
        cairo_surface_t *s = render_figure(&f, 1000, 700);
        int x = -1, y = -1;
        if (find_disc(s, colour, &x, &y)) {
            under[k] = label_ink(s, x + 10, x + 400, y + 6, y + 24);
            over[k] = label_ink(s, x + 10, x + 400, y - 24, y - 6);
        }
        places[k][0] = x;
        places[k][1] = y;
        cairo_surface_destroy(s);
    }
    mf->current_bytes = saved;
    tap_ok(under[0] > 20 && over[0] == 0, "the current config's label is under its dot at (%d, %d) (%d px under, %d over)",
           places[0][0], places[0][1], under[0], over[0]);
    tap_ok(under[1] == 0 && over[1] > 20,
           "and over it when the dot sits on the bottom edge at (%d, %d) (%d px under, %d over)", places[1][0],
           places[1][1], under[1], over[1]);
}

static void test_memory_figure(const char *tmp)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    rf_config_set(&cfg, "data.task", "listops", NULL);
    int feat_dim, vocab, classes;
    bool known = rf_memory_figure_input_shape(&cfg, &feat_dim, &vocab, &classes);
    tap_ok(known && feat_dim == 0 && vocab > 0, "ListOps' input shape is known without opening it (vocab %d)", vocab);
    rf_memory_figure mf;
    rf_memory_figure_init(&mf);
    rf_memory_figure_compute(&mf, &cfg, feat_dim, vocab, classes, 0.5);
    tap_diag("planning every encoder took %.0f ms", mf.compute_seconds * 1e3);
    bool all = true;
    for (int e = 0; e < RF_MEMORY_ENCODERS; e++)
        all = all && isfinite(mf.curves[e].bytes[0]) && isfinite(mf.curves[e].bytes[3]);
    tap_ok(all, "every encoder is planned at lengths 256 to 2048");
    /* Every encoder but blrp plans in milliseconds at any length, so even
     * the view's quick pass reaches the longest length, 1,048,576. */
    int last = RF_MEMORY_LENGTHS - 1;
    bool longest = mf.lengths[last] == 1 << 20;
    for (int e = 0; e < RF_MEMORY_ENCODERS; e++)
        if (strcmp(mf.curves[e].encoder, "blrp") != 0)
            longest = longest && isfinite(mf.curves[e].bytes[last]) && mf.curves[e].planned == RF_MEMORY_LENGTHS;
    tap_ok(longest, "full, ls, linear, talk and maelre are planned up to N=%d", mf.lengths[last]);
    rf_memory_figure stopped;
    rf_memory_figure_init(&stopped);
    const gint stop = 1;
    rf_memory_figure_compute_until(&stopped, &cfg, feat_dim, vocab, classes, 0, &stop);
    int planned = 0;
    for (int e = 0; e < RF_MEMORY_ENCODERS; e++)
        for (int i = 0; i < RF_MEMORY_LENGTHS; i++)
            planned += isfinite(stopped.curves[e].bytes[i]);
    tap_ok(planned == 0, "a stopped computation plans no more lengths (%d planned)", planned);
    rf_memory_figure_clear(&stopped);
    /* 16x the length (256 -> 4096): every plan grows about linearly, full
     * attention's too since it keeps each row's log-sum-exp, not its N x N
     * probabilities (flash-style, issue 14); N^2 would be 40x and more. */
    double growth[RF_MEMORY_ENCODERS];
    for (int e = 0; e < RF_MEMORY_ENCODERS; e++)
        growth[e] = mf.curves[e].bytes[4] / mf.curves[e].bytes[0];
    bool linear = true;
    for (int e = 0; e < RF_MEMORY_ENCODERS; e++)
        if (strcmp(mf.curves[e].encoder, "blrp") != 0)
            linear = linear && growth[e] < 20;
    tap_ok(linear, "full, ls, linear, talk, maelre grow at most ~linearly (%.1fx %.1fx %.1fx %.1fx %.1fx)", growth[0],
           growth[1], growth[2], growth[3], growth[5]);
    tap_ok(isfinite(mf.current_bytes) && mf.current_seq == cfg.data.max_len && mf.ram_bytes > 0,
           "the current config is planned at N=%d and the RAM is known", mf.current_seq);

    rf_run_data *run = rf_run_data_new("measured", &cfg);
    run->peak_bytes = mf.current_bytes * 0.9;
    rf_memory_figure_set_runs(&mf, &run, 1);
    rf_figure f = rf_memory_figure_figure(&mf);
    cairo_surface_t *s = render_figure(&f, 1000, 700);
    bool colours = true;
    for (int e = 0; e < RF_MEMORY_ENCODERS; e++)
        colours = colours && colour_pixels(s, rf_series_color(e)) > 50;
    tap_ok(colours, "a curve in each encoder's colour is drawn");
    char text[256];
    int hits = 0;
    bool readable = false;
    for (int y = 0; y < 700 && !readable; y += 4)
        for (int x = 0; x < 1000 && !readable; x += 4)
            if (f.hover(f.data, 1000, 700, &RF_ZOOM_ALL, x, y, text, sizeof text)) {
                hits++;
                readable = strstr(text, "· N=") != NULL && strstr(text, "planned") != NULL;
            }
    tap_ok(readable, "hover reads a planned point ('%s')", readable ? text : "");
    tap_ok(!f.hover(f.data, 1000, 700, &RF_ZOOM_ALL, 1, 1, text, sizeof text), "hover outside the frame reads nothing");
    check_memory_notes(&mf, s);
    cairo_surface_destroy(s);
    check_current_dot(&mf, &cfg);
    check_current_label(&mf);

    /* Export in every format, then a failed export. */
    const char *const names[] = {"memory.png", "memory.svg", "memory.pdf"};
    const char *const magic[] = {"\x89PNG", "<?xml", "%PDF"};
    for (int i = 0; i < 3; i++) {
        g_autofree char *path = g_build_filename(tmp, names[i], NULL);
        char err[512] = "";
        bool ok = rf_figure_export(&f, NULL, path, 900, 600, err, sizeof err);
        g_autofree char *data = NULL;
        gsize len = 0;
        ok = ok && g_file_get_contents(path, &data, &len, NULL);
        tap_ok(ok && len > 1000 && memcmp(data, magic[i], strlen(magic[i])) == 0, "%s: %zu bytes starting with its magic %s",
               names[i], (size_t)len, err);
    }
    /* A target that cannot be replaced (a non-empty directory): the export
     * fails, says where, and leaves it and no temporary file behind. */
    g_autofree char *blocked = g_build_filename(tmp, "blocked.png", NULL);
    g_mkdir(blocked, 0755);
    g_autofree char *inside = g_build_filename(blocked, "keep", NULL);
    g_assert(g_file_set_contents(inside, "old", -1, NULL));
    char err[512] = "";
    bool failed = !rf_figure_export(&f, NULL, blocked, 300, 200, err, sizeof err);
    g_autoptr(GDir) d = g_dir_open(tmp, 0, NULL);
    int leftovers = 0;
    for (const char *name; (name = g_dir_read_name(d)) != NULL;)
        leftovers += g_str_has_prefix(name, "blocked.png.");
    tap_ok(failed && strstr(err, blocked) != NULL && g_file_test(inside, G_FILE_TEST_IS_REGULAR) && leftovers == 0,
           "a failed export names the path, keeps the old target and leaves no temporary file (%s)", err);
    g_autofree char *old_png = g_build_filename(tmp, names[0], NULL);
    g_autofree char *missing = g_build_filename(tmp, "no-such-dir", "x.png", NULL);
    failed = !rf_figure_export(&f, NULL, missing, 300, 200, err, sizeof err);
    tap_ok(failed && strstr(err, missing) != NULL, "an export into a missing folder fails naming it (%s)", err);
    rf_run_data_free(run);
    rf_memory_figure_clear(&mf);
}

int main(void)
{
    g_autofree char *tmp = g_dir_make_tmp("rf-test-memory-figure-XXXXXX", NULL);
    test_memory_figure(tmp);
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        tap_diag("could not remove %s", tmp);
    return tap_done();
}
