/* The session and the runs folder: each new run gets its own folder as
 * `rangefinder train --runs DIR` lays it out (config/run_folder.h), made
 * here with its config.ini (small, written once); the worker thread writes
 * the rows and the checkpoint (session_worker.c). And the folder's runs
 * picked to be drawn beside the session's. */
#include <string.h>

#include "../config/config_file.h"
#include "../config/distributions_csv.h"
#include "../config/metrics_csv.h"
#include "../config/run_folder.h"
#include "../config/run_lock.h"
#include "runs_table.h"
#include "session_private.h"

#define CONFIG_COMMENT " The full effective configuration of this run, written by the Rangefinder workbench."

void rf_run_record_free(rf_run_record *r)
{
    if (r == NULL)
        return;
    rf_metrics_csv_close(r->csv);
    rf_distributions_csv_close(r->distributions);
    g_free(r->checkpoint);
    rf_run_lock_release(r->lock);
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

rf_run_record *rf_session_new_record(RfSession *s, const rf_config *cfg, char **dir)
{
    *dir = NULL;
    if (s->runs_dir == NULL)
        return NULL;
    g_autofree char *label = g_strdup_printf("%s-%s", cfg->data.task, cfg->model.encoder);
    g_autoptr(GError) error = NULL;
    g_autofree char *made = rf_run_folder_create(s->runs_dir, label, &error);
    g_autofree char *ini = made != NULL ? g_build_filename(made, "config.ini", NULL) : NULL;
    g_autofree char *csv_path = made != NULL ? g_build_filename(made, "metrics.csv", NULL) : NULL;
    g_autofree char *dist_path = made != NULL ? g_build_filename(made, "distributions.csv", NULL) : NULL;
    g_autoptr(rf_run_lock) lock = NULL;
    rf_metrics_csv *csv = NULL;
    rf_distributions_csv *distributions = NULL;
    if (made == NULL || (lock = rf_run_lock_take(made, "the workbench", &error)) == NULL ||
        !rf_config_write_ini(cfg, ini, CONFIG_COMMENT, &error) ||
        (csv = rf_metrics_csv_create(csv_path, cfg, &error)) == NULL ||
        (distributions = rf_distributions_csv_create(dist_path, &error)) == NULL) {
        rf_metrics_csv_close(csv);
        g_autofree char *message = g_strdup_printf("%s; the run goes on but is not recorded in the runs folder",
                                                   error->message);
        rf_session_report_failure(s, message);
        return NULL;
    }
    rf_run_record *r = g_new0(rf_run_record, 1);
    r->csv = csv;
    r->distributions = distributions;
    r->checkpoint = g_build_filename(made, "checkpoint.safetensors", NULL);
    r->saved_step = -1;
    r->lock = g_steal_pointer(&lock);
    *dir = g_steal_pointer(&made);
    return r;
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
    rf_session_name_uniquely(s, r);
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
    g_clear_pointer(&s->overlays, g_ptr_array_unref);
    g_clear_pointer(&s->runs_dir, g_free);
}
