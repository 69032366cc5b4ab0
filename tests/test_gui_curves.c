/* The Training view's own figure under Xvfb, without the application (a
 * session holding made-up runs): every run fits the Step time panel on
 * screen and in the exported PNG (issue 12 item 2), and the curve controls
 * of issue 12 item 11 (smoothing, x axis, legend clicks, log buttons) change
 * what is drawn. Moved out of tests/test_gui.c.
 */
#include <glib/gstdio.h>
#include <locale.h>
#include <math.h>

#include "../ui/plot/figure.h"
#include "../ui/figures/training_figure.h"
#include "../ui/plot/plot.h"
#include "../ui/view.h"
#include "figure_pixels.h"
#include "main_loop.h"
#include "tap.h"
#include "view_drawing.h"

/* --- plot ranges: every run the Training view draws fits its panels --- */

/* A run of `steps` train rows taking about `seconds` a step (±5 %). */
static rf_run_data *timed_run(const char *name, int steps, double seconds)
{
    rf_run_data *r = rf_run_data_new(name, NULL);
    for (int i = 1; i <= steps; i++) {
        double step_seconds = seconds * (1 + 0.05 * sin(i * 0.7));
        rf_metrics m = {.step = i, .split = RF_SPLIT_TRAIN, .loss = 2.0 - i * 1e-3, .accuracy = 0.3, .lr = 1e-3,
                        .seconds = seconds * i, .step_seconds = step_seconds};
        rf_run_data_append(r, &m);
    }
    return r;
}

/* Pixels of series colour i (within 0.1 a channel) in the step time panel
 * (the middle third of the bottom row, which starts at 56 % of the height). */
static int step_time_pixels(cairo_surface_t *s, int i)
{
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    int stride = cairo_image_surface_get_stride(s), n = 0;
    const guint8 *d = cairo_image_surface_get_data(s);
    rf_rgb c = rf_series_color(i);
    for (int y = (int)floor(h * 0.56); y < h; y++)
        for (int x = w / 3; x < 2 * w / 3; x++) {
            guint32 px = *(const guint32 *)(const void *)(d + y * stride + x * 4);
            n += fabs(((px >> 16) & 0xff) / 255.0 - c.r) < 0.1 && fabs(((px >> 8) & 0xff) / 255.0 - c.g) < 0.1 &&
                 fabs((px & 0xff) / 255.0 - c.b) < 0.1;
        }
    return n;
}

/* Runs of 0.21, 0.63 and 3.1 s a step overlaid (as full attention, a slow
 * mechanism and a much slower one were): each is drawn in the Step time
 * panel, on screen and in the exported PNG (`rangefinder plot` draws the
 * same figure). Seen before: the axis ended at 4x the median step time of
 * all runs together, so the slow runs were never drawn. */
static void check_step_time_range(const char *dir)
{
    static const struct {
        const char *name;
        int steps;
        double seconds;
    } made[] = {{"fast", 600, 0.21}, {"slower", 60, 0.63}, {"slowest", 20, 3.1}};
    RfSession *s = rf_session_new();
    GPtrArray *runs = rf_session_get_runs(s);
    for (guint i = 0; i < G_N_ELEMENTS(made); i++)
        g_ptr_array_add(runs, timed_run(made[i].name, made[i].steps, made[i].seconds));
    GtkWidget *window = gtk_window_new(), *view = rf_training_view_new(s);
    gtk_window_set_default_size(GTK_WINDOW(window), 1200, 800);
    gtk_window_set_child(GTK_WINDOW(window), view);
    gtk_window_present(GTK_WINDOW(window));
    spin_for(0.5);
    RfPlotView *plot = rf_view_get_plot(view);
    cairo_surface_t *shown = draw_plot(plot);
    g_autofree char *png = g_build_filename(dir, "step-times.png", NULL);
    char err[512] = "";
    bool exported = rf_figure_export(rf_plot_view_get_figure(plot), &RF_ZOOM_ALL, png, 1200, 800, err, sizeof err);
    cairo_surface_t *file = cairo_image_surface_create_from_png(png);
    for (guint i = 0; i < G_N_ELEMENTS(made); i++) {
        int on_screen = step_time_pixels(shown, (int)i);
        int in_file = exported && cairo_surface_status(file) == CAIRO_STATUS_SUCCESS ? step_time_pixels(file, (int)i)
                                                                                       : 0;
        tap_ok(on_screen > 30 && in_file > 30,
               "the Step time panel draws the %g s/step run among 0.21, 0.63 and 3.1 s/step runs "
               "(%d pixels on screen, %d in the exported PNG%s%s)", made[i].seconds, on_screen, in_file,
               err[0] != '\0' ? ": " : "", err);
    }
    cairo_surface_destroy(file);
    cairo_surface_destroy(shown);
    gtk_window_destroy(GTK_WINDOW(window));
    g_object_unref(s);
}

/* --- the Training view's curve controls (issue 12 item 11) --- */

/* `steps` train rows, `seconds` a step, the loss alternating level ± 1
 * (noise for the smoothing to flatten). */
static rf_run_data *noisy_run(const char *name, int steps, double seconds, double level)
{
    rf_run_data *r = rf_run_data_new(name, NULL);
    for (int i = 1; i <= steps; i++) {
        rf_metrics m = {.step = i, .split = RF_SPLIT_TRAIN, .loss = level + (i % 2 ? 1 : -1), .accuracy = 0.3,
                        .lr = 1e-3, .seconds = seconds * i, .step_seconds = seconds};
        rf_run_data_append(r, &m);
    }
    return r;
}

typedef struct extent {
    int n, x0, x1, y0, y1;
} extent;

/* Pixels of colour c (within `tolerance` a channel) in [x0, x1) x [y0, y1). */
static extent colour_extent(cairo_surface_t *s, rf_rgb c, double tolerance, int x0, int x1, int y0, int y1)
{
    extent e = {0, x1, x0, y1, y0};
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            int r, g, b;
            pixel(s, x, y, &r, &g, &b);
            if (fabs(r / 255.0 - c.r) < tolerance && fabs(g / 255.0 - c.g) < tolerance &&
                fabs(b / 255.0 - c.b) < tolerance) {
                e.n++;
                e.x0 = MIN(e.x0, x);
                e.x1 = MAX(e.x1, x + 1);
                e.y0 = MIN(e.y0, y);
                e.y1 = MAX(e.y1, y + 1);
            }
        }
    return e;
}

/* A legend swatch of colour c: a horizontal run of 14 to 22 pixels in the
 * loss panel's top right corner (curves run on). */
static bool legend_swatch(cairo_surface_t *s, rf_rgb c, double *sx, double *sy)
{
    int w = cairo_image_surface_get_width(s);
    for (int y = 0; y < 110; y++)
        for (int x = w / 2 - 220; x < w / 2; x++) {
            int run = 0;
            while (x + run < w / 2 && colour_extent(s, c, 0.03, x + run, x + run + 1, y, y + 1).n == 1)
                run++;
            if (run >= 14 && run <= 22) {
                *sx = x + run / 2.0;
                *sy = y + 0.5;
                return true;
            }
            x += run;
        }
    return false;
}

/* The Training view's controls drive its figure, seen in the drawing: the
 * smoothing slider draws the smoothed loss in the run's colour over the
 * faint raw rows (nothing of that colour at 0), the x axis list puts a run
 * 10x faster on a tenth of the width, a click on a legend entry takes that
 * run out of the panels and a click on "log" fills that button. */
static void check_curves(void)
{
    RfSession *s = rf_session_new();
    GPtrArray *runs = rf_session_get_runs(s);
    g_ptr_array_add(runs, noisy_run("fast", 400, 0.1, 2));
    g_ptr_array_add(runs, noisy_run("slow", 400, 1.0, 6));
    GtkWidget *window = gtk_window_new(), *view = rf_training_view_new(s);
    gtk_window_set_default_size(GTK_WINDOW(window), 1200, 800);
    gtk_window_set_child(GTK_WINDOW(window), view);
    gtk_window_present(GTK_WINDOW(window));
    spin_for(0.5);
    RfPlotView *plot = rf_view_get_plot(view);
    g_autoptr(GPtrArray) scales = g_ptr_array_new(), lists = g_ptr_array_new();
    collect(view, GTK_TYPE_SCALE, scales);
    collect(view, GTK_TYPE_DROP_DOWN, lists);
    if (!tap_ok(scales->len == 1 && lists->len == 1, "the Training view has a smoothing slider and an x axis list"))
        goto done;
    GtkRange *smoothing = scales->pdata[0];
    GtkDropDown *x_axis = lists->pdata[0];
    int w = gtk_widget_get_width(GTK_WIDGET(plot)), h = gtk_widget_get_height(GTK_WIDGET(plot));
    rf_rgb c0 = rf_series_color(0), c1 = rf_series_color(1);

    gtk_range_set_value(smoothing, 0.95);
    cairo_surface_t *shown = draw_plot(plot);
    /* The loss panel, clear of the legend (top right) and the axes. */
    extent smooth = colour_extent(shown, c0, 0.06, 70, w / 2 - 230, 40, (int)(h * 0.56) - 24);
    cairo_surface_destroy(shown);
    gtk_range_set_value(smoothing, 0);
    shown = draw_plot(plot);
    extent raw = colour_extent(shown, c0, 0.06, 70, w / 2 - 230, 40, (int)(h * 0.56) - 24);
    cairo_surface_destroy(shown);
    tap_ok(gtk_range_get_value(smoothing) == 0 && smooth.n > 100 && smooth.y1 - smooth.y0 < 40 && raw.n == 0,
           "smoothing 0.95 draws a flat smoothed loss (%d px tall, %d pixels); at 0 none (%d pixels)",
           smooth.y1 - smooth.y0, smooth.n, raw.n);
    gtk_range_set_value(smoothing, RF_TRAINING_SMOOTHING_DEFAULT);

    /* The step time panel: the middle third of the bottom row. Its lines
     * are not pixel-aligned: their colour is matched loosely. */
    int st_x0 = w / 3 + 2, st_x1 = 2 * w / 3 - 10, st_y0 = (int)(h * 0.56) + 30, st_y1 = h - 45;
    gtk_drop_down_set_selected(x_axis, 1);
    shown = draw_plot(plot);
    extent fast = colour_extent(shown, c0, 0.15, st_x0, st_x1, st_y0, st_y1);
    extent slow = colour_extent(shown, c1, 0.15, st_x0, st_x1, st_y0, st_y1);
    cairo_surface_destroy(shown);
    double ratio = (double)(fast.x1 - fast.x0) / MAX(1, slow.x1 - slow.x0);
    tap_ok(fast.n > 0 && ratio > 0.06 && ratio < 0.16,
           "Wall time on the x axis: the run 10x faster spans a tenth of the width (%d and %d px)",
           fast.x1 - fast.x0, slow.x1 - slow.x0);
    gtk_drop_down_set_selected(x_axis, 0);

    /* The accuracy panel (top right), where both runs read 30 %: the
     * second is drawn over the first while shown. */
    int acc_x0 = w / 2 + 70, acc_x1 = w - 20, acc_y0 = 40, acc_y1 = (int)(h * 0.56) - 40;
    shown = draw_plot(plot);
    double sx = 0, sy = 0;
    bool found = legend_swatch(shown, c1, &sx, &sy);
    int before = colour_extent(shown, c1, 0.15, acc_x0, acc_x1, acc_y0, acc_y1).n;
    cairo_surface_destroy(shown);
    bool clicked = found && rf_plot_view_click(plot, sx, sy);
    shown = draw_plot(plot);
    int after = colour_extent(shown, c1, 0.15, acc_x0, acc_x1, acc_y0, acc_y1).n;
    int under = colour_extent(shown, c0, 0.15, acc_x0, acc_x1, acc_y0, acc_y1).n;
    cairo_surface_destroy(shown);
    tap_ok(clicked && before > 30 && after == 0 && under > 30,
           "a click on the second legend entry hides that run (%d pixels of it in Accuracy, then %d; the first "
           "run's line now shows there: %d)", before, after, under);
    rf_plot_view_click(plot, sx, sy);

    /* "log" at the right end of the loss panel's title row. */
    rf_rgb key_grey = {0.40, 0.40, 0.44};
    int bx0 = w / 2 - 16 - 28, bx1 = w / 2 - 18, by0 = 6, by1 = 20;
    shown = draw_plot(plot);
    int grey_before = colour_extent(shown, key_grey, 0.03, bx0, bx1, by0, by1).n;
    cairo_surface_destroy(shown);
    clicked = rf_plot_view_click(plot, w / 2.0 - 31, 12);
    shown = draw_plot(plot);
    int grey_after = colour_extent(shown, key_grey, 0.03, bx0, bx1, by0, by1).n;
    cairo_surface_destroy(shown);
    tap_ok(clicked && grey_after > 5 * MAX(grey_before, 20),
           "a click on the loss panel's \"log\" button switches it on (%d filled pixels, %d before)", grey_after,
           grey_before);
done:
    gtk_window_destroy(GTK_WINDOW(window));
    g_object_unref(s);
}

int main(void)
{
    setlocale(LC_ALL, "");
    setlocale(LC_NUMERIC, "C");
    gtk_disable_setlocale();
    if (!tap_ok(gtk_init_check(), "GTK opens the display"))
        return tap_done();
    g_autofree char *dir = g_dir_make_tmp("rf-gui-curves-XXXXXX", NULL);
    check_step_time_range(dir);
    check_curves();
    g_autofree char *png = g_build_filename(dir, "step-times.png", NULL);
    g_unlink(png);
    g_rmdir(dir);
    return tap_done();
}
