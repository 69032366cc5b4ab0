/* A run's metrics.csv: header `step,split,loss,accuracy,lr,seconds`, one row
 * per rf_metrics, flushed as it is written (a killed process loses nothing
 * written) and fsync'd by rf_metrics_csv_sync before each checkpoint (so
 * not even a power cut loses a row the checkpoint covers). `seconds` is
 * training time summed over every invocation of the run (a resumed run
 * continues from the last kept row).
 *
 * Each invocation also writes the rows as scalars to a TensorBoard event
 * file of its own in the same folder (tb_writer.h; tags in
 * docs/cli.md, TensorBoard), with the config as the HParams plugin's session
 * record; a resumed run's file starts with a SessionLog START just after the
 * step it resumes from, so TensorBoard drops the rows the CSV cuts off. */
#ifndef RF_CONFIG_METRICS_CSV_H
#define RF_CONFIG_METRICS_CSV_H

#include <glib.h>

#include "../core/train.h"
#include "tb_writer.h"

typedef struct rf_metrics_csv rf_metrics_csv;

/* A new file with just the header, replacing any old one; `cfg` is the
 * run's config (the hyperparameters TensorBoard shows). */
rf_metrics_csv *rf_metrics_csv_create(const char *path, const rf_config *cfg, GError **error);

/* Continue the file of a run resumed at `step`: rows after `step` (logged
 * after the checkpoint the run resumes from) and a row cut short are cut
 * off first, so every step is in the file exactly once. A missing file
 * starts afresh. */
rf_metrics_csv *rf_metrics_csv_resume(const char *path, int64_t step, const rf_config *cfg, GError **error);

gboolean rf_metrics_csv_write(rf_metrics_csv *c, const rf_metrics *m, GError **error);
/* Every row written so far on disk (fsync). */
gboolean rf_metrics_csv_sync(rf_metrics_csv *c, GError **error);
/* The HParams session's end: how the invocation ended (an invocation
 * stopped to resume later writes none). */
gboolean rf_metrics_csv_end(rf_metrics_csv *c, rf_tb_status status, GError **error);
void rf_metrics_csv_close(rf_metrics_csv *c);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(rf_metrics_csv, rf_metrics_csv_close)

#endif
