/* bench_curves: the Training figure's draw with many runs overlaid and
 * smoothing on (issue 12 item 11's bar: every redraw under 16 ms at
 * 1920x1080). Loads the run folders given, smooths at 0.6, and times the
 * figure's draw into a 1920x1080 image surface: the first draw (smoothing
 * built, lines stroked straight), the second (each run's layers drawn) and
 * the median and worst of REPS redraws after those, in step and in
 * wall-time mode; then REPS redraws each after the shortest run got one
 * more train row (as a run training beside finished ones: that run is
 * stroked, the others' layers are reused while the axes stay).
 * The widget and frame overhead on top is bench_gui's.
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

static void report(const char *what, double first, double second, double *t)
{
    qsort(t, REPS, sizeof t[0], by_value);
    printf("%-22s first draw %6.2f ms, second %6.2f ms, then redraw median %6.2f ms, worst %6.2f ms\n", what,
           first, second, t[REPS / 2], t[REPS - 1]);
}

/* One more train row for r, a step after its last. */
static void append_row(rf_run_data *r)
{
    const rf_metrics *last = rf_run_data_last(r, RF_SPLIT_TRAIN);
    if (last == NULL)
        return;
    rf_metrics m = *last;
    m.step++;
    rf_run_data_append(r, &m);
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
    double t[REPS];
    for (int mode = 0; mode < 2; mode++) {
        rf_training_figure_set_x(tf, mode == 0 ? RF_TRAINING_X_STEP : RF_TRAINING_X_TIME);
        double first = draw_ms(&f, s), second = draw_ms(&f, s);
        for (int i = 0; i < REPS; i++)
            t[i] = draw_ms(&f, s);
        report(mode == 0 ? "x = step" : "x = time", first, second, t);
    }
    rf_training_figure_set_x(tf, RF_TRAINING_X_STEP);
    rf_run_data *shortest = runs->pdata[0];
    for (guint i = 1; i < runs->len; i++) {
        rf_run_data *r = runs->pdata[i];
        if (rf_run_data_count(r, RF_SPLIT_TRAIN) < rf_run_data_count(shortest, RF_SPLIT_TRAIN))
            shortest = r;
    }
    double first = draw_ms(&f, s), second = draw_ms(&f, s);
    for (int i = 0; i < REPS; i++) {
        append_row(shortest);
        t[i] = draw_ms(&f, s);
    }
    report("x = step, a row added", first, second, t);
    cairo_surface_destroy(s);
    rf_training_figure_free(tf);
    g_ptr_array_unref(runs);
    return 0;
}
