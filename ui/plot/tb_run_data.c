#include "tb_run_data.h"

#include <math.h>
#include <string.h>

#include "../../config/run_folder.h"
#include "../../config/tb_reader.h"

static gboolean word_in(const char *word, const char *const *set)
{
    for (; *set != NULL; set++)
        if (strcmp(word, *set) == 0)
            return TRUE;
    return FALSE;
}

gboolean rf_tb_tag_meaning(const char *tag, rf_split *split, rf_tb_quantity *quantity, int *extra)
{
    static const char *const train[] = {"train", "training", NULL};
    static const char *const val[] = {"val", "valid", "validation", "eval", "evaluation", "dev", NULL};
    static const char *const test[] = {"test", "testing", NULL};
    static const char *const loss[] = {"loss", NULL};
    static const char *const accuracy[] = {"acc", "accuracy", NULL};
    static const char *const lr[] = {"lr", NULL};
    g_autofree char *lower = g_ascii_strdown(tag, -1);
    g_auto(GStrv) words = g_regex_split_simple("[^a-z0-9]+", lower, 0, 0);
    int splits = 0, quantities = 0;
    *split = RF_SPLIT_TRAIN;
    *extra = 0;
    for (guint i = 0; words[i] != NULL; i++) {
        const char *w = words[i];
        if (*w == '\0')
            continue;
        if (word_in(w, train) || word_in(w, val) || word_in(w, test)) {
            *split = word_in(w, train) ? RF_SPLIT_TRAIN : word_in(w, val) ? RF_SPLIT_VAL : RF_SPLIT_TEST;
            splits++;
        } else if (word_in(w, loss) || word_in(w, accuracy) || word_in(w, lr)) {
            *quantity = word_in(w, loss) ? RF_TB_LOSS : word_in(w, accuracy) ? RF_TB_ACCURACY : RF_TB_LR;
            quantities++;
        } else if (strcmp(w, "learning") == 0 && words[i + 1] != NULL && strcmp(words[i + 1], "rate") == 0) {
            *quantity = RF_TB_LR;
            quantities++;
            i++;
        } else {
            (*extra)++;
        }
    }
    return splits <= 1 && quantities == 1 && (*quantity != RF_TB_LR || *split == RF_SPLIT_TRAIN);
}

/* The series drawn for each split and quantity, or NULL. */
typedef struct matched {
    const rf_tb_series *series[3][RF_TB_QUANTITIES];
    int extra[3][RF_TB_QUANTITIES];
} matched;

static void match_tags(const rf_tb_run *run, matched *m)
{
    memset(m, 0, sizeof *m);
    for (guint i = 0; i < run->series->len; i++) {
        const rf_tb_series *s = g_ptr_array_index(run->series, i);
        rf_split split;
        rf_tb_quantity q = RF_TB_LOSS;
        int extra;
        if (!rf_tb_tag_meaning(s->tag, &split, &q, &extra) || s->points->len == 0)
            continue;
        if (m->series[split][q] == NULL || extra < m->extra[split][q]) {
            m->series[split][q] = s;
            m->extra[split][q] = extra;
        }
    }
}

static gint compare_rows(gconstpointer a, gconstpointer b)
{
    const rf_metrics *x = a, *y = b;
    if (x->step != y->step)
        return x->step < y->step ? -1 : 1;
    return (int)x->split - (int)y->split;
}

/* The row of `split` at `step` in `rows` (made if new); `index[split]`
 * maps steps to row numbers + 1. */
static rf_metrics *row_at(GArray *rows, GHashTable *const *index, rf_split split, int64_t step)
{
    guint at = GPOINTER_TO_UINT(g_hash_table_lookup(index[split], &step));
    if (at > 0)
        return &g_array_index(rows, rf_metrics, at - 1);
    rf_metrics m = {.step = step, .split = split, .loss = NAN, .accuracy = NAN, .lr = NAN, .grad_norm = NAN,
                    .seconds = NAN, .step_seconds = NAN, .data_wait = NAN};
    g_array_append_val(rows, m);
    g_hash_table_insert(index[split], g_memdup2(&step, sizeof step), GUINT_TO_POINTER(rows->len));
    return &g_array_index(rows, rf_metrics, rows->len - 1);
}

rf_run_data *rf_run_data_from_tensorboard(const rf_tb_run *run, GError **error)
{
    matched m;
    match_tags(run, &m);
    gboolean any = FALSE;
    double t0 = INFINITY;
    for (int split = 0; split < 3; split++)
        for (int q = 0; q < RF_TB_QUANTITIES; q++)
            for (guint i = 0; m.series[split][q] != NULL && i < m.series[split][q]->points->len; i++) {
                double t = g_array_index(m.series[split][q]->points, rf_tb_point, i).wall_time;
                any = TRUE;
                if (isfinite(t))
                    t0 = fmin(t0, t);
            }
    if (!any) {
        g_autoptr(GString) tags = g_string_new(NULL);
        for (guint i = 0; i < run->series->len && i < 8; i++)
            g_string_append_printf(tags, "%s%s", i > 0 ? ", " : "", ((rf_tb_series *)run->series->pdata[i])->tag);
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                    "%s: its TensorBoard event files hold no loss, accuracy or learning-rate scalars (tags: %s)",
                    run->dir, tags->len > 0 ? tags->str : "none");
        return NULL;
    }
    g_autofree char *base = g_path_get_basename(run->dir);
    g_autoptr(rf_run_data) r = rf_run_data_new(base, NULL);
    r->dir = g_strdup(run->dir);
    r->color = rf_run_folder_color(run->dir);
    r->tensorboard = TRUE;
    GHashTable *index[3];
    for (int split = 0; split < 3; split++)
        index[split] = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    for (int split = 0; split < 3; split++)
        for (int q = 0; q < RF_TB_QUANTITIES; q++) {
            const rf_tb_series *s = m.series[split][q];
            for (guint i = 0; s != NULL && i < s->points->len; i++) {
                rf_tb_point p = g_array_index(s->points, rf_tb_point, i);
                rf_metrics *row = row_at(r->rows, index, (rf_split)split, p.step);
                double *field = q == RF_TB_LOSS ? &row->loss : q == RF_TB_ACCURACY ? &row->accuracy : &row->lr;
                *field = p.value;
                double since = p.wall_time - t0;
                if (isfinite(since))
                    row->seconds = isfinite(row->seconds) ? fmax(row->seconds, since) : since;
            }
        }
    for (int split = 0; split < 3; split++)
        g_hash_table_unref(index[split]);
    g_array_sort(r->rows, compare_rows);
    rf_run_data_update_summary(r);
    return g_steal_pointer(&r);
}

rf_run_data *rf_run_data_load_tensorboard(const char *dir, GError **error)
{
    g_autoptr(rf_tb_run) run = rf_tb_run_read(dir, error);
    return run != NULL ? rf_run_data_from_tensorboard(run, error) : NULL;
}
