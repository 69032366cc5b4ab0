/* Fashion-MNIST (data.task = fashion_mnist): 28x28 gray images of ten kinds
 * of clothing, read from the gzip IDX files Debian's dataset-fashion-mnist
 * installs in /usr/share/datasets/fashion-mnist (data.path names another
 * directory holding {train,t10k}-{images-idx3,labels-idx1}-ubyte.gz, or the
 * same names without .gz).
 *
 * Splits: test = the first data.test_size of the 10,000 t10k images (all of
 * them if fewer), val = the last data.val_size of the 60,000 training
 * images, train = the first data.train_size of the rest.
 * Tokens: pixels (data.patch = 0: 784 tokens of 1 float, grid 28x28) or
 * p x p patches (data.patch = 4: 49 tokens of 16 floats, grid 7x7), see
 * image_table.h; values (pixel / 255 - 0.2860) / 0.3530, the data set's mean
 * and standard deviation. rf_image_pixels gives a sample's raw 28x28 bytes. */
#ifndef RF_DATASETS_FASHION_MNIST_H
#define RF_DATASETS_FASHION_MNIST_H

#include "../core/config.h"
#include "../core/data.h"
#include "image_table.h"

#define RF_FASHION_MNIST_DIR "/usr/share/datasets/fashion-mnist"

rf_dataset *rf_fashion_mnist_open(const rf_config *cfg, rf_status *st);

#endif
