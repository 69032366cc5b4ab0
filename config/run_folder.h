/* The runs folder: where a run goes when no --out names its folder
 * (`rangefinder train --runs DIR`, `rangefinder` without a verb, and every
 * run trained in the workbench). Each run gets a new folder named from the
 * date, the time and a label (the config's name, or the task and encoder),
 * e.g. runs/2026-11-27_130405-default; an existing folder is never reused.
 * A run folder holds config.ini, metrics.csv (metrics_csv.h), the
 * checkpoint once there is one, baselines.ini for token data
 * (baselines_file.h), run.ini when the workbench named or tagged the
 * run, and init.ini when `train --init` started it from another run's
 * weights. */
#ifndef RF_CONFIG_RUN_FOLDER_H
#define RF_CONFIG_RUN_FOLDER_H

#include <glib.h>

/* A run started from a checkpoint's weights (`train --init`): [init]
 * checkpoint= (its absolute path), step= (the step it had reached). */
#define RF_RUN_INIT_FILE "init.ini"

/* $XDG_DATA_HOME/rangefinder/runs (~/.local/share/rangefinder/runs when
 * XDG_DATA_HOME is unset). */
char *rf_runs_default_dir(void);

/* The config file's name without its folder and ".ini": "default". */
char *rf_run_config_name(const char *config_path);

/* Create `runs` (with its parents) and in it a new, empty folder
 * "<YYYY-MM-DD_HHMMSS>-<label>" (local time), with "-2", "-3", ... appended
 * while that name exists. Returns its path, or NULL with an error naming
 * the folder that could not be made. */
char *rf_run_folder_create(const char *runs, const char *label, GError **error);

#endif
