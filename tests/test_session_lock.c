/* The workbench session and the run-folder lock (config/run_lock.h), with
 * a real `rangefinder train` as the other process:
 *  - a checkpoint of a run that `rangefinder train` is training opens (a
 *    read), but Resume, Step and Save Checkpoint into its folder are
 *    refused with the sentence naming that process, and the run stays
 *    paused at its step; once the trainer has stopped, it resumes;
 *  - a run the session trains into its runs folder holds that folder, even
 *    stopped (it may be resumed here): `train --resume` on it is refused
 *    naming this process, the workbench; a new run lets the old folder go.
 *
 *   test_session_lock PATH/TO/rangefinder */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "../core/config.h"
#include "../ui/session.h"
#include "tap.h"

static const char *rangefinder;

/* A tiny ListOps run that trains until stopped, a checkpoint every 10 steps. */
static const char tiny_ini[] = "[data]\ntask = listops\nmax_len = 40\nmin_len = 10\ntrain_size = 256\n"
                               "val_size = 8\ntest_size = 8\nbatch = 2\n"
                               "[model]\ndim = 8\nheads = 2\nff = 16\nlayers = 1\n"
                               "[train]\nsteps = 1000000\neval_every = 50\neval_batches = 1\n"
                               "checkpoint_every = 10\nlog_every = 1\nthreads = 1\nseed = 5\n";

static gboolean wake_up(gpointer data)
{
    (void)data;
    return G_SOURCE_CONTINUE;
}

/* The main loop for `seconds`, or until *step_at_least (if given) is reached. */
static void run_loop(RfSession *s, double seconds, int64_t step_at_least)
{
    guint ticker = g_timeout_add(20, wake_up, NULL);
    gint64 end = g_get_monotonic_time() + (gint64)(seconds * G_USEC_PER_SEC);
    while (g_get_monotonic_time() < end && (step_at_least < 0 || rf_session_get_step(s) < step_at_least))
        g_main_context_iteration(NULL, TRUE);
    g_source_remove(ticker);
}

static gboolean wait_for_file(const char *path, double seconds)
{
    gint64 end = g_get_monotonic_time() + (gint64)(seconds * G_USEC_PER_SEC);
    while (!g_file_test(path, G_FILE_TEST_EXISTS) && g_get_monotonic_time() < end)
        g_usleep(50 * 1000);
    return g_file_test(path, G_FILE_TEST_EXISTS);
}

/* `rangefinder train ARGS` in the background; its output is not needed. */
static GPid start_trainer(const char *const *args)
{
    GPtrArray *argv = g_ptr_array_new();
    g_ptr_array_add(argv, (char *)rangefinder);
    g_ptr_array_add(argv, "train");
    for (const char *const *a = args; *a != NULL; a++)
        g_ptr_array_add(argv, (char *)*a);
    g_ptr_array_add(argv, NULL);
    GPid pid = 0;
    g_autoptr(GError) error = NULL;
    if (!g_spawn_async(NULL, (char **)argv->pdata, NULL,
                       G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                       NULL, &pid, &error))
        tap_diag("cannot start %s: %s", rangefinder, error->message);
    g_ptr_array_free(argv, TRUE);
    return pid;
}

/* Ask a trainer to stop and save (SIGUSR1); its exit code. */
static int stop_trainer(GPid pid)
{
    int status = 0;
    kill(pid, SIGUSR1);
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* `rangefinder train ARGS` to its end: its exit code, stderr in *err. */
static int run_trainer(const char *const *args, char **err)
{
    GPtrArray *argv = g_ptr_array_new();
    g_ptr_array_add(argv, (char *)rangefinder);
    g_ptr_array_add(argv, "train");
    for (const char *const *a = args; *a != NULL; a++)
        g_ptr_array_add(argv, (char *)*a);
    g_ptr_array_add(argv, NULL);
    int status = -1;
    g_autoptr(GError) error = NULL;
    if (!g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, err, &status,
                      &error))
        *err = g_strdup(error->message);
    g_ptr_array_free(argv, TRUE);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *sentence(const char *dir, long pid, const char *holder)
{
    return g_strdup_printf("%s is being trained by process %ld (%s); wait for it to finish or stop it", dir, pid,
                           holder);
}

/* A checkpoint of a run another process trains: opened, never trained. */
static void test_opened_run_of_a_trainer(RfSession *s, const char *tmp)
{
    g_autofree char *ini = g_build_filename(tmp, "tiny.ini", NULL);
    g_autofree char *run = g_build_filename(tmp, "cli-run", NULL);
    g_autofree char *checkpoint = g_build_filename(run, "checkpoint.safetensors", NULL);
    g_file_set_contents(ini, tiny_ini, -1, NULL);
    const char *args[] = {"--config", ini, "--out", run, NULL};
    GPid trainer = start_trainer(args);
    tap_ok(trainer > 0 && wait_for_file(checkpoint, 60), "`rangefinder train` (process %d) trains a run",
           (int)trainer);

    g_autoptr(GError) error = NULL;
    tap_ok(rf_session_load_checkpoint(s, checkpoint, &error), "its checkpoint opens in the session: %s",
           error != NULL ? error->message : "a read");
    g_clear_error(&error);
    int64_t step = rf_session_get_step(s);
    g_autofree char *want = sentence(run, (long)trainer, "rangefinder train");

    gboolean refused = !rf_session_resume(s, &error) && error != NULL && strcmp(error->message, want) == 0;
    tap_ok(refused, "Resume is refused with the sentence naming the trainer: %s",
           error != NULL ? error->message : "(resumed)");
    g_clear_error(&error);
    refused = !rf_session_step_once(s, &error) && error != NULL && strcmp(error->message, want) == 0;
    tap_ok(refused, "so is Step: %s", error != NULL ? error->message : "(stepped)");
    g_clear_error(&error);
    refused = !rf_session_save_checkpoint(s, checkpoint, &error) && error != NULL && strcmp(error->message, want) == 0;
    tap_ok(refused, "and Save Checkpoint into its folder: %s", error != NULL ? error->message : "(saved)");
    g_clear_error(&error);
    run_loop(s, 0.5, -1);
    tap_ok(rf_session_get_state(s) == RF_RUN_PAUSED && rf_session_get_step(s) == step,
           "the opened run stays paused at step %" G_GINT64_FORMAT " (at %" G_GINT64_FORMAT ")", step,
           rf_session_get_step(s));

    int code = stop_trainer(trainer);
    tap_ok(code == 130, "the trainer stops and saves when asked (exit %d)", code);
    gboolean resumed = rf_session_resume(s, &error);
    run_loop(s, 30, step + 3);
    tap_ok(resumed && rf_session_get_step(s) >= step + 3, "then the opened run resumes and trains (step %" G_GINT64_FORMAT
           ")%s%s", rf_session_get_step(s), error != NULL ? ": " : "", error != NULL ? error->message : "");
    rf_session_stop(s);
}

/* The one folder in `runs` (g_free), or NULL. */
static char *only_folder(const char *runs)
{
    g_autoptr(GDir) d = g_dir_open(runs, 0, NULL);
    const char *name = d != NULL ? g_dir_read_name(d) : NULL;
    if (name == NULL || g_dir_read_name(d) != NULL)
        return NULL;
    return g_build_filename(runs, name, NULL);
}

static rf_config tiny_session_config(void)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.data.task, "random");
    cfg.data.batch = 8;
    cfg.data.max_len = 24;
    cfg.data.min_len = 4;
    cfg.data.vocab = 8;
    cfg.data.classes = 4;
    cfg.data.train_size = 256;
    cfg.data.val_size = 32;
    cfg.data.test_size = 32;
    cfg.model.dim = 16;
    cfg.model.heads = 2;
    cfg.model.ff = 32;
    cfg.train.steps = 1000000;
    cfg.train.threads = 1;
    cfg.train.eval_every = 10;
    cfg.train.checkpoint_every = 0;
    return cfg;
}

/* The session's own run holds its folder while it may still write there. */
static void test_own_run_holds_its_folder(RfSession *s, const char *tmp)
{
    g_autofree char *runs = g_build_filename(tmp, "runs", NULL);
    rf_session_set_runs_dir(s, runs);
    rf_config cfg = tiny_session_config();
    g_autoptr(GError) error = NULL;
    gboolean started = rf_session_set_config(s, &cfg, &error) && rf_session_start(s, &error);
    run_loop(s, 60, 3);
    rf_session_stop(s);
    g_autofree char *folder = only_folder(runs);
    g_autofree char *checkpoint = folder != NULL ? g_build_filename(folder, "checkpoint.safetensors", NULL)
                                                 : g_strdup("");
    tap_ok(started && rf_session_get_state(s) == RF_RUN_STOPPED && g_file_test(checkpoint, G_FILE_TEST_EXISTS),
           "a run of the session, stopped, has its folder and checkpoint (%s)", folder != NULL ? folder : "none");

    g_autofree char *err = NULL;
    g_autofree char *steps = g_strdup_printf("train.steps=%" G_GINT64_FORMAT, rf_session_get_step(s) + 2);
    const char *resume[] = {"--resume", folder != NULL ? folder : "", "--set", steps, NULL};
    int code = run_trainer(resume, &err);
    g_autofree char *refusal = sentence(folder != NULL ? folder : "", (long)getpid(), "the workbench");
    g_autofree char *want = g_strdup_printf("rangefinder: %s\n", refusal);
    tap_ok(code == 1 && g_strcmp0(err, want) == 0, "`train --resume` on it is refused naming this process: exit %d, %s",
           code, err != NULL ? err : "");

    g_clear_pointer(&err, g_free);
    started = rf_session_start(s, &error);   /* a new run: the old folder is let go */
    rf_session_stop(s);
    code = run_trainer(resume, &err);
    tap_ok(started && code == 0, "once a new run replaces it, `train --resume` trains it (exit %d)%s%s", code,
           code != 0 && err != NULL ? ": " : "", code != 0 && err != NULL ? err : "");
    rf_session_set_runs_dir(s, NULL);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH/TO/rangefinder\n", argv[0]);
        return 2;
    }
    rangefinder = argv[1];
    g_autofree char *tmp = g_dir_make_tmp("rf-session-lock-XXXXXX", NULL);
    RfSession *s = rf_session_new();
    test_opened_run_of_a_trainer(s, tmp);
    test_own_run_holds_its_folder(s, tmp);
    g_object_unref(s);
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        tap_diag("could not remove %s", tmp);
    return tap_done();
}
