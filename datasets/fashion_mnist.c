/* Fashion-MNIST from its IDX files (see fashion_mnist.h). */
#include "fashion_mnist.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idx.h"

#define SIDE 28
#define PIXELS (SIDE * SIDE)
#define CLASSES 10
#define MEAN 0.2860f   /* of the training pixels / 255 */
#define STD 0.3530f

static const char *const class_names[CLASSES] = {
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot",
};

/* dir/stem.gz, or dir/stem when only the uncompressed file is there. */
static char *file_path(const char *dir, const char *stem)
{
    char *plain = g_build_filename(dir, stem, NULL);
    char *gz = g_strconcat(plain, ".gz", NULL);
    if (!g_file_test(gz, G_FILE_TEST_EXISTS) && g_file_test(plain, G_FILE_TEST_EXISTS)) {
        g_free(gz);
        return plain;
    }
    g_free(plain);
    return gz;
}

static bool check_pair(const char *ipath, const rf_idx *images, const char *lpath, const rf_idx *labels,
                       rf_status *st)
{
    if (images->dims[1] != SIDE || images->dims[2] != SIDE)
        return rf_fail(st, "%s: images are %lldx%lld, expected %dx%d", ipath, (long long)images->dims[1],
                       (long long)images->dims[2], SIDE, SIDE);
    if (labels->dims[0] != images->dims[0])
        return rf_fail(st, "%s: %lld labels, but %s holds %lld images", lpath, (long long)labels->dims[0], ipath,
                       (long long)images->dims[0]);
    for (int64_t i = 0; i < labels->dims[0]; i++)
        if (labels->data[i] >= CLASSES)
            return rf_fail(st, "%s: label %d of item %lld is out of range 0..%d", lpath, labels->data[i],
                           (long long)i, CLASSES - 1);
    return true;
}

/* The images and labels files of one split ("train" or "t10k"). */
static bool load_pair(const char *dir, const char *prefix, rf_idx *images, rf_idx *labels, rf_status *st)
{
    char stem[64];
    snprintf(stem, sizeof stem, "%s-images-idx3-ubyte", prefix);
    char *ipath = file_path(dir, stem);
    snprintf(stem, sizeof stem, "%s-labels-idx1-ubyte", prefix);
    char *lpath = file_path(dir, stem);
    bool ok = rf_idx_read(ipath, 3, images, st) && rf_idx_read(lpath, 1, labels, st) &&
              check_pair(ipath, images, lpath, labels, st);
    g_free(ipath);
    g_free(lpath);
    return ok;
}

/* Move both files' pixels into the table (train file first) and lay out the splits. */
static bool assemble(rf_image_table *t, const rf_config *cfg, const char *dir, rf_idx *train_img,
                     const rf_idx *train_lab, const rf_idx *test_img, const rf_idx *test_lab, rf_status *st)
{
    int64_t ntrain = train_img->dims[0], ntest = test_img->dims[0];
    int64_t val = cfg->data.val_size;
    if (val >= ntrain)
        return rf_fail(st, "%s: data.val_size = %lld leaves no training images (the training file holds %lld)", dir,
                       (long long)val, (long long)ntrain);
    int64_t size[RF_SPLIT_COUNT] = {
        ntrain - val < cfg->data.train_size ? ntrain - val : cfg->data.train_size,
        val,
        ntest < cfg->data.test_size ? ntest : cfg->data.test_size,
    };
    t->count = ntrain + ntest;
    t->pixels = realloc(train_img->data, (size_t)t->count * PIXELS);
    if (t->pixels == NULL)
        return rf_fail(st, "%s: out of memory for %lld images", dir, (long long)t->count);
    train_img->data = NULL;   /* now owned by the table */
    memcpy(t->pixels + (size_t)ntrain * PIXELS, test_img->data, (size_t)ntest * PIXELS);
    t->labels = malloc((size_t)t->count * sizeof *t->labels);
    t->order = malloc((size_t)(size[0] + size[1] + size[2] + 1) * sizeof *t->order);
    if (t->labels == NULL || t->order == NULL)
        return rf_fail(st, "%s: out of memory for %lld labels", dir, (long long)t->count);
    for (int64_t i = 0; i < ntrain; i++)
        t->labels[i] = train_lab->data[i];
    for (int64_t i = 0; i < ntest; i++)
        t->labels[ntrain + i] = test_lab->data[i];
    int64_t *o = t->order;
    for (int64_t i = 0; i < size[RF_SPLIT_TRAIN]; i++)
        *o++ = i;
    for (int64_t i = ntrain - val; i < ntrain; i++)
        *o++ = i;
    for (int64_t i = 0; i < size[RF_SPLIT_TEST]; i++)
        *o++ = ntrain + i;
    rf_image_table_finish(t, size);
    return true;
}

rf_dataset *rf_fashion_mnist_open(const rf_config *cfg, rf_status *st)
{
    const char *dir = cfg->data.path[0] != '\0' ? cfg->data.path : RF_FASHION_MNIST_DIR;
    rf_image_table *t = rf_image_table_new("fashion_mnist", SIDE, SIDE, 1, cfg->data.patch, MEAN, STD, st);
    if (t == NULL)
        return NULL;
    t->ds.classes = CLASSES;
    t->ds.class_names = class_names;
    rf_image_table_set_augment(t, cfg->data.augment_shift, strcmp(cfg->data.augment_flip, "true") == 0);
    rf_idx train_img = {0}, train_lab = {0}, test_img = {0}, test_lab = {0};
    bool ok = load_pair(dir, "train", &train_img, &train_lab, st) &&
              load_pair(dir, "t10k", &test_img, &test_lab, st) &&
              assemble(t, cfg, dir, &train_img, &train_lab, &test_img, &test_lab, st);
    free(train_img.data);
    free(train_lab.data);
    free(test_img.data);
    free(test_lab.data);
    if (!ok) {
        t->ds.destroy(&t->ds);
        return NULL;
    }
    return &t->ds;
}
