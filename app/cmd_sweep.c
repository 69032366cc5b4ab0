/* `rangefinder sweep FILE --runs DIR`: the trials of a sweep file
 * (config/sweep_file.h), one after another, each a normal run folder
 * DIR/NAME/trial-NNN (app/sweep_trial.h), with the results table
 * DIR/NAME/sweep.csv and sweep.json (app/sweep_table.h) rewritten after
 * every trial.
 *
 * Run again with the same file, a sweep goes on where it was: trials that
 * ended (finished, stopped early, failed) are skipped, one that was
 * interrupted is resumed from its checkpoint (or begun again without one).
 * One process per sweep: it holds the sweep folder's run lock
 * (config/run_lock.h), and each trial's folder is locked by its trainer.
 *
 * With early_stop = median, each evaluation of a trial is compared with the
 * other trials' evaluations at the same step (core/median_rule.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/atomic_file.h"
#include "../core/checkpoint.h"
#include "../core/median_rule.h"
#include "cli.h"
#include "commands.h"
#include "config_file.h"
#include "run_folder.h"
#include "run_lock.h"
#include "sweep_file.h"
#include "sweep_table.h"
#include "sweep_trial.h"

/* Trials checked before a sweep starts when it has no count (random search
 * with a time budget only). */
#define CHECKED_AHEAD 64
#define BASE_CONFIG_FILE "base.ini"
#define SWEEP_COPY_FILE "sweep.ini"

typedef struct sweep_run {
    rf_sweep *s;
    char *dir;                   /* DIR/NAME */
    GArray *rows;                /* rf_sweep_row of every trial begun, in trial order */
    GPtrArray *ended;            /* rf_trial_metrics of the trials that ended, for the median rule */
    /* the trial in training */
    double best;                 /* its best metric so far (NaN: none) */
    int evaluations;
} sweep_run;

static void free_metrics(gpointer p)
{
    rf_trial_metrics_clear(p);
    g_free(p);
}

/* The median rule at one evaluation of the trial in training. */
static bool evaluated(void *ctx, int64_t step, double loss, double accuracy, char *why, size_t size)
{
    sweep_run *r = ctx;
    gboolean is_loss = r->s->metric_is_loss;
    double v = is_loss ? loss : accuracy;
    if (isfinite(v) && (isnan(r->best) || (is_loss ? v < r->best : v > r->best)))
        r->best = v;
    r->evaluations++;
    if (!r->s->early_stop)
        return false;
    double *others = g_new(double, r->ended->len + 1);
    for (guint i = 0; i < r->ended->len; i++)
        others[i] = rf_trial_metric_at_step(r->ended->pdata[i], step, is_loss);
    double median;
    int compared;
    bool stop = rf_median_rule_stop(r->best, r->evaluations, r->s->min_evaluations, others, (int)r->ended->len,
                                    !is_loss, &median, &compared);
    g_free(others);
    if (stop)
        snprintf(why, size, "stopped early at step %lld: %s %.4g %s the median %.4g of %d trial%s", (long long)step,
                 rf_sweep_metric_name(r->s), r->best, is_loss ? "above" : "below", median, compared,
                 compared == 1 ? "" : "s");
    return stop;
}

/* The table's row of trial `index` from its folder, status and reason. */
static void set_row(sweep_run *r, int index, const char *status, const char *reason)
{
    g_autofree char *name = rf_trial_folder_name(index);
    g_autofree char *folder = g_build_filename(r->dir, name, NULL);
    rf_trial_metrics m;
    rf_trial_metrics_read(folder, &m);
    rf_sweep_row row = {
        .trial = index + 1,
        .values = rf_sweep_trial_values(r->s, index),
        .status = g_strdup(status),
        .reason = g_strdup(reason != NULL ? reason : ""),
        .best = rf_trial_best(&m, G_MAXINT64, r->s->metric_is_loss, NULL),
        .final = m.steps->len > 0 ? rf_trial_metric_at(&m, m.steps->len - 1, r->s->metric_is_loss) : NAN,
        .steps = m.last_step,
        .seconds = m.seconds,
        .folder = g_strdup(name),
    };
    if (strcmp(status, "interrupted") != 0) {
        g_ptr_array_add(r->ended, g_memdup2(&m, sizeof m));
    } else {
        rf_trial_metrics_clear(&m);
    }
    for (guint i = 0; i < r->rows->len; i++)
        if (g_array_index(r->rows, rf_sweep_row, i).trial == row.trial) {
            rf_sweep_row_clear(&g_array_index(r->rows, rf_sweep_row, i));
            g_array_index(r->rows, rf_sweep_row, i) = row;
            return;
        }
    g_array_append_val(r->rows, row);
}

static double seconds_spent(const sweep_run *r)
{
    double total = 0;
    for (guint i = 0; i < r->rows->len; i++)
        total += g_array_index(r->rows, rf_sweep_row, i).seconds;
    return total;
}

/* The sweep file's copy in its folder: made at the first start; a later
 * start with a file that differs is refused (its trials would not match). */
static gboolean keep_sweep_copy(const sweep_run *r, GError **error)
{
    g_autofree char *text = NULL, *kept = NULL, *copy = g_build_filename(r->dir, SWEEP_COPY_FILE, NULL);
    gsize size = 0;
    if (!g_file_get_contents(r->s->path, &text, &size, error))
        return FALSE;
    if (g_file_get_contents(copy, &kept, NULL, NULL)) {
        if (strcmp(kept, text) == 0)
            return TRUE;
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED,
                    "%s was begun with another sweep file (kept as %s): give this sweep another name "
                    "([sweep] name) or another --runs folder", r->dir, copy);
        return FALSE;
    }
    rf_status st = {0};
    return rf_atomic_write_bytes(copy, text, size, &st) || rf_cli_fail_status(error, &st);
}

/* The base config (defaults, the base file, the sweep file's sections) as a
 * config file the trials start from. */
static gboolean write_base(const sweep_run *r, GError **error)
{
    rf_config base;
    rf_config_defaults(&base);
    if (r->s->base_config != NULL && !rf_config_apply_ini(&base, r->s->base_config, error))
        return FALSE;
    if (!rf_config_apply_sets(&base, (const char *const *)r->s->base_sets, error))
        return FALSE;
    g_autofree char *path = g_build_filename(r->dir, BASE_CONFIG_FILE, NULL);
    return rf_config_write_ini(&base, path, " The base config of this sweep's trials, written by `rangefinder sweep`.",
                               error);
}

/* Whether the trial's checkpoint has reached its last step already (killed
 * just before trial.ini was written). */
static gboolean trained_to_the_end(const char *folder)
{
    g_autofree char *path = g_build_filename(folder, "checkpoint.safetensors", NULL);
    rf_config cfg;
    rf_config_defaults(&cfg);
    int64_t step = 0;
    rf_status st = {0};
    return g_file_test(path, G_FILE_TEST_EXISTS) && rf_checkpoint_read_config(path, &cfg, &step, &st) &&
           step >= cfg.train.steps;
}

/* The best and evaluation count so far of a trial resumed from its checkpoint. */
static void resume_progress(sweep_run *r, const char *folder)
{
    r->best = NAN;
    r->evaluations = 0;
    g_autofree char *path = g_build_filename(folder, "checkpoint.safetensors", NULL);
    rf_config cfg;
    rf_config_defaults(&cfg);
    int64_t step = 0;
    rf_status st = {0};
    if (!g_file_test(path, G_FILE_TEST_EXISTS) || !rf_checkpoint_read_config(path, &cfg, &step, &st))
        return;
    rf_trial_metrics m;
    rf_trial_metrics_read(folder, &m);
    r->best = rf_trial_best(&m, step, r->s->metric_is_loss, &r->evaluations);
    rf_trial_metrics_clear(&m);
}

static gboolean watch_stopped_reason(const char *status, const char *reason)
{
    return reason != NULL && strcmp(status, "stopped early") == 0 && g_str_has_prefix(reason, status);
}

typedef enum { TRIAL_DONE, TRIAL_INTERRUPTED, TRIAL_REFUSED } trial_outcome;

/* Train trial `index` (or resume it) and record how it ended. */
static trial_outcome run_trial(sweep_run *r, int index, int count, GError **error)
{
    g_autofree char *name = rf_trial_folder_name(index);
    g_autofree char *folder = g_build_filename(r->dir, name, NULL);
    g_auto(GStrv) sets = NULL;
    rf_config cfg;
    if (!rf_sweep_trial_config(r->s, index, &cfg, &sets, error))
        return TRIAL_REFUSED;
    if (!rf_run_lock_check(folder, error))
        return TRIAL_REFUSED;
    g_autofree char *shown = g_strjoinv(" ", sets);
    if (count > 0)
        printf("trial %d of %d: %s\n", index + 1, count, shown);
    else
        printf("trial %d: %s\n", index + 1, shown);
    fflush(stdout);
    /* made first, so that a trial that fails before training records it there */
    if (g_mkdir_with_parents(folder, 0777) != 0) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, "cannot create %s: %s", folder, g_strerror(errno));
        return TRIAL_REFUSED;
    }
    const char *status = "finished";
    g_autofree char *reason = NULL;
    if (!trained_to_the_end(folder)) {
        g_autofree char *base = g_build_filename(r->dir, BASE_CONFIG_FILE, NULL);
        rf_train_watch watch = {.evaluated = evaluated, .ctx = r};
        resume_progress(r, folder);
        int code = rf_train_watched_run(base, (const char *const *)sets, folder, &watch);
        if (code == RF_EXIT_INTERRUPTED) {
            set_row(r, index, "interrupted", "");
            return TRIAL_INTERRUPTED;
        }
        if (code != RF_EXIT_OK) {
            status = "failed";
            reason = g_strdup(watch.failure[0] != '\0' ? watch.failure : "the trainer failed");
        } else if (watch.stopped) {
            status = "stopped early";
            reason = g_strdup(watch.why);
        }
    }
    if (!rf_trial_ended_write(folder, status, reason != NULL ? reason : "", error))
        return TRIAL_REFUSED;
    set_row(r, index, status, reason);
    if (watch_stopped_reason(status, reason))
        printf("trial %d: %s\n", index + 1, reason);   /* "stopped early at step S: ..." */
    else
        printf("trial %d: %s%s%s\n", index + 1, status, reason != NULL ? ": " : "", reason != NULL ? reason : "");
    fflush(stdout);
    return TRIAL_DONE;
}

/* The trials that ended in an earlier invocation, into the table. */
static void read_ended(sweep_run *r, int count)
{
    for (int i = 0; count < 0 || i < count; i++) {
        g_autofree char *name = rf_trial_folder_name(i);
        g_autofree char *folder = g_build_filename(r->dir, name, NULL);
        if (!g_file_test(folder, G_FILE_TEST_IS_DIR))
            break;
        g_autofree char *status = NULL, *reason = NULL;
        rf_trial_ended_read(folder, &status, &reason);
        if (status != NULL)
            set_row(r, i, status, reason);
    }
}

static gboolean trial_ended(const sweep_run *r, int index)
{
    for (guint i = 0; i < r->rows->len; i++) {
        const rf_sweep_row *row = &g_array_index(r->rows, rf_sweep_row, i);
        if (row->trial == index + 1)
            return strcmp(row->status, "interrupted") != 0;
    }
    return FALSE;
}

/* The last line: how many ended how, and the best trial. */
static void print_summary(const sweep_run *r)
{
    int finished = 0, stopped = 0, failed = 0;
    const rf_sweep_row *best = NULL;
    for (guint i = 0; i < r->rows->len; i++) {
        const rf_sweep_row *row = &g_array_index(r->rows, rf_sweep_row, i);
        finished += strcmp(row->status, "finished") == 0;
        stopped += strcmp(row->status, "stopped early") == 0;
        failed += strcmp(row->status, "failed") == 0;
        if (isfinite(row->best) &&
            (best == NULL || (r->s->metric_is_loss ? row->best < best->best : row->best > best->best)))
            best = row;
    }
    printf("sweep %s: %u trials (%d finished, %d stopped early, %d failed)", r->s->name, r->rows->len, finished,
           stopped, failed);
    if (best != NULL)
        printf("; best: trial %d, %s %.4g (%s)", best->trial, rf_sweep_metric_name(r->s), best->best, best->folder);
    printf("; table: %s/sweep.csv\n", r->dir);
}

static int run_sweep(sweep_run *r, int count, GError **error)
{
    if (g_mkdir_with_parents(r->dir, 0777) != 0) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, "cannot create %s: %s", r->dir, g_strerror(errno));
        return rf_cli_report(*error);
    }
    g_autoptr(rf_run_lock) lock = rf_run_lock_take(r->dir, "rangefinder sweep", error);
    if (lock == NULL || !keep_sweep_copy(r, error) || !write_base(r, error))
        return rf_cli_report(*error);
    read_ended(r, count);
    for (int i = 0; count < 0 || i < count; i++) {
        if (trial_ended(r, i))
            continue;
        if (r->s->budget_minutes > 0 && seconds_spent(r) >= r->s->budget_minutes * 60) {
            printf("the time budget of %g minutes is spent: no more trials\n", r->s->budget_minutes);
            break;
        }
        trial_outcome outcome = run_trial(r, i, count, error);
        if (outcome != TRIAL_REFUSED && !rf_sweep_table_write(r->s, r->rows, r->dir, error))
            outcome = TRIAL_REFUSED;
        if (outcome == TRIAL_REFUSED)
            return rf_cli_report(*error);
        if (outcome == TRIAL_INTERRUPTED) {
            printf("sweep interrupted at trial %d; run the same command again to go on\n", i + 1);
            return RF_EXIT_INTERRUPTED;
        }
    }
    if (!rf_sweep_table_write(r->s, r->rows, r->dir, error))
        return rf_cli_report(*error);
    print_summary(r);
    return RF_EXIT_OK;
}

int rf_cmd_sweep(int argc, char **argv)
{
    g_autofree char *runs = NULL;
    gboolean list = FALSE;
    g_auto(GStrv) files = NULL;
    const GOptionEntry entries[] = {
        {"runs", 0, 0, G_OPTION_ARG_FILENAME, &runs,
         "The runs folder: the sweep goes into DIR/NAME (default: the runs folder of `train --runs`)", "DIR"},
        {"list", 0, 0, G_OPTION_ARG_NONE, &list, "Print the trials' values and exit (nothing is trained)", NULL},
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, "FILE"},
        G_OPTION_ENTRY_NULL,
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_summary(ctx,
        "Train the trials of a sweep file one after another: grid or random search over config keys,\n"
        "with a budget in runs or minutes and median-rule early stopping. Each trial is a run folder\n"
        "DIR/NAME/trial-NNN; DIR/NAME/sweep.csv and sweep.json hold the results table. Run the same\n"
        "command again to go on after Ctrl-C or a kill: ended trials are skipped. See docs/cli.md.");
    g_option_context_set_description(ctx,
        "Examples:\n"
        "  rangefinder sweep lr-encoders.ini --runs runs\n"
        "  rangefinder sweep lr-encoders.ini --list\n"
        "  rangefinder plot --parallel runs/lr-encoders --out sweep.png\n");
    g_autoptr(GError) error = NULL;
    if (!rf_cli_parse(ctx, "sweep", &argc, &argv, &error))
        return rf_cli_report(error);
    if (files == NULL || files[0] == NULL || files[1] != NULL) {
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE,
                    "sweep needs one sweep FILE (see `rangefinder sweep --help`)");
        return rf_cli_report(error);
    }
    g_autoptr(rf_sweep) s = rf_sweep_load(files[0], &error);
    if (s == NULL)
        return rf_cli_report(error);
    int count = rf_sweep_trial_count(s);
    /* every trial's config, before anything is trained or written */
    for (int i = 0; i < (count >= 0 ? count : CHECKED_AHEAD); i++) {
        rf_config cfg;
        g_auto(GStrv) sets = NULL;
        if (!rf_sweep_trial_config(s, i, &cfg, &sets, &error))
            return rf_cli_report(error);
        if (list) {
            g_autofree char *shown = g_strjoinv(" ", sets);
            printf("trial %d: %s\n", i + 1, shown);
        }
    }
    if (list)
        return RF_EXIT_OK;
    g_autofree char *root = runs != NULL ? g_strdup(runs) : rf_runs_default_dir();
    sweep_run r = {
        .s = s,
        .dir = g_build_filename(root, s->name, NULL),
        .rows = rf_sweep_rows_new(),
        .ended = g_ptr_array_new_with_free_func(free_metrics),
        .best = NAN,
    };
    int code = run_sweep(&r, count, &error);
    g_free(r.dir);
    g_array_free(r.rows, TRUE);
    g_ptr_array_free(r.ended, TRUE);
    return code;
}
