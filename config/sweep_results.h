/* A sweep's results table read back (sweep.csv, which `rangefinder sweep`
 * writes after every trial, app/sweep_table.h): `rangefinder plot
 * --parallel` and the workbench's Runs view both read it. */
#ifndef RF_SWEEP_RESULTS_H
#define RF_SWEEP_RESULTS_H

#include <glib.h>
#include <stdint.h>

#include "sweep_file.h"

typedef struct rf_sweep_row {
    int trial;            /* from 1 */
    char **values;        /* one per swept key, NULL-terminated */
    char *status;
    char *reason;         /* "" when none */
    double best, final;   /* the sweep's metric; NaN: not evaluated */
    int64_t steps;
    double seconds;
    char *folder;         /* the trial's folder, relative to the sweep's */
} rf_sweep_row;

void rf_sweep_row_clear(rf_sweep_row *r);

/* A GArray of rf_sweep_row that clears its rows. */
GArray *rf_sweep_rows_new(void);

/* Read `path` (a sweep.csv) back for the sweep's keys: the rows, or NULL with
 * an error naming the file and the line. */
GArray *rf_sweep_table_read(const rf_sweep *s, const char *path, GError **error);

#endif
