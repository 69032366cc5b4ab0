/* `rangefinder predict`: classify a user's own inputs with a checkpoint.
 *
 * Each input (a file, or text: an argument starting with "text:" or given
 * with --text) is featurised by the data set's hook exactly as its samples
 * are, and the model runs forward only (no dropout, no backward, nothing
 * updated; the model is built forward-only, rf_trainer_new_forward) on up
 * to data.batch inputs at a time. One JSON line per input,
 * in order (the INPUT arguments, then the --text strings):
 *   {"input":"cat.png","label":3,"class":"Dress","probabilities":[...]}
 * or, for an input the model cannot take, {"input":..., "error":"..."}
 * with the same sentence on stderr. Inputs are batched shortest first
 * within windows of RF_LENGTH_BUCKETS batches, so that a batch runs only
 * as long as its longest input. Exit status: 0 when every input was
 * classified, 1 when any was refused (the others are still printed), 2 on
 * a usage error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../datasets/featurise.h"
#include "../core/train.h"
#include "cli.h"
#include "commands.h"
#include "json_line.h"
#include "saved_model.h"

#define TEXT_PREFIX "text:"

typedef struct input {
    const char *arg;    /* as given, for the output's "input" */
    const char *path;   /* NULL for text */
    const char *text;
} input;

/* The input as given, as valid UTF-8 for the JSON line (a file name or
 * argument may hold any bytes). */
static void json_input(rf_json_line *j, const input *in)
{
    g_autofree char *valid = g_utf8_make_valid(in->arg, -1);
    rf_json_str(j, "input", valid);
}

static void print_error(const input *in, const char *message)
{
    fprintf(stderr, "rangefinder: %s\n", message);
    rf_json_line j;
    rf_json_begin(&j);
    json_input(&j, in);
    g_autofree char *valid = g_utf8_make_valid(message, -1);
    rf_json_str(&j, "error", valid);
    rf_json_print(&j);
}

static void print_prediction(const rf_dataset *ds, const input *in, const float *probs)
{
    int best = 0;
    for (int k = 1; k < ds->classes; k++)
        best = probs[k] > probs[best] ? k : best;
    rf_json_line j;
    rf_json_begin(&j);
    json_input(&j, in);
    rf_json_int(&j, "label", best);
    rf_json_str(&j, "class", ds->class_names != NULL ? ds->class_names[best] : NULL);
    rf_json_num_array(&j, "probabilities", probs, ds->classes);
    rf_json_print(&j);
}

/* Featurise and classify inputs [0, n), RF_LENGTH_BUCKETS batches' worth
 * at a time (batched by length within that window, so memory stays
 * bounded); refused inputs are reported where they stand, everything in
 * the order given. Returns how many were refused, or -1 when the model
 * itself failed (error set). */
static int predict_all(rf_saved_model *sm, const input *inputs, int n, GError **error)
{
    const rf_dataset *ds = sm->ds;
    int batch = rf_trainer_model(sm->trainer)->batch, window = batch * RF_LENGTH_BUCKETS;
    size_t row = (size_t)ds->seq_len * (size_t)MAX(1, ds->feat_dim);
    g_autofree float *x = g_new(float, (size_t)window * row);
    g_autofree float *probs = g_new(float, (size_t)window * (size_t)ds->classes);
    g_autofree rf_outside_input *in = g_new(rf_outside_input, window);
    g_autofree char **errors = g_new0(char *, window);
    int refused = 0;
    for (int next = 0; next < n;) {
        int rows = 0, first = next;
        for (; next < n && next - first < window; next++) {
            rf_status st = {0};
            float *xr = x + (size_t)rows * row;
            if (rf_dataset_featurise(ds, inputs[next].path, inputs[next].text, xr, &in[rows].len, &st)) {
                in[rows++].x = xr;
            } else {
                errors[next - first] = g_strdup(st.msg);
                refused++;
            }
        }
        rf_status st = {0};
        bool ok = rows == 0 || rf_saved_model_classify(sm, in, rows, probs, &st);
        for (int i = first, r = 0; i < next; i++) {
            if (ok && errors[i - first] != NULL)
                print_error(&inputs[i], errors[i - first]);
            else if (ok)
                print_prediction(ds, &inputs[i], probs + (size_t)r++ * ds->classes);
            g_clear_pointer(&errors[i - first], g_free);
        }
        if (!ok) {
            rf_cli_fail_status(error, &st);
            return -1;
        }
    }
    return refused;
}

int rf_cmd_predict(int argc, char **argv)
{
    g_autofree char *checkpoint = NULL;
    g_auto(GStrv) sets = NULL, texts = NULL, args = NULL;
    const GOptionEntry entries[] = {
        {"checkpoint", 'k', 0, G_OPTION_ARG_FILENAME, &checkpoint, "Checkpoint to classify with", "FILE"},
        {"text", 't', 0, G_OPTION_ARG_STRING_ARRAY, &texts,
         "Classify this text (a ListOps expression, a TSV line, token ids; repeatable)", "STRING"},
        {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Override one key (repeatable; not the model's)",
         "SECTION.KEY=VALUE"},
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &args, NULL, NULL},
        G_OPTION_ENTRY_NULL,
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("INPUT…");
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_summary(ctx,
        "Classify your own inputs: image files, audio clips, text files, .npy arrays (the model's\n"
        "input itself), UCR/LRA TSV lines and ListOps expressions, each featurised exactly as the\n"
        "checkpoint's data set featurises its samples (the data set is opened for that, as eval\n"
        "opens it). An INPUT starting with \"text:\" is text; any other is a file. One JSON line per\n"
        "input, in order (INPUTs, then --text): its label index, class name and every class's\n"
        "probability, or the reason the model cannot take it (also on stderr).\n"
        "Exit status: 0 every input classified, 1 some input refused (the rest still printed)\n"
        "or the checkpoint unusable, 2 usage error.");
    g_option_context_set_description(ctx,
        "Examples:\n"
        "  rangefinder predict --checkpoint runs/fashion/checkpoint.safetensors shoe.png bag.jpg\n"
        "  rangefinder predict --checkpoint runs/default/checkpoint.safetensors \\\n"
        "      'text:[MAX 2 9 [MIN 4 7 ] 0 ]' --text '[SM 1 2 ]'\n");

    g_autoptr(GError) error = NULL;
    if (!rf_cli_parse(ctx, "predict", &argc, &argv, &error))
        return rf_cli_report(error);
    int n = (int)(args != NULL ? g_strv_length(args) : 0) + (int)(texts != NULL ? g_strv_length(texts) : 0);
    const char *problem = checkpoint == NULL ? "predict needs --checkpoint FILE"
                          : n == 0           ? "predict needs at least one INPUT or --text STRING"
                                             : NULL;
    if (problem != NULL) {
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "%s (see `rangefinder predict --help`)", problem);
        return rf_cli_report(error);
    }
    g_autofree input *inputs = g_new0(input, n);
    int k = 0;
    for (char **a = args; a != NULL && *a != NULL; a++, k++) {
        bool is_text = g_str_has_prefix(*a, TEXT_PREFIX);
        inputs[k] = (input){*a, is_text ? NULL : *a, is_text ? *a + strlen(TEXT_PREFIX) : NULL};
    }
    for (char **t = texts; t != NULL && *t != NULL; t++, k++)
        inputs[k] = (input){*t, NULL, *t};

    rf_saved_model sm;
    int refused = rf_saved_model_open(&sm, checkpoint, (const char *const *)sets, TRUE, &error)
                      ? predict_all(&sm, inputs, n, &error)
                      : -1;
    rf_saved_model_clear(&sm);
    if (refused < 0)
        return rf_cli_report(error);
    return refused > 0 ? RF_EXIT_FAILED : RF_EXIT_OK;
}
