/* An image data set in memory, shared by fashion_mnist and image_folder:
 * uint8 rasters (height x width x channels, row-major, channels
 * interleaved), int labels and the split order; get() only normalises.
 *
 * Tokens: with data.patch = 0 one token per pixel (feat_dim = channels,
 * grid height x width); with data.patch = p, p x p patches in raster order
 * (feat_dim = p * p * channels, grid height/p x width/p), the features of a
 * patch its pixels in raster order with channels interleaved. A Linear on
 * the patch features is a convolution stem with kernel = stride = p.
 * Values: (pixel / 255 - mean) / std. */
#ifndef RF_IMAGE_TABLE_H
#define RF_IMAGE_TABLE_H

#include <stdint.h>

#include "../core/data.h"
#include "folder_report.h"
#include "image_decode.h"

typedef struct rf_image_table {
    rf_dataset ds;
    int height, width, channels, patch;   /* patch: side of a token's square, 1 for pixels */
    float value[256];                     /* pixel -> normalised value */
    uint8_t *pixels;                      /* [count][height][width][channels] */
    int32_t *labels;                      /* [count] */
    char **names;                         /* [count] file names for describe(), or NULL */
    char **owned_class_names;             /* [ds.classes] when the loader made them, or NULL */
    int64_t count;
    int64_t *order;                       /* storage index of each sample: train, then val, then test */
    int64_t first[RF_SPLIT_COUNT];        /* where each split starts in order[] */
    int64_t skipped;                      /* files skipped with a warning while loading */
    rf_format_counts formats;             /* images read per format (image_folder) */
    int augment_shift;                    /* training draws: shift by up to this many pixels */
    bool augment_flip;                    /* training draws: random left-right flip */
    /* How an outside picture becomes one of these images (featurise): the
     * loader's own options (image_folder); otherwise the table's size and
     * channels, centre-cropped over black (Fashion-MNIST's clothes are
     * light on black). */
    rf_image_options decode;
} rf_image_table;

/* An empty table for height x width x channels images. Fails when
 * data.patch (`patch`, 0 for pixels) does not divide both sides. The loader
 * fills pixels, labels, count, order and the class fields, then calls
 * rf_image_table_finish; on a failure it calls ds.destroy. */
rf_image_table *rf_image_table_new(const char *name, int height, int width, int channels, int patch, float mean,
                                   float std, rf_status *st);

/* Set the split sizes (order[] must hold their sum) and the rf_dataset fields. */
void rf_image_table_finish(rf_image_table *t, const int64_t size[RF_SPLIT_COUNT]);

/* Augment training draws (data.augment_shift, data.augment_flip): each draw
 * shifts the image by a uniform (dy, dx) in [-shift, shift]^2, filling the
 * uncovered border with black (pixel value 0), and flips it left-right with
 * probability 1/2. Evaluation and inspection always see the stored image. */
void rf_image_table_set_augment(rf_image_table *t, int shift, bool flip);

/* The stored raster of a sample of an image data set (fashion_mnist or
 * image_folder), for display: height x width x channels bytes, row-major,
 * channels interleaved (1 gray, 3 RGB). NULL if ds is not an image data set
 * or there is no such sample. */
const uint8_t *rf_image_pixels(const rf_dataset *ds, rf_split split, int64_t index, int *height, int *width,
                               int *channels);

/* Files skipped with a warning while loading an image data set (0 for others). */
int64_t rf_image_skipped(const rf_dataset *ds);

/* Images read per format (image_folder; NULL for other data sets). */
const rf_format_counts *rf_image_formats(const rf_dataset *ds);

#endif
