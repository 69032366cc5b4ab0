/* bench_curves: the Training figure's draw with many runs overlaid and
 * smoothing on (issue 12 item 11's bar: every redraw under 16 ms at
 * 1920x1080). Loads the run folders given, smooths at 0.6, and times the
 * figure's draw into a 1920x1080 image surface: the first draw (smoothing
 * caches built) and the median and worst of REPS redraws, in step and in
 * wall-time mode. The widget and frame overhead on top is bench_gui's.
 *
 *   bench_curves RUN_DIR...     (e.g. bench/runs/listops-*)
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "../ui/figures/training_figure.h"

#define WIDTH 1920
#define HEIGHT 1080
#define REPS 30

static double draw_ms(const rf_figure *f, cairo_surface_t *s)
{
    cairo_t *cr = cairo_create(s);
    gint64 t0 = g_get_monotonic_time();
    f->draw(f->data, cr, WIDTH, HEIGHT, &RF_ZOOM_ALL);
    cairo_surface_flush(s);
    double ms = (double)(g_get_monotonic_time() - t0) / 1000.0;
    cairo_destroy(cr);
    return ms;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_curves RUN_DIR...\n");
        return 2;
    }
    GPtrArray *runs = g_ptr_array_new_with_free_func((GDestroyNotify)rf_run_data_free);
    guint rows = 0;
    for (int i = 1; i < argc; i++) {
        GError *error = NULL;
        rf_run_data *r = rf_run_data_load_dir(argv[i], &error);
        if (r == NULL) {
            fprintf(stderr, "bench_curves: %s\n", error->message);
            g_error_free(error);
            return 1;
        }
        rows += r->rows->len;
        g_ptr_array_add(runs, r);
    }
    rf_training_figure *tf = rf_training_figure_new();
    rf_training_figure_set_runs(tf, (rf_run_data *const *)runs->pdata, runs->len);
    rf_training_figure_set_smoothing(tf, 0.6);
    rf_figure f = rf_training_figure_figure(tf);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
    printf("%u runs, %u metrics rows, smoothing 0.6, %dx%d\n", runs->len, rows, WIDTH, HEIGHT);
    for (int mode = 0; mode < 2; mode++) {
        rf_training_figure_set_x(tf, mode == 0 ? RF_TRAINING_X_STEP : RF_TRAINING_X_TIME);
        double first = draw_ms(&f, s), t[REPS];
        for (int i = 0; i < REPS; i++)
            t[i] = draw_ms(&f, s);
        qsort(t, REPS, sizeof t[0], by_value);
        printf("x = %-5s first draw %6.2f ms, redraw median %6.2f ms, worst %6.2f ms\n", mode == 0 ? "step" : "time",
               first, t[REPS / 2], t[REPS - 1]);
    }
    cairo_surface_destroy(s);
    rf_training_figure_free(tf);
    g_ptr_array_unref(runs);
    return 0;
}
