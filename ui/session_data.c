/* What the session and its worker share: reference-counted data sets, probe
 * requests and the messages the worker posts. */
#include <stdio.h>
#include <string.h>

#include "../datasets/datasets.h"
#include "../datasets/folder_report.h"
#include "../datasets/tsan_sync.h"
#include "session_private.h"

static void data_ref_clear(gpointer p)
{
    rf_data_ref *d = p;
    rf_dataset_free(d->ds);
    g_free(d->warning_lines);
}

/* The latest load progress, from the loaders' threads to the UI thread's
 * status line (one data set opens at a time; a late report of an older
 * opening only moves the numbers). */
static GMutex progress_lock;
static int64_t progress_done, progress_total;
static const char *progress_what = "files";   /* a loader's static word */

static void note_progress(const char *what, int64_t done, int64_t total, void *ctx)
{
    (void)ctx;
    g_mutex_lock(&progress_lock);
    RF_TSAN_ACQUIRE(&progress_lock);
    progress_what = what;
    progress_done = done;
    progress_total = total;
    RF_TSAN_RELEASE(&progress_lock);
    g_mutex_unlock(&progress_lock);
}

void rf_data_progress(int64_t *done, int64_t *total, const char **what)
{
    g_mutex_lock(&progress_lock);
    RF_TSAN_ACQUIRE(&progress_lock);
    *done = progress_done;
    *total = progress_total;
    *what = progress_what;
    RF_TSAN_RELEASE(&progress_lock);
    g_mutex_unlock(&progress_lock);
}

rf_data_ref *rf_data_ref_open(const rf_config *cfg, GError **error)
{
    static gsize installed;
    if (g_once_init_enter(&installed))
        g_once_init_leave(&installed, (rf_load_progress_set(note_progress, NULL), 1));
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(cfg, &st);
    if (ds == NULL) {
        const char *path = cfg->data.path;
        if (path[0] != '\0' && strstr(st.msg, path) == NULL)
            g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: %s", path, st.msg);
        else
            g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "Data set '%s': %s", cfg->data.task, st.msg);
        return NULL;
    }
    rf_data_ref *d = g_atomic_rc_box_new0(rf_data_ref);
    d->ds = ds;
    d->cfg = *cfg;
    d->warnings = st.warnings;
    d->warning_lines = g_strdup(st.warning_lines);
    return d;
}

rf_data_ref *rf_data_ref_acquire(rf_data_ref *d)
{
    return d != NULL ? g_atomic_rc_box_acquire(d) : NULL;
}

void rf_data_ref_release(rf_data_ref *d)
{
    if (d != NULL)
        g_atomic_rc_box_release_full(d, data_ref_clear);
}

static gboolean shapes_data(const rf_config_key *k)
{
    if (strcmp(k->section, "data") == 0)
        return strcmp(k->key, "batch") != 0;
    return strcmp(k->section, "train") == 0 && strcmp(k->key, "seed") == 0;
}

gboolean rf_data_config_equal(const rf_config *a, const rf_config *b)
{
    char name[160], va[RF_STR_LEN + 32], vb[RF_STR_LEN + 32];
    for (const rf_config_key *k = rf_config_keys; k->section != NULL; k++) {
        if (!shapes_data(k))
            continue;
        snprintf(name, sizeof name, "%s.%s", k->section, k->key);
        if (g_strcmp0(rf_config_get(a, name, va, sizeof va), rf_config_get(b, name, vb, sizeof vb)) != 0)
            return FALSE;
    }
    return TRUE;
}

void rf_probe_request_copy(rf_probe_request *dst, const rf_probe_request *src)
{
    char **names = g_strdupv(src->names);
    guint n = names != NULL ? g_strv_length(names) : 0;
    rf_probe_window *windows = src->windows != NULL ? g_memdup2(src->windows, n * sizeof *windows) : NULL;
    rf_inspected *input = src->input != NULL ? rf_inspected_acquire(src->input) : NULL;
    rf_probe_request_clear(dst);
    *dst = (rf_probe_request){.names = names, .windows = windows, .split = src->split, .sample = src->sample,
                              .input = input};
}

const rf_probe_window *rf_probe_request_window(const rf_probe_request *r, const char *name)
{
    for (int i = 0; r->windows != NULL && r->names != NULL && r->names[i] != NULL; i++)
        if (strcmp(r->names[i], name) == 0)
            return r->windows[i].rows > 0 ? &r->windows[i] : NULL;
    return NULL;
}

void rf_probe_request_clear(rf_probe_request *r)
{
    g_clear_pointer(&r->names, g_strfreev);
    g_clear_pointer(&r->windows, g_free);
    g_clear_pointer(&r->input, rf_inspected_release);
}

void rf_msg_free(rf_msg *m)
{
    if (m == NULL)
        return;
    g_strfreev(m->taps);
    rf_probe_set_free(m->probes);
    if (m->history != NULL)
        rf_probe_history_entry_clear(m->history);
    g_free(m->history);
    if (m->target.input != NULL)
        rf_inspected_release(m->target.input);
    rf_data_ref_release(m->data);
    g_free(m->text);
    g_free(m);
}
