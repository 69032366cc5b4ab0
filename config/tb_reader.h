/* The scalars of a folder of TensorBoard event files, from any writer
 * (ours, PyTorch's SummaryWriter, TensorFlow, tensorboard's own): values
 * stored as simple_value or as a float or double scalar tensor. Files are
 * read in name order, as TensorBoard reads them, and its EventAccumulator's
 * rules for runs restarted from a checkpoint apply: in files of version 2
 * ("brain.Event:2", every writer today) a SessionLog START at step s drops
 * the points read so far at steps >= s; in older files a summary at a step
 * below the last event's drops its tags' points from that step on.
 *
 * Framing and CRC-32C are checked; a CRC that does not match or a record
 * that is not an event is an error naming the file, the byte offset and
 * the problem. A file's last record cut short (a writer still at it, or
 * killed) ends that file, as it does for TensorBoard. */
#ifndef RF_CONFIG_TB_READER_H
#define RF_CONFIG_TB_READER_H

#include <glib.h>
#include <stdint.h>

typedef struct rf_tb_point {
    int64_t step;
    double value;
    double wall_time;   /* seconds since 1970, as the writer stamped the event */
} rf_tb_point;

typedef struct rf_tb_series {
    char *tag;
    GArray *points;   /* rf_tb_point, in the order read (steps rising after the purges) */
} rf_tb_series;

typedef struct rf_tb_run {
    char *dir;
    GPtrArray *series;   /* rf_tb_series *, in the order their tags first appear */
} rf_tb_run;

/* Every file of `dir` whose name contains "tfevents"; none is an error. */
rf_tb_run *rf_tb_run_read(const char *dir, GError **error);

/* Whether `dir` holds at least one event file. */
gboolean rf_tb_dir_has_events(const char *dir);

/* One file's bytes added to `run` (`name` for messages). */
gboolean rf_tb_run_add_events(rf_tb_run *run, const char *name, const uint8_t *buf, size_t size, GError **error);

rf_tb_run *rf_tb_run_new(const char *dir);
const rf_tb_series *rf_tb_run_find(const rf_tb_run *run, const char *tag);
void rf_tb_run_free(rf_tb_run *run);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(rf_tb_run, rf_tb_run_free)

#endif
