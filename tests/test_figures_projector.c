/* The Projector view's figure (ui/figures/projector_figure.h), drawn
 * headless: each point is painted where the figure says it is, in its
 * group's colour, and those places are a linear map of the coordinates
 * (PC1 rightwards, PC2 upwards); the axis titles carry the explained
 * shares; hover names the nearest sample with the describer's text, a
 * click hands its index to the view; another colouring recolours; 10,000
 * points draw quickly; with nothing computed the figure is empty and an
 * export refuses it. RF_INSPECT_PNG_DIR set: the figure is also written
 * there as PNG, to look at. */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../ui/figures/projector_figure.h"
#include "figure_pixels.h"
#include "tap.h"

#define W 800
#define H 600

/* Off the grid lines (at round numbers), so a point sits on white; the
 * bottom right corner empty, for the legend. */
static const float coords[] = {-2.7f, -1.3f, 2.33f, 1.63f, 0.4f, 0.35f, 1.35f, 0.7f, -1.6f, 1.8f};
static const int label[] = {0, 1, 2, 0, 1};
static const int predicted[] = {0, 2, 2, 1, 1};
static const char *const names[] = {"min", "max", "med", NULL};
#define N 5

/* The colour at (x, y), channels in [0, 1]. */
static rf_rgb colour_at(cairo_surface_t *s, double x, double y)
{
    int r, g, b;
    pixel(s, (int)x, (int)y, &r, &g, &b);
    return (rf_rgb){r / 255.0, g / 255.0, b / 255.0};
}

/* The colour c painted translucently over white, as the points are. */
static bool looks_like(rf_rgb seen, rf_rgb c)
{
    double a = 0.6, tol = 0.04;
    return fabs(seen.r - (a * c.r + 1 - a)) < tol && fabs(seen.g - (a * c.g + 1 - a)) < tol &&
           fabs(seen.b - (a * c.b + 1 - a)) < tol;
}

static bool svg_has_text(const rf_figure *fig, const char *wanted)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
    cairo_t *cr = cairo_create(s);
    GString *svg = g_string_new(NULL);
    rf_plot_collect_svg_text(cr, svg);
    fig->draw(fig->data, cr, W, H, &RF_ZOOM_ALL);
    bool found = strstr(svg->str, wanted) != NULL;
    g_string_free(svg, TRUE);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    return found;
}

static int64_t chosen = -1;
static void on_sample(void *ctx, int64_t sample)
{
    (void)ctx;
    chosen = sample;
}

static void describe(void *ctx, int64_t sample, char *text, size_t size)
{
    (void)ctx;
    snprintf(text, size, "words of %lld", (long long)sample);
}

static void points_case(void)
{
    rf_projector_figure *f = rf_projector_figure_new();
    rf_figure fig = rf_projector_figure_get(f);
    rf_projector_figure_set(f, coords, N, label, predicted, 3, names, (double[]){0.412, 0.187}, "Projector");
    rf_projector_figure_on_sample(f, on_sample, NULL);
    rf_projector_figure_on_describe(f, describe, NULL);
    const char *dir = g_getenv("RF_INSPECT_PNG_DIR");
    if (dir != NULL) {
        g_autofree char *path = g_build_filename(dir, "projector.png", NULL);
        char err[256];
        rf_figure_export(&fig, &RF_ZOOM_ALL, path, W, H, err, sizeof err);
    }

    double px[N], py[N];
    bool placed = true;
    for (int i = 0; i < N; i++)
        placed &= rf_projector_figure_point_centre(f, W, H, &RF_ZOOM_ALL, i, &px[i], &py[i]);
    tap_ok(placed && !rf_projector_figure_point_centre(f, W, H, &RF_ZOOM_ALL, N, &px[0], &py[0]),
           "every sample has a place, none past the last");
    /* The places are one linear map: the same pixels per unit for every pair. */
    double sx = (px[1] - px[0]) / (coords[2] - coords[0]), sy = (py[1] - py[0]) / (coords[3] - coords[1]);
    bool linear = sx > 0 && sy < 0;
    for (int i = 2; i < N; i++) {
        linear &= fabs(px[i] - (px[0] + sx * (coords[2 * i] - coords[0]))) < 0.5;
        linear &= fabs(py[i] - (py[0] + sy * (coords[2 * i + 1] - coords[1]))) < 0.5;
    }
    tap_ok(linear, "places are a linear map of (PC1, PC2), PC1 rightwards, PC2 upwards (%.1f, %.1f px per unit)", sx,
           sy);

    cairo_surface_t *s = render_figure(&fig, W, H);
    bool painted = true;
    for (int i = 0; i < N; i++) {
        rf_rgb want, seen = colour_at(s, px[i], py[i]);
        rf_projector_figure_point_colour(f, i, &want);
        if (!looks_like(seen, want)) {
            tap_diag("sample %d at (%.1f, %.1f): drawn (%.2f %.2f %.2f), wanted (%.2f %.2f %.2f) at 60%%", i, px[i],
                     py[i], seen.r, seen.g, seen.b, want.r, want.g, want.b);
            painted = false;
        }
    }
    tap_ok(painted, "each point is painted at its place in its label's colour");
    rf_rgb off = colour_at(s, (px[2] + px[3]) / 2, (py[2] + py[3]) / 2);
    tap_ok(off.r > 0.95 && off.g > 0.95 && off.b > 0.95, "between two points the background is white");
    cairo_surface_destroy(s);

    /* the top right quarter, zoomed: sample 1 there at twice the scale */
    rf_zoom quarter = {0.5, 1.0, 0.0, 0.5};
    double zx, zy, zx2, zy2;
    rf_projector_figure_point_centre(f, W, H, &quarter, 1, &zx, &zy);
    rf_projector_figure_point_centre(f, W, H, &quarter, 2, &zx2, &zy2);
    s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
    cairo_t *cr = cairo_create(s);
    fig.draw(fig.data, cr, W, H, &quarter);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    rf_rgb want1;
    rf_projector_figure_point_colour(f, 1, &want1);
    double zsx = (zx - zx2) / (coords[2] - coords[4]);
    tap_ok(looks_like(colour_at(s, zx, zy), want1) && fabs(zsx / sx - 2) < 0.15,
           "zoomed into the top right quarter, sample 1 is painted at its place, at %.2f times the scale", zsx / sx);
    cairo_surface_destroy(s);

    tap_ok(svg_has_text(&fig, "PC1 (41.2%)") && svg_has_text(&fig, "PC2 (18.7%)"),
           "the axis titles carry each component's share of the variance");
    tap_ok(svg_has_text(&fig, "min") && svg_has_text(&fig, "max") && svg_has_text(&fig, "med"),
           "the legend names the classes");

    char text[512] = "";
    bool hit = fig.hover(fig.data, W, H, &RF_ZOOM_ALL, px[1] + 2, py[1] - 1, text, sizeof text);
    tap_ok(hit && strstr(text, "sample 1") != NULL && strstr(text, "label max") != NULL &&
               strstr(text, "answered med") != NULL && strstr(text, "words of 1") != NULL,
           "hover near a point names its sample: %s", text);
    tap_ok(!fig.hover(fig.data, W, H, &RF_ZOOM_ALL, (px[2] + px[3]) / 2, (py[2] + py[3]) / 2, text, sizeof text),
           "hover away from every point says nothing");
    fig.click(fig.data, W, H, &RF_ZOOM_ALL, px[3], py[3]);
    tap_ok(chosen == 3, "a click on a point hands its sample to the view (%lld)", (long long)chosen);

    rf_projector_figure_set_colouring(f, RF_PROJECTOR_BY_CORRECTNESS);
    s = render_figure(&fig, W, H);
    rf_rgb right, wrong;
    rf_projector_figure_point_colour(f, 0, &right);
    rf_projector_figure_point_colour(f, 1, &wrong);
    tap_ok(looks_like(colour_at(s, px[0], py[0]), right) && looks_like(colour_at(s, px[1], py[1]), wrong) &&
               (right.r != wrong.r || right.g != wrong.g || right.b != wrong.b),
           "coloured by correctness, a right and a wrong answer are drawn in two colours");
    cairo_surface_destroy(s);
    tap_ok(svg_has_text(&fig, "right") && svg_has_text(&fig, "wrong"), "and the legend says which is which");
    rf_projector_figure_free(f);
}

static void many_case(void)
{
    enum { MANY = 10000 };
    float *xy = g_new(float, 2 * MANY);
    int *l = g_new(int, MANY), *p = g_new(int, MANY);
    for (int i = 0; i < MANY; i++) {
        xy[2 * i] = (float)sin(i * 0.37) * (float)(i % 97);
        xy[2 * i + 1] = (float)cos(i * 0.11) * (float)(i % 89);
        l[i] = i % 10;
        p[i] = (i * 7) % 10;
    }
    rf_projector_figure *f = rf_projector_figure_new();
    rf_projector_figure_set(f, xy, MANY, l, p, 10, NULL, (double[]){0.5, 0.25}, "many");
    rf_figure fig = rf_projector_figure_get(f);
    gint64 t0 = g_get_monotonic_time();
    cairo_surface_t *s = render_figure(&fig, 1920, 1080);
    double ms = (double)(g_get_monotonic_time() - t0) / 1000.0;
    cairo_surface_destroy(s);
    tap_diag("10,000 points at 1920x1080: %.1f ms", ms);
    tap_ok(ms < 1000, "10,000 points draw in under a second (%.0f ms)", ms);
    double x, y;
    rf_projector_figure_point_centre(f, 1920, 1080, &RF_ZOOM_ALL, 4321, &x, &y);
    int64_t at = rf_projector_figure_point_at(f, 1920, 1080, &RF_ZOOM_ALL, x, y);
    double ax, ay;
    rf_projector_figure_point_centre(f, 1920, 1080, &RF_ZOOM_ALL, at, &ax, &ay);
    tap_ok(at >= 0 && ax == x && ay == y, "among 10,000 the point found under a place is drawn there");
    rf_projector_figure_free(f);
    g_free(xy);
    g_free(l);
    g_free(p);
}

static void empty_case(void)
{
    rf_projector_figure *f = rf_projector_figure_new();
    rf_figure fig = rf_projector_figure_get(f);
    char why[128] = "";
    tap_ok(fig.empty(fig.data, why, sizeof why) && strstr(why, "Compute") != NULL, "before Compute it is empty: %s",
           why);
    char err[256] = "";
    g_autofree char *path = g_build_filename(g_get_tmp_dir(), "rf-empty-projector.svg", NULL);
    tap_ok(!rf_figure_export(&fig, &RF_ZOOM_ALL, path, 800, 600, err, sizeof err) &&
               !g_file_test(path, G_FILE_TEST_EXISTS),
           "an export of it is refused, nothing written: %s", err);
    rf_projector_figure_free(f);
}

int main(void)
{
    points_case();
    many_case();
    empty_case();
    return tap_done();
}
