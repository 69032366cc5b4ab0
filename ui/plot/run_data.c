#include "run_data.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../config/baselines_file.h"
#include "../../config/config_file.h"
#include "../../config/run_folder.h"
#include "../../core/curriculum.h"
#include "../../datasets/text_input.h"
#include "plot.h"
#include "../../config/tb_reader.h"
#include "tb_run_data.h"

_Static_assert(RF_RUN_COLORS == RF_SERIES_COLORS, "a run folder's colour indexes the series palette");

/* metrics.csv as `rangefinder train` writes it, and as
 * rf_run_data_write_metrics_csv writes it (one more column); both load. */
#define HEADER_TRAIN "step,split,loss,accuracy,lr,seconds"
#define HEADER_EXPORT HEADER_TRAIN ",step_seconds"

rf_run_data *rf_run_data_new(const char *name, const rf_config *cfg)
{
    rf_run_data *r = g_new0(rf_run_data, 1);
    r->name = g_strdup(name != NULL ? name : "run");
    if (cfg != NULL)
        r->cfg = *cfg;
    else
        rf_config_defaults(&r->cfg);
    r->rows = g_array_new(FALSE, FALSE, sizeof(rf_metrics));
    r->changes = g_array_new(FALSE, FALSE, sizeof(rf_run_change));
    r->baseline_majority = r->baseline_first_token = NAN;
    r->color = -1;
    return r;
}

void rf_run_data_free(rf_run_data *r)
{
    if (r == NULL)
        return;
    g_array_unref(r->rows);
    g_array_unref(r->changes);
    g_free(r->name);
    g_free(r->dir);
    g_free(r);
}

void rf_run_data_append(rf_run_data *r, const rf_metrics *m)
{
    g_array_append_val(r->rows, *m);
}

void rf_run_data_add_change(rf_run_data *r, guint64 serial, const char *key, const char *before, const char *after)
{
    rf_run_change c = {.step = -1, .serial = serial};
    g_strlcpy(c.key, key, sizeof c.key);
    g_strlcpy(c.before, before, sizeof c.before);
    g_strlcpy(c.after, after, sizeof c.after);
    g_array_append_val(r->changes, c);
}

void rf_run_data_changes_taken(rf_run_data *r, guint64 serial, int64_t step)
{
    for (guint i = 0; i < r->changes->len; i++) {
        rf_run_change *c = &g_array_index(r->changes, rf_run_change, i);
        if (c->step < 0 && c->serial <= serial)
            c->step = step;
    }
}

guint rf_run_data_count(const rf_run_data *r, rf_split split)
{
    guint n = 0;
    for (guint i = 0; i < r->rows->len; i++)
        if (g_array_index(r->rows, rf_metrics, i).split == split)
            n++;
    return n;
}

const rf_metrics *rf_run_data_last(const rf_run_data *r, rf_split split)
{
    for (guint i = r->rows->len; i > 0; i--) {
        const rf_metrics *m = &g_array_index(r->rows, rf_metrics, i - 1);
        if (m->split == split)
            return m;
    }
    return NULL;
}

double rf_run_data_best_val(const rf_run_data *r)
{
    double best = NAN;
    for (guint i = 0; i < r->rows->len; i++) {
        const rf_metrics *m = &g_array_index(r->rows, rf_metrics, i);
        if (m->split == RF_SPLIT_VAL && isfinite(m->accuracy) && !(m->accuracy <= best))
            best = m->accuracy;
    }
    return best;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void rf_run_data_update_summary(rf_run_data *r)
{
    g_autofree double *times = g_new(double, r->rows->len + 1);
    guint n = 0;
    for (guint i = 0; i < r->rows->len; i++) {
        const rf_metrics *m = &g_array_index(r->rows, rf_metrics, i);
        if (m->split == RF_SPLIT_TRAIN && isfinite(m->step_seconds) && m->step_seconds > 0)
            times[n++] = m->step_seconds;
    }
    if (n == 0) {
        r->median_step_seconds = 0;
        return;
    }
    qsort(times, n, sizeof *times, compare_doubles);
    r->median_step_seconds = n % 2 == 1 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
}

/* ---- loading ---- */

static gboolean line_error(GError **error, const char *path, guint line, const char *what, const char *field)
{
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s:%u: %s '%s'", path, line, what, field);
    return FALSE;
}

static gboolean parse_double(const char *text, double *out)
{
    if (*text == '\0')
        return FALSE;
    char *end = NULL;
    errno = 0;
    *out = g_ascii_strtod(text, &end);
    return end != text && *end == '\0' && errno != ERANGE;
}

static gboolean parse_split(const char *text, rf_split *out)
{
    for (int s = 0; s < RF_SPLIT_COUNT; s++) {
        if (strcmp(text, rf_split_name((rf_split)s)) == 0) {
            *out = (rf_split)s;
            return TRUE;
        }
    }
    return FALSE;
}

/* One data row into m; `columns` is 6 (train's file) or 7 (an export). */
static gboolean parse_row(char *text, guint columns, const char *path, guint line, rf_metrics *m, GError **error)
{
    g_auto(GStrv) f = g_strsplit(text, ",", -1);
    guint n = g_strv_length(f);
    if (n != columns) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s:%u: %u fields where %u were expected", path,
                    line, n, columns);
        return FALSE;
    }
    char *end = NULL;
    errno = 0;
    gint64 step = g_ascii_strtoll(f[0], &end, 10);
    if (*f[0] == '\0' || *end != '\0' || errno != 0 || step < 0)
        return line_error(error, path, line, "the step is not a whole number >= 0:", f[0]);
    *m = (rf_metrics){.step = step, .grad_norm = NAN, .step_seconds = NAN, .data_wait = NAN};
    if (!parse_split(f[1], &m->split))
        return line_error(error, path, line, "the split is not train, val or test:", f[1]);
    static const char *const names[] = {"loss", "accuracy", "learning rate", "seconds"};
    double *values[] = {&m->loss, &m->accuracy, &m->lr, &m->seconds};
    for (int i = 0; i < 4; i++)
        if (!parse_double(f[2 + i], values[i])) {
            g_autofree char *what = g_strdup_printf("the %s is not a number:", names[i]);
            return line_error(error, path, line, what, f[2 + i]);
        }
    if (columns == 7 && *f[6] != '\0' && !parse_double(f[6], &m->step_seconds))
        return line_error(error, path, line, "the step time is not a number:", f[6]);
    return TRUE;
}

/* Seconds per step of train rows from the cumulative `seconds` column: the
 * time since the row before (of any split, so evaluation time is left out)
 * over the steps since then. */
static void derive_step_seconds(rf_run_data *r)
{
    int64_t prev_step = 0;
    double prev_seconds = 0;
    for (guint i = 0; i < r->rows->len; i++) {
        rf_metrics *m = &g_array_index(r->rows, rf_metrics, i);
        if (m->split == RF_SPLIT_TRAIN && !isfinite(m->step_seconds) && m->step > prev_step &&
            m->seconds >= prev_seconds)
            m->step_seconds = (m->seconds - prev_seconds) / (double)(m->step - prev_step);
        prev_step = m->step;
        prev_seconds = m->seconds;
    }
}

static gboolean load_metrics(rf_run_data *r, const char *path, GError **error)
{
    g_autofree char *text = NULL;
    gsize len = 0;
    if (!g_file_get_contents(path, &text, &len, error))
        return FALSE;   /* GLib's message names the file */
    g_autofree char *problem = rf_text_problem(text, len, 1);
    if (problem != NULL) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s:%s", path, problem);
        return FALSE;
    }
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    guint count = g_strv_length(lines);
    for (guint i = 0; i < count; i++) {
        size_t len = strlen(lines[i]);
        if (len > 0 && lines[i][len - 1] == '\r')
            lines[i][len - 1] = '\0';
    }
    guint columns;
    if (g_strcmp0(lines[0], HEADER_TRAIN) == 0) {
        columns = 6;
    } else if (g_strcmp0(lines[0], HEADER_EXPORT) == 0) {
        columns = 7;
    } else {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                    "%s:1: not a metrics file (the first line should be '" HEADER_TRAIN "')", path);
        return FALSE;
    }
    /* The text ends with a newline, so the last piece is empty. */
    guint last = count > 1 && lines[count - 1][0] == '\0' ? count - 1 : count;
    for (guint i = 1; i < last; i++) {
        rf_metrics m;
        if (!parse_row(lines[i], columns, path, i + 1, &m, error))
            return FALSE;
        rf_run_data_append(r, &m);
    }
    if (columns == 6)
        derive_step_seconds(r);
    return TRUE;
}

/* A curriculum's stage boundaries (core/curriculum.h), marked on the
 * curves as the workbench's live edits are: at the step each stage after
 * the first begins. */
static void add_stage_marks(rf_run_data *r)
{
    int stages = rf_curriculum_count(&r->cfg);
    for (int k = 1; k < stages && k < RF_CURRICULUM_MAX; k++) {
        char before[16], after[16];
        snprintf(before, sizeof before, "%d", k);
        snprintf(after, sizeof after, "%d", k + 1);
        rf_run_data_add_change(r, 0, "curriculum stage", before, after);
        g_array_index(r->changes, rf_run_change, r->changes->len - 1).step = rf_curriculum_first_step(&r->cfg, k);
    }
}

rf_run_data *rf_run_data_load_dir(const char *dir, GError **error)
{
    if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR, "%s: not a run directory (no such directory)", dir);
        return NULL;
    }
    g_autofree char *csv = g_build_filename(dir, "metrics.csv", NULL);
    if (!g_file_test(csv, G_FILE_TEST_EXISTS)) {
        if (rf_tb_dir_has_events(dir))
            return rf_run_data_load_tensorboard(dir, error);
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                    "%s: no TensorBoard event files (events.out.tfevents.*) and no metrics.csv: "
                    "not a run folder", dir);
        return NULL;
    }
    g_autofree char *base = g_path_get_basename(dir);
    g_autofree char *meta = g_build_filename(dir, RF_RUN_META_FILE, NULL);
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autofree char *named = g_key_file_load_from_file(kf, meta, G_KEY_FILE_NONE, NULL)
                                 ? g_key_file_get_string(kf, "run", "name", NULL)
                                 : NULL;
    g_autoptr(rf_run_data) r = rf_run_data_new(named != NULL && *named != '\0' ? named : base, NULL);
    r->dir = g_strdup(dir);
    r->color = rf_run_folder_color(dir);
    g_autofree char *ini = g_build_filename(dir, "config.ini", NULL);
    if (g_file_test(ini, G_FILE_TEST_EXISTS) && !rf_config_apply_ini(&r->cfg, ini, error))
        return NULL;
    if (!rf_baselines_file_read(dir, &r->baseline_majority, &r->baseline_first_token, error))
        return NULL;
    if (!load_metrics(r, csv, error))
        return NULL;
    add_stage_marks(r);
    rf_run_data_update_summary(r);
    return g_steal_pointer(&r);
}

/* ---- writing ---- */

/* A CSV field, quoted when it holds a comma, a quote or a line break. */
static void append_field(GString *s, const char *text)
{
    if (strpbrk(text, ",\"\n\r") == NULL) {
        g_string_append(s, text);
        return;
    }
    g_string_append_c(s, '"');
    for (const char *c = text; *c != '\0'; c++) {
        if (*c == '"')
            g_string_append_c(s, '"');
        g_string_append_c(s, *c);
    }
    g_string_append_c(s, '"');
}

/* A number, or an empty field when it is unknown (non-finite). */
static void append_number(GString *s, double v)
{
    if (!isfinite(v))
        return;
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_string_append(s, g_ascii_formatd(buf, sizeof buf, "%.6g", v));
}

/* g_file_set_contents writes a temporary file and renames it; its messages
 * name the file. */
static gboolean write_atomically(const char *path, const GString *s, GError **error)
{
    return g_file_set_contents(path, s->str, (gssize)s->len, error);
}

gboolean rf_run_data_write_metrics_csv(const rf_run_data *r, const char *path, GError **error)
{
    g_autoptr(GString) s = g_string_new(HEADER_EXPORT "\n");
    for (guint i = 0; i < r->rows->len; i++) {
        const rf_metrics *m = &g_array_index(r->rows, rf_metrics, i);
        g_string_append_printf(s, "%lld,%s,", (long long)m->step, rf_split_name(m->split));
        append_number(s, m->loss);
        g_string_append_c(s, ',');
        append_number(s, m->accuracy);
        g_string_append_c(s, ',');
        append_number(s, m->lr);
        g_string_append_c(s, ',');
        append_number(s, m->seconds);
        g_string_append_c(s, ',');
        if (m->split == RF_SPLIT_TRAIN)
            append_number(s, m->step_seconds);
        g_string_append_c(s, '\n');
    }
    return write_atomically(path, s, error);
}

static double accuracy_of(const rf_metrics *m)
{
    return m != NULL ? m->accuracy : NAN;
}

/* The config keys whose values are not the same in every run. */
static char **differing_keys(rf_run_data *const *runs, guint n)
{
    g_autofree const rf_config **cfgs = g_new(const rf_config *, n + 1);
    for (guint i = 0; i < n; i++)
        cfgs[i] = &runs[i]->cfg;
    return rf_config_differing_keys(cfgs, n);
}

gboolean rf_run_data_write_table_csv(rf_run_data *const *runs, guint n, const char *path, GError **error)
{
    g_auto(GStrv) keys = differing_keys(runs, n);
    g_autoptr(GString) s = g_string_new("run,steps,final_train_accuracy,final_val_accuracy,best_val_accuracy,"
                                        "test_accuracy,step_seconds,planned_bytes,peak_bytes,params");
    for (guint k = 0; keys[k] != NULL; k++) {
        g_string_append_c(s, ',');
        append_field(s, keys[k]);
    }
    g_string_append_c(s, '\n');

    char value[RF_STR_LEN + 32];
    for (guint i = 0; i < n; i++) {
        const rf_run_data *r = runs[i];
        int64_t steps = 0;
        for (guint j = 0; j < r->rows->len; j++)
            steps = MAX(steps, g_array_index(r->rows, rf_metrics, j).step);
        append_field(s, r->name);
        g_string_append_printf(s, ",%lld,", (long long)steps);
        append_number(s, accuracy_of(rf_run_data_last(r, RF_SPLIT_TRAIN)));
        g_string_append_c(s, ',');
        append_number(s, accuracy_of(rf_run_data_last(r, RF_SPLIT_VAL)));
        g_string_append_c(s, ',');
        append_number(s, rf_run_data_best_val(r));
        g_string_append_c(s, ',');
        append_number(s, accuracy_of(rf_run_data_last(r, RF_SPLIT_TEST)));
        g_string_append_c(s, ',');
        append_number(s, r->median_step_seconds > 0 ? r->median_step_seconds : NAN);
        g_string_append_c(s, ',');
        if (r->planned_bytes > 0)
            g_string_append_printf(s, "%.0f", r->planned_bytes);
        g_string_append_c(s, ',');
        if (r->peak_bytes > 0)
            g_string_append_printf(s, "%.0f", r->peak_bytes);
        g_string_append_c(s, ',');
        if (r->params > 0)
            g_string_append_printf(s, "%lld", (long long)r->params);
        for (guint k = 0; keys[k] != NULL; k++) {
            g_string_append_c(s, ',');
            rf_config_get(&r->cfg, keys[k], value, sizeof value);
            append_field(s, value);
        }
        g_string_append_c(s, '\n');
    }
    return write_atomically(path, s, error);
}
