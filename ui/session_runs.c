/* The session and the runs folder: each new run recorded in its own folder
 * as `rangefinder train --runs DIR` lays it out (config/run_folder.h), and
 * the folder's runs picked to be drawn beside the session's. The writes are
 * cheap enough for the UI thread: config.ini once, one flushed line per
 * metrics row (at most a few hundred a second), the checkpoint once. */
#include <string.h>

#include "../config/config_file.h"
#include "../config/metrics_csv.h"
#include "../config/run_folder.h"
#include "runs_table.h"
#include "session_private.h"

#define CONFIG_COMMENT " The full effective configuration of this run, written by the Rangefinder workbench."

typedef struct rf_run_record {
    char *dir;
    rf_metrics_csv *csv;
    int64_t saved_step;   /* the step of the last checkpoint written; -1: none */
} rf_run_record;

static void record_free(rf_run_record *r)
{
    rf_metrics_csv_close(r->csv);
    g_free(r->dir);
    g_free(r);
}

void rf_session_set_runs_dir(RfSession *s, const char *dir)
{
    g_free(s->runs_dir);
    s->runs_dir = g_strdup(dir);
}

const char *rf_session_get_runs_dir(RfSession *s)
{
    return s->runs_dir;
}

/* A recording that failed: the run goes on, unrecorded, and says so. */
static void record_failed(RfSession *s, const GError *error)
{
    g_autofree char *message = g_strdup_printf("%s; the run goes on but is not recorded in the runs folder",
                                               error->message);
    g_clear_pointer(&s->record, record_free);
    rf_session_report_failure(s, message);
}

void rf_session_record_start(RfSession *s)
{
    g_clear_pointer(&s->record, record_free);
    if (s->runs_dir == NULL || s->current == NULL)
        return;
    const rf_config *cfg = &s->current->cfg;
    g_autofree char *label = g_strdup_printf("%s-%s", cfg->data.task, cfg->model.encoder);
    g_autoptr(GError) error = NULL;
    char *dir = rf_run_folder_create(s->runs_dir, label, &error);
    if (dir == NULL) {
        record_failed(s, error);
        return;
    }
    s->record = g_new0(rf_run_record, 1);
    s->record->dir = dir;
    s->record->saved_step = -1;
    s->current->dir = g_strdup(dir);
    g_autofree char *ini = g_build_filename(dir, "config.ini", NULL);
    g_autofree char *csv = g_build_filename(dir, "metrics.csv", NULL);
    if (!rf_config_write_ini(cfg, ini, CONFIG_COMMENT, &error) ||
        (s->record->csv = rf_metrics_csv_create(csv, &error)) == NULL)
        record_failed(s, error);
}

void rf_session_record_metrics(RfSession *s, const rf_metrics *m)
{
    g_autoptr(GError) error = NULL;
    if (s->record != NULL && !rf_metrics_csv_write(s->record->csv, m, &error))
        record_failed(s, error);
}

void rf_session_record_checkpoint(RfSession *s)
{
    rf_run_record *r = s->record;
    if (r == NULL || s->worker == NULL || s->state == RF_RUN_FAILED || s->step == 0 || s->step == r->saved_step)
        return;
    g_autoptr(GError) error = NULL;
    g_autofree char *path = g_build_filename(r->dir, "checkpoint.safetensors", NULL);
    /* every row on disk before the checkpoint that covers them, as train does */
    if (rf_metrics_csv_sync(r->csv, &error) && rf_worker_save(s->worker, path, &error))
        r->saved_step = s->step;
    else
        record_failed(s, error);
}

void rf_session_record_finish(RfSession *s)
{
    rf_session_record_checkpoint(s);
    g_clear_pointer(&s->record, record_free);
}

/* --- overlays --- */

static guint find_overlay(RfSession *s, const char *dir)
{
    for (guint i = 0; i < s->overlays->len; i++)
        if (g_strcmp0(((rf_run_data *)g_ptr_array_index(s->overlays, i))->dir, dir) == 0)
            return i;
    return G_MAXUINT;
}

gboolean rf_session_add_overlay(RfSession *s, const char *dir, GError **error)
{
    if (find_overlay(s, dir) != G_MAXUINT)
        return TRUE;
    rf_run_data *r = rf_run_data_load_dir(dir, error);
    if (r == NULL)
        return FALSE;
    g_autofree char *meta = g_build_filename(dir, RF_RUN_META_FILE, NULL);
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autofree char *name = g_key_file_load_from_file(kf, meta, G_KEY_FILE_NONE, NULL)
                                ? g_key_file_get_string(kf, "run", "name", NULL)
                                : NULL;
    if (name != NULL && *name != '\0') {
        g_free(r->name);
        r->name = g_steal_pointer(&name);
    }
    g_ptr_array_add(s->overlays, r);
    g_signal_emit(s, rf_session_signals[RF_SESSION_OVERLAYS_CHANGED], 0);
    return TRUE;
}

void rf_session_remove_overlay(RfSession *s, const char *dir)
{
    guint i = find_overlay(s, dir);
    if (i == G_MAXUINT)
        return;
    /* freed after the views have let go of it */
    g_autoptr(rf_run_data) gone = g_ptr_array_steal_index(s->overlays, i);
    g_signal_emit(s, rf_session_signals[RF_SESSION_OVERLAYS_CHANGED], 0);
}

GPtrArray *rf_session_get_overlays(RfSession *s)
{
    return s->overlays;
}

void rf_session_runs_clear(RfSession *s)
{
    g_clear_pointer(&s->record, record_free);
    g_clear_pointer(&s->overlays, g_ptr_array_unref);
    g_clear_pointer(&s->runs_dir, g_free);
}
