/* What loading a folder of files did, told as the folder tasks tell it
 * (image_folder, audio_folder): skipped files, formats read, progress. */
#ifndef RF_DATASETS_FOLDER_REPORT_H
#define RF_DATASETS_FOLDER_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/status.h"

/* Skipped files: the first RF_SKIPS_NAMED are warnings of their own, the
 * rest one warning with their count; under data.strict the first is the
 * error. */
#define RF_SKIPS_NAMED 5

typedef struct rf_skips {
    rf_status *st;
    bool strict;
    int64_t count;
} rf_skips;

/* message: "PATH: problem". Returns false (the error set) under strict. */
bool rf_skips_add(rf_skips *s, const char *message);

/* The warning counting the files not named one by one, if any. */
void rf_skips_finish(rf_skips *s);

/* Files read per format, by name (interned or static strings), in the
 * order first seen; formats beyond RF_FORMAT_KINDS are counted as other. */
#define RF_FORMAT_KINDS 24

typedef struct rf_format_counts {
    const char *name[RF_FORMAT_KINDS];
    int64_t count[RF_FORMAT_KINDS];
    int kinds;
    int64_t other;
} rf_format_counts;

void rf_format_counts_add(rf_format_counts *c, const char *name);

/* "12 png, 3 jpeg" (empty when nothing was read). */
void rf_format_counts_text(const rf_format_counts *c, char *buf, size_t size);

/* Progress of a long load, for a front end's progress bar: fn gets
 * (what, done, total) at most about once per thousandth of the way and at
 * the end, from whichever thread made the progress, one call at a time.
 * Set it before loading starts; NULL turns it off. */
typedef void (*rf_load_progress_fn)(const char *what, int64_t done, int64_t total, void *ctx);
void rf_load_progress_set(rf_load_progress_fn fn, void *ctx);

/* For the loaders: `done` of `total` files read. Thread-safe. */
void rf_load_progress(const char *what, int64_t done, int64_t total);

#endif
