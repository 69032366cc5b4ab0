/* `rangefinder inspect --attribution` (see inspect_attribution.h). */
#include "inspect_attribution.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../datasets/audio_folder.h"
#include "../datasets/featurise.h"
#include "../ui/figures/position_words.h"
#include "cli.h"
#include "inspect_against.h"
#include "json_line.h"
#include "npy.h"

#define TOP_POSITIONS 10

/* The training split's mean sample, over the positions each sample has. */
static gboolean mean_sample(const rf_dataset *ds, float *base, GError **error)
{
    size_t row = (size_t)ds->seq_len * ds->feat_dim;
    g_autofree double *sum = g_new0(double, row);
    g_autofree float *x = g_new0(float, row);
    int64_t n = ds->size[RF_SPLIT_TRAIN];
    if (n < 1) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, "--baseline mean: the training split is empty");
        return FALSE;
    }
    for (int64_t i = 0; i < n; i++) {
        int len = 0, label = 0;
        rf_status st = {0};
        memset(x, 0, row * sizeof *x);
        if (!ds->get(ds, RF_SPLIT_TRAIN, i, x, &len, &label, &st))
            return rf_cli_fail_status(error, &st);
        for (size_t k = 0; k < row; k++)
            sum[k] += x[k];
    }
    for (size_t k = 0; k < row; k++)
        base[k] = (float)(sum[k] / (double)n);
    return TRUE;
}

gboolean rf_attr_baseline(const rf_dataset *ds, const char *name, float *base, GError **error)
{
    bool audio = rf_audio_folder_sample_rate(ds) > 0;
    const char *problem = NULL;
    if (name == NULL)
        name = audio ? "silence" : "zero";
    if (ds->feat_dim == 0)
        problem = "token inputs take the padding token as their baseline (no --baseline)";
    else if (strcmp(name, "zero") == 0)
        memset(base, 0, (size_t)ds->seq_len * ds->feat_dim * sizeof *base);
    else if (strcmp(name, "mean") == 0)
        return mean_sample(ds, base, error);
    else if (strcmp(name, "silence") == 0 && !rf_audio_folder_silence(ds, base, ds->seq_len))
        problem = "silence is an audio folder's baseline; this data set is not one";
    else if (strcmp(name, "silence") != 0)
        problem = "the baselines are zero, mean and silence";
    if (problem != NULL) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "--baseline %s: %s", name, problem);
        return FALSE;
    }
    return TRUE;
}

/* The input's features into x (seq_len x max(1, feat_dim) floats, zero
 * filled) and its length. */
static gboolean read_input(const rf_dataset *ds, const rf_attr_cli *cli, float *x, int *len, GError **error)
{
    rf_status st = {0};
    if (cli->path != NULL || cli->text != NULL)
        return rf_dataset_featurise(ds, cli->path, cli->text, x, len, &st) || rf_cli_fail_status(error, &st);
    if (cli->sample >= ds->size[cli->split]) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED,
                    "--sample %lld is out of range: the %s split has %lld samples (0..%lld)", (long long)cli->sample,
                    rf_split_name(cli->split), (long long)ds->size[cli->split], (long long)ds->size[cli->split] - 1);
        return FALSE;
    }
    int label = 0;
    return ds->get(ds, cli->split, cli->sample, x, len, &label, &st) || rf_cli_fail_status(error, &st);
}

/* The positions with the largest |value|, as a JSON array of
 * {"position", "value", "words"}. */
static char *top_positions(const rf_dataset *ds, const float *x, const rf_attribution *a)
{
    int order[TOP_POSITIONS], n = 0;   /* by |value|, largest first */
    for (int p = 0; p < a->len; p++) {
        if (n == TOP_POSITIONS && fabsf(a->values[p]) <= fabsf(a->values[order[n - 1]]))
            continue;
        int k = n < TOP_POSITIONS ? n++ : n - 1;
        for (; k > 0 && fabsf(a->values[order[k - 1]]) < fabsf(a->values[p]); k--)
            order[k] = order[k - 1];
        order[k] = p;
    }
    g_autoptr(GString) s = g_string_new("[");
    for (int i = 0; i < n; i++) {
        rf_json_line j;
        rf_json_begin(&j);
        rf_json_int(&j, "position", order[i]);
        rf_json_num(&j, "value", a->values[order[i]]);
        g_autofree char *words = rf_position_words(ds, x, a->len, order[i]);
        rf_json_str(&j, "words", words);
        g_autofree char *obj = rf_json_end(&j);
        g_string_append_printf(s, "%s%s", i > 0 ? "," : "", obj);
    }
    g_string_append_c(s, ']');
    return g_string_free(g_steal_pointer(&s), FALSE);
}

/* The input and the request: what both sides of a comparison share. */
static void summary_common(rf_json_line *j, const rf_saved_model *sm, const rf_attr_cli *cli, const rf_attribution *a)
{
    const rf_dataset *ds = sm->ds;
    rf_attr_method m = cli->request.method;
    rf_json_str(j, "method", rf_attr_method_name(m));
    if (cli->path != NULL || cli->text != NULL) {
        char name[128];
        rf_json_str(j, "input", rf_input_name(cli->path, cli->text, name, sizeof name));
    } else {
        rf_json_str(j, "split", rf_split_name(cli->split));
        rf_json_int(j, "sample", cli->sample);
    }
    rf_json_int(j, "target", a->target);
    rf_json_str(j, "target_name", ds->class_names != NULL ? ds->class_names[a->target] : NULL);
    rf_json_int(j, "positions", a->len);
    rf_json_str(j, "baseline", ds->feat_dim == 0 ? "padding"
                               : cli->baseline != NULL ? cli->baseline
                               : rf_audio_folder_sample_rate(ds) > 0 ? "silence" : "zero");
    if (m == RF_ATTR_IG)
        rf_json_int(j, "steps", cli->request.steps);
    if (m == RF_ATTR_OCCLUSION) {
        rf_json_int(j, "window", cli->request.window);
        rf_json_int(j, "stride", cli->request.stride);
    }
}

/* One checkpoint's own numbers (probs: its class probabilities, or NULL). */
static void summary_side(rf_json_line *j, const rf_saved_model *sm, const rf_attr_cli *cli, const float *x,
                         const rf_attribution *a, const float *probs)
{
    rf_json_int(j, "step", sm->step);
    rf_json_int(j, "predicted", a->predicted);
    if (probs != NULL)
        rf_json_num_array(j, "probabilities", probs, sm->ds->classes);
    rf_json_num(j, "f_input", a->fx);
    rf_json_num(j, "f_baseline", a->fbase);
    rf_json_num(j, "sum", a->sum);
    if (cli->request.method == RF_ATTR_IG)
        rf_json_num(j, "completeness_error", a->completeness);
    g_autofree char *top = top_positions(sm->ds, x, a);
    rf_json_raw(j, "top", top);
}

static void print_summary(const rf_saved_model *sm, const rf_attr_cli *cli, const float *x, const rf_attribution *a)
{
    rf_json_line j;
    rf_json_begin(&j);
    summary_common(&j, sm, cli, a);
    summary_side(&j, sm, cli, x, a, NULL);
    rf_json_str(&j, "out", cli->out);
    rf_json_print(&j);
}

/* One side of a comparison as a JSON object: its file, prediction,
 * probabilities and numbers. */
static char *side_object(rf_saved_model *sm, const char *file, const rf_attr_cli *cli, const rf_outside_input *in,
                         const rf_attribution *a, GError **error)
{
    g_autofree float *probs = g_new0(float, sm->ds->classes);
    rf_status st = {0};
    if (!rf_saved_model_classify(sm, in, 1, probs, &st)) {
        rf_cli_fail_status(error, &st);
        return NULL;
    }
    rf_json_line j;
    rf_json_begin(&j);
    rf_json_str(&j, "checkpoint", file);
    summary_side(&j, sm, cli, in->x, a, probs);
    return rf_json_end(&j);
}

/* --against: B explains A's target on the same input; one [3, ...] file. */
static gboolean compare(rf_saved_model *sm, const rf_attr_cli *cli, const rf_outside_input *in,
                        const rf_attr_request *r, const rf_attribution *a, int ndim, const int64_t *dims,
                        GError **error)
{
    rf_attr_request rb = *r;
    rb.target = a->target;
    rf_attribution b;
    rf_status st = {0};
    if (!rf_trainer_attribute(cli->against->trainer, in, &rb, &b, &st))
        return rf_cli_fail_status(error, &st);
    double range = 0;
    g_autofree char *side_a = NULL, *side_b = NULL;
    gboolean ok = rf_against_write(cli->out, ndim, dims, a->values, b.values, &range, error) &&
                  (side_a = side_object(sm, cli->checkpoint, cli, in, a, error)) != NULL &&
                  (side_b = side_object(cli->against, cli->against_path, cli, in, &b, error)) != NULL;
    if (ok) {
        rf_json_line j;
        rf_json_begin(&j);
        summary_common(&j, sm, cli, a);
        rf_json_raw(&j, "a", side_a);
        rf_json_raw(&j, "b", side_b);
        rf_json_num(&j, "range", range);
        rf_json_str(&j, "out", cli->out);
        rf_json_print(&j);
    }
    rf_attribution_clear(&b);
    return ok;
}

gboolean rf_inspect_attribution(rf_saved_model *sm, const rf_attr_cli *cli, GError **error)
{
    const rf_dataset *ds = sm->ds;
    size_t row = (size_t)ds->seq_len * MAX(1, ds->feat_dim);
    g_autofree float *x = g_new0(float, row);
    g_autofree float *base = ds->feat_dim > 0 ? g_new0(float, row) : NULL;
    rf_outside_input in = {x, 0};
    if (!read_input(ds, cli, x, &in.len, error))
        return FALSE;
    if (ds->feat_dim > 0 ? !rf_attr_baseline(ds, cli->baseline, base, error)
                         : cli->baseline != NULL && !rf_attr_baseline(ds, cli->baseline, NULL, error))
        return FALSE;
    rf_attr_request r = cli->request;
    r.baseline = base;
    rf_attribution a;
    rf_status st = {0};
    if (!rf_trainer_attribute(sm->trainer, &in, &r, &a, &st))
        return rf_cli_fail_status(error, &st);
    bool grid = ds->grid_h > 0 && ds->grid_h * ds->grid_w == a.len;
    int64_t dims[2] = {grid ? ds->grid_h : a.len, ds->grid_w};
    gboolean ok;
    if (cli->against != NULL) {
        ok = compare(sm, cli, &in, &r, &a, grid ? 2 : 1, dims, error);
    } else {
        ok = rf_npy_write(cli->out, grid ? 2 : 1, dims, a.values, error);
        if (ok)
            print_summary(sm, cli, x, &a);
    }
    rf_attribution_clear(&a);
    return ok;
}
