#include "eval_slices_report.h"

#include <stdio.h>
#include <string.h>

#include "../core/atomic_file.h"
#include "cli.h"

gboolean rf_eval_slices_run(rf_saved_model *sm, rf_split split, rf_eval_slices *out, GError **error)
{
    int window = rf_trainer_model(sm->trainer)->batch * RF_LENGTH_BUCKETS;
    rf_status st = {0};
    rf_eval_trainer classify = {sm->trainer};
    /* baselines for token data with training samples, as eval's own */
    rf_baseline_rules rules;
    bool have_rules = sm->ds->feat_dim == 0 && rf_baseline_rules_fit(sm->ds, &rules, &st);
    rf_status_clear(&st);
    bool ok = rf_eval_slices_measure(sm->ds, split, sm->cfg.data.concat, have_rules ? &rules : NULL, window,
                                     rf_eval_classify_trainer, &classify, out, &st);
    out->rules = NULL;   /* borrowed for the measuring only */
    if (have_rules)
        rf_baseline_rules_clear(&rules);
    return ok || rf_cli_fail_status(error, &st);
}

static double accuracy(int64_t right, int64_t samples) { return samples > 0 ? (double)right / (double)samples : 0; }

void rf_eval_slices_print(const rf_eval_slices *s)
{
    int c = s->classes;
    char name[64];
    printf("confusion matrix (rows: the label, columns: the model's answer):\n%12s", "");
    for (int k = 0; k < c; k++) {
        rf_eval_slices_class_name(s, k, name, sizeof name);
        printf(" %7.7s", name);
    }
    printf("\n");
    for (int i = 0; i < c; i++) {
        rf_eval_slices_class_name(s, i, name, sizeof name);
        printf("  %-10.10s", name);
        for (int k = 0; k < c; k++)
            printf(" %7lld", (long long)s->confusion[(size_t)i * c + k]);
        printf("\n");
    }
    printf("per class (0 where nothing was labelled or answered so):\n  %-10s %7s %9s %7s %7s\n", "class",
           "samples", "precision", "recall", "F1");
    for (int k = 0; k < c; k++) {
        int64_t labelled = 0;
        for (int i = 0; i < c; i++)
            labelled += s->confusion[(size_t)k * c + i];
        rf_eval_slices_class_name(s, k, name, sizeof name);
        printf("  %-10.10s %7lld %9.3f %7.3f %7.3f\n", name, (long long)labelled, s->precision[k], s->recall[k],
               s->f1[k]);
    }
    for (int kind = 0; kind < RF_SLICE_KINDS; kind++) {
        const rf_slice_groups *sl = &s->slices[kind];
        if (sl->count == 0)
            continue;
        printf("accuracy by %s%s:\n", rf_slice_kind_name(kind),
               s->baselines ? " (and without the model: the majority class, each first token's class)" : "");
        for (int g = 0; g < sl->count; g++) {
            const rf_slice_group *gr = &sl->groups[g];
            printf("  %-12s %7lld samples  accuracy %.3f", gr->name, (long long)gr->samples,
                   accuracy(gr->right, gr->samples));
            if (s->baselines)
                printf("  without the model %.3f, %.3f", accuracy(gr->right_majority, gr->samples),
                       accuracy(gr->right_first, gr->samples));
            printf("\n");
        }
    }
}

void rf_eval_slices_json(const rf_eval_slices *s, rf_json_line *j)
{
    int c = s->classes;
    char name[64];
    g_autoptr(GString) matrix = g_string_new("[");
    for (int i = 0; i < c; i++) {
        g_string_append_printf(matrix, "%s[", i > 0 ? "," : "");
        for (int k = 0; k < c; k++)
            g_string_append_printf(matrix, "%s%lld", k > 0 ? "," : "", (long long)s->confusion[(size_t)i * c + k]);
        g_string_append_c(matrix, ']');
    }
    g_string_append_c(matrix, ']');
    rf_json_raw(j, "confusion", matrix->str);

    g_autoptr(GString) classes = g_string_new("[");
    for (int k = 0; k < c; k++) {
        int64_t labelled = 0;
        for (int i = 0; i < c; i++)
            labelled += s->confusion[(size_t)k * c + i];
        rf_eval_slices_class_name(s, k, name, sizeof name);
        rf_json_line row;
        rf_json_begin(&row);
        rf_json_str(&row, "class", name);
        rf_json_int(&row, "samples", labelled);
        rf_json_num(&row, "precision", s->precision[k]);
        rf_json_num(&row, "recall", s->recall[k]);
        rf_json_num(&row, "f1", s->f1[k]);
        g_autofree char *text = rf_json_end(&row);
        g_string_append_printf(classes, "%s%s", k > 0 ? "," : "", text);
    }
    g_string_append_c(classes, ']');
    rf_json_raw(j, "per_class", classes->str);

    rf_json_line slices;
    rf_json_begin(&slices);
    for (int kind = 0; kind < RF_SLICE_KINDS; kind++) {
        const rf_slice_groups *sl = &s->slices[kind];
        if (sl->count == 0)
            continue;
        g_autoptr(GString) groups = g_string_new("[");
        for (int g = 0; g < sl->count; g++) {
            rf_json_line row;
            rf_json_begin(&row);
            rf_json_str(&row, "group", sl->groups[g].name);
            rf_json_int(&row, "samples", sl->groups[g].samples);
            rf_json_int(&row, "right", sl->groups[g].right);
            rf_json_num(&row, "accuracy", accuracy(sl->groups[g].right, sl->groups[g].samples));
            if (s->baselines) {
                rf_json_num(&row, "baseline_majority", accuracy(sl->groups[g].right_majority, sl->groups[g].samples));
                rf_json_num(&row, "baseline_first_token", accuracy(sl->groups[g].right_first, sl->groups[g].samples));
            }
            g_autofree char *text = rf_json_end(&row);
            g_string_append_printf(groups, "%s%s", g > 0 ? "," : "", text);
        }
        g_string_append_c(groups, ']');
        rf_json_raw(&slices, rf_slice_kind_name(kind), groups->str);
    }
    g_autofree char *text = rf_json_end(&slices);
    rf_json_raw(j, "slices", text);
}

gboolean rf_eval_slices_write_csv(const rf_eval_slices *s, const char *path, GError **error)
{
    g_autofree char *text = rf_eval_slices_csv(s);
    rf_status st = {0};
    if (!rf_atomic_write_bytes(path, text, strlen(text), &st))
        return rf_cli_fail_status(error, &st);
    return TRUE;
}
