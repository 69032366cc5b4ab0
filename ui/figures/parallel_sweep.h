/* A sweep folder's parallel coordinates: its keys from the sweep file's
 * copy (sweep.ini), its trials from sweep.csv, each trial labelled by its
 * folder ("trial-001"). `rangefinder plot --parallel` and the Runs view's
 * Sweep panel draw it. */
#ifndef RF_PARALLEL_SWEEP_H
#define RF_PARALLEL_SWEEP_H

#include <glib.h>

#include "parallel_figure.h"

/* Whether `dir` is a sweep folder (it holds sweep.ini and sweep.csv). */
gboolean rf_is_sweep_folder(const char *dir);
/* The figure of sweep folder `dir`, or NULL with an error naming the file
 * and the problem. */
rf_parallel_figure *rf_parallel_figure_load_sweep(const char *dir, GError **error);

#endif
