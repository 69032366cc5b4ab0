/* The weights a run keeps from its evaluations, so that earlier steps can
 * be looked at after the checkpoint has moved on (`rangefinder project
 * --step`, the Projector's step slider).
 *
 * At each validation of a run recorded in a folder (`rangefinder train`
 * and the workbench's runs alike) the model's parameters alone (no AdamW
 * moments: core/checkpoint.h's weights file) go to
 * RUN/weights/step-NNNNNN.safetensors, written atomically, and then the
 * folder is thinned to train.keep_weights files (0: nothing is written) by
 * rf_kept_weights_thin, so that the kept steps stay spread over the whole
 * run, the first and the latest always among them.
 */
#ifndef RF_KEPT_WEIGHTS_H
#define RF_KEPT_WEIGHTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"
#include "train.h"

#define RF_KEPT_WEIGHTS_DIR "weights"

/* Which of `n` kept steps (ascending) to delete so that at most `keep`
 * remain: drop[i] is set for each. While too many remain, the one whose
 * removal leaves the smallest gap between its neighbours goes (the
 * earliest of equals; never the first or the latest), so thinning a run
 * evaluated at a steady rate keeps its steps about evenly spread. With
 * keep 1 only the latest stays, with keep 0 none. Returns how many stay. */
int rf_kept_weights_thin(const int64_t *steps, int n, int keep, bool *drop);

/* RUN/weights/step-NNNNNN.safetensors into buf; false if it does not fit. */
bool rf_kept_weights_path(const char *run_dir, int64_t step, char *buf, size_t size);

/* The steps whose weights RUN/weights holds, ascending, in a malloc'd
 * array (*steps NULL and *count 0 when there are none or no such folder);
 * other files there are ignored. False, naming the folder, when it cannot
 * be read. */
bool rf_kept_weights_list(const char *run_dir, int64_t **steps, int *count, rf_status *st);

/* Write the trainer's weights as those of step `step` (the run's count)
 * into RUN/weights, then thin the folder to `keep` files (0: nothing is
 * written or removed). Errors name the file. The caller holds the run
 * folder's lock (config/run_lock.h). */
bool rf_kept_weights_save(rf_trainer *t, const char *run_dir, int64_t step, int keep, rf_status *st);

/* A run resumed from its checkpoint at `step` (the run's count) trains
 * the steps after it again: the weights kept past it, and the temporary
 * files of writes killed there, are removed. Errors name the file. */
bool rf_kept_weights_forget_after(const char *run_dir, int64_t step, rf_status *st);

#endif
