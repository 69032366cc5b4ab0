#include "sweep_table.h"

#include <math.h>
#include <string.h>

#include "../core/atomic_file.h"
#include "cli.h"
#include "json_line.h"


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
