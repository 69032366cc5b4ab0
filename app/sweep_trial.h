/* One trial of a sweep: a normal run folder SWEEPDIR/trial-NNN (so plot,
 * eval and the Runs view read it) plus trial.ini, written when the trial
 * ends, [trial] status= and reason=, which a sweep run again reads to skip
 * it. */
#ifndef RF_APP_SWEEP_TRIAL_H
#define RF_APP_SWEEP_TRIAL_H

#include <glib.h>
#include <stdint.h>

#define RF_SWEEP_TRIAL_FILE "trial.ini"

/* The validation rows of a trial's metrics.csv, and how far it got. */
typedef struct rf_trial_metrics {
    GArray *steps;         /* int64_t, one per validation row */
    GArray *loss;          /* double */
    GArray *accuracy;      /* double */
    int64_t last_step;     /* over every row; 0 when none */
    double seconds;        /* training time at the last row */
} rf_trial_metrics;

/* "trial-003" for index 2. */
char *rf_trial_folder_name(int index);

/* Read DIR/metrics.csv (a missing file: no rows). */
void rf_trial_metrics_read(const char *dir, rf_trial_metrics *m);
void rf_trial_metrics_clear(rf_trial_metrics *m);

/* The metric (loss or accuracy) at validation row i. */
double rf_trial_metric_at(const rf_trial_metrics *m, guint i, gboolean loss);
/* The metric at exactly `step`; NaN when the trial was not evaluated there. */
double rf_trial_metric_at_step(const rf_trial_metrics *m, int64_t step, gboolean loss);
/* The best (highest accuracy, lowest loss) over the rows up to `step`
 * (all rows: G_MAXINT64), and how many there were, into *count. NaN: none. */
double rf_trial_best(const rf_trial_metrics *m, int64_t step, gboolean loss, int *count);

/* DIR/trial.ini's status and reason (both NULL when the trial has not ended). */
void rf_trial_ended_read(const char *dir, char **status, char **reason);
gboolean rf_trial_ended_write(const char *dir, const char *status, const char *reason, GError **error);

#endif
