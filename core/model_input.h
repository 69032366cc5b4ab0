/* What a trained model takes as input, and whether a data set gives it.
 *
 * A checkpoint may be evaluated (or inspected) on any data set whose input
 * and class count match its model: token ids of the same vocabulary, or
 * the same number of features per position, and the same classes. The
 * length matters only to learned positions (model.pos = learned: one row
 * per position); sinusoidal or no positions take any length. So a model
 * trained on generated ListOps (data.task = listops) reads LRA's files
 * (lra_tsv), both with listops.h's 16 tokens, and the other way round.
 */
#ifndef RF_MODEL_INPUT_H
#define RF_MODEL_INPUT_H

#include <stdbool.h>

#include "data.h"
#include "status.h"

typedef struct rf_model_input {
    int feat_dim;     /* 0: token ids; > 0: floats per position */
    int vocab;        /* token ids: rows of the embedding table */
    int classes;      /* outputs of the head */
    int positions;    /* learned positions: rows of their table; 0: any length */
} rf_model_input;

/* The input a checkpoint's model takes, from its tensors' shapes
 * (embed.tokens or embed.features.weight, head.fc.weight,
 * embed.positions). Fails naming the file when one is missing. */
bool rf_model_input_read(const char *checkpoint, rf_model_input *in, rf_status *st);

/* True when ds gives what `in` takes; otherwise false with one sentence
 * "<what> gives <the data's input and classes>; the checkpoint's model
 * takes <its input and classes>", e.g. "data.task=fashion_mnist gives 784
 * positions of 1 feature and 10 classes; the checkpoint's model takes
 * tokens (vocabulary 16) and 10 classes". */
bool rf_model_input_fits(const rf_model_input *in, const rf_dataset *ds, const char *what, rf_status *st);

/* Whether two models, opened on data sets `a` (task_a, from file_a) and
 * `b` (task_b, file_b), take the same input: the same data task, features
 * per position (or vocabulary, for tokens), input length and classes. If
 * not, false with one sentence "<file_b> cannot be compared with <file_a>:
 * their models differ in data.task image_folder against listops, classes
 * 2 against 10" (b's value first). */
bool rf_model_inputs_comparable(const char *task_a, const rf_dataset *a, const char *file_a, const char *task_b,
                                const rf_dataset *b, const char *file_b, rf_status *st);

#endif
