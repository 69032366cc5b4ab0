/* What the Evaluation, Attribution and Projector views share: a button
 * that runs the session's model, as it is now, through some forward-only
 * work on a worker thread, with the view's status label saying why it
 * refuses, that it works, or what went wrong.
 *
 * A view embeds an rf_background_model in its state (which its plot owns),
 * fills in the fields, makes its status label with
 * rf_background_model_status(), and on its button's click calls
 * rf_background_model_ready() and then rf_background_model_start() with its
 * job. The work gets a forward-only model built from a temporary
 * checkpoint of the paused, finished or stopped run (removed with the job)
 * on that run's data set, or from a file the view names
 * (rf_background_model_start_file); the window stays responsive meanwhile. */
#ifndef RF_BACKGROUND_MODEL_H
#define RF_BACKGROUND_MODEL_H

#include "../core/train.h"
#include "plot_view.h"
#include "session.h"

/* The model the work runs, as the checkpoint holds it. */
typedef struct rf_loaded_model {
    rf_config cfg;
    int64_t step;
    rf_dataset *ds;          /* its run's data set; the work may keep it (and set this NULL) */
    rf_trainer *trainer;     /* forward-only */
} rf_loaded_model;

/* A checkpoint file's model on its run's data set, forward-only (for
 * work that compares a second model); rf_loaded_model_clear frees what
 * was built, also after a failure. */
bool rf_loaded_model_open(rf_loaded_model *m, const char *checkpoint, rf_status *st);
void rf_loaded_model_clear(rf_loaded_model *m);

/* On the worker thread: the job's work with the loaded model. */
typedef bool (*rf_background_work)(void *job, rf_loaded_model *model, rf_status *st);
/* On the main thread, once the work succeeded: show the job's result. */
typedef void (*rf_background_done)(void *view, void *job);

typedef struct rf_background_model {
    RfSession *session;
    RfPlotView *plot;        /* pending while the work runs; it holds the view's state alive */
    GtkWidget *button;       /* its mnemonic label names it in refusals; insensitive while the work runs */
    GtkWidget *status;       /* a label */
    const char *verb;        /* "evaluate": "Pause the run to evaluate the model as it is now" */
    const char *busy;        /* "Evaluating…" */
    rf_background_work work;
    rf_background_done done;
    void *view;              /* done's first argument */
    gboolean computing;
    const char *ready_hint;  /* rf_background_model_status's */
    gboolean hinting;        /* the label shows the hint for the session's state, not a result */
} rf_background_model;

/* The status label (named `name` for tests). Until the work first says
 * something, it follows the session's state: why the button would refuse
 * (a run that trains, no model yet), else `ready_hint` (NULL: nothing).
 * Call it after setting m's session, plot and button. */
GtkWidget *rf_background_model_status(rf_background_model *m, const char *name, const char *ready_hint);

/* Show `text` in the status label (and its tooltip, for when it is cut);
 * it stays there whatever the session's state does. */
void rf_background_model_say(rf_background_model *m, const char *text);

/* Whether the session has a model to use now; if not, says why (a run that
 * trains, no model yet) and returns FALSE. Also FALSE while work runs. */
gboolean rf_background_model_ready(rf_background_model *m);

/* Save the session's model to a temporary checkpoint and run m->work on
 * `job` in a thread, then m->done; `job` is freed by `job_free` after
 * both (or at once, when the checkpoint cannot be saved: that is said). */
void rf_background_model_start(rf_background_model *m, void *job, GDestroyNotify job_free);

/* The same on the model of a saved file (a run's kept weights,
 * core/kept_weights.h) instead of the session's: it needs no paused run,
 * so it works while a run trains. Nothing starts (and `job` is freed at
 * once) while work runs. */
void rf_background_model_start_file(rf_background_model *m, const char *path, void *job, GDestroyNotify job_free);

#endif
