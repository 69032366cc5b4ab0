/* Text inputs (config files, TSV tables, metrics CSV) must be UTF-8 text
 * without NUL bytes. Anything else (a binary file, another encoding) is
 * refused where it first goes wrong, instead of being read only up to a NUL
 * byte (GKeyFile, strlen) or quoted into error messages as invalid UTF-8.
 * GLib only, so ui/plot links it without the decoders. */
#ifndef RF_DATASETS_TEXT_INPUT_H
#define RF_DATASETS_TEXT_INPUT_H

#include <glib.h>
#include <stdint.h>

/* NULL when the `len` bytes at `text` are UTF-8 without a NUL byte; else a
 * new string saying what is wrong and where, "LINE:COLUMN: byte 0xff is not
 * UTF-8 text", lines counted from `first_line`, columns in bytes from 1. */
char *rf_text_problem(const char *text, size_t len, int64_t first_line);

/* g_key_file_load_from_file for a text file that holds a group header
 * before any key (an empty file, or one of comments only, is an empty key
 * file). Every message starts with `path`. */
gboolean rf_text_load_key_file(GKeyFile *kf, const char *path, GError **error);

#endif
