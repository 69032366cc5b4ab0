/* A folder of labelled text files (data.task = text_folder), read as bytes
 * as the Long Range Arena's byte-level Text task reads IMDb reviews.
 *
 * data.path/<class>/... : one folder per class, the classes numbered in
 * sorted (byte) order of their names; files may lie in folders below the
 * class folder (they belong to it). With data.path/train/<class>/ and
 * data.path/test/<class>/ the split is fixed: test is test/ whole, val is
 * drawn from train/.
 *
 * Every file is a sample: its first data.max_len bytes, each byte b the
 * token id b + 1 (ids 1..256, 0 is padding; vocab 257). Any byte is fine:
 * the text need not be UTF-8. Hidden entries (".name", so .DS_Store too),
 * Thumbs.db and __MACOSX/ are ignored silently; symbolic links are
 * followed, a folder reached twice (a link loop) is read once. An empty
 * file, a file that cannot be read, a special file (FIFO, device) or a
 * file outside any class folder is skipped with a warning, or is an error
 * under data.strict = true. A class folder without a usable file is an
 * error naming it.
 *
 * Only data.max_len bytes of a file are ever read, so no file size is too
 * large; rf_text_folder_truncated counts the files cut.
 *
 * Splits: as holdout.h (seeded by train.seed). */
#ifndef RF_DATASETS_TEXT_FOLDER_H
#define RF_DATASETS_TEXT_FOLDER_H

#include "../core/config.h"
#include "../core/data.h"

#define RF_TEXT_FOLDER_VOCAB 257

rf_dataset *rf_text_folder_open(const rf_config *cfg, rf_status *st);

/* Files cut to data.max_len bytes while loading (0 for other data sets). */
int64_t rf_text_folder_truncated(const rf_dataset *ds);

/* Bytes as printable UTF-8 for display: valid UTF-8 kept, tabs and line
 * breaks as spaces, other control bytes and invalid bytes as U+00B7 '·';
 * at most `size` - 1 bytes, cut with "…" when the text is longer. */
void rf_text_folder_printable(const uint8_t *bytes, size_t n, char *buf, size_t size);

#endif
