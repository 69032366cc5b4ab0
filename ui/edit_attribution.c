/* Gradient × input of edited inputs on a kept batch-1 model (edit_attribution.h). */
#include "edit_attribution.h"

#include <glib/gstdio.h>
#include <unistd.h>

#include "../core/attribution.h"
#include "../core/checkpoint.h"
#include "../datasets/datasets.h"
#include "shown_sample.h"

#define STATE_KEY "rf-edit-attribution"

/* The kept model: built on the worker thread, used only there while busy. */
typedef struct kept_model {
    rf_dataset *ds;
    rf_trainer *trainer;
    gconstpointer run;   /* which model it is: the session's run and step */
    int64_t step;
} kept_model;

typedef struct request {
    rf_inspected *in;
    rf_edit_attributed done;
    GWeakRef owner;
} request;

typedef struct state {
    kept_model model;
    gboolean busy;
    request *waiting;    /* the newest input asked for while busy, or NULL */
} state;

typedef struct job {
    state *state;
    request *request;
    char *checkpoint;    /* a new model to build first (a temporary file, removed), or NULL */
    gconstpointer run;
    int64_t step;
    rf_attribution result;
} job;

static void kept_model_clear(kept_model *m)
{
    rf_trainer_free(m->trainer);
    rf_dataset_free(m->ds);
    *m = (kept_model){0};
}

static void request_free(request *r)
{
    rf_inspected_release(r->in);
    g_weak_ref_clear(&r->owner);
    g_free(r);
}

static void state_free(state *st)
{
    kept_model_clear(&st->model);
    if (st->waiting != NULL)
        request_free(st->waiting);
    g_free(st);
}

static void job_free(job *j)
{
    if (j->checkpoint != NULL) {
        g_unlink(j->checkpoint);
        g_free(j->checkpoint);
    }
    request_free(j->request);
    rf_attribution_clear(&j->result);
    g_free(j);
}

/* The checkpoint's model on its run's data set, forward-only with batch 1:
 * gradient × input then takes one input and its baseline through it. */
static bool build(kept_model *m, const char *checkpoint, rf_status *st)
{
    kept_model_clear(m);
    rf_config cfg;
    rf_config_defaults(&cfg);
    int64_t step = 0;
    if (!rf_checkpoint_read_config(checkpoint, &cfg, &step, st) || (m->ds = rf_dataset_open(&cfg, st)) == NULL)
        return false;
    cfg.data.batch = 1;
    return (m->trainer = rf_trainer_new_forward(&cfg, m->ds, st)) != NULL && rf_trainer_load(m->trainer, checkpoint, st);
}

static void attribute_in_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
    (void)source;
    (void)cancellable;
    job *j = data;
    kept_model *m = &j->state->model;
    rf_status st = {0};
    bool ok = true;
    if (j->checkpoint != NULL) {
        ok = build(m, j->checkpoint, &st);
        m->run = ok ? j->run : NULL;
        m->step = j->step;
        if (!ok)
            kept_model_clear(m);
    }
    rf_attr_request r = {.method = RF_ATTR_GRAD_INPUT, .target = -1, .steps = 1, .window = 1, .stride = 1};
    const rf_inspected *in = j->request->in;
    ok = ok && rf_trainer_attribute(m->trainer, &(rf_outside_input){in->x, in->len}, &r, &j->result, &st);
    if (ok)
        g_task_return_boolean(task, TRUE);
    else
        g_task_return_new_error(task, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", st.msg);
}

static void start(RfSession *s, state *st, request *r);

static void attributed(GObject *source, GAsyncResult *result, gpointer data)
{
    (void)data;
    RfSession *s = RF_SESSION(source);
    job *j = g_task_get_task_data(G_TASK(result));
    state *st = j->state;
    st->busy = FALSE;
    g_autoptr(GError) error = NULL;
    g_autoptr(GObject) owner = g_weak_ref_get(&j->request->owner);
    if (g_task_propagate_boolean(G_TASK(result), &error)) {
        rf_shown_attribution_set(s, RF_SPLIT_TRAIN, 0, j->request->in, &j->result, RF_ATTR_GRAD_INPUT);
        if (owner != NULL)
            j->request->done(owner);
    } else {
        g_message("gradient × input of %s: %s", j->request->in->name, error->message);
    }
    request *next = g_steal_pointer(&st->waiting);
    if (next != NULL)
        start(s, st, next);
}

static void start(RfSession *s, state *st, request *r)
{
    RfRunState run_state = rf_session_get_state(s);
    if (run_state == RF_RUN_IDLE || run_state == RF_RUN_LOADING || run_state == RF_RUN_RUNNING ||
        run_state == RF_RUN_FAILED) {
        request_free(r);   /* no model that holds still */
        return;
    }
    job *j = g_new0(job, 1);
    j->state = st;
    j->request = r;
    j->run = rf_session_get_current_run(s);
    j->step = rf_session_get_step(s);
    if (st->model.trainer == NULL || st->model.run != j->run || st->model.step != j->step) {
        g_autoptr(GError) error = NULL;
        int fd = g_file_open_tmp("rangefinder-edit-XXXXXX.safetensors", &j->checkpoint, &error);
        if (fd >= 0)
            close(fd);
        if (fd < 0 || !rf_session_save_checkpoint(s, j->checkpoint, &error)) {
            g_message("gradient × input of %s: %s", r->in->name, error->message);
            job_free(j);
            return;
        }
    }
    st->busy = TRUE;
    g_autoptr(GTask) task = g_task_new(s, NULL, attributed, NULL);
    g_task_set_task_data(task, j, (GDestroyNotify)job_free);
    g_task_run_in_thread(task, attribute_in_thread);
}

void rf_edit_attribute(RfSession *s, const rf_inspected *in, rf_edit_attributed done, GObject *owner)
{
    state *st = g_object_get_data(G_OBJECT(s), STATE_KEY);
    if (st == NULL) {
        st = g_new0(state, 1);
        g_object_set_data_full(G_OBJECT(s), STATE_KEY, st, (GDestroyNotify)state_free);
    }
    request *r = g_new0(request, 1);
    r->in = rf_inspected_acquire((rf_inspected *)in);
    r->done = done;
    g_weak_ref_init(&r->owner, owner);
    if (st->busy) {
        if (st->waiting != NULL)
            request_free(st->waiting);   /* superseded before it started */
        st->waiting = r;
        return;
    }
    start(s, st, r);
}
