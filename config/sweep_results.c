#include "sweep_results.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FIXED_COLUMNS 8   /* trial, status, reason, best, final, steps, seconds, folder */

void rf_sweep_row_clear(rf_sweep_row *r)
{
    g_strfreev(r->values);
    g_free(r->status);
    g_free(r->reason);
    g_free(r->folder);
    memset(r, 0, sizeof *r);
}

GArray *rf_sweep_rows_new(void)
{
    GArray *rows = g_array_new(FALSE, TRUE, sizeof(rf_sweep_row));
    g_array_set_clear_func(rows, (GDestroyNotify)rf_sweep_row_clear);
    return rows;
}

/* One CSV line's fields (quotes undone); NULL when a quote is left open. */
static GPtrArray *csv_fields(const char *line)
{
    GPtrArray *fields = g_ptr_array_new_with_free_func(g_free);
    GString *f = g_string_new(NULL);
    gboolean quoted = FALSE;
    for (const char *c = line;; c++) {
        if (quoted) {
            if (*c == '\0') {
                g_string_free(f, TRUE);
                g_ptr_array_free(fields, TRUE);
                return NULL;
            }
            if (*c == '"' && c[1] == '"')
                g_string_append_c(f, *c++);
            else if (*c == '"')
                quoted = FALSE;
            else
                g_string_append_c(f, *c);
        } else if (*c == '"') {
            quoted = TRUE;
        } else if (*c == ',' || *c == '\0') {
            g_ptr_array_add(fields, g_string_free(f, FALSE));
            if (*c == '\0')
                return fields;
            f = g_string_new(NULL);
        } else {
            g_string_append_c(f, *c);
        }
    }
}

static double number_or_nan(const char *text)
{
    char *end = NULL;
    double v = g_ascii_strtod(text, &end);
    return text[0] != '\0' && *end == '\0' ? v : NAN;
}

GArray *rf_sweep_table_read(const rf_sweep *s, const char *path, GError **error)
{
    g_autofree char *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, error))
        return NULL;
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    GArray *rows = rf_sweep_rows_new();
    guint want = (guint)s->n_keys + FIXED_COLUMNS;
    for (int i = 1; lines[0] != NULL && lines[i] != NULL; i++) {
        if (lines[i][0] == '\0')
            continue;
        GPtrArray *f = csv_fields(lines[i]);
        if (f == NULL || f->len != want) {
            g_set_error(error, RF_SWEEP_FILE_ERROR, RF_SWEEP_FILE_ERROR_FAILED,
                        "%s:%d: expected %u fields (trial, %d swept keys, status, reason, best, final, steps, seconds, "
                        "folder), found %u", path, i + 1, want, s->n_keys, f != NULL ? f->len : 0);
            if (f != NULL)
                g_ptr_array_free(f, TRUE);
            g_array_free(rows, TRUE);
            return NULL;
        }
        char **cell = (char **)f->pdata;
        rf_sweep_row r = {.trial = atoi(cell[0]), .values = g_new0(char *, s->n_keys + 1)};
        for (int k = 0; k < s->n_keys; k++)
            r.values[k] = g_strdup(cell[1 + k]);
        int at = 1 + s->n_keys;
        r.status = g_strdup(cell[at]);
        r.reason = g_strdup(cell[at + 1]);
        r.best = number_or_nan(cell[at + 2]);
        r.final = number_or_nan(cell[at + 3]);
        r.steps = g_ascii_strtoll(cell[at + 4], NULL, 10);
        r.seconds = number_or_nan(cell[at + 5]);
        r.folder = g_strdup(cell[at + 6]);
        g_array_append_val(rows, r);
        g_ptr_array_free(f, TRUE);
    }
    return rows;
}
