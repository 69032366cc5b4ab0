#include "eval_slices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/model.h"
#include "listops.h"

const char *rf_slice_kind_name(rf_slice_kind kind)
{
    static const char *const names[RF_SLICE_KINDS] = {"operator", "depth", "length", "class", "concat"};
    return kind >= 0 && kind < RF_SLICE_KINDS ? names[kind] : "?";
}

void rf_eval_slices_init(rf_eval_slices *s, const rf_dataset *ds, int concat, const rf_baseline_rules *rules)
{
    *s = (rf_eval_slices){
        .classes = ds->classes,
        .listops = ds->feat_dim == 0 && (strcmp(ds->name, "listops") == 0 || strcmp(ds->name, "lra_tsv") == 0),
        .by_class = ds->feat_dim > 0,
        .concat = concat,
        .class_names = ds->class_names,
        .rules = rules,
        .baselines = rules != NULL,
    };
    size_t c = (size_t)ds->classes;
    s->confusion = g_new0(int64_t, c * c);
    s->precision = g_new0(double, c);
    s->recall = g_new0(double, c);
    s->f1 = g_new0(double, c);
    s->labels = g_array_new(FALSE, FALSE, sizeof(int));
    s->answers = g_array_new(FALSE, FALSE, sizeof(int));
}

void rf_eval_slices_clear(rf_eval_slices *s)
{
    g_free(s->confusion);
    g_free(s->precision);
    g_free(s->recall);
    g_free(s->f1);
    if (s->labels != NULL)
        g_array_unref(s->labels);
    if (s->answers != NULL)
        g_array_unref(s->answers);
    for (int k = 0; k < RF_SLICE_KINDS; k++)
        g_free(s->slices[k].groups);
    *s = (rf_eval_slices){0};
}

void rf_eval_slices_class_name(const rf_eval_slices *s, int k, char *buf, size_t size)
{
    if (s->class_names != NULL && s->class_names[k] != NULL)
        g_strlcpy(buf, s->class_names[k], size);
    else
        snprintf(buf, size, "%d", k);
}

/* The group of `key` in `slice`, inserted in key order on first sight. */
static rf_slice_group *group_of(rf_slice_groups *slice, int key)
{
    int at = 0;
    while (at < slice->count && slice->groups[at].key < key)
        at++;
    if (at < slice->count && slice->groups[at].key == key)
        return &slice->groups[at];
    slice->groups = g_renew(rf_slice_group, slice->groups, slice->count + 1);
    memmove(&slice->groups[at + 1], &slice->groups[at], (size_t)(slice->count - at) * sizeof *slice->groups);
    slice->count++;
    slice->groups[at] = (rf_slice_group){.key = key};
    return &slice->groups[at];
}

/* Which of the model and the two rules answered a sample right. */
typedef struct rights {
    bool model, majority, first;
} rights;

static void count_in(rf_slice_groups *slice, int key, const char *name, rights r)
{
    rf_slice_group *g = group_of(slice, key);
    if (g->samples == 0)
        g_strlcpy(g->name, name, sizeof g->name);
    g->samples++;
    g->right += r.model;
    g->right_majority += r.majority;
    g->right_first += r.first;
}

/* The deepest bracket nesting of a ListOps token sequence. */
static int nesting_depth(const float *x, int len)
{
    int depth = 0, deepest = 0;
    for (int i = 0; i < len; i++) {
        int id = (int)x[i];
        if (id >= RF_LISTOPS_MIN && id <= RF_LISTOPS_SM) {
            depth++;
            deepest = MAX(deepest, depth);
        } else if (id == RF_LISTOPS_CLOSE)
            depth--;
    }
    return deepest;
}

/* The top of len's power-of-two bucket, and its name ("65-128"). */
static int length_bucket(int len, char *name, size_t size)
{
    int top = 1;
    while (top < len)
        top *= 2;
    if (top <= 2)
        snprintf(name, size, "%d", top);
    else
        snprintf(name, size, "%d-%d", top / 2 + 1, top);
    return top;
}

void rf_eval_slices_add(rf_eval_slices *s, const float *x, int len, int label, int answer)
{
    rights right = {.model = label == answer};
    if (s->rules != NULL) {
        right.majority = label == s->rules->majority;
        right.first = label == rf_baseline_rules_first_token(s->rules, len > 0 ? (int)x[0] : -1);
    }
    s->samples++;
    s->right += right.model;
    s->right_majority += right.majority;
    s->right_first += right.first;
    s->confusion[(size_t)label * (size_t)s->classes + (size_t)answer]++;
    g_array_append_val(s->labels, label);
    g_array_append_val(s->answers, answer);
    char name[40];
    if (s->listops) {
        int first = len > 0 ? (int)x[0] : 0;
        bool op = first >= RF_LISTOPS_MIN && first <= RF_LISTOPS_SM;
        count_in(&s->slices[RF_SLICE_OPERATOR], op ? first : RF_LISTOPS_DIGIT0,
                 op ? rf_listops_token_text(first) : "digit", right);
        int depth = nesting_depth(x, len);
        snprintf(name, sizeof name, "depth %d", depth);
        count_in(&s->slices[RF_SLICE_DEPTH], depth, name, right);
    }
    int top = length_bucket(len, name, sizeof name);
    count_in(&s->slices[RF_SLICE_LENGTH], top, name, right);
    if (s->by_class) {
        rf_eval_slices_class_name(s, label, name, sizeof name);
        count_in(&s->slices[RF_SLICE_CLASS], label, name, right);
    }
    snprintf(name, sizeof name, "K=%d", s->concat);
    count_in(&s->slices[RF_SLICE_CONCAT], s->concat, name, right);
}

static double ratio(int64_t num, int64_t den) { return den > 0 ? (double)num / (double)den : 0.0; }

void rf_eval_slices_finish(rf_eval_slices *s)
{
    int c = s->classes;
    for (int k = 0; k < c; k++) {
        int64_t answered = 0, labelled = 0;
        for (int i = 0; i < c; i++) {
            answered += s->confusion[(size_t)i * c + k];
            labelled += s->confusion[(size_t)k * c + i];
        }
        int64_t hit = s->confusion[(size_t)k * c + k];
        double p = ratio(hit, answered), r = ratio(hit, labelled);
        s->precision[k] = p;
        s->recall[k] = r;
        s->f1[k] = p + r > 0 ? 2 * p * r / (p + r) : 0.0;
    }
}

int64_t *rf_eval_slices_cell(const rf_eval_slices *s, int label, int answer, int64_t *count)
{
    int64_t n = s->samples;
    int64_t *out = g_new(int64_t, MAX(n, 1)), found = 0;
    for (int64_t i = 0; i < n; i++)
        if (g_array_index(s->labels, int, i) == label && g_array_index(s->answers, int, i) == answer)
            out[found++] = i;
    *count = found;
    return out;
}

bool rf_eval_classify_trainer(void *ctx, const rf_outside_input *in, int rows, float *probs, rf_status *st)
{
    const rf_eval_trainer *e = ctx;
    return rf_trainer_predict_all(e->trainer, in, rows, probs, st);
}

bool rf_eval_slices_measure(const rf_dataset *ds, rf_split split, int concat, const rf_baseline_rules *rules,
                            int window, rf_eval_classify classify, void *ctx, rf_eval_slices *s, rf_status *st)
{
    rf_eval_slices_init(s, ds, concat, rules);
    size_t row = (size_t)ds->seq_len * (size_t)MAX(1, ds->feat_dim);
    int64_t n = ds->size[split];
    window = MAX(1, window);
    g_autofree float *x = g_new0(float, (size_t)window * row);
    g_autofree float *probs = g_new(float, (size_t)window * (size_t)ds->classes);
    g_autofree rf_outside_input *in = g_new(rf_outside_input, window);
    g_autofree int *labels = g_new(int, window);
    for (int64_t first = 0; first < n; first += window) {
        int rows = (int)MIN((int64_t)window, n - first);
        for (int r = 0; r < rows; r++) {
            float *xr = x + (size_t)r * row;
            memset(xr, 0, row * sizeof *xr);
            if (!ds->get(ds, split, first + r, xr, &in[r].len, &labels[r], st))
                return false;
            if (labels[r] < 0 || labels[r] >= ds->classes)
                return rf_fail(st, "%s %s sample %lld: label %d outside 0..%d", ds->name, rf_split_name(split),
                               (long long)(first + r), labels[r], ds->classes - 1);
            in[r].x = xr;
        }
        if (!classify(ctx, in, rows, probs, st))
            return false;
        for (int r = 0; r < rows; r++) {
            const float *p = probs + (size_t)r * (size_t)ds->classes;
            int best = 0;
            for (int k = 1; k < ds->classes; k++)
                best = p[k] > p[best] ? k : best;
            rf_eval_slices_add(s, in[r].x, in[r].len, labels[r], best);
        }
    }
    rf_eval_slices_finish(s);
    return true;
}

/* A CSV field, quoted when it holds a comma, a quote or a line break. */
static void csv_field(GString *out, const char *text)
{
    if (strpbrk(text, ",\"\r\n") == NULL) {
        g_string_append(out, text);
        return;
    }
    g_string_append_c(out, '"');
    for (const char *p = text; *p != '\0'; p++) {
        if (*p == '"')
            g_string_append_c(out, '"');
        g_string_append_c(out, *p);
    }
    g_string_append_c(out, '"');
}

static void csv_row(GString *out, const char *table, const char *row, const char *column, double value)
{
    csv_field(out, table);
    g_string_append_c(out, ',');
    csv_field(out, row);
    g_string_append_c(out, ',');
    csv_field(out, column);
    char num[G_ASCII_DTOSTR_BUF_SIZE];
    g_string_append_printf(out, ",%s\n", g_ascii_formatd(num, sizeof num, "%.10g", value));
}

char *rf_eval_slices_csv(const rf_eval_slices *s)
{
    int c = s->classes;
    char name[64], other[64], table[48];
    g_autoptr(GString) out = g_string_new("table,row,column,value\n");
    for (int i = 0; i < c; i++) {
        rf_eval_slices_class_name(s, i, name, sizeof name);
        for (int k = 0; k < c; k++) {
            rf_eval_slices_class_name(s, k, other, sizeof other);
            csv_row(out, "confusion", name, other, (double)s->confusion[(size_t)i * c + k]);
        }
    }
    for (int k = 0; k < c; k++) {
        int64_t labelled = 0;
        for (int i = 0; i < c; i++)
            labelled += s->confusion[(size_t)k * c + i];
        rf_eval_slices_class_name(s, k, name, sizeof name);
        csv_row(out, "class", name, "samples", (double)labelled);
        csv_row(out, "class", name, "precision", s->precision[k]);
        csv_row(out, "class", name, "recall", s->recall[k]);
        csv_row(out, "class", name, "f1", s->f1[k]);
    }
    for (int kind = 0; kind < RF_SLICE_KINDS; kind++) {
        const rf_slice_groups *sl = &s->slices[kind];
        snprintf(table, sizeof table, "slice:%s", rf_slice_kind_name(kind));
        for (int g = 0; g < sl->count; g++) {
            const rf_slice_group *gr = &sl->groups[g];
            csv_row(out, table, gr->name, "samples", (double)gr->samples);
            csv_row(out, table, gr->name, "right", (double)gr->right);
            csv_row(out, table, gr->name, "accuracy", gr->samples > 0 ? (double)gr->right / (double)gr->samples : 0.0);
            if (s->baselines) {
                csv_row(out, table, gr->name, "baseline_majority", (double)gr->right_majority / (double)gr->samples);
                csv_row(out, table, gr->name, "baseline_first_token", (double)gr->right_first / (double)gr->samples);
            }
        }
    }
    return g_string_free(g_steal_pointer(&out), FALSE);
}
