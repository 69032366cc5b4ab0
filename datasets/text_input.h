/* Text inputs (config files, TSV tables, metrics CSV) must be UTF-8 text
 * without NUL bytes. Anything else (a binary file, another encoding) is
 * refused where it first goes wrong, instead of being read only up to a NUL
 * byte (GKeyFile, strlen) or quoted into error messages as invalid UTF-8.
 * GLib only, so ui/plot links it without the decoders. */
#ifndef RF_DATASETS_TEXT_INPUT_H
#define RF_DATASETS_TEXT_INPUT_H

#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* NULL when the `len` bytes at `text` are UTF-8 without a NUL byte; else a
 * new string saying what is wrong and where, "LINE:COLUMN: byte 0xff is not
 * UTF-8 text", lines counted from `first_line`, columns in bytes from 1. */
char *rf_text_problem(const char *text, size_t len, int64_t first_line);

/* Text files are read whole up to this size: a config is at most 1 MiB
 * (ours are a few KiB), so a FIFO or /dev/zero named as one cannot make
 * the reader allocate without end. */
#define RF_TEXT_MAX_CONFIG ((size_t)1 << 20)

/* Tables (LRA and UCR TSV files) must be regular files of at most 4 GiB
 * (LRA's largest is about 0.7 GB) with lines of at most 64 MiB; a line is
 * read whole before its length is checked, so its buffer is bounded by
 * the file's size. rf_text_check_table says why a file is refused (a new
 * string, "PATH: ..."), or NULL. */
#define RF_TEXT_MAX_TABLE ((int64_t)4 << 30)
#define RF_TEXT_MAX_LINE ((size_t)64 << 20)
char *rf_text_check_table(FILE *f, const char *path);
/* A line of such a table just read by getline (`*n` bytes at `line_text`,
 * line number `line`): NULL when it is at most RF_TEXT_MAX_LINE bytes of
 * UTF-8 text, its line end ("\n", "\r\n") then cut off in place (*n
 * shrinks); else a new string "PATH:LINE:..." saying why not. */
char *rf_text_table_line(const char *path, char *line_text, ssize_t *n, int64_t line);

/* Reads the table file `path` a line at a time under the two checks above
 * and calls row(ctx, line, text) for each line that is not blank (its line
 * end cut off); blank lines may only end the file. Stops early when `row`
 * returns false: for the caller's own reason (an error it has recorded, or
 * rows enough), so that is not an error here. Returns NULL, or a new string
 * "PATH...: ..." naming what is wrong with the file itself; *lines gets the
 * number of lines read. */
typedef gboolean (*rf_text_row_fn)(void *ctx, int64_t line, char *text);
char *rf_text_table_each(const char *path, rf_text_row_fn row, void *ctx, int64_t *lines);

/* The whole file (NUL-terminated, g_free) when it holds at most `max` bytes;
 * else NULL with an error starting with `path` that states the limit. Reads
 * at most max + 1 bytes, whatever the file (a pipe, a device). */
char *rf_text_read_file(const char *path, size_t max, size_t *len, GError **error);

/* g_key_file_load_from_file for a text file that holds a group header
 * before any key (an empty file, or one of comments only, is an empty key
 * file), at most RF_TEXT_MAX_CONFIG bytes. Every message starts with `path`. */
gboolean rf_text_load_key_file(GKeyFile *kf, const char *path, GError **error);

#endif
