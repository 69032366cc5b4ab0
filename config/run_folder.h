/* The runs folder: where a run goes when no --out names its folder
 * (`rangefinder train --runs DIR`, `rangefinder` without a verb, and every
 * run trained in the workbench). Each run gets a new folder named from the
 * date, the time and a label (the config's name, or the task and encoder),
 * e.g. runs/2026-11-27_130405-default; an existing folder is never reused.
 * A run folder holds config.ini, metrics.csv (metrics_csv.h), the
 * checkpoint once there is one, the weights kept at its evaluations in
 * weights/ (core/kept_weights.h), baselines.ini for token data
 * (baselines_file.h), run.ini (its colour, given when the folder is made,
 * and the name and tags the workbench gave it), and init.ini when `train
 * --init` started it from another run's weights. */
#ifndef RF_CONFIG_RUN_FOLDER_H
#define RF_CONFIG_RUN_FOLDER_H

#include <glib.h>

/* A run folder's colour, name and tags, kept apart from the files the
 * trainer writes (a CLI run may still be writing them): DIR/run.ini,
 * [run] color=, name=, tags=. */
#define RF_RUN_META_FILE "run.ini"

/* Runs are drawn in one of this many colours (ui/plot's rf_series_color). */
#define RF_RUN_COLORS 12

/* A run started from a checkpoint's weights (`train --init`): [init]
 * checkpoint= (its absolute path), step= (the step it had reached). */
#define RF_RUN_INIT_FILE "init.ini"

/* $XDG_DATA_HOME/rangefinder/runs (~/.local/share/rangefinder/runs when
 * XDG_DATA_HOME is unset). */
char *rf_runs_default_dir(void);

/* The config file's name without its folder and ".ini": "default". */
char *rf_run_config_name(const char *config_path);

/* Create `runs` (with its parents) and in it a new folder
 * "<YYYY-MM-DD_HHMMSS>-<label>" (local time), with "-2", "-3", ... appended
 * while that name exists, holding only run.ini with the run's colour: the
 * one fewest of the folder's other runs have (the lowest of those), so
 * runs side by side differ and a run keeps its colour for the life of the
 * runs folder. Returns its path, or NULL with an error naming the folder
 * or file that could not be made. */
char *rf_run_folder_create(const char *runs, const char *label, GError **error);

/* The colour (0 to RF_RUN_COLORS - 1) of run folder DIR: run.ini's
 * [run] color=, else one derived from the folder's name (a folder made
 * before colours were kept, or by `train --out`): either way the same for
 * every figure that draws the run. */
int rf_run_folder_color(const char *dir);

#endif
