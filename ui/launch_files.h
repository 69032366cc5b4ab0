/* What the workbench's "Launch on a Cluster…" writes: the effective config
 * of the session into the run folder (OUT/launch.ini) and the mpirun line
 * or sbatch script that trains it there on several ranks (parallel/launch.h),
 * so the text is ready to run as it stands. GIO only, no GTK.
 */
#ifndef RF_LAUNCH_FILES_H
#define RF_LAUNCH_FILES_H

#include <glib.h>

#include "../core/config.h"
#include "../parallel/launch.h"

/* The config file a launch into `out_dir` reads (free with g_free). */
char *rf_launch_config_path(const char *out_dir);

/* Write `cfg` to rf_launch_config_path(out_dir) (creating the folder) and
 * return the launch text for `ranks` processes; NULL with `error` (the
 * folder cannot be made, or the ranks do not divide data.batch, in which
 * case nothing is written). Free with g_free. */
char *rf_launch_prepare(const rf_config *cfg, rf_launch_kind kind, int ranks, const char *out_dir, GError **error);

#endif
