#include "metrics_csv.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define HEADER "step,split,loss,accuracy,lr,seconds"

struct rf_metrics_csv {
    char *path;
    FILE *file;
    double seconds_before;   /* training time of earlier invocations */
};

static rf_metrics_csv *open_append(const char *path, double seconds_before, GError **error)
{
    FILE *f = g_fopen(path, "a");
    if (f == NULL) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, "%s: %s", path, g_strerror(errno));
        return NULL;
    }
    rf_metrics_csv *c = g_new0(rf_metrics_csv, 1);
    c->path = g_strdup(path);
    c->file = f;
    c->seconds_before = seconds_before;
    return c;
}

static gboolean replace(const char *path, const char *text, GError **error)
{
    g_autoptr(GError) local = NULL;
    if (!g_file_set_contents(path, text, -1, &local)) {
        g_set_error_literal(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, local->message);
        return FALSE;
    }
    return TRUE;
}

rf_metrics_csv *rf_metrics_csv_create(const char *path, GError **error)
{
    if (!replace(path, HEADER "\n", error))
        return NULL;
    return open_append(path, 0, error);
}

rf_metrics_csv *rf_metrics_csv_resume(const char *path, int64_t step, GError **error)
{
    g_autofree char *old = NULL;
    if (!g_file_get_contents(path, &old, NULL, NULL))
        return rf_metrics_csv_create(path, error);

    g_auto(GStrv) lines = g_strsplit(old, "\n", -1);
    if (g_strcmp0(lines[0], HEADER) != 0) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED,
                    "%s: not a metrics file of this program (the first line is not '" HEADER "')", path);
        return NULL;
    }
    g_autoptr(GString) kept = g_string_new(HEADER "\n");
    double seconds = 0;
    for (char **line = lines + 1; *line != NULL; line++) {
        g_auto(GStrv) fields = g_strsplit(*line, ",", -1);
        if (g_strv_length(fields) != 6)
            continue;   /* a blank line, or a row cut short by a crash */
        if (g_ascii_strtoll(fields[0], NULL, 10) > step)
            continue;
        seconds = g_ascii_strtod(fields[5], NULL);
        g_string_append_printf(kept, "%s\n", *line);
    }
    if (!replace(path, kept->str, error))
        return NULL;
    return open_append(path, seconds, error);
}

gboolean rf_metrics_csv_write(rf_metrics_csv *c, const rf_metrics *m, GError **error)
{
    fprintf(c->file, "%lld,%s,%.6g,%.6g,%.6g,%.3f\n", (long long)m->step, rf_split_name(m->split), m->loss,
            m->accuracy, m->lr, c->seconds_before + m->seconds);
    if (fflush(c->file) != 0 || ferror(c->file)) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, "%s: %s", c->path, g_strerror(errno));
        return FALSE;
    }
    return TRUE;
}

void rf_metrics_csv_close(rf_metrics_csv *c)
{
    if (c == NULL)
        return;
    fclose(c->file);
    g_free(c->path);
    g_free(c);
}
