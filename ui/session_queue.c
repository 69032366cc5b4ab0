/* The compare queue: configs run one after another in the background, each
 * leaving its rf_run_data in the session's runs for the overlays and the
 * results table. A run that fails is reported and the queue goes on. */
#include <string.h>

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
    q->step_flops = rf_session_step_flops(s, cfg);
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

/* ---- what the Compare view lists: the pending runs and their ETAs ---- */

void rf_queue_item_free(rf_queue_item *q)
{
    g_free(q->name);
    g_strfreev(q->changes);
    g_free(q);
}

/* How well run r's measured steps tell those of cfg: 3 the same config
 * (train.steps aside), 2 the same data and encoder, 1 the same data; 0
 * never (nothing measured, or another data set: its step time says
 * nothing of this one's). */
static int basis_rank(const rf_run_data *r, const rf_config *cfg)
{
    if (r == NULL || !(r->median_step_seconds > 0) || !rf_data_config_equal(&r->cfg, cfg))
        return 0;
    rf_config same = *cfg;
    same.train.steps = r->cfg.train.steps;
    g_auto(GStrv) differences = rf_session_config_differences(&r->cfg, &same, FALSE);
    if (differences[0] == NULL)
        return 3;
    return strcmp(r->cfg.model.encoder, cfg->model.encoder) == 0 ? 2 : 1;
}

const rf_run_data *rf_session_queue_basis_for(RfSession *s, const rf_config *cfg)
{
    const rf_run_data *best = s->current;
    int best_rank = basis_rank(s->current, cfg);
    for (guint i = s->runs->len; i-- > 0;) {
        const rf_run_data *r = g_ptr_array_index(s->runs, i);
        int rank = basis_rank(r, cfg);
        if (rank > best_rank) {
            best = r;
            best_rank = rank;
        }
    }
    return best_rank > 0 ? best : NULL;
}

const rf_run_data *rf_session_queue_basis(RfSession *s)
{
    return rf_session_queue_basis_for(s, &s->cfg);
}

/* The seconds per step a queued config of `step_flops` should take: its
 * basis run's, scaled by the FLOPs (as measured when either count is
 * unknown); 0 without a basis. */
static double seconds_per_step(RfSession *s, const rf_config *cfg, double step_flops)
{
    const rf_run_data *basis = rf_session_queue_basis_for(s, cfg);
    if (basis == NULL)
        return 0;
    if (s->flops_run != basis) {
        s->flops_run = basis;
        s->flops_run_flops = rf_session_step_flops(s, &basis->cfg);
    }
    double scale = step_flops > 0 && s->flops_run_flops > 0 ? step_flops / s->flops_run_flops : 1;
    return basis->median_step_seconds * scale;
}

GPtrArray *rf_session_queue_list(RfSession *s)
{
    GPtrArray *items = g_ptr_array_new_with_free_func((GDestroyNotify)rf_queue_item_free);
    for (GList *l = s->queue->head; l != NULL; l = l->next) {
        const rf_queued_run *q = l->data;
        rf_queue_item *item = g_new0(rf_queue_item, 1);
        item->name = g_strdup(q->name);
        item->changes = rf_session_config_differences(&s->cfg, &q->cfg, TRUE);
        item->steps = q->cfg.train.steps;
        item->seconds_per_step = seconds_per_step(s, &q->cfg, q->step_flops);
        item->seconds = item->seconds_per_step * (double)item->steps;
        g_ptr_array_add(items, item);
    }
    return items;
}

double rf_session_queue_seconds_left(RfSession *s)
{
    g_autoptr(GPtrArray) items = rf_session_queue_list(s);
    double total = 0;
    for (guint i = 0; i < items->len; i++)
        total += ((rf_queue_item *)items->pdata[i])->seconds;
    /* the queue waits for the run in progress */
    const rf_run_data *r = s->current;
    if (busy(s) && r != NULL && r->median_step_seconds > 0)
        total += r->median_step_seconds * (double)MAX(rf_session_get_run_config(s)->train.steps - s->step, 0);
    return total;
}
