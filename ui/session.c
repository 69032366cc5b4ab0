/* RfSession: the run state, the worker's messages turned into signals, the
 * data set and the probes. The configuration lives in session_config.c,
 * checkpoints in session_checkpoint.c, the compare queue in
 * session_queue.c, the training thread in session_worker.c. */
#include <string.h>

#include "session_private.h"
#include "../config/run_folder.h"
#include "../config/run_lock.h"
#include "../core/curriculum.h"
#include "../datasets/tsan_sync.h"

/* The UI hears from the worker at most this often. */
#define DRAIN_INTERVAL_MS 100
/* The median step time is a sort over every row: refresh it this often. */
#define SUMMARY_INTERVAL_US G_USEC_PER_SEC

G_DEFINE_FINAL_TYPE(RfSession, rf_session, G_TYPE_OBJECT)

guint rf_session_signals[RF_SESSION_N_SIGNALS];

static void rf_session_dispose(GObject *object)
{
    RfSession *s = RF_SESSION(object);
    g_clear_handle_id(&s->drain_source, g_source_remove);
    g_clear_pointer(&s->worker, rf_worker_free);
    g_clear_pointer(&s->data, rf_data_ref_release);
    g_clear_pointer(&s->probes_hold, rf_probe_hold_release);
    s->probes = NULL;
    g_clear_pointer(&s->probe_target.input, rf_inspected_release);
    g_clear_pointer(&s->probe_data, rf_data_ref_release);
    g_clear_pointer(&s->inspected, g_ptr_array_unref);
    g_clear_pointer(&s->history, rf_probe_history_free);
    if (s->queue != NULL) {
        g_queue_free_full(s->queue, (GDestroyNotify)rf_queued_run_free);
        s->queue = NULL;
    }
    rf_session_runs_clear(s);
    s->current = NULL;
    g_clear_pointer(&s->runs, g_ptr_array_unref);
    G_OBJECT_CLASS(rf_session_parent_class)->dispose(object);
}

static void rf_session_finalize(GObject *object)
{
    RfSession *s = RF_SESSION(object);
    g_free(s->error);
    g_free(s->load_note);
    g_free(s->opened_from);
    g_strfreev(s->taps);
    rf_probe_request_clear(&s->wanted);
    G_OBJECT_CLASS(rf_session_parent_class)->finalize(object);
}

static guint new_signal(const char *name, guint n_params, ...)
{
    va_list ap;
    va_start(ap, n_params);
    guint id = g_signal_new_valist(name, RF_TYPE_SESSION, G_SIGNAL_RUN_LAST, NULL, NULL, NULL, NULL, G_TYPE_NONE,
                                   n_params, ap);
    va_end(ap);
    return id;
}

static void rf_session_class_init(RfSessionClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->dispose = rf_session_dispose;
    object_class->finalize = rf_session_finalize;
    guint *sig = rf_session_signals;
    sig[RF_SESSION_STATE_CHANGED] = new_signal("state-changed", 0);
    sig[RF_SESSION_METRICS_CHANGED] = new_signal("metrics-changed", 0);
    sig[RF_SESSION_PROBES_CHANGED] = new_signal("probes-changed", 0);
    sig[RF_SESSION_CONFIG_CHANGED] = new_signal("config-changed", 1, G_TYPE_STRING);
    sig[RF_SESSION_DATA_CHANGED] = new_signal("data-changed", 0);
    sig[RF_SESSION_RUN_FAILED] = new_signal("run-failed", 1, G_TYPE_STRING);
    sig[RF_SESSION_QUEUE_CHANGED] = new_signal("queue-changed", 0);
    sig[RF_SESSION_INSPECTED_CHANGED] = new_signal("inspected-changed", 0);
    sig[RF_SESSION_OVERLAYS_CHANGED] = new_signal("overlays-changed", 0);
}

static void rf_session_init(RfSession *s)
{
    rf_config_defaults(&s->cfg);
    s->state = RF_RUN_IDLE;
    s->runs = g_ptr_array_new_with_free_func((GDestroyNotify)rf_run_data_free);
    s->queue = g_queue_new();
    s->inspected = g_ptr_array_new_with_free_func((GDestroyNotify)rf_inspected_release);
    s->overlays = g_ptr_array_new_with_free_func((GDestroyNotify)rf_run_data_free);
    s->wanted.split = RF_SPLIT_VAL;
    s->history = rf_probe_history_new(RF_PROBE_HISTORY_BYTES);
}

RfSession *rf_session_new(void)
{
    return g_object_new(RF_TYPE_SESSION, NULL);
}

void rf_session_report_failure(RfSession *s, const char *message)
{
    g_free(s->error);
    s->error = g_strdup(message);
    g_signal_emit(s, rf_session_signals[RF_SESSION_RUN_FAILED], 0, message);
}

void rf_session_replace_data(RfSession *s, rf_data_ref *data)
{
    gboolean forgot = (s->data == NULL || data == NULL || !rf_data_config_equal(&s->data->cfg, &data->cfg)) &&
                      rf_session_forget_inspected(s);
    rf_data_ref_release(s->data);
    s->data = data;
    g_signal_emit(s, rf_session_signals[RF_SESSION_DATA_CHANGED], 0);
    if (forgot)
        g_signal_emit(s, rf_session_signals[RF_SESSION_INSPECTED_CHANGED], 0);
}

RfProbeHold *rf_session_hold_probes(RfSession *s)
{
    return rf_probe_hold_acquire(s->probes_hold);
}

const rf_probe_history *rf_session_get_history(RfSession *s)
{
    return s->history;
}

/* --- the worker's messages --- */

typedef struct drained {
    gboolean data, inspected, metrics, probes, state, run_ended;
    char *failure;
} drained;

static void take_message(RfSession *s, rf_msg *m, drained *d)
{
    rf_run_data *run = s->current;
    switch (m->kind) {
    case RF_MSG_DATA:
        /* the run opened the data set the sidebar names: show it */
        if (rf_data_config_equal(&m->data->cfg, &s->cfg)) {
            if (s->data == NULL || !rf_data_config_equal(&s->data->cfg, &m->data->cfg))
                d->inspected |= rf_session_forget_inspected(s);
            rf_data_ref_release(s->data);
            s->data = g_steal_pointer(&m->data);
            d->data = TRUE;
        }
        break;
    case RF_MSG_BUILT:
        g_strfreev(s->taps);
        s->taps = g_steal_pointer(&m->taps);
        s->step = m->step;
        run->params = m->plan.param_count;
        run->planned_bytes = (double)m->plan.total;
        run->peak_bytes = MAX(run->peak_bytes, (double)m->peak_bytes);
        run->baseline_majority = m->baseline_majority;
        run->baseline_first_token = m->baseline_first_token;
        break;
    case RF_MSG_METRICS:
        rf_run_data_append(run, &m->metrics);
        run->peak_bytes = MAX(run->peak_bytes, (double)m->peak_bytes);
        s->step = m->step;
        d->metrics = TRUE;
        break;
    case RF_MSG_PROBES:
        g_clear_pointer(&s->probes_hold, rf_probe_hold_release);
        s->probes = g_steal_pointer(&m->probes);
        s->probes_hold = rf_probe_hold_new(s->probes);
        if (m->history != NULL)
            rf_probe_history_add(s->history, m->history);
        if (s->probe_target.input != NULL)
            rf_inspected_release(s->probe_target.input);
        s->probe_target = m->target;
        m->target.input = NULL;   /* the session's now */
        rf_data_ref_release(s->probe_data);
        s->probe_data = g_steal_pointer(&m->data);
        d->probes = TRUE;
        break;
    case RF_MSG_STATE:
        s->step = m->step;
        /* train.steps lowered below the steps made ended the run there:
         * that is the budget it trained to */
        if (m->state == RF_RUN_FINISHED && run != NULL && run->cfg.train.steps < m->step)
            run->cfg.train.steps = (int)m->step;
        if (s->state != m->state) {
            s->state = m->state;
            d->state = TRUE;
        }
        d->run_ended = d->run_ended || m->state == RF_RUN_FINISHED || m->state == RF_RUN_FAILED;
        break;
    case RF_MSG_ERROR:
        g_free(d->failure);
        d->failure = g_steal_pointer(&m->text);
        break;
    case RF_MSG_RECORD_ERROR:
        g_free(d->failure);
        d->failure = g_steal_pointer(&m->text);
        break;
    case RF_MSG_PROBE_ERROR:
        g_free(d->failure);
        d->failure = g_steal_pointer(&m->text);
        rf_probe_request_clear(&s->wanted);
        break;
    case RF_MSG_OPTIM:
        rf_run_data_changes_taken(run, m->optim_serial, m->step);
        d->metrics = TRUE;
        break;
    }
}

/* Read everything the worker posted and emit each signal at most once.
 * Handlers may start or stop runs, so nothing of the worker is used after
 * the first emission. Returns whether a run ended (finished or failed). */
static gboolean drain(RfSession *s)
{
    if (s->worker == NULL)
        return FALSE;
    GAsyncQueue *q = rf_worker_messages(s->worker);
    drained d = {0};
    /* what is there now: a fast worker must not keep the UI thread here */
    for (gint n = g_async_queue_length(q); n > 0; n--) {
        rf_msg *m = rf_queue_try_pop(q);
        take_message(s, m, &d);
        rf_msg_free(m);
    }
    gint64 now = g_get_monotonic_time();
    if (d.run_ended || (d.metrics && now - s->last_summary >= SUMMARY_INTERVAL_US)) {
        rf_run_data_update_summary(s->current);
        s->last_summary = now;
    }
    if (d.data)
        g_signal_emit(s, rf_session_signals[RF_SESSION_DATA_CHANGED], 0);
    if (d.inspected)
        g_signal_emit(s, rf_session_signals[RF_SESSION_INSPECTED_CHANGED], 0);
    if (d.metrics)
        g_signal_emit(s, rf_session_signals[RF_SESSION_METRICS_CHANGED], 0);
    if (d.probes)
        g_signal_emit(s, rf_session_signals[RF_SESSION_PROBES_CHANGED], 0);
    if (d.state)
        g_signal_emit(s, rf_session_signals[RF_SESSION_STATE_CHANGED], 0);
    if (d.failure != NULL)
        rf_session_report_failure(s, d.failure);
    g_free(d.failure);
    return d.run_ended;
}

static gboolean on_drain_tick(gpointer data)
{
    RfSession *s = data;
    rf_worker *drained_worker = s->worker;
    if (drain(s) && s->worker == drained_worker) {
        g_signal_emit(s, rf_session_signals[RF_SESSION_QUEUE_CHANGED], 0);
        rf_session_queue_advance(s);
    }
    return G_SOURCE_CONTINUE;
}

void rf_session_retire_worker(RfSession *s)
{
    if (s->worker == NULL)
        return;
    rf_worker_end(s->worker, TRUE);
    rf_worker_join(s->worker);
    drain(s);
    g_clear_pointer(&s->worker, rf_worker_free);
    g_clear_pointer(&s->taps, g_strfreev);
}

static void set_state(RfSession *s, RfRunState state)
{
    if (s->state == state)
        return;
    s->state = state;
    g_signal_emit(s, rf_session_signals[RF_SESSION_STATE_CHANGED], 0);
}

/* "random · full", then "random · full #2", ... */
static char *run_name(RfSession *s, const rf_config *cfg)
{
    g_autofree char *base = g_strdup_printf("%s · %s", cfg->data.task, cfg->model.encoder);
    g_autofree char *numbered = g_strconcat(base, " #", NULL);
    guint same = 0;
    for (guint i = 0; i < s->runs->len; i++) {
        const rf_run_data *r = g_ptr_array_index(s->runs, i);
        same += strcmp(r->name, base) == 0 || g_str_has_prefix(r->name, numbered);
    }
    return same == 0 ? g_steal_pointer(&base) : g_strdup_printf("%s%u", numbered, same + 1);
}

static gboolean name_taken(GPtrArray *runs, const rf_run_data *r)
{
    for (guint i = 0; i < runs->len; i++) {
        const rf_run_data *other = g_ptr_array_index(runs, i);
        if (other != r && strcmp(other->name, r->name) == 0 && (r->dir == NULL || g_strcmp0(other->dir, r->dir) != 0))
            return TRUE;
    }
    return FALSE;
}

void rf_session_name_uniquely(RfSession *s, rf_run_data *r)
{
    g_autofree char *base = g_strdup(r->name);
    g_autofree char *folder = r->dir != NULL ? g_path_get_basename(r->dir) : NULL;
    for (guint n = 1; name_taken(s->runs, r) || name_taken(s->overlays, r); n++) {
        g_free(r->name);
        r->name = folder != NULL && n == 1 && strcmp(base, folder) != 0 ? g_strdup_printf("%s · %s", base, folder)
                                           : g_strdup_printf("%s #%u", base, n + 1);
    }
}

/* A run without a folder: the colour fewest of the drawn runs have. */
static int free_color(RfSession *s)
{
    int used[RF_RUN_COLORS] = {0};
    GPtrArray *lists[2] = {s->runs, s->overlays};
    for (int l = 0; l < 2; l++)
        for (guint i = 0; i < lists[l]->len; i++) {
            const rf_run_data *r = g_ptr_array_index(lists[l], i);
            if (r->color >= 0 && r->color < RF_RUN_COLORS)
                used[r->color]++;
        }
    int best = 0;
    for (int c = 1; c < RF_RUN_COLORS; c++)
        if (used[c] < used[best])
            best = c;
    return best;
}

void rf_session_adopt_worker(RfSession *s, rf_worker *w, const rf_config *cfg, const char *name,
                             RfRunState state, int64_t step, const char *dir, rf_run_data *rows)
{
    if (rows != NULL) {
        s->current = rows;
        s->current->cfg = *cfg;
    } else if (dir != NULL) {
        g_autofree char *folder = g_path_get_basename(dir);
        s->current = rf_run_data_new(folder, cfg);
        s->current->dir = g_strdup(dir);
        s->current->color = rf_run_folder_color(dir);
    } else {
        g_autofree char *default_name = name == NULL ? run_name(s, cfg) : NULL;
        s->current = rf_run_data_new(name != NULL ? name : default_name, cfg);
        s->current->color = free_color(s);
    }
    rf_session_name_uniquely(s, s->current);
    g_clear_pointer(&s->opened_from, g_free);
    g_ptr_array_add(s->runs, s->current);
    /* The last snapshot is of the replaced run's model. */
    g_clear_pointer(&s->probe_data, rf_data_ref_release);
    rf_probe_history_clear(s->history);
    s->worker = w;
    s->step = step;
    if (s->drain_source == 0)
        s->drain_source = g_timeout_add(DRAIN_INTERVAL_MS, on_drain_tick, s);
    set_state(s, state);
}

gboolean rf_session_start_run(RfSession *s, const rf_config *cfg, const char *name, gboolean follows_cfg,
                              GError **error)
{
    rf_status st = {0};
    if (!rf_config_validate(cfg, &st)) {
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, st.msg);
        return FALSE;
    }
    /* The workbench trains one config; a curriculum's stages run from the
     * command line, whose run folder the Runs view follows. */
    if (rf_curriculum_count(cfg) > 1) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                    "this config trains a curriculum of %d stages (train.curriculum), which the workbench does not "
                    "run: start it with `rangefinder train --config FILE --runs FOLDER` and watch it in the Runs "
                    "view, or clear train.curriculum to train the last stage alone",
                    rf_curriculum_count(cfg));
        return FALSE;
    }
    rf_session_retire_worker(s);
    g_clear_pointer(&s->error, g_free);
    /* The loaded data set serves when the run asks for the same data;
     * otherwise the worker opens its own. */
    rf_data_ref *data = s->data != NULL && rf_data_config_equal(&s->data->cfg, cfg) ? rf_data_ref_acquire(s->data)
                                                                                    : NULL;
    s->current_follows_cfg = follows_cfg;
    g_autofree char *dir = NULL;
    rf_run_record *record = rf_session_new_record(s, cfg, &dir);
    rf_worker *w = rf_worker_new(cfg, data, NULL, FALSE, &s->wanted, record);
    rf_session_adopt_worker(s, w, cfg, name, RF_RUN_LOADING, 0, dir, NULL);
    return TRUE;
}

gboolean rf_session_start(RfSession *s, GError **error)
{
    s->queue_running = FALSE;
    return rf_session_start_run(s, &s->cfg, NULL, TRUE, error);
}

RfRunState rf_session_get_state(RfSession *s)
{
    return s->state;
}

void rf_session_pause(RfSession *s)
{
    if (s->worker != NULL)
        rf_worker_set_paused(s->worker, TRUE);
}

/* A run opened from a run folder's checkpoint trains here, unrecorded;
 * still, while another process trains that folder, training a copy of its
 * past is refused with that process named, as `train --resume` is. */
static gboolean may_train(RfSession *s, GError **error)
{
    return s->opened_from == NULL || rf_run_lock_check(s->opened_from, error);
}

gboolean rf_session_resume(RfSession *s, GError **error)
{
    if (s->worker == NULL)
        return TRUE;
    if (!may_train(s, error))
        return FALSE;
    rf_worker_set_paused(s->worker, FALSE);
    return TRUE;
}

gboolean rf_session_step_once(RfSession *s, GError **error)
{
    if (s->worker == NULL)
        return TRUE;
    if (!may_train(s, error))
        return FALSE;
    rf_worker_step_once(s->worker);
    return TRUE;
}

static void stop_run(RfSession *s, gboolean keep_weights)
{
    s->queue_running = FALSE;
    if (s->worker == NULL)
        return;
    rf_worker_end(s->worker, keep_weights);
    drain(s);
}

void rf_session_stop(RfSession *s)
{
    stop_run(s, TRUE);
}

void rf_session_stop_without_saving(RfSession *s)
{
    stop_run(s, FALSE);
}

rf_run_data *rf_session_get_current_run(RfSession *s)
{
    return s->current;
}

gboolean rf_session_run_superseded(RfSession *s, guint i)
{
    const rf_run_data *r = i < s->runs->len ? g_ptr_array_index(s->runs, i) : NULL;
    for (guint j = i + 1; r != NULL && r->dir != NULL && j < s->runs->len; j++)
        if (g_strcmp0(((const rf_run_data *)g_ptr_array_index(s->runs, j))->dir, r->dir) == 0)
            return TRUE;
    return FALSE;
}

GPtrArray *rf_session_get_runs(RfSession *s)
{
    return s->runs;
}

int64_t rf_session_get_step(RfSession *s)
{
    return s->step;
}

const char *rf_session_get_load_note(RfSession *s)
{
    return s->load_note;
}

const char *rf_session_get_error(RfSession *s)
{
    return s->error;
}

/* --- data --- */

static void open_data_thread(GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
    (void)source;
    (void)cancellable;
    RF_TSAN_ACQUIRE(task);   /* task_data, written by the UI thread */
    GError *error = NULL;
    rf_data_ref *d = rf_data_ref_open(task_data, &error);
    RF_TSAN_RELEASE(task);   /* the result goes to the UI thread */
    if (d == NULL)
        g_task_return_error(task, error);
    else
        g_task_return_pointer(task, d, (GDestroyNotify)rf_data_ref_release);
}

/* The task holds no reference to the session (a task's last reference may
 * be dropped in its thread, which would dispose the session there): the
 * answer finds the session through a weak reference. */
typedef struct data_request {
    GWeakRef session;
    guint number;
} data_request;

static void open_data_done(GObject *source, GAsyncResult *result, gpointer user_data)
{
    (void)source;
    data_request *req = user_data;
    g_autoptr(RfSession) s = g_weak_ref_get(&req->session);
    guint number = req->number;
    g_weak_ref_clear(&req->session);
    g_free(req);
    RF_TSAN_ACQUIRE(result);
    g_autoptr(GError) error = NULL;
    rf_data_ref *d = g_task_propagate_pointer(G_TASK(result), &error);
    if (s == NULL || number != s->data_request) {
        rf_data_ref_release(d);
        return;
    }
    s->data_answered = number;
    if (d == NULL)
        rf_session_report_failure(s, error->message);
    else
        rf_session_replace_data(s, d);
}

void rf_session_open_data(RfSession *s)
{
    /* The run in progress trains on the old data: end it (its worker keeps
     * the old data set alive for saving and inspection). */
    if (s->state == RF_RUN_LOADING || s->state == RF_RUN_RUNNING || s->state == RF_RUN_PAUSED)
        rf_session_stop(s);
    data_request *req = g_new0(data_request, 1);
    g_weak_ref_init(&req->session, s);
    req->number = ++s->data_request;
    g_signal_emit(s, rf_session_signals[RF_SESSION_STATE_CHANGED], 0);   /* rf_session_data_loading */
    g_autoptr(GTask) task = g_task_new(NULL, NULL, open_data_done, req);
    g_task_set_task_data(task, g_memdup2(&s->cfg, sizeof s->cfg), g_free);
    RF_TSAN_RELEASE(task);
    g_task_run_in_thread(task, open_data_thread);
}

const rf_dataset *rf_session_get_dataset(RfSession *s)
{
    return s->data != NULL ? s->data->ds : NULL;
}

gboolean rf_session_data_loading(RfSession *s)
{
    return s->data_answered != s->data_request;
}

const rf_config *rf_session_get_data_config(RfSession *s)
{
    return s->data != NULL ? &s->data->cfg : NULL;
}

const char *rf_session_get_data_warnings(RfSession *s, long long *count)
{
    *count = s->data != NULL ? s->data->warnings : 0;
    return s->data != NULL ? s->data->warning_lines : "";
}

/* --- probes --- */

void rf_session_watch_probes(RfSession *s, const char *const *names, int n, rf_split split, int64_t sample)
{
    rf_session_watch_probes_pooled(s, names, NULL, n, split, sample);
}

void rf_session_watch_probes_pooled(RfSession *s, const char *const *names, const rf_probe_window *windows, int n,
                                    rf_split split, int64_t sample)
{
    rf_inspected *input = g_steal_pointer(&s->wanted.input);   /* kept: see rf_session_watch_inspected */
    rf_probe_request_clear(&s->wanted);
    s->wanted.split = split;
    s->wanted.sample = sample;
    s->wanted.input = input;
    if (n > 0) {
        s->wanted.names = g_new0(char *, n + 1);
        for (int i = 0; i < n; i++)
            s->wanted.names[i] = g_strdup(names[i]);
        if (windows != NULL)
            s->wanted.windows = g_memdup2(windows, (gsize)n * sizeof *windows);
    }
    if (s->worker != NULL)
        rf_worker_watch(s->worker, &s->wanted);
}

gboolean rf_session_get_probe_sample(RfSession *s, rf_split *split, int64_t *sample, rf_inspection *info)
{
    if (s->probes == NULL)
        return FALSE;
    *split = s->probe_target.split;
    *sample = s->probe_target.sample;
    *info = s->probe_target.info;
    return TRUE;
}

gboolean rf_session_probes_fit_data(RfSession *s)
{
    return s->probes != NULL && s->probe_data != NULL && s->data != NULL &&
           (s->probe_data == s->data || rf_data_config_equal(&s->probe_data->cfg, &s->data->cfg));
}

const rf_probe_set *rf_session_get_probes(RfSession *s)
{
    return s->probes;
}

const rf_probe_value *rf_session_find_probe(RfSession *s, const char *name)
{
    return rf_probe_set_find(s->probes, name);
}

const char *const *rf_session_list_taps(RfSession *s)
{
    static const char *const none[] = {NULL};
    return s->taps != NULL ? (const char *const *)s->taps : none;
}
