/* Ready-to-run launch text for a data-parallel training run: an mpirun
 * line, or an sbatch script for Slurm that runs mpirun inside its
 * allocation (Open MPI reads the task count from Slurm). Used by
 * `rangefinder train --print-launch` and the workbench's Run menu.
 */
#ifndef RF_LAUNCH_H
#define RF_LAUNCH_H

#include <glib.h>

#include "../core/config.h"

/* Whether this process was started by an MPI launcher (mpirun, or srun
 * with PMI/PMIx): only then is MPI initialised, so a plain `rangefinder`
 * never pays for it. */
gboolean rf_launched_by_mpi(void);

typedef enum { RF_LAUNCH_MPIRUN, RF_LAUNCH_SLURM } rf_launch_kind;

/* "mpirun" or "slurm" -> kind; FALSE for anything else. */
gboolean rf_launch_kind_parse(const char *name, rf_launch_kind *out);

typedef struct rf_launch {
    rf_launch_kind kind;
    int ranks;                   /* processes; data.batch must divide by it */
    const char *exe;             /* the rangefinder to run (an absolute path is best) */
    const char *config_path;     /* the config file the ranks read */
    const char *const *sets;     /* --set overrides (NULL-terminated, may be NULL) */
    const char *out_dir;         /* the run folder (on a file system every node sees) */
} rf_launch;

/* The launch text for `cfg` (the effective config, to check and size the
 * job), or NULL with `error` set: a rank count that does not divide
 * data.batch names both. Free with g_free. */
char *rf_launch_text(const rf_launch *l, const rf_config *cfg, GError **error);

#endif
