/* A curriculum: stages that train before a run's own config, each one the
 * run's config with a few data and schedule keys changed, each starting
 * from the weights the stage before ended with (the optimiser and its step
 * afresh, as `train --init` does). ListOps' long expressions are learned
 * past the first-token shortcut only this way (docs/reproduction.md).
 *
 * In a config file it is one value, train.curriculum: the stages before the
 * run's own, separated by ';', each a list of section.key=value separated
 * by spaces, each naming its train.steps:
 *
 *   curriculum = data.min_len=20 data.max_len=100 data.train_size=20000 train.steps=3000;
 *                data.min_len=100 data.max_len=500 data.train_size=20000 train.steps=3000
 *
 * (on one line). The run's own config is the last stage. train.stage is the
 * stage a checkpoint was saved in, so `train --resume` goes on there; set
 * in a new run's config it starts at that stage. Steps count on across the
 * stages in metrics.csv: a stage begins where the one before ended.
 */
#ifndef RF_CURRICULUM_H
#define RF_CURRICULUM_H

#include <stdint.h>

#include "config.h"

#define RF_CURRICULUM_MAX 8   /* stages, the run's own included */

/* Stages, the run's own included: 1 without a curriculum. Only for a
 * config that passed rf_curriculum_check (rf_config_validate calls it). */
int rf_curriculum_count(const rf_config *run);

/* The curriculum parses, names only keys a stage may change (data keys
 * that leave the model's inputs alone, optimiser and schedule keys), gives
 * each stage its train.steps, makes valid stage configs, and train.stage
 * is one of its stages. Errors name the stage and the assignment. */
bool rf_curriculum_check(const rf_config *run, rf_status *st);

/* Stage k's config (0 <= k < rf_curriculum_count): the run's config with
 * that stage's assignments, train.curriculum empty and train.stage 0 (a
 * stage is a plain run). The last stage is the run's config itself. */
bool rf_curriculum_stage(const rf_config *run, int k, rf_config *out, rf_status *st);

/* The step at which stage k begins, counted over the whole curriculum
 * (the sum of the earlier stages' train.steps); k = count gives the total. */
int64_t rf_curriculum_first_step(const rf_config *run, int k);

/* A checkpoint's step (its stage's own) among the run's steps. */
int64_t rf_curriculum_run_step(const rf_config *run, int64_t stage_step);

#endif
