/* Sweep files: which runs `rangefinder sweep` trains. An INI file read with
 * GKeyFile like the run configs:
 *
 *   [sweep]
 *   config = listops-ls.ini     ; the base config (relative to this file), optional
 *   method = grid               ; grid | random
 *   budget_runs = 8             ; at most this many trials (grid: the first 8)
 *   budget_minutes = 30         ; no trial starts after this much training time
 *   seed = 1                    ; random: the draws
 *   early_stop = median         ; off | median (core/median_rule.h)
 *   min_evaluations = 2         ; evaluations before the median rule may stop a trial
 *   metric = val_accuracy       ; val_accuracy (higher is better) | val_loss (lower)
 *
 *   [train]                     ; any config section: keys of the base config
 *   steps = 200
 *
 *   [keys]                      ; one line per swept config key
 *   model.encoder = ls, talk, linear
 *   train.lr = log-uniform 1e-4 3e-3
 *   model.dropout = uniform 0 0.3
 *   model.layers = int 1 4
 *
 * A list is split at commas, or at '|' when it holds one (values with
 * commas: `model.lmax = 1,3,7 | 3,7,15`). The ranges are for random
 * search; grid takes lists only. Every key and value is checked against the
 * config's key table (core/config.h) when the file is read, and every
 * trial's whole config (rf_sweep_trial_config) before a sweep starts; an
 * error names the file, the line and the key. */
#ifndef RF_CONFIG_SWEEP_FILE_H
#define RF_CONFIG_SWEEP_FILE_H

#include <glib.h>

#include "../core/config.h"

#define RF_SWEEP_FILE_ERROR (rf_sweep_file_error_quark())
GQuark rf_sweep_file_error_quark(void);
enum { RF_SWEEP_FILE_ERROR_FAILED };

typedef enum { RF_SWEEP_GRID, RF_SWEEP_RANDOM } rf_sweep_method;

/* How a key's values are given: a list, or a range drawn from. */
typedef enum { RF_SWEEP_LIST, RF_SWEEP_UNIFORM, RF_SWEEP_LOG_UNIFORM, RF_SWEEP_INT } rf_sweep_kind;

typedef struct rf_sweep_key {
    char *name;          /* "section.key" */
    rf_sweep_kind kind;
    char **values;       /* RF_SWEEP_LIST: the values as text, NULL-terminated */
    int n_values;
    double lo, hi;       /* the ranges: inclusive bounds */
    bool numeric;        /* the key holds a number (an int or a float key) */
    int line;            /* its line in the sweep file */
} rf_sweep_key;

typedef struct rf_sweep {
    char *path;            /* the sweep file */
    char *name;            /* [sweep] name, else the file's name without .ini */
    char *base_config;     /* [sweep] config, resolved against the file's folder; NULL: none */
    char **base_sets;      /* the file's config sections as "section.key=value", NULL-terminated */
    rf_sweep_method method;
    int budget_runs;       /* 0: no limit */
    double budget_minutes; /* 0: no limit */
    guint64 seed;
    bool early_stop;       /* the median rule */
    int min_evaluations;
    bool metric_is_loss;   /* metric = val_loss: lower is better */
    rf_sweep_key *keys;
    int n_keys;
} rf_sweep;

/* Read and check `path` (the base config file is not read: see
 * rf_sweep_trial_config). NULL with one line naming the file, the line and
 * the problem. */
rf_sweep *rf_sweep_load(const char *path, GError **error);
void rf_sweep_free(rf_sweep *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(rf_sweep, rf_sweep_free)

/* "val_accuracy" or "val_loss". */
const char *rf_sweep_metric_name(const rf_sweep *s);

/* How many trials the sweep has: grid, every combination (at most
 * budget_runs); random, budget_runs, or -1 (without end: budget_minutes
 * ends it). */
int rf_sweep_trial_count(const rf_sweep *s);

/* Trial `index`'s value of each key as text (n_keys strings,
 * NULL-terminated; g_strfreev): grid, combination `index` with the last
 * key changing fastest; random, drawn from the seed and `index` alone, so a
 * resumed sweep draws the same. */
char **rf_sweep_trial_values(const rf_sweep *s, int index);

/* Trial `index`'s whole config: defaults, the base config file, the sweep
 * file's config sections, the trial's values, validated. Its "key=value"
 * assignments after the base (NULL-terminated) go to *sets (may be NULL). */
gboolean rf_sweep_trial_config(const rf_sweep *s, int index, rf_config *cfg, char ***sets, GError **error);

#endif
