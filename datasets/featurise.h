/* What every task's featurise hook (core/data.h) shares: naming the input
 * in its one-sentence refusal, telling what a file is when it is not what
 * the model takes, and reading a text input from a string or a file.
 *
 * Messages read "INPUT: what differs", INPUT being the path or the text
 * quoted ("the text '[MAX 2 3 ]'", cut at 40 characters). */
#ifndef RF_DATASETS_FEATURISE_H
#define RF_DATASETS_FEATURISE_H

#include <stddef.h>

#include "../core/data.h"

/* The one entry point for a user's input (the CLI's inspect --input and
 * predict, the workbench's Inspect File): x (seq_len * max(1, feat_dim)
 * floats) zero-filled, then a NumPy .npy file read as the model's input
 * itself (npy_input.h), anything else through ds->featurise. A data set
 * without the hook refuses by name. */
bool rf_dataset_featurise(const rf_dataset *ds, const char *path, const char *text, float *x, int *len,
                          rf_status *st);

/* A text input (a file or a string) holds at most this many bytes. */
#define RF_INPUT_MAX_TEXT ((size_t)16 << 20)

/* The input's name for messages, written into buf. */
const char *rf_input_name(const char *path, const char *text, char *buf, size_t size);

/* What the file at `path` holds, for a refusal: "an image (png)", "an audio
 * clip (wav)", "a NumPy array", "text" or "binary data" (g_free); NULL
 * when it cannot be read (the decoder's own message says why). */
char *rf_input_kind(const char *path);

/* The input as text: `text` itself or the file at `path` read whole. A
 * file that is not text fails with "PATH is an image (png), but this
 * listops model takes text (`wants`)". g_malloc'd; NULL on failure. */
char *rf_input_text(const rf_dataset *ds, const char *path, const char *text, const char *wants, rf_status *st);

/* rf_input_text for inputs of one line (a TSV row): the line without its
 * end, surrounding blank lines ignored; a second line is refused. */
char *rf_input_line(const rf_dataset *ds, const char *path, const char *text, const char *wants, rf_status *st);

/* For the file tasks (images, audio): text given where a file is wanted is
 * refused with "the text '...' is text, but this fashion_mnist model takes
 * `wants`". Returns false (st filled) when text was given. */
bool rf_input_needs_file(const rf_dataset *ds, const char *path, const char *text, const char *wants,
                         rf_status *st);

#endif
