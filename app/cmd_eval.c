/* `rangefinder eval`: loss and accuracy of a checkpoint on a whole split. */
#include <stdio.h>

#include "../core/checkpoint.h"
#include "../core/train.h"
#include "../datasets/datasets.h"
#include "cli.h"
#include "commands.h"
#include "config_diff.h"
#include "config_file.h"
#include "json_line.h"

typedef struct eval_job {
    rf_dataset *ds;
    rf_trainer *trainer;
} eval_job;

static gboolean evaluate(eval_job *job, const char *checkpoint, const char *const *sets, rf_split split,
                         rf_metrics *out, GError **error)
{
    if (!g_file_test(checkpoint, G_FILE_TEST_EXISTS)) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, "%s: no such file", checkpoint);
        return FALSE;
    }
    rf_config saved, cfg;
    rf_config_defaults(&saved);
    int64_t step = 0;
    rf_status st = {0};
    if (!rf_checkpoint_read_config(checkpoint, &saved, &step, &st))
        return rf_cli_fail_status(error, &st);
    cfg = saved;
    if (!rf_config_apply_sets(&cfg, sets, error) ||
        !rf_config_check_changes(&saved, &cfg, RF_CHANGE_KEEP_MODEL, error) ||
        !rf_config_check(&cfg, checkpoint, error))
        return FALSE;
    job->ds = rf_dataset_open(&cfg, &st);
    if (job->ds == NULL)
        return rf_cli_fail_status(error, &st);
    job->trainer = rf_trainer_new(&cfg, job->ds, &st);
    if (job->trainer == NULL || !rf_trainer_load(job->trainer, checkpoint, &st) ||
        !rf_trainer_evaluate(job->trainer, split, 0, out, &st))
        return rf_cli_fail_status(error, &st);
    return TRUE;
}

int rf_cmd_eval(int argc, char **argv)
{
    g_autofree char *checkpoint = NULL, *split_name = NULL;
    g_auto(GStrv) sets = NULL;
    gboolean json = FALSE;
    const GOptionEntry entries[] = {
        {"checkpoint", 'k', 0, G_OPTION_ARG_FILENAME, &checkpoint, "Checkpoint to evaluate", "FILE"},
        {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Override one key (repeatable; not the model's)",
         "SECTION.KEY=VALUE"},
        {"split", 0, 0, G_OPTION_ARG_STRING, &split_name, "Split to evaluate: test (default) or val", "SPLIT"},
        {"json", 0, 0, G_OPTION_ARG_NONE, &json, "Print one JSON object", NULL},
        G_OPTION_ENTRY_NULL,
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_summary(ctx,
        "Evaluate a checkpoint on the whole test (or val) split, with the config saved in it.\n"
        "--set may change keys that do not shape the model, e.g. data.batch or train.threads.");
    g_option_context_set_description(ctx,
        "Example:\n  rangefinder eval --checkpoint runs/default/checkpoint.safetensors --json\n");

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

    eval_job job = {0};
    rf_metrics m;
    int code = RF_EXIT_OK;
    if (evaluate(&job, checkpoint, (const char *const *)sets, split, &m, &error)) {
        int64_t samples = job.ds->size[split];
        if (json) {
            rf_json_line j;
            rf_json_begin(&j);
            rf_json_str(&j, "split", rf_split_name(split));
            rf_json_num(&j, "loss", m.loss);
            rf_json_num(&j, "accuracy", m.accuracy);
            rf_json_int(&j, "samples", samples);
            rf_json_int(&j, "step", m.step);
            rf_json_print(&j);
        } else {
            printf("%s loss %.3f accuracy %.3f (%lld samples)\n", rf_split_name(split), m.loss, m.accuracy,
                   (long long)samples);
        }
    } else {
        code = rf_cli_report(error);
    }
    rf_trainer_free(job.trainer);
    rf_dataset_free(job.ds);
    return code;
}
