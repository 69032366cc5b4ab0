/* Which keys may differ between the config saved with a run and the config
 * a verb is about to use on it (after --set). */
#ifndef RF_APP_CONFIG_DIFF_H
#define RF_APP_CONFIG_DIFF_H

#include <glib.h>

#include "../core/config.h"

typedef enum rf_change_policy {
    RF_CHANGE_KEEP_MODEL,      /* eval: anything but the model section's keys (another data set
                                  is checked against the checkpoint once open: model_input.h) */
    RF_CHANGE_SCHEDULE_ONLY,   /* resume: optimiser, schedule, steps, eval, checkpoint, log, threads */
} rf_change_policy;

/* Fails on the first key (in table order) that changed against the policy,
 * naming it with both values. */
gboolean rf_config_check_changes(const rf_config *saved, const rf_config *wanted, rf_change_policy policy,
                                 GError **error);

/* The data keys that differ, "data.task=lra_tsv data.path=DIR" (g_free), or
 * NULL when the data set is the saved one. */
char *rf_config_data_changes(const rf_config *saved, const rf_config *wanted);

#endif
