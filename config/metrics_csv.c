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
    rf_tb_writer *tb;        /* this invocation's TensorBoard event file */
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

/* The event file next to the CSV; `resumed_at` >= 0 marks a resumed run. */
static gboolean open_events(rf_metrics_csv *c, int64_t resumed_at, const rf_config *cfg, GError **error)
{
    g_autofree char *dir = g_path_get_dirname(c->path);
    c->tb = rf_tb_writer_open(dir, error);
    return c->tb != NULL && (resumed_at < 0 || rf_tb_writer_restart(c->tb, resumed_at + 1, error)) &&
           rf_tb_writer_session_start(c->tb, cfg, error);
}

rf_metrics_csv *rf_metrics_csv_create(const char *path, const rf_config *cfg, GError **error)
{
    rf_metrics_csv *c = open_file(path, "w", 0, error);
    if (c != NULL && (fputs(HEADER "\n", c->file) == EOF || fflush(c->file) != 0)) {
        fail_errno(error, path);
        g_clear_pointer(&c, rf_metrics_csv_close);
    }
    if (c != NULL && !open_events(c, -1, cfg, error))
        g_clear_pointer(&c, rf_metrics_csv_close);
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

rf_metrics_csv *rf_metrics_csv_resume(const char *path, int64_t step, const rf_config *cfg, GError **error)
{
    g_autofree char *old = NULL;
    gsize len = 0;
    g_autoptr(GError) local = NULL;
    if (!g_file_get_contents(path, &old, &len, &local)) {
        if (g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
            return rf_metrics_csv_create(path, cfg, error);
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
    if (c != NULL && !open_events(c, step, cfg, error))
        g_clear_pointer(&c, rf_metrics_csv_close);
    return c;
}

/* The row's values as TensorBoard scalars, in one event. A train row's
 * loss, accuracy and norm left unread on a device are not written. */
static gboolean write_events(rf_metrics_csv *c, const rf_metrics *m, double seconds, GError **error)
{
    const char *split = rf_split_name(m->split);
    g_autofree char *loss = g_strdup_printf("%s/loss", split), *accuracy = g_strdup_printf("%s/accuracy", split);
    const char *tags[6];
    double values[6];
    size_t n = 0;
    if (m->split != RF_SPLIT_TRAIN || !m->unread) {
        tags[n] = loss, values[n++] = m->loss;
        tags[n] = accuracy, values[n++] = m->accuracy;
    }
    if (m->split == RF_SPLIT_TRAIN) {
        if (!m->unread)
            tags[n] = "train/grad_norm", values[n++] = m->grad_norm;
        tags[n] = "lr", values[n++] = m->lr;
        tags[n] = "train/step_time_s", values[n++] = m->step_seconds;
    }
    tags[n] = "time/seconds", values[n++] = seconds;
    return rf_tb_writer_scalars(c->tb, m->step, tags, values, n, error);
}

gboolean rf_metrics_csv_write(rf_metrics_csv *c, const rf_metrics *m, GError **error)
{
    double seconds = c->seconds_before + m->seconds;
    fprintf(c->file, "%lld,%s,%.6g,%.6g,%.6g,%.3f\n", (long long)m->step, rf_split_name(m->split), m->loss,
            m->accuracy, m->lr, seconds);
    if (fflush(c->file) != 0 || ferror(c->file))
        return fail_errno(error, c->path);
    return write_events(c, m, seconds, error);
}

gboolean rf_metrics_csv_sync(rf_metrics_csv *c, GError **error)
{
    if (fflush(c->file) != 0 || fsync(fileno(c->file)) != 0)
        return fail_errno(error, c->path);
    return rf_tb_writer_sync(c->tb, error);
}

gboolean rf_metrics_csv_end(rf_metrics_csv *c, rf_tb_status status, GError **error)
{
    return rf_tb_writer_session_end(c->tb, status, error);
}

void rf_metrics_csv_close(rf_metrics_csv *c)
{
    if (c == NULL)
        return;
    fclose(c->file);
    rf_tb_writer_close(c->tb);
    g_free(c->path);
    g_free(c);
}
