/* A figure: something that draws itself with cairo at any size and can say
 * what lies under a point. Views on screen (ui/plot_view.h), exports to
 * PNG/SVG/PDF and `rangefinder plot` all take an rf_figure, so one drawing
 * function serves the screen and every file format.
 */
#ifndef RF_FIGURE_H
#define RF_FIGURE_H

#include <cairo.h>
#include <stdbool.h>
#include <stddef.h>

#include "export_options.h"

/* The visible part of a figure's data as fractions of its full extent:
 * {0, 1, 0, 1} shows everything. x runs left to right, y top to bottom. */
typedef struct rf_zoom {
    double x0, x1, y0, y1;
} rf_zoom;

#define RF_ZOOM_ALL ((rf_zoom){0.0, 1.0, 0.0, 1.0})

typedef struct rf_figure {
    /* Draw into (0, 0, width, height) of cr. zoom is never NULL. */
    void (*draw)(void *data, cairo_t *cr, double width, double height, const rf_zoom *zoom);
    /* A one-line read-out for device point (x, y) of the same drawing (the
     * tensor's real value, not the colour's); false where there is nothing. */
    bool (*hover)(void *data, double width, double height, const rf_zoom *zoom, double x, double y, char *text,
                  size_t size);
    void *data;
    /* A click at device point (x, y) of the same drawing: true when it
     * changed what the figure draws. May be NULL (clicks do nothing). */
    bool (*click)(void *data, double width, double height, const rf_zoom *zoom, double x, double y);
    /* Whether there is nothing to draw yet, with the sentence that says
     * why (an export refuses it). May be NULL (never empty). */
    bool (*empty)(void *data, char *why, size_t size);
} rf_figure;

/* Render to FILE.png, FILE.svg or FILE.pdf (by extension, case-insensitive)
 * at the size, resolution and font size of `o` (export_options.h; a PNG
 * records its dpi): the figure alone (rf_plot_set_figure_only: no
 * buttons), and an empty figure refused with its sentence, no file
 * written. The file is written under a temporary name and renamed, so a
 * failed export leaves any old file intact. On failure writes a message
 * naming the file into err and returns false. */
bool rf_figure_export_with(const rf_figure *f, const rf_zoom *zoom, const char *path, const rf_export_options *o,
                           char *err, size_t err_size);
/* The same at width x height pixels at 96 dpi (rf_export_pixels). */
bool rf_figure_export(const rf_figure *f, const rf_zoom *zoom, const char *path, int width, int height, char *err,
                      size_t err_size);

/* True when `path` ends in .png, .svg or .pdf. */
bool rf_figure_format_known(const char *path);

#endif
