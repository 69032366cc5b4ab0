/* data.task = audio_folder: labelled clips in class folders, as log-mel
 * spectrograms.
 *
 * Layout: data.path/<class>/...; or, for a fixed split,
 * data.path/train/<class>/... and data.path/test/<class>/... (what
 * `rangefinder make-dataset spoken-digits` writes). Every file below a
 * class folder, at any depth, is a candidate (folder_walk.h: hidden
 * files, Thumbs.db and __MACOSX/ ignored, links followed once); files
 * directly in data.path and, for a fixed split, everything at the root but
 * train/ and test/ are ignored. Classes are the class folder names in byte
 * order (train/'s and test/'s together for a fixed split); a class left
 * with no usable clip (in train/ for a fixed split) is dropped with a
 * warning and its test clips with it.
 *
 * Each clip is decoded by libsndfile, whatever its name (every format it
 * opens; the formats are counted in the stats), averaged to mono,
 * resampled to data.sample_rate (libsamplerate, SRC_SINC_FASTEST) and
 * turned into log-mel features (logmel.h: 25 ms Hann window, 10 ms hop,
 * data.mel_bins HTK filters, at most data.max_frames frames). A file that
 * cannot be used (unreadable, not audio, truncated, empty) is skipped with
 * a warning "rangefinder: warning: FILE: problem (skipped)" (the first
 * few; the rest counted in one line, folder_report.h) and counted; with
 * data.strict = true it is an error instead.
 *
 * Samples: one token per frame, so seq_len = data.max_frames, feat_dim =
 * data.mel_bins, grid_h = grid_w = 0 (a 1-D sequence over time); a clip's
 * length is its frame count and the engine pads and masks the rest. get()
 * returns (x - mean) / std with one mean and std over every frame and bin
 * of the training split (as AST normalises with data-set statistics).
 *
 * Splits: with train/ and test/ the test split is the whole test folder
 * and val is a seeded draw of data.val_size clips from train/; otherwise
 * a seeded shuffle (train.seed) of every clip holds out data.test_size
 * clips for test and data.val_size for val. The rest, at most
 * data.train_size clips, is the training split. Hold-outs that leave no
 * training clip are an error.
 *
 * With data.cache = on, features are cached in data.path/.rangefinder-cache
 * (feature_cache.h), so a second open decodes nothing; a cache that cannot
 * be written is a single warning, never an error.
 */
#ifndef RF_DATASETS_AUDIO_FOLDER_H
#define RF_DATASETS_AUDIO_FOLDER_H

#include "../core/config.h"
#include "../core/data.h"
#include "folder_report.h"

rf_dataset *rf_audio_folder_open(const rf_config *cfg, rf_status *st);

/* What loading did. */
typedef struct rf_audio_folder_stats {
    int64_t clips;            /* usable clips in the three splits */
    int64_t skipped;          /* files skipped with a warning */
    int64_t empty_classes;    /* class folders dropped for want of clips */
    int64_t cache_hits;       /* clips whose features came from the cache */
    int64_t cache_rejected;   /* cache entries that failed validation and were recomputed */
    int64_t cache_written;    /* entries written */
    double audio_seconds;     /* length of the usable clips, before the crop */
    rf_format_counts formats; /* usable clips per format */
} rf_audio_folder_stats;

/* False when ds is not an audio folder. */
bool rf_audio_folder_get_stats(const rf_dataset *ds, rf_audio_folder_stats *out);

/* The rate (Hz) the clips were resampled to, or 0 when ds is not an audio folder. */
int rf_audio_folder_sample_rate(const rf_dataset *ds);

/* Silence as a sample's features: the log-mel of a zero signal (every
 * band at the featuriser's floor, log(1e-10)) normalised as the clips are,
 * into len x feat_dim floats. False when ds is not an audio folder. */
bool rf_audio_folder_silence(const rf_dataset *ds, float *x, int len);

/* The full path of a sample's file, or NULL (borrowed, valid while ds lives). */
const char *rf_audio_folder_file(const rf_dataset *ds, rf_split split, int64_t index);

/* A sample's log-mel features before normalisation: [*frames x mel_bins]
 * floats, borrowed, valid while ds lives. NULL with a message if there is
 * no such sample. */
const float *rf_audio_folder_logmel(const rf_dataset *ds, rf_split split, int64_t index, int *frames,
                                    rf_status *st);

/* A sample's waveform as the features saw it: the file decoded again, mono
 * at data.sample_rate, up to the samples the kept frames cover. malloc'd
 * (free()); NULL with a message when the file is gone or changed into
 * something unreadable. */
float *rf_audio_folder_waveform(const rf_dataset *ds, rf_split split, int64_t index, int64_t *n, rf_status *st);

#endif
