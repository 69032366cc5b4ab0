#include "sweep_trial.h"

#include <math.h>
#include <string.h>

#include "../core/atomic_file.h"
#include "cli.h"

char *rf_trial_folder_name(int index)
{
    return g_strdup_printf("trial-%03d", index + 1);
}

void rf_trial_metrics_read(const char *dir, rf_trial_metrics *m)
{
    m->steps = g_array_new(FALSE, FALSE, sizeof(int64_t));
    m->loss = g_array_new(FALSE, FALSE, sizeof(double));
    m->accuracy = g_array_new(FALSE, FALSE, sizeof(double));
    m->last_step = 0;
    m->seconds = 0;
    g_autofree char *path = g_build_filename(dir, "metrics.csv", NULL), *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, NULL))
        return;
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    for (int i = 1; lines[0] != NULL && lines[i] != NULL; i++) {
        g_auto(GStrv) f = g_strsplit(lines[i], ",", -1);
        if (g_strv_length(f) != 6)   /* the header's six fields; a row cut short is left out */
            continue;
        int64_t step = g_ascii_strtoll(f[0], NULL, 10);
        m->last_step = MAX(m->last_step, step);
        m->seconds = g_ascii_strtod(f[5], NULL);
        if (strcmp(f[1], "val") != 0)
            continue;
        double loss = g_ascii_strtod(f[2], NULL), accuracy = g_ascii_strtod(f[3], NULL);
        g_array_append_val(m->steps, step);
        g_array_append_val(m->loss, loss);
        g_array_append_val(m->accuracy, accuracy);
    }
}

void rf_trial_metrics_clear(rf_trial_metrics *m)
{
    if (m->steps != NULL) {
        g_array_free(m->steps, TRUE);
        g_array_free(m->loss, TRUE);
        g_array_free(m->accuracy, TRUE);
    }
    memset(m, 0, sizeof *m);
}

double rf_trial_metric_at(const rf_trial_metrics *m, guint i, gboolean loss)
{
    return g_array_index(loss ? m->loss : m->accuracy, double, i);
}

double rf_trial_metric_at_step(const rf_trial_metrics *m, int64_t step, gboolean loss)
{
    for (guint i = 0; i < m->steps->len; i++)
        if (g_array_index(m->steps, int64_t, i) == step)
            return rf_trial_metric_at(m, i, loss);
    return NAN;
}

double rf_trial_best(const rf_trial_metrics *m, int64_t step, gboolean loss, int *count)
{
    double best = NAN;
    int n = 0;
    for (guint i = 0; i < m->steps->len && g_array_index(m->steps, int64_t, i) <= step; i++) {
        double v = rf_trial_metric_at(m, i, loss);
        if (isnan(best) || (loss ? v < best : v > best))
            best = v;
        n++;
    }
    if (count != NULL)
        *count = n;
    return best;
}

void rf_trial_ended_read(const char *dir, char **status, char **reason)
{
    g_autofree char *path = g_build_filename(dir, RF_SWEEP_TRIAL_FILE, NULL);
    g_autoptr(GKeyFile) kf = g_key_file_new();
    *status = *reason = NULL;
    if (!g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, NULL))
        return;
    *status = g_key_file_get_string(kf, "trial", "status", NULL);
    *reason = g_key_file_get_string(kf, "trial", "reason", NULL);
    if (*reason == NULL)
        *reason = g_strdup("");
}

gboolean rf_trial_ended_write(const char *dir, const char *status, const char *reason, GError **error)
{
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_key_file_set_string(kf, "trial", "status", status);
    g_key_file_set_string(kf, "trial", "reason", reason);
    g_key_file_set_comment(kf, NULL, NULL, " How this sweep trial ended (rangefinder sweep skips it when run again).",
                           NULL);
    gsize size = 0;
    g_autofree char *text = g_key_file_to_data(kf, &size, NULL);
    g_autofree char *path = g_build_filename(dir, RF_SWEEP_TRIAL_FILE, NULL);
    rf_status st = {0};
    return rf_atomic_write_bytes(path, text, size, &st) || rf_cli_fail_status(error, &st);
}
