/* A model rebuilt from a checkpoint, for the verbs that read one (eval,
 * inspect, predict): the config saved in it (with --set changes that do not
 * shape the model: any data set whose input and classes fit the model,
 * model_input.h), its data set, and a trainer holding the saved parameters. */
#ifndef RF_APP_SAVED_MODEL_H
#define RF_APP_SAVED_MODEL_H

#include <glib.h>

#include "../core/train.h"

typedef struct rf_saved_model {
    rf_config cfg;          /* the effective config */
    int64_t step;           /* steps the checkpoint had finished (a curriculum's counted on over its stages) */
    rf_dataset *ds;
    rf_trainer *trainer;
} rf_saved_model;

/* rf_checkpoint_read_config, --set (RF_CHANGE_KEEP_MODEL; a checkpoint
 * trained on a GPU runs on the CPU, with a warning, where no GPU is usable
 * and --set does not name train.device), rf_dataset_open,
 * rf_model_input_fits, rf_trainer_new (rf_trainer_new_forward with
 * forward_only: for verbs that need no gradient), rf_trainer_load. On
 * failure what was built stays in `sm` for rf_saved_model_clear. */
gboolean rf_saved_model_open(rf_saved_model *sm, const char *checkpoint, const char *const *sets,
                             gboolean forward_only, GError **error);
void rf_saved_model_clear(rf_saved_model *sm);

/* Class probabilities of inputs in[0, rows) into probs (rows x classes, in
 * their own order), forward only, shortest first, data.batch at a time: the
 * engine runs a batch only as long as its longest input (the length
 * buckets of core/train.c), so callers pass a window of several batches. */
bool rf_saved_model_classify(rf_saved_model *sm, const rf_outside_input *in, int rows, float *probs, rf_status *st);

#endif
