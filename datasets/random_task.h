/* The random task (data.task = random): every sample has exactly
 * data.max_len tokens uniform in [1, data.vocab) and a label uniform in
 * [0, data.classes), a pure function of (train.seed, split, index) computed
 * in get(). Nothing is stored, so it serves benchmarks and memory checks at
 * any length; there is nothing to learn beyond memorising the training set. */
#ifndef RF_RANDOM_TASK_H
#define RF_RANDOM_TASK_H

#include "../core/config.h"
#include "../core/data.h"

rf_dataset *rf_random_task_open(const rf_config *cfg, rf_status *st);

#endif
