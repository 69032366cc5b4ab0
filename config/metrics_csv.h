/* A run's metrics.csv: header `step,split,loss,accuracy,lr,seconds`, one row
 * per rf_metrics, flushed as it is written (a killed process loses nothing
 * written) and fsync'd by rf_metrics_csv_sync before each checkpoint (so
 * not even a power cut loses a row the checkpoint covers). `seconds` is
 * training time summed over every invocation of the run (a resumed run
 * continues from the last kept row). */
#ifndef RF_CONFIG_METRICS_CSV_H
#define RF_CONFIG_METRICS_CSV_H

#include <glib.h>

#include "../core/train.h"

typedef struct rf_metrics_csv rf_metrics_csv;

/* A new file with just the header, replacing any old one. */
rf_metrics_csv *rf_metrics_csv_create(const char *path, GError **error);

/* Continue the file of a run resumed at `step`: rows after `step` (logged
 * after the checkpoint the run resumes from) and a row cut short are cut
 * off first, so every step is in the file exactly once. A missing file
 * starts afresh. */
rf_metrics_csv *rf_metrics_csv_resume(const char *path, int64_t step, GError **error);

gboolean rf_metrics_csv_write(rf_metrics_csv *c, const rf_metrics *m, GError **error);
/* Every row written so far on disk (fsync). */
gboolean rf_metrics_csv_sync(rf_metrics_csv *c, GError **error);
void rf_metrics_csv_close(rf_metrics_csv *c);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(rf_metrics_csv, rf_metrics_csv_close)

#endif
