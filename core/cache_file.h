/* The files under the user's cache folder that keep what was timed on this
 * CPU (the matrix-product choices, core/gemm_cache.h; the kernels' tiles,
 * core/tiles_cache.h), and the rules they share: a header line, then one
 * line per choice, tab-separated; the file is checked whole when read
 * (one bad line makes all of it untrusted) and replaced atomically
 * (core/atomic_file.h). Every line names the CPU it was timed on
 * (rf_cpu_key, core/cpu/cpu_features.h); lines of other CPUs are kept and
 * never used.
 */
#ifndef RF_CACHE_FILE_H
#define RF_CACHE_FILE_H

#include <stdbool.h>

#include "atomic_file.h"
#include "status.h"

/* $XDG_CACHE_HOME/rangefinder/NAME (~/.cache/rangefinder/NAME without
 * XDG_CACHE_HOME), malloc'd; NULL when there is neither. */
char *rf_cache_file_path(const char *name);

/* Parses one line (without its newline, writable) into the caller's
 * storage; returns NULL, or the problem in a few words. */
typedef const char *(*rf_cache_line_fn)(char *line, void *ctx);

/* Read `path`: its first line must be `header`, every other line goes to
 * parse. A missing file is an empty one (true). False, with the file, the
 * line and the problem in st, at the first line that is cut short, too
 * long, one too many (max_lines) or refused by parse. */
bool rf_cache_file_read(const char *path, const char *header, int max_lines, rf_cache_line_fn parse, void *ctx,
                        rf_status *st);

/* Replace `path` with what fill writes, creating its folders. */
bool rf_cache_file_write(const char *path, rf_atomic_fill fill, void *ctx, rf_status *st);

/* The same for a file of records of `size` bytes each: read parses each
 * line into a new record of *out (malloc'd, *count of them; NULL and 0
 * when the file is untrusted or missing); write writes the header, then
 * each record as format puts it in buf (one line with its newline). */
typedef const char *(*rf_cache_record_fn)(char *line, void *record);
typedef int (*rf_cache_format_fn)(const void *record, char *buf, size_t size);
bool rf_cache_records_read(const char *path, const char *header, int max_lines, size_t size,
                           rf_cache_record_fn parse, void **out, int *count, rf_status *st);
bool rf_cache_records_write(const char *path, const char *header, const void *records, int count, size_t size,
                            rf_cache_format_fn format, rf_status *st);

/* Split `line` at its tabs into exactly n fields (NUL-terminated in
 * place); false when it has more or fewer. */
bool rf_cache_fields(char *line, char **field, int n);

/* A decimal integer in [lo, hi], the whole text. */
bool rf_cache_parse_int(const char *text, int lo, int hi, int *out);

/* A finite, positive number of seconds, the whole text. */
bool rf_cache_parse_seconds(const char *text, double *out);

#endif
