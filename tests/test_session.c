/* The workbench session without a display: a tiny run on the random task
 * driven through the main loop as the window drives it. Rows arrive at no
 * more than 10 signals a second, pause/step/stop act between steps,
 * optimiser edits reach the running trainer, probes arrive filled,
 * checkpoints round-trip (every tensor, bit for bit), bad files and bad
 * data paths fail with messages that name them, the compare queue runs
 * every config, inputs from outside the data set are featurised,
 * inspected while paused, refused by name and dropped with their data set,
 * the probe history keeps the first snapshot at or after each evaluation
 * of the run, none for one nobody watched, and starts anew with a run, and
 * runs are recorded in the runs folder. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>
#include <jansson.h>

#include "../config/config_file.h"
#include "../config/run_folder.h"
#include "../core/config.h"
#include "../core/device.h"
#include "../ui/session.h"
#include "same_tensors.h"
#include "tap.h"

typedef struct watcher {
    int state_changed, metrics_changed, probes_changed, config_changed, data_changed, run_failed, queue_changed;
    char *last_failure;
} watcher;

static void on_state(RfSession *s, gpointer data) { (void)s; ((watcher *)data)->state_changed++; }
static void on_metrics(RfSession *s, gpointer data) { (void)s; ((watcher *)data)->metrics_changed++; }
static void on_probes(RfSession *s, gpointer data) { (void)s; ((watcher *)data)->probes_changed++; }
static void on_data(RfSession *s, gpointer data) { (void)s; ((watcher *)data)->data_changed++; }
static void on_queue(RfSession *s, gpointer data) { (void)s; ((watcher *)data)->queue_changed++; }

static void on_config(RfSession *s, const char *key, gpointer data)
{
    (void)s;
    (void)key;
    ((watcher *)data)->config_changed++;
}

static void on_failed(RfSession *s, const char *message, gpointer data)
{
    (void)s;
    watcher *w = data;
    w->run_failed++;
    g_free(w->last_failure);
    w->last_failure = g_strdup(message);
}

static void watch(RfSession *s, watcher *w)
{
    g_signal_connect(s, "state-changed", G_CALLBACK(on_state), w);
    g_signal_connect(s, "metrics-changed", G_CALLBACK(on_metrics), w);
    g_signal_connect(s, "probes-changed", G_CALLBACK(on_probes), w);
    g_signal_connect(s, "config-changed", G_CALLBACK(on_config), w);
    g_signal_connect(s, "data-changed", G_CALLBACK(on_data), w);
    g_signal_connect(s, "run-failed", G_CALLBACK(on_failed), w);
    g_signal_connect(s, "queue-changed", G_CALLBACK(on_queue), w);
}

static rf_config tiny_config(void)
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
    cfg.train.steps = 30;
    cfg.train.lr = 3e-3f;
    cfg.train.warmup = 3;
    cfg.train.threads = 1;
    cfg.train.eval_every = 10;
    cfg.train.checkpoint_every = 0;
    cfg.train.seed = 11;
    return cfg;
}

typedef gboolean (*condition)(RfSession *s, gpointer data);

static gboolean wake_up(gpointer data)
{
    (void)data;
    return G_SOURCE_CONTINUE;
}

/* Run the main loop until `done` holds or `seconds` pass. */
static gboolean wait_for(RfSession *s, condition done, gpointer data, double seconds)
{
    guint ticker = g_timeout_add(20, wake_up, NULL);
    gint64 end = g_get_monotonic_time() + (gint64)(seconds * G_USEC_PER_SEC);
    gboolean ok;
    while (!(ok = done(s, data)) && g_get_monotonic_time() < end)
        g_main_context_iteration(NULL, TRUE);
    g_source_remove(ticker);
    return ok;
}

static void run_loop_for(double seconds)
{
    guint ticker = g_timeout_add(20, wake_up, NULL);
    gint64 end = g_get_monotonic_time() + (gint64)(seconds * G_USEC_PER_SEC);
    while (g_get_monotonic_time() < end)
        g_main_context_iteration(NULL, TRUE);
    g_source_remove(ticker);
}

static gboolean in_state(RfSession *s, gpointer data)
{
    return rf_session_get_state(s) == (RfRunState)GPOINTER_TO_INT(data);
}

static gboolean step_reached(RfSession *s, gpointer data)
{
    return rf_session_get_step(s) >= *(int64_t *)data;
}

static gboolean counter_reached(RfSession *s, gpointer data)
{
    (void)s;
    return *(int *)data > 0;
}

static gboolean lr_row_seen(RfSession *s, gpointer data)
{
    const rf_metrics *m = rf_run_data_last(rf_session_get_current_run(s), RF_SPLIT_TRAIN);
    return m != NULL && fabs(m->lr - *(double *)data) < 1e-9;
}

static guint train_rows(RfSession *s)
{
    return rf_run_data_count(rf_session_get_current_run(s), RF_SPLIT_TRAIN);
}

/* The run records the live edit for the Training view's marker: the key,
 * both values, and the first step trained with it (the first train row
 * whose learning rate is the new one). */
static void check_lr_change_recorded(const rf_run_data *run, double lr)
{
    int64_t first_new = -1;
    for (guint i = 0; i < run->rows->len && first_new < 0; i++) {
        const rf_metrics *m = &g_array_index(run->rows, rf_metrics, i);
        if (m->split == RF_SPLIT_TRAIN && fabs(m->lr - lr) < 1e-9)
            first_new = m->step;
    }
    guint n = run->changes->len;
    const rf_run_change *c = n > 0 ? &g_array_index(run->changes, rf_run_change, n - 1) : NULL;
    tap_ok(c != NULL && strcmp(c->key, "train.lr") == 0 && strcmp(c->before, "0.003") == 0 &&
               strcmp(c->after, "0.001") == 0 && c->step == first_new,
           "the run records train.lr 0.003 → 0.001 at step %" G_GINT64_FORMAT ", the first row with it "
           "(%s %s → %s at step %" G_GINT64_FORMAT ")", first_new, c != NULL ? c->key : "nothing",
           c != NULL ? c->before : "", c != NULL ? c->after : "", c != NULL ? c->step : -1);
}

/* A whole run: every row arrives, signals stay at <= 10 a second. */
static void test_full_run(RfSession *s, watcher *w)
{
    rf_config cfg = tiny_config();
    g_autoptr(GError) error = NULL;
    tap_ok(rf_session_set_config(s, &cfg, &error), "set_config takes a valid config");
    tap_ok(rf_session_get_current_run(s) == NULL && rf_session_get_state(s) == RF_RUN_IDLE,
           "no run before the first start");
    *w = (watcher){0};
    gint64 t0 = g_get_monotonic_time();
    tap_ok(rf_session_start(s, &error), "start");
    tap_ok(rf_session_get_state(s) == RF_RUN_LOADING, "the run is loading right after start");
    gboolean finished = wait_for(s, in_state, GINT_TO_POINTER(RF_RUN_FINISHED), 120);
    double wall = (double)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC;
    tap_ok(finished, "the run finishes (%.2f s)", wall);
    rf_run_data *run = rf_session_get_current_run(s);
    tap_ok(run != NULL && g_str_has_prefix(run->name, "random · full"),
           "the run is named after task and encoder: %s",
           run != NULL ? run->name : "(none)");
    if (run == NULL)
        return;
    tap_ok(rf_run_data_count(run, RF_SPLIT_TRAIN) == (guint)cfg.train.steps, "one train row per step (%u)",
           rf_run_data_count(run, RF_SPLIT_TRAIN));
    tap_ok(rf_run_data_count(run, RF_SPLIT_VAL) == 3, "validation every 10 steps (%u rows)",
           rf_run_data_count(run, RF_SPLIT_VAL));
    tap_ok(rf_run_data_count(run, RF_SPLIT_TEST) == 1, "one test row at the end");
    tap_ok(rf_session_get_step(s) == cfg.train.steps, "step count equals train.steps");
    const rf_metrics *last = rf_run_data_last(run, RF_SPLIT_TRAIN);
    tap_ok(last != NULL && last->step == cfg.train.steps, "the last train row is step %d", cfg.train.steps);
    tap_ok(w->metrics_changed >= 1 && w->metrics_changed <= (int)ceil(wall * 10) + 1,
           "metrics-changed %d times in %.2f s (at most 10 a second)", w->metrics_changed, wall);
    tap_ok(w->data_changed == 1 && rf_session_get_dataset(s) != NULL && rf_session_get_dataset(s)->seq_len == 24,
           "the run opened the data set and the session shows it");
    tap_ok(run->params > 0 && run->planned_bytes > 0 && run->peak_bytes > 0 && run->median_step_seconds > 0,
           "params %" G_GINT64_FORMAT ", planned %.0f B, peak %.0f B, median step %.2g s", run->params,
           run->planned_bytes, run->peak_bytes, run->median_step_seconds);
    const char *const *taps = rf_session_list_taps(s);
    tap_ok(taps[0] != NULL && g_strv_contains(taps, "layer0.attn.probs"), "the model's taps are listed");

    /* more steps for a finished run: resume trains on to the new end */
    g_autoptr(GError) error2 = NULL;
    rf_session_set_key(s, "train.steps", "35", NULL, &error2);
    rf_session_resume(s, NULL);
    int64_t more = 35;
    gboolean resumed = wait_for(s, step_reached, &more, 60) &&
                       wait_for(s, in_state, GINT_TO_POINTER(RF_RUN_FINISHED), 60);
    tap_ok(resumed && rf_run_data_count(run, RF_SPLIT_TRAIN) == 35 && rf_run_data_count(run, RF_SPLIT_TEST) == 2,
           "raising train.steps and resuming trains to step 35 and tests again");
}

static void test_pause_step_and_edits(RfSession *s, watcher *w)
{
    g_autoptr(GError) error = NULL;
    rf_session_set_key(s, "train.steps", "100000", NULL, &error);
    rf_session_set_key(s, "train.schedule", "constant", NULL, &error);
    rf_session_set_key(s, "train.warmup", "0", NULL, &error);
    rf_session_set_key(s, "train.eval_every", "0", NULL, &error);
    tap_ok(error == NULL, "optimiser keys set before the run");
    tap_ok(rf_session_start(s, &error), "start a long run");
    int64_t three = 3;
    tap_ok(wait_for(s, step_reached, &three, 60) && rf_session_get_state(s) == RF_RUN_RUNNING, "it runs");

    /* optimiser: the new learning rate is in the rows that follow */
    double lr = 1e-3;
    gboolean restart = TRUE;
    tap_ok(rf_session_set_key(s, "train.lr", "0.001", &restart, &error) && !restart,
           "train.lr during the run needs no restart");
    tap_ok(wait_for(s, lr_row_seen, &lr, 30), "train rows show the new learning rate");
    check_lr_change_recorded(rf_session_get_current_run(s), lr);

    /* architecture: applies to the next run */
    tap_ok(rf_session_set_key(s, "model.dim", "32", &restart, &error) && restart,
           "model.dim during the run asks for a restart");
    tap_ok(rf_session_get_current_run(s)->cfg.model.dim == 16, "the running run keeps its architecture");
    tap_ok(rf_session_set_key(s, "model.dim", "16", &restart, &error) && !restart,
           "setting it back to the run's value needs no restart");

    /* invalid values: the core's message, nothing changed */
    rf_config before = *rf_session_get_config(s);
    rf_config scratch = before;
    rf_status st = {0};
    rf_config_set(&scratch, "model.dropout", "2", &st);
    int config_signals = w->config_changed;
    gboolean set = rf_session_set_key(s, "model.dropout", "2", &restart, &error);
    tap_ok(!set && error != NULL && strcmp(error->message, st.msg) == 0, "an invalid value fails with the core's "
           "message: %s", error != NULL ? error->message : "(none)");
    tap_ok(memcmp(&before, rf_session_get_config(s), sizeof before) == 0 && w->config_changed == config_signals,
           "and changes nothing");
    g_clear_error(&error);
    tap_ok(!rf_session_set_key(s, "model.no_such_key", "1", NULL, &error), "an unknown key fails");
    g_clear_error(&error);

    /* pause, then exactly one step per step_once */
    rf_session_pause(s);
    tap_ok(wait_for(s, in_state, GINT_TO_POINTER(RF_RUN_PAUSED), 30), "pause");
    run_loop_for(0.3);
    int64_t step = rf_session_get_step(s);
    guint rows = train_rows(s);
    tap_ok(train_rows(s) == (guint)step, "no step after the pause (%" G_GINT64_FORMAT ")", step);
    rf_session_step_once(s, NULL);
    int64_t next = step + 1;
    tap_ok(wait_for(s, step_reached, &next, 30), "step_once makes a step");
    run_loop_for(0.3);
    tap_ok(rf_session_get_step(s) == step + 1 && train_rows(s) == rows + 1 &&
           rf_session_get_state(s) == RF_RUN_PAUSED,
           "exactly one step, still paused (step %" G_GINT64_FORMAT ")", rf_session_get_step(s));
}

/* [heads, N, N] probabilities for one sample, each row summing to 1 over
 * its valid keys. */
static void test_probes(RfSession *s, watcher *w)
{
    const char *names[] = {"no.such.tap", "layer0.attn.probs"};
    w->probes_changed = 0;
    rf_session_watch_probes(s, names, 2, RF_SPLIT_VAL, 3);
    tap_ok(wait_for(s, counter_reached, &w->probes_changed, 30), "probes-changed arrives while paused");
    const rf_probe_value *v = rf_session_find_probe(s, "layer0.attn.probs");
    tap_ok(v != NULL && v->filled && v->shape.ndim == 3 && v->shape.dim[0] == 2 && v->shape.dim[1] == 24 &&
           v->shape.dim[2] == 24, "layer0.attn.probs is a filled [heads, N, N] value");
    tap_ok(rf_session_find_probe(s, "no.such.tap") == NULL, "unknown names are ignored");
    rf_split split = RF_SPLIT_TRAIN;
    int64_t sample = -1;
    rf_inspection info = {.label = -1, .predicted = -1};
    gboolean known = rf_session_get_probe_sample(s, &split, &sample, &info);
    tap_ok(known && split == RF_SPLIT_VAL && sample == 3 && info.label >= 0 && info.predicted >= 0 &&
               info.loss > 0 && isfinite(info.loss),
           "the snapshot says which sample it is of and what the model made of it (label %d, predicted %d)",
           info.label, info.predicted);
    if (v == NULL || v->shape.ndim != 3)
        return;
    int64_t n = v->shape.dim[1];
    double worst = 0;
    int64_t valid_keys = 0;
    for (int64_t h = 0; h < v->shape.dim[0]; h++)
        for (int64_t i = 0; i < n; i++) {
            double sum = 0;
            for (int64_t j = 0; j < n; j++)
                sum += v->data[(h * n + i) * n + j];
            worst = fmax(worst, fabs(sum - 1));
        }
    for (int64_t j = 0; j < n; j++)
        valid_keys += v->data[j] > 0;
    tap_ok(worst < 1e-4, "every row sums to 1 (worst error %.2g)", worst);
    tap_ok(valid_keys >= 4 && valid_keys <= n, "%" G_GINT64_FORMAT " valid keys in a sample of 4..24 tokens",
           valid_keys);

    /* while running, probes keep coming at most 10 times a second */
    w->probes_changed = 0;
    gint64 t0 = g_get_monotonic_time();
    rf_session_resume(s, NULL);
    run_loop_for(1.0);
    rf_session_pause(s);
    double wall = (double)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC;
    tap_ok(w->probes_changed >= 1 && w->probes_changed <= (int)ceil(wall * 10) + 1,
           "probes-changed %d times in %.2f s of training", w->probes_changed, wall);
    wait_for(s, in_state, GINT_TO_POINTER(RF_RUN_PAUSED), 30);
}

/* --- inputs from outside the data set --- */

typedef struct inspect_result {
    gboolean done;
    const rf_inspected *in;
    char *error;
} inspect_result;

static void inspect_done(GObject *source, GAsyncResult *result, gpointer data)
{
    inspect_result *r = data;
    GError *error = NULL;
    r->in = rf_session_inspect_finish(RF_SESSION(source), result, &error);
    r->error = error != NULL ? g_strdup(error->message) : NULL;
    g_clear_error(&error);
    r->done = TRUE;
}

static gboolean inspect_finished(RfSession *s, gpointer data)
{
    (void)s;
    return ((inspect_result *)data)->done;
}

static inspect_result inspect_text(RfSession *s, const char *text)
{
    inspect_result r = {0};
    rf_session_inspect_async(s, NULL, text, inspect_done, &r);
    wait_for(s, inspect_finished, &r, 30);
    return r;
}

static gboolean probes_of(RfSession *s, gpointer data)
{
    return rf_session_get_probes(s) != NULL && rf_session_get_probe_inspected(s) == data;
}

/* While paused: token ids typed in are featurised, watched in place of the
 * sample and inspected (attention over their 5 keys only); a bad id is
 * refused and changes nothing; watching samples again brings them back. */
static void test_inspected(RfSession *s)
{
    inspect_result r = inspect_text(s, "1 2 3 4 5");
    tap_ok(r.in != NULL && r.in->len == 5 && rf_session_get_inspected_count(s) == 1 &&
               rf_session_get_watched_inspected(s) == r.in,
           "typed token ids are featurised, listed and watched (%s)", r.error != NULL ? r.error : "ok");
    if (r.in == NULL)
        return;
    gboolean seen = wait_for(s, probes_of, (gpointer)r.in, 30);
    const rf_probe_value *v = rf_session_find_probe(s, "layer0.attn.probs");
    double row0 = 0, outside = 0;
    for (int64_t j = 0; seen && v != NULL && j < v->shape.dim[2]; j++) {
        row0 += v->data[j];
        outside += j >= 5 ? fabs(v->data[j]) : 0;
    }
    tap_ok(seen && fabs(row0 - 1) < 1e-4 && outside == 0 && rf_session_get_state(s) == RF_RUN_PAUSED,
           "while paused the worker inspects it: query 0 attends over its 5 tokens only");
    inspect_result bad = inspect_text(s, "1 2 99");
    tap_ok(bad.in == NULL && bad.error != NULL && strstr(bad.error, "'99' is not a token id") != NULL &&
               rf_session_get_inspected_count(s) == 1 && rf_session_get_watched_inspected(s) == r.in,
           "a bad id is refused with its sentence and changes nothing (%s)", bad.error);
    g_free(bad.error);
    rf_session_watch_inspected(s, NULL);
    tap_ok(wait_for(s, probes_of, NULL, 30), "watching samples again inspects the sample");
}

/* Another data set drops the inspected inputs (they were featurised for the old one). */
static void test_inspected_forgotten(RfSession *s, watcher *w)
{
    rf_config cfg = tiny_config();
    rf_session_set_config(s, &cfg, NULL);
    w->data_changed = 0;
    rf_session_open_data(s);
    wait_for(s, counter_reached, &w->data_changed, 30);
    inspect_result r = inspect_text(s, "3 1 4 1 5");
    guint before = rf_session_get_inspected_count(s);
    cfg.train.seed = 12;   /* another random data set */
    rf_session_set_config(s, &cfg, NULL);
    w->data_changed = 0;
    rf_session_open_data(s);
    wait_for(s, counter_reached, &w->data_changed, 30);
    tap_ok(r.in != NULL && before >= 1 && rf_session_get_inspected_count(s) == 0 &&
               rf_session_get_watched_inspected(s) == NULL,
           "opening another data set drops the inspected inputs (%u before)", before);
}

static void test_checkpoints(RfSession *s, const char *dir)
{
    g_autoptr(GError) error = NULL;
    rf_session_stop(s);
    tap_ok(rf_session_get_state(s) == RF_RUN_STOPPED, "stop returns with the run stopped");
    int64_t step = rf_session_get_step(s);
    rf_config trained = rf_session_get_current_run(s)->cfg;
    g_autofree char *path = g_build_filename(dir, "session.safetensors", NULL);
    tap_ok(rf_session_save_checkpoint(s, path, &error), "save a checkpoint of the stopped run");
    if (error != NULL)
        tap_diag("%s", error->message);
    g_clear_error(&error);

    rf_session_set_key(s, "model.dim", "32", NULL, NULL);
    rf_session_set_key(s, "train.lr", "0.5", NULL, NULL);
    guint runs = rf_session_get_runs(s)->len;
    tap_ok(rf_session_load_checkpoint(s, path, &error), "load it back");
    if (error != NULL)
        tap_diag("%s", error->message);
    g_clear_error(&error);
    const rf_config *cfg = rf_session_get_config(s);
    tap_ok(cfg->model.dim == trained.model.dim && cfg->train.lr == trained.train.lr &&
           cfg->train.steps == trained.train.steps, "the config is restored (dim %d, lr %g)", cfg->model.dim,
           cfg->train.lr);
    tap_ok(rf_session_get_state(s) == RF_RUN_PAUSED && rf_session_get_step(s) == step,
           "the run is paused at the checkpoint's step %" G_GINT64_FORMAT, step);
    tap_ok(rf_session_get_runs(s)->len == runs + 1, "the checkpoint is a new run");
    /* The loaded model, saved again, gives back every tensor of the file. */
    g_autofree char *again = g_build_filename(dir, "reloaded.safetensors", NULL);
    char why[256] = "";
    int params = 0, moments = 0;
    gboolean same = rf_session_save_checkpoint(s, again, &error) && same_tensors(path, again, &params, &moments, why,
                                                                                 sizeof why);
    const char *problem = error != NULL ? error->message : why;
    tap_ok(same && params > 0 && moments == 2 * params,
           "the loaded model holds the saved weights bit for bit (%d parameters, %d optimizer moments%s%s)", params,
           moments, problem[0] ? ": " : "", problem);
    g_clear_error(&error);
    g_remove(again);
    rf_session_step_once(s, NULL);
    int64_t next = step + 1;
    tap_ok(wait_for(s, step_reached, &next, 30) && rf_session_get_state(s) == RF_RUN_PAUSED,
           "it trains on from there");

    g_autofree char *bad = g_build_filename(dir, "garbage.safetensors", NULL);
    g_file_set_contents(bad, "this is not a checkpoint at all, just text\n", -1, NULL);
    rf_run_data *current = rf_session_get_current_run(s);
    int64_t at = rf_session_get_step(s);
    gboolean refused = !rf_session_load_checkpoint(s, bad, &error) && strstr(error->message, bad) != NULL;
    tap_ok(refused, "a corrupt checkpoint fails naming the file: %s", error != NULL ? error->message : "(none)");
    tap_ok(rf_session_get_current_run(s) == current && rf_session_get_step(s) == at &&
           rf_session_get_state(s) == RF_RUN_PAUSED, "and the old run is kept");
    g_clear_error(&error);
    g_autofree char *missing = g_build_filename(dir, "missing.safetensors", NULL);
    refused = !rf_session_load_checkpoint(s, missing, &error) && strstr(error->message, missing) != NULL;
    tap_ok(refused, "a missing checkpoint fails naming the file");
    g_remove(bad);
    g_remove(path);
}

/* A copy of checkpoint `from` whose saved config has `key` = `value`
 * (the header rewritten; the tensor data, and so its crc32, unchanged). */
static gboolean with_saved_key(const char *from, const char *to, const char *key, const char *value)
{
    g_autofree char *bytes = NULL;
    gsize size = 0;
    if (!g_file_get_contents(from, &bytes, &size, NULL) || size < 8)
        return FALSE;
    guint64 n = 0;
    for (int i = 7; i >= 0; i--)
        n = n << 8 | (guint8)bytes[i];
    json_t *header = json_loadb(bytes + 8, n, 0, NULL);
    json_t *meta = json_object_get(header, "__metadata__");
    json_t *cfg = json_loads(json_string_value(json_object_get(meta, "config")), 0, NULL);
    gboolean ok = cfg != NULL && json_object_set_new(cfg, key, json_string(value)) == 0;
    char *cfg_text = ok ? json_dumps(cfg, JSON_COMPACT) : NULL;
    ok = ok && cfg_text != NULL && json_object_set_new(meta, "config", json_string(cfg_text)) == 0;
    char *text = ok ? json_dumps(header, JSON_COMPACT) : NULL;
    if (text != NULL) {
        GString *out = g_string_new(NULL);
        gsize len = strlen(text), padded = (len + 7) / 8 * 8;
        for (int i = 0; i < 8; i++)
            g_string_append_c(out, (char)(padded >> (8 * i) & 0xff));
        g_string_append(out, text);
        for (gsize i = len; i < padded; i++)
            g_string_append_c(out, ' ');
        g_string_append_len(out, bytes + 8 + n, (gssize)(size - 8 - n));
        ok = g_file_set_contents(to, out->str, (gssize)out->len, NULL);
        g_string_free(out, TRUE);
    }
    free(text);
    free(cfg_text);
    json_decref(cfg);
    json_decref(header);
    return ok && text != NULL;
}

/* A checkpoint trained on a GPU opens where none is usable, on the CPU,
 * and the session says so. */
static void test_gpu_checkpoint_on_cpu(RfSession *s, const char *dir)
{
    rf_status st = {0};
    if (rf_device_open("cuda", &st) != NULL) {
        tap_skip("a GPU-trained checkpoint opens on the CPU where no GPU is usable", "this machine has a GPU");
        return;
    }
    g_autoptr(GError) error = NULL;
    rf_session_stop(s);
    g_autofree char *path = g_build_filename(dir, "cpu.safetensors", NULL);
    g_autofree char *gpu = g_build_filename(dir, "gpu.safetensors", NULL);
    gboolean made = rf_session_save_checkpoint(s, path, &error) && with_saved_key(path, gpu, "train.device", "cuda");
    gboolean loaded = made && rf_session_load_checkpoint(s, gpu, &error);
    const char *note = rf_session_get_load_note(s);
    tap_ok(loaded && strcmp(rf_session_get_config(s)->train.device, "cpu") == 0 && note != NULL &&
               strstr(note, "gpu.safetensors") != NULL && strstr(note, "runs on the CPU") != NULL,
           "a GPU-trained checkpoint opens on the CPU where no GPU is usable, and the session says so (%s)",
           note != NULL ? note : error != NULL ? error->message : "no note");
    loaded = rf_session_load_checkpoint(s, path, &error);
    tap_ok(loaded && rf_session_get_load_note(s) == NULL, "a CPU-trained one opens with no note");
    /* saved in the first of two curriculum stages: opens as a plain run of the last, and says so */
    g_autofree char *staged = g_build_filename(dir, "staged.safetensors", NULL);
    made = with_saved_key(path, staged, "train.curriculum", "train.steps=5") &&
           with_saved_key(staged, staged, "train.stage", "0");
    loaded = made && rf_session_load_checkpoint(s, staged, &error);
    note = rf_session_get_load_note(s);
    tap_ok(loaded && note != NULL && strstr(note, "stage 1 of 2") != NULL &&
               rf_session_get_config(s)->train.curriculum[0] == '\0',
           "a curriculum's checkpoint from its first stage opens as a plain run, and the session says so (%s)",
           note != NULL ? note : error != NULL ? error->message : "no note");
    g_remove(path);
    g_remove(gpu);
    g_remove(staged);
}

/* A checkpoint opened on the data set the config names: taken when its
 * input and classes fit the model (here longer sequences of the same
 * tokens), refused naming both sides when they do not. */
static void test_checkpoint_on_data(RfSession *s, const char *dir)
{
    g_autoptr(GError) error = NULL;
    g_autofree char *path = g_build_filename(dir, "on-data.safetensors", NULL);
    rf_config trained = rf_session_get_current_run(s)->cfg;
    int64_t step = rf_session_get_step(s);
    gboolean saved = rf_session_save_checkpoint(s, path, &error);
    g_clear_error(&error);
    rf_session_set_key(s, "data.max_len", "40", NULL, NULL);
    rf_session_set_key(s, "data.train_size", "64", NULL, NULL);
    gboolean loaded = saved && rf_session_load_checkpoint_on_data(s, path, &error);
    const rf_dataset *ds = rf_session_get_dataset(s);
    const rf_config *cfg = rf_session_get_config(s);
    tap_ok(loaded && ds != NULL && ds->seq_len == 40 && ds->size[RF_SPLIT_TRAIN] == 64 &&
               cfg->model.dim == trained.model.dim && rf_session_get_state(s) == RF_RUN_PAUSED &&
               rf_session_get_step(s) == step,
           "a checkpoint opens on the data set the config names (40 tokens, 64 training samples), paused at its "
           "step%s%s", error != NULL ? ": " : "", error != NULL ? error->message : "");
    g_clear_error(&error);
    rf_run_data *current = rf_session_get_current_run(s);
    rf_session_set_key(s, "data.classes", "5", NULL, NULL);
    gboolean refused = !rf_session_load_checkpoint_on_data(s, path, &error) && error != NULL &&
                       strstr(error->message, "data.classes=5") != NULL &&
                       strstr(error->message, "(vocabulary 8) and 5 classes; the checkpoint's model takes") != NULL &&
                       strstr(error->message, "(vocabulary 8) and 4 classes") != NULL;
    tap_ok(refused && rf_session_get_current_run(s) == current && rf_session_get_dataset(s) == ds,
           "another class count is refused naming both, and the session keeps its run and data: %s",
           error != NULL ? error->message : "(no error)");
    rf_session_set_key(s, "data.classes", "4", NULL, NULL);
    g_remove(path);
}

static gboolean queue_done(RfSession *s, gpointer data)
{
    return rf_session_get_runs(s)->len >= *(guint *)data && rf_session_queue_length(s) == 0 &&
           rf_session_get_state(s) == RF_RUN_FINISHED;
}

static void test_compare_queue(RfSession *s, watcher *w)
{
    rf_config a = tiny_config(), b = tiny_config();
    a.train.steps = b.train.steps = 8;
    strcpy(b.model.encoder, "linear");
    w->queue_changed = 0;
    rf_session_queue_add(s, &a, "queued full");
    rf_session_queue_add(s, &b, "queued linear");
    tap_ok(rf_session_queue_length(s) == 2 && w->queue_changed == 2, "two configs queued");
    guint want = rf_session_get_runs(s)->len + 2;
    rf_session_queue_run(s);
    tap_ok(wait_for(s, queue_done, &want, 120), "the queue runs both");
    GPtrArray *runs = rf_session_get_runs(s);
    if (runs->len < want)
        return;
    rf_run_data *first = g_ptr_array_index(runs, want - 2), *second = g_ptr_array_index(runs, want - 1);
    tap_ok(strcmp(first->name, "queued full") == 0 && strcmp(second->name, "queued linear") == 0 &&
           strcmp(second->cfg.model.encoder, "linear") == 0, "in order, with their names and configs");
    tap_ok(rf_run_data_count(first, RF_SPLIT_TEST) == 1 && rf_run_data_count(second, RF_SPLIT_TEST) == 1 &&
           rf_run_data_count(second, RF_SPLIT_TRAIN) == 8, "each with its rows");
    tap_ok(w->queue_changed >= 4, "queue-changed as runs start and finish (%d)", w->queue_changed);
}

static gboolean has_change(const rf_queue_item *q, const char *change)
{
    return g_strv_contains((const char *const *)q->changes, change);
}

/* Before any run has measured a step there is no ETA. */
static void test_queue_without_basis(RfSession *s)
{
    rf_config cfg = tiny_config();
    rf_session_queue_add(s, &cfg, "unmeasured");
    g_autoptr(GPtrArray) items = rf_session_queue_list(s);
    const rf_queue_item *q = items->len == 1 ? items->pdata[0] : NULL;
    tap_ok(q != NULL && rf_session_queue_basis(s) == NULL && q->seconds == 0 && q->steps == 30 &&
               rf_session_queue_seconds_left(s) == 0,
           "before any measured step a queued run is listed without an ETA");
    rf_session_queue_clear(s);
}

/* The pending runs, their changes against the edited config, and ETAs from
 * a measured run of the same config (or data and encoder), never another
 * data set's. */
static void test_queue_list(RfSession *s)
{
    rf_config a = tiny_config(), b = tiny_config();
    strcpy(b.model.encoder, "linear");
    b.train.steps = 16;
    rf_session_set_config(s, &a, NULL);
    rf_session_queue_add(s, &a, "as edited");
    rf_session_queue_add(s, &b, "linear, longer");

    /* the last run trained linear attention; full runs of config a were
     * measured earlier in the session */
    GPtrArray *runs = rf_session_get_runs(s);
    const rf_run_data *last = runs->pdata[runs->len - 1];
    const rf_run_data *basis = rf_session_queue_basis_for(s, &a), *basis_b = rf_session_queue_basis_for(s, &b);
    tap_ok(strcmp(last->cfg.model.encoder, "linear") == 0 && basis != NULL && basis != last &&
               strcmp(basis->cfg.model.encoder, "full") == 0 && basis->median_step_seconds > 0 && basis_b == last,
           "a queued config's ETA comes from a measured run of the same config (%s, %.3g s/step), not the last run",
           basis != NULL ? basis->name : "none", basis != NULL ? basis->median_step_seconds : 0);
    if (basis == NULL)
        return;
    GPtrArray *items = rf_session_queue_list(s);
    const rf_queue_item *qa = items->len == 2 ? items->pdata[0] : NULL, *qb = items->len == 2 ? items->pdata[1] : NULL;
    tap_ok(qa != NULL && strcmp(qa->name, "as edited") == 0 && g_strv_length(qa->changes) == 0 &&
               strcmp(qb->name, "linear, longer") == 0 && g_strv_length(qb->changes) == 2 &&
               has_change(qb, "model.encoder=linear") && has_change(qb, "train.steps=16"),
           "the pending runs in order, with the keys each changes against the edited config");
    if (qa == NULL)
        return;
    double m = basis->median_step_seconds;
    tap_ok(fabs(qa->seconds_per_step - m) < 1e-9 * m && fabs(qa->seconds - 30 * m) < 1e-9 * m && qa->steps == 30,
           "the same config: its measured s/step times train.steps (%.3g s)", qa->seconds);
    tap_ok(qb->seconds_per_step > 0 && fabs(qb->seconds - 16 * qb->seconds_per_step) < 1e-9,
           "another encoder: from its own run (%.3g s/step)", qb->seconds_per_step);
    tap_ok(fabs(rf_session_queue_seconds_left(s) - (qa->seconds + qb->seconds)) < 1e-9,
           "the whole queue: the sum of its ETAs (%.3g s)", rf_session_queue_seconds_left(s));
    g_ptr_array_unref(items);

    /* another data set: no run of it measured, so no ETA from another's */
    rf_config other = tiny_config();
    other.data.vocab = 6;
    rf_session_queue_add(s, &other, "other data");
    items = rf_session_queue_list(s);
    const rf_queue_item *qc = items->len == 3 ? items->pdata[2] : NULL;
    tap_ok(qc != NULL && qc->seconds == 0 && rf_session_queue_basis_for(s, &other) == NULL,
           "a config on data no run has measured gets no ETA from another data set's step time");
    g_ptr_array_unref(items);
    rf_session_queue_clear(s);
    rf_session_queue_add(s, &a, "as edited");
    rf_session_queue_add(s, &b, "linear, longer");

    rf_session_set_key(s, "model.encoder", "linear", NULL, NULL);
    items = rf_session_queue_list(s);
    qa = items->pdata[0];
    qb = items->pdata[1];
    tap_ok(g_strv_length(qa->changes) == 1 && has_change(qa, "model.encoder=full") &&
               g_strv_length(qb->changes) == 1 && has_change(qb, "train.steps=16"),
           "after an edit the changes follow the edited config");
    g_ptr_array_unref(items);
    rf_session_queue_clear(s);
}

static void test_plan(RfSession *s)
{
    rf_config cfg = tiny_config();
    g_autoptr(GError) error = NULL;
    rf_session_set_config(s, &cfg, NULL);
    rf_memory_plan plan, longer;
    gboolean refused;
    double flops = 0, flops_longer = 0;
    gboolean planned = rf_session_plan(s, 0, &plan, &flops, &error);
    tap_ok(planned && plan.param_count > 0 && plan.total > 0 && flops > 0,
           "plan at the data's length: %" G_GINT64_FORMAT " params, %zu B, %.3g FLOPs per sample",
           (gint64)plan.param_count, plan.total, flops);
    rf_session_plan(s, 96, &longer, &flops_longer, NULL);
    tap_ok(longer.total > plan.total && flops_longer > 4 * flops,
           "full attention at 4x the length: more memory, over 4x the FLOPs (%.2fx)", flops_longer / flops);
    rf_session_set_key(s, "model.encoder", "ls", NULL, NULL);
    rf_session_set_key(s, "model.window", "4", NULL, NULL);
    rf_session_set_key(s, "model.rank", "2", NULL, NULL);
    double ls = 0, ls_longer = 0;
    planned = rf_session_plan(s, 24, &plan, &ls, NULL) && rf_session_plan(s, 96, &longer, &ls_longer, NULL);
    tap_ok(planned && ls > 0 && ls_longer < 4.5 * ls, "LS attention at 4x the length: about 4x the FLOPs (%.2fx)",
           ls_longer / ls);
    int heads = rf_session_get_config(s)->model.heads;
    refused = !rf_session_set_key(s, "model.heads", "3", NULL, &error) && error != NULL &&
              strstr(error->message, "model.heads = 3 does not divide") != NULL;
    tap_ok(refused && rf_session_get_config(s)->model.heads == heads,
           "a key that would make the config impossible is refused with the core's message, and changes nothing: %s",
           error != NULL ? error->message : "(taken)");
    g_clear_error(&error);
    rf_session_set_key(s, "train.curriculum", "data.min_len=2 data.max_len=12 train.steps=5", NULL, NULL);
    refused = !rf_session_start(s, &error) && error != NULL && strstr(error->message, "rangefinder train") != NULL;
    tap_ok(refused, "a curriculum is left to the command line, in one sentence: %s",
           error != NULL ? error->message : "(started)");
    g_clear_error(&error);
    rf_session_set_key(s, "train.curriculum", "", NULL, NULL);
}

static void test_bad_data(RfSession *s, watcher *w)
{
    rf_config cfg = tiny_config();
    rf_session_set_config(s, &cfg, NULL);
    const char *path = "/nonexistent/rangefinder-images";
    rf_session_set_key(s, "data.task", "image_folder", NULL, NULL);
    rf_session_set_key(s, "data.path", path, NULL, NULL);
    w->run_failed = 0;
    w->data_changed = 0;
    const rf_dataset *before = rf_session_get_dataset(s);
    rf_session_open_data(s);
    gboolean failed = wait_for(s, counter_reached, &w->run_failed, 30);
    tap_ok(failed && w->last_failure != NULL && strstr(w->last_failure, path) != NULL,
           "a bad data folder emits run-failed naming it: %s",
           w->last_failure != NULL ? w->last_failure : "(none)");
    tap_ok(rf_session_get_dataset(s) == before && w->data_changed == 0, "the old data set stays");
}

static guint lines_of(const char *path, const char *split)
{
    g_autofree char *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, NULL))
        return 0;
    g_autofree char *needle = g_strdup_printf(",%s,", split);
    guint n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

/* The only folder in `runs`, or NULL. */
static char *only_folder(const char *runs)
{
    g_autoptr(GDir) d = g_dir_open(runs, 0, NULL);
    const char *name = d != NULL ? g_dir_read_name(d) : NULL;
    return name != NULL && g_dir_read_name(d) == NULL ? g_build_filename(runs, name, NULL) : NULL;
}

/* Runs recorded in the runs folder as `train --runs` writes them, by the
 * worker thread: the rows the session saw as `train` writes them (training
 * rows every train.log_every steps), the checkpoint at the end and at a
 * stop; a runs folder that cannot be made is named, and the run goes on. */
static void test_runs_folder(RfSession *s, watcher *w, const char *dir)
{
    g_autofree char *runs = g_build_filename(dir, "runs", NULL);
    rf_session_set_runs_dir(s, runs);
    rf_config cfg = tiny_config();
    rf_session_set_config(s, &cfg, NULL);
    rf_session_start(s, NULL);
    gboolean finished = wait_for(s, in_state, GINT_TO_POINTER(RF_RUN_FINISHED), 60);
    g_autofree char *folder = only_folder(runs);
    const rf_run_data *run = rf_session_get_current_run(s);
    tap_ok(finished && folder != NULL && g_strcmp0(run->dir, folder) == 0 && g_str_has_suffix(folder, "-random-full"),
           "a run started in the session gets a folder of the runs folder (%s)", folder != NULL ? folder : "none");
    g_autofree char *csv = folder != NULL ? g_build_filename(folder, "metrics.csv", NULL) : g_strdup("");
    g_autofree char *ini = folder != NULL ? g_build_filename(folder, "config.ini", NULL) : g_strdup("");
    g_autofree char *checkpoint = folder != NULL ? g_build_filename(folder, "checkpoint.safetensors", NULL)
                                                 : g_strdup("");
    rf_config read;
    rf_config_defaults(&read);
    tap_ok(rf_config_apply_ini(&read, ini, NULL) && read.train.steps == 30 && strcmp(read.data.task, "random") == 0,
           "with its config.ini, the run's config");
    /* the session sees every step's row; the file gets what `train` writes:
     * a training row every train.log_every steps and at the last */
    guint logged = 0;
    for (guint i = 0; i < run->rows->len; i++) {
        const rf_metrics *m = &g_array_index(run->rows, rf_metrics, i);
        logged += m->split == RF_SPLIT_TRAIN && (m->step % cfg.train.log_every == 0 || m->step == cfg.train.steps);
    }
    tap_ok(logged < rf_run_data_count(run, RF_SPLIT_TRAIN) && lines_of(csv, "train") == logged &&
               lines_of(csv, "val") == rf_run_data_count(run, RF_SPLIT_VAL) && lines_of(csv, "test") == 1,
           "metrics.csv has the session's rows as `train` writes them: training rows every log_every = %d steps "
           "(%u of %u train, %u val, %u test)", cfg.train.log_every, lines_of(csv, "train"),
           rf_run_data_count(run, RF_SPLIT_TRAIN), lines_of(csv, "val"), lines_of(csv, "test"));
    tap_ok(g_file_test(checkpoint, G_FILE_TEST_EXISTS), "and the checkpoint of its end");

    /* stopped: the checkpoint of the step it stopped at */
    g_autofree char *stop_runs = g_build_filename(dir, "runs-stop", NULL);
    rf_session_set_runs_dir(s, stop_runs);
    cfg.train.steps = 100000;
    rf_session_set_config(s, &cfg, NULL);
    rf_session_start(s, NULL);
    int64_t five = 5;
    wait_for(s, step_reached, &five, 60);
    rf_session_stop(s);
    g_autofree char *stopped = only_folder(stop_runs);
    g_autofree char *stop_checkpoint = stopped != NULL ? g_build_filename(stopped, "checkpoint.safetensors", NULL)
                                                       : g_strdup("");
    tap_ok(rf_session_get_state(s) == RF_RUN_STOPPED && g_file_test(stop_checkpoint, G_FILE_TEST_EXISTS),
           "a stopped run's folder has the checkpoint of its stop");

    /* a file where the runs folder should be */
    g_autofree char *blocked = g_build_filename(dir, "not-a-folder", NULL);
    g_file_set_contents(blocked, "", 0, NULL);
    rf_session_set_runs_dir(s, blocked);
    cfg.train.steps = 10;
    rf_session_set_config(s, &cfg, NULL);
    w->run_failed = 0;
    rf_session_start(s, NULL);
    finished = wait_for(s, in_state, GINT_TO_POINTER(RF_RUN_FINISHED), 60);
    tap_ok(w->run_failed == 1 && w->last_failure != NULL && strstr(w->last_failure, blocked) != NULL &&
               strstr(w->last_failure, "not recorded") != NULL,
           "a runs folder that cannot be made is named: %s", w->last_failure != NULL ? w->last_failure : "(none)");
    tap_ok(finished && rf_session_get_current_run(s)->dir == NULL, "and the run trains on, unrecorded");
    rf_session_set_runs_dir(s, NULL);
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s' '%s' '%s'", runs, stop_runs, blocked);
    if (system(cmd) != 0)
        tap_ok(FALSE, "remove the runs folders");
}

/* A run's identity for the life of the runs folder: named after its
 * folder (two runs of one config never share a name), the folder's colour
 * (the next run another), and a checkpoint opened from the folder goes on
 * as that run: its rows, name and colour, the earlier run drawn no more. */
static void test_run_identity(RfSession *s, const char *dir)
{
    g_autofree char *runs = g_build_filename(dir, "runs-identity", NULL);
    rf_session_set_runs_dir(s, runs);
    rf_config cfg = tiny_config();
    rf_session_set_config(s, &cfg, NULL);
    rf_session_start(s, NULL);
    gboolean first_done = wait_for(s, in_state, GINT_TO_POINTER(RF_RUN_FINISHED), 60);
    rf_run_data *a = (rf_run_data *)rf_session_get_current_run(s);
    g_autofree char *a_folder = a->dir != NULL ? g_path_get_basename(a->dir) : NULL;
    int a_color = a->color;
    /* the rows its folder holds: metrics.csv has training rows every
     * train.log_every steps, where the live run drew every step */
    g_autofree char *a_csv = a->dir != NULL ? g_build_filename(a->dir, "metrics.csv", NULL) : NULL;
    guint a_rows = a_csv != NULL ? lines_of(a_csv, "train") + lines_of(a_csv, "val") + lines_of(a_csv, "test") : 0;
    rf_session_start(s, NULL);
    gboolean second_done = wait_for(s, in_state, GINT_TO_POINTER(RF_RUN_FINISHED), 60);
    const rf_run_data *b = rf_session_get_current_run(s);
    tap_ok(first_done && second_done && a_folder != NULL && g_str_has_prefix(a->name, a_folder) && b->dir != NULL &&
               strcmp(a->name, b->name) != 0,
           "two runs of one config have different names, their folders' (%s, %s)", a->name, b->name);
    tap_ok(a_color >= 0 && a_color == rf_run_folder_color(a->dir) && b->color == rf_run_folder_color(b->dir) &&
               b->color != a_color && a->color == a_color,
           "each has its folder's colour, the second another (%d, %d), the first's unchanged", a_color, b->color);
    g_autofree char *checkpoint = g_build_filename(a->dir, "checkpoint.safetensors", NULL);
    g_autoptr(GError) error = NULL;
    gboolean loaded = rf_session_load_checkpoint(s, checkpoint, &error);
    const rf_run_data *c = rf_session_get_current_run(s);
    GPtrArray *all = rf_session_get_runs(s);
    guint a_index = G_MAXUINT;
    for (guint i = 0; i < all->len; i++)
        if (g_ptr_array_index(all, i) == a)
            a_index = i;
    tap_ok(loaded && c != a && g_strcmp0(c->dir, a->dir) == 0 && a_rows > 0 && c->rows->len == a_rows &&
               strcmp(c->name, a->name) == 0 && c->color == a_color,
           "its checkpoint opened goes on as that run: %u rows of its metrics.csv, its name and colour (%s)",
           loaded ? c->rows->len : 0, error != NULL ? error->message : "loaded");
    tap_ok(rf_session_run_superseded(s, a_index) && !rf_session_run_superseded(s, all->len - 1),
           "and the views draw it once");
    rf_session_stop(s);
    rf_session_set_runs_dir(s, NULL);
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", runs);
    if (system(cmd) != 0)
        tap_ok(FALSE, "remove the runs folder");
}

/* --- the probe history: one snapshot per evaluation --- */

static void step_to(RfSession *s, int64_t target)
{
    while (rf_session_get_step(s) < target) {
        int64_t next = rf_session_get_step(s) + 1;
        rf_session_step_once(s, NULL);
        wait_for(s, step_reached, &next, 30);
    }
}

/* Watch layer 0's maps (or nothing) and wait for the snapshot it brings. */
static void watch_now(RfSession *s, watcher *w, gboolean on)
{
    const char *names[] = {"layer0.attn.probs"};
    w->probes_changed = 0;
    rf_session_watch_probes(s, names, on ? 1 : 0, RF_SPLIT_VAL, 2);
    if (on)
        wait_for(s, counter_reached, &w->probes_changed, 30);
}

/* "eval_step@step eval_step@step ..." */
static char *history_text(RfSession *s)
{
    const rf_probe_history *h = rf_session_get_history(s);
    GString *t = g_string_new("");
    for (int i = 0; i < rf_probe_history_count(h); i++) {
        const rf_probe_history_entry *e = rf_probe_history_get(h, i);
        g_string_append_printf(t, "%s%" G_GINT64_FORMAT "@%" G_GINT64_FORMAT, i ? " " : "", e->eval_step, e->step);
    }
    return g_string_free(t, FALSE);
}

static void test_history(RfSession *s, watcher *w)
{
    g_autoptr(GError) error = NULL;
    rf_config cfg = tiny_config();
    cfg.train.steps = 1000;
    cfg.train.eval_every = 2;
    cfg.train.eval_batches = 1;
    rf_session_watch_inspected(s, NULL);
    watch_now(s, w, FALSE);
    tap_ok(rf_session_set_config(s, &cfg, &error) && rf_session_start(s, &error), "a run evaluating every 2 steps");
    rf_session_pause(s);
    wait_for(s, in_state, GINT_TO_POINTER(RF_RUN_PAUSED), 60);
    int64_t at = rf_session_get_step(s);
    tap_ok(at < 2 && rf_probe_history_count(rf_session_get_history(s)) == 0, "no history before the first evaluation");
    watch_now(s, w, TRUE);
    step_to(s, 2);
    watch_now(s, w, TRUE);
    step_to(s, 3);
    watch_now(s, w, TRUE);
    step_to(s, 4);
    watch_now(s, w, TRUE);
    /* nobody watches through the evaluations at 6 and 8; a view comes back at 9 */
    watch_now(s, w, FALSE);
    step_to(s, 9);
    watch_now(s, w, TRUE);
    g_autofree char *kept = history_text(s);
    tap_ok(strcmp(kept, "2@2 4@4 8@9") == 0,
           "one snapshot per evaluation, the first at or after it, none for the unwatched one (%s)", kept);
    const rf_probe_history_entry *e = rf_probe_history_get(rf_session_get_history(s), 0);
    const rf_probe_value *v = e != NULL ? rf_probe_set_find(rf_probe_hold_get(e->hold), "layer0.attn.probs") : NULL;
    tap_ok(v != NULL && v->filled && v->shape.ndim == 3 && v->shape.dim[0] == 2 && e->split == RF_SPLIT_VAL &&
               e->sample == 2,
           "a stored step holds the watched map of the watched sample");

    tap_ok(rf_session_start(s, &error), "a new run");
    tap_ok(rf_probe_history_count(rf_session_get_history(s)) == 0, "a new run clears the history");
    rf_session_stop(s);
    watch_now(s, w, FALSE);
}

int main(void)
{
    g_autofree char *dir = g_dir_make_tmp("rf-session-XXXXXX", NULL);
    RfSession *s = rf_session_new();
    watcher w = {0};
    watch(s, &w);
    test_queue_without_basis(s);
    test_full_run(s, &w);
    test_pause_step_and_edits(s, &w);
    test_probes(s, &w);
    test_inspected(s);
    test_checkpoints(s, dir);
    test_gpu_checkpoint_on_cpu(s, dir);
    test_checkpoint_on_data(s, dir);
    test_compare_queue(s, &w);
    test_queue_list(s);
    test_plan(s);
    test_bad_data(s, &w);
    test_inspected_forgotten(s, &w);
    test_runs_folder(s, &w, dir);
    test_run_identity(s, dir);
    test_history(s, &w);
    g_object_unref(s);
    g_free(w.last_failure);
    g_rmdir(dir);
    return tap_done();
}
