/* The Training figure's redraw speed-ups keep its pixels (issue 12 item
 * 11), headless:
 *   1. a noisy line reduced per pixel column (rf_plot_line_points) inks the
 *      same pixels as the plain stroke through every point, to 1 px;
 *   2. the figure drawn through its cached run layers matches the strokes
 *      drawn straight onto the target;
 *   3. after new rows, another x range, other smoothing, another size, the
 *      wall-time axis, a hidden run or another device scale, the first
 *      redraw (straight strokes) and the next (new layers) differ from the
 *      picture before and are what a fresh figure draws: no stale layer.
 */
#include <glib.h>
#include <cairo-pdf.h>
#include <math.h>
#include <string.h>

#include "../ui/figures/training_figure.h"
#include "../ui/plot/plot.h"
#include "figure_pixels.h"
#include "tap.h"

/* ---- 1: the reduction ---- */

static uint32_t lcg(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

/* A line of n points drawn in black on white into a w x h frame. */
static cairo_surface_t *stroke(const double *x, const double *y, int n, int w, int h)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    rf_plot p = {.cr = cr, .outer = {0, 0, w, h}, .frame = {0, 0, w, h},
                 .x = {.min = x[0], .max = x[n - 1], .scale = RF_AXIS_LINEAR},
                 .y = {.min = -1.5, .max = 1.5, .scale = RF_AXIS_LINEAR}};
    rf_plot_line(&p, x, y, n, (rf_rgb){0, 0, 0}, 1.0, 0);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    return s;
}

static bool inked(cairo_surface_t *s, int x, int y)
{
    int r, g, b;
    pixel(s, x, y, &r, &g, &b);
    return r + g + b < 3 * 200;
}

/* Inked pixels of a with no inked pixel of b within 1 px. */
static int unmatched(cairo_surface_t *a, cairo_surface_t *b)
{
    int w = cairo_image_surface_get_width(a), h = cairo_image_surface_get_height(a), n = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            if (!inked(a, x, y))
                continue;
            bool near = false;
            for (int dy = -1; dy <= 1 && !near; dy++)
                for (int dx = -1; dx <= 1 && !near; dx++)
                    near = x + dx >= 0 && x + dx < w && y + dy >= 0 && y + dy < h && inked(b, x + dx, y + dy);
            n += !near;
        }
    return n;
}

static void test_reduction(void)
{
    enum { N = 40000, W = 500, H = 240 };
    double *x = g_new(double, N), *y = g_new(double, N), *rx = g_new(double, N), *ry = g_new(double, N);
    uint32_t state = 7;
    for (int i = 0; i < N; i++) {
        x[i] = i;
        /* a trend, noise, and now and then a spike */
        y[i] = sin(i * 3e-4) + 0.3 * ((double)(lcg(&state) % 1000) / 1000 - 0.5) +
               (lcg(&state) % 997 == 0 ? 0.6 : 0);
    }
    rf_plot frame = {.frame = {0, 0, W, H}, .x = {.min = 0, .max = N - 1, .scale = RF_AXIS_LINEAR},
                     .y = {.min = -1.5, .max = 1.5, .scale = RF_AXIS_LINEAR}};
    size_t m = rf_plot_line_points(&frame, x, y, N, rx, ry);
    cairo_surface_t *plain = stroke(x, y, N, W, H), *reduced = stroke(rx, ry, (int)m, W, H);
    int missing = unmatched(plain, reduced), extra = unmatched(reduced, plain);
    tap_ok(m <= 4 * W && missing == 0 && extra == 0,
           "%d noisy points reduced to %zu (at most 4 per pixel column) ink the same pixels as the plain stroke, "
           "to 1 px (%d missing, %d extra)",
           N, m, missing, extra);
    cairo_surface_destroy(plain);
    cairo_surface_destroy(reduced);
    g_free(x);
    g_free(y);
    g_free(rx);
    g_free(ry);
}

/* ---- 2 and 3: the figure's layers ---- */

static rf_run_data *noisy_run(const char *name, int steps, uint32_t seed)
{
    rf_run_data *r = rf_run_data_new(name, NULL);
    for (int i = 1; i <= steps; i++) {
        double noise = 0.2 * ((double)(lcg(&seed) % 1000) / 1000 - 0.5);
        rf_metrics m = {.step = i, .split = RF_SPLIT_TRAIN, .loss = 2 * exp(-i / 300.0) + 0.3 + noise,
                        .accuracy = 0.2 + 0.6 * (1 - exp(-i / 300.0)) + noise, .lr = 1e-3, .seconds = 0.1 * i,
                        .step_seconds = 0.1 + 0.02 * noise};
        rf_run_data_append(r, &m);
        if (i % 100 == 0) {
            m.split = RF_SPLIT_VAL;
            rf_run_data_append(r, &m);
        }
    }
    r->planned_bytes = 2e8;
    r->peak_bytes = 1.5e8;
    return r;
}

typedef struct setting {
    int w, h;
    rf_zoom zoom;
    double smoothing;
    rf_training_x x;
    bool hide_second;
    int scale;   /* device pixels per unit (a HiDPI window's 2); 0 means 1 */
} setting;

static cairo_surface_t *draw_on(rf_training_figure *tf, const setting *st, bool straight)
{
    rf_training_figure_set_smoothing(tf, st->smoothing);
    rf_training_figure_set_x(tf, st->x);
    rf_training_figure_set_hidden(tf, 1, st->hide_second);
    rf_figure f = rf_training_figure_figure(tf);
    int scale = st->scale > 0 ? st->scale : 1;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, st->w * scale, st->h * scale);
    cairo_t *cr = cairo_create(s);
    cairo_scale(cr, scale, scale);
    if (straight) {
        /* a recording for vector output gets the strokes; replayed here */
        cairo_surface_t *recording = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
        cairo_t *rc = cairo_create(recording);
        rf_plot_set_replay_scale(rc, 0);
        f.draw(f.data, rc, st->w, st->h, &st->zoom);
        cairo_destroy(rc);
        cairo_set_source_surface(cr, recording, 0, 0);
        cairo_paint(cr);
        cairo_surface_destroy(recording);
    } else {
        f.draw(f.data, cr, st->w, st->h, &st->zoom);
    }
    cairo_destroy(cr);
    cairo_surface_flush(s);
    return s;
}

/* Drawn twice (the first draw of a new setting strokes straight, the
 * second draws the run layers): the second, through the layers. */
static cairo_surface_t *draw_layered(rf_training_figure *tf, const setting *st)
{
    cairo_surface_destroy(draw_on(tf, st, false));
    return draw_on(tf, st, false);
}

/* A fresh figure of the same runs in the same setting, through its layers. */
static cairo_surface_t *draw_fresh(rf_run_data **runs, const setting *st)
{
    rf_training_figure *tf = rf_training_figure_new();
    rf_training_figure_set_runs(tf, runs, 2);
    cairo_surface_t *s = draw_layered(tf, st);
    rf_training_figure_free(tf);
    return s;
}

/* Pixels whose colour differs by more than `tolerance` in a channel. */
static int differing(cairo_surface_t *a, cairo_surface_t *b, int tolerance)
{
    int w = cairo_image_surface_get_width(a), h = cairo_image_surface_get_height(a), n = 0;
    if (w != cairo_image_surface_get_width(b) || h != cairo_image_surface_get_height(b))
        return w * h;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int r1, g1, b1, r2, g2, b2;
            pixel(a, x, y, &r1, &g1, &b1);
            pixel(b, x, y, &r2, &g2, &b2);
            n += abs(r1 - r2) > tolerance || abs(g1 - g2) > tolerance || abs(b1 - b2) > tolerance;
        }
    return n;
}

/* The premise of the checks below: the figure caches on images and on
 * recordings replayed at a scale (GTK's), and strokes on a PDF or on a
 * recording marked for vector output (replay scale 0). */
static void test_raster_targets(void)
{
    cairo_surface_t *image = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 10, 10);
    cairo_surface_t *pdf = cairo_pdf_surface_create(NULL, 10, 10);
    cairo_surface_t *scaled = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
    cairo_surface_t *vector = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
    cairo_t *on_image = cairo_create(image), *on_pdf = cairo_create(pdf), *on_scaled = cairo_create(scaled);
    cairo_t *on_vector = cairo_create(vector);
    rf_plot_set_replay_scale(on_scaled, 2);
    rf_plot_set_replay_scale(on_vector, 0);
    cairo_scale(on_image, 1.5, 1.5);
    double i = rf_plot_raster_scale(on_image), p = rf_plot_raster_scale(on_pdf);
    double s = rf_plot_raster_scale(on_scaled), v = rf_plot_raster_scale(on_vector);
    tap_ok(i == 1.5 && p == 0 && s == 2 && v == 0,
           "layers on an image (at its scale: %g) and on a recording replayed at 2x (%g); strokes on a PDF (%g) and "
           "on a recording for vector output (%g)",
           i, s, p, v);
    cairo_destroy(on_image);
    cairo_destroy(on_pdf);
    cairo_destroy(on_scaled);
    cairo_destroy(on_vector);
    cairo_surface_destroy(image);
    cairo_surface_destroy(pdf);
    cairo_surface_destroy(scaled);
    cairo_surface_destroy(vector);
}

static void test_layers(void)
{
    rf_run_data *runs[2] = {noisy_run("long", 900, 3), noisy_run("short", 500, 5)};
    rf_training_figure *tf = rf_training_figure_new();
    rf_training_figure_set_runs(tf, runs, 2);
    setting st = {.w = 800, .h = 600, .zoom = RF_ZOOM_ALL, .smoothing = 0.6, .x = RF_TRAINING_X_STEP};

    cairo_surface_t *straight = draw_on(tf, &st, true), *before = draw_layered(tf, &st);
    cairo_surface_t *again = draw_on(tf, &st, false);
    int off = differing(straight, before, 2);
    tap_ok(off == 0, "drawn through its layers the figure is the strokes drawn straight (%d pixels off by more "
                     "than 2/255)",
           off);
    tap_ok(differing(before, again, 0) == 0, "a redraw with nothing changed is the same picture");
    cairo_surface_destroy(straight);
    cairo_surface_destroy(again);

    setting without = st;
    without.smoothing = 0;
    straight = draw_on(tf, &without, true);
    cairo_surface_t *layered = draw_layered(tf, &without);
    off = differing(straight, layered, 2);
    tap_ok(off == 0, "so it is without smoothing (light raw rows under the validation line: %d pixels off)", off);
    cairo_surface_destroy(straight);
    cairo_surface_destroy(layered);
    cairo_surface_destroy(draw_layered(tf, &st));   /* back to the first setting's layers */

    static const char *const changes[] = {"new rows of the shorter run", "another x range", "other smoothing",
                                          "another size", "the wall-time axis", "a hidden run",
                                          "twice the device pixels"};
    for (size_t c = 0; c < G_N_ELEMENTS(changes); c++) {
        setting next = st;
        if (c == 0)
            for (int i = 501; i <= 560; i++) {
                /* inside the axes' ranges: only the run's own layers can tell */
                rf_metrics m = {.step = i, .split = RF_SPLIT_TRAIN, .loss = 1.2, .accuracy = 0.5, .lr = 1e-3,
                                .seconds = 0.1 * i, .step_seconds = 0.1};
                rf_run_data_append(runs[1], &m);
            }
        else if (c == 1)
            next.zoom = (rf_zoom){0.2, 0.7, 0, 1};
        else if (c == 2)
            next.smoothing = 0.9;
        else if (c == 3)
            next.w = 820;
        else if (c == 4)
            next.x = RF_TRAINING_X_TIME;
        else if (c == 5)
            next.hide_second = true;
        else
            next.scale = 2;
        cairo_surface_t *first = draw_on(tf, &next, false), *after = draw_on(tf, &next, false);
        cairo_surface_t *fresh = draw_fresh(runs, &next);
        int changed = differing(before, after, 0), stale = differing(after, fresh, 0);
        /* antialiased edges may round apart, most at twice the pixels (a few of
         * them by up to 48/255): few pixels and none far */
        int moved = differing(first, after, 2), far = differing(first, after, 64);
        int area = cairo_image_surface_get_width(after) * cairo_image_surface_get_height(after);
        tap_ok(changed > 0 && stale == 0 && moved <= area / 2000 && far == 0,
               "after %s the redraws differ from before (%d pixels), the first stroked straight and the next "
               "through new layers alike (%d pixels off by more than 2/255, %d by more than 64/255), as a fresh "
               "figure draws (%d pixels off)",
               changes[c], changed, moved, far, stale);
        cairo_surface_destroy(first);
        cairo_surface_destroy(fresh);
        cairo_surface_destroy(before);
        before = after;
        st = next;
    }
    cairo_surface_destroy(before);
    rf_training_figure_free(tf);
    rf_run_data_free(runs[0]);
    rf_run_data_free(runs[1]);
}

int main(void)
{
    test_reduction();
    test_raster_targets();
    test_layers();
    return tap_done();
}
