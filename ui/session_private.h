/* The session's internals, shared by session.c (the GObject and its API),
 * session_data.c (shared data sets) and session_worker.c (the training
 * thread). Nothing here is for the views. */
#ifndef RF_SESSION_PRIVATE_H
#define RF_SESSION_PRIVATE_H

#include "../config/distributions_csv.h"
#include "../config/metrics_csv.h"
#include "../config/run_lock.h"
#include "session.h"

/* --- a data set shared by the session and the worker training on it
 * (reference counted, so opening another one never pulls it out from under
 * a trainer) --- */
typedef struct rf_data_ref {
    rf_dataset *ds;
    rf_config cfg;             /* the config it was opened with */
    long long warnings;        /* files skipped, splits capped, ... while opening */
    char *warning_lines;       /* the first of them, one per line */
} rf_data_ref;

/* Open the data set of cfg (slow: call it off the UI thread). Errors name
 * the data path when the core's message does not already. */
rf_data_ref *rf_data_ref_open(const rf_config *cfg, GError **error);
rf_data_ref *rf_data_ref_acquire(rf_data_ref *d);
void rf_data_ref_release(rf_data_ref *d);
/* True when both configs give the same data set (every data key but the
 * batch size, and the seed that generates synthetic tasks). */
gboolean rf_data_config_equal(const rf_config *a, const rf_config *b);

/* --- which taps to read, for which sample --- */
typedef struct rf_probe_request {
    char **names;    /* NULL-terminated; NULL or empty: none */
    rf_probe_window *windows;   /* one per name, or NULL: a window with rows = 0 is the whole tap */
    rf_split split;
    int64_t sample;
    rf_inspected *input;   /* a reference: inspect this instead of the sample, or NULL */
} rf_probe_request;

/* The sample a probe snapshot is of, and what the model made of it. */
typedef struct rf_probe_request_target {
    rf_split split;
    int64_t sample;
    rf_inspected *input;   /* a reference, or NULL for the sample */
    rf_inspection info;
} rf_probe_request_target;

void rf_probe_request_copy(rf_probe_request *dst, const rf_probe_request *src);
void rf_probe_request_clear(rf_probe_request *r);
/* The window the request pools tap `name` over, or NULL for the whole tap. */
const rf_probe_window *rf_probe_request_window(const rf_probe_request *r, const char *name);

/* --- messages from the worker to the UI thread --- */
typedef enum rf_msg_kind {
    RF_MSG_DATA,         /* the worker opened the run's data set: data */
    RF_MSG_BUILT,        /* the model exists: taps, plan, step, baselines */
    RF_MSG_METRICS,      /* one metrics row: metrics, peak_bytes */
    RF_MSG_PROBES,       /* a filled probe set: probes (handed over), data (the run's) */
    RF_MSG_STATE,        /* the worker's state changed: state, step */
    RF_MSG_ERROR,        /* the run failed: text */
    RF_MSG_PROBE_ERROR,  /* an inspection failed (the run goes on): text */
    RF_MSG_OPTIM,        /* the trainer took the optimiser settings of edit optim_serial before `step` */
    RF_MSG_RECORD_ERROR, /* the run's folder could not be written (the run goes on, unrecorded): text */
} rf_msg_kind;

typedef struct rf_msg {
    rf_msg_kind kind;
    RfRunState state;
    int64_t step;
    rf_metrics metrics;
    size_t peak_bytes;
    rf_memory_plan plan;
    char **taps;
    rf_probe_set *probes;
    rf_probe_history_entry *history;   /* RF_MSG_PROBES: the first snapshot since an evaluation, reduced, or NULL */
    rf_probe_request_target target;  /* RF_MSG_PROBES: the sample they are of */
    rf_data_ref *data;
    char *text;
    guint64 optim_serial;
    double baseline_majority, baseline_first_token;   /* RF_MSG_BUILT: datasets/baselines.h on val, or NaN */
} rf_msg;

void rf_msg_free(rf_msg *m);

/* --- where a run is recorded in the runs folder (session_runs.c makes
 * it, the worker writes it as `rangefinder train` does: each metrics row
 * as it is made, and when the run ends or stops, the rows synced and then
 * the checkpoint; not for a failed run). The folder stays locked
 * (config/run_lock.h) while the record lives, so `rangefinder train
 * --resume` keeps out of it even while the run is paused or finished and
 * may still be resumed here. --- */
typedef struct rf_run_record {
    rf_metrics_csv *csv;
    rf_distributions_csv *distributions;
    char *checkpoint;
    int64_t saved_step;   /* the step of the last checkpoint written; -1: none */
    rf_run_lock *lock;
} rf_run_record;

void rf_run_record_free(rf_run_record *r);
/* A new folder of the runs folder for a run of cfg, locked, with its
 * config.ini and an empty metrics.csv; *dir is the folder. NULL without a runs folder,
 * or (with the failure reported) when it cannot be written. */
rf_run_record *rf_session_new_record(RfSession *s, const rf_config *cfg, char **dir);

/* --- the training thread: one per run, alive until the run is replaced --- */
typedef struct rf_worker rf_worker;

/* Start a worker for cfg. `data` (a reference the worker takes over) may be
 * NULL: the worker opens the data set itself and posts RF_MSG_DATA.
 * `trainer` (taken over) may be NULL: the worker builds it. `paused`: wait
 * for a resume before the first step. `record` (taken over) may be NULL:
 * the run is not recorded. */
rf_worker *rf_worker_new(const rf_config *cfg, rf_data_ref *data, rf_trainer *trainer, gboolean paused,
                         const rf_probe_request *probes, rf_run_record *record);
GAsyncQueue *rf_worker_messages(rf_worker *w);   /* of rf_msg *, for the UI thread */
void rf_worker_set_paused(rf_worker *w, gboolean paused);
void rf_worker_step_once(rf_worker *w);
/* Stop stepping for good; returns once the worker is idle (its last
 * messages are queued). The model stays for saving and inspection. A
 * recorded run's rows are synced, and its checkpoint written only when
 * `keep_weights` (as `rangefinder train` does when stopped). */
void rf_worker_end(rf_worker *w, gboolean keep_weights);
/* Hand the optimiser keys of cfg to the trainer before its next step;
 * returns the edit's number, which RF_MSG_OPTIM reports once it is taken. */
guint64 rf_worker_set_optim(rf_worker *w, const rf_config *cfg);
void rf_worker_watch(rf_worker *w, const rf_probe_request *probes);
/* Save a checkpoint while the worker waits between steps. */
gboolean rf_worker_save(rf_worker *w, const char *path, GError **error);
/* Ask the thread to quit and join it; queued messages stay readable. */
void rf_worker_join(rf_worker *w);
/* Join (if not yet) and free everything, queued messages included. */
void rf_worker_free(rf_worker *w);

/* --- the session object (session.c) and the parts of its API in
 * session_config.c, session_checkpoint.c and session_queue.c --- */
typedef struct rf_queued_run {
    rf_config cfg;
    char *name;
    double step_flops;             /* the planner's, for its ETA; 0: not known */
} rf_queued_run;

struct _RfSession {
    GObject parent_instance;

    rf_config cfg;                 /* being edited */
    rf_data_ref *data;             /* the loaded data set, or NULL */
    guint data_request;            /* counts rf_session_open_data calls: only the latest lands */
    guint data_answered;           /* the latest request answered (loaded or failed) */

    rf_worker *worker;             /* the current run's, or NULL */
    guint drain_source;
    RfRunState state;
    int64_t step;
    char *error;
    char *load_note;               /* what the last checkpoint load changed to run here, or NULL */
    char *opened_from;             /* the folder of the checkpoint the current run was opened from, or NULL */
    GPtrArray *runs;               /* of rf_run_data *, oldest first */
    rf_run_data *current;          /* in runs, or NULL */
    gboolean current_follows_cfg;  /* optimiser edits reach the current run (not a queued one) */
    gint64 last_summary;           /* monotonic µs of the last rf_run_data_update_summary */

    rf_probe_request wanted;
    rf_probe_set *probes;
    RfProbeHold *probes_hold;      /* the session's own reference to `probes` */
    rf_probe_request_target probe_target;   /* what `probes` is of */
    rf_probe_history *history;     /* of the current run */
    rf_data_ref *probe_data;       /* the data set of the run `probes` came from; NULL once that run is replaced */
    char **taps;

    GPtrArray *inspected;          /* of rf_inspected * (references), oldest first */

    GQueue *queue;                 /* of rf_queued_run * */
    gboolean queue_running;
    const rf_run_data *flops_run;  /* the run whose FLOPs per step flops_run_flops caches */
    double flops_run_flops;

    char *runs_dir;                /* where runs are recorded (session_runs.c), or NULL: nowhere */
    GPtrArray *overlays;           /* of rf_run_data *: runs of the runs folder drawn beside the session's */
};

enum { RF_SESSION_STATE_CHANGED, RF_SESSION_METRICS_CHANGED, RF_SESSION_PROBES_CHANGED,
       RF_SESSION_CONFIG_CHANGED, RF_SESSION_DATA_CHANGED, RF_SESSION_RUN_FAILED,
       RF_SESSION_QUEUE_CHANGED, RF_SESSION_INSPECTED_CHANGED, RF_SESSION_OVERLAYS_CHANGED,
       RF_SESSION_N_SIGNALS };
extern guint rf_session_signals[RF_SESSION_N_SIGNALS];

/* The keys ("model.encoder") whose value in `other` differs from `base`'s,
 * in the key table's order, or with `with_values` "model.encoder=blrp"
 * (other's value); NULL-terminated (g_strfreev). */
char **rf_session_config_differences(const rf_config *base, const rf_config *other, gboolean with_values);

/* The planner's FLOPs of one training step of cfg on the data the session
 * would give it (session_config.c); 0 for an impossible config. */
double rf_session_step_flops(RfSession *s, const rf_config *cfg);

/* Start a run of cfg named `name` (NULL: "<task> · <encoder>" with " #n"
 * for repeats), replacing the current one. */
gboolean rf_session_start_run(RfSession *s, const rf_config *cfg, const char *name, gboolean follows_cfg,
                              GError **error);
/* Hand a worker with a ready trainer to the session as its current run;
 * `dir`: the run folder it records into, or NULL (the run is named after
 * its folder, else `name`). `rows`: the run as recorded so far (taken
 * over; its folder's rows, name and colour), or NULL for a new one. */
void rf_session_adopt_worker(RfSession *s, rf_worker *w, const rf_config *cfg, const char *name,
                             RfRunState state, int64_t step, const char *dir, rf_run_data *rows);
/* Make run r's name differ from every other run the session draws (its
 * runs and overlays): the folder's name (or " #n") appended on a clash. */
void rf_session_name_uniquely(RfSession *s, rf_run_data *r);
/* Stop and free the current run's worker after reading its last messages
 * (without starting queued runs). */
void rf_session_retire_worker(RfSession *s);
/* Replace the loaded data set (takes `data` over) and say so. */
void rf_session_replace_data(RfSession *s, rf_data_ref *data);
/* Drop the inspected inputs (they belong to the data set being replaced);
 * TRUE when there were any: the caller emits "inspected-changed". */
gboolean rf_session_forget_inspected(RfSession *s);
/* Record a failure and emit "run-failed". */
void rf_session_report_failure(RfSession *s, const char *message);
/* Drop the runs folder's overlays (session_runs.c), at dispose. */
void rf_session_runs_clear(RfSession *s);
/* The queue: start its next run when it is running and nothing else is. */
void rf_session_queue_advance(RfSession *s);
void rf_queued_run_free(rf_queued_run *q);

#endif
