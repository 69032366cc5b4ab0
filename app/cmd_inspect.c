/* `rangefinder inspect`: a checkpoint's probes (named taps, core/probe.h)
 * for one sample, or for an input from outside the data set (--input FILE,
 * --text STRING: featurised by the data set's hook, alone in a batch of
 * padding, value probes only), as NumPy .npy files; or the list of its taps.
 *
 * Sample K of a split is row K % batch of evaluation batch K / batch (the
 * batch as the run had it, or data.batch from --set). The batch runs forward
 * without dropout; when a gradient tap is asked for, backward follows with
 * the real labels from the model's loss (the batch mean, so a row's
 * gradient is 1/batch of its own loss's; --set data.batch=1 gives the
 * sample's own). Parameter gradients are zeroed first and nothing is
 * updated; no file but the .npy outputs is written.
 *
 * --attribution METHOD explains the target class's logit instead
 * (inspect_attribution.h): one value per position into --out, a JSON
 * summary on stdout. */
#include <errno.h>
#include <inttypes.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/probe.h"
#include "../datasets/featurise.h"
#include "cli.h"
#include "commands.h"
#include "inspect_against.h"
#include "inspect_attribution.h"
#include "npy.h"
#include "saved_model.h"

static void print_taps(const rf_graph *g)
{
    static const char *const what[] = {"value", "aux", "grad"};
    int width = 0;
    for (int i = 0; i < rf_tap_count(g); i++)
        width = MAX(width, (int)strlen(rf_tap_get(g, i)->name));
    for (int i = 0; i < rf_tap_count(g); i++) {
        const rf_tap *t = rf_tap_get(g, i);
        g_autoptr(GString) shape = g_string_new("[");
        for (int d = 1; d < t->shape.ndim; d++)
            g_string_append_printf(shape, "%s%lld", d > 1 ? ", " : "", (long long)t->shape.dim[d]);
        g_string_append_c(shape, ']');
        printf("%-*s  %-20s %s\n", width, t->name, shape->str, what[t->what]);
    }
}

/* Where probe `name` goes: --out as the file for a single probe (unless it
 * is a directory), else <dir>/<name>.npy with dir --out or ".". */
static char *output_path(const char *out, int probes, const char *name)
{
    g_autofree char *file = g_strdup_printf("%s.npy", name);
    g_strdelimit(file, G_DIR_SEPARATOR_S, '_');
    if (out == NULL)
        return g_steal_pointer(&file);
    if (probes == 1 && !g_file_test(out, G_FILE_TEST_IS_DIR))
        return g_strdup(out);
    return g_build_filename(out, file, NULL);
}

/* Each probe of ps as a .npy; with `other` (the same probes from --against)
 * A, B and A - B stacked as [3, ...] (inspect_against.h). */
static gboolean write_probes(const rf_probe_set *ps, const rf_probe_set *other, const char *out, GError **error)
{
    if (out != NULL && ps->count > 1 && g_mkdir_with_parents(out, 0755) != 0) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, "cannot create %s: %s", out, g_strerror(errno));
        return FALSE;
    }
    for (int i = 0; i < ps->count; i++) {
        const rf_probe_value *v = &ps->values[i];
        g_autofree char *path = output_path(out, ps->count, v->name);
        double range = 0;
        if (other == NULL ? !rf_npy_write(path, v->shape.ndim, v->shape.dim, v->data, error)
                          : !rf_against_write(path, v->shape.ndim, v->shape.dim, v->data, other->values[i].data,
                                              &range, error))
            return FALSE;
        g_autoptr(GString) shape = g_string_new("[");
        if (other != NULL)
            g_string_append(shape, "3, ");
        for (int d = 0; d < v->shape.ndim; d++)
            g_string_append_printf(shape, "%s%lld", d > 0 ? ", " : "", (long long)v->shape.dim[d]);
        g_string_append_c(shape, ']');
        if (other != NULL)
            printf("%s %s (A, B, A - B; shared range %.6g) -> %s\n", v->name, shape->str, range, path);
        else
            printf("%s %s -> %s\n", v->name, shape->str, path);
    }
    return TRUE;
}

/* --pool, --cells, --rows and --columns: the window every probe is pooled
 * over. */
typedef struct pool_opts {
    gboolean on;
    rf_probe_window w;
} pool_opts;

/* "A:B" into [a, b) (an empty side: 0, or the map's end). */
static gboolean parse_range(const char *text, int64_t *a, int64_t *b)
{
    char *end;
    *a = 0;
    *b = RF_POOL_END;
    if (text == NULL)
        return TRUE;
    if (*text != ':') {
        *a = g_ascii_strtoll(text, &end, 10);
        if (end == text || *a < 0)
            return FALSE;
        text = end;
    }
    if (*text++ != ':')
        return FALSE;
    if (*text == '\0')
        return TRUE;
    *b = g_ascii_strtoll(text, &end, 10);
    return end != text && *end == '\0' && *b > *a;
}

/* rf_probe_set_new_pooled with --pool's window for every probe. */
static rf_probe_set *new_set(const rf_graph *g, const char *const *probes, const pool_opts *po, int sample,
                             rf_status *st)
{
    int n = (int)g_strv_length((char **)probes);
    g_autofree const rf_probe_window **ws = g_new0(const rf_probe_window *, n + 1);
    for (int i = 0; i < n; i++)
        ws[i] = &po->w;
    return rf_probe_set_new_pooled(g, probes, po->on ? ws : NULL, n, sample, st);
}

/* The named probes of one checkpoint for a sample, its line printed
 * (after `who`, when comparing); NULL on failure. */
static rf_probe_set *probe_sample(rf_saved_model *sm, const char *who, rf_split split, int64_t sample,
                                  const char *const *probes, const pool_opts *po, GError **error)
{
    int64_t size = sm->ds->size[split];
    if (sample >= size) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED,
                    "--sample %lld is out of range: the %s split has %lld samples (0..%lld)", (long long)sample,
                    rf_split_name(split), (long long)size, (long long)size - 1);
        return NULL;
    }
    rf_model *m = rf_trainer_model(sm->trainer);
    rf_status st = {0};
    rf_probe_set *ps = new_set(m->graph, probes, po, (int)(sample % m->batch), &st);
    rf_inspection r;
    if (ps == NULL || !rf_trainer_inspect(sm->trainer, split, sample, ps, &r, &st)) {
        rf_probe_set_free(ps);
        rf_cli_fail_status(error, &st);
        return NULL;
    }
    printf("%s%s%s sample %lld (batch %lld, row %d) at step %lld: label %d, predicted %d, loss %.4f\n",
           who != NULL ? who : "", who != NULL ? ": " : "", rf_split_name(split), (long long)sample,
           (long long)r.batch_index, r.row, (long long)sm->step, r.label, r.predicted, r.loss);
    return ps;
}

/* The same for an outside input (x: featurised by the data set). */
static rf_probe_set *probe_input(rf_saved_model *sm, const char *who, const char *name, const rf_outside_input *in,
                                 const char *const *probes, const pool_opts *po, GError **error)
{
    const rf_dataset *ds = sm->ds;
    rf_model *m = rf_trainer_model(sm->trainer);
    g_autofree float *probs = g_new0(float, ds->classes);
    rf_status st = {0};
    rf_probe_set *ps = new_set(m->graph, probes, po, 0, &st);
    rf_inspection r;
    if (ps == NULL || !rf_trainer_inspect_input(sm->trainer, in, ps, &r, probs, &st)) {
        rf_probe_set_free(ps);
        rf_cli_fail_status(error, &st);
        return NULL;
    }
    printf("%s%sinput %s at step %lld: predicted %d (%s), probability %.4f\n", who != NULL ? who : "",
           who != NULL ? ": " : "", name, (long long)sm->step, r.predicted,
           ds->class_names != NULL ? ds->class_names[r.predicted] : "no class names", probs[r.predicted]);
    return ps;
}

/* --against: B's probes must have A's shapes (models of another width
 * have other maps). */
static gboolean same_shapes(const rf_probe_set *a, const rf_probe_set *b, const char *file_a, const char *file_b,
                            GError **error)
{
    for (int i = 0; i < a->count; i++) {
        const rf_shape *sa = &a->values[i].shape, *sb = &b->values[i].shape;
        if (sa->ndim == sb->ndim && memcmp(sa->dim, sb->dim, (size_t)sa->ndim * sizeof sa->dim[0]) == 0)
            continue;
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED,
                    "probe %s has another shape in %s than in %s: their models differ in size", a->values[i].name,
                    file_b, file_a);
        return FALSE;
    }
    return TRUE;
}

/* A sample or an outside input (path or text) through one checkpoint, or
 * two (against: B beside A), its probes written. */
typedef struct probe_job {
    rf_split split;
    int64_t sample;
    const char *path, *text;
    const char *const *probes;
    const char *out;
    const char *checkpoint, *against_path;
    pool_opts pool;
} probe_job;

static gboolean inspect(rf_saved_model *sm, rf_saved_model *against, const probe_job *job, GError **error)
{
    const rf_dataset *ds = sm->ds;
    bool outside = job->path != NULL || job->text != NULL;
    g_autofree float *x = g_new0(float, (size_t)ds->seq_len * (size_t)MAX(1, ds->feat_dim));
    rf_outside_input in = {x, 0};
    char name[128];
    rf_status st = {0};
    if (outside && !rf_dataset_featurise(ds, job->path, job->text, x, &in.len, &st))
        return rf_cli_fail_status(error, &st);
    if (outside)
        rf_input_name(job->path, job->text, name, sizeof name);
    const char *who_a = against != NULL ? job->checkpoint : NULL;
    rf_probe_set *a = outside ? probe_input(sm, who_a, name, &in, job->probes, &job->pool, error)
                              : probe_sample(sm, who_a, job->split, job->sample, job->probes, &job->pool, error);
    rf_probe_set *b = NULL;
    if (a != NULL && against != NULL)
        b = outside ? probe_input(against, job->against_path, name, &in, job->probes, &job->pool, error)
                    : probe_sample(against, job->against_path, job->split, job->sample, job->probes, &job->pool,
                                   error);
    gboolean ok = a != NULL && (against == NULL || (b != NULL && same_shapes(a, b, job->checkpoint,
                                                                               job->against_path, error)));
    ok = ok && write_probes(a, b, job->out, error);
    rf_probe_set_free(a);
    rf_probe_set_free(b);
    return ok;
}

int rf_cmd_inspect(int argc, char **argv)
{
    g_autofree char *checkpoint = NULL, *split_name = NULL, *out = NULL, *input = NULL, *text = NULL;
    g_autofree char *method = NULL, *baseline = NULL, *against_path = NULL;
    g_autofree char *pool = NULL, *cells = NULL, *rows = NULL, *columns = NULL;
    g_auto(GStrv) sets = NULL, probes = NULL;
    gint64 sample = G_MININT64;   /* not given */
    gboolean list = FALSE;
    gint steps = 32, window = 1, stride = 0, target = -1;
    const GOptionEntry entries[] = {
        {"checkpoint", 'k', 0, G_OPTION_ARG_FILENAME, &checkpoint, "Checkpoint to inspect", "FILE"},
        {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Override one key (repeatable; not the model's)",
         "SECTION.KEY=VALUE"},
        {"split", 0, 0, G_OPTION_ARG_STRING, &split_name, "Split the sample is from: test (default), val or train",
         "SPLIT"},
        {"sample", 0, 0, G_OPTION_ARG_INT64, &sample, "Sample index in the split (default 0)", "K"},
        {"input", 'i', 0, G_OPTION_ARG_FILENAME, &input,
         "Inspect this file instead of a sample (an image, audio clip or text, as the data set takes)", "PATH"},
        {"text", 0, 0, G_OPTION_ARG_STRING, &text,
         "Inspect this text instead of a sample (a ListOps expression, a TSV line, token ids)", "STRING"},
        {"probe", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &probes, "Probe to write (repeatable; see --list)", "NAME"},
        {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
         "Output .npy file (one probe) or directory (several: DIR/NAME.npy); default ./NAME.npy", "PATH"},
        {"list", 0, 0, G_OPTION_ARG_NONE, &list, "List every probe with its shape (without the batch)", NULL},
        {"attribution", 'a', 0, G_OPTION_ARG_STRING, &method,
         "Attribute the target logit to the input's positions: grad, grad-input, ig or occlusion "
         "(instead of probes)", "METHOD"},
        {"class", 0, 0, G_OPTION_ARG_INT, &target, "Attribution: the class explained (default: the predicted one)",
         "K"},
        {"steps", 0, 0, G_OPTION_ARG_INT, &steps, "Integrated gradients: points on the path (default 32)", "N"},
        {"window", 0, 0, G_OPTION_ARG_INT, &window,
         "Occlusion: positions occluded at once (W x W patches on an image; default 1)", "W"},
        {"stride", 0, 0, G_OPTION_ARG_INT, &stride, "Occlusion: positions between windows (default: the window)",
         "S"},
        {"baseline", 0, 0, G_OPTION_ARG_STRING, &baseline,
         "Attribution of features: zero (black; the default), mean (the training split's mean sample) or "
         "silence (audio folders' default)", "NAME"},
        {"pool", 0, 0, G_OPTION_ARG_STRING, &pool,
         "Probes: write each map (the last two dims) pooled to at most --cells cells, each the max or mean of "
         "the positions it covers; full attention's is computed block by block, nothing N x N held; span (TaLK's "
         "bounds): per cell the least left and greatest right bound relative to each token", "max|mean|span"},
        {"cells", 0, 0, G_OPTION_ARG_STRING, &cells, "--pool: the most cells, rows x columns (default 1000x1000)",
         "RxC"},
        {"rows", 0, 0, G_OPTION_ARG_STRING, &rows, "--pool: the map's rows [A, B) pooled (default all)", "A:B"},
        {"columns", 0, 0, G_OPTION_ARG_STRING, &columns, "--pool: the map's columns [A, B) pooled (default all)",
         "A:B"},
        {"against", 0, 0, G_OPTION_ARG_FILENAME, &against_path,
         "Compare with a second checkpoint (a file or a run folder) taking the same input: each output holds "
         "A, B and A - B as one [3, ...] array", "OTHER"},
        G_OPTION_ENTRY_NULL,
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_summary(ctx,
        "Look inside a trained model: run the evaluation batch holding one sample through the\n"
        "checkpoint's model (forward without dropout; backward with the real labels when a\n"
        "gradient probe is asked for, nothing updated) and write each probe for that sample as a\n"
        "float32 NumPy .npy file. Gradient probes hold the gradient of the batch's mean loss;\n"
        "--set data.batch=1 gives the sample's own. --input or --text inspects your own input\n"
        "instead, featurised as the data set's samples are (value probes only: it has no label).");
    g_option_context_set_description(ctx,
        "Examples:\n"
        "  rangefinder inspect --checkpoint runs/default/checkpoint.safetensors --list\n"
        "  rangefinder inspect --checkpoint runs/default/checkpoint.safetensors --sample 3 \\\n"
        "      --probe layer0.attn.probs --out probs.npy\n"
        "  python3 -c \"import numpy; print(numpy.load('probs.npy').shape)\"\n"
        "  rangefinder inspect --checkpoint runs/default/checkpoint.safetensors \\\n"
        "      --text '[MAX 2 9 [MIN 4 7 ] 0 ]' --probe layer0.attn.probs\n"
        "  rangefinder inspect --checkpoint runs/long/checkpoint.safetensors --probe layer0.attn.probs \\\n"
        "      --pool max --cells 500x500 --rows 0:4096 --out corner.npy\n"
        "  rangefinder inspect --checkpoint runs/default/checkpoint.safetensors --sample 3 \\\n"
        "      --attribution ig --steps 64 --out ig.npy\n"
        "  rangefinder inspect --checkpoint runs/b/checkpoint.safetensors --sample 3 \\\n"
        "      --against runs/a --attribution ig --out both.npy\n");

    g_autoptr(GError) error = NULL;
    if (!rf_cli_parse(ctx, "inspect", &argc, &argv, &error))
        return rf_cli_report(error);
    rf_attr_request request = {.target = target, .steps = steps, .window = window, .stride = stride > 0 ? stride : window};
    rf_split split = RF_SPLIT_TEST;
    if (split_name != NULL && !rf_cli_parse_any_split(split_name, &split, &error))
        return rf_cli_report(error);
    const char *problem = NULL;
    if (checkpoint == NULL)
        problem = "inspect needs --checkpoint FILE";
    else if (list + (probes != NULL) + (method != NULL) > 1)
        problem = "inspect takes one of --list, --probe NAME and --attribution METHOD";
    else if (!list && probes == NULL && method == NULL)
        problem = "inspect needs --probe NAME (or --list to see the names) or --attribution METHOD";
    else if (method != NULL && !rf_attr_method_parse(method, &request.method))
        problem = "--attribution takes grad, grad-input, ig or occlusion";
    else if (steps < 1 || window < 1 || stride < 0)
        problem = "--steps and --window must be 1 or more, --stride too";
    else if (input != NULL && text != NULL)
        problem = "inspect takes --input PATH or --text STRING, not both";
    else if ((input != NULL || text != NULL) && (split_name != NULL || sample != G_MININT64))
        problem = "--input and --text inspect an outside input: they take no --split or --sample";
    else if (sample < 0 && sample != G_MININT64)
        problem = "--sample must be 0 or more";
    else if (list && against_path != NULL)
        problem = "--list takes no --against";
    pool_opts po = {.on = pool != NULL, .w = {0, RF_POOL_END, 0, RF_POOL_END, 1000, 1000, RF_POOL_MAX}};
    if (problem == NULL && pool == NULL && (cells != NULL || rows != NULL || columns != NULL))
        problem = "--cells, --rows and --columns go with --pool max, mean or span";
    else if (problem == NULL && pool != NULL && probes == NULL)
        problem = "--pool pools probes: it needs --probe NAME";
    else if (problem == NULL && pool != NULL && strcmp(pool, "max") != 0 && strcmp(pool, "mean") != 0 &&
             strcmp(pool, "span") != 0)
        problem = "--pool takes max, mean or span";
    else if (problem == NULL && cells != NULL &&
             (sscanf(cells, "%" SCNd64 "x%" SCNd64, &po.w.rows, &po.w.cols) != 2 || po.w.rows < 1 || po.w.cols < 1))
        problem = "--cells takes ROWSxCOLUMNS, both 1 or more (500x800)";
    else if (problem == NULL && (!parse_range(rows, &po.w.r0, &po.w.r1) || !parse_range(columns, &po.w.c0, &po.w.c1)))
        problem = "--rows and --columns take A:B with 0 <= A < B (either side may be left out)";
    if (pool != NULL && strcmp(pool, "mean") == 0)
        po.w.reduce = RF_POOL_MEAN;
    if (pool != NULL && strcmp(pool, "span") == 0)
        po.w.reduce = RF_POOL_SPAN;
    if (problem != NULL) {
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "%s (see `rangefinder inspect --help`)", problem);
        return rf_cli_report(error);
    }

    rf_saved_model sm, against = {0};
    /* an outside input has no label, so no gradient: forward only */
    gboolean outside = input != NULL || text != NULL;
    /* attribution needs no parameter gradient: forward-only, values-only store */
    gboolean forward_only = outside || method != NULL;
    gboolean ok = rf_saved_model_open(&sm, checkpoint, (const char *const *)sets, forward_only, &error);
    g_autofree char *against_file = against_path != NULL ? rf_against_file(against_path) : NULL;
    if (ok && against_file != NULL)
        ok = rf_against_open(&against, &sm, checkpoint, against_file, (const char *const *)sets, forward_only,
                             &error);
    rf_saved_model *other = against_path != NULL ? &against : NULL;
    if (ok && list)
        print_taps(rf_trainer_model(sm.trainer)->graph);
    else if (ok && method != NULL)
        ok = rf_inspect_attribution(&sm, &(rf_attr_cli){request, baseline, out != NULL ? out : "attribution.npy",
                                                        split, MAX(sample, 0), input, text, other, checkpoint,
                                                        against_file}, &error);
    else if (ok)
        ok = inspect(&sm, other, &(probe_job){split, MAX(sample, 0), input, text, (const char *const *)probes, out,
                                              checkpoint, against_file, po}, &error);
    rf_saved_model_clear(&against);
    rf_saved_model_clear(&sm);
    return ok ? RF_EXIT_OK : rf_cli_report(error);
}
