/* The interface between data sets (datasets/) and the engine.
 *
 * A data set is a table of samples per split; each sample is a sequence of
 * at most `seq_len` positions and one class label. Positions hold a token id
 * (feat_dim == 0, ids in [1, vocab), 0 is padding) or a vector of feat_dim
 * floats (images as pixels or patches, audio frames). The engine pads every
 * batch to seq_len and masks the padding, so one graph serves every step.
 *
 * get() must be safe to call from the prefetch thread while the training
 * thread runs (read-only access to the data set's tables is enough).
 */
#ifndef RF_DATA_H
#define RF_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef enum rf_split { RF_SPLIT_TRAIN, RF_SPLIT_VAL, RF_SPLIT_TEST, RF_SPLIT_COUNT } rf_split;

const char *rf_split_name(rf_split s);   /* "train", "val", "test" */

typedef struct rf_dataset rf_dataset;
struct rf_dataset {
    const char *name;            /* task name, e.g. "listops" */
    int64_t size[RF_SPLIT_COUNT];
    int seq_len;                 /* longest sample, positions */
    int feat_dim;                /* 0: token ids; > 0: floats per position */
    int grid_h, grid_w;          /* positions form a grid_h x grid_w raster (images,
                                    spectrograms); 0, 0 for plain sequences */
    int vocab;                   /* token ids are < vocab (feat_dim == 0) */
    int classes;
    const char *const *class_names;   /* may be NULL */

    /* Write sample `index` of `split`: x gets len * max(1, feat_dim) floats
     * (the caller zero-fills the rest), *len its length in positions
     * (1..seq_len), *label its class. Returns false with a message on a
     * failure (a file that went bad under us). */
    bool (*get)(const rf_dataset *ds, rf_split split, int64_t index, float *x, int *len, int *label,
                rf_status *st);
    /* Optional: training sample `index` under a random augmentation chosen
     * by `key` (the same key gives the same result). The batcher uses it
     * for the training split when present; evaluation and inspection use
     * get(). */
    bool (*get_augmented)(const rf_dataset *ds, int64_t index, uint64_t key, float *x, int *len, int *label,
                          rf_status *st);
    /* Optional: what get would give of the sample but its positions past
     * the first: *first the id at position 0 (token data), *len and
     * *label. For data whose samples are costly to make whole (the
     * baselines read the first token and label of every training sample). */
    bool (*head)(const rf_dataset *ds, rf_split split, int64_t index, int *first, int *len, int *label,
                 rf_status *st);
    /* Optional: the sample as text for inspection (token string, file name). */
    bool (*describe)(const rf_dataset *ds, rf_split split, int64_t index, char *buf, size_t size);
    /* Optional: an input from outside the data set featurised exactly as
     * this data set's samples are (same size, channels, resampling, log-mel,
     * tokens): the file at `path`, or `text` when path is NULL (a ListOps
     * expression, a TSV line, a string). x gets up to seq_len * max(1,
     * feat_dim) floats (the caller zero-fills the rest), *len its length.
     * Returns false with one sentence naming the input and what differs
     * (an image for a token model, a clip longer than seq_len allows). */
    bool (*featurise)(const rf_dataset *ds, const char *path, const char *text, float *x, int *len,
                      rf_status *st);
    void (*destroy)(rf_dataset *ds);
    void *impl;
};

static inline void rf_dataset_free(rf_dataset *ds)
{
    if (ds != NULL && ds->destroy != NULL)
        ds->destroy(ds);
}

/* One batch in the layout the model's inputs expect. */
typedef struct rf_batch {
    int batch, seq_len, feat_dim;
    float *x;        /* [batch, seq_len] ids, or [batch, seq_len, feat_dim] */
    float *mask;     /* [batch, seq_len], 1 valid, 0 padding */
    float *labels;   /* [batch] */
    int count;       /* samples actually present (the last eval batch may be short;
                        missing rows are all padding with label 0 and are not counted) */
    int longest;     /* the longest sample's length in positions */
} rf_batch;

#endif
