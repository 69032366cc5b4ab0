#include "runs_table.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../config/config_file.h"
#include "../config/run_folder.h"
#include "../config/run_lock.h"
#include "../core/train.h"
#include "data_tasks.h"
#include "figures/parallel_sweep.h"
#include "plot/plot.h"

#define METRICS_HEADER "step,split,loss,accuracy,lr,seconds"
/* A run whose metrics.csv changed this recently is taken to be training,
 * or within three of its last gaps between rows (a slow run logs rarely). */
#define ACTIVE_SECONDS 60
#define ACTIVE_GAPS 3

const char *rf_run_status_name(rf_run_status status)
{
    static const char *const names[] = {"running", "finished", "stopped", "failed"};
    return names[status];
}

/* ---- one run folder ---- */

static void entry_clear(gpointer data)
{
    rf_run_entry *e = data;
    g_free(e->dir);
    g_free(e->folder);
    g_free(e->name);
    g_free(e->tags);
    g_free(e->from);
    g_free(e->sweep);
}

rf_run_entry *rf_run_entry_ref(rf_run_entry *e)
{
    return g_rc_box_acquire(e);
}

void rf_run_entry_unref(rf_run_entry *e)
{
    if (e != NULL)
        g_rc_box_release_full(e, entry_clear);
}

static void replace_str(char **field, const char *text)
{
    char *copy = g_strdup(text);
    g_free(*field);
    *field = copy;
}

static gboolean fail(GError **error, const char *path, guint line, const char *problem)
{
    if (line > 0)
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s:%u: %s", path, line, problem);
    else
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: %s", path, problem);
    return FALSE;
}

static gboolean parse_split(const char *p, const char **end, rf_split *split)
{
    for (int s = 0; s < RF_SPLIT_COUNT; s++) {
        const char *name = rf_split_name((rf_split)s);
        size_t n = strlen(name);
        if (strncmp(p, name, n) == 0 && p[n] == ',') {
            *split = (rf_split)s;
            *end = p + n + 1;
            return TRUE;
        }
    }
    return FALSE;
}

/* The field after `p`'s next `skip` commas. */
static const char *skip_fields(const char *p, const char *stop, int skip)
{
    for (; skip > 0 && p != NULL; skip--) {
        p = memchr(p, ',', (size_t)(stop - p));
        p = p != NULL ? p + 1 : NULL;
    }
    return p;
}

/* The `seconds` field of the row at `row` (0 for none). */
static double row_seconds(const char *row, const char *end)
{
    if (row == NULL)
        return 0;
    const char *field = skip_fields(row, memchr(row, '\n', (size_t)(end - row)), 5);
    return field != NULL ? g_ascii_strtod(field, NULL) : 0;
}

/* The summary of metrics.csv, read in one pass without keeping the rows (a
 * 5,000-step run has ~5,000 of them). A last line without its newline is
 * a row being written, and is left for the next read. */
static gboolean scan_metrics(rf_run_entry *e, const char *path, GError **error)
{
    g_autofree char *text = NULL;
    gsize len = 0;
    if (!g_file_get_contents(path, &text, &len, error))
        return FALSE;   /* GLib's message names the file */
    if (len < sizeof METRICS_HEADER || strncmp(text, METRICS_HEADER, sizeof METRICS_HEADER - 1) != 0)
        return fail(error, path, 1, "not a metrics file (the first line should be '" METRICS_HEADER "')");
    const char *end = text + len, *line = memchr(text, '\n', len);
    const char *last_row = NULL, *row_before = NULL;
    line = line != NULL ? line + 1 : end;
    for (guint number = 2; line < end; number++) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        if (nl == NULL)
            break;
        char *after = NULL;
        gint64 step = g_ascii_strtoll(line, &after, 10);
        rf_split split;
        const char *rest;
        if (after == line || *after != ',' || step < 0 || !parse_split(after + 1, &rest, &split))
            return fail(error, path, number, "not a metrics row (step,split,loss,accuracy,lr,seconds)");
        e->steps = MAX(e->steps, step);
        if (split != RF_SPLIT_TRAIN) {
            const char *field = skip_fields(rest, nl, 1);
            char *stop = NULL;
            double accuracy = field != NULL ? g_ascii_strtod(field, &stop) : NAN;
            if (field == NULL || stop == field)
                return fail(error, path, number, "the accuracy is not a number");
            if (split == RF_SPLIT_TEST) {
                e->test_accuracy = accuracy;
                e->has_test = TRUE;
            } else if (isfinite(accuracy) && !(accuracy <= e->best_val)) {
                e->best_val = accuracy;
            }
        }
        row_before = last_row;
        last_row = line;
        line = nl + 1;
    }
    e->seconds = row_seconds(last_row, end);
    e->last_gap = row_before != NULL ? MAX(0.0, e->seconds - row_seconds(row_before, end)) : 0;
    return TRUE;
}

/* A run folder's optional key file (run.ini, init.ini): *kf is NULL when
 * there is none; FALSE, naming the file, when it cannot be read. */
static gboolean load_optional_ini(const char *path, GKeyFile **kf, GError **error)
{
    g_autoptr(GKeyFile) loaded = g_key_file_new();
    g_autoptr(GError) local = NULL;
    if (!g_key_file_load_from_file(loaded, path, G_KEY_FILE_NONE, &local))
        return g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT) || fail(error, path, 0, local->message);
    *kf = g_steal_pointer(&loaded);
    return TRUE;
}

static gboolean read_meta(rf_run_entry *e, const char *path, GError **error)
{
    g_autoptr(GKeyFile) kf = NULL;
    if (!load_optional_ini(path, &kf, error))
        return FALSE;
    if (kf == NULL)
        return TRUE;
    g_autofree char *name = g_key_file_get_string(kf, "run", "name", NULL);
    g_autofree char *tags = g_key_file_get_string(kf, "run", "tags", NULL);
    if (name != NULL && *name != '\0')
        replace_str(&e->name, name);
    if (tags != NULL)
        replace_str(&e->tags, tags);
    return TRUE;
}

/* init.ini (`train --init`): the run whose weights this one started from,
 * named by its checkpoint's folder. No file: none. */
static gboolean read_init(rf_run_entry *e, const char *path, GError **error)
{
    g_autoptr(GKeyFile) kf = NULL;
    if (!load_optional_ini(path, &kf, error))
        return FALSE;
    if (kf == NULL)
        return TRUE;
    g_autofree char *checkpoint = g_key_file_get_string(kf, "init", "checkpoint", NULL);
    if (checkpoint == NULL || *checkpoint == '\0')
        return fail(error, path, 0, "no [init] checkpoint= naming the checkpoint the run started from");
    g_autofree char *folder = g_path_get_dirname(checkpoint);
    g_autofree char *name = g_path_get_basename(folder);
    replace_str(&e->from, name);
    return TRUE;
}

/* What the folder's files look like now: their change times and sizes. */
static guint64 folder_stamp(const char *dir, gint64 *metrics_mtime, gboolean *has_checkpoint)
{
    static const char *const files[] = {"metrics.csv", "config.ini", RF_RUN_META_FILE, "checkpoint.safetensors",
                                        RF_RUN_INIT_FILE};
    guint64 stamp = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
        g_autofree char *path = g_build_filename(dir, files[i], NULL);
        GStatBuf st;
        gboolean there = g_stat(path, &st) == 0;
        gint64 mtime = there ? (gint64)st.st_mtim.tv_sec * G_USEC_PER_SEC + st.st_mtim.tv_nsec / 1000 : 0;
        stamp = stamp * 1000003u + (there ? (guint64)mtime * 31u + (guint64)st.st_size + 1 : 0);
        if (i == 0)
            *metrics_mtime = mtime;
        if (i == 3)
            *has_checkpoint = there;
    }
    return stamp;
}

/* A trainer of this version locks the folder while it writes there
 * (config/run_lock.h): a lock file that no other process holds means its
 * trainer ended (finished, closed without saving, killed), however lately
 * it wrote its rows. Folders without one fall back on their rows' times. */
static gboolean trainer_ended(const char *dir)
{
    g_autofree char *lock = g_build_filename(dir, RF_RUN_LOCK_FILE, NULL);
    return g_file_test(lock, G_FILE_TEST_EXISTS) && rf_run_lock_check(dir, NULL);
}

static void derive_status(rf_run_entry *e, const rf_runs_table *t)
{
    if (t != NULL && t->live_dir != NULL && strcmp(t->live_dir, e->dir) == 0)
        e->status = t->live_status;
    else if (e->has_test)
        e->status = RF_RUN_STATUS_FINISHED;
    else if ((double)(g_get_real_time() - e->metrics_mtime) / G_USEC_PER_SEC <
                 MAX(ACTIVE_SECONDS, ACTIVE_GAPS * e->last_gap) &&
             !trainer_ended(e->dir))
        e->status = RF_RUN_STATUS_RUNNING;
    else
        e->status = e->has_checkpoint ? RF_RUN_STATUS_STOPPED : RF_RUN_STATUS_FAILED;
}

rf_run_entry *rf_run_entry_load(const char *dir, GError **error)
{
    rf_run_entry *e = g_rc_box_new0(rf_run_entry);
    e->dir = g_strdup(dir);
    e->folder = g_path_get_basename(dir);
    e->name = g_strdup(e->folder);
    e->tags = g_strdup("");
    e->from = g_strdup("");
    e->sweep = g_strdup("");
    e->best_val = NAN;
    e->test_accuracy = NAN;
    e->stamp = folder_stamp(dir, &e->metrics_mtime, &e->has_checkpoint);
    rf_config_defaults(&e->cfg);
    g_autofree char *ini = g_build_filename(dir, "config.ini", NULL);
    g_autofree char *csv = g_build_filename(dir, "metrics.csv", NULL);
    g_autofree char *meta = g_build_filename(dir, RF_RUN_META_FILE, NULL);
    g_autofree char *init = g_build_filename(dir, RF_RUN_INIT_FILE, NULL);
    gboolean ok;
    if (!g_file_test(ini, G_FILE_TEST_EXISTS))
        ok = fail(error, dir, 0, "not a run folder (no config.ini)");
    else if (!g_file_test(csv, G_FILE_TEST_EXISTS))
        ok = fail(error, dir, 0, "not a run folder (no metrics.csv)");
    else
        ok = rf_config_apply_ini(&e->cfg, ini, error) && scan_metrics(e, csv, error) && read_meta(e, meta, error) &&
             read_init(e, init, error);
    if (!ok) {
        rf_run_entry_unref(e);
        return NULL;
    }
    derive_status(e, NULL);
    return e;
}

gboolean rf_run_entry_set_meta(rf_run_entry *e, const char *name, const char *tags, GError **error)
{
    g_autofree char *path = g_build_filename(e->dir, RF_RUN_META_FILE, NULL);
    g_autoptr(GKeyFile) kf = NULL;
    if (!load_optional_ini(path, &kf, error))
        return FALSE;
    if (kf == NULL)
        kf = g_key_file_new();
    const char *kept = name != NULL && *name != '\0' ? name : e->folder;
    g_key_file_set_string(kf, "run", "name", kept);
    g_key_file_set_string(kf, "run", "tags", tags != NULL ? tags : "");
    g_autofree char *text = g_key_file_to_data(kf, NULL, NULL);
    if (!g_file_set_contents(path, text, -1, error))
        return FALSE;
    replace_str(&e->name, kept);
    replace_str(&e->tags, tags != NULL ? tags : "");
    return TRUE;
}

/* ---- cells and their order ---- */

/* The data set as the workbench names it elsewhere, with its folder's name. */
static const char *data_set_of(const rf_config *cfg, char *buf, size_t size)
{
    const rf_data_task *t = rf_data_task_find(cfg->data.task);
    const char *title = t != NULL ? t->title : cfg->data.task;
    if (cfg->data.path[0] == '\0')
        return title;
    g_autofree char *base = g_path_get_basename(cfg->data.path);
    g_snprintf(buf, size, "%s: %s", title, base);
    return buf;
}

/* A number column's value (NaN: none), or FALSE for a text column. */
static gboolean number_of(const rf_run_entry *e, const char *column, double *v)
{
    if (strcmp(column, "steps") == 0)
        *v = (double)e->steps;
    else if (strcmp(column, "best_val") == 0)
        *v = e->best_val;
    else if (strcmp(column, "test") == 0)
        *v = e->test_accuracy;
    else if (strcmp(column, "duration") == 0)
        *v = e->seconds;
    else
        return FALSE;
    return TRUE;
}

char *rf_run_entry_cell(const rf_run_entry *e, const char *column)
{
    char buf[RF_STR_LEN + 64];
    double v;
    if (strcmp(column, "name") == 0)   /* a sweep's trial unnamed: "lr-sweep/trial-001" */
        return e->sweep[0] != '\0' && strcmp(e->name, e->folder) == 0 ? g_strdup_printf("%s/%s", e->sweep, e->folder)
                                                                       : g_strdup(e->name);
    if (strcmp(column, "encoder") == 0)
        return g_strdup(e->cfg.model.encoder);
    if (strcmp(column, "data") == 0)
        return g_strdup(data_set_of(&e->cfg, buf, sizeof buf));
    if (strcmp(column, "status") == 0)
        return g_strdup(rf_run_status_name(e->status));
    if (strcmp(column, "tags") == 0)
        return g_strdup(e->tags);
    if (strcmp(column, "from") == 0)
        return g_strdup(e->from);
    if (strcmp(column, "duration") == 0) {
        rf_format_duration(round(e->seconds), buf, sizeof buf);
        return g_strdup(buf);
    }
    if (number_of(e, column, &v)) {
        if (!isfinite(v))
            return g_strdup("–");
        /* accuracies as percent with one decimal, as the status line and Compare give them */
        return strcmp(column, "steps") == 0 ? g_strdup_printf("%.0f", v) : g_strdup_printf("%.1f %%", 100 * v);
    }
    return g_strdup(rf_config_get(&e->cfg, column, buf, sizeof buf) != NULL ? buf : "");
}

/* Unknown numbers (NaN) after every known one. */
static int compare_numbers(double x, double y)
{
    if (isnan(x) || isnan(y))
        return isnan(x) - isnan(y);
    return (x > y) - (x < y);
}

int rf_run_entry_compare(const rf_run_entry *a, const rf_run_entry *b, const char *column)
{
    double x, y;
    if (number_of(a, column, &x) && number_of(b, column, &y))
        return compare_numbers(x, y);
    g_autofree char *s = rf_run_entry_cell(a, column), *t = rf_run_entry_cell(b, column);
    /* config values that are numbers ("64" and "128") */
    char *end_s = NULL, *end_t = NULL;
    x = g_ascii_strtod(s, &end_s);
    y = g_ascii_strtod(t, &end_t);
    if (end_s != s && *end_s == '\0' && end_t != t && *end_t == '\0')
        return compare_numbers(x, y);
    return g_utf8_collate(s, t);
}

/* ---- the runs folder ---- */

rf_runs_table *rf_runs_table_new(const char *root)
{
    rf_runs_table *t = g_new0(rf_runs_table, 1);
    t->root = g_strdup(root);
    t->entries = g_ptr_array_new_with_free_func((GDestroyNotify)rf_run_entry_unref);
    t->warnings = g_ptr_array_new_with_free_func(g_free);
    t->left_out = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    t->sweeps = g_ptr_array_new_with_free_func(g_free);
    return t;
}

void rf_runs_table_free(rf_runs_table *t)
{
    if (t == NULL)
        return;
    g_ptr_array_unref(t->entries);
    g_ptr_array_unref(t->warnings);
    g_hash_table_unref(t->left_out);
    g_ptr_array_unref(t->sweeps);
    g_free(t->live_dir);
    g_free(t->root);
    g_free(t);
}

rf_run_entry *rf_runs_table_find(const rf_runs_table *t, const char *dir)
{
    for (guint i = 0; i < t->entries->len; i++) {
        rf_run_entry *e = g_ptr_array_index(t->entries, i);
        if (strcmp(e->dir, dir) == 0)
            return e;
    }
    return NULL;
}

void rf_runs_table_set_live(rf_runs_table *t, const char *dir, rf_run_status status)
{
    char *copy = g_strdup(dir);
    g_free(t->live_dir);
    t->live_dir = copy;
    t->live_status = status;
}

/* The warning about `dir` of the refresh before, kept. */
static void keep_warning(rf_runs_table *t, GPtrArray *warned, const char *dir)
{
    g_autofree char *prefix = g_strdup_printf("left out %s", dir);
    for (guint i = 0; i < warned->len; i++)
        if (g_str_has_prefix(g_ptr_array_index(warned, i), prefix))
            g_ptr_array_add(t->warnings, g_strdup(g_ptr_array_index(warned, i)));
}

static int by_folder(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The folders in `dir` (hidden ones left out), by name. */
static GPtrArray *sorted_folders(const char *dir)
{
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    for (const char *name; d != NULL && (name = g_dir_read_name(d)) != NULL;) {
        g_autofree char *path = g_build_filename(dir, name, NULL);
        if (name[0] != '.' && g_file_test(path, G_FILE_TEST_IS_DIR))
            g_ptr_array_add(names, g_steal_pointer(&path));
    }
    g_ptr_array_sort(names, by_folder);
    return names;
}

gboolean rf_runs_table_refresh(rf_runs_table *t)
{
    /* the run folders: the runs folder's own, and a sweep folder's trials in its place */
    g_autoptr(GPtrArray) top = sorted_folders(t->root);
    g_autoptr(GPtrArray) dirs = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) sweep_of = g_ptr_array_new_with_free_func(g_free);   /* each dir's sweep's name, or "" */
    g_autoptr(GPtrArray) sweeps = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < top->len; i++) {
        const char *dir = g_ptr_array_index(top, i);
        if (!rf_is_sweep_folder(dir)) {
            g_ptr_array_add(dirs, g_strdup(dir));
            g_ptr_array_add(sweep_of, g_strdup(""));
            continue;
        }
        g_ptr_array_add(sweeps, g_strdup(dir));
        g_autoptr(GPtrArray) trials = sorted_folders(dir);
        for (guint k = 0; k < trials->len; k++) {
            g_ptr_array_add(dirs, g_strdup(g_ptr_array_index(trials, k)));
            g_ptr_array_add(sweep_of, g_path_get_basename(dir));
        }
    }
    gboolean changed = sweeps->len != t->sweeps->len;
    for (guint i = 0; !changed && i < sweeps->len; i++)
        changed = strcmp(g_ptr_array_index(sweeps, i), g_ptr_array_index(t->sweeps, i)) != 0;
    g_ptr_array_unref(t->sweeps);
    t->sweeps = g_ptr_array_ref(sweeps);

    GPtrArray *fresh = g_ptr_array_new_with_free_func((GDestroyNotify)rf_run_entry_unref);
    g_autoptr(GPtrArray) warned = t->warnings;
    t->warnings = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < dirs->len; i++) {
        const char *dir = g_ptr_array_index(dirs, i);
        rf_run_entry *old = rf_runs_table_find(t, dir);
        gint64 mtime = 0;
        gboolean checkpoint = FALSE;
        guint64 stamp = folder_stamp(dir, &mtime, &checkpoint);
        if (old != NULL && stamp == old->stamp) {
            rf_run_status was = old->status;
            derive_status(old, t);
            changed |= old->status != was;
            g_ptr_array_add(fresh, rf_run_entry_ref(old));
            continue;
        }
        const char *bad = g_hash_table_lookup(t->left_out, dir);
        if (bad != NULL && g_ascii_strtoull(bad, NULL, 10) == stamp) {   /* still the same malformed folder */
            keep_warning(t, warned, dir);
            continue;
        }
        g_autoptr(GError) error = NULL;
        rf_run_entry *e = rf_run_entry_load(dir, &error);
        changed = TRUE;
        if (e != NULL) {
            g_hash_table_remove(t->left_out, dir);
            g_free(e->sweep);
            e->sweep = g_strdup(g_ptr_array_index(sweep_of, i));
            derive_status(e, t);
            g_ptr_array_add(fresh, e);
        } else {
            g_hash_table_insert(t->left_out, g_strdup(dir), g_strdup_printf("%" G_GUINT64_FORMAT, stamp));
            g_autofree char *warning = g_strdup_printf("left out %s", error->message);
            g_message("runs folder: %s", warning);
            g_ptr_array_add(t->warnings, g_steal_pointer(&warning));
        }
    }
    changed |= fresh->len != t->entries->len;
    g_ptr_array_unref(t->entries);
    t->entries = fresh;
    return changed;
}

char **rf_runs_table_differing_keys(const rf_runs_table *t)
{
    g_autofree const rf_config **cfgs = g_new(const rf_config *, t->entries->len + 1);
    for (guint i = 0; i < t->entries->len; i++)
        cfgs[i] = &((const rf_run_entry *)g_ptr_array_index(t->entries, i))->cfg;
    return rf_config_differing_keys(cfgs, t->entries->len);
}
