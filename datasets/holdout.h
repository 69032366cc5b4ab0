/* The seeded train/val/test split of the folder-like tasks (text_folder,
 * npy), as image_folder and audio_folder make theirs: a shuffle seeded by
 * train.seed and the task's stream; test = the first data.test_size, val =
 * the next data.val_size, train = the first data.train_size of the rest.
 * When val + test would leave no training item, each is capped at a
 * quarter of the items, with a warning naming `root`. With a fixed test
 * part (path/train + path/test, x_test.npy), test is that part whole and
 * only val is drawn from the pool. */
#ifndef RF_DATASETS_HOLDOUT_H
#define RF_DATASETS_HOLDOUT_H

#include <stdint.h>

#include "../core/config.h"
#include "../core/data.h"

/* Items 0 .. pool-1 are shuffled; items pool .. pool+fixed_test-1 are the
 * fixed test part (fixed_test 0: none). order[s] gets size[s] item numbers
 * (malloc'd, at least one slot; free each). `what` names the items in the
 * warning ("files", "rows"). */
bool rf_holdout_split(const char *root, const char *what, int64_t pool, int64_t fixed_test, const rf_config *cfg,
                      uint64_t stream, int64_t *order[RF_SPLIT_COUNT], int64_t size[RF_SPLIT_COUNT], rf_status *st);

#endif
