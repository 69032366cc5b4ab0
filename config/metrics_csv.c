#include "metrics_csv.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>


#define HEADER "step,split,loss,accuracy,lr,seconds"

struct rf_metrics_csv {
    char *path;
    FILE *file;
    double seconds_before;   /* training time of earlier invocations */
};

static gboolean fail_errno(GError **error, const char *path)
{
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: %s", path, g_strerror(errno));
    return FALSE;
}

/* mode "w": a new file; "a": continue one. */
static rf_metrics_csv *open_file(const char *path, const char *mode, double seconds_before, GError **error)
{
    FILE *f = g_fopen(path, mode);
    if (f == NULL) {
        fail_errno(error, path);
        return NULL;
    }
    rf_metrics_csv *c = g_new0(rf_metrics_csv, 1);
    c->path = g_strdup(path);
    c->file = f;
    c->seconds_before = seconds_before;
    return c;
}

rf_metrics_csv *rf_metrics_csv_create(const char *path, GError **error)
{
    rf_metrics_csv *c = open_file(path, "w", 0, error);
    if (c != NULL && (fputs(HEADER "\n", c->file) == EOF || fflush(c->file) != 0)) {
        fail_errno(error, path);
        g_clear_pointer(&c, rf_metrics_csv_close);
    }
    return c;
}

/* The length of the rows to keep: complete rows up to `step`. Rows are
 * appended in step order, so everything after the first other line goes
 * (rows logged after the checkpoint, a row cut short by a crash). */
static gsize rows_up_to(char *text, int64_t step, double *seconds)
{
    gsize keep = strlen(HEADER "\n");
    for (char *line = text + keep, *nl; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
        *nl = '\0';
        g_auto(GStrv) fields = g_strsplit(line, ",", -1);
        if (g_strv_length(fields) != 6 || g_ascii_strtoll(fields[0], NULL, 10) > step)
            break;
        *seconds = g_ascii_strtod(fields[5], NULL);
        keep = (gsize)(nl + 1 - text);
    }
    return keep;
}

rf_metrics_csv *rf_metrics_csv_resume(const char *path, int64_t step, GError **error)
{
    g_autofree char *old = NULL;
    gsize len = 0;
    g_autoptr(GError) local = NULL;
    if (!g_file_get_contents(path, &old, &len, &local)) {
        if (g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
            return rf_metrics_csv_create(path, error);
        g_set_error_literal(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, local->message);
        return NULL;
    }
    if (!g_str_has_prefix(old, HEADER "\n")) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                    "%s: not a metrics file of this program (the first line is not '" HEADER "')", path);
        return NULL;
    }
    double seconds = 0;
    gsize keep = rows_up_to(old, step, &seconds);
    rf_metrics_csv *c = open_file(path, "a", seconds, error);
    /* cut in place: a crash leaves the file either whole or cut, and the next resume cuts it again */
    if (c != NULL && keep < len && (ftruncate(fileno(c->file), (off_t)keep) != 0 || fsync(fileno(c->file)) != 0)) {
        fail_errno(error, path);
        g_clear_pointer(&c, rf_metrics_csv_close);
    }
    return c;
}

gboolean rf_metrics_csv_write(rf_metrics_csv *c, const rf_metrics *m, GError **error)
{
    fprintf(c->file, "%lld,%s,%.6g,%.6g,%.6g,%.3f\n", (long long)m->step, rf_split_name(m->split), m->loss,
            m->accuracy, m->lr, c->seconds_before + m->seconds);
    if (fflush(c->file) != 0 || ferror(c->file))
        return fail_errno(error, c->path);
    return TRUE;
}

gboolean rf_metrics_csv_sync(rf_metrics_csv *c, GError **error)
{
    if (fflush(c->file) != 0 || fsync(fileno(c->file)) != 0)
        return fail_errno(error, c->path);
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
