/* The plotting layer without a display: plot primitives, run records
 * (metrics.csv and config.ini), the Training and Memory figures rendered
 * into image surfaces, and exports to PNG, SVG and PDF. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../config/baselines_file.h"
#include "../ui/figures/memory_figure.h"
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

static cairo_surface_t *render(const rf_figure *f, int w, int h)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    cairo_t *cr = cairo_create(s);
    f->draw(f->data, cr, w, h, &RF_ZOOM_ALL);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    return s;
}

/* Pixels within a small distance of colour c. */
static int count_color(cairo_surface_t *s, rf_rgb c)
{
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    int stride = cairo_image_surface_get_stride(s), n = 0;
    const unsigned char *data = cairo_image_surface_get_data(s);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t p = *(const uint32_t *)(const void *)(data + y * stride + 4 * x);
            double r = ((p >> 16) & 255) / 255.0, g = ((p >> 8) & 255) / 255.0, b = (p & 255) / 255.0;
            if (fabs(r - c.r) < 0.03 && fabs(g - c.g) < 0.03 && fabs(b - c.b) < 0.03)
                n++;
        }
    return n;
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
    cairo_surface_t *s = render(&f, 800, 600);
    int none = baseline_rows(s, 800, 600, rows);
    cairo_surface_destroy(s);
    tap_ok(none == 0, "no baselines: no grey line in the accuracy panel (%d)", none);

    run->baseline_majority = 0.2;
    run->baseline_first_token = 0.5;
    s = render(&f, 800, 600);
    int two = baseline_rows(s, 800, 600, rows);
    cairo_surface_destroy(s);
    tap_ok(two == 2, "two baselines: two grey lines (%d)", two);
    run->baseline_first_token = 0.6;
    s = render(&f, 800, 600);
    int moved = baseline_rows(s, 800, 600, rows2);
    cairo_surface_destroy(s);
    /* the accuracy axis spans about 0 to 0.9 over ~280 px: 0.1 is ~30 px */
    tap_ok(moved == 2 && rows2[1] == rows[1] && rows[0] - rows2[0] > 20 && rows[0] - rows2[0] < 45,
           "the first-token line (y %d) sits above the majority line (y %d) and rises to y %d with its value",
           two == 2 ? rows[0] : -1, two == 2 ? rows[1] : -1, moved == 2 ? rows2[0] : -1);
    rf_training_figure_set_hidden(tf, 0, true);
    s = render(&f, 800, 600);
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
    cairo_surface_t *s = render(&f, 800, 600);
    int colored = 800 * 600 - count_color(s, (rf_rgb){1, 1, 1});
    tap_ok(colored > 500 && !f.hover(f.data, 800, 600, &RF_ZOOM_ALL, 400, 300, text, sizeof text),
           "with no runs the figure shows a message (%d non-white pixels) and hovers nothing", colored);
    cairo_surface_destroy(s);

    rf_run_data *runs[2] = {synthetic_run("ListOps · blrp", 600, 0.01), synthetic_run("ListOps · full", 400, 0.005)};
    rf_training_figure_set_runs(tf, runs, 2);
    s = render(&f, 800, 600);
    int c0 = count_color(s, rf_series_color(0)), c1 = count_color(s, rf_series_color(1));
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
    s = render(&f, 800, 600);
    rf_zoom right = {0.9, 1.0, 0, 1};
    cairo_surface_t *zoomed = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 800, 600);
    cairo_t *cr = cairo_create(zoomed);
    f.draw(f.data, cr, 800, 600, &right);
    cairo_destroy(cr);
    int z0 = count_color(zoomed, rf_series_color(0)), z1 = count_color(zoomed, rf_series_color(1));
    /* The second run's colour remains only in the legend's swatch. */
    tap_ok(z0 > 10 * z1, "zoomed to steps past 810 only the run that reached 900 shows (%d vs %d pixels)", z0, z1);
    cairo_surface_destroy(zoomed);
    cairo_surface_destroy(s);
    rf_run_data_free(runs[0]);
    rf_run_data_free(runs[1]);
}

static bool same_color(cairo_surface_t *s, int x, int y, rf_rgb c)
{
    int r, g, b;
    pixel(s, x, y, &r, &g, &b);
    return fabs(r / 255.0 - c.r) < 0.03 && fabs(g / 255.0 - c.g) < 0.03 && fabs(b / 255.0 - c.b) < 0.03;
}

/* The frame of a plot drawn into `s`: the rows and columns where its
 * border (the muted grey of rf_plot_end) runs across most of the picture. */
static box find_frame(cairo_surface_t *s, rf_rgb border)
{
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    box b = {w, h, 0, 0};
    for (int y = 0; y < h; y++) {
        int n = 0;
        for (int x = 0; x < w; x++)
            n += same_color(s, x, y, border);
        if (n > w / 2) {
            b.y0 = fmin(b.y0, y);
            b.y1 = fmax(b.y1, y);
        }
    }
    for (int x = 0; x < w; x++) {
        int n = 0;
        for (int y = (int)b.y0; y <= (int)b.y1; y++)
            n += same_color(s, x, y, border);
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
            if (!same_color(drawn, x, y, note_grey))
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
                    disc = dx * dx + dy * dy > 16 || same_color(s, x + dx, y + dy, c);
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
    cairo_surface_t *alone = render(&f, 1000, 700);
    int x = -1, y = -1;
    bool drawn = find_disc(alone, colour, &x, &y);
    tap_ok(drawn, "the current config's large dot is drawn (at %d, %d)", x, y);
    rf_run_data *run = rf_run_data_new("measured here", cfg);
    run->peak_bytes = mf->current_bytes;
    rf_memory_figure_set_runs(mf, &run, 1);
    cairo_surface_t *with_run = render(&f, 1000, 700);
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
            n += same_color(s, x, y, (rf_rgb){0.15, 0.15, 0.17});
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
        cairo_surface_t *s = render(&f, 1000, 700);
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
    cairo_surface_t *s = render(&f, 1000, 700);
    bool colours = true;
    for (int e = 0; e < RF_MEMORY_ENCODERS; e++)
        colours = colours && count_color(s, rf_series_color(e)) > 50;
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
    g_autofree char *inside = write_file(blocked, "keep", "old");
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
    test_memory_figure(tmp);
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        tap_diag("could not remove %s", tmp);
    return tap_done();
}
