/* The training thread behind a session.
 *
 * The worker owns the rf_trainer of one run. It steps it while running,
 * validates every eval_every steps and at the end, tests at the end, and
 * reads the watched taps between steps. Before every step it reads the
 * commands the UI thread left under `lock`; when there is nothing to do it
 * waits on `wake`, first saying how many requests it has read (`handled`),
 * which is how the UI thread knows the trainer is safe to touch (a
 * checkpoint save holds `lock` while the worker sleeps). Everything it produces goes into `out` as rf_msg.
 * A run recorded in the runs folder is written here, as `rangefinder train`
 * writes it: each metrics row as it is made, and when the run finishes or
 * stops, the rows synced and then the checkpoint.
 */
#include <math.h>
#include <stdlib.h>

#include "../config/baselines_file.h"
#include "../core/alloc.h"
#include "../core/kept_weights.h"
#include "../datasets/baselines.h"
#include "session_private.h"
#include "../datasets/tsan_sync.h"

/* Inspections run at most this often, and take at most this share of the
 * training time. */
#define PROBE_INTERVAL_S 0.1
#define PROBE_SHARE 0.05

struct rf_worker {
    GThread *thread;
    GAsyncQueue *out;

    /* Owned by the thread (lent to the UI thread while it holds `lock` with
     * handled == requests). */
    rf_config cfg;
    rf_data_ref *data;
    rf_trainer *trainer;
    rf_run_record *record;    /* where the run is written, or NULL */

    GMutex lock;
    GCond wake;      /* new commands */
    GCond idle;      /* `handled` moved */
    /* Commands, under `lock`. */
    gboolean quit;
    gboolean ended;           /* stop for good */
    gboolean discard;         /* ... without writing the run's checkpoint */
    gboolean paused;
    gboolean hold;            /* the UI thread wants the trainer */
    int step_budget;          /* single steps asked for while paused */
    gboolean optim_dirty;
    rf_config optim;
    guint64 optim_serial;     /* rf_worker_set_optim calls so far: the number of the latest */
    gboolean probes_dirty;
    rf_probe_request probes;
    /* Requests for an answer from the thread, and how many it had read
     * when it last went to sleep: while `lock` is held and handled ==
     * requests, it sleeps and touches nothing. */
    guint64 requests;
    guint64 handled;
};

/* State only the thread touches. */
typedef struct worker_run {
    RfRunState mode;
    rf_probe_request probes;
    gboolean inspect_now;     /* a new request, a new model or the end of the run */
    double train_seconds;     /* steps and evaluations */
    double probe_seconds;
    double last_probe;        /* monotonic seconds */
    int64_t last_eval;        /* the step of the latest validation, or -1 */
    int64_t kept_eval;        /* the validation whose snapshot went to the history, or -1 */
} worker_run;

static double now_s(void)
{
    return (double)g_get_monotonic_time() * 1e-6;
}

static rf_msg *msg_new(rf_msg_kind kind)
{
    rf_msg *m = g_new0(rf_msg, 1);
    m->kind = kind;
    return m;
}

static void post_state(rf_worker *w, worker_run *run, RfRunState mode)
{
    if (run->mode == mode)
        return;
    run->mode = mode;
    rf_msg *m = msg_new(RF_MSG_STATE);
    m->state = mode;
    m->step = w->trainer != NULL ? rf_trainer_step_count(w->trainer) : 0;
    rf_queue_push(w->out, m);
}

static void post_text(rf_worker *w, rf_msg_kind kind, const char *text)
{
    rf_msg *m = msg_new(kind);
    m->text = g_strdup(text);
    rf_queue_push(w->out, m);
}

static void record_end(rf_worker *w, rf_tb_status status);

static void fail_run(rf_worker *w, worker_run *run, const char *text)
{
    record_end(w, RF_TB_STATUS_FAILURE);
    post_text(w, RF_MSG_ERROR, text);
    post_state(w, run, RF_RUN_FAILED);
}

/* The run's folder could not be written: say so, and stop writing it. */
static void record_failed(rf_worker *w, const GError *error)
{
    g_autofree char *text = g_strdup_printf("%s; the run goes on but is not recorded in the runs folder",
                                            error->message);
    post_text(w, RF_MSG_RECORD_ERROR, text);
    g_clear_pointer(&w->record, rf_run_record_free);
}

/* How the run ended, for TensorBoard's HParams table. */
static void record_end(rf_worker *w, rf_tb_status status)
{
    g_autoptr(GError) error = NULL;
    if (w->record != NULL && !rf_metrics_csv_end(w->record->csv, status, &error))
        record_failed(w, error);
}

/* The rows written so far on disk. */
static gboolean record_rows(rf_worker *w)
{
    g_autoptr(GError) error = NULL;
    if (w->record == NULL || (rf_metrics_csv_sync(w->record->csv, &error) &&
                              rf_distributions_csv_sync(w->record->distributions, &error)))
        return TRUE;
    record_failed(w, error);
    return FALSE;
}

/* As `rangefinder train`: the rows on disk, then the checkpoint that covers them. */
static void record_checkpoint(rf_worker *w)
{
    rf_run_record *r = w->record;
    int64_t step = w->trainer != NULL ? rf_trainer_step_count(w->trainer) : 0;
    if (r == NULL || step == 0 || step == r->saved_step || !record_rows(w))
        return;
    rf_status st = {0};
    if (rf_trainer_save(w->trainer, r->checkpoint, &st)) {
        r->saved_step = step;
        return;
    }
    g_autoptr(GError) error = g_error_new_literal(G_IO_ERROR, G_IO_ERROR_FAILED, st.msg);
    record_failed(w, error);
}

static gboolean due(int64_t step, int every, int64_t last)
{
    return step == last || (every > 0 && step % every == 0);
}

/* Every tensor's distribution at an evaluation, as `rangefinder train`
 * records it. */
static void record_distributions(rf_worker *w, int64_t step)
{
    rf_status st = {0};
    int n = 0;
    g_autoptr(GError) error = NULL;
    rf_distribution *d = rf_trainer_distributions(w->trainer, &n, &st);
    if (d == NULL)
        error = g_error_new(G_IO_ERROR, G_IO_ERROR_FAILED, "distributions at step %lld: %s", (long long)step, st.msg);
    if (error != NULL || !rf_distributions_csv_write(w->record->distributions, step, d, n, &error))
        record_failed(w, error);
    free(d);
}

/* The weights at an evaluation, as `rangefinder train` keeps them
 * (core/kept_weights.h). */
static void record_weights(rf_worker *w, int64_t step)
{
    rf_status st = {0};
    g_autofree char *dir = g_path_get_dirname(w->record->checkpoint);
    if (rf_kept_weights_save(w->trainer, dir, step, rf_trainer_config(w->trainer)->train.keep_weights, &st))
        return;
    g_autoptr(GError) error = g_error_new_literal(G_IO_ERROR, G_IO_ERROR_FAILED, st.msg);
    record_failed(w, error);
}

/* Every row to the UI thread (the live curve shows each step); to the run's
 * metrics.csv what `rangefinder train` writes for the config: a training
 * row every train.log_every steps and at the last, every evaluation. */
static void post_metrics(rf_worker *w, const rf_metrics *metrics)
{
    g_autoptr(GError) error = NULL;
    const rf_config *cfg = rf_trainer_config(w->trainer);
    gboolean logged = metrics->split != RF_SPLIT_TRAIN || due(metrics->step, cfg->train.log_every, cfg->train.steps);
    if (w->record != NULL && logged && !rf_metrics_csv_write(w->record->csv, metrics, &error))
        record_failed(w, error);
    else if (w->record != NULL && metrics->split == RF_SPLIT_VAL)
        record_distributions(w, metrics->step);
    if (w->record != NULL && metrics->split == RF_SPLIT_VAL)
        record_weights(w, metrics->step);
    rf_msg *m = msg_new(RF_MSG_METRICS);
    m->metrics = *metrics;
    m->step = metrics->step;
    m->peak_bytes = rf_alloc_peak_bytes();
    rf_queue_push(w->out, m);
}

/* What the run's token data give without a model (datasets/baselines.h),
 * on the validation split, into the message and the run's folder as
 * baselines.ini; NaN for other data. */
static void measure_baselines(rf_worker *w, rf_msg *m)
{
    m->baseline_majority = m->baseline_first_token = NAN;
    const rf_dataset *ds = w->data != NULL ? w->data->ds : NULL;
    rf_baselines b;
    if (ds == NULL || ds->feat_dim > 0 || ds->size[RF_SPLIT_VAL] < 1 ||
        !rf_baselines_measure(ds, RF_SPLIT_VAL, &b, NULL))
        return;
    m->baseline_majority = b.majority;
    m->baseline_first_token = b.first_token;
    if (w->record == NULL)
        return;
    g_autofree char *dir = g_path_get_dirname(w->record->checkpoint);
    g_autoptr(GError) error = NULL;
    if (!rf_baselines_file_write(dir, b.majority, b.first_token, &error))
        record_failed(w, error);
}

static void post_built(rf_worker *w)
{
    rf_graph *g = rf_trainer_model(w->trainer)->graph;
    int n = rf_tap_count(g);
    rf_msg *m = msg_new(RF_MSG_BUILT);
    m->taps = g_new0(char *, n + 1);
    for (int i = 0; i < n; i++)
        m->taps[i] = g_strdup(rf_tap_get(g, i)->name);
    m->plan = *rf_trainer_plan(w->trainer);
    m->step = rf_trainer_step_count(w->trainer);
    m->peak_bytes = rf_alloc_peak_bytes();
    measure_baselines(w, m);
    rf_queue_push(w->out, m);
}

/* Open the data (when not given) and build the model. */
static gboolean build(rf_worker *w, worker_run *run)
{
    if (w->data == NULL) {
        g_autoptr(GError) error = NULL;
        w->data = rf_data_ref_open(&w->cfg, &error);
        if (w->data == NULL) {
            fail_run(w, run, error->message);
            return FALSE;
        }
        rf_msg *m = msg_new(RF_MSG_DATA);
        m->data = rf_data_ref_acquire(w->data);
        rf_queue_push(w->out, m);
    }
    rf_alloc_reset_peak();
    rf_status st = {0};
    w->trainer = rf_trainer_new(&w->cfg, w->data->ds, &st);
    if (w->trainer == NULL) {
        fail_run(w, run, st.msg);
        return FALSE;
    }
    return TRUE;
}

/* The inspection pass itself: the requested sample, or the watched outside
 * input (which has no label, so its gradient taps are left out). */
static gboolean inspect_target(rf_worker *w, const rf_probe_request *req, GPtrArray *names, rf_probe_set **out,
                               rf_inspection *info, rf_status *st)
{
    rf_model *m = rf_trainer_model(w->trainer);
    const rf_inspected *in = req->input;
    if (in != NULL) {
        for (guint i = names->len; i-- > 0;)
            if (rf_tap_find(m->graph, g_ptr_array_index(names, i))->what == RF_TAP_GRAD)
                g_ptr_array_remove_index(names, i);
        if (in->feat_dim != m->feat_dim || in->len > m->seq_len)
            return rf_fail(st, "it was featurised for another data set than this run's; inspect it again");
    }
    if (names->len == 0)
        return TRUE;
    g_autofree const rf_probe_window **windows = g_new0(const rf_probe_window *, names->len + 1);
    for (guint i = 0; i < names->len; i++)
        windows[i] = rf_probe_request_window(req, g_ptr_array_index(names, i));
    *out = rf_probe_set_new_pooled(m->graph, (const char *const *)names->pdata, windows, (int)names->len, 0, st);
    if (*out == NULL)
        return FALSE;
    if (in == NULL)
        return rf_trainer_inspect(w->trainer, req->split, req->sample, *out, info, st);
    rf_outside_input x = {in->x, in->len};
    return rf_trainer_inspect_input(w->trainer, &x, *out, info, NULL, st);
}

/* Read the watched taps for the requested sample or input and post them. A
 * failed inspection drops the request: repeating it after every step would
 * fail the same way. */
static void inspect(rf_worker *w, worker_run *run)
{
    run->inspect_now = FALSE;
    if (run->probes.names == NULL)
        return;
    rf_graph *g = rf_trainer_model(w->trainer)->graph;
    g_autoptr(GPtrArray) names = g_ptr_array_new();
    for (char **name = run->probes.names; *name != NULL; name++)
        if (rf_tap_find(g, *name) != NULL)
            g_ptr_array_add(names, *name);
    if (names->len == 0)
        return;
    double t0 = now_s();
    rf_status st = {0};
    rf_probe_set *ps = NULL;
    rf_inspection info;
    if (!inspect_target(w, &run->probes, names, &ps, &info, &st)) {
        rf_probe_set_free(ps);
        g_autofree char *text =
            run->probes.input != NULL
                ? g_strdup_printf("Inspecting %s: %s", run->probes.input->name, st.msg)
                : g_strdup_printf("Inspecting sample %" G_GINT64_FORMAT " of the %s split: %s", run->probes.sample,
                                  rf_split_name(run->probes.split), st.msg);
        post_text(w, RF_MSG_PROBE_ERROR, text);
        rf_probe_request_clear(&run->probes);
        return;
    }
    if (ps == NULL)
        return;
    rf_msg *m = msg_new(RF_MSG_PROBES);
    m->step = rf_trainer_step_count(w->trainer);
    if (run->last_eval > run->kept_eval && run->probes.input == NULL) {
        /* the first snapshot since that evaluation: the history's, reduced here */
        m->history = g_new0(rf_probe_history_entry, 1);
        if (rf_probe_history_entry_make(m->history, run->last_eval, m->step, run->probes.split, run->probes.sample,
                                        ps))
            run->kept_eval = run->last_eval;
        else
            g_clear_pointer(&m->history, g_free);
    }
    run->last_probe = now_s();
    run->probe_seconds += run->last_probe - t0;
    m->probes = ps;
    m->target = (rf_probe_request_target){run->probes.split, run->probes.sample, NULL, info};
    if (run->probes.input != NULL)
        m->target.input = rf_inspected_acquire(run->probes.input);
    m->data = rf_data_ref_acquire(w->data);
    rf_queue_push(w->out, m);
}

static gboolean probe_due(const worker_run *run)
{
    return run->inspect_now ||
           (now_s() - run->last_probe >= PROBE_INTERVAL_S && run->probe_seconds <= PROBE_SHARE * run->train_seconds);
}

static gboolean evaluate(rf_worker *w, worker_run *run, rf_split split)
{
    const rf_config *cfg = rf_trainer_config(w->trainer);
    rf_metrics m;
    rf_status st = {0};
    double t0 = now_s();
    if (!rf_trainer_evaluate(w->trainer, split, cfg->train.eval_batches, &m, &st)) {
        fail_run(w, run, st.msg);
        return FALSE;
    }
    run->train_seconds += now_s() - t0;
    post_metrics(w, &m);
    if (split == RF_SPLIT_VAL) {
        /* The probe history keeps a snapshot per evaluation: take it now,
         * whatever the rate limit (one pass per evaluation costs little). */
        run->last_eval = m.step;
        run->inspect_now = TRUE;
    }
    return TRUE;
}

/* The end of the run: the test split, then wait for more steps. */
static void finish(rf_worker *w, worker_run *run)
{
    if (!evaluate(w, run, RF_SPLIT_TEST))
        return;
    rf_mutex_lock(&w->lock);
    w->paused = TRUE;   /* raising train.steps later needs a resume */
    rf_mutex_unlock(&w->lock);
    record_checkpoint(w);
    record_end(w, RF_TB_STATUS_SUCCESS);
    post_state(w, run, RF_RUN_FINISHED);
    run->inspect_now = TRUE;   /* show the final model */
}

/* One training step with the evaluations that fall due after it. */
static void train_step(rf_worker *w, worker_run *run)
{
    const rf_config *cfg = rf_trainer_config(w->trainer);
    int64_t last = cfg->train.steps;
    if (rf_trainer_step_count(w->trainer) >= last) {
        /* train.steps was lowered below the steps already made */
        if (evaluate(w, run, RF_SPLIT_VAL))
            finish(w, run);
        return;
    }
    rf_metrics m;
    rf_status st = {0};
    double t0 = now_s();
    if (!rf_trainer_step(w->trainer, &m, &st)) {
        fail_run(w, run, st.msg);
        return;
    }
    run->train_seconds += now_s() - t0;
    if (!m.unread)   /* a GPU step between train.log_every steps: nothing read yet */
        post_metrics(w, &m);
    if (due(m.step, cfg->train.eval_every, last) && !evaluate(w, run, RF_SPLIT_VAL))
        return;
    /* as `rangefinder train`: a crash loses at most checkpoint_every steps */
    if (m.step < last && cfg->train.checkpoint_every > 0 && m.step % cfg->train.checkpoint_every == 0)
        record_checkpoint(w);
    if (m.step >= last)
        finish(w, run);
    if (run->mode != RF_RUN_FAILED && probe_due(run))
        inspect(w, run);
}

/* Apply the commands (under `lock`); the state the run moves to. */
static void take_commands(rf_worker *w, worker_run *run)
{
    if (w->optim_dirty && w->trainer != NULL) {
        rf_trainer_set_optim(w->trainer, &w->optim);
        w->optim_dirty = FALSE;
        /* The step after those made is the first with the new settings. */
        rf_msg *m = msg_new(RF_MSG_OPTIM);
        m->step = rf_trainer_step_count(w->trainer) + 1;
        m->optim_serial = w->optim_serial;
        rf_queue_push(w->out, m);
    }
    if (w->probes_dirty) {
        rf_probe_request_copy(&run->probes, &w->probes);
        w->probes_dirty = FALSE;
        run->inspect_now = TRUE;
    }
    gboolean live = run->mode == RF_RUN_RUNNING || run->mode == RF_RUN_PAUSED;
    if (w->ended) {
        if (live) {
            /* the UI thread waits for the stop anyway */
            if (w->discard)
                record_rows(w);
            else
                record_checkpoint(w);
            post_state(w, run, RF_RUN_STOPPED);
        }
        return;
    }
    if (w->paused && run->mode == RF_RUN_RUNNING) {
        post_state(w, run, RF_RUN_PAUSED);
    } else if (!w->paused && run->mode == RF_RUN_PAUSED) {
        post_state(w, run, RF_RUN_RUNNING);
    } else if (!w->paused && run->mode == RF_RUN_FINISHED) {
        /* resumed after train.steps was raised, or nothing to do */
        if (rf_trainer_step_count(w->trainer) < rf_trainer_config(w->trainer)->train.steps)
            post_state(w, run, RF_RUN_RUNNING);
        else
            w->paused = TRUE;
    }
}

typedef enum { WORK_QUIT, WORK_STEP, WORK_INSPECT } work;

/* Wait until there is something to do. */
static work next_work(rf_worker *w, worker_run *run)
{
    rf_mutex_lock(&w->lock);
    work next;
    for (;;) {
        if (w->quit) {
            next = WORK_QUIT;
            break;
        }
        take_commands(w, run);
        if (!w->hold && w->trainer != NULL) {
            if (run->mode == RF_RUN_RUNNING) {
                next = WORK_STEP;
                break;
            }
            if (run->mode == RF_RUN_PAUSED && w->step_budget > 0 && !w->ended) {
                w->step_budget--;
                next = WORK_STEP;
                break;
            }
            if (run->inspect_now && run->probes.names != NULL) {
                next = WORK_INSPECT;
                break;
            }
        }
        if (run->mode != RF_RUN_PAUSED || w->ended)
            w->step_budget = 0;
        w->handled = w->requests;
        g_cond_broadcast(&w->idle);
        rf_cond_wait(&w->wake, &w->lock);
    }
    rf_mutex_unlock(&w->lock);
    return next;
}

static gpointer worker_main(gpointer data)
{
    rf_worker *w = data;
    worker_run run = {.mode = RF_RUN_LOADING, .inspect_now = TRUE, .last_eval = -1, .kept_eval = -1};
    rf_mutex_lock(&w->lock);
    rf_probe_request_copy(&run.probes, &w->probes);
    w->probes_dirty = FALSE;
    rf_mutex_unlock(&w->lock);
    if (w->trainer != NULL || build(w, &run)) {
        post_built(w);
        run.last_probe = now_s();
        rf_mutex_lock(&w->lock);
        gboolean paused = w->paused;
        rf_mutex_unlock(&w->lock);
        int64_t steps = rf_trainer_config(w->trainer)->train.steps;
        post_state(w, &run, rf_trainer_step_count(w->trainer) >= steps ? RF_RUN_FINISHED
                            : paused                                     ? RF_RUN_PAUSED
                                                                         : RF_RUN_RUNNING);
    }
    for (;;) {
        work next = next_work(w, &run);
        if (next == WORK_QUIT)
            break;
        if (next == WORK_STEP)
            train_step(w, &run);
        else
            inspect(w, &run);
    }
    rf_probe_request_clear(&run.probes);
    return NULL;
}

rf_worker *rf_worker_new(const rf_config *cfg, rf_data_ref *data, rf_trainer *trainer, gboolean paused,
                         const rf_probe_request *probes, rf_run_record *record)
{
    rf_worker *w = g_new0(rf_worker, 1);
    w->out = g_async_queue_new_full((GDestroyNotify)rf_msg_free);
    w->cfg = *cfg;
    w->data = data;
    w->trainer = trainer;
    w->record = record;
    w->paused = paused;
    g_mutex_init(&w->lock);
    g_cond_init(&w->wake);
    g_cond_init(&w->idle);
    rf_probe_request_copy(&w->probes, probes);
    w->thread = g_thread_new("rf-train", worker_main, w);
    return w;
}

GAsyncQueue *rf_worker_messages(rf_worker *w)
{
    return w->out;
}

void rf_worker_set_paused(rf_worker *w, gboolean paused)
{
    rf_mutex_lock(&w->lock);
    w->paused = paused;
    g_cond_signal(&w->wake);
    rf_mutex_unlock(&w->lock);
}

void rf_worker_step_once(rf_worker *w)
{
    rf_mutex_lock(&w->lock);
    if (w->paused) {
        w->step_budget++;
        g_cond_signal(&w->wake);
    }
    rf_mutex_unlock(&w->lock);
}

/* Called with `lock` held after changing commands: wait until the thread
 * has read them and sleeps (or has quit). */
static void wait_idle(rf_worker *w)
{
    guint64 mine = ++w->requests;
    g_cond_signal(&w->wake);
    while (w->handled < mine && w->thread != NULL)
        rf_cond_wait(&w->idle, &w->lock);
}

void rf_worker_end(rf_worker *w, gboolean keep_weights)
{
    rf_mutex_lock(&w->lock);
    if (!w->ended)   /* the first end decides */
        w->discard = !keep_weights;
    w->ended = TRUE;
    wait_idle(w);
    rf_mutex_unlock(&w->lock);
}

guint64 rf_worker_set_optim(rf_worker *w, const rf_config *cfg)
{
    rf_mutex_lock(&w->lock);
    w->optim = *cfg;
    w->optim_dirty = TRUE;
    guint64 serial = ++w->optim_serial;
    g_cond_signal(&w->wake);
    rf_mutex_unlock(&w->lock);
    return serial;
}

void rf_worker_watch(rf_worker *w, const rf_probe_request *probes)
{
    rf_mutex_lock(&w->lock);
    rf_probe_request_copy(&w->probes, probes);
    w->probes_dirty = TRUE;
    g_cond_signal(&w->wake);
    rf_mutex_unlock(&w->lock);
}

gboolean rf_worker_save(rf_worker *w, const char *path, GError **error)
{
    rf_mutex_lock(&w->lock);
    w->hold = TRUE;
    wait_idle(w);
    rf_status st = {0};
    gboolean ok = w->trainer != NULL && rf_trainer_save(w->trainer, path, &st);
    if (w->trainer == NULL)
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: there is no model to save: the run failed before "
                    "its model was built", path);
    else if (!ok)
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_FAILED, st.msg);
    w->hold = FALSE;
    g_cond_signal(&w->wake);
    rf_mutex_unlock(&w->lock);
    return ok;
}

void rf_worker_join(rf_worker *w)
{
    rf_mutex_lock(&w->lock);
    GThread *thread = w->thread;
    w->quit = TRUE;
    g_cond_signal(&w->wake);
    rf_mutex_unlock(&w->lock);
    if (thread == NULL)
        return;
    g_thread_join(thread);
    rf_mutex_lock(&w->lock);
    w->thread = NULL;
    rf_mutex_unlock(&w->lock);
}

void rf_worker_free(rf_worker *w)
{
    if (w == NULL)
        return;
    rf_worker_join(w);
    rf_run_record_free(w->record);
    rf_trainer_free(w->trainer);
    rf_data_ref_release(w->data);
    rf_probe_request_clear(&w->probes);
    g_async_queue_unref(w->out);
    g_mutex_clear(&w->lock);
    g_cond_clear(&w->wake);
    g_cond_clear(&w->idle);
    g_free(w);
}
