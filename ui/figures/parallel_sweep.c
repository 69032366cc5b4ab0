#include "parallel_sweep.h"

#include <stdlib.h>
#include <string.h>

#include "../../config/sweep_results.h"

gboolean rf_is_sweep_folder(const char *dir)
{
    g_autofree char *ini = g_build_filename(dir, "sweep.ini", NULL), *csv = g_build_filename(dir, "sweep.csv", NULL);
    return g_file_test(ini, G_FILE_TEST_IS_REGULAR) && g_file_test(csv, G_FILE_TEST_IS_REGULAR);
}

static int compare_numbers(const void *a, const void *b)
{
    double x = g_ascii_strtod(*(char *const *)a, NULL), y = g_ascii_strtod(*(char *const *)b, NULL);
    return (x > y) - (x < y);
}

rf_parallel_figure *rf_parallel_figure_load_sweep(const char *dir, GError **error)
{
    g_autofree char *ini = g_build_filename(dir, "sweep.ini", NULL), *csv = g_build_filename(dir, "sweep.csv", NULL);
    g_autoptr(rf_sweep) s = rf_sweep_load(ini, error);
    if (s == NULL)
        return NULL;
    GArray *rows = rf_sweep_table_read(s, csv, error);
    if (rows == NULL)
        return NULL;
    g_autoptr(rf_parallel_figure) figure = rf_parallel_figure_new(rf_sweep_metric_name(s), !s->metric_is_loss);
    for (int k = 0; k < s->n_keys; k++) {
        const rf_sweep_key *key = &s->keys[k];
        rf_parallel_scale scale = key->kind == RF_SWEEP_LIST          ? RF_PARALLEL_CATEGORY
                                  : key->kind == RF_SWEEP_LOG_UNIFORM ? RF_PARALLEL_LOG
                                                                      : RF_PARALLEL_LINEAR;
        g_auto(GStrv) ticks = g_strdupv(key->values);
        if (ticks != NULL && key->numeric)   /* a list of numbers reads bottom to top, smallest first */
            qsort(ticks, g_strv_length(ticks), sizeof *ticks, compare_numbers);
        rf_parallel_figure_add_axis(figure, key->name, scale, (const char *const *)ticks);
    }
    for (guint i = 0; i < rows->len; i++) {
        const rf_sweep_row *r = &g_array_index(rows, rf_sweep_row, i);
        rf_parallel_status status = strcmp(r->status, "finished") == 0 ? RF_PARALLEL_FINISHED
                                    : strcmp(r->status, "failed") == 0 ? RF_PARALLEL_FAILED
                                                                       : RF_PARALLEL_STOPPED;
        rf_parallel_figure_add_trial(figure, r->folder, (const char *const *)r->values, r->best, status);
    }
    g_array_free(rows, TRUE);
    return g_steal_pointer(&figure);
}
