/* `rangefinder project`: a checkpoint's pooled representations (or BLRP's
 * latent states) for a split's first samples, reduced by PCA to 2 or 3
 * coordinates, as CSV, and in TensorBoard's embedding projector format. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/kept_weights.h"
#include "../core/pca.h"
#include "../datasets/projection_tensorboard.h"
#include "cli.h"
#include "commands.h"
#include "json_line.h"
#include "saved_model.h"

static void print_summary(const rf_saved_model *sm, rf_split split, const rf_projection *p, const rf_pca *pca,
                          gboolean json)
{
    int64_t right = 0;
    for (int64_t i = 0; i < p->count; i++)
        right += p->label[i] == p->predicted[i];
    if (json) {
        rf_json_line j;
        rf_json_begin(&j);
        rf_json_str(&j, "split", rf_split_name(split));
        rf_json_int(&j, "step", sm->step);
        rf_json_str(&j, "tap", p->tap);
        rf_json_int(&j, "samples", p->count);
        rf_json_int(&j, "width", p->width);
        rf_json_num(&j, "accuracy", (double)right / (double)p->count);
        float explained[3];
        for (int k = 0; k < pca->dims; k++)
            explained[k] = (float)pca->explained[k];
        rf_json_num_array(&j, "explained", explained, pca->dims);
        rf_json_print(&j);
        return;
    }
    printf("%s: %lld %s samples, %d numbers each, accuracy %.3f\n", p->tap, (long long)p->count,
           rf_split_name(split), p->width, (double)right / (double)p->count);
    for (int k = 0; k < pca->dims; k++)
        printf("pc%d explains %.1f%% of the variance\n", k + 1, 100.0 * pca->explained[k]);
}

/* --step N: the weights the checkpoint's run folder kept at step N
 * (core/kept_weights.h), or NULL and an error listing the kept steps. */
static char *kept_step_path(const char *checkpoint, gint64 step, GError **error)
{
    g_autofree char *run = g_path_get_dirname(checkpoint);
    g_autofree char *base = g_path_get_basename(run);
    if (strcmp(base, RF_KEPT_WEIGHTS_DIR) == 0) {   /* --checkpoint named a kept weights file */
        char *up = g_path_get_dirname(run);
        g_free(run);
        run = up;
    }
    int64_t *steps = NULL;
    int n = 0;
    rf_status st = {0};
    if (!rf_kept_weights_list(run, &steps, &n, &st)) {
        rf_cli_fail_status(error, &st);
        return NULL;
    }
    gboolean found = FALSE;
    g_autoptr(GString) kept = g_string_new(NULL);
    for (int i = 0; i < n; i++) {
        found = found || steps[i] == step;
        g_string_append_printf(kept, "%s%lld", i == 0 ? "" : i == n - 1 ? " and " : ", ", (long long)steps[i]);
    }
    free(steps);
    char path[4096];
    if (found && rf_kept_weights_path(run, step, path, sizeof path))
        return g_strdup(path);
    if (n == 0)
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED,
                    "--step %lld: %s keeps no weights of earlier evaluations (train.keep_weights = 0, or a run "
                    "from before they were kept)", (long long)step, run);
    else
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, "--step %lld: %s keeps no weights of that step, "
                    "only of step%s %s", (long long)step, run, n == 1 ? "" : "s", kept->str);
    return NULL;
}

int rf_cmd_project(int argc, char **argv)
{
    g_autofree char *checkpoint = NULL, *split_name = NULL, *what_name = NULL, *out = NULL, *tb = NULL;
    g_auto(GStrv) sets = NULL;
    gint samples = RF_PROJECTION_DEFAULT_SAMPLES, dims = 2;
    gint64 step = -1;
    gboolean json = FALSE;
    const GOptionEntry entries[] = {
        {"checkpoint", 'k', 0, G_OPTION_ARG_FILENAME, &checkpoint, "Checkpoint to read", "FILE"},
        {"step", 0, 0, G_OPTION_ARG_INT64, &step,
         "The weights the checkpoint's run folder kept at evaluation step N (RUN/weights/step-N.safetensors)",
         "N"},
        {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Override one key (repeatable; not the model's)",
         "SECTION.KEY=VALUE"},
        {"split", 0, 0, G_OPTION_ARG_STRING, &split_name, "Split to read: val (default) or test", "SPLIT"},
        {"samples", 'n', 0, G_OPTION_ARG_INT, &samples, "The split's first N samples (default 2000, at most 10000)",
         "N"},
        {"what", 0, 0, G_OPTION_ARG_STRING, &what_name,
         "pool (default: the pooled representation, the head's input) or latent (BLRP's final latent state)",
         "WHAT"},
        {"dims", 0, 0, G_OPTION_ARG_INT, &dims, "Principal components to keep: 2 (default) or 3", "N"},
        {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
         "Write the coordinates as CSV (index,label,prediction,correct,length,pc1,pc2[,pc3])", "FILE"},
        {"tensorboard", 0, 0, G_OPTION_ARG_FILENAME, &tb,
         "Write tensors.tsv, metadata.tsv and projector_config.pbtxt (TensorBoard's projector) into DIR", "DIR"},
        {"json", 0, 0, G_OPTION_ARG_NONE, &json, "Print one JSON object", NULL},
        G_OPTION_ENTRY_NULL,
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_summary(ctx,
        "Read a checkpoint's pooled representation (the head's input), or BLRP's final latent state,\n"
        "for the first samples of the val (or test) split, forward only, and reduce them by PCA to 2\n"
        "or 3 coordinates. Prints each component's share of the variance; writes the coordinates\n"
        "with each sample's label, prediction and length, and the full vectors in TensorBoard's\n"
        "embedding projector format.");
    g_option_context_set_description(ctx,
        "Examples:\n  rangefinder project --checkpoint runs/default/checkpoint.safetensors --out points.csv\n"
        "  rangefinder project --checkpoint runs/blrp/checkpoint.safetensors --what latent --dims 3 \\\n"
        "      --tensorboard runs/blrp/projector\n"
        "  tensorboard --logdir runs/blrp/projector\n"
        "  rangefinder project --checkpoint runs/default/checkpoint.safetensors --step 500 --out step500.csv\n");

    g_autoptr(GError) error = NULL;
    if (!rf_cli_parse(ctx, "project", &argc, &argv, &error))
        return rf_cli_report(error);
    rf_split split = RF_SPLIT_VAL;
    rf_projection_what what = RF_PROJECTION_POOL;
    if (split_name != NULL && !rf_cli_parse_split(split_name, &split, &error))
        return rf_cli_report(error);
    if (checkpoint == NULL)
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE,
                    "project needs --checkpoint FILE (see `rangefinder project --help`)");
    else if (what_name != NULL && !rf_projection_what_parse(what_name, &what))
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "--what %s: pool or latent", what_name);
    else if (dims != 2 && dims != 3)
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "--dims %d: 2 or 3", dims);
    else if (samples < 1 || samples > RF_PROJECTION_MAX_SAMPLES)
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "--samples %d: 1 to %d", samples,
                    RF_PROJECTION_MAX_SAMPLES);
    else if (step != -1 && step < 0)
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "--step %lld: a step of the run, 0 or more",
                    (long long)step);
    if (error != NULL)
        return rf_cli_report(error);
    if (step >= 0) {
        char *kept = kept_step_path(checkpoint, step, &error);
        if (kept == NULL)
            return rf_cli_report(error);
        g_free(checkpoint);
        checkpoint = kept;
    }

    rf_saved_model sm;
    rf_projection p = {0};
    rf_pca pca = {0};
    rf_status st = {0};
    g_autofree float *coords = NULL;
    gboolean ok = rf_saved_model_open(&sm, checkpoint, (const char *const *)sets, TRUE, &error);
    if (ok && !(rf_projection_collect(sm.trainer, sm.ds, split, samples, what, &p, &st) &&
                rf_pca_fit(p.vectors, p.count, p.width, dims, &pca, &st)))
        ok = rf_cli_fail_status(&error, &st);
    if (ok) {
        coords = g_new(float, (size_t)p.count * (size_t)pca.dims);
        rf_pca_project(&pca, p.vectors, p.count, coords);
        if ((out != NULL && !rf_projection_write_csv(&p, coords, pca.dims, out, &st)) ||
            (tb != NULL && !rf_projection_write_tensorboard(&p, tb, &st)))
            ok = rf_cli_fail_status(&error, &st);
    }
    int code = RF_EXIT_OK;
    if (ok)
        print_summary(&sm, split, &p, &pca, json);
    else
        code = rf_cli_report(error);
    rf_pca_clear(&pca);
    rf_projection_clear(&p);
    rf_saved_model_clear(&sm);
    return code;
}
