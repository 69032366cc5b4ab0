/* The plotting layer without a display: plot primitives, run records
 * (metrics.csv and config.ini), the Training figure rendered into image
 * surfaces (the Memory figure: test_memory_figure.c). */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../config/baselines_file.h"
#include "../ui/figures/training_figure.h"
#include "../ui/figures/training_figure_private.h"
#include "../ui/plot/plot.h"
#include "figure_pixels.h"
#include "tap.h"

/* ---- heatmap pooling ---- */

/* The colour the heatmap shows for value v (NaN: the missing colour), and
 * whether a pixel is within one colour-table step of it. */
static bool pixel_shows(const unsigned char *px, double v, double vmin, double vmax)
{
    rf_rgb c = rf_colormap(isnan(v) ? NAN : (v - vmin) / (vmax - vmin));
    uint32_t p = *(const uint32_t *)px;
    double got[3] = {(p >> 16 & 255) / 255.0, (p >> 8 & 255) / 255.0, (p & 255) / 255.0};
    double want[3] = {c.r, c.g, c.b};
    for (int k = 0; k < 3; k++)
        if (fabs(got[k] - want[k]) > 3.0 / 255)
            return false;
    return true;
}

/* A 37 x 53 map with NaN holes drawn into 10 x 7 pixels: every pixel shows
 * the value of largest magnitude among the cells whose centres fall in it,
 * found here cell by cell. */
static void test_heatmap_pooling(void)
{
    enum { ROWS = 37, COLS = 53, W = 10, H = 7 };
    static float data[ROWS * COLS];
    for (int i = 0; i < ROWS * COLS; i++)
        data[i] = (float)sin(i * 1.7) * (float)(1 + i % 7);
    for (int r = 0; r < 6; r++)                       /* an all-NaN corner pixel, scattered holes */
        for (int c = 0; c < 11; c++)
            data[r * COLS + c] = NAN;
    for (int i = 11; i < ROWS * COLS; i += 29)
        data[i] = NAN;
    double vmin = -7, vmax = 7;
    rf_heatmap h = {0};
    rf_heatmap_set(&h, data, ROWS, COLS, vmin, vmax);
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
    cairo_t *cr = cairo_create(surface);
    rf_heatmap_draw(&h, cr, (rf_rect){0, 0, W, H}, 0, ROWS, 0, COLS);
    cairo_surface_flush(surface);
    const unsigned char *img = cairo_image_surface_get_data(surface);
    int stride = cairo_image_surface_get_stride(surface);
    int wrong = 0, nan_pixels = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double best = NAN;
            for (int r = 0; r < ROWS; r++)
                for (int c = 0; c < COLS; c++) {
                    if ((int)floor((r + 0.5) * H / ROWS) != y || (int)floor((c + 0.5) * W / COLS) != x)
                        continue;
                    double v = data[r * COLS + c];
                    if (!isnan(v) && (isnan(best) || fabs(v) > fabs(best)))
                        best = v;
                }
            nan_pixels += isnan(best);
            wrong += !pixel_shows(img + (size_t)y * stride + (size_t)x * 4, best, vmin, vmax);
        }
    tap_ok(wrong == 0 && nan_pixels > 0, "heatmap pooling: %d of %d pixels differ from the largest-magnitude "
           "cell (%d all-NaN pixels)", wrong, W * H, nan_pixels);
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
    rf_heatmap_clear(&h);
}

/* A heatmap prepared ahead (as the Attention view does in a worker thread)
 * draws the same pixels as one pooled at draw time, without pooling again;
 * a view that does not fit the data is left to the draw. */
/* The diverging map (issue 12 item 9): white at 0 of a symmetric range,
 * blue below, red above, darker with |v|; and a heatmap drawn with it
 * paints a cell of 0 white and a negative cell blue. */
static void test_diverging_colormap(void)
{
    rf_rgb lo = rf_colormap_of(RF_COLORMAP_DIVERGING, 0), mid = rf_colormap_of(RF_COLORMAP_DIVERGING, 0.5),
           hi = rf_colormap_of(RF_COLORMAP_DIVERGING, 1), near = rf_colormap_of(RF_COLORMAP_DIVERGING, 0.6);
    tap_ok(mid.r > 0.95 && mid.g > 0.95 && mid.b > 0.95 && lo.b > lo.r + 0.3 && hi.r > hi.b + 0.2 &&
               near.r > near.b && near.g > hi.g,
           "the diverging map is white at the middle (%.2f %.2f %.2f), blue at the bottom, red at the top, lighter "
           "near the middle", mid.r, mid.g, mid.b);
    static const float cells[2] = {0.0f, -3.0f};
    rf_heatmap h = {0};
    rf_heatmap_set(&h, cells, 1, 2, -3, 3);
    h.colormap = RF_COLORMAP_DIVERGING;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 20, 10);
    cairo_t *cr = cairo_create(s);
    rf_heatmap_draw(&h, cr, (rf_rect){0, 0, 20, 10}, 0, 1, 0, 2);
    cairo_surface_flush(s);
    int r0, g0, b0, r1, g1, b1;
    pixel(s, 5, 5, &r0, &g0, &b0);
    pixel(s, 15, 5, &r1, &g1, &b1);
    tap_ok(r0 > 240 && g0 > 240 && b0 > 240 && b1 > r1 + 80, "a heatmap on it paints 0 white (%d %d %d) and -3 "
           "blue (%d %d %d)", r0, g0, b0, r1, g1, b1);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    rf_heatmap_clear(&h);
}

/* Up to 12 runs get 12 colours, each at least 0.15 from every other in RGB
 * (a distance the eye separates in a 2-pixel line) and none paler than
 * the grid; the 13th takes the first again. */
static void test_series_colors(void)
{
    double closest = INFINITY, palest = 0;
    for (int i = 0; i < RF_SERIES_COLORS; i++) {
        rf_rgb a = rf_series_color(i);
        palest = fmax(palest, fmin(a.r, fmin(a.g, a.b)));
        for (int j = 0; j < i; j++) {
            rf_rgb b = rf_series_color(j);
            closest = fmin(closest, sqrt((a.r - b.r) * (a.r - b.r) + (a.g - b.g) * (a.g - b.g) + (a.b - b.b) * (a.b - b.b)));
        }
    }
    rf_rgb first = rf_series_color(0), again = rf_series_color(RF_SERIES_COLORS);
    tap_ok(closest >= 0.15 && palest < 0.7 && first.r == again.r && first.g == again.g && first.b == again.b,
           "%d series colours, at least %.2f apart (need 0.15), none paler than %.2f, then they cycle",
           RF_SERIES_COLORS, closest, palest);
}

static void test_heatmap_prepare(void)
{
    enum { ROWS = 300, COLS = 200, W = 64, H = 48 };
    static float data[ROWS * COLS];
    for (int i = 0; i < ROWS * COLS; i++)
        data[i] = (float)fabs(sin(i * 0.37)) * (float)(i % 11);
    cairo_surface_t *plain = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
    cairo_surface_t *ahead = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
    rf_heatmap drawn = {0}, ready = {0};
    const double view[4] = {10, 250, 5, 190};
    rf_heatmap_set(&drawn, data, ROWS, COLS, 0, 10);
    cairo_t *cr = cairo_create(plain);
    rf_heatmap_draw(&drawn, cr, (rf_rect){0, 0, W, H}, view[0], view[1], view[2], view[3]);
    cairo_destroy(cr);
    int iw, ih;
    double got[4];
    bool cached = rf_heatmap_cached_view(&drawn, &iw, &ih, got);
    tap_ok(cached && iw == W && ih == H && memcmp(got, view, sizeof got) == 0,
           "the cached view is the drawn size and view (%dx%d)", iw, ih);

    rf_heatmap_set(&ready, data, ROWS, COLS, 0, 10);
    rf_heatmap_prepare(&ready, iw, ih, got);
    cairo_surface_t *image = ready.image;
    cr = cairo_create(ahead);
    rf_heatmap_draw(&ready, cr, (rf_rect){0, 0, W, H}, view[0], view[1], view[2], view[3]);
    cairo_destroy(cr);
    tap_ok(image != NULL && ready.image == image, "a draw at the prepared size and view reuses the image");
    cairo_surface_flush(plain);
    cairo_surface_flush(ahead);
    tap_ok(memcmp(cairo_image_surface_get_data(plain), cairo_image_surface_get_data(ahead),
                  (size_t)cairo_image_surface_get_stride(plain) * H) == 0,
           "the prepared image draws the same pixels as pooling at draw time");

    /* A view from a larger map: nothing is prepared (nor read past the data). */
    rf_heatmap small = {0};
    rf_heatmap_set(&small, data, 20, 30, 0, 10);
    rf_heatmap_prepare(&small, iw, ih, got);
    tap_ok(small.image == NULL, "a view beyond the data prepares nothing");
    rf_heatmap_clear(&drawn);
    rf_heatmap_clear(&ready);
    cairo_surface_destroy(plain);
    cairo_surface_destroy(ahead);
}

/* ---- primitives ---- */

static bool is_nice(double step)
{
    double mag = pow(10, floor(log10(step)));
    double m = step / mag;
    return fabs(m - 1) < 1e-9 || fabs(m - 2) < 1e-9 || fabs(m - 5) < 1e-9 || fabs(m - 10) < 1e-9;
}

static void test_primitives(void)
{
    rf_axis a = {.min = 0.13, .max = 9.7, .scale = RF_AXIS_LINEAR};
    double t[16];
    int n = rf_axis_ticks(&a, t, 16);
    bool inside = n >= 3, nice = true;
    for (int i = 0; i < n; i++)
        inside = inside && t[i] >= a.min - 1e-9 && t[i] <= a.max + 1e-9;
    for (int i = 1; i < n; i++)
        nice = nice && is_nice(t[i] - t[i - 1]) && fabs((t[i] - t[i - 1]) - (t[1] - t[0])) < 1e-9;
    tap_ok(inside && nice, "linear ticks over 0.13..9.7: %d inside the range, evenly spaced by 1-2-5 steps", n);

    /* counts tick on whole numbers: a depth-3 tree's levels, two segments */
    rf_axis level = {.min = 0, .max = 3.5, .whole = true}, segments = {.min = 0.5, .max = 2.5, .whole = true};
    n = rf_axis_ticks(&level, t, 16);
    int m = rf_axis_ticks(&segments, t + n, 16 - n);
    g_autoptr(GString) whole = g_string_new(NULL);
    for (int i = 0; i < n + m; i++)
        g_string_append_printf(whole, "%s%g", i == 0 ? "" : i == n ? " | " : ", ", t[i]);
    tap_ok(strcmp(whole->str, "0, 1, 2, 3 | 1, 2") == 0, "whole axes tick on whole numbers only (%s)", whole->str);

    rf_axis l = {.min = 3, .max = 2e6, .scale = RF_AXIS_LOG};
    n = rf_axis_ticks(&l, t, 16);
    bool decades = n >= 5;
    for (int i = 0; i < n; i++)
        decades = decades && fabs(log10(t[i]) - round(log10(t[i]))) < 1e-9;
    tap_ok(decades, "log ticks over 3..2e6 are %d whole decades", n);

    char buf[64];
    rf_format_bytes(512, buf, sizeof buf);
    bool ok = strcmp(buf, "512 B") == 0;
    rf_format_bytes(1536, buf, sizeof buf);
    ok = ok && strcmp(buf, "1.5 KiB") == 0;
    rf_format_bytes(3.0 * 1024 * 1024 * 1024, buf, sizeof buf);
    ok = ok && strcmp(buf, "3 GiB") == 0;
    tap_ok(ok, "bytes format as 512 B, 1.5 KiB, 3 GiB (last: %s)", buf);

    /* A memory axis up to 1.15 GiB ticks in GiB (0.2, 0.4 ...), not at 205, 410, 614 MiB. */
    rf_axis mem = {.min = 0, .max = 1.15 * 1024 * 1024 * 1024, .format = RF_FORMAT_BYTES};
    n = rf_axis_ticks(&mem, t, 16);
    g_autoptr(GString) labels = g_string_new(NULL);
    for (int i = 0; i < n; i++) {
        rf_axis_format_value(&mem, t[i], buf, sizeof buf);
        g_string_append_printf(labels, "%s%s", i > 0 ? ", " : "", buf);
    }
    tap_ok(strcmp(labels->str, "0.0 GiB, 0.2 GiB, 0.4 GiB, 0.6 GiB, 0.8 GiB, 1.0 GiB") == 0,
           "a byte axis labels its ticks in one unit with round values (%s)", labels->str);
    rf_axis kib = {.min = 0, .max = 730 * 1024, .format = RF_FORMAT_BYTES};
    n = rf_axis_ticks(&kib, t, 16);
    rf_axis_format_value(&kib, t[n - 1], buf, sizeof buf);
    tap_ok(n == 8 && strcmp(buf, "700 KiB") == 0, "0..730 KiB ticks every 100 KiB up to %s", buf);
}

/* Fewer ticks never cut the range short: for every count from 8 down to 2,
 * the ticks over 0..0.0014 reach within one step of both ends. */
static void test_fewer_ticks(void)
{
    rf_axis a = {.min = 0, .max = 0.0014, .scale = RF_AXIS_LINEAR};
    double t[16];
    bool covered = true;
    g_autoptr(GString) seen = g_string_new(NULL);
    for (int max = 8; max >= 2; max--) {
        int n = rf_axis_ticks(&a, t, max);
        double step = n > 1 ? t[1] - t[0] : INFINITY;
        bool ok = n >= 2 && n <= max && t[0] - a.min < step + 1e-12 && a.max - t[n - 1] < step - 1e-12;
        covered = covered && ok;
        g_string_append_printf(seen, "%s%d: %g..%g", max < 8 ? ", " : "", max, t[0], t[n - 1]);
    }
    tap_ok(covered, "at most 8 down to 2 ticks, each set spans 0..0.0014 to within a step (%s)", seen->str);
}

/* A short panel labels no more y ticks than fit one above another: in a
 * 300 x 120 panel (the Compare view's lower row on a laptop) the labels
 * of 0..0.0014 keep a text height apart. */
static void test_short_panel(void)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 300, 120);
    cairo_t *cr = cairo_create(s);
    g_autoptr(GString) svg = g_string_new(NULL);
    rf_plot_collect_svg_text(cr, svg);
    rf_axis x = {.min = 0, .max = 6, .scale = RF_AXIS_LINEAR, .label = "step"};
    rf_axis y = {.min = 0, .max = 0.0014, .scale = RF_AXIS_LINEAR};
    rf_plot p;
    rf_plot_begin(&p, cr, (rf_rect){0, 0, 300, 120}, &x, &y, "Step time (s/step)");
    rf_plot_end(&p);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    /* the y labels: text elements starting left of the frame with their
     * baselines beside it (the x axis's "0" starts left of it too, below) */
    double ys[16];
    int n = 0;
    for (const char *at = svg->str; (at = strstr(at, "<text")) != NULL && n < 16; at++) {
        const char *xs = strstr(at, " x=\""), *yv = strstr(at, " y=\"");
        double left = xs != NULL ? g_ascii_strtod(xs + 4, NULL) : INFINITY;
        double baseline = yv != NULL ? g_ascii_strtod(yv + 4, NULL) : INFINITY;
        if (left < p.frame.x && baseline < p.frame.y + p.frame.h + RF_PLOT_TEXT / 2 + 2)
            ys[n++] = baseline;
    }
    double closest = INFINITY;
    for (int i = 1; i < n; i++)
        closest = fmin(closest, fabs(ys[i] - ys[i - 1]));
    tap_ok(n >= 2 && closest >= RF_PLOT_TEXT,
           "a %.0f px tall frame labels %d y ticks, at least %.0f px apart (closest %.1f px)", p.frame.h, n,
           RF_PLOT_TEXT, closest);
}

/* ---- run records ---- */

static char *write_file(const char *dir, const char *name, const char *text)
{
    char *path = g_build_filename(dir, name, NULL);
    g_assert(g_file_set_contents(path, text, -1, NULL));
    return path;
}

static void test_run_data(const char *tmp)
{
    g_autofree char *dir = g_build_filename(tmp, "run-a", NULL);
    g_mkdir(dir, 0755);
    g_autofree char *csv = write_file(dir, "metrics.csv",
                                      "step,split,loss,accuracy,lr,seconds\n"
                                      "10,train,2.1,0.2,0.001,1.0\n"
                                      "20,train,1.9,0.3,0.001,2.0\n"
                                      "20,val,2.0,0.25,0.001,2.5\n"
                                      "30,train,1.7,0.4,0.0005,3.5\n"
                                      "30,val,1.8,0.35,0.0005,4.0\n"
                                      "30,test,1.8,0.33,0.0005,4.2\n");
    g_autofree char *ini = write_file(dir, "config.ini", "[model]\nencoder=talk\ndim=32\n[data]\nbatch=8\n");
    g_autoptr(GError) error = NULL;
    g_autoptr(rf_run_data) r = rf_run_data_load_dir(dir, &error);
    tap_ok(r != NULL, "a run directory loads (%s)", error != NULL ? error->message : "no error");
    if (r == NULL)
        return;
    tap_ok(rf_run_data_count(r, RF_SPLIT_TRAIN) == 3 && rf_run_data_count(r, RF_SPLIT_VAL) == 2 &&
               rf_run_data_count(r, RF_SPLIT_TEST) == 1,
           "rows split into 3 train, 2 val, 1 test");
    tap_ok(fabs(rf_run_data_best_val(r) - 0.35) < 1e-12 && rf_run_data_last(r, RF_SPLIT_TEST)->accuracy == 0.33,
           "best val accuracy %.2f and the test row are read", rf_run_data_best_val(r));
    tap_ok(isnan(r->baseline_majority) && isnan(r->baseline_first_token),
           "a run folder without baselines.ini has no baselines");
    tap_ok(strcmp(r->cfg.model.encoder, "talk") == 0 && r->cfg.model.dim == 32 && r->cfg.data.batch == 8 &&
               strcmp(r->name, "run-a") == 0,
           "config.ini applies (encoder %s, dim %d) and the name is the directory's", r->cfg.model.encoder,
           r->cfg.model.dim);
    /* Step 30's train row follows the val row at 20 (2.5 s): 1 s for 10 steps. */
    const rf_metrics *last = rf_run_data_last(r, RF_SPLIT_TRAIN);
    tap_ok(fabs(last->step_seconds - 0.1) < 1e-9 && fabs(r->median_step_seconds - 0.1) < 1e-9,
           "step time leaves evaluation out: %.3f s/step, median %.3f", last->step_seconds, r->median_step_seconds);

    g_autofree char *copy_dir = g_build_filename(tmp, "run-copy", NULL);
    g_mkdir(copy_dir, 0755);
    g_autofree char *copy = g_build_filename(copy_dir, "metrics.csv", NULL);
    gboolean written = rf_run_data_write_metrics_csv(r, copy, &error);
    g_autoptr(rf_run_data) back = written ? rf_run_data_load_dir(copy_dir, &error) : NULL;
    bool same = back != NULL && back->rows->len == r->rows->len;
    for (guint i = 0; same && i < r->rows->len; i++) {
        const rf_metrics *x = &g_array_index(r->rows, rf_metrics, i), *y = &g_array_index(back->rows, rf_metrics, i);
        same = x->step == y->step && x->split == y->split && fabs(x->loss - y->loss) < 1e-9 &&
               fabs(x->accuracy - y->accuracy) < 1e-9 &&
               (x->split != RF_SPLIT_TRAIN || fabs(x->step_seconds - y->step_seconds) < 1e-9);
    }
    tap_ok(same, "exported metrics (with step_seconds) load back row for row");

    rf_run_data *pair[2] = {r, rf_run_data_new("other", NULL)};
    pair[1]->peak_bytes = 12345;
    g_autofree char *table = g_build_filename(tmp, "table.csv", NULL);
    g_autofree char *text = NULL;
    gboolean table_ok = rf_run_data_write_table_csv(pair, 2, table, &error) && g_file_get_contents(table, &text, NULL, NULL);
    rf_run_data_free(pair[1]);
    g_auto(GStrv) lines = table_ok ? g_strsplit(text, "\n", -1) : NULL;
    tap_ok(table_ok && g_str_has_prefix(lines[0], "run,steps,final_train_accuracy,final_val_accuracy,best_val_accuracy,"
                                                  "test_accuracy,step_seconds,planned_bytes,peak_bytes,params") &&
               strstr(lines[0], "model.encoder") != NULL && strstr(lines[0], "model.dim") != NULL &&
               g_str_has_prefix(lines[1], "run-a,30,0.4,0.35,0.35,0.33,0.1,") && strstr(lines[2], ",12345,") != NULL,
           "the results table has the summary columns, the differing config keys and the values");

    g_autofree char *bad_dir = g_build_filename(tmp, "run-bad", NULL);
    g_mkdir(bad_dir, 0755);
    g_autofree char *bad = write_file(bad_dir, "metrics.csv",
                                      "step,split,loss,accuracy,lr,seconds\n1,train,2,0.1,0.001,0.1\n2,trian,2,0.1,0.001,0.2\n");
    g_clear_error(&error);
    g_autoptr(rf_run_data) none = rf_run_data_load_dir(bad_dir, &error);
    g_autofree char *where = g_strdup_printf("%s:3:", bad);
    tap_ok(none == NULL && error != NULL && strstr(error->message, where) != NULL &&
               strstr(error->message, "trian") != NULL,
           "a malformed line is an error naming file:line (%s)", error != NULL ? error->message : "none");
    g_autofree char *short_row = write_file(bad_dir, "metrics.csv", "step,split,loss,accuracy,lr,seconds\n1,train,2\n");
    g_clear_error(&error);
    g_autoptr(rf_run_data) none2 = rf_run_data_load_dir(bad_dir, &error);
    tap_ok(none2 == NULL && error != NULL && strstr(error->message, ":2:") != NULL,
           "a short row is an error at its line (%s)", error != NULL ? error->message : "none");
    /* baselines.ini, as `rangefinder train` writes it, and refused when malformed */
    g_autofree char *base_dir = g_build_filename(tmp, "run-baselines", NULL);
    g_mkdir(base_dir, 0755);
    g_autofree char *base_csv = write_file(base_dir, "metrics.csv", "step,split,loss,accuracy,lr,seconds\n"
                                                                     "1,train,2,0.1,0.001,0.1\n");
    g_clear_error(&error);
    gboolean wrote = rf_baselines_file_write(base_dir, 0.1625, 0.366, &error);
    g_autoptr(rf_run_data) with_base = wrote ? rf_run_data_load_dir(base_dir, &error) : NULL;
    tap_ok(with_base != NULL && with_base->baseline_majority == 0.1625 && with_base->baseline_first_token == 0.366,
           "baselines.ini written and loaded back with the run (%s)", error != NULL ? error->message : "no error");
    g_autofree char *bad_base = write_file(base_dir, "baselines.ini", "[baselines]\nmajority=0.2\nfirst_token=1.5\n");
    g_clear_error(&error);
    g_autoptr(rf_run_data) none4 = rf_run_data_load_dir(base_dir, &error);
    tap_ok(none4 == NULL && error != NULL && strstr(error->message, bad_base) != NULL &&
               strstr(error->message, "first_token") != NULL,
           "a baseline outside [0, 1] is an error naming the file and the key (%s)",
           error != NULL ? error->message : "none");
    /* a curriculum's stages begin at steps 40 and 100: marked there */
    g_autofree char *stages_dir = g_build_filename(tmp, "run-stages", NULL);
    g_mkdir(stages_dir, 0755);
    g_autofree char *stages_csv = write_file(stages_dir, "metrics.csv", "step,split,loss,accuracy,lr,seconds\n"
                                                                         "1,train,2,0.1,0.001,0.1\n");
    g_autofree char *stages_ini = write_file(stages_dir, "config.ini",
                                             "[train]\nsteps=50\ncurriculum=train.steps=40; data.batch=4 train.steps=60\n");
    g_clear_error(&error);
    g_autoptr(rf_run_data) staged = rf_run_data_load_dir(stages_dir, &error);
    const rf_run_change *mark = staged != NULL && staged->changes->len == 2
                                    ? &g_array_index(staged->changes, rf_run_change, 0) : NULL;
    tap_ok(mark != NULL && mark[0].step == 40 && mark[1].step == 100 && strcmp(mark[1].after, "3") == 0,
           "a curriculum's stage boundaries are marked at steps 40 and 100 (%s)",
           error != NULL ? error->message : "no error");
    g_autofree char *bad_ini = write_file(bad_dir, "config.ini", "[model]\nencoder=transformerz\n");
    g_clear_error(&error);
    g_autoptr(rf_run_data) none3 = rf_run_data_load_dir(bad_dir, &error);
    tap_ok(none3 == NULL && error != NULL && strstr(error->message, bad_ini) != NULL,
           "a bad config.ini names the file (%s)", error != NULL ? error->message : "none");
}

/* ---- figures ---- */

static rf_run_data *synthetic_run(const char *name, int steps, double rate)
{
    rf_run_data *r = rf_run_data_new(name, NULL);
    for (int i = 1; i <= steps; i++) {
        double wobble = 0.05 * sin(i * 1.7);
        rf_metrics m = {.step = i, .split = RF_SPLIT_TRAIN, .loss = 2.3 * exp(-rate * i) + 0.2 + wobble,
                        .accuracy = 0.1 + 0.7 * (1 - exp(-rate * i)) + wobble, .lr = 1e-3, .seconds = 0.05 * i,
                        .step_seconds = 0.05};
        rf_run_data_append(r, &m);
        if (i % 50 == 0) {
            m.split = RF_SPLIT_VAL;
            m.loss -= wobble;
            m.accuracy -= wobble;
            rf_run_data_append(r, &m);
        }
    }
    r->planned_bytes = 3e8;
    r->peak_bytes = 2.5e8;
    return r;
}

/* A pixel of colour c inside rect r, or false. */
static bool find_color(cairo_surface_t *s, rf_rgb c, rf_rect r, int *px, int *py)
{
    int stride = cairo_image_surface_get_stride(s);
    const unsigned char *data = cairo_image_surface_get_data(s);
    for (int y = (int)r.y; y < (int)(r.y + r.h); y++)
        for (int x = (int)r.x; x < (int)(r.x + r.w); x++) {
            uint32_t p = *(const uint32_t *)(const void *)(data + y * stride + 4 * x);
            double cr = ((p >> 16) & 255) / 255.0, cg = ((p >> 8) & 255) / 255.0, cb = (p & 255) / 255.0;
            if (fabs(cr - c.r) < 0.02 && fabs(cg - c.g) < 0.02 && fabs(cb - c.b) < 0.02) {
                *px = x;
                *py = y;
                return true;
            }
        }
    return false;
}

/* Rows of the accuracy panel (top right) holding over 100 pixels of the
 * baselines' grey, as their centres, top first; returns how many (at most 4). */
static int baseline_rows(cairo_surface_t *s, int w, int h, int *rows)
{
    int stride = cairo_image_surface_get_stride(s), n = 0, last = -10;
    const unsigned char *data = cairo_image_surface_get_data(s);
    for (int y = 0; y < h * 56 / 100 && n < 4; y++) {
        int count = 0;
        for (int x = w / 2; x < w; x++) {
            uint32_t p = *(const uint32_t *)(const void *)(data + y * stride + 4 * x);
            count += ((p >> 16) & 255) == 89 && ((p >> 8) & 255) == 89 && (p & 255) == 97;   /* (0.35, 0.35, 0.38) */
        }
        if (count > 100) {
            if (y > last + 1)
                rows[n++] = y;
            last = y;
        }
    }
    return n;
}

/* baselines.ini's values as dashed grey lines across the accuracy panel:
 * none without them, the first-token line above the majority line, moving
 * with its value, gone when the run is hidden. */
static void test_training_baselines(void)
{
    g_autoptr(rf_training_figure) tf = rf_training_figure_new();
    rf_figure f = rf_training_figure_figure(tf);
    rf_run_data *run = synthetic_run("ListOps · ls", 400, 0.01);
    rf_training_figure_set_runs(tf, &run, 1);
    int rows[4], rows2[4];
    cairo_surface_t *s = render_figure(&f, 800, 600);
    int none = baseline_rows(s, 800, 600, rows);
    cairo_surface_destroy(s);
    tap_ok(none == 0, "no baselines: no grey line in the accuracy panel (%d)", none);

    run->baseline_majority = 0.2;
    run->baseline_first_token = 0.5;
    s = render_figure(&f, 800, 600);
    int two = baseline_rows(s, 800, 600, rows);
    cairo_surface_destroy(s);
    tap_ok(two == 2, "two baselines: two grey lines (%d)", two);
    run->baseline_first_token = 0.6;
    s = render_figure(&f, 800, 600);
    int moved = baseline_rows(s, 800, 600, rows2);
    cairo_surface_destroy(s);
    /* the accuracy axis spans about 0 to 0.9 over ~280 px: 0.1 is ~30 px */
    tap_ok(moved == 2 && rows2[1] == rows[1] && rows[0] - rows2[0] > 20 && rows[0] - rows2[0] < 45,
           "the first-token line (y %d) sits above the majority line (y %d) and rises to y %d with its value",
           two == 2 ? rows[0] : -1, two == 2 ? rows[1] : -1, moved == 2 ? rows2[0] : -1);
    rf_training_figure_set_hidden(tf, 0, true);
    s = render_figure(&f, 800, 600);
    int hidden = baseline_rows(s, 800, 600, rows);
    cairo_surface_destroy(s);
    tap_ok(hidden == 0, "a hidden run's baselines are not drawn (%d)", hidden);
    rf_run_data_free(run);
}

/* The baselines' labels name their data set, whatever else is shown: a
 * baseline belongs to one run's data (the Compare view's runs on ListOps
 * and on random data each had a "majority class" line, which read alike,
 * and a ListOps line stayed unnamed under image runs). */
static void test_baseline_labels(void)
{
    rf_run_data *runs[2] = {synthetic_run("ListOps · full", 100, 0.01), synthetic_run("random · full", 100, 0.01)};
    const char *tasks[2] = {"listops", "random"};
    const double majority[2] = {0.1685, 0.094}, first[2] = {0.366, 0.125};
    for (int i = 0; i < 2; i++) {
        g_strlcpy(runs[i]->cfg.data.task, tasks[i], sizeof runs[i]->cfg.data.task);
        runs[i]->baseline_majority = majority[i];
        runs[i]->baseline_first_token = first[i];
    }
    char label[96];
    rf_training_baseline_label(runs[0], 1, label, sizeof label);
    bool listops_named = strcmp(label, "listops · majority class: 16.9%") == 0;
    rf_training_baseline_label(runs[1], 0, label, sizeof label);
    tap_ok(listops_named && strcmp(label, "random · first token alone: 12.5%") == 0,
           "each label names its run's data set: '%s'", label);
    for (int i = 0; i < 2; i++)
        rf_run_data_free(runs[i]);
}

static void test_training_figure(void)
{
    g_autoptr(rf_training_figure) tf = rf_training_figure_new();
    rf_figure f = rf_training_figure_figure(tf);
    char text[256];
    cairo_surface_t *s = render_figure(&f, 800, 600);
    int colored = 800 * 600 - colour_pixels(s, (rf_rgb){1, 1, 1});
    tap_ok(colored > 500 && !f.hover(f.data, 800, 600, &RF_ZOOM_ALL, 400, 300, text, sizeof text),
           "with no runs the figure shows a message (%d non-white pixels) and hovers nothing", colored);
    cairo_surface_destroy(s);

    rf_run_data *runs[2] = {synthetic_run("ListOps · blrp", 600, 0.01), synthetic_run("ListOps · full", 400, 0.005)};
    rf_training_figure_set_runs(tf, runs, 2);
    s = render_figure(&f, 800, 600);
    int c0 = colour_pixels(s, rf_series_color(0)), c1 = colour_pixels(s, rf_series_color(1));
    tap_ok(c0 > 300 && c1 > 300, "two runs draw in two series colours (%d and %d pixels)", c0, c1);

    int px = 0, py = 0;
    /* Below the legend (top right of the loss panel). */
    bool found = find_color(s, rf_series_color(1), (rf_rect){40, 110, 330, 200}, &px, &py);
    bool near = found && f.hover(f.data, 800, 600, &RF_ZOOM_ALL, px, py, text, sizeof text);
    tap_ok(near && strstr(text, "ListOps · full") != NULL && strstr(text, "step ") != NULL,
           "hover on the second run's loss curve at (%d, %d) reads '%s'", px, py, near ? text : "");
    tap_ok(!f.hover(f.data, 800, 600, &RF_ZOOM_ALL, 2, 2, text, sizeof text), "hover far from any point reads nothing");

    /* Rows appended after set_runs appear at the next draw. */
    rf_metrics extra = {.step = 900, .split = RF_SPLIT_VAL, .loss = 0.1, .accuracy = 0.95, .lr = 1e-3};
    rf_run_data_append(runs[0], &extra);
    cairo_surface_destroy(s);
    s = render_figure(&f, 800, 600);
    rf_zoom right = {0.9, 1.0, 0, 1};
    cairo_surface_t *zoomed = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 800, 600);
    cairo_t *cr = cairo_create(zoomed);
    f.draw(f.data, cr, 800, 600, &right);
    cairo_destroy(cr);
    int z0 = colour_pixels(zoomed, rf_series_color(0)), z1 = colour_pixels(zoomed, rf_series_color(1));
    /* The second run's colour remains only in the legend's swatch. */
    tap_ok(z0 > 10 * z1, "zoomed to steps past 810 only the run that reached 900 shows (%d vs %d pixels)", z0, z1);
    cairo_surface_destroy(zoomed);
    cairo_surface_destroy(s);
    rf_run_data_free(runs[0]);
    rf_run_data_free(runs[1]);
}

int main(void)
{
    g_autofree char *tmp = g_dir_make_tmp("rf-test-plot-XXXXXX", NULL);
    test_primitives();
    test_fewer_ticks();
    test_short_panel();
    test_heatmap_pooling();
    test_heatmap_prepare();
    test_diverging_colormap();
    test_series_colors();
    test_run_data(tmp);
    test_training_figure();
    test_training_baselines();
    test_baseline_labels();
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        tap_diag("could not remove %s", tmp);
    return tap_done();
}
