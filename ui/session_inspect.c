/* Inputs from outside the data set (see session.h): featurised in a GTask
 * thread through the data set's hook, the one code path the CLI's predict
 * and inspect --input use too; kept in the session's list; watched by the
 * worker in place of a sample. */
#include "session_private.h"
#include "../datasets/featurise.h"

#include <string.h>

static void inspected_clear(gpointer data)
{
    rf_inspected *in = data;
    g_free(in->name);
    g_free(in->path);
    g_free(in->text);
    g_free(in->x);
    g_free(in->before);
}

rf_inspected *rf_inspected_acquire(rf_inspected *in)
{
    return g_atomic_rc_box_acquire(in);
}

void rf_inspected_release(rf_inspected *in)
{
    g_atomic_rc_box_release_full(in, inspected_clear);
}

typedef struct featurise_job {
    rf_data_ref *data;        /* the data set it is featurised for */
    char *path, *text, *name; /* name: NULL for the path's base name or the text */
    rf_inspected *replaces;   /* an edit's original (a reference), or NULL */
} featurise_job;

static void job_free(gpointer data)
{
    featurise_job *job = data;
    rf_data_ref_release(job->data);
    g_free(job->path);
    g_free(job->text);
    g_free(job->name);
    if (job->replaces != NULL)
        rf_inspected_release(job->replaces);
    g_free(job);
}

static void featurise_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
    (void)source;
    (void)cancellable;
    featurise_job *job = data;
    const rf_dataset *ds = job->data->ds;
    rf_inspected *in = g_atomic_rc_box_new0(rf_inspected);
    in->x = g_new(float, (size_t)ds->seq_len * (size_t)MAX(1, ds->feat_dim));
    in->seq_len = ds->seq_len;
    in->feat_dim = ds->feat_dim;
    in->path = g_strdup(job->path);
    in->text = g_strdup(job->text);
    in->name = job->name != NULL   ? g_strdup(job->name)
               : job->path != NULL ? g_path_get_basename(job->path)
                                   : g_strstrip(g_strdup(job->text));
    rf_status st = {0};
    if (rf_dataset_featurise(ds, job->path, job->text, in->x, &in->len, &st)) {
        g_task_return_pointer(task, in, (GDestroyNotify)rf_inspected_release);
    } else {
        rf_inspected_release(in);
        g_task_return_new_error(task, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s", st.msg);
    }
}

static void start_featurising(RfSession *s, const char *path, const char *text, const char *name,
                              const rf_inspected *replaces, GCancellable *cancellable, GAsyncReadyCallback callback,
                              gpointer user_data)
{
    GTask *task = g_task_new(s, cancellable, callback, user_data);
    g_task_set_source_tag(task, rf_session_inspect_async);
    if (s->data == NULL) {
        g_task_return_new_error(task, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED,
                                "%s: no data set is open to featurise it for; choose one in the Data view first",
                                path != NULL ? path : text);
        g_object_unref(task);
        return;
    }
    featurise_job *job = g_new0(featurise_job, 1);
    job->data = rf_data_ref_acquire(s->data);
    job->path = g_strdup(path);
    job->text = g_strdup(text);
    job->name = g_strdup(name);
    job->replaces = replaces != NULL ? rf_inspected_acquire((rf_inspected *)replaces) : NULL;
    g_task_set_task_data(task, job, job_free);
    g_task_run_in_thread(task, featurise_thread);
    g_object_unref(task);
}

void rf_session_inspect_async(RfSession *s, const char *path, const char *text, GAsyncReadyCallback callback,
                              gpointer user_data)
{
    start_featurising(s, path, text, NULL, NULL, NULL, callback, user_data);
}

void rf_session_reinspect_async(RfSession *s, const rf_inspected *replaces, const char *name, const char *text,
                                GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
    start_featurising(s, NULL, text, name, replaces, cancellable, callback, user_data);
}

const rf_inspected *rf_session_inspect_finish(RfSession *s, GAsyncResult *result, GError **error)
{
    g_return_val_if_fail(g_task_is_valid(result, s), NULL);
    /* a superseded edit fails as cancelled even when its result is ready (GTask's check-cancellable) */
    rf_inspected *in = g_task_propagate_pointer(G_TASK(result), error);
    if (in == NULL)
        return NULL;
    const featurise_job *job = g_task_get_task_data(G_TASK(result));
    if (s->data == NULL || !rf_data_config_equal(&s->data->cfg, &job->data->cfg)) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s: another data set was opened while it was read; "
                    "inspect it again", in->name);
        rf_inspected_release(in);
        return NULL;
    }
    guint at;
    if (job->replaces != NULL && g_ptr_array_find(s->inspected, job->replaces, &at)) {
        rf_inspected_release(g_ptr_array_index(s->inspected, at));
        g_ptr_array_index(s->inspected, at) = in;
    } else {
        g_ptr_array_add(s->inspected, in);
    }
    rf_session_watch_inspected(s, in);   /* says "inspected-changed" */
    return in;
}

const rf_inspected *rf_session_add_inspected(RfSession *s, const char *name, const float *x, int len,
                                             const char *before)
{
    if (s->data == NULL)
        return NULL;
    const rf_dataset *ds = s->data->ds;
    rf_inspected *in = g_atomic_rc_box_new0(rf_inspected);
    size_t width = (size_t)MAX(1, ds->feat_dim);
    in->x = g_new0(float, (size_t)ds->seq_len * width);
    memcpy(in->x, x, (size_t)len * width * sizeof *in->x);
    in->len = len;
    in->seq_len = ds->seq_len;
    in->feat_dim = ds->feat_dim;
    in->name = g_strdup(name);
    in->before = g_strdup(before);
    g_ptr_array_add(s->inspected, in);
    return in;
}

guint rf_session_get_inspected_count(RfSession *s)
{
    return s->inspected->len;
}

const rf_inspected *rf_session_get_inspected(RfSession *s, guint index)
{
    return index < s->inspected->len ? g_ptr_array_index(s->inspected, index) : NULL;
}

void rf_session_watch_inspected(RfSession *s, const rf_inspected *in)
{
    if (s->wanted.input == in)
        return;
    g_clear_pointer(&s->wanted.input, rf_inspected_release);
    if (in != NULL)
        s->wanted.input = rf_inspected_acquire((rf_inspected *)in);
    if (s->worker != NULL)
        rf_worker_watch(s->worker, &s->wanted);
    g_signal_emit(s, rf_session_signals[RF_SESSION_INSPECTED_CHANGED], 0);
}

const rf_inspected *rf_session_get_watched_inspected(RfSession *s)
{
    return s->wanted.input;
}

const rf_inspected *rf_session_get_probe_inspected(RfSession *s)
{
    return s->probes != NULL ? s->probe_target.input : NULL;
}

gboolean rf_session_forget_inspected(RfSession *s)
{
    if (s->inspected->len == 0 && s->wanted.input == NULL)
        return FALSE;
    g_ptr_array_set_size(s->inspected, 0);
    g_clear_pointer(&s->wanted.input, rf_inspected_release);
    if (s->worker != NULL)
        rf_worker_watch(s->worker, &s->wanted);
    return TRUE;
}
