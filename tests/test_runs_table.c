/* The runs folder read as a table (issue 12 item 12), headless: a run's
 * status from what its folder holds, its steps, best validation and test
 * accuracy and time from metrics.csv, run.ini's name and tags, the config
 * keys that differ between runs, the order of a column, malformed folders
 * left out with a warning naming them, refreshes that reread only what
 * changed, and a sweep folder's trials listed as runs. */
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../ui/runs_table.h"
#include "run_folders.h"
#include "../config/run_folder.h"
#include "../config/run_lock.h"
#include "tap.h"

#define OLD (2 * 3600.0)

static char *root;

static rf_run_entry *find(rf_runs_table *t, const char *folder)
{
    g_autofree char *dir = g_build_filename(root, folder, NULL);
    return rf_runs_table_find(t, dir);
}

static gboolean warned_about(rf_runs_table *t, const char *folder, const char *problem)
{
    for (guint i = 0; i < t->warnings->len; i++) {
        const char *w = g_ptr_array_index(t->warnings, i);
        if (strstr(w, folder) != NULL && strstr(w, problem) != NULL)
            return TRUE;
    }
    return FALSE;
}

static void write_text(const char *folder, const char *file, const char *text, gssize len)
{
    g_autofree char *dir = g_build_filename(root, folder, NULL);
    g_mkdir_with_parents(dir, 0700);
    g_autofree char *path = g_build_filename(dir, file, NULL);
    g_file_set_contents(path, text, len, NULL);
}

static void make_folders(void)
{
    static const char *const blrp[] = {"model.encoder=blrp", "model.dim=16", NULL};
    static const char *const full[] = {"model.encoder=full", "model.dim=128", NULL};
    static const char *const ls[] = {"model.encoder=ls", "model.dim=64", NULL};
    const fake_run runs[] = {
        {"a-finished", blrp, 1000, 10, TRUE, TRUE, OLD},
        {"b-stopped", full, 400, 10, FALSE, TRUE, OLD},
        {"c-failed", ls, 200, 10, FALSE, FALSE, OLD},
        {"d-running", full, 300, 10, FALSE, FALSE, 0},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(runs); i++)
        g_free(write_fake_run(root, &runs[i]));
    /* malformed: a metrics file of another program, a config with an unknown
     * key, no config at all, garbage bytes in a row */
    write_text("e-bad-header", "config.ini", "[model]\ndim = 32\n", -1);
    write_text("e-bad-header", "metrics.csv", "epoch,loss\n1,2.0\n", -1);
    write_text("f-bad-config", "config.ini", "[model]\nwidth = 32\n", -1);
    write_text("f-bad-config", "metrics.csv", "step,split,loss,accuracy,lr,seconds\n", -1);
    write_text("g-no-config", "notes.txt", "not a run\n", -1);
    static const char garbage[] = "step,split,loss,accuracy,lr,seconds\n1,train,2,0.1,0.001,0.1\n\0\xff,zz\n";
    write_text("h-garbage", "config.ini", "", -1);
    write_text("h-garbage", "metrics.csv", garbage, sizeof garbage - 1);
    g_autofree char *file = g_build_filename(root, "README.txt", NULL);
    g_file_set_contents(file, "a file beside the runs is no run\n", -1, NULL);
}

static void test_load(rf_runs_table *t)
{
    tap_ok(rf_runs_table_refresh(t), "the first read finds runs");
    tap_ok(t->entries->len == 4, "four run folders are runs (%u)", t->entries->len);
    tap_ok(t->warnings->len == 4, "four malformed folders are left out with a warning each (%u)", t->warnings->len);
    tap_ok(warned_about(t, "e-bad-header", "metrics.csv:1: not a metrics file"),
           "a metrics file of another program is named, with its line");
    tap_ok(warned_about(t, "f-bad-config", "width"), "a config with an unknown key is named, with the key");
    tap_ok(warned_about(t, "g-no-config", "no config.ini"), "a folder without config.ini is named");
    tap_ok(warned_about(t, "h-garbage", "metrics.csv:3"), "a metrics row of garbage bytes is named, with its line");

    const struct {
        const char *folder;
        rf_run_status status;
        int64_t steps;
    } want[] = {
        {"a-finished", RF_RUN_STATUS_FINISHED, 1000},
        {"b-stopped", RF_RUN_STATUS_STOPPED, 400},
        {"c-failed", RF_RUN_STATUS_FAILED, 200},
        {"d-running", RF_RUN_STATUS_RUNNING, 300},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
        const rf_run_entry *e = find(t, want[i].folder);
        tap_ok(e != NULL && e->status == want[i].status && e->steps == want[i].steps,
               "%s: %s at step %lld (%s, %lld)", want[i].folder, rf_run_status_name(want[i].status),
               (long long)want[i].steps, e != NULL ? rf_run_status_name(e->status) : "missing",
               e != NULL ? (long long)e->steps : -1LL);
    }
    const rf_run_entry *a = find(t, "a-finished"), *b = find(t, "b-stopped");
    /* val accuracy 0.1 + 0.5 t peaks at the last val row (t = 1), test 0.55 */
    tap_ok(a != NULL && fabs(a->best_val - 0.6) < 1e-6 && fabs(a->test_accuracy - 0.55) < 1e-9,
           "the finished run's best validation (%g) and test accuracy (%g)", a != NULL ? a->best_val : NAN,
           a != NULL ? a->test_accuracy : NAN);
    tap_ok(b != NULL && isnan(b->test_accuracy) && b->seconds > 0, "a stopped run has no test accuracy, a time (%g s)",
           b != NULL ? b->seconds : NAN);
    g_autofree char *cell = a != NULL ? rf_run_entry_cell(a, "encoder") : NULL;
    g_autofree char *dim = a != NULL ? rf_run_entry_cell(a, "model.dim") : NULL;
    g_autofree char *data = a != NULL ? rf_run_entry_cell(a, "data") : NULL;
    tap_ok(g_strcmp0(cell, "blrp") == 0 && g_strcmp0(dim, "16") == 0 && g_strcmp0(data, "ListOps (generated)") == 0,
           "cells: encoder %s, model.dim %s, data set %s (as the workbench names it)", cell, dim, data);
}

static const char *sort_column;

static int by_column(gconstpointer a, gconstpointer b)
{
    return rf_run_entry_compare(*(rf_run_entry *const *)a, *(rf_run_entry *const *)b, sort_column);
}

/* The folders' first letters in the column's order: "cdba". */
static char *order_by(rf_runs_table *t, const char *column)
{
    g_autoptr(GPtrArray) sorted = g_ptr_array_new();   /* borrowed entries */
    g_ptr_array_extend(sorted, t->entries, NULL, NULL);
    sort_column = column;
    g_ptr_array_sort(sorted, by_column);
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < sorted->len; i++)
        g_string_append_c(s, ((rf_run_entry *)g_ptr_array_index(sorted, i))->folder[0]);
    return g_string_free(s, FALSE);
}

static void test_keys_and_order(rf_runs_table *t)
{
    g_auto(GStrv) keys = rf_runs_table_differing_keys(t);
    g_autofree char *joined = g_strjoinv(" ", keys);
    tap_ok(g_strv_contains((const char *const *)keys, "model.encoder") &&
               g_strv_contains((const char *const *)keys, "model.dim") && g_strv_length(keys) == 2,
           "the differing keys are model.encoder and model.dim (%s)", joined);
    g_autofree char *steps = order_by(t, "steps"), *dim = order_by(t, "model.dim"), *test = order_by(t, "test");
    g_autofree char *status = order_by(t, "status");
    tap_ok(strcmp(steps, "cdba") == 0, "by steps: numbers in order (%s)", steps);
    tap_ok(strcmp(dim, "acbd") == 0 || strcmp(dim, "acdb") == 0,
           "by model.dim: 16 < 64 < 128, numbers not text (%s)", dim);
    tap_ok(test[0] == 'a', "by test accuracy: runs without one last (%s)", test);
    tap_ok(strcmp(status, "cadb") == 0, "by status: failed, finished, running, stopped (%s)", status);
}

static void test_meta(rf_runs_table *t)
{
    rf_run_entry *b = find(t, "b-stopped");
    g_autoptr(GError) error = NULL;
    tap_ok(b != NULL && rf_run_entry_set_meta(b, "wide baseline", "baseline, lr-sweep", &error),
           "a run is renamed and tagged (%s)", error != NULL ? error->message : "");
    g_autoptr(rf_runs_table) again = rf_runs_table_new(root);
    rf_runs_table_refresh(again);
    const rf_run_entry *read = find(again, "b-stopped");
    tap_ok(read != NULL && strcmp(read->name, "wide baseline") == 0 && strcmp(read->tags, "baseline, lr-sweep") == 0,
           "the name and tags are read back from run.ini (%s / %s)", read != NULL ? read->name : "-",
           read != NULL ? read->tags : "-");
    g_autofree char *kept = g_build_filename(root, "b-stopped", NULL);
    tap_ok(g_file_test(kept, G_FILE_TEST_IS_DIR), "renaming keeps the folder's name (a CLI may still write to it)");
    tap_ok(rf_run_entry_set_meta(b, "", "", NULL) && strcmp(b->name, "b-stopped") == 0,
           "an empty name goes back to the folder's");
}

static void test_refresh(rf_runs_table *t)
{
    tap_ok(rf_runs_table_refresh(t), "a refresh sees the renamed run's run.ini");
    tap_ok(!rf_runs_table_refresh(t) && t->warnings->len == 4,
           "a refresh with nothing changed changes nothing, and keeps the warnings (%u)", t->warnings->len);
    rf_run_entry *before = find(t, "a-finished");
    /* a CLI run writing: a complete row and one cut short */
    g_autofree char *csv = g_build_filename(root, "d-running", "metrics.csv", NULL);
    FILE *f = fopen(csv, "a");
    fputs("310,train,1.0,0.5,0.001,20.0\n320,tra", f);
    fclose(f);
    tap_ok(rf_runs_table_refresh(t), "a refresh sees the run that moved on");
    const rf_run_entry *d = find(t, "d-running");
    tap_ok(d != NULL && d->steps == 310, "the complete row counts, the one being written waits (%lld)",
           d != NULL ? (long long)d->steps : -1LL);
    tap_ok(find(t, "a-finished") == before, "an unchanged folder is not read again");

    g_autofree char *dir = g_build_filename(root, "b-stopped", NULL);
    rf_runs_table_set_live(t, dir, RF_RUN_STATUS_RUNNING);
    rf_runs_table_refresh(t);
    const rf_run_entry *b = find(t, "b-stopped");
    tap_ok(b != NULL && b->status == RF_RUN_STATUS_RUNNING, "the run this process trains has its trainer's status");

    g_autofree char *gone = g_build_filename(root, "c-failed", NULL);
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", gone);
    tap_ok(system(cmd) == 0 && rf_runs_table_refresh(t) && find(t, "c-failed") == NULL && t->entries->len == 3,
           "a folder that went is dropped");
    /* a slow run: ten minutes between rows, the last written five minutes ago */
    write_text("i-slow", "config.ini", "", -1);
    write_text("i-slow", "metrics.csv", "step,split,loss,accuracy,lr,seconds\n10,train,2,0.1,0.001,600\n"
                                        "20,train,2,0.1,0.001,1200\n", -1);
    g_autofree char *slow_csv = g_build_filename(root, "i-slow", "metrics.csv", NULL);
    struct utimbuf five_minutes = {.actime = time(NULL) - 300, .modtime = time(NULL) - 300};
    g_utime(slow_csv, &five_minutes);
    rf_runs_table_refresh(t);
    const rf_run_entry *slow = find(t, "i-slow");
    tap_ok(slow != NULL && slow->status == RF_RUN_STATUS_RUNNING,
           "a run that logs every ten minutes is still running five minutes after its last row");

    g_autoptr(rf_runs_table) none = rf_runs_table_new("/nonexistent/rangefinder-runs");
    rf_runs_table_refresh(none);
    tap_ok(none->entries->len == 0 && none->warnings->len == 0, "a runs folder not made yet is an empty table");
}

/* A run whose rows are fresh is running while another process holds its
 * folder's lock (a child process stands in for `rangefinder train`), and
 * not once that trainer is gone (killed here: the lock file stays, naming
 * it; the workbench's Close Without Saving lets go the same way), where the
 * rows' time alone would call it running for a minute more. */
static void test_lock(rf_runs_table *t)
{
    static const char *const full[] = {"model.encoder=full", NULL};
    g_free(write_fake_run(root, &(fake_run){"j-locked", full, 100, 10, FALSE, FALSE, 0}));
    g_autofree char *dir = g_build_filename(root, "j-locked", NULL);
    int ready[2];
    if (pipe(ready) != 0)
        return;
    pid_t holder = fork();
    if (holder == 0) {
        rf_run_lock *lock = rf_run_lock_take(dir, "a test trainer", NULL);
        char said = lock != NULL ? 'y' : 'n';
        if (write(ready[1], &said, 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    char said = 'n';
    gboolean locked = holder > 0 && read(ready[0], &said, 1) == 1 && said == 'y';
    close(ready[0]);
    close(ready[1]);
    rf_runs_table_refresh(t);
    const rf_run_entry *e = find(t, "j-locked");
    tap_ok(locked && e != NULL && e->status == RF_RUN_STATUS_RUNNING,
           "a run whose folder another process locks is running");
    if (holder > 0) {
        kill(holder, SIGKILL);
        waitpid(holder, NULL, 0);
    }
    rf_runs_table_refresh(t);
    e = find(t, "j-locked");
    tap_ok(e != NULL && e->status == RF_RUN_STATUS_FAILED,
           "once its trainer is gone (the lock file stays, unheld) it is not, however fresh its rows (%s)",
           e != NULL ? rf_run_status_name(e->status) : "not listed");
}

/* init.ini (`train --init`): the From column names the run whose
 * checkpoint a run started from; an init.ini without one is named. */
static void test_init(void)
{
    static const char *const blrp[] = {"model.encoder=blrp", NULL};
    g_autofree char *saved = root;
    root = g_dir_make_tmp("rf-runs-init-XXXXXX", NULL);
    const fake_run runs[] = {{"stage1", blrp, 300, 10, TRUE, TRUE, OLD},
                             {"stage2", blrp, 300, 10, TRUE, TRUE, OLD},
                             {"bad-init", blrp, 300, 10, TRUE, TRUE, OLD},
                             {"garbled-init", blrp, 300, 10, TRUE, TRUE, OLD}};
    for (size_t i = 0; i < G_N_ELEMENTS(runs); i++)
        g_free(write_fake_run(root, &runs[i]));
    g_autofree char *init = g_strdup_printf("[init]\ncheckpoint=%s/stage1/checkpoint.safetensors\nstep=300\n", root);
    write_text("stage2", RF_RUN_INIT_FILE, init, -1);
    write_text("bad-init", RF_RUN_INIT_FILE, "[init]\nstep=300\n", -1);
    write_text("garbled-init", RF_RUN_INIT_FILE, "step 300 without a group\n", -1);
    g_autoptr(rf_runs_table) t = rf_runs_table_new(root);
    rf_runs_table_refresh(t);
    const rf_run_entry *one = find(t, "stage1"), *two = find(t, "stage2");
    g_autofree char *from1 = one != NULL ? rf_run_entry_cell(one, "from") : NULL;
    g_autofree char *from2 = two != NULL ? rf_run_entry_cell(two, "from") : NULL;
    tap_ok(g_strcmp0(from2, "stage1") == 0 && g_strcmp0(from1, "") == 0,
           "From: the run a --init run started from (%s), empty for one trained from scratch (%s)", from2, from1);
    tap_ok(t->entries->len == 2 && warned_about(t, "bad-init", "no [init] checkpoint="),
           "an init.ini that names no checkpoint is named (%u runs)", t->entries->len);
    tap_ok(warned_about(t, "garbled-init/" RF_RUN_INIT_FILE, ""), "an init.ini that is no key file is named");
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", root);
    if (system(cmd) != 0)
        tap_ok(FALSE, "remove %s", root);
    g_free(root);
    root = g_steal_pointer(&saved);
}

/* A sweep folder (sweep.ini and sweep.csv, as `rangefinder sweep` writes
 * them) is no run: its trials' folders are, each naming the sweep; a folder
 * of runs without those files stays a malformed folder. */
static void test_sweep_folder(void)
{
    static const char *const blrp[] = {"model.encoder=blrp", NULL};
    g_autofree char *saved = root;
    root = g_dir_make_tmp("rf-runs-sweep-XXXXXX", NULL);
    g_free(write_fake_run(root, &(fake_run){"plain", blrp, 300, 10, TRUE, TRUE, OLD}));
    g_autofree char *sweep = g_build_filename(root, "lr", NULL), *nested = g_build_filename(root, "nested", NULL);
    for (int i = 1; i <= 2; i++) {
        g_autofree char *name = g_strdup_printf("trial-%03d", i);
        g_free(write_fake_run(sweep, &(fake_run){name, blrp, 20, 10, TRUE, TRUE, OLD}));
        g_free(write_fake_run(nested, &(fake_run){name, blrp, 20, 10, TRUE, TRUE, OLD}));
    }
    write_text("lr", "sweep.ini", "[sweep]\n[keys]\ntrain.lr = 0.1, 0.01\n", -1);
    write_text("lr", "sweep.csv", "trial,train.lr,status,reason,best_val_accuracy,final_val_accuracy,steps,seconds,folder\n", -1);
    g_autoptr(rf_runs_table) t = rf_runs_table_new(root);
    rf_runs_table_refresh(t);
    const rf_run_entry *plain = find(t, "plain"), *two = find(t, "lr/trial-002");
    g_autofree char *name = two != NULL ? rf_run_entry_cell(two, "name") : NULL;
    tap_ok(t->entries->len == 3 && plain != NULL && plain->sweep[0] == '\0' && two != NULL &&
               strcmp(two->sweep, "lr") == 0 && g_strcmp0(name, "lr/trial-002") == 0,
           "a sweep folder's trials are runs, named by the sweep (%u runs, %s)", t->entries->len, name);
    tap_ok(t->sweeps->len == 1 && g_strcmp0(g_ptr_array_index(t->sweeps, 0), sweep) == 0 && t->warnings->len == 1 &&
               warned_about(t, "nested", "no config.ini"),
           "the sweep folder is listed as a sweep, not left out; a folder of runs without sweep files is (%u warnings)",
           t->warnings->len);
    g_autofree char *csv = g_build_filename(sweep, "sweep.csv", NULL);
    g_unlink(csv);
    rf_runs_table_refresh(t);
    tap_ok(t->sweeps->len == 0 && find(t, "lr/trial-001") == NULL && warned_about(t, "lr", "no config.ini"),
           "without its sweep.csv it is no sweep any more");
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", root);
    if (system(cmd) != 0)
        tap_ok(FALSE, "remove %s", root);
    g_free(root);
    root = g_steal_pointer(&saved);
}

int main(void)
{
    root = g_dir_make_tmp("rf-runs-table-XXXXXX", NULL);
    make_folders();
    g_autoptr(rf_runs_table) t = rf_runs_table_new(root);
    test_load(t);
    test_keys_and_order(t);
    test_meta(t);
    test_refresh(t);
    test_lock(t);
    test_init();
    test_sweep_folder();
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", root);
    if (system(cmd) != 0)
        tap_ok(FALSE, "remove %s", root);
    g_free(root);
    return tap_done();
}
