/* A sweep's results table (`rangefinder sweep`): one row per trial begun,
 * written after every trial to SWEEPDIR/sweep.csv and sweep.json, each
 * replaced atomically; `plot --parallel` reads the CSV back.
 *
 *   trial,model.encoder,train.lr,status,reason,best_val_accuracy,final_val_accuracy,steps,seconds,folder
 *   1,ls,0.0003,finished,,0.42,0.41,200,31.5,trial-001
 *
 * Status is finished, stopped early (the reason says at which step and
 * why), failed (the reason is the error) or interrupted (it goes on when
 * the sweep is run again). Metrics with no evaluation are empty. */
#ifndef RF_APP_SWEEP_TABLE_H
#define RF_APP_SWEEP_TABLE_H

#include <glib.h>
#include <stdint.h>

#include "../config/sweep_results.h"

/* Write sweep.csv and sweep.json into `dir`. */
gboolean rf_sweep_table_write(const rf_sweep *s, const GArray *rows, const char *dir, GError **error);

#endif
