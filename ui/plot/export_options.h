/* How big an exported figure is, at what resolution, with what text size:
 * one set of options for `rangefinder plot` and the workbench's exports.
 *
 * A figure is laid out in drawing units of 1/96 in (a pixel on screen), so
 * an export looks like the view: a PNG of 1600x1000 pixels at 96 dpi is the
 * figure as drawn on screen; at 300 dpi the same inches hold 3.125 times the
 * pixels. An SVG or PDF is sized in points (1 in = 72 pt); a size in pixels
 * converts to inches at the dpi.
 */
#ifndef RF_EXPORT_OPTIONS_H
#define RF_EXPORT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { RF_LENGTH_PX, RF_LENGTH_IN, RF_LENGTH_CM, RF_LENGTH_PT } rf_length_unit;

#define RF_EXPORT_DPI 96.0
#define RF_EXPORT_DPI_MIN 24.0
#define RF_EXPORT_DPI_MAX 2400.0
/* The figures' own tick label size: 11 drawing units (RF_PLOT_TEXT). */
#define RF_EXPORT_FONT_SIZE 8.25
#define RF_EXPORT_FONT_MIN 4.0
#define RF_EXPORT_FONT_MAX 72.0
/* Bounds on either side of the drawing, in drawing units, and of a PNG in pixels. */
#define RF_EXPORT_SIDE_MIN 16
#define RF_EXPORT_SIDE_MAX 16384

typedef struct rf_export_options {
    double width, height;        /* in `unit` */
    rf_length_unit unit;
    double dpi;                  /* pixels per inch: a PNG's resolution, a pixel's size in SVG and PDF */
    double font_size;            /* tick labels, in points; titles and legends in proportion */
} rf_export_options;

/* width x height pixels at 96 dpi, the figures' own font size. */
rf_export_options rf_export_pixels(int width, int height);

/* "6x4in", "15x10cm", "400x300pt", "1600x1000" (pixels): false on anything
 * else (a missing or unknown unit, a size not above 0). */
bool rf_export_parse_size(const char *text, double *width, double *height, rf_length_unit *unit);
/* "px", "in", "cm", "pt", and back (false for another name). */
const char *rf_length_unit_name(rf_length_unit unit);
bool rf_length_unit_from_name(const char *name, rf_length_unit *unit);

/* The drawing's size in drawing units, and the file's: pixels for a PNG
 * (rounded), points for SVG and PDF. */
void rf_export_drawing_size(const rf_export_options *o, double *width, double *height);
void rf_export_png_size(const rf_export_options *o, int *width, int *height);
void rf_export_points(const rf_export_options *o, double *width, double *height);

/* Whether the options can be drawn (dpi, font size and either side within
 * the bounds above; a PNG's pixels too): false with a sentence in `err`. */
bool rf_export_options_check(const rf_export_options *o, bool png, char *err, size_t err_size);

#endif
