/* The runs folder as a table (the Runs view's model, without GTK): one
 * entry per run folder (config/run_folder.h's layout: config.ini,
 * metrics.csv, the checkpoint, run.ini, init.ini), read for its summary only: the
 * metrics rows are scanned, not kept, and the checkpoint is never opened.
 * A refresh rereads only the folders whose files changed. A folder that is
 * not a run (no config.ini or metrics.csv, a malformed file) is left out
 * with one warning naming it. A sweep folder (`rangefinder sweep`'s: it
 * holds sweep.ini and sweep.csv) is no run itself: its trials' folders are
 * entries, each naming its sweep.
 */
#ifndef RF_RUNS_TABLE_H
#define RF_RUNS_TABLE_H

#include <glib.h>

#include "../config/run_folder.h"
#include "../core/config.h"

typedef enum rf_run_status {
    RF_RUN_STATUS_RUNNING,    /* no test row yet, and metrics.csv changed within the last minute
                                 (or three of its last gaps between rows, for a slow run), unless
                                 the folder's lock file is there and no other process holds it */
    RF_RUN_STATUS_FINISHED,   /* it has a test row (the trainer's last act) */
    RF_RUN_STATUS_STOPPED,    /* no test row, quiet, with a checkpoint to resume from */
    RF_RUN_STATUS_FAILED,     /* no test row, quiet, no checkpoint */
} rf_run_status;

const char *rf_run_status_name(rf_run_status status);

/* Reference counted (rf_run_entry_ref/unref): the view's rows hold them
 * across refreshes. */
typedef struct rf_run_entry {
    char *dir;                /* the run folder */
    char *folder;             /* its base name */
    char *name;               /* run.ini's name, or the folder's name */
    char *tags;               /* run.ini's tags ("" when none) */
    char *from;               /* init.ini's source run: its checkpoint's folder name ("" when none) */
    char *sweep;              /* the sweep folder it is a trial of (its name in the runs folder), or "" */
    rf_config cfg;
    rf_run_status status;
    int64_t steps;            /* the last step of metrics.csv (0 when none) */
    double best_val;          /* best validation accuracy; NaN when none */
    double test_accuracy;     /* NaN when none */
    double seconds;           /* training time: the last row's `seconds` */
    double last_gap;          /* seconds between its last two rows */
    /* what the status is derived from, and what the folder looked like when read */
    gboolean has_test, has_checkpoint;
    gint64 metrics_mtime;     /* µs since the epoch */
    guint64 stamp;
} rf_run_entry;

/* Read one run folder; NULL with an error naming the folder (or its file)
 * and the problem. */
rf_run_entry *rf_run_entry_load(const char *dir, GError **error);
rf_run_entry *rf_run_entry_ref(rf_run_entry *e);
void rf_run_entry_unref(rf_run_entry *e);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(rf_run_entry, rf_run_entry_unref)

/* Give the run a name (NULL or empty: the folder's) and tags (free text),
 * written to DIR/run.ini atomically (its colour kept). */
gboolean rf_run_entry_set_meta(rf_run_entry *e, const char *name, const char *tags, GError **error);

/* The columns: "name", "encoder", "data", "status", "steps", "best_val",
 * "test", "duration", "tags", "from", or a config key ("model.dim"). A cell's text
 * (g_free; accuracies as "42.2 %", as the status line and Compare give them), and the order of two entries by a column (numbers as numbers,
 * unknown ones last). */
char *rf_run_entry_cell(const rf_run_entry *e, const char *column);
int rf_run_entry_compare(const rf_run_entry *a, const rf_run_entry *b, const char *column);

typedef struct rf_runs_table {
    char *root;
    GPtrArray *entries;       /* of rf_run_entry *, by folder name */
    GPtrArray *warnings;      /* of char *: the folders left out at the last refresh, and why */
    GPtrArray *sweeps;        /* of char *: the sweep folders (sweep.ini and sweep.csv), by name */
    GHashTable *left_out;     /* folder -> its stamp when it was left out: not read again until it changes */
    char *live_dir;           /* the folder of the run this process trains, or NULL */
    rf_run_status live_status;
} rf_runs_table;

rf_runs_table *rf_runs_table_new(const char *root);
void rf_runs_table_free(rf_runs_table *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(rf_runs_table, rf_runs_table_free)

/* The run this process trains (dir NULL: none) has the status its trainer
 * reports, not the one its files suggest; takes effect at the next refresh. */
void rf_runs_table_set_live(rf_runs_table *t, const char *dir, rf_run_status status);
/* Read the runs folder again: new folders are added, gone ones dropped,
 * changed ones reread (a missing runs folder is an empty table). Returns
 * whether the entries changed. */
gboolean rf_runs_table_refresh(rf_runs_table *t);
/* The entry of folder `dir`, or NULL. */
rf_run_entry *rf_runs_table_find(const rf_runs_table *t, const char *dir);
/* The config keys whose values differ between the entries (g_strfreev). */
char **rf_runs_table_differing_keys(const rf_runs_table *t);

#endif
