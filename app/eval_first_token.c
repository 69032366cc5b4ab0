#include "eval_first_token.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The group of `token`, made on first sight with the sample's text. */
static rf_first_token_group *group_of(rf_first_token_table *t, GHashTable *index, const rf_dataset *ds,
                                      rf_split split, int64_t sample, int token)
{
    gpointer found = g_hash_table_lookup(index, GINT_TO_POINTER(token + 1));
    if (found != NULL)
        return &t->groups[GPOINTER_TO_INT(found) - 1];
    t->groups = g_renew(rf_first_token_group, t->groups, t->count + 1);
    rf_first_token_group *g = &t->groups[t->count];
    *g = (rf_first_token_group){.token = token, .answers = g_new0(int64_t, t->classes)};
    char text[64] = "";
    if (ds->describe != NULL && ds->describe(ds, split, sample, text, sizeof text) && text[0] != '\0') {
        text[strcspn(text, " \t")] = '\0';
        g_strlcpy(g->name, text, sizeof g->name);
    } else {
        snprintf(g->name, sizeof g->name, "token %d", token);
    }
    g_hash_table_insert(index, GINT_TO_POINTER(token + 1), GINT_TO_POINTER(t->count + 1));
    t->count++;
    return g;
}

static int by_token(const void *pa, const void *pb)
{
    const rf_first_token_group *a = pa, *b = pb;
    return (a->token > b->token) - (a->token < b->token);
}

gboolean rf_first_token_table_measure(rf_saved_model *sm, rf_split split, rf_first_token_table *out,
                                      GError **error)
{
    const rf_dataset *ds = sm->ds;
    *out = (rf_first_token_table){.classes = ds->classes};
    if (ds->feat_dim > 0) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED,
                    "--by-first-token needs token data; %s gives %d floats a position", ds->name, ds->feat_dim);
        return FALSE;
    }
    int window = rf_trainer_model(sm->trainer)->batch * RF_LENGTH_BUCKETS;
    int64_t n = ds->size[split];
    g_autofree float *x = g_new0(float, (size_t)window * (size_t)ds->seq_len);
    g_autofree float *probs = g_new(float, (size_t)window * (size_t)ds->classes);
    g_autofree rf_outside_input *in = g_new(rf_outside_input, window);
    g_autofree int *labels = g_new(int, window);
    g_autoptr(GHashTable) index = g_hash_table_new(NULL, NULL);
    rf_status st = {0};
    for (int64_t first = 0; first < n; first += window) {
        int rows = (int)MIN((int64_t)window, n - first);
        for (int r = 0; r < rows; r++) {
            float *xr = x + (size_t)r * (size_t)ds->seq_len;
            memset(xr, 0, (size_t)ds->seq_len * sizeof *xr);
            if (!ds->get(ds, split, first + r, xr, &in[r].len, &labels[r], &st))
                return rf_cli_fail_status(error, &st);
            in[r].x = xr;
        }
        if (!rf_saved_model_classify(sm, in, rows, probs, &st))
            return rf_cli_fail_status(error, &st);
        for (int r = 0; r < rows; r++) {
            const float *p = probs + (size_t)r * (size_t)ds->classes;
            int best = 0;
            for (int k = 1; k < ds->classes; k++)
                best = p[k] > p[best] ? k : best;
            rf_first_token_group *g = group_of(out, index, ds, split, first + r, (int)in[r].x[0]);
            g->samples++;
            g->right += best == labels[r];
            g->answers[best]++;
        }
    }
    qsort(out->groups, (size_t)out->count, sizeof *out->groups, by_token);
    return TRUE;
}

void rf_first_token_table_clear(rf_first_token_table *t)
{
    for (int i = 0; i < t->count; i++)
        g_free(t->groups[i].answers);
    g_free(t->groups);
    *t = (rf_first_token_table){0};
}

/* "9: 251, 4: 3": the three most common answers. */
static void top_answers(const rf_first_token_group *g, int classes, char *buf, size_t size)
{
    buf[0] = '\0';
    g_autofree int64_t *left = g_memdup2(g->answers, (gsize)classes * sizeof *left);
    for (int shown = 0; shown < 3; shown++) {
        int best = 0;
        for (int k = 1; k < classes; k++)
            best = left[k] > left[best] ? k : best;
        if (left[best] == 0)
            break;
        size_t len = strlen(buf);
        snprintf(buf + len, size - len, "%s%d: %lld", shown > 0 ? ", " : "", best, (long long)left[best]);
        left[best] = 0;
    }
}

void rf_first_token_table_print(const rf_first_token_table *t)
{
    printf("by first token (the model's accuracy, and its most common answers):\n");
    for (int i = 0; i < t->count; i++) {
        const rf_first_token_group *g = &t->groups[i];
        char answers[128];
        top_answers(g, t->classes, answers, sizeof answers);
        printf("  %-8s %6lld samples  accuracy %.3f  answers %s\n", g->name, (long long)g->samples,
               (double)g->right / (double)g->samples, answers);
    }
}

void rf_first_token_table_json(const rf_first_token_table *t, rf_json_line *j)
{
    g_autoptr(GString) array = g_string_new("[");
    g_autofree float *counts = g_new(float, t->classes);
    for (int i = 0; i < t->count; i++) {
        const rf_first_token_group *g = &t->groups[i];
        rf_json_line row;
        rf_json_begin(&row);
        rf_json_str(&row, "token", g->name);
        rf_json_int(&row, "samples", g->samples);
        rf_json_num(&row, "accuracy", (double)g->right / (double)g->samples);
        for (int k = 0; k < t->classes; k++)
            counts[k] = (float)g->answers[k];
        rf_json_num_array(&row, "answers", counts, t->classes);
        g_autofree char *text = rf_json_end(&row);
        g_string_append_printf(array, "%s%s", i > 0 ? "," : "", text);
    }
    g_string_append_c(array, ']');
    rf_json_raw(j, "by_first_token", array->str);
}
