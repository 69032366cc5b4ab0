/* The record of one training run as the plots see it: its name, config and
 * every metrics row, plus what was measured. The workbench appends rows as
 * the worker reports them; `rangefinder plot RUN_DIR` loads them from the
 * run directory that `rangefinder train` wrote (metrics.csv, config.ini).
 */
#ifndef RF_RUN_DATA_H
#define RF_RUN_DATA_H

#include <glib.h>

#include "../../core/train.h"

/* An optimiser key changed while the run trained (the workbench's live
 * edits of train.lr, train.clip, ...). */
typedef struct rf_run_change {
    int64_t step;               /* the first step trained with the new value; -1 until the trainer took it */
    guint64 serial;             /* the edit's number, which the trainer reports back when it takes it */
    char key[32];
    char before[64], after[64];
} rf_run_change;

typedef struct rf_run_data {
    char *name;                 /* shown in legends and tables: run.ini's name or the run folder's
                                   (2026-11-27_130405-listops-blrp), "listops · blrp" without a folder */
    char *dir;                  /* the run folder it was loaded from or is written to, or NULL */
    int color;                  /* rf_series_color index, the same in every figure: the run folder's
                                   (rf_run_folder_color) or the session's pick; -1: by position */
    rf_config cfg;
    GArray *rows;               /* rf_metrics, in the order reported (all splits) */
    GArray *changes;            /* rf_run_change, in the order made */
    int64_t params;             /* trainable floats; 0 unknown */
    double planned_bytes;       /* the memory planner's total; 0 unknown */
    double peak_bytes;          /* measured engine peak; 0 unknown */
    double median_step_seconds; /* over train rows; 0 unknown */
    double baseline_majority;   /* validation accuracy without a model (baselines.ini); NaN unknown */
    double baseline_first_token;
    gboolean tensorboard;       /* read from TensorBoard event files (tb_run_data.h): no config of ours */
} rf_run_data;

rf_run_data *rf_run_data_new(const char *name, const rf_config *cfg);
void rf_run_data_free(rf_run_data *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(rf_run_data, rf_run_data_free)

void rf_run_data_append(rf_run_data *r, const rf_metrics *m);
/* Record that `key` went from `before` to `after` in edit number `serial`
 * (step -1: not yet taken), and that every edit up to `serial` was taken
 * before step `step`. */
void rf_run_data_add_change(rf_run_data *r, guint64 serial, const char *key, const char *before, const char *after);
void rf_run_data_changes_taken(rf_run_data *r, guint64 serial, int64_t step);
/* Rows of one split: count, and the i-th (NULL past the end). */
guint rf_run_data_count(const rf_run_data *r, rf_split split);
/* The last row of a split, or NULL. */
const rf_metrics *rf_run_data_last(const rf_run_data *r, rf_split split);
/* Best validation accuracy so far (NaN when none). */
double rf_run_data_best_val(const rf_run_data *r);
/* Recompute median_step_seconds from the train rows. */
void rf_run_data_update_summary(rf_run_data *r);

/* Load DIR/metrics.csv (and DIR/config.ini and DIR/baselines.ini when
 * present; a missing config keeps defaults) as written by `rangefinder
 * train`. Every malformed line is an error naming the file and the line. The name is run.ini's name, else
 * the directory's base name; the colour the folder's (rf_run_folder_color); `dir` is the directory.
 * A folder without metrics.csv that holds TensorBoard event files is read
 * from those (rf_run_data_load_tensorboard, tb_run_data.h). */
rf_run_data *rf_run_data_load_dir(const char *dir, GError **error);

/* The comparison table (final accuracy, best val accuracy, test accuracy,
 * step time, planned and peak memory, parameters, and the config keys that
 * differ between the runs) as CSV, written atomically. */
gboolean rf_run_data_write_table_csv(rf_run_data *const *runs, guint n, const char *path, GError **error);
/* Every metrics row of a run as CSV (step,split,loss,accuracy,lr,seconds,step_seconds), atomically. */
gboolean rf_run_data_write_metrics_csv(const rf_run_data *r, const char *path, GError **error);

#endif
