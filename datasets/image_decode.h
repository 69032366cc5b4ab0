/* One image file to a small square raster, through gdk-pixbuf. */
#ifndef RF_IMAGE_DECODE_H
#define RF_IMAGE_DECODE_H

#include <stdbool.h>
#include <stdint.h>

/* Limits, checked before decoding: a file of at most 64 MiB, PNG or JPEG
 * only (by content), at most 4096 x 4096 pixels (64 MiB of RGBA while
 * decoding, plus the side x side result). */
#define RF_IMAGE_MAX_FILE ((uint64_t)64 << 20)
#define RF_IMAGE_MAX_PIXELS ((int64_t)4096 * 4096)

/* Decode `path` (PNG or JPEG, through gdk-pixbuf), drop alpha,
 * resize to side x side (bilinear; the aspect ratio is not kept) and write
 * side * side * channels bytes to out: channels 1 is gray (0.299 R +
 * 0.587 G + 0.114 B, rounded), 3 is RGB. Returns false with *problem (a
 * g_malloc'd one-line message) when the file cannot be decoded. */
bool rf_image_decode(const char *path, int side, int channels, uint8_t *out, char **problem);

#endif
