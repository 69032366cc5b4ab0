/* The inspection figures' tests (test_figures_inspect.c,
 * test_figures_latent.c): a figure drawn into a cairo image surface at
 * W x H (kept as PNG under $RF_INSPECT_PNG_DIR), the shades its parts are
 * drawn in, and where they land, read from the pixels and the hover. */
#ifndef RF_TESTS_FIGURE_CHECKS_H
#define RF_TESTS_FIGURE_CHECKS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ui/plot/plot.h"
#include "figure_pixels.h"

#define W 1600
#define H 1000

static inline cairo_surface_t *render(const rf_figure *fig, int w, int h, const rf_zoom *zoom, const char *png)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    cairo_t *cr = cairo_create(s);
    fig->draw(fig->data, cr, w, h, zoom);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    const char *dir = getenv("RF_INSPECT_PNG_DIR");
    if (dir != NULL && png != NULL) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, png);
        cairo_surface_write_to_png(s, path);
    }
    return s;
}

static inline long count_colourful(cairo_surface_t *s)
{
    long n = 0;
    for (int y = 0; y < cairo_image_surface_get_height(s); y++)
        for (int x = 0; x < cairo_image_surface_get_width(s); x++)
            n += colourful(s, x, y);
    return n;
}

/* Viridis' ends, as the heatmaps draw their largest and smallest values. */
static inline bool yellow(int r, int g, int b) { return r > 200 && g > 200 && b < 80; }
/* The diverging map's ends (the Latent view's signed states) */
static inline bool deep_red(int r, int g, int b) { return r > 80 && r < 140 && g < 30 && b < 60; }
static inline bool deep_blue(int r, int g, int b) { return r < 30 && g > 30 && g < 70 && b > 70 && b < 120; }
/* The TaLK self line (0.85, 0.2, 0.1), not its antialiased edge. */
static inline bool red(int r, int g, int b) { return r > 180 && g < 110 && b < 110; }
/* rf_plot's frame border (muted grey): dark and colourless, unlike grid lines. */
static inline bool border(int r, int g, int b)
{
    int hi = r > g ? (r > b ? r : b) : (g > b ? g : b), lo = r < g ? (r < b ? r : b) : (g < b ? g : b);
    return hi < 150 && hi - lo < 20;
}

static inline bool is(cairo_surface_t *s, int x, int y, bool (*shade)(int, int, int))
{
    int r, g, b;
    pixel(s, x, y, &r, &g, &b);
    return shade(r, g, b);
}

/* The bounding box of the pixels of `shade` inside `within`. */
static inline box find_shade(cairo_surface_t *s, box within, bool (*shade)(int, int, int))
{
    box f = {INFINITY, INFINITY, -INFINITY, -INFINITY};
    for (int y = (int)within.y0; y < (int)within.y1; y++)
        for (int x = (int)within.x0; x < (int)within.x1; x++)
            if (is(s, x, y, shade))
                f = (box){fmin(f.x0, x), fmin(f.y0, y), fmax(f.x1, x + 1), fmax(f.y1, y + 1)};
    return f;
}

/* Within 1.5 px on every edge (antialiasing, rounding of the frame). */
static inline bool near(box got, box want)
{
    return fabs(got.x0 - want.x0) <= 1.5 && fabs(got.x1 - want.x1) <= 1.5 && fabs(got.y0 - want.y0) <= 1.5 &&
           fabs(got.y1 - want.y1) <= 1.5;
}

#define BOX(b) (b).x0, (b).x1, (b).y0, (b).y1

/* Find a device point whose read-out starts with `prefix`; false if none. */
static inline bool find_hover(const rf_figure *fig, const rf_zoom *zoom, const char *prefix, double *px, double *py,
                       char *text, size_t size)
{
    for (int y = 0; y < H; y += 2)
        for (int x = 0; x < W; x += 2)
            if (fig->hover(fig->data, W, H, zoom, x + 0.5, y + 0.5, text, size) &&
                strncmp(text, prefix, strlen(prefix)) == 0) {
                *px = x + 0.5;
                *py = y + 0.5;
                return true;
            }
    return false;
}

#endif
