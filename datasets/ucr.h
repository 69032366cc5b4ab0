/* UCR/UEA time-series classification archives (data.task = ucr).
 *
 * Files: NAME_TRAIN.tsv and NAME_TEST.tsv, each line a label then the
 * series' values, tab-separated. data.path is the folder holding exactly
 * one such pair (UCRArchive_2018/Adiac), the common prefix (.../Adiac/Adiac)
 * or the _TRAIN.tsv file itself.
 *
 * Labels (numbers) are numbered 0..C-1 in increasing order over both files;
 * class names are the labels as written ("%g"). Each position is one float
 * feature, the value as stored (the archive is already z-normalised); a
 * series ends at its first NaN (how the archive pads variable-length series)
 * and the data set's seq_len is the longest series. Any malformed line (a
 * bad number, a value after NaN, a different column count, a blank line
 * inside the table) is an error naming file:line[:column]: a table with a
 * hole is corrupt, so nothing is skipped.
 *
 * Splits: test = the first data.test_size of the test file; val =
 * data.val_size training series drawn by a shuffle seeded by train.seed
 * (capped at a quarter of the training file, with a warning, when it would
 * take all of it); train = the first data.train_size of the rest, in file
 * order. */
#ifndef RF_DATASETS_UCR_H
#define RF_DATASETS_UCR_H

#include "../core/config.h"
#include "../core/data.h"

/* A series holds at most this many values (data.max_len's own limit). */
#define RF_UCR_MAX_VALUES (1 << 22)

rf_dataset *rf_ucr_open(const rf_config *cfg, rf_status *st);

#endif
