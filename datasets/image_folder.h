/* A folder of labelled images (data.task = image_folder):
 * data.path/<class>/..., one sub-folder per class, the classes numbered in
 * sorted (byte) order of their names; every file below a class folder, at
 * any depth, is a candidate (folder_walk.h: junk ignored, links followed
 * once). docs/data-formats.md has the details.
 *
 * Each file is decoded by whichever gdk-pixbuf loader recognises its
 * content (image_decode.h: reduced-scale decoding, EXIF orientation, alpha
 * over data.background, data.resize to a data.image_size square,
 * data.channels), on a thread pool, and stored as bytes. Tokens as
 * Fashion-MNIST (pixels or data.patch patches, see image_table.h), values
 * pixel / 127.5 - 1 in [-1, 1].
 *
 * A file that does not decode is skipped with a warning (the first few
 * named, folder_report.h) and counted (rf_image_skipped); with data.strict
 * = true it is an error. The formats read are counted (rf_image_formats).
 * A class folder left without images is an error naming it.
 *
 * Splits: a shuffle seeded by train.seed; test = the first data.test_size,
 * val = the next data.val_size, train = the first data.train_size of the
 * rest. When val_size + test_size would leave no training image, each is
 * capped at a quarter of the images (with a warning). rf_image_pixels gives
 * a sample's stored raster. */
#ifndef RF_DATASETS_IMAGE_FOLDER_H
#define RF_DATASETS_IMAGE_FOLDER_H

#include "../core/config.h"
#include "../core/data.h"
#include "image_table.h"

rf_dataset *rf_image_folder_open(const rf_config *cfg, rf_status *st);

#endif
