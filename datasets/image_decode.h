/* One image file to a small square raster, through gdk-pixbuf. */
#ifndef RF_IMAGE_DECODE_H
#define RF_IMAGE_DECODE_H

#include <stdbool.h>
#include <stdint.h>

/* Decode `path` (any format gdk-pixbuf reads: PNG, JPEG, ...), drop alpha,
 * resize to side x side (bilinear; the aspect ratio is not kept) and write
 * side * side * channels bytes to out: channels 1 is gray (0.299 R +
 * 0.587 G + 0.114 B, rounded), 3 is RGB. Returns false with *problem (a
 * g_malloc'd one-line message) when the file cannot be decoded. */
bool rf_image_decode(const char *path, int side, int channels, uint8_t *out, char **problem);

#endif
