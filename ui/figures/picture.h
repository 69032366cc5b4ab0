/* A sample's picture for the inspection figures: the pixels of an image
 * sample and the raster of tokens laid over it, so a token's attention or
 * window can be drawn where it sits in the image.
 */
#ifndef RF_PICTURE_H
#define RF_PICTURE_H

#include "../../core/data.h"
#include "../plot/plot.h"

typedef struct rf_picture {
    float *pixels;         /* height x width x channels, in [0, 1]; NULL: none */
    int height, width, channels;
    int grid_h, grid_w;    /* the token raster over the picture */
    int token_offset;      /* model tokens before the first raster position (a CLS token) */
} rf_picture;

/* Copy pixels (height x width x channels, 1 or 3 channels, values in [0, 1]). */
bool rf_picture_set(rf_picture *p, const float *pixels, int height, int width, int channels, int grid_h,
                    int grid_w, int token_offset);
/* Rebuild the picture of sample `index` of an image data set from its tokens
 * (pixels, or p x p patches of 1 or 3 channels), the values stretched to
 * [0, 1]. False (and no picture) when the data set is not an image raster
 * or the sample cannot be read. */
bool rf_picture_from_sample(rf_picture *p, const rf_dataset *ds, rf_split split, int64_t index, int token_offset);
/* The same from tokens in the data set's layout (an inspected input's). */
bool rf_picture_from_tokens(rf_picture *p, const rf_dataset *ds, const float *tokens, int token_offset);
void rf_picture_clear(rf_picture *p);

/* The largest rectangle with the picture's aspect ratio centred in r. */
rf_rect rf_picture_fit(const rf_picture *p, rf_rect r);
void rf_picture_draw(const rf_picture *p, cairo_t *cr, rf_rect fit);
/* grid_h x grid_w values over the picture in the colour map (NaN cells
 * transparent), with the given opacity. */
void rf_picture_draw_overlay(const rf_picture *p, cairo_t *cr, rf_rect fit, const float *values, double vmin,
                             double vmax, double alpha);
/* The same in another colour map (diverging for signed values). */
void rf_picture_draw_overlay_in(const rf_picture *p, cairo_t *cr, rf_rect fit, const float *values, double vmin,
                                double vmax, rf_colormap_kind kind, double alpha);
/* The raster cell of `position` (0-based, without the token offset). */
rf_rect rf_picture_cell(const rf_picture *p, rf_rect fit, int position);
/* The raster position under (x, y); false outside the picture. */
bool rf_picture_position_at(const rf_picture *p, rf_rect fit, double x, double y, int *position);

#endif
