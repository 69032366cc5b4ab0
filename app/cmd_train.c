/* `rangefinder train`: a new run from a config file, or `--resume DIR` to
 * continue one. A run directory holds config.ini (the full effective
 * config), metrics.csv, checkpoint.safetensors, for token data
 * baselines.ini (config/baselines_file.h) and, for a run started with
 * --init, init.ini (where its first weights came from).
 *
 * A config with a curriculum (core/curriculum.h) trains its stages one
 * after the other in the same folder, each from the last one's weights;
 * steps count on across them in metrics.csv and the progress line, and
 * the checkpoint records its stage, so --resume goes on where it was.
 *
 * Crash consistency: the metrics rows a checkpoint covers are fsync'd
 * before it is renamed into place, and --resume cuts the rows logged after
 * it, so a run killed at any moment and resumed has every step's rows
 * exactly once.
 *
 * One trainer per folder: the writer locks the run folder
 * (config/run_lock.h) before it writes anything there and keeps the lock
 * to the end, so a second `train` on it is refused. */
#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../core/alloc.h"
#include "../core/atomic_file.h"
#include "../core/checkpoint.h"
#include "../core/curriculum.h"
#include "../core/distribution.h"
#include "../core/kept_weights.h"
#include "../core/train.h"
#include "../datasets/baselines.h"
#include "../datasets/datasets.h"
#include "baselines_file.h"
#include "cli.h"
#include "data_open.h"
#include "distributions_csv.h"
#include "commands.h"
#include "config_diff.h"
#include "config_file.h"
#include "json_line.h"
#include "metrics_csv.h"
#include "progress.h"
#include "rank_watch.h"
#include "ranks.h"
#include "run_folder.h"
#include "run_lock.h"
#include "../parallel/launch.h"

#define CONFIG_COMMENT " The full effective configuration of this run, written by `rangefinder train`."

static volatile sig_atomic_t interrupted;
static struct timespec first_stop_request;

/* SIGINT or SIGUSR1 asks for a clean stop. A later SIGINT quits without
 * saving, but not one within a second of the first request: `timeout -s INT`
 * signals the run and then its process group, one request sent twice. */
static void on_sigint(int sig)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!interrupted) {
        first_stop_request = now;
        interrupted = 1;
        return;
    }
    double since = (double)(now.tv_sec - first_stop_request.tv_sec) +
                   (double)(now.tv_nsec - first_stop_request.tv_nsec) * 1e-9;
    if (sig == SIGINT && since >= 1.0) {
        signal(SIGINT, SIG_DFL);
        raise(SIGINT);
    }
}

typedef struct train_job {
    rf_config cfg;            /* the run's config: with a curriculum, its last stage */
    rf_config stage_cfg;      /* the stage in training (cfg itself without a curriculum) */
    int stage, stages;
    int64_t first_step;       /* where the stage begins among the run's steps */
    char *dir;
    char *checkpoint;
    int64_t resumed_from;     /* the stage's own step; -1: a new run */
    rf_dataset *ds;
    rf_trainer *trainer;
    rf_metrics_csv *csv;
    rf_distributions_csv *distributions;
    rf_run_lock *lock;        /* the writer's hold on dir */
    rf_train_watch *watch;    /* NULL: none (`rangefinder sweep` watches its trials) */
    /* The last stage's weights, held while this stage's trainer is built
     * (0 in a run's first stage), and the run's plan: the largest of its
     * stages' plans, each with what was carried into it. */
    int64_t carried_bytes, planned_bytes;
} train_job;

static void train_job_clear(train_job *job)
{
    rf_metrics_csv_close(job->csv);
    rf_distributions_csv_close(job->distributions);
    rf_trainer_free(job->trainer);
    rf_dataset_free(job->ds);
    g_free(job->checkpoint);
    g_free(job->dir);
    rf_run_lock_release(job->lock);
}

/* What the trainer's callbacks collect while the run goes. */
typedef struct run_state {
    rf_trainer *trainer;
    rf_metrics_csv *csv;
    rf_distributions_csv *distributions;   /* NULL: not recorded (a run of several ranks) */
    const char *dir;            /* the run folder, for the weights kept at each evaluation */
    rf_progress *progress;
    GError *write_error;        /* the first failure to write metrics.csv, distributions.csv or the kept
                                   weights; it stops the run */
    int64_t checkpoint_step;    /* the last good checkpoint's step (the run's count); -1: none */
    int64_t first_step;         /* the stage's first step among the run's */
    double seconds_before;      /* time of this invocation's earlier stages */
    double train_loss, val_accuracy, test_accuracy, test_loss;
    gboolean stop_announced;
    rf_train_watch *watch;      /* NULL: none */
} run_state;

/* Every tensor's distribution at an evaluation (the run's step). */
static void write_distributions(run_state *s, int64_t step)
{
    rf_status st = {0};
    int n = 0;
    rf_distribution *d = rf_trainer_distributions(s->trainer, &n, &st);
    if (d == NULL)
        g_set_error(&s->write_error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, "distributions at step %lld: %s",
                    (long long)step, st.msg);
    else
        rf_distributions_csv_write(s->distributions, step, d, n, &s->write_error);
    free(d);
}

/* The weights at an evaluation (the run's step), core/kept_weights.h. */
static void keep_weights(run_state *s, int64_t step)
{
    rf_status st = {0};
    if (!rf_kept_weights_save(s->trainer, s->dir, step, rf_trainer_config(s->trainer)->train.keep_weights, &st))
        g_set_error(&s->write_error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, "%s", st.msg);
}

static void on_metrics(void *ctx, const rf_metrics *stage_metrics)
{
    run_state *s = ctx;
    rf_metrics counted = *stage_metrics, *m = &counted;   /* the stage's steps among the run's */
    counted.step += s->first_step;
    counted.seconds += s->seconds_before;
    if (m->split == RF_SPLIT_TRAIN) {
        s->train_loss = m->loss;
    } else if (m->split == RF_SPLIT_VAL) {
        s->val_accuracy = m->accuracy;
    } else {
        s->test_accuracy = m->accuracy;
        s->test_loss = m->loss;
    }
    rf_progress_metrics(s->progress, m);
    if (s->write_error == NULL)
        rf_metrics_csv_write(s->csv, m, &s->write_error);
    if (m->split == RF_SPLIT_VAL && s->distributions != NULL && s->write_error == NULL)
        write_distributions(s, m->step);
    if (m->split == RF_SPLIT_VAL && s->write_error == NULL)
        keep_weights(s, m->step);
    if (m->split == RF_SPLIT_VAL && s->watch != NULL && !s->watch->stopped &&
        s->watch->evaluated(s->watch->ctx, m->step, m->loss, m->accuracy, s->watch->why, sizeof s->watch->why)) {
        s->watch->stopped = true;
        rf_progress_note(s->progress, "%s", s->watch->why);
    }
}

/* The rows so far on disk before a checkpoint covers them; after a failed
 * row no checkpoint may be written at all. */
static bool before_checkpoint(void *ctx, rf_status *st)
{
    run_state *s = ctx;
    if (s->write_error == NULL)
        rf_metrics_csv_sync(s->csv, &s->write_error);
    if (s->write_error == NULL && s->distributions != NULL)
        rf_distributions_csv_sync(s->distributions, &s->write_error);
    return s->write_error == NULL || rf_fail(st, "%s", s->write_error->message);
}

static void on_checkpoint(void *ctx, const char *path, int64_t step)
{
    (void)path;
    run_state *s = ctx;
    s->checkpoint_step = s->first_step + step;
}

/* Once per run, on the rank that prints. */
static void announce_stop(run_state *s)
{
    if (s->stop_announced || s->progress == NULL)
        return;
    rf_progress_note(s->progress, rf_ranks_count() > 1
                                      ? "asked to stop (SIGUSR1): every rank stops, saving the checkpoint"
                                      : "interrupted: saving the checkpoint (Ctrl-C again quits without saving)");
    s->stop_announced = TRUE;
}

static bool should_stop(void *ctx)
{
    run_state *s = ctx;
    rf_rank_watch_step(s->first_step + rf_trainer_step_count(s->trainer));
    if (interrupted)
        announce_stop(s);
    return interrupted || s->write_error != NULL || (s->watch != NULL && s->watch->stopped);
}

/* Temporary files of writes killed in an earlier invocation. */
static void remove_stale_temps(const char *dir)
{
    const char *const written[] = {"checkpoint.safetensors", "config.ini"};
    for (size_t i = 0; i < G_N_ELEMENTS(written); i++) {
        g_autofree char *path = g_build_filename(dir, written[i], NULL);
        rf_atomic_remove_stale(path);
    }
}

/* The data and the trainer of stage job->stage; with a curriculum its
 * checkpoints record the run's config at this stage. */
static bool open_stage(train_job *job, rf_status *st)
{
    job->stages = rf_curriculum_count(&job->cfg);
    if (!rf_curriculum_stage(&job->cfg, job->stage, &job->stage_cfg, st))
        return false;
    job->first_step = rf_curriculum_first_step(&job->cfg, job->stage);
    job->ds = rf_cli_open_data(&job->stage_cfg, st);
    if (job->ds == NULL)
        return false;
    job->trainer = rf_trainer_new_parallel(&job->stage_cfg, job->ds, rf_ranks_collective(), st);
    if (job->trainer == NULL)
        return false;
    int64_t planned = (int64_t)rf_trainer_plan(job->trainer)->total + job->carried_bytes;
    job->planned_bytes = planned > job->planned_bytes ? planned : job->planned_bytes;
    if (job->stages > 1) {
        rf_config record = job->cfg;
        record.train.stage = job->stage;
        rf_trainer_record_config(job->trainer, &record);
    }
    return true;
}

static gboolean open_data_and_trainer(train_job *job, GError **error)
{
    rf_status st = {0};
    return open_stage(job, &st) || rf_cli_fail_status(error, &st);
}

/* config.ini: the run's config, at the stage it is in. */
static gboolean write_config_ini(const train_job *job, GError **error)
{
    rf_config at = job->cfg;
    at.train.stage = job->stage;
    g_autofree char *ini = g_build_filename(job->dir, "config.ini", NULL);
    return rf_config_write_ini(&at, ini, CONFIG_COMMENT, error);
}

static char *default_out_dir(const char *config_path)
{
    g_autofree char *base = rf_run_config_name(config_path);
    return g_build_filename("runs", base, NULL);
}

/* Training data past this many tokens gets a line before its baselines are
 * measured (a few seconds of reading on one core; 100,000 samples of a
 * million tokens take minutes). */
#define BASELINES_SAID_TOKENS 2e9

/* baselines.ini (config/baselines_file.h) for token data, measured on the
 * validation split of the run's own data (a curriculum's last stage); a
 * resumed run without one gets it too. */
static gboolean write_baselines(const train_job *job, GError **error)
{
    g_autofree char *path = g_build_filename(job->dir, RF_BASELINES_FILE, NULL);
    if (job->stage < job->stages - 1 || job->ds->feat_dim > 0 || job->ds->size[RF_SPLIT_VAL] < 1 ||
        g_file_test(path, G_FILE_TEST_EXISTS))
        return TRUE;
    /* reading every training sample takes minutes at a million tokens
     * (unless the data gives their heads alone): say so before the wait */
    double tokens = (double)job->ds->size[RF_SPLIT_TRAIN] * job->ds->seq_len;
    if (tokens > BASELINES_SAID_TOKENS && job->ds->head == NULL) {
        printf("measuring the data's baselines (%s) on %lld training samples of up to %d tokens\n",
               RF_BASELINES_FILE, (long long)job->ds->size[RF_SPLIT_TRAIN], job->ds->seq_len);
        fflush(stdout);
    }
    rf_baselines b;
    rf_status st = {0};
    if (!rf_baselines_measure(job->ds, RF_SPLIT_VAL, &b, &st))
        return rf_cli_fail_status(error, &st);
    return rf_baselines_file_write(job->dir, b.majority, b.first_token, error);
}

/* init.ini: the checkpoint whose weights a --init run started from (its
 * absolute path and the step it had reached), written once, so the run
 * folder alone says where a curriculum's stage began. */
static gboolean write_init_record(const char *dir, const char *init, GError **error)
{
    rf_config source;
    rf_config_defaults(&source);
    int64_t step = 0;
    rf_status st = {0};
    if (!rf_checkpoint_read_config(init, &source, &step, &st))
        return rf_cli_fail_status(error, &st);
    g_autofree char *abs = g_canonicalize_filename(init, NULL);
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_key_file_set_string(kf, "init", "checkpoint", abs);
    g_key_file_set_int64(kf, "init", "step", step);
    g_key_file_set_comment(kf, NULL, NULL, " This run started from the weights of this checkpoint (train --init).", NULL);
    gsize size = 0;
    g_autofree char *text = g_key_file_to_data(kf, &size, NULL);
    g_autofree char *path = g_build_filename(dir, RF_RUN_INIT_FILE, NULL);
    if (!rf_atomic_write_bytes(path, text, size, &st))
        return rf_cli_fail_status(error, &st);
    return TRUE;
}

/* The writer's lock on the run folder, taken before anything is written
 * there (a refusal names the process training it). */
static gboolean lock_run_folder(train_job *job, GError **error)
{
    g_autofree char *holder = rf_ranks_count() > 1
                                  ? g_strdup_printf("rangefinder train, rank 0 of %d under MPI", rf_ranks_count())
                                  : g_strdup("rangefinder train");
    job->lock = rf_run_lock_take(job->dir, holder, error);
    return job->lock != NULL;
}

static gboolean refuse_finished_run(const train_job *job, GError **error)
{
    g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED,
                "%s exists: continue that run with `rangefinder train --resume %s`, or choose another --out",
                job->checkpoint, job->dir);
    return FALSE;
}

/* The run goes into `out`, or a new folder in `runs`, or runs/<config name>. */
static gboolean prepare_new(train_job *job, const char *config_path, const char *const *sets, const char *out,
                            const char *runs, const char *init, GError **error)
{
    if (!rf_config_load_ini(config_path, sets, &job->cfg, error))
        return FALSE;
    job->resumed_from = -1;
    job->stage = job->cfg.train.stage;
    if (runs == NULL) {
        job->dir = out != NULL ? g_strdup(out) : default_out_dir(config_path);
        job->checkpoint = g_build_filename(job->dir, "checkpoint.safetensors", NULL);
        if (g_file_test(job->checkpoint, G_FILE_TEST_EXISTS))
            return refuse_finished_run(job, error);
    }
    /* Build everything that can fail on the config before touching the disk. */
    if (!open_data_and_trainer(job, error))
        return FALSE;
    rf_status st = {0};
    if (init != NULL && !rf_trainer_init_weights(job->trainer, init, &st))
        return rf_cli_fail_status(error, &st);
    if (!rf_ranks_writer())   /* rank 0 writes the run folder */
        return TRUE;
    if (runs != NULL) {
        g_autofree char *label = rf_run_config_name(config_path);
        job->dir = rf_run_folder_create(runs, label, error);
        if (job->dir == NULL)
            return FALSE;
        job->checkpoint = g_build_filename(job->dir, "checkpoint.safetensors", NULL);
    } else if (g_mkdir_with_parents(job->dir, 0777) != 0) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, "cannot create %s: %s", job->dir, g_strerror(errno));
        return FALSE;
    }
    if (!lock_run_folder(job, error))
        return FALSE;
    /* again under the lock: a trainer that held it may have saved a run there since */
    if (runs == NULL && g_file_test(job->checkpoint, G_FILE_TEST_EXISTS))
        return refuse_finished_run(job, error);
    remove_stale_temps(job->dir);
    g_autofree char *csv = g_build_filename(job->dir, "metrics.csv", NULL);
    if (!write_config_ini(job, error) || !write_baselines(job, error))
        return FALSE;
    if (init != NULL && !write_init_record(job->dir, init, error))
        return FALSE;
    job->csv = rf_metrics_csv_create(csv, &job->cfg, error);
    if (job->csv == NULL || rf_ranks_count() > 1)
        return job->csv != NULL;
    g_autofree char *distributions = g_build_filename(job->dir, "distributions.csv", NULL);
    job->distributions = rf_distributions_csv_create(distributions, error);
    return job->distributions != NULL;
}

/* The config comes from the checkpoint, which always matches its weights;
 * --set may change how training continues, never the model or the data. */
static gboolean prepare_resume(train_job *job, const char *dir, const char *const *sets, GError **error)
{
    job->dir = g_strdup(dir);
    job->checkpoint = g_build_filename(dir, "checkpoint.safetensors", NULL);
    if (!g_file_test(job->checkpoint, G_FILE_TEST_EXISTS)) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, "%s: no checkpoint to resume from", job->checkpoint);
        return FALSE;
    }
    if (rf_ranks_writer()) {
        if (!lock_run_folder(job, error))
            return FALSE;
        remove_stale_temps(dir);
    }
    rf_config saved;
    rf_config_defaults(&saved);
    rf_status st = {0};
    if (!rf_checkpoint_read_config(job->checkpoint, &saved, &job->resumed_from, &st))
        return rf_cli_fail_status(error, &st);
    job->cfg = saved;
    if (!rf_config_apply_sets(&job->cfg, sets, error) ||
        !rf_config_check_changes(&saved, &job->cfg, RF_CHANGE_SCHEDULE_ONLY, error) ||
        !rf_config_check(&job->cfg, job->checkpoint, error))
        return FALSE;
    job->stage = job->cfg.train.stage;
    gboolean last_stage = job->stage == rf_curriculum_count(&job->cfg) - 1;
    if (last_stage && job->resumed_from >= job->cfg.train.steps) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED,
                    "%s has finished %lld of train.steps = %d%s; to train on, raise it: --set train.steps=N", dir,
                    (long long)job->resumed_from, job->cfg.train.steps,
                    job->stage > 0 ? " in its curriculum's last stage" : "");
        return FALSE;
    }
    if (!open_data_and_trainer(job, error))
        return FALSE;
    if (!rf_trainer_load(job->trainer, job->checkpoint, &st))
        return rf_cli_fail_status(error, &st);
    job->resumed_from = rf_trainer_step_count(job->trainer);
    if (!rf_ranks_writer())
        return TRUE;
    g_autofree char *csv = g_build_filename(dir, "metrics.csv", NULL);
    if (!write_config_ini(job, error) || !write_baselines(job, error))
        return FALSE;
    job->csv = rf_metrics_csv_resume(csv, job->first_step + job->resumed_from, &job->cfg, error);
    if (job->csv != NULL && !rf_kept_weights_forget_after(dir, job->first_step + job->resumed_from, &st)) {
        rf_cli_fail_status(error, &st);
        return FALSE;
    }
    if (job->csv == NULL || rf_ranks_count() > 1)
        return job->csv != NULL;
    g_autofree char *distributions = g_build_filename(dir, "distributions.csv", NULL);
    job->distributions = rf_distributions_csv_resume(distributions, job->first_step + job->resumed_from, error);
    return job->distributions != NULL;
}

/* "stage 2 of 3 (data.min_len=100 data.max_len=500 ...)": what the stage
 * changes, shown at its start. */
static char *stage_label(const train_job *job)
{
    if (job->stages < 2)
        return g_strdup("");
    rf_config run_keys = job->cfg;
    run_keys.train.curriculum[0] = '\0';   /* compare only what the stage sets */
    run_keys.train.stage = 0;
    g_autoptr(GString) out = g_string_new(NULL);
    g_string_printf(out, "stage %d of %d", job->stage + 1, job->stages);
    char value[RF_STR_LEN + 32], run_value[RF_STR_LEN + 32];
    int shown = 0;
    for (const rf_config_key *k = rf_config_keys; k->section != NULL; k++) {
        rf_config_format_value(&job->stage_cfg, k, value, sizeof value);
        rf_config_format_value(&run_keys, k, run_value, sizeof run_value);
        if (strcmp(value, run_value) != 0)
            g_string_append_printf(out, "%s%s.%s=%s", shown++ == 0 ? " (" : " ", k->section, k->key, value);
    }
    g_string_append(out, shown > 0 ? "), " : ", ");
    return g_string_free(g_steal_pointer(&out), FALSE);
}

static void print_start(const train_job *job)
{
    const rf_config *c = &job->stage_cfg;
    const rf_memory_plan *plan = rf_trainer_plan(job->trainer);
    g_autofree char *planned = rf_cli_format_bytes(plan->total), *graph = rf_cli_format_bytes(plan->graph);
    g_autofree char *carried_size = rf_cli_format_bytes((size_t)job->carried_bytes);
    g_autofree char *carried = job->carried_bytes > 0
                                   ? g_strdup_printf(" (+%s of weights carried over while it is built)", carried_size)
                                   : g_strdup("");
    g_autofree char *stage = stage_label(job);
    printf("%s %s: %s%s, encoder %s, %d layers, dim %d, %d heads, batch %d, length %d; %lld parameters; "
           "planned memory %s%s, graph bookkeeping %s; steps %lld -> %lld\n",
           job->resumed_from >= 0 ? "resuming" : "training", job->dir, stage, c->data.task, c->model.encoder,
           c->model.layers, c->model.dim, c->model.heads, c->data.batch, rf_trainer_model(job->trainer)->seq_len,
           (long long)plan->param_count, planned, carried, graph,
           (long long)(job->first_step + (job->resumed_from > 0 ? job->resumed_from : 0)),
           (long long)(job->first_step + c->train.steps));
    if (rf_ranks_count() > 1)
        printf("on %d ranks (MPI): data.batch %d is the global batch, %d per rank; rank 0 writes %s\n",
               rf_ranks_count(), c->data.batch, c->data.batch / rf_ranks_count(), job->dir);
    fflush(stdout);
}

static void print_result(const train_job *job, const run_state *s, const char *status, double seconds)
{
    rf_json_line j;
    rf_json_begin(&j);
    rf_json_str(&j, "status", status);
    rf_json_int(&j, "steps", job->first_step + (job->trainer != NULL ? rf_trainer_step_count(job->trainer) : 0));
    rf_json_num(&j, "train_loss", s->train_loss);
    rf_json_num(&j, "val_accuracy", s->val_accuracy);
    rf_json_num(&j, "test_accuracy", s->test_accuracy);
    rf_json_num(&j, "test_loss", s->test_loss);
    rf_json_num(&j, "seconds", seconds);
    rf_json_str(&j, "checkpoint", s->checkpoint_step >= 0 ? job->checkpoint : NULL);
    rf_json_int(&j, "planned_bytes", job->trainer != NULL ? job->planned_bytes : 0);
    rf_json_int(&j, "peak_engine_bytes", (int64_t)rf_alloc_peak_bytes());
    rf_json_int(&j, "peak_rss_bytes", (int64_t)rf_process_peak_rss_bytes());
    rf_json_print(&j);
}

/* What failed on this rank: in a job of several ranks a failure the ranks
 * reached together is shown by rank 0 alone, and one this rank met alone
 * ends the whole job (the others may be waiting for it). */
static int report_failure(const GError *error, const rf_status *st)
{
    if (rf_ranks_count() > 1 && !st->agreed)
        rf_ranks_fail_alone(error->message, RF_EXIT_FAILED);
    return rf_ranks_writer() ? rf_cli_report(error) : RF_EXIT_FAILED;
}

/* Stage k done: the next one's data and trainer, from the weights the
 * last one ended with. Its first checkpoint comes at its first
 * checkpoint_every: until then the file on disk is the last stage's end,
 * from which --resume makes this same step again. */
static bool next_stage(train_job *job, rf_status *st)
{
    rf_params *weights = rf_trainer_copy_weights(job->trainer, st);
    if (weights == NULL)
        return false;
    job->carried_bytes = (int64_t)(weights->total * sizeof *weights->value);
    rf_trainer_free(job->trainer);   /* before the next is built: one stage's memory at a time */
    rf_dataset_free(job->ds);
    job->trainer = NULL;
    job->ds = NULL;
    job->stage++;
    job->resumed_from = -1;
    bool ok = open_stage(job, st) && rf_trainer_init_weights_from(job->trainer, weights, st);
    rf_params_free(weights);
    if (!ok || !rf_ranks_writer())
        return ok;
    g_autoptr(GError) error = NULL;
    if (!write_config_ini(job, &error) || !write_baselines(job, &error))
        return rf_fail(st, "%s", error->message);
    return true;
}

/* Train every stage from job->stage on, or stop at a request. */
static int run(train_job *job)
{
    gboolean writer = rf_ranks_writer();
    run_state s = {
        .trainer = job->trainer,
        .csv = job->csv,
        .distributions = job->distributions,
        .dir = job->dir,
        .checkpoint_step = job->resumed_from >= 0 ? job->first_step + job->resumed_from : -1,
        .first_step = job->first_step,
        .train_loss = NAN,
        .val_accuracy = NAN,
        .test_accuracy = NAN,
        .test_loss = NAN,
        .watch = job->watch,
    };
    int64_t first = job->first_step + (job->resumed_from > 0 ? job->resumed_from : 0);
    int64_t total = rf_curriculum_first_step(&job->cfg, job->stages);
    g_autoptr(rf_progress) progress = writer ? rf_progress_new(stdout, first, total) : NULL;
    s.progress = progress;
    /* rank 0 records and saves; every rank takes part in stopping */
    rf_train_callbacks cb = writer ? (rf_train_callbacks){on_metrics, before_checkpoint, on_checkpoint, should_stop, &s}
                                   : (rf_train_callbacks){.should_stop = should_stop, .ctx = &s};

    /* A first Ctrl-C asks for a clean stop, a second one kills (on_sigint).
     * A SIGINT ignored from the start (a background job) stays ignored. */
    struct sigaction sa = {.sa_handler = on_sigint}, old;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, NULL, &old);
    if (old.sa_handler != SIG_IGN)
        sigaction(SIGINT, &sa, NULL);
    /* SIGUSR1 asks for the same clean stop: under mpirun, which passes it
     * on to every rank (Ctrl-C there ends the job: mpirun sends SIGTERM),
     * and for a run started in the background, whose SIGINT is ignored. A
     * rank killed otherwise is named by its watcher (rank_watch.h). The
     * handler stays to the end of the process: a request that arrives after
     * the stop (mpirun passes the signal on to ranks one after another)
     * has nothing left to stop, and must not kill a rank that is saving. */
    struct sigaction usr1 = {.sa_handler = on_sigint};
    sigemptyset(&usr1.sa_mask);
    sigaction(SIGUSR1, &usr1, NULL);
    gint64 t0 = g_get_monotonic_time();
    rf_status st = {0};
    gboolean ok;
    for (;;) {
        gint64 stage_t0 = g_get_monotonic_time();
        ok = rf_train_run(job->trainer, writer ? job->checkpoint : NULL, &cb, &st);
        if (!ok || rf_trainer_step_count(job->trainer) < job->stage_cfg.train.steps || job->stage == job->stages - 1)
            break;
        s.seconds_before += (g_get_monotonic_time() - stage_t0) * 1e-6;
        ok = next_stage(job, &st);
        if (!ok)
            break;
        s.trainer = job->trainer;
        s.first_step = job->first_step;
        if (writer) {
            rf_progress_end(progress);
            print_start(job);
        }
    }
    sigaction(SIGINT, &old, NULL);

    int64_t step = job->trainer != NULL ? rf_trainer_step_count(job->trainer) : 0;
    gboolean stopped = ok && step < job->stage_cfg.train.steps;
    gboolean watch_stopped = stopped && job->watch != NULL && job->watch->stopped;
    /* Under MPI another rank may have had the request first (mpirun passes
     * SIGUSR1 on to each rank in turn): this rank stopped with it unasked. */
    if (stopped && !watch_stopped && s.write_error == NULL)
        announce_stop(&s);
    if (stopped && writer) {
        if (before_checkpoint(&s, &st) && rf_trainer_save(job->trainer, job->checkpoint, &st))
            s.checkpoint_step = job->first_step + step;
        else
            ok = FALSE;
    }
    /* TensorBoard's HParams table: a stopped run goes on later, so it has no end yet (one stopped by
     * its watch has ended: early stopping) */
    if (writer && (!stopped || watch_stopped)) {
        g_autoptr(GError) end_error = NULL;
        if (!rf_metrics_csv_end(job->csv, ok ? RF_TB_STATUS_SUCCESS : RF_TB_STATUS_FAILURE, &end_error) && ok)
            ok = rf_fail(&st, "%s", end_error->message);
    }
    if (progress != NULL)
        rf_progress_end(progress);
    double seconds = (g_get_monotonic_time() - t0) * 1e-6;

    g_autoptr(GError) error = NULL;
    if (!ok) {
        g_autoptr(GString) msg = g_string_new(st.msg);
        if (s.checkpoint_step >= 0 && g_file_test(job->checkpoint, G_FILE_TEST_EXISTS))
            g_string_append_printf(msg, "; the last good checkpoint is kept at %s (step %lld)", job->checkpoint,
                                   (long long)s.checkpoint_step);
        g_set_error_literal(&error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, msg->str);
    }
    g_clear_error(&s.write_error);
    if (stopped && !watch_stopped && error == NULL && writer)
        rf_progress_note(progress, "stopped at step %lld of %lld; continue with `rangefinder train --resume %s`",
                         (long long)(job->first_step + step), (long long)total, job->dir);
    if (writer)
        print_result(job, &s, error != NULL ? "failed" : watch_stopped ? "stopped early" : stopped ? "stopped" : "finished",
                     seconds);
    if (error != NULL && job->watch != NULL)
        g_strlcpy(job->watch->failure, error->message, sizeof job->watch->failure);
    if (error != NULL)
        return report_failure(error, &st);
    return stopped && !watch_stopped ? RF_EXIT_INTERRUPTED : RF_EXIT_OK;
}

/* --print-launch: the mpirun line or sbatch script for this config. */
static int print_launch(const char *kind_name, int ranks, const char *config, const char *const *sets,
                        const char *out)
{
    g_autoptr(GError) error = NULL;
    rf_launch l = {.ranks = ranks, .sets = sets};
    if (!rf_launch_kind_parse(kind_name, &l.kind)) {
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "train: --print-launch takes mpirun or slurm, not '%s'",
                    kind_name);
        return rf_cli_report(error);
    }
    if (config == NULL) {
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "train: --print-launch needs --config FILE");
        return rf_cli_report(error);
    }
    rf_config cfg;
    if (!rf_config_load_ini(config, sets, &cfg, &error))
        return rf_cli_report(error);
    /* absolute paths: the job may start anywhere */
    g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL), *dir = out != NULL ? g_strdup(out)
                                                                                        : default_out_dir(config);
    g_autofree char *config_abs = g_canonicalize_filename(config, NULL), *dir_abs = g_canonicalize_filename(dir, NULL);
    l.exe = exe != NULL ? exe : "rangefinder";
    l.config_path = config_abs;
    l.out_dir = dir_abs;
    g_autofree char *text = rf_launch_text(&l, &cfg, &error);
    if (text == NULL)
        return rf_cli_report(error);
    fputs(text, stdout);
    return RF_EXIT_OK;
}

/* A prepared job run to its end (or its error reported); the job is freed. */
static int run_prepared(train_job *job, gboolean ready, GError *error)
{
    int code;
    if (rf_ranks_agree(ready, error)) {   /* on several ranks, all go on or none */
        if (rf_ranks_writer())
            print_start(job);
        code = run(job);
    } else {
        if (error != NULL && job->watch != NULL)
            g_strlcpy(job->watch->failure, error->message, sizeof job->watch->failure);
        code = error != NULL ? rf_cli_exit_code(error) : RF_EXIT_FAILED;
    }
    train_job_clear(job);
    return code;
}

int rf_train_new_run(const char *config, const char *const *sets, const char *out, const char *runs,
                     const char *init, char **dir)
{
    train_job job = {0};
    g_autoptr(GError) error = NULL;
    gboolean ready = prepare_new(&job, config, sets, out, runs, init, &error);
    if (dir != NULL)
        *dir = g_strdup(job.dir);
    return run_prepared(&job, ready, error);
}

int rf_train_watched_run(const char *config, const char *const *sets, const char *out, rf_train_watch *watch)
{
    train_job job = {.watch = watch};
    g_autoptr(GError) error = NULL;
    g_autofree char *checkpoint = g_build_filename(out, "checkpoint.safetensors", NULL);
    gboolean ready = g_file_test(checkpoint, G_FILE_TEST_EXISTS) ? prepare_resume(&job, out, NULL, &error)
                                                                  : prepare_new(&job, config, sets, out, NULL, NULL, &error);
    return run_prepared(&job, ready, error);
}

int rf_cmd_train(int argc, char **argv)
{
    g_autofree char *config = NULL, *out = NULL, *resume = NULL, *runs = NULL, *launch = NULL, *init = NULL;
    g_auto(GStrv) sets = NULL;
    int ranks = 2;
    const GOptionEntry entries[] = {
        {"config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "Config file (INI) of a new run", "FILE"},
        {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Override one key (repeatable)", "SECTION.KEY=VALUE"},
        {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "Run directory (default: runs/<config name>)", "DIR"},
        {"runs", 0, 0, G_OPTION_ARG_FILENAME, &runs,
         "Train into a new folder in the runs folder DIR, named from the date, time and config", "DIR"},
        {"resume", 'r', 0, G_OPTION_ARG_FILENAME, &resume, "Continue the run in DIR up to train.steps", "DIR"},
        {"init", 0, 0, G_OPTION_ARG_FILENAME, &init,
         "Start the new run from the weights of CHECKPOINT (a model of the same architecture; the optimiser "
         "and the step start afresh)", "CHECKPOINT"},
        {"print-launch", 0, 0, G_OPTION_ARG_STRING, &launch,
         "Print the command (mpirun) or sbatch script (slurm) that runs this training on --ranks processes, "
         "and exit", "mpirun|slurm"},
        {"ranks", 0, 0, G_OPTION_ARG_INT, &ranks, "Processes for --print-launch (default 2)", "N"},
        G_OPTION_ENTRY_NULL,
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_summary(ctx,
        "Train a classifier. A new run needs --config; it writes DIR/config.ini (every key),\n"
        "DIR/metrics.csv and DIR/checkpoint.safetensors. --resume DIR continues a run with the\n"
        "config saved in its checkpoint; --set may then change only optimiser, schedule, step,\n"
        "evaluation, checkpoint and logging keys. Ctrl-C stops after the current step and saves.");
    g_option_context_set_description(ctx,
        "Examples:\n"
        "  rangefinder train --config data/configs/default.ini\n"
        "  rangefinder train --config data/configs/listops-full.ini --set train.lr=1e-3 --out runs/lr1e-3\n"
        "  rangefinder train --config data/configs/default.ini --runs ~/.local/share/rangefinder/runs\n"
        "  rangefinder train --resume runs/default --set train.steps=600\n"
        "  rangefinder train --config data/configs/listops-full.ini --init runs/short/checkpoint.safetensors\n"
        "  rangefinder train --config data/configs/listops-blrp-curriculum.ini   (stages: train.curriculum)\n"
        "  mpirun -np 2 rangefinder train --config data/configs/listops-ls.ini --set train.threads=1\n"
        "  rangefinder train --config data/configs/listops-ls.ini --print-launch slurm --ranks 8 > job.sh\n"
        "\nUnder mpirun (or srun) each process is a rank: data.batch is the global batch, split\n"
        "evenly; rank 0 writes the run folder. See docs/scaling.md.\n");

    g_autoptr(GError) error = NULL;
    if (!rf_cli_parse(ctx, "train", &argc, &argv, &error))
        return rf_cli_report(error);
    if (resume != NULL && (config != NULL || out != NULL || runs != NULL || init != NULL)) {
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE,
                    "train: --resume DIR takes the config, the weights and the directory from the run; "
                    "drop --config, --init, --out and --runs");
        return rf_cli_report(error);
    }
    if (out != NULL && runs != NULL) {
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE,
                    "train: --out names the run's folder, --runs the folder a new one is made in; give one");
        return rf_cli_report(error);
    }
    if (resume == NULL && config == NULL) {
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE,
                    "train needs --config FILE or --resume DIR (see `rangefinder train --help`)");
        return rf_cli_report(error);
    }

    const char *const *overrides = (const char *const *)sets;
    if (launch != NULL)
        return print_launch(launch, ranks, config, overrides, out);
    if (resume == NULL)
        return rf_train_new_run(config, overrides, out, runs, init, NULL);
    train_job job = {0};
    gboolean ready = prepare_resume(&job, resume, overrides, &error);
    return run_prepared(&job, ready, error);
}
