/* The compare queue: configs run one after another in the background, each
 * leaving its rf_run_data in the session's runs for the overlays and the
 * results table. A run that fails is reported and the queue goes on. */
#include "session_private.h"

void rf_queued_run_free(rf_queued_run *q)
{
    g_free(q->name);
    g_free(q);
}

static void queue_changed(RfSession *s)
{
    g_signal_emit(s, rf_session_signals[RF_SESSION_QUEUE_CHANGED], 0);
}

void rf_session_queue_add(RfSession *s, const rf_config *cfg, const char *name)
{
    rf_queued_run *q = g_new0(rf_queued_run, 1);
    q->cfg = *cfg;
    q->name = g_strdup(name);
    g_queue_push_tail(s->queue, q);
    queue_changed(s);
}

void rf_session_queue_clear(RfSession *s)
{
    g_queue_clear_full(s->queue, (GDestroyNotify)rf_queued_run_free);
    queue_changed(s);
}

guint rf_session_queue_length(RfSession *s)
{
    return g_queue_get_length(s->queue);
}

/* A paused run is not waited for: running the queue sets it aside. */
static gboolean busy(RfSession *s)
{
    return s->state == RF_RUN_LOADING || s->state == RF_RUN_RUNNING;
}

void rf_session_queue_advance(RfSession *s)
{
    if (!s->queue_running || busy(s))
        return;
    rf_queued_run *q;
    while ((q = g_queue_pop_head(s->queue)) != NULL) {
        g_autoptr(GError) error = NULL;
        /* a queued config is not the one being edited: edits do not reach it */
        gboolean started = rf_session_start_run(s, &q->cfg, q->name, FALSE, &error);
        rf_queued_run_free(q);
        if (started)
            break;
        rf_session_report_failure(s, error->message);
    }
    if (g_queue_is_empty(s->queue) && !busy(s))
        s->queue_running = FALSE;
    queue_changed(s);
}

void rf_session_queue_run(RfSession *s)
{
    s->queue_running = TRUE;
    rf_session_queue_advance(s);
}
