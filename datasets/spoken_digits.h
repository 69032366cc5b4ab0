/* `rangefinder make-dataset spoken-digits`: the words zero..nine spoken by
 * espeak-ng, as an audio folder with a fixed train/test split.
 *
 * Every usable English espeak-ng voice (`espeak-ng --voices=en`, MBROLA
 * mb/ voices left out: their voice data is not installed) speaks each word
 * plainly and with a number of voice variants (+m1, +f1, +m2, ... those
 * `espeak-ng --voices=variant` lists), at each speed and pitch, one
 * espeak-ng process per file, run with an argument vector:
 *   espeak-ng -v FILE[+VARIANT] -s SPEED -p PITCH -w OUT WORD
 * where FILE is the voice's file name (gmw/en-US): espeak-ng 1.51 drops the
 * variant of a language name such as en-gb+m3.
 *
 *   DIR/train/<word>/<voice>[+<variant>]_s<speed>_p<pitch>.wav
 *   DIR/test/<word>/...
 *   DIR/README.txt   how the set was made
 *
 * The split is by voice, so test voices are unseen in training. Accent
 * voices share most of their rules (en-us-nyc says most digits exactly as
 * en-us does), so voices that produce a byte-identical file anywhere form
 * one voice group, and whole groups go to test: of the groups in name
 * order, `test_groups` evenly spaced ones (group i of n when
 * (i + 1) * t / n > i * t / n). Then each file identical to an earlier one
 * (train before test, in voice, variant, speed, pitch, word order) is
 * deleted, so no clip appears twice.
 *
 * Files are 16-bit mono WAV at 22,050 Hz (espeak-ng's rate). Each is
 * written under a hidden temporary name in DIR/.staging, checked with
 * libsndfile and renamed, and moved to train/ or test/ once the groups are
 * known; a re-run keeps the files that exist and makes the rest.
 */
#ifndef RF_DATASETS_SPOKEN_DIGITS_H
#define RF_DATASETS_SPOKEN_DIGITS_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/status.h"

#define RF_SPOKEN_DIGITS_MAX_LIST 16

/* What a run made. */
typedef struct rf_spoken_digits_result {
    int64_t train, test;    /* files in each split */
    int64_t duplicates;     /* identical files deleted */
    int voices, groups;
} rf_spoken_digits_result;

typedef struct rf_spoken_digits_options {
    const char *program;    /* the synthesiser, looked up in PATH: "espeak-ng" */
    int max_voices;         /* base voices, the first in name order; 0: all usable */
    int test_groups;        /* voice groups held out for test */
    int variants;           /* variants per base voice besides the plain voice */
    int speeds[RF_SPOKEN_DIGITS_MAX_LIST];    /* words per minute, 80..450 */
    int n_speeds;
    int pitches[RF_SPOKEN_DIGITS_MAX_LIST];   /* 0..99 */
    int n_pitches;
    int jobs;               /* espeak-ng processes at once */
    /* Called after each synthesised (or found) file from the worker
     * threads, one call at a time; may be NULL. */
    void (*progress)(int64_t done, int64_t total, void *user);
    void *user;
    rf_spoken_digits_result *result;   /* filled in when not NULL */
} rf_spoken_digits_options;

/* All voices with 2 groups in test, 5 variants (6 voicings per voice),
 * speeds 130, 160, 190, pitches 35, 50, 65, 2 jobs. */
void rf_spoken_digits_defaults(rf_spoken_digits_options *opt);

bool rf_spoken_digits_make(const char *out_dir, const rf_spoken_digits_options *opt, rf_status *st);

#endif
