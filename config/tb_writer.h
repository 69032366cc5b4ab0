/* A run's TensorBoard event file, written next to its metrics.csv so that
 * TensorBoard, W&B's sync_tensorboard and Aim read the run: scalars as
 * Summary values with simple_value (as PyTorch's SummaryWriter writes
 * them), the config as the HParams plugin's session records. Each record
 * goes to disk in one write(2) as soon as it is made, so a killed run
 * leaves a readable prefix (a reader drops a last record cut short).
 *
 * Every invocation of a run (the first, each resume) writes a file of its
 * own, events.out.tfevents.<unix time>.<host>.<pid>.<n>; TensorBoard reads
 * all the files of a folder in name order. */
#ifndef RF_CONFIG_TB_WRITER_H
#define RF_CONFIG_TB_WRITER_H

#include <glib.h>
#include <stdint.h>

#include "../core/config.h"

typedef struct rf_tb_writer rf_tb_writer;

/* The HParams plugin's session statuses (its api.proto's Status). */
typedef enum {
    RF_TB_STATUS_UNKNOWN = 0,
    RF_TB_STATUS_SUCCESS = 1,
    RF_TB_STATUS_FAILURE = 2,
    RF_TB_STATUS_RUNNING = 3,
} rf_tb_status;

/* A new event file in `dir`, starting with the file_version event
 * "brain.Event:2". */
rf_tb_writer *rf_tb_writer_open(const char *dir, GError **error);
const char *rf_tb_writer_path(const rf_tb_writer *w);

/* One event at `step` with n scalars (simple_value, float32). */
gboolean rf_tb_writer_scalars(rf_tb_writer *w, int64_t step, const char *const *tags, const double *values, size_t n,
                              GError **error);

/* A SessionLog START at `step`: readers drop the events of earlier files at
 * steps >= `step` (a run resumed from a checkpoint older than its last
 * rows). */
gboolean rf_tb_writer_restart(rf_tb_writer *w, int64_t step, GError **error);

/* Every key of `cfg` ("section.key") as the session's hyperparameters:
 * numbers as numbers, the rest as text. */
gboolean rf_tb_writer_session_start(rf_tb_writer *w, const rf_config *cfg, GError **error);
gboolean rf_tb_writer_session_end(rf_tb_writer *w, rf_tb_status status, GError **error);

/* Every record so far on disk (fsync). */
gboolean rf_tb_writer_sync(rf_tb_writer *w, GError **error);
void rf_tb_writer_close(rf_tb_writer *w);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(rf_tb_writer, rf_tb_writer_close)

#endif
