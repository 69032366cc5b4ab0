/* One image file to a small square raster, through gdk-pixbuf. */
#ifndef RF_IMAGE_DECODE_H
#define RF_IMAGE_DECODE_H

#include <stdbool.h>
#include <stdint.h>

/* Limits, checked before decoding: a file of at most 64 MiB and at most
 * 8192 x 8192 pixels by its header (256 MiB of RGBA if a format is decoded
 * at full size; JPEG, SVG and WebP decode at reduced size). */
#define RF_IMAGE_MAX_FILE ((uint64_t)64 << 20)
#define RF_IMAGE_MAX_PIXELS ((int64_t)8192 * 8192)

/* How a picture becomes a square (data.resize). */
typedef enum rf_image_resize {
    RF_RESIZE_CROP,     /* shorter side to the square's side, centre crop */
    RF_RESIZE_SQUASH,   /* both sides to the square's (aspect not kept) */
    RF_RESIZE_PAD,      /* longer side to the square's side, centred on the background */
} rf_image_resize;

typedef struct rf_image_options {
    int side;                /* the square's side in pixels */
    int channels;            /* 1 gray (0.299 R + 0.587 G + 0.114 B), 3 RGB */
    rf_image_resize resize;
    uint8_t background;      /* grey level under transparent pixels and padding */
} rf_image_options;

/* "crop", "squash" or "pad" to its mode; false for anything else. */
bool rf_image_resize_parse(const char *name, rf_image_resize *out);

/* Decode `path` with whichever gdk-pixbuf loader recognises its content
 * (not its name), at reduced scale when the picture is larger than
 * needed (SVG rendered at the needed size), turn it upright by its EXIF
 * orientation, composite alpha over the background, resize as o->resize
 * says (bilinear) and write side * side * channels bytes to out. *format
 * (may be NULL) gets gdk-pixbuf's name of the format ("png", "jpeg", ...;
 * static). Returns false with *problem (a g_malloc'd one-line message)
 * when the file cannot be used. Thread-safe. */
bool rf_image_decode(const char *path, const rf_image_options *o, uint8_t *out, const char **format,
                     char **problem);

#endif
