/* Turning one sample of a data set into the Data view's figure, by what the
 * data set holds: pictures for images, waveform and spectrogram for audio
 * folders, the expression for ListOps, the bytes of a text, a line or strip
 * for the rest.
 * GTK-free, so the headless test drives it with real data sets. */
#ifndef RF_DATA_SAMPLE_H
#define RF_DATA_SAMPLE_H

#include <stddef.h>

#include "../../core/data.h"
#include "../figures/sample_figure.h"

/* What kind of sample view a data set gets. */
typedef enum rf_data_kind {
    RF_DATA_PICTURE,    /* grid_h x grid_w patches of pixels */
    RF_DATA_AUDIO,      /* an audio folder: clips with files */
    RF_DATA_LISTOPS,    /* ListOps token ids (listops, lra_tsv) */
    RF_DATA_TEXT,       /* byte token ids of texts (text_folder) */
    RF_DATA_SEQUENCE,   /* anything else */
} rf_data_kind;

rf_data_kind rf_data_kind_of(const rf_dataset *ds);

/* The label of a sample ("Sneaker (class 7)", or "class 7" without class
 * names) into buf; x is scratch for ds->get (seq_len * max(1, feat_dim)
 * floats). False with the data set's message in buf when get fails. */
bool rf_data_sample_label(const rf_dataset *ds, rf_split split, int64_t index, float *x, char *buf, size_t size);

/* A class as text: "Sneaker (class 7)", or "class 7" without class names. */
void rf_data_class_text(const rf_dataset *ds, int label, char *buf, size_t size);

/* Show sample `index` of `split` in f (caption included; failures become the
 * figure's message). Returns the sample's audio file for playback, or NULL
 * (borrowed from ds). */
const char *rf_data_sample_show(rf_sample_figure *f, const rf_dataset *ds, rf_split split, int64_t index);

/* Show an input from outside the data set (its features x, len positions,
 * as the data set's featurise hook made them) marked as such. Returns its
 * audio file for playback, or NULL (path when ds is an audio folder). */
const char *rf_data_sample_show_inspected(rf_sample_figure *f, const rf_dataset *ds, const char *name,
                                          const char *path, const float *x, int len);

/* The text a user edits for a sample of a token data set: `text` itself
 * when the input was given as text, else a ListOps sample's tokens joined
 * by spaces (which featurise back to the same tokens). NULL where the
 * sample has no text form (pictures, audio, a text folder's bytes given as
 * a file). g_free. */
char *rf_data_sample_text(const rf_dataset *ds, const char *text, const float *x, int len);

#endif
