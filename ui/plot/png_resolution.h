/* A PNG that says its resolution: cairo writes no pHYs chunk, so viewers,
 * word processors and LaTeX would take a 300 dpi figure for 72 or 96 dpi
 * and print it three times too large. */
#ifndef RF_PNG_RESOLUTION_H
#define RF_PNG_RESOLUTION_H

#include <cairo.h>
#include <stdbool.h>

/* Write image surface `s` to `path` as cairo does, with a pHYs chunk of
 * `dpi` (in pixels per metre, as PNG keeps it) after the header. On failure
 * sets *problem to a static sentence and returns false. */
bool rf_png_write_with_resolution(cairo_surface_t *s, double dpi, const char *path, const char **problem);

#endif
