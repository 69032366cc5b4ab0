/* The Training figure's curve controls without a display (issue 12 item
 * 11): TensorBoard's smoothing against a naive reference, wall-time ticks,
 * and on the drawn figure: smoothed train curves over faint raw rows, a
 * log scale per panel, step or wall time on the x axis, legend clicks that
 * hide a run, and markers where an optimiser key was changed live. The
 * checks read pixels of the rendered figure; where they need a place they
 * find it in the pixels or from the documented layout (loss top left, the
 * legend at its top right, learning rate bottom left), never from the
 * figure's own coordinate helpers. */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../ui/figures/training_figure.h"
#include "../ui/plot/plot.h"
#include "../ui/plot/smooth.h"
#include "figure_pixels.h"
#include "tap.h"

#define W 900
#define H 640

/* ---- the average itself ---- */

/* TensorBoard's loop, written out with pow and no shortcuts. */
static void reference_ema(const double *y, size_t n, double weight, double *out)
{
    bool constant = true;
    for (size_t i = 1; i < n; i++)
        constant = constant && y[i] == y[0];
    double last = 0;
    int accumulated = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(y[i]) || constant) {
            out[i] = y[i];
            continue;
        }
        last = last * weight + (1 - weight) * y[i];
        accumulated++;
        out[i] = last / (1 - pow(weight, accumulated));
    }
}

static void test_ema(void)
{
    enum { N = 500 };
    double y[N], got[N], want[N];
    for (int i = 0; i < N; i++)
        y[i] = 2 + sin(i * 0.37) + 0.3 * cos(i * 2.1);
    y[0] = NAN;   /* a diverged first row: the average starts at the next */
    y[17] = NAN;
    y[18] = INFINITY;
    y[250] = -INFINITY;
    static const double weights[] = {0, 0.3, 0.6, 0.9, 0.99, RF_SMOOTH_MAX};
    double worst = 0;
    bool non_finite_kept = true;
    for (size_t k = 0; k < G_N_ELEMENTS(weights); k++) {
        rf_smooth_ema(y, N, weights[k], got);
        reference_ema(y, N, weights[k], want);
        for (int i = 0; i < N; i++) {
            if (!isfinite(want[i])) {
                non_finite_kept = non_finite_kept && (isnan(want[i]) ? isnan(got[i]) : got[i] == want[i]);
                continue;
            }
            worst = fmax(worst, fabs(got[i] - want[i]) / fabs(want[i]));
        }
    }
    tap_ok(worst < 1e-12 && non_finite_kept,
           "smoothing matches TensorBoard's loop at weights 0..0.999 with NaN and ±inf rows kept as they are "
           "(worst relative difference %.2g)", worst);

    rf_smooth_ema(y, N, 0.9, got);
    tap_ok(isnan(got[0]) && got[1] == y[1], "debiased: the first finite smoothed value is the first finite raw "
                                            "value (%.17g, raw %.17g)", got[1], y[1]);
    tap_ok(fabs(got[2] - (0.9 * 0.1 * y[1] + 0.1 * y[2]) / (1 - 0.81)) < 1e-12,
           "the second is their weighted mean debiased by 1 - 0.9^2 (%.6g)", got[2]);
    rf_smooth_ema(y, N, 0, got);
    bool identity = true;
    for (int i = 1; i < N; i++)
        identity = identity && (isfinite(y[i]) ? got[i] == y[i] : true);
    tap_ok(identity, "weight 0 leaves the rows as they are");

    double flat[64], flat_out[64];
    for (int i = 0; i < 64; i++)
        flat[i] = 0.1;
    rf_smooth_ema(flat, 64, 0.95, flat_out);
    bool exact = true;
    for (int i = 0; i < 64; i++)
        exact = exact && flat_out[i] == 0.1;
    tap_ok(exact, "a constant curve stays exactly constant");
}

static void test_duration_ticks(void)
{
    static const struct {
        double seconds;
        const char *text;
    } cases[] = {{0, "0:00"}, {30, "0:30"}, {300, "5:00"}, {3720, "1:02:00"}, {2.5, "0:02.5"}, {86399, "23:59:59"}};
    char buf[32];
    bool ok = true;
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        rf_format_duration(cases[i].seconds, buf, sizeof buf);
        if (strcmp(buf, cases[i].text) != 0) {
            tap_diag("%g s formats as %s, not %s", cases[i].seconds, buf, cases[i].text);
            ok = false;
        }
    }
    tap_ok(ok, "durations read 0:30, 5:00, 1:02:00, 0:02.5");

    static const double spans[] = {45, 400, 3700, 40000};
    bool round_steps = true;
    for (size_t k = 0; k < G_N_ELEMENTS(spans); k++) {
        rf_axis a = {.min = 0, .max = spans[k], .format = RF_FORMAT_DURATION};
        double t[12];
        int n = rf_axis_ticks(&a, t, 12);
        double step = n >= 2 ? t[1] - t[0] : 0;
        /* Steps that read as whole units: 5 or 10 s, 1 or 2 min, 10 or 15 min, 1 or 2 h. */
        bool whole = step >= 60 ? fmod(step, 60) == 0 : fmod(10, step) == 0 || fmod(step, 5) == 0;
        round_steps = round_steps && n >= 3 && whole && (spans[k] < 3600 || fmod(step, 600) == 0);
        if (!(n >= 3 && whole))
            tap_diag("span %g s: %d ticks, step %g s", spans[k], n, step);
    }
    tap_ok(round_steps, "a time axis ticks on round times (s, min, h), not on 1-2-5 seconds");
}

/* ---- the drawn figure ---- */

static bool is_color(cairo_surface_t *s, int x, int y, rf_rgb c, double tolerance)
{
    const unsigned char *data = cairo_image_surface_get_data(s);
    uint32_t p = *(const uint32_t *)(const void *)(data + y * cairo_image_surface_get_stride(s) + 4 * x);
    return fabs(((p >> 16) & 255) / 255.0 - c.r) < tolerance && fabs(((p >> 8) & 255) / 255.0 - c.g) < tolerance &&
           fabs((p & 255) / 255.0 - c.b) < tolerance;
}

/* c over white at opacity a. */
static rf_rgb over_white(rf_rgb c, double a)
{
    return (rf_rgb){1 - a + a * c.r, 1 - a + a * c.g, 1 - a + a * c.b};
}

/* The pixels of colour c inside [x0, x1) x [y0, y1): count and extent. */
typedef struct ink {
    int n, x0, x1, y0, y1;
} ink;

static ink find_ink(cairo_surface_t *s, rf_rgb c, double tolerance, int x0, int x1, int y0, int y1)
{
    ink k = {0, x1, x0, y1, y0};
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            if (is_color(s, x, y, c, tolerance)) {
                k.n++;
                k.x0 = MIN(k.x0, x);
                k.x1 = MAX(k.x1, x + 1);
                k.y0 = MIN(k.y0, y);
                k.y1 = MAX(k.y1, y + 1);
            }
    return k;
}

/* The loss panel's data area, clear of the legend (top right), the title
 * and the tick labels: the left half of the top 56 %, in by a margin. */
static ink loss_ink(cairo_surface_t *s, rf_rgb c, double tolerance)
{
    return find_ink(s, c, tolerance, 70, W / 2 - 190, 40, (int)(H * 0.56) - 24);
}

/* The step time panel: the middle third of the bottom row (which starts at
 * 56 % of the height), below its title, above its tick labels. Its lines
 * are not pixel-aligned: their colour is matched loosely. */
static ink step_time_ink(cairo_surface_t *s, rf_rgb c)
{
    return find_ink(s, c, 0.15, W / 3 + 2, 2 * W / 3 - 10, (int)(H * 0.56) + 30, H - 45);
}

/* The middle of a legend swatch of colour c in [x0, x1) x [y0, y1): a
 * horizontal run of 14 to 22 pixels (curves run on; text is not that
 * colour). */
static bool find_swatch(cairo_surface_t *s, rf_rgb c, int x0, int x1, int y0, int y1, double *sx, double *sy)
{
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            int run = 0;
            while (x + run < x1 && is_color(s, x + run, y, c, 0.03))
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

typedef double (*loss_at)(int step);

/* `steps` train rows of loss(step), `seconds` a step, lr 1e-3. */
static rf_run_data *run_of(const char *name, int steps, double seconds, loss_at loss)
{
    rf_run_data *r = rf_run_data_new(name, NULL);
    for (int i = 1; i <= steps; i++) {
        rf_metrics m = {.step = i, .split = RF_SPLIT_TRAIN, .loss = loss(i), .accuracy = 0.5, .lr = 1e-3,
                        .seconds = seconds * i, .step_seconds = seconds};
        rf_run_data_append(r, &m);
    }
    return r;
}

static double noisy(int step)
{
    return step % 2 == 0 ? 1.0 : 3.0;   /* a mean of 2 under noise of ±1 */
}

static double decaying(int step)
{
    return 10 * pow(1e-4, step / 400.0);   /* 10 down to 1e-3 over 400 steps */
}

static double gentle(int step)
{
    return 2 - step * 1e-3;
}

/* Far above `gentle`, so it sets the loss axis while shown. */
static double large(int step)
{
    return 40 - step * 1e-2;
}

static void test_smoothing_drawn(void)
{
    g_autoptr(rf_training_figure) tf = rf_training_figure_new();
    rf_figure f = rf_training_figure_figure(tf);
    rf_run_data *run = run_of("noisy", 400, 0.1, noisy);
    rf_training_figure_set_runs(tf, &run, 1);
    rf_rgb c = rf_series_color(0);
    tap_ok(rf_training_figure_get_smoothing(tf) == RF_TRAINING_SMOOTHING_DEFAULT, "smoothing starts at 0.6");

    rf_training_figure_set_smoothing(tf, 0.95);
    cairo_surface_t *s = render_figure(&f, W, H);
    ink smooth = loss_ink(s, c, 0.06), faint = loss_ink(s, over_white(c, 0.25), 0.06);
    cairo_surface_destroy(s);
    /* Raw rows alternate between 1 and 3: their band is the panel's height;
     * the smoothed line stays near 2. */
    int band = faint.y1 - faint.y0;
    tap_ok(smooth.n > 100 && faint.n > 100 && smooth.y1 - smooth.y0 < band / 4,
           "at 0.95 the smoothed loss is a line in the run's colour %d px tall over the faint raw band %d px tall "
           "(%d and %d pixels)", smooth.y1 - smooth.y0, band, smooth.n, faint.n);

    rf_training_figure_set_smoothing(tf, 0);
    s = render_figure(&f, W, H);
    ink raw = loss_ink(s, c, 0.06);
    cairo_surface_destroy(s);
    tap_ok(raw.n == 0, "at 0 there is no smoothed line: the train rows are drawn thin and light as before "
                       "(%d pixels of the full colour)", raw.n);
    rf_run_data_free(run);
}

/* A run of one train row (logged once, at its last step) shows that row
 * as a dot in every panel, where a line of one point draws nothing. */
static void test_single_row(void)
{
    g_autoptr(rf_training_figure) tf = rf_training_figure_new();
    rf_figure f = rf_training_figure_figure(tf);
    rf_run_data *run = run_of("one row", 1, 0.1, gentle);
    rf_training_figure_set_runs(tf, &run, 1);
    rf_training_figure_set_smoothing(tf, 0);   /* no smoothed line: the row in the run's colour */
    cairo_surface_t *s = render_figure(&f, W, H);
    ink dot = step_time_ink(s, rf_series_color(0));
    cairo_surface_destroy(s);
    tap_ok(dot.n >= 9 && dot.x1 - dot.x0 <= 8 && dot.y1 - dot.y0 <= 8,
           "a single train row is a dot in the step time panel (%d pixels, %d x %d)", dot.n, dot.x1 - dot.x0,
           dot.y1 - dot.y0);
    rf_run_data_free(run);
}

static void test_log_scale(void)
{
    g_autoptr(rf_training_figure) tf = rf_training_figure_new();
    rf_figure f = rf_training_figure_figure(tf);
    rf_run_data *run = run_of("decaying", 400, 0.1, decaying);
    rf_training_figure_set_runs(tf, &run, 1);
    rf_training_figure_set_smoothing(tf, 0);
    rf_rgb light = {0.45 * rf_series_color(0).r + 0.55, 0.45 * rf_series_color(0).g + 0.55,
                    0.45 * rf_series_color(0).b + 0.55};
    /* The middle of the run (steps ~100..300): loss 0.1 ... 0.001. */
    int x0 = 70 + (W / 2 - 260) / 4, x1 = W / 2 - 190;
    cairo_surface_t *s = render_figure(&f, W, H);
    ink linear = find_ink(s, light, 0.05, x0, x1, 40, (int)(H * 0.56) - 40);
    cairo_surface_destroy(s);

    /* The "log" button: the right end of the loss panel's title row. */
    char text[256] = "";
    double bx = W / 2.0 - 16 - 15, by = 12;
    bool offered = f.hover(f.data, W, H, &RF_ZOOM_ALL, bx, by, text, sizeof text) && strstr(text, "log") != NULL;
    bool clicked = f.click(f.data, W, H, &RF_ZOOM_ALL, bx, by);
    s = render_figure(&f, W, H);
    ink log = find_ink(s, light, 0.05, x0, x1, 40, (int)(H * 0.56) - 40);
    cairo_surface_destroy(s);
    tap_ok(offered && clicked && rf_training_figure_get_log(tf, RF_TRAINING_LOSS),
           "the loss panel's log button says so on hover (\"%s\") and a click turns the log scale on", text);
    tap_ok(linear.n > 0 && log.n > 0 && linear.y1 - linear.y0 < 30 && log.y1 - log.y0 > 3 * (linear.y1 - linear.y0),
           "a loss falling from 10 to 0.001: its middle half hugs the bottom on a linear axis (%d px tall) and "
           "spreads out on the log axis (%d px tall)", linear.y1 - linear.y0, log.y1 - log.y0);
    tap_ok(!rf_training_figure_set_log(tf, RF_TRAINING_ACCURACY, true) &&
               rf_training_figure_set_log(tf, RF_TRAINING_LR, true) &&
               rf_training_figure_set_log(tf, RF_TRAINING_STEP_TIME, true),
           "learning rate and step time take a log scale too; accuracy stays linear");
    f.click(f.data, W, H, &RF_ZOOM_ALL, bx, by);
    tap_ok(!rf_training_figure_get_log(tf, RF_TRAINING_LOSS), "a second click turns it off");
    rf_run_data_free(run);
}

/* The memory panel (issue 12 item 6): logarithmic by itself once the shown
 * runs' memory spans more than 10x, linear below, and the user's choice
 * wins over both. Judged in the drawing too, with runs planned at 1, 10
 * and 100 MiB: the 10 MiB run's line sits halfway up on a log axis, near
 * the floor on a linear one. */
static int memory_line_y(const rf_figure *f, rf_rgb c)
{
    cairo_surface_t *s = render_figure(f, W, H);
    /* the memory panel: the right third of the lower row */
    ink k = find_ink(s, c, 0.05, 2 * W / 3 + 60, W - 20, (int)(H * 0.56) + 30, H - 20);
    cairo_surface_destroy(s);
    return k.n > 0 ? k.y0 : -1;
}

static void test_memory_log(void)
{
    g_autoptr(rf_training_figure) tf = rf_training_figure_new();
    rf_figure f = rf_training_figure_figure(tf);
    rf_run_data *runs[3] = {run_of("1 MiB", 50, 0.1, gentle), run_of("10 MiB", 50, 0.1, gentle),
                            run_of("100 MiB", 50, 0.1, gentle)};
    for (int i = 0; i < 3; i++)
        runs[i]->planned_bytes = (i == 0 ? 1 : i == 1 ? 10 : 100) * (double)(1 << 20);
    rf_training_figure_set_runs(tf, runs, 3);
    int middle_log = memory_line_y(&f, rf_series_color(1));
    bool auto_log = rf_training_figure_get_log(tf, RF_TRAINING_MEMORY);
    rf_training_figure_set_runs(tf, runs, 2);   /* 1 and 10 MiB: 10x, not more */
    memory_line_y(&f, rf_series_color(1));
    bool auto_linear = !rf_training_figure_get_log(tf, RF_TRAINING_MEMORY);
    rf_training_figure_set_runs(tf, runs, 3);
    rf_training_figure_set_log(tf, RF_TRAINING_MEMORY, false);
    int middle_linear = memory_line_y(&f, rf_series_color(1));
    tap_ok(auto_log, "runs planned at 1, 10 and 100 MiB: the memory panel is logarithmic by itself");
    tap_ok(auto_linear, "runs 10x apart, not more: the memory panel stays linear");
    /* the panel is about 0.4 H tall: halfway up on the log axis, a tenth of the way on the linear one */
    tap_ok(!rf_training_figure_get_log(tf, RF_TRAINING_MEMORY) && middle_log > 0 &&
               middle_linear - middle_log > 0.25 * 0.4 * H,
           "the linear axis the user chose wins: the 10 MiB line drops from y %d (log) to y %d (linear)", middle_log,
           middle_linear);
    rf_run_data_free(runs[0]);
    rf_run_data_free(runs[1]);
    rf_run_data_free(runs[2]);
}

/* Pixels of the key's grey in the step-time panel's title row, right of
 * its title and left of its log button. */
static int step_time_key_ink(cairo_surface_t *s)
{
    const rf_rgb key_grey = {0.40, 0.40, 0.44};
    int top = (int)(H * 0.56), n = 0;
    for (int y = top; y < top + 22; y++)
        for (int x = W / 3 + 170; x < 2 * W / 3 - 50; x++)
            n += is_color(s, x, y, key_grey, 0.12);
    return n;
}

/* A horizontal run of at least 7 pixels of colour c just under the
 * step-time panel's title row, where its top edge is (a triangle: the line
 * there is 1.5 px wide and leaves the top steeply). */
static bool step_time_top_triangle(cairo_surface_t *s, rf_rgb c)
{
    int top = (int)(H * 0.56) + 22;   /* below the title row */
    for (int y = top; y < top + 20; y++)
        for (int x = W / 3, run = 0; x < 2 * W / 3; x++) {
            run = is_color(s, x, y, c, 0.1) ? run + 1 : 0;
            if (run >= 7)
                return true;
        }
    return false;
}

/* A run of 100 steps of 0.1 s but its first, of `first` s. */
static rf_run_data *first_step_of(double first)
{
    rf_run_data *r = rf_run_data_new("first step", NULL);
    for (int i = 1; i <= 100; i++) {
        rf_metrics m = {.step = i, .split = RF_SPLIT_TRAIN, .loss = gentle(i), .accuracy = 0.5, .lr = 1e-3,
                        .seconds = 0.1 * i + first, .step_seconds = i == 1 ? first : 0.1};
        rf_run_data_append(r, &m);
    }
    return r;
}

/* A first step 30 times the others' leaves the step-time axis (it is cut
 * at 4x the median): a triangle marks it on the top edge, and the panel's
 * title row counts it. */
static void test_step_times_above(void)
{
    g_autoptr(rf_training_figure) tf = rf_training_figure_new();
    rf_figure f = rf_training_figure_figure(tf);
    rf_run_data *inside = first_step_of(0.35), *outside = first_step_of(3.0);
    rf_training_figure_set_runs(tf, &inside, 1);
    cairo_surface_t *s = render_figure(&f, W, H);
    int quiet = step_time_key_ink(s);
    bool unmarked = !step_time_top_triangle(s, rf_series_color(0));
    cairo_surface_destroy(s);
    rf_training_figure_set_runs(tf, &outside, 1);
    s = render_figure(&f, W, H);
    int said = step_time_key_ink(s);
    bool marked = step_time_top_triangle(s, rf_series_color(0));
    cairo_surface_destroy(s);
    tap_ok(quiet == 0 && said > 0,
           "a first step of 3 s, past 4x the 0.1 s median, is counted in the step-time panel's title row (%d key "
           "pixels; %d for one of 0.35 s, inside the axis)", said, quiet);
    tap_ok(marked && unmarked, "and marked by a triangle on the panel's top edge (none for the 0.35 s step)");
    rf_run_data_free(inside);
    rf_run_data_free(outside);
}

static void test_time_axis(void)
{
    g_autoptr(rf_training_figure) tf = rf_training_figure_new();
    rf_figure f = rf_training_figure_figure(tf);
    rf_run_data *runs[2] = {run_of("fast", 300, 0.1, gentle), run_of("slow", 300, 1.0, gentle)};
    rf_training_figure_set_runs(tf, runs, 2);
    rf_rgb c0 = rf_series_color(0), c1 = rf_series_color(1);
    cairo_surface_t *s = render_figure(&f, W, H);
    ink fast = step_time_ink(s, c0), slow = step_time_ink(s, c1);
    cairo_surface_destroy(s);
    tap_ok(fast.n > 0 && slow.n > 0 && abs((fast.x1 - fast.x0) - (slow.x1 - slow.x0)) < 6,
           "against the step, runs of the same steps span the same width (%d and %d px of step time)",
           fast.x1 - fast.x0, slow.x1 - slow.x0);

    rf_training_figure_set_x(tf, RF_TRAINING_X_TIME);
    s = render_figure(&f, W, H);
    fast = step_time_ink(s, c0);
    slow = step_time_ink(s, c1);
    cairo_surface_destroy(s);
    double ratio = (double)(fast.x1 - fast.x0) / fmax(1, slow.x1 - slow.x0);
    tap_ok(fast.n > 0 && slow.n > 0 && ratio > 0.06 && ratio < 0.16,
           "against wall time the run 10x faster spans a tenth of the width (%d and %d px)", fast.x1 - fast.x0,
           slow.x1 - slow.x0);
    char text[256] = "";
    double x = fast.x0 + 3, y = (fast.y0 + fast.y1) / 2.0;
    bool read = fast.n > 0 && f.hover(f.data, W, H, &RF_ZOOM_ALL, x, y, text, sizeof text);
    tap_ok(read && g_str_has_prefix(text, "0:") && g_ascii_isdigit(text[2]) && strstr(text, " · step ") != NULL &&
               strstr(text, "0.1 s/step (fast)") != NULL,
           "hover on the time axis reads the time and the step (\"%s\")", text);
    rf_run_data_free(runs[0]);
    rf_run_data_free(runs[1]);
}

static double rising(int step)
{
    return 0.5 + step / 100.0;
}

/* A loss that rises to the top right corner (a diverging run) leaves the
 * legend there no room: it moves to the bottom right, and a click on its
 * swatch there still hides the run. */
static void test_legend_moves(void)
{
    g_autoptr(rf_training_figure) tf = rf_training_figure_new();
    rf_figure f = rf_training_figure_figure(tf);
    rf_run_data *run = run_of("rising", 300, 0.1, rising);
    rf_training_figure_set_runs(tf, &run, 1);
    rf_rgb c = rf_series_color(0);
    cairo_surface_t *s = render_figure(&f, W, H);
    int top_h = (int)(H * 0.56);
    double sx = 0, sy = 0, tx = 0, ty = 0;
    bool bottom = find_swatch(s, c, W / 2 - 190, W / 2, top_h - 100, top_h, &sx, &sy);
    bool top = find_swatch(s, c, W / 2 - 190, W / 2, 0, 100, &tx, &ty);
    cairo_surface_destroy(s);
    tap_ok(bottom && !top, "a loss rising to the top right puts the legend bottom right (swatch at %.0f, %.0f)", sx,
           sy);
    bool clicked = bottom && f.click(f.data, W, H, &RF_ZOOM_ALL, sx, sy);
    tap_ok(clicked && rf_training_figure_get_hidden(tf, 0), "and a click on its swatch there hides the run");
    rf_run_data_free(run);
}

static void test_hide_runs(void)
{
    g_autoptr(rf_training_figure) tf = rf_training_figure_new();
    rf_figure f = rf_training_figure_figure(tf);
    rf_run_data *runs[2] = {run_of("small", 300, 0.1, gentle), run_of("large", 300, 0.1, large)};
    rf_training_figure_set_runs(tf, runs, 2);
    rf_rgb c0 = rf_series_color(0), c1 = rf_series_color(1);
    cairo_surface_t *s = render_figure(&f, W, H);
    ink before = loss_ink(s, c0, 0.06), other = loss_ink(s, c1, 0.06);
    /* The second legend entry: its swatch, found in the legend's corner. */
    double sx = 0, sy = 0;
    bool swatch = find_swatch(s, c1, W / 2 - 190, W / 2, 0, 100, &sx, &sy);
    cairo_surface_destroy(s);
    char text[256] = "";
    bool offered = swatch && f.hover(f.data, W, H, &RF_ZOOM_ALL, sx, sy, text, sizeof text) &&
                   strstr(text, "large (click to hide") != NULL;
    bool clicked = swatch && f.click(f.data, W, H, &RF_ZOOM_ALL, sx, sy);
    tap_ok(offered && clicked && rf_training_figure_get_hidden(tf, 1) && !rf_training_figure_get_hidden(tf, 0),
           "hovering the second legend entry offers to hide it (\"%s\"), a click hides that run", text);

    s = render_figure(&f, W, H);
    ink after = loss_ink(s, c0, 0.06), gone = find_ink(s, c1, 0.06, 0, W, 0, H);
    cairo_surface_destroy(s);
    tap_ok(other.n > 50 && gone.n == 0,
           "the hidden run is drawn nowhere, its legend swatch greyed (%d pixels of its colour before, %d after)",
           other.n, gone.n);
    tap_ok(after.y1 - after.y0 > 4 * (before.y1 - before.y0),
           "and left out of the ranges: the other run's loss fills the axis (%d px tall, %d px beside the hidden "
           "run's larger loss)", after.y1 - after.y0, before.y1 - before.y0);
    f.click(f.data, W, H, &RF_ZOOM_ALL, sx, sy);
    tap_ok(!rf_training_figure_get_hidden(tf, 1), "a second click shows it again");
    rf_run_data_free(runs[0]);
    rf_run_data_free(runs[1]);
}

static void test_change_markers(void)
{
    g_autoptr(rf_training_figure) tf = rf_training_figure_new();
    rf_figure f = rf_training_figure_figure(tf);
    rf_run_data *run = run_of("edited", 300, 0.1, gentle);
    rf_training_figure_set_runs(tf, &run, 1);
    rf_rgb c = rf_series_color(0);
    /* The learning rate panel, bottom left: a strip above its x axis. */
    int strip_y0 = H - 60, strip_y1 = H - 20;
    cairo_surface_t *s = render_figure(&f, W, H);
    ink none = find_ink(s, c, 0.03, 60, W / 3 - 10, strip_y0, strip_y1);
    cairo_surface_destroy(s);

    rf_run_data_add_change(run, 1, "train.lr", "0.0004", "0.0001");
    rf_run_data_add_change(run, 1, "train.clip", "1", "0.5");
    s = render_figure(&f, W, H);
    ink pending = find_ink(s, c, 0.03, 60, W / 3 - 10, strip_y0, strip_y1);
    cairo_surface_destroy(s);
    rf_run_data_changes_taken(run, 1, 120);
    s = render_figure(&f, W, H);
    ink marker = find_ink(s, c, 0.03, 60, W / 3 - 10, strip_y0, strip_y1);
    cairo_surface_destroy(s);
    tap_ok(none.n == 0 && pending.n == 0 && marker.n >= 10 && marker.x1 - marker.x0 <= 12,
           "a change the trainer took draws a marker on the axis (%d pixels, %d px wide); none before it was "
           "taken (%d) or without a change (%d)", marker.n, marker.x1 - marker.x0, pending.n, none.n);
    char text[256] = "";
    double mx = (marker.x0 + marker.x1) / 2.0, my = marker.y1 - 3;
    bool read = marker.n > 0 && f.hover(f.data, W, H, &RF_ZOOM_ALL, mx, my, text, sizeof text);
    tap_ok(read && strcmp(text, "step 120: train.lr 0.0004 → 0.0001, train.clip 1 → 0.5 (edited)") == 0,
           "hover on the marker says what changed: \"%s\"", text);
    rf_training_figure_set_x(tf, RF_TRAINING_X_TIME);
    read = f.hover(f.data, W, H, &RF_ZOOM_ALL, mx, my, text, sizeof text);
    tap_ok(read && strcmp(text, "0:12 · step 120: train.lr 0.0004 → 0.0001, train.clip 1 → 0.5 (edited)") == 0,
           "on the time axis it sits at the step's time (\"%s\")", text);
    rf_run_data_free(run);
}

int main(void)
{
    test_ema();
    test_duration_ticks();
    test_smoothing_drawn();
    test_single_row();
    test_log_scale();
    test_memory_log();
    test_time_axis();
    test_step_times_above();
    test_hide_runs();
    test_legend_moves();
    test_change_markers();
    return tap_done();
}
