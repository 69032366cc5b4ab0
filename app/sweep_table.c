#include "sweep_table.h"

#include <math.h>
#include <string.h>

#include "../core/atomic_file.h"
#include "cli.h"
#include "json_line.h"

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

/* A CSV field, quoted when it holds a comma, a quote or a line break. */
static void csv_field(GString *out, const char *text, gboolean last)
{
    if (strpbrk(text, ",\"\n\r") != NULL) {
        g_string_append_c(out, '"');
        for (const char *c = text; *c != '\0'; c++) {
            if (*c == '"')
                g_string_append_c(out, '"');
            g_string_append_c(out, *c);
        }
        g_string_append_c(out, '"');
    } else {
        g_string_append(out, text);
    }
    g_string_append_c(out, last ? '\n' : ',');
}

static void csv_number(GString *out, double v)
{
    if (isfinite(v))
        g_string_append_printf(out, "%.6g", v);
    g_string_append_c(out, ',');
}

static char *table_csv(const rf_sweep *s, const GArray *rows)
{
    GString *out = g_string_new("trial,");
    for (int k = 0; k < s->n_keys; k++)
        csv_field(out, s->keys[k].name, FALSE);
    const char *metric = rf_sweep_metric_name(s);
    g_string_append_printf(out, "status,reason,best_%s,final_%s,steps,seconds,folder\n", metric, metric);
    for (guint i = 0; i < rows->len; i++) {
        const rf_sweep_row *r = &g_array_index(rows, rf_sweep_row, i);
        g_string_append_printf(out, "%d,", r->trial);
        for (int k = 0; k < s->n_keys; k++)
            csv_field(out, r->values[k], FALSE);
        csv_field(out, r->status, FALSE);
        csv_field(out, r->reason, FALSE);
        csv_number(out, r->best);
        csv_number(out, r->final);
        g_string_append_printf(out, "%lld,%.2f,", (long long)r->steps, r->seconds);
        csv_field(out, r->folder, TRUE);
    }
    return g_string_free(out, FALSE);
}

static const char *kind_name(rf_sweep_kind kind)
{
    switch (kind) {
    case RF_SWEEP_UNIFORM: return "uniform";
    case RF_SWEEP_LOG_UNIFORM: return "log-uniform";
    case RF_SWEEP_INT: return "int";
    case RF_SWEEP_LIST: break;
    }
    return "list";
}

static char *table_json(const rf_sweep *s, const GArray *rows)
{
    rf_json_line j;
    GString *keys = g_string_new("[");
    for (int k = 0; k < s->n_keys; k++) {
        rf_json_begin(&j);
        rf_json_str(&j, "key", s->keys[k].name);
        rf_json_str(&j, "kind", kind_name(s->keys[k].kind));
        g_autofree char *one = rf_json_end(&j);
        g_string_append_printf(keys, "%s%s", k > 0 ? "," : "", one);
    }
    g_string_append_c(keys, ']');
    GString *trials = g_string_new("[");
    for (guint i = 0; i < rows->len; i++) {
        const rf_sweep_row *r = &g_array_index(rows, rf_sweep_row, i);
        rf_json_begin(&j);
        for (int k = 0; k < s->n_keys; k++)
            rf_json_str(&j, s->keys[k].name, r->values[k]);
        g_autofree char *values = rf_json_end(&j);
        rf_json_begin(&j);
        rf_json_int(&j, "trial", r->trial);
        rf_json_raw(&j, "values", values);
        rf_json_str(&j, "status", r->status);
        rf_json_str(&j, "reason", r->reason[0] != '\0' ? r->reason : NULL);
        rf_json_num(&j, "best", r->best);
        rf_json_num(&j, "final", r->final);
        rf_json_int(&j, "steps", r->steps);
        rf_json_num(&j, "seconds", r->seconds);
        rf_json_str(&j, "folder", r->folder);
        g_autofree char *one = rf_json_end(&j);
        g_string_append_printf(trials, "%s%s", i > 0 ? "," : "", one);
    }
    g_string_append_c(trials, ']');
    rf_json_begin(&j);
    rf_json_str(&j, "sweep", s->name);
    rf_json_str(&j, "method", s->method == RF_SWEEP_GRID ? "grid" : "random");
    rf_json_str(&j, "metric", rf_sweep_metric_name(s));
    rf_json_raw(&j, "keys", keys->str);
    rf_json_raw(&j, "trials", trials->str);
    g_string_free(keys, TRUE);
    g_string_free(trials, TRUE);
    char *text = rf_json_end(&j);
    char *with_newline = g_strconcat(text, "\n", NULL);
    g_free(text);
    return with_newline;
}

gboolean rf_sweep_table_write(const rf_sweep *s, const GArray *rows, const char *dir, GError **error)
{
    g_autofree char *csv = table_csv(s, rows), *json = table_json(s, rows);
    g_autofree char *csv_path = g_build_filename(dir, "sweep.csv", NULL);
    g_autofree char *json_path = g_build_filename(dir, "sweep.json", NULL);
    rf_status st = {0};
    if (!rf_atomic_write_bytes(csv_path, csv, strlen(csv), &st) ||
        !rf_atomic_write_bytes(json_path, json, strlen(json), &st))
        return rf_cli_fail_status(error, &st);
    return TRUE;
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
            g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED,
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
