/* Reading figures drawn into cairo image surfaces (tests/test_figures_inspect.c,
 * tests/test_gui.c): pixels, and where a heatmap's cells land, worked out
 * from the documented layout (row 0 at the top, columns across, the zoom's
 * x choosing columns and its y rows) and the plot area found in the
 * drawing itself, never from the figures' own coordinate helpers. */
#ifndef RF_TESTS_FIGURE_PIXELS_H
#define RF_TESTS_FIGURE_PIXELS_H

#include <cairo.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "../ui/plot/figure.h"
#include "../ui/plot/plot.h"

static inline void pixel(cairo_surface_t *s, int x, int y, int *r, int *g, int *b)
{
    const uint32_t *row = (const uint32_t *)(const void *)(cairo_image_surface_get_data(s) +
                                                          (size_t)y * cairo_image_surface_get_stride(s));
    uint32_t p = row[x];
    *r = (int)(p >> 16 & 0xff);
    *g = (int)(p >> 8 & 0xff);
    *b = (int)(p & 0xff);
}

/* Whether pixel (x, y) is within 0.03 of colour c in each channel. */
static inline bool is_colour(cairo_surface_t *s, int x, int y, rf_rgb c)
{
    int r, g, b;
    pixel(s, x, y, &r, &g, &b);
    return fabs(r / 255.0 - c.r) < 0.03 && fabs(g / 255.0 - c.g) < 0.03 && fabs(b / 255.0 - c.b) < 0.03;
}

/* How many pixels are is_colour c. */
static inline int colour_pixels(cairo_surface_t *s, rf_rgb c)
{
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s), n = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            n += is_colour(s, x, y, c);
    return n;
}

/* Figure f drawn at w x h, everything shown, into a new image surface. */
static inline cairo_surface_t *render_figure(const rf_figure *f, int w, int h)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    cairo_t *cr = cairo_create(s);
    f->draw(f->data, cr, w, h, &RF_ZOOM_ALL);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    return s;
}

/* Pixels of strong colour (not white, not grey: heatmap cells, bands). */
static inline bool colourful(cairo_surface_t *s, int x, int y)
{
    int r, g, b;
    pixel(s, x, y, &r, &g, &b);
    int hi = r > g ? (r > b ? r : b) : (g > b ? g : b), lo = r < g ? (r < b ? r : b) : (g < b ? g : b);
    return hi - lo > 40;
}

/* A rectangle of pixel edges: [x0, x1) x [y0, y1); empty when x1 <= x0. */
typedef struct box {
    double x0, y0, x1, y1;
} box;

/* Pixels a diverging colour map paints: anything but the white background
 * and the dark greys of frames and text (its middle is a light grey). */
static inline bool painted(cairo_surface_t *s, int x, int y)
{
    int r, g, b;
    pixel(s, x, y, &r, &g, &b);
    int hi = r > g ? (r > b ? r : b) : (g > b ? g : b), lo = r < g ? (r < b ? r : b) : (g < b ? g : b);
    bool background = lo >= 253, dark_grey = hi - lo < 8 && hi < 200;
    return !background && !dark_grey;
}

typedef bool (*cell_pixel)(cairo_surface_t *s, int x, int y);

/* A heatmap's plot area: the run of cell pixels (`is_cell`: colourful for
 * the sequential map, painted for the diverging one) through a point
 * inside it, across and down. */
static inline box cell_area_of(cairo_surface_t *s, int x, int y, cell_pixel is_cell)
{
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    int x0 = x, x1 = x, y0 = y, y1 = y;
    while (x0 > 0 && is_cell(s, x0 - 1, y))
        x0--;
    while (x1 < w - 1 && is_cell(s, x1 + 1, y))
        x1++;
    while (y0 > 0 && is_cell(s, x, y0 - 1))
        y0--;
    while (y1 < h - 1 && is_cell(s, x, y1 + 1))
        y1++;
    return (box){x0, y0, x1 + 1, y1 + 1};
}

static inline box cell_area(cairo_surface_t *s, int x, int y)
{
    return cell_area_of(s, x, y, colourful);
}

/* Where cell (row, col) of a rows x cols matrix lands in plot area `a` at
 * `zoom` (fractions of the full extent). */
static inline box matrix_cell(box a, int rows, int cols, const rf_zoom *zoom, int row, int col)
{
    double sx = (a.x1 - a.x0) / ((zoom->x1 - zoom->x0) * cols), sy = (a.y1 - a.y0) / ((zoom->y1 - zoom->y0) * rows);
    double x = a.x0 + (col - zoom->x0 * cols) * sx, y = a.y0 + (row - zoom->y0 * rows) * sy;
    return (box){x, y, x + sx, y + sy};
}

#endif
