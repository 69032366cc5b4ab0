/* `rangefinder eval`: loss and accuracy of a checkpoint on a whole split,
 * beside what the labels allow without a model (token data); with --slices
 * where it is right and wrong (a confusion matrix, per class, by slice). */
#include <stdio.h>

#include "../datasets/baselines.h"
#include "cli.h"
#include "commands.h"
#include "eval_first_token.h"
#include "eval_slices_report.h"
#include "json_line.h"
#include "saved_model.h"

int rf_cmd_eval(int argc, char **argv)
{
    g_autofree char *checkpoint = NULL, *split_name = NULL, *csv = NULL;
    g_auto(GStrv) sets = NULL;
    gboolean json = FALSE, by_first_token = FALSE, slices = FALSE;
    const GOptionEntry entries[] = {
        {"checkpoint", 'k', 0, G_OPTION_ARG_FILENAME, &checkpoint, "Checkpoint to evaluate", "FILE"},
        {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Override one key (repeatable; not the model's)",
         "SECTION.KEY=VALUE"},
        {"split", 0, 0, G_OPTION_ARG_STRING, &split_name, "Split to evaluate: test (default) or val", "SPLIT"},
        {"json", 0, 0, G_OPTION_ARG_NONE, &json, "Print one JSON object", NULL},
        {"by-first-token", 0, 0, G_OPTION_ARG_NONE, &by_first_token,
         "Also group the accuracy and the model's answers by each sample's first token (token data; ListOps: "
         "the outermost operator)", NULL},
        {"slices", 0, 0, G_OPTION_ARG_NONE, &slices,
         "Also give the confusion matrix, precision, recall and F1 per class, and the accuracy by slice: length "
         "bucket and data.concat K for every task, outermost operator and depth for ListOps, class for images "
         "and audio", NULL},
        {"csv", 0, 0, G_OPTION_ARG_FILENAME, &csv, "With --slices: also write them to FILE as CSV "
         "(table,row,column,value)", "FILE"},
        G_OPTION_ENTRY_NULL,
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_summary(ctx,
        "Evaluate a checkpoint on the whole test (or val) split, with the config saved in it. For token\n"
        "data it also prints what two rules fitted on the training split score without a model: the\n"
        "majority class, and each first token's majority class (ListOps: the outermost operator's).\n"
        "--set may change any key but model.* (those need a new run): another data set whose input and\n"
        "classes fit the model, data.concat for the length test, data.batch, train.threads.");
    g_option_context_set_description(ctx,
        "Examples:\n  rangefinder eval --checkpoint runs/default/checkpoint.safetensors --json\n"
        "  rangefinder eval --checkpoint runs/default/checkpoint.safetensors --set data.task=lra_tsv \\\n"
        "      --set data.path=lra_release/listops-1000\n"
        "  rangefinder eval --checkpoint runs/default/checkpoint.safetensors --set data.concat=2\n"
        "  rangefinder eval --checkpoint runs/default/checkpoint.safetensors --by-first-token\n"
        "  rangefinder eval --checkpoint runs/default/checkpoint.safetensors --slices --csv slices.csv\n");

    g_autoptr(GError) error = NULL;
    if (!rf_cli_parse(ctx, "eval", &argc, &argv, &error))
        return rf_cli_report(error);
    rf_split split = RF_SPLIT_TEST;
    if (split_name != NULL && !rf_cli_parse_split(split_name, &split, &error))
        return rf_cli_report(error);
    if (checkpoint == NULL) {
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE,
                    "eval needs --checkpoint FILE (see `rangefinder eval --help`)");
        return rf_cli_report(error);
    }
    if (csv != NULL && !slices) {
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "--csv writes what --slices measures: add --slices");
        return rf_cli_report(error);
    }

    rf_saved_model sm;
    rf_metrics m;
    rf_status st = {0};
    int code = RF_EXIT_OK;
    gboolean ok = rf_saved_model_open(&sm, checkpoint, (const char *const *)sets, FALSE, &error);
    if (ok && !rf_trainer_evaluate(sm.trainer, split, 0, &m, &st))
        ok = rf_cli_fail_status(&error, &st);
    rf_baselines base;
    bool have_base = ok && sm.ds->feat_dim == 0 && rf_baselines_measure(sm.ds, split, &base, NULL);
    rf_first_token_table table = {0};
    if (ok && by_first_token)
        ok = rf_first_token_table_measure(&sm, split, &table, &error);
    rf_eval_slices sliced = {0};
    if (ok && slices)
        ok = rf_eval_slices_run(&sm, split, &sliced, &error) &&
             (csv == NULL || rf_eval_slices_write_csv(&sliced, csv, &error));
    if (ok) {
        int64_t samples = sm.ds->size[split];
        if (json) {
            rf_json_line j;
            rf_json_begin(&j);
            rf_json_str(&j, "split", rf_split_name(split));
            rf_json_num(&j, "loss", m.loss);
            rf_json_num(&j, "accuracy", m.accuracy);
            rf_json_int(&j, "samples", samples);
            rf_json_int(&j, "step", sm.step);
            if (have_base) {
                rf_json_num(&j, "baseline_majority", base.majority);
                rf_json_num(&j, "baseline_first_token", base.first_token);
            }
            if (by_first_token)
                rf_first_token_table_json(&table, &j);
            if (slices)
                rf_eval_slices_json(&sliced, &j);
            rf_json_print(&j);
        } else {
            printf("%s loss %.3f accuracy %.3f (%lld samples)\n", rf_split_name(split), m.loss, m.accuracy,
                   (long long)samples);
            if (have_base)
                printf("without the model: %.3f answering the majority class, %.3f answering each first token's\n"
                       "majority class (for ListOps: the outermost operator's)\n",
                       base.majority, base.first_token);
            if (by_first_token)
                rf_first_token_table_print(&table);
            if (slices)
                rf_eval_slices_print(&sliced);
        }
    } else {
        code = rf_cli_report(error);
    }
    rf_first_token_table_clear(&table);
    rf_eval_slices_clear(&sliced);
    rf_saved_model_clear(&sm);
    return code;
}
