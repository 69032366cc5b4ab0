/* The engine behind the workbench: the configuration being edited, the data
 * set, and training in a worker thread.
 *
 * The UI thread owns an RfSession. Training runs in a GThread that calls
 * rf_trainer_step in a loop; it never touches a widget. What it produces
 * (metrics rows, probe snapshots, state changes, errors) goes into a
 * GAsyncQueue; a timeout in the UI thread drains the queue at most 10 times
 * a second and emits the signals below, coalescing everything that arrived
 * in between. Commands from the UI (pause, stop, new optimiser settings,
 * which probes to watch) are read by the worker before each step.
 *
 * Signals (all emitted in the UI thread):
 *   "state-changed"   ()                    the run state changed, or a data set began opening
 *   "metrics-changed" ()                    new rows in the current run
 *   "probes-changed"  ()                    a new probe snapshot
 *   "config-changed"  (const char *key)     a key changed (NULL: all of them)
 *   "data-changed"    ()                    another data set is loaded
 *   "run-failed"      (const char *message) the run stopped with an error
 *   "queue-changed"   ()                    the compare queue or its results changed
 *   "inspected-changed" ()                  the inspected inputs or the watched one changed
 *   "overlays-changed" ()                   runs of the runs folder were picked or dropped for the overlay
 */
#ifndef RF_SESSION_H
#define RF_SESSION_H

#include <gio/gio.h>

#include "../core/probe.h"
#include "../core/train.h"
#include "plot/run_data.h"
#include "probe_history.h"

G_BEGIN_DECLS

#define RF_TYPE_SESSION (rf_session_get_type())
G_DECLARE_FINAL_TYPE(RfSession, rf_session, RF, SESSION, GObject)

typedef enum {
    RF_RUN_IDLE,       /* no run, or the last one was discarded */
    RF_RUN_LOADING,    /* opening the data set / building the model */
    RF_RUN_RUNNING,
    RF_RUN_PAUSED,
    RF_RUN_FINISHED,   /* reached train.steps */
    RF_RUN_STOPPED,    /* stopped by the user */
    RF_RUN_FAILED,
} RfRunState;

RfSession *rf_session_new(void);

/* --- configuration (UI thread) --- */
/* The edited configuration: what the next run will train with. */
const rf_config *rf_session_get_config(RfSession *s);
/* The configuration of the run on screen: the current run's (with the
 * optimiser edits it took live), or the edited one before any run. The
 * header, the status line and the views describe this run. */
const rf_config *rf_session_get_run_config(RfSession *s);
/* The keys ("model.encoder") whose edited value differs from the current
 * run's: edits waiting for the next run. NULL-terminated, in the key
 * table's order (g_strfreev); empty before any run. */
char **rf_session_get_pending_keys(RfSession *s);
/* Set "section.key" from text. An invalid value, or one that makes the
 * config invalid with the other keys (rf_config_validate), fails with the
 * core's message and changes nothing. Optimiser keys (train.lr, clip,
 * weight_decay, warmup, schedule, steps) reach a running run at its next
 * step (train.steps reaches a run that has ended only when it lets a
 * finished one go on); other keys apply to the next run, and
 * *needs_restart (may be NULL) says so when a run exists. */
gboolean rf_session_set_key(RfSession *s, const char *key, const char *value, gboolean *needs_restart,
                            GError **error);
/* Replace the whole config (from an INI file), for the next run: the
 * current run keeps its settings and stops following the edits (optimiser
 * keys no longer reach it). */
gboolean rf_session_set_config(RfSession *s, const rf_config *cfg, GError **error);
gboolean rf_session_load_config_file(RfSession *s, const char *ini_path, GError **error);
/* The planner's numbers for the current config at `seq_len` (0: the data's
 * length); fails with the core's explanation for an impossible config. */
gboolean rf_session_plan(RfSession *s, int seq_len, rf_memory_plan *plan, double *flops_per_sample,
                         GError **error);

/* --- data (opened in a GTask; "data-changed" when done, "run-failed" on error) --- */
void rf_session_open_data(RfSession *s);            /* for data.task / data.path of the config */
const rf_dataset *rf_session_get_dataset(RfSession *s);   /* NULL until loaded */
/* The config the loaded data set was opened with (its data.* keys), or NULL. */
const rf_config *rf_session_get_data_config(RfSession *s);
/* An rf_session_open_data has not answered yet. */
gboolean rf_session_data_loading(RfSession *s);
/* What opening the current data set warned about (*count warnings; the
 * first of them, one per line): files skipped, splits capped. */
const char *rf_session_get_data_warnings(RfSession *s, long long *count);
/* The latest progress of a data set being opened (image and audio folders
 * report it): `done` of `total` `what` ("images", "clips"); 0 of 0 before
 * any. From the loaders' threads; read it from any thread. */
void rf_data_progress(int64_t *done, int64_t *total, const char **what);

/* --- the run --- */
RfRunState rf_session_get_state(RfSession *s);
gboolean rf_session_start(RfSession *s, GError **error);   /* a new run with the current config */
void rf_session_pause(RfSession *s);
/* Resume, or (paused) take one step and pause again. A run opened from a
 * checkpoint in a run folder that another process is training
 * (config/run_lock.h) does neither: FALSE with the sentence naming it. */
gboolean rf_session_resume(RfSession *s, GError **error);
gboolean rf_session_step_once(RfSession *s, GError **error);
/* Stop the run for good; returns once the worker has stopped. A recorded
 * run's rows are on disk then, and its checkpoint, as `rangefinder train`
 * writes it when stopped. */
void rf_session_stop(RfSession *s);
/* The same, but no checkpoint is written: the weights since the last one
 * saved are lost (closing the window without saving). */
void rf_session_stop_without_saving(RfSession *s);
/* The run being trained or last trained (NULL before the first), and every
 * run of this session, oldest first (for overlays). */
rf_run_data *rf_session_get_current_run(RfSession *s);
GPtrArray *rf_session_get_runs(RfSession *s);   /* of rf_run_data *, owned by the session */
/* Whether a later run of the session goes on in run i's folder (a
 * checkpoint of it opened): the views draw that later one only. */
gboolean rf_session_run_superseded(RfSession *s, guint i);
int64_t rf_session_get_step(RfSession *s);
const char *rf_session_get_error(RfSession *s); /* the last failure's message, or NULL */
/* What the last checkpoint load changed so the model runs here ("...
 * trained on cuda, which is not usable here: it runs on the CPU"), or
 * NULL. */
const char *rf_session_get_load_note(RfSession *s);

/* --- probes: the worker runs an inspection pass (forward, and backward
 * for gradient taps; no update) on sample `sample` of `split` with these
 * taps after a step, at most 10 times a second and never more than 5 % of
 * the training time, and once after each evaluation (for the probe
 * history). Unknown names are ignored. --- */
void rf_session_watch_probes(RfSession *s, const char *const *names, int n, rf_split split, int64_t sample);
/* The same with a window per name (windows NULL, or an entry with rows = 0:
 * the whole tap): the snapshot's value is that window pooled (core/probe.h),
 * full attention's computed block by block, nothing N x N held. */
void rf_session_watch_probes_pooled(RfSession *s, const char *const *names, const rf_probe_window *windows, int n,
                                    rf_split split, int64_t sample);
/* The latest snapshot (NULL before any); valid until the next "probes-changed". */
const rf_probe_set *rf_session_get_probes(RfSession *s);
/* A reference that keeps the latest snapshot alive past the next one (for a
 * view that draws from it, or reads it in another thread); NULL before any.
 * Any thread may release it (rf_probe_hold_release). */
RfProbeHold *rf_session_hold_probes(RfSession *s);
/* The probe history of the run on screen (probe_history.h): the first
 * snapshot of a data set sample taken at or after each evaluation (none for
 * an evaluation no view watched after), reduced; a new run clears it. It
 * grows with "probes-changed"; hold an entry's snapshot to keep it. */
const rf_probe_history *rf_session_get_history(RfSession *s);
const rf_probe_value *rf_session_find_probe(RfSession *s, const char *name);
/* What the latest snapshot shows: its split and sample, and what the model
 * made of that sample (label, predicted class, loss). FALSE before any. */
gboolean rf_session_get_probe_sample(RfSession *s, rf_split *split, int64_t *sample, rf_inspection *info);
/* Whether the latest snapshot is the current run's model on a sample (or an
 * inspected input) of the loaded data set: the one that run trains on, or
 * one opened with the same data keys. FALSE before any snapshot, after
 * another data set was opened, and from the start of another run until its
 * first snapshot. What the model makes of a shown sample is shown only then. */
gboolean rf_session_probes_fit_data(RfSession *s);
/* The taps the current model offers (names, NULL-terminated; empty before a run). */
const char *const *rf_session_list_taps(RfSession *s);

/* --- inputs from outside the data set (File → Inspect File…, a drop, a
 * pasted expression), featurised as the current data set's samples are
 * (datasets/featurise.h) and kept until another data set is loaded. The
 * worker inspects the watched one instead of a sample, between steps as
 * for samples (value taps only: it has no label). --- */
typedef struct rf_inspected {
    char *name;                  /* the file's base name, or the text */
    char *path, *text;           /* what was given: one of them is NULL */
    float *x;                    /* len * max(1, feat_dim) floats */
    int len, seq_len, feat_dim;  /* of the data set it was featurised for */
    char *before;                /* a changed copy (an occluded picture): the prediction of what it was
                                    made from, or NULL */
} rf_inspected;
/* References, from any thread. */
rf_inspected *rf_inspected_acquire(rf_inspected *in);
void rf_inspected_release(rf_inspected *in);

/* Featurise `path` (or `text` when path is NULL) through the current data
 * set in a thread; finish adds it to the list, watches it in place of a
 * sample and returns it (borrowed), or fails with the one sentence naming
 * the input and what differs. */
void rf_session_inspect_async(RfSession *s, const char *path, const char *text, GAsyncReadyCallback callback,
                              gpointer user_data);
const rf_inspected *rf_session_inspect_finish(RfSession *s, GAsyncResult *result, GError **error);
/* An edit: `text` featurised as above and named `name`; finish puts it in
 * the place of `replaces` in the list (appends it when replaces is NULL or
 * gone) and watches it. A cancelled edit (a newer one superseded it) fails
 * with G_IO_ERROR_CANCELLED and changes nothing. */
void rf_session_reinspect_async(RfSession *s, const rf_inspected *replaces, const char *name, const char *text,
                                GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
/* A copy of a sample with its features changed (a picture with a region
 * occluded): x of len positions for the current data set, named `name`,
 * `before` what the model predicted for the original (or NULL). Added to
 * the list as an inspected input, not yet watched (rf_session_watch_inspected
 * shows it); returned (borrowed), or NULL when no data set is open. */
const rf_inspected *rf_session_add_inspected(RfSession *s, const char *name, const float *x, int len,
                                             const char *before);
guint rf_session_get_inspected_count(RfSession *s);
const rf_inspected *rf_session_get_inspected(RfSession *s, guint index);
/* Watch this input (one of the list) in place of the probe request's
 * sample; NULL: back to data set samples. rf_session_watch_probes keeps it. */
void rf_session_watch_inspected(RfSession *s, const rf_inspected *in);
const rf_inspected *rf_session_get_watched_inspected(RfSession *s);
/* What the latest snapshot is of: an inspected input, or NULL for a sample. */
const rf_inspected *rf_session_get_probe_inspected(RfSession *s);

/* --- checkpoints (UI thread; the run must be paused, stopped or finished) --- */
gboolean rf_session_save_checkpoint(RfSession *s, const char *path, GError **error);
/* Restores the config saved in the checkpoint, reloads the data if needed,
 * builds the model and loads the weights: the run is then paused at the
 * checkpoint's step, ready to resume. */
gboolean rf_session_load_checkpoint(RfSession *s, const char *path, GError **error);
/* The same on the data set the current config names (its data.* keys, e.g.
 * LRA's files for a model trained on generated ListOps, or data.concat),
 * when its input and classes fit the model (core/model_input.h); otherwise
 * an error naming both, and the session is left as it was. */
gboolean rf_session_load_checkpoint_on_data(RfSession *s, const char *path, GError **error);

/* --- the runs folder (config/run_folder.h): each run started with a
 * config is written there as `rangefinder train --runs DIR` would write it
 * (config.ini at the start, metrics.csv row by row, the checkpoint when it
 * ends or is stopped or replaced; the run's rf_run_data names the folder).
 * NULL (the default): runs are not recorded. --- */
void rf_session_set_runs_dir(RfSession *s, const char *dir);
const char *rf_session_get_runs_dir(RfSession *s);
/* Runs of the runs folder drawn in the Training view beside the session's
 * own: add one (loaded from its folder; an error names it) or drop it. */
gboolean rf_session_add_overlay(RfSession *s, const char *dir, GError **error);
void rf_session_remove_overlay(RfSession *s, const char *dir);
GPtrArray *rf_session_get_overlays(RfSession *s);   /* of rf_run_data *, owned by the session */

/* --- compare: a queue of configs run one after another --- */
void rf_session_queue_add(RfSession *s, const rf_config *cfg, const char *name);
void rf_session_queue_clear(RfSession *s);
guint rf_session_queue_length(RfSession *s);
void rf_session_queue_run(RfSession *s);    /* start the next queued run when idle */

/* A queued run not started yet, as the Compare view lists it. Its ETA
 * scales the measured s/step of its basis run (rf_session_queue_basis_for)
 * by the planner's FLOPs per step of the two configs, times its
 * train.steps. */
typedef struct rf_queue_item {
    char *name;
    char **changes;            /* "model.encoder=blrp": its keys that differ from the edited config, in the
                                  key table's order (NULL-terminated; empty: as edited) */
    int64_t steps;             /* its train.steps */
    double seconds_per_step;   /* the estimate; 0: none yet */
    double seconds;            /* steps x seconds_per_step; 0: none yet */
} rf_queue_item;
void rf_queue_item_free(rf_queue_item *q);
/* The pending runs in the order they will run (of rf_queue_item *; g_ptr_array_unref frees them). */
GPtrArray *rf_session_queue_list(RfSession *s);
/* The run whose measured s/step a queued cfg's ETA scales: a run of this
 * session of the same config (train.steps aside), else of the same data
 * and encoder, else of the same data, the current run first, then the
 * latest; never a run on another data set. NULL when there is none (no ETA
 * yet). */
const rf_run_data *rf_session_queue_basis_for(RfSession *s, const rf_config *cfg);
/* The same for the config being edited. */
const rf_run_data *rf_session_queue_basis(RfSession *s);
/* Seconds until the queue is done: the pending runs' ETAs plus what the
 * run in progress has left; 0 when there is no estimate yet. */
double rf_session_queue_seconds_left(RfSession *s);

G_END_DECLS

#endif
