#include "distributions_csv.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define HEADER "step,name,kind,count,min,p7,p16,p31,p50,p69,p84,p93,max,mean"
#define FIELDS (4 + RF_DIST_QUANTILES + 1)

struct rf_distributions_csv {
    char *path;
    FILE *file;
};

static gboolean fail_errno(GError **error, const char *path)
{
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: %s", path, g_strerror(errno));
    return FALSE;
}

static rf_distributions_csv *open_file(const char *path, const char *mode, GError **error)
{
    FILE *f = g_fopen(path, mode);
    if (f == NULL) {
        fail_errno(error, path);
        return NULL;
    }
    rf_distributions_csv *c = g_new0(rf_distributions_csv, 1);
    c->path = g_strdup(path);
    c->file = f;
    return c;
}

rf_distributions_csv *rf_distributions_csv_create(const char *path, GError **error)
{
    rf_distributions_csv *c = open_file(path, "w", error);
    if (c != NULL && (fputs(HEADER "\n", c->file) == EOF || fflush(c->file) != 0)) {
        fail_errno(error, path);
        g_clear_pointer(&c, rf_distributions_csv_close);
    }
    return c;
}

/* The length of the rows to keep: complete rows up to `step`; everything
 * after the first other line goes (rows after the checkpoint, a row cut
 * short by a crash). */
static gsize rows_up_to(char *text, int64_t step)
{
    gsize keep = strlen(HEADER "\n");
    for (char *line = text + keep, *nl; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
        *nl = '\0';
        g_auto(GStrv) fields = g_strsplit(line, ",", -1);
        if (g_strv_length(fields) != FIELDS || g_ascii_strtoll(fields[0], NULL, 10) > step)
            break;
        keep = (gsize)(nl + 1 - text);
    }
    return keep;
}

rf_distributions_csv *rf_distributions_csv_resume(const char *path, int64_t step, GError **error)
{
    g_autofree char *old = NULL;
    gsize len = 0;
    g_autoptr(GError) local = NULL;
    if (!g_file_get_contents(path, &old, &len, &local)) {
        if (g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
            return rf_distributions_csv_create(path, error);
        g_set_error_literal(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, local->message);
        return NULL;
    }
    if (!g_str_has_prefix(old, HEADER "\n")) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                    "%s: not a distributions file of this program (the first line is not '" HEADER "')", path);
        return NULL;
    }
    gsize keep = rows_up_to(old, step);
    rf_distributions_csv *c = open_file(path, "a", error);
    /* cut in place: a crash leaves the file either whole or cut, and the next resume cuts it again */
    if (c != NULL && keep < len && (ftruncate(fileno(c->file), (off_t)keep) != 0 || fsync(fileno(c->file)) != 0)) {
        fail_errno(error, path);
        g_clear_pointer(&c, rf_distributions_csv_close);
    }
    return c;
}

gboolean rf_distributions_csv_write(rf_distributions_csv *c, int64_t step, const rf_distribution *d, int n,
                                    GError **error)
{
    for (int i = 0; i < n; i++) {
        fprintf(c->file, "%lld,%s,%s,%lld", (long long)step, d[i].name, rf_dist_kind_name(d[i].kind),
                (long long)d[i].count);
        for (int k = 0; k < RF_DIST_QUANTILES; k++)
            fprintf(c->file, ",%.9g", d[i].q[k]);
        fprintf(c->file, ",%.9g\n", d[i].mean);
    }
    if (fflush(c->file) != 0 || ferror(c->file))
        return fail_errno(error, c->path);
    return TRUE;
}

gboolean rf_distributions_csv_sync(rf_distributions_csv *c, GError **error)
{
    if (fflush(c->file) != 0 || fsync(fileno(c->file)) != 0)
        return fail_errno(error, c->path);
    return TRUE;
}

void rf_distributions_csv_close(rf_distributions_csv *c)
{
    if (c == NULL)
        return;
    fclose(c->file);
    g_free(c->path);
    g_free(c);
}

static gboolean bad_row(GError **error, const char *path, int line, const char *fmt, ...) G_GNUC_PRINTF(4, 5);
static gboolean bad_row(GError **error, const char *path, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *what = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s:%d: %s", path, line, what);
    return FALSE;
}

static gboolean parse_int(const char *s, int64_t *out)
{
    char *end = NULL;
    errno = 0;
    *out = g_ascii_strtoll(s, &end, 10);
    return *s != '\0' && *end == '\0' && errno == 0;
}

static gboolean parse_number(const char *s, double *out)
{
    char *end = NULL;
    *out = g_ascii_strtod(s, &end);
    return *s != '\0' && *end == '\0';
}

static const char *const columns[FIELDS] = {"step", "name", "kind", "count", "min", "p7",  "p16",
                                            "p31",  "p50",  "p69",  "p84",   "p93", "max", "mean"};

static gboolean parse_row(char *text, const char *path, int line, int64_t last_step, rf_distribution_row *row,
                          GError **error)
{
    g_auto(GStrv) f = g_strsplit(text, ",", -1);
    guint n = g_strv_length(f);
    if (n != FIELDS)
        return bad_row(error, path, line, "%u fields, expected %d (" HEADER ")", n, FIELDS);
    *row = (rf_distribution_row){0};
    if (!parse_int(f[0], &row->step) || row->step < 0)
        return bad_row(error, path, line, "step '%s' is not a step number", f[0]);
    if (row->step < last_step)
        return bad_row(error, path, line, "step %lld comes after step %lld", (long long)row->step,
                       (long long)last_step);
    if (f[1][0] == '\0' || strlen(f[1]) >= sizeof row->d.name)
        return bad_row(error, path, line, "the name is empty or longer than %zu characters", sizeof row->d.name - 1);
    snprintf(row->d.name, sizeof row->d.name, "%s", f[1]);
    row->d.kind = RF_DIST_KINDS;
    for (int k = 0; k < RF_DIST_KINDS; k++)
        if (strcmp(f[2], rf_dist_kind_name(k)) == 0)
            row->d.kind = k;
    if (row->d.kind == RF_DIST_KINDS)
        return bad_row(error, path, line, "kind '%s' is none of param, grad, tap", f[2]);
    if (!parse_int(f[3], &row->d.count) || row->d.count < 1)
        return bad_row(error, path, line, "count '%s' is not a positive whole number", f[3]);
    for (int k = 0; k <= RF_DIST_QUANTILES; k++) {
        double *v = k < RF_DIST_QUANTILES ? &row->d.q[k] : &row->d.mean;
        if (!parse_number(f[4 + k], v))
            return bad_row(error, path, line, "%s '%s' is not a number", columns[4 + k], f[4 + k]);
    }
    for (int k = 1; k < RF_DIST_QUANTILES; k++)
        if (row->d.q[k] < row->d.q[k - 1])
            return bad_row(error, path, line, "%s %g is below %s %g: percentiles must not decrease", columns[4 + k],
                           row->d.q[k], columns[3 + k], row->d.q[k - 1]);
    return TRUE;
}

/* `growing`: the file may be in the middle of a write (a run training):
 * a last row with no line end yet, or a header not all there, is not
 * read rather than refused. */
static GArray *read_rows(const char *path, gboolean growing, GError **error)
{
    g_autofree char *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, error))
        return NULL;
    if (growing && !g_str_has_prefix(text, HEADER "\n") && g_str_has_prefix(HEADER "\n", text))
        return g_array_new(FALSE, FALSE, sizeof(rf_distribution_row));
    if (!g_str_has_prefix(text, HEADER "\n")) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s:1: not a distributions file of this program (the first line is not '" HEADER "')", path);
        return NULL;
    }
    GArray *rows = g_array_new(FALSE, FALSE, sizeof(rf_distribution_row));
    int line = 1;
    int64_t last_step = 0;
    for (char *at = text + strlen(HEADER "\n"), *nl; *at != '\0'; at = nl + 1) {
        line++;
        nl = strchr(at, '\n');
        if (nl == NULL && growing)
            break;
        if (nl == NULL) {
            bad_row(error, path, line, "the last row is cut short (no line end)");
            g_array_free(rows, TRUE);
            return NULL;
        }
        *nl = '\0';
        rf_distribution_row row;
        if (!parse_row(at, path, line, last_step, &row, error)) {
            g_array_free(rows, TRUE);
            return NULL;
        }
        last_step = row.step;
        g_array_append_val(rows, row);
    }
    return rows;
}

GArray *rf_distributions_csv_read(const char *path, GError **error)
{
    return read_rows(path, FALSE, error);
}

GArray *rf_distributions_csv_read_written(const char *path, GError **error)
{
    return read_rows(path, TRUE, error);
}
