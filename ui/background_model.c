/* Forward-only work on the session's model in a GTask (background_model.h). */
#include "background_model.h"

#include <glib/gstdio.h>
#include <unistd.h>

#include "../core/checkpoint.h"
#include "../datasets/datasets.h"

typedef struct background_task {
    char *checkpoint;        /* the model's file */
    gboolean temporary;      /* a copy of the session's model, removed with the task */
    void *job;
    GDestroyNotify job_free;
    rf_background_work work;
} background_task;

static void background_task_free(background_task *t)
{
    if (t->temporary)
        g_unlink(t->checkpoint);
    g_free(t->checkpoint);
    t->job_free(t->job);
    g_free(t);
}

bool rf_loaded_model_open(rf_loaded_model *m, const char *checkpoint, rf_status *st)
{
    *m = (rf_loaded_model){0};
    rf_config_defaults(&m->cfg);
    return rf_checkpoint_read_config(checkpoint, &m->cfg, &m->step, st) &&
           (m->ds = rf_dataset_open(&m->cfg, st)) != NULL &&
           (m->trainer = rf_trainer_new_forward(&m->cfg, m->ds, st)) != NULL &&
           rf_trainer_load(m->trainer, checkpoint, st);
}

void rf_loaded_model_clear(rf_loaded_model *m)
{
    rf_trainer_free(m->trainer);
    rf_dataset_free(m->ds);
    m->trainer = NULL;
    m->ds = NULL;
}

/* Build the model from the checkpoint on its run's data set, then work. */
static bool load_and_work(background_task *t, rf_status *st)
{
    rf_loaded_model m;
    bool ok = rf_loaded_model_open(&m, t->checkpoint, st) && t->work(t->job, &m, st);
    rf_loaded_model_clear(&m);
    return ok;
}

static void work_in_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
    (void)source;
    (void)cancellable;
    rf_status st = {0};
    if (load_and_work(data, &st))
        g_task_return_boolean(task, TRUE);
    else
        g_task_return_new_error(task, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", st.msg);
}

#define MODEL_KEY "rf-background-model"

/* Why the button would refuse in the session's state now, or NULL when a
 * model is there to use. */
static char *refusal(rf_background_model *m)
{
    RfRunState state = rf_session_get_state(m->session);
    if (state == RF_RUN_RUNNING || state == RF_RUN_LOADING)
        return g_strdup_printf("Pause the run to %s the model as it is now", m->verb);
    if (state == RF_RUN_IDLE) {
        g_auto(GStrv) parts = g_strsplit(gtk_button_get_label(GTK_BUTTON(m->button)), "_", -1);
        g_autofree char *name = g_strjoinv("", parts);
        return g_strdup_printf("There is no model yet: train a run or open a checkpoint, then %s", name);
    }
    return NULL;
}

static void show(rf_background_model *m, const char *text)
{
    gtk_label_set_text(GTK_LABEL(m->status), text);
    gtk_widget_set_tooltip_text(m->status, text[0] != '\0' ? text : NULL);
}

static void hint(rf_background_model *m)
{
    g_autofree char *why = refusal(m);
    show(m, why != NULL ? why : m->ready_hint != NULL ? m->ready_hint : "");
    m->hinting = TRUE;
}

static void on_state_changed(RfSession *s, gpointer plot)
{
    (void)s;
    rf_background_model *m = g_object_get_data(plot, MODEL_KEY);
    if (m != NULL && m->hinting && !m->computing)
        hint(m);
}

GtkWidget *rf_background_model_status(rf_background_model *m, const char *name, const char *ready_hint)
{
    m->status = gtk_label_new(NULL);
    gtk_widget_set_name(m->status, name);
    gtk_label_set_xalign(GTK_LABEL(m->status), 0);
    gtk_label_set_ellipsize(GTK_LABEL(m->status), PANGO_ELLIPSIZE_END);
    gtk_widget_set_hexpand(m->status, TRUE);
    gtk_widget_add_css_class(m->status, "dim-label");
    m->ready_hint = ready_hint;
    hint(m);
    /* the plot owns the view's state, and so m */
    g_object_set_data(G_OBJECT(m->plot), MODEL_KEY, m);
    g_signal_connect_object(m->session, "state-changed", G_CALLBACK(on_state_changed), m->plot, 0);
    return m->status;
}

void rf_background_model_say(rf_background_model *m, const char *text)
{
    show(m, text);
    m->hinting = FALSE;
}

/* The task holds the plot, which owns the view's state and so `m`. */
static void on_worked(GObject *source, GAsyncResult *result, gpointer data)
{
    (void)source;
    rf_background_model *m = data;
    background_task *t = g_task_get_task_data(G_TASK(result));
    g_autoptr(GError) error = NULL;
    m->computing = FALSE;
    gtk_widget_set_sensitive(m->button, TRUE);
    rf_plot_view_set_pending(m->plot, FALSE);
    if (g_task_propagate_boolean(G_TASK(result), &error))
        m->done(m->view, t->job);
    else
        rf_background_model_say(m, error->message);
}

gboolean rf_background_model_ready(rf_background_model *m)
{
    if (m->computing)
        return FALSE;
    g_autofree char *why = refusal(m);
    if (why == NULL)
        return TRUE;
    show(m, why);
    m->hinting = TRUE;
    return FALSE;
}

/* Work on the model of file `path` (taken over), removed afterwards when `temporary`. */
static void start_task(rf_background_model *m, char *path, gboolean temporary, void *job, GDestroyNotify job_free)
{
    background_task *t = g_new0(background_task, 1);
    t->checkpoint = path;
    t->temporary = temporary;
    t->job = job;
    t->job_free = job_free;
    t->work = m->work;
    m->computing = TRUE;
    gtk_widget_set_sensitive(m->button, FALSE);
    rf_plot_view_set_pending(m->plot, TRUE);
    rf_background_model_say(m, m->busy);
    g_autoptr(GTask) task = g_task_new(m->plot, NULL, on_worked, m);
    g_task_set_task_data(task, t, (GDestroyNotify)background_task_free);
    g_task_run_in_thread(task, work_in_thread);
}

void rf_background_model_start_file(rf_background_model *m, const char *path, void *job, GDestroyNotify job_free)
{
    if (m->computing) {
        job_free(job);
        return;
    }
    start_task(m, g_strdup(path), FALSE, job, job_free);
}

void rf_background_model_start(rf_background_model *m, void *job, GDestroyNotify job_free)
{
    g_autoptr(GError) error = NULL;
    g_autofree char *path = NULL;
    int fd = g_file_open_tmp("rangefinder-model-XXXXXX.safetensors", &path, &error);
    if (fd >= 0)
        close(fd);
    if (fd < 0 || !rf_session_save_checkpoint(m->session, path, &error)) {
        if (fd >= 0)
            g_unlink(path);
        rf_background_model_say(m, error->message);
        job_free(job);
        return;
    }
    start_task(m, g_steal_pointer(&path), TRUE, job, job_free);
}
