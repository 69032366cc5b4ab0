/* `rangefinder memory`: the memory planner's totals for a config over a
 * range of sequence lengths, for the config's encoder or several. Nothing
 * is allocated or trained.
 *
 * The inputs' shape comes from the data set: ListOps and the random task
 * are known from the config alone (token ids); any other task is opened
 * once (rf_dataset_open) to read its feature width, grid, vocabulary and
 * classes. That is correct but as slow as the data set's first load (an
 * audio folder decodes every clip unless its feature cache is warm). A
 * data set whose positions form a grid (images) is planned on its grid at
 * the length that fills it, and as a plain sequence at other lengths. */
#include <stdio.h>
#include <string.h>

#include "../core/train.h"
#include "../datasets/datasets.h"
#include "cli.h"
#include "data_open.h"
#include "commands.h"
#include "config_file.h"
#include "json_line.h"

/* ListOps has a fixed token table: 15 symbols plus padding (SPEC §6). */
#define LISTOPS_VOCAB 16
#define MAX_SEQ (1 << 22)
/* Growth over a range of lengths above this multiple of the length ratio
 * (20x for 16x the length) is called quadratic. */
#define QUADRATIC_FACTOR 1.25

/* What the model's input looks like. */
typedef struct input_shape {
    int feat_dim, grid_h, grid_w, vocab, classes;
} input_shape;

static gboolean parse_lengths(const char *text, GArray *out, GError **error)
{
    g_auto(GStrv) parts = g_strsplit(text, ",", -1);
    for (char **p = parts; *p != NULL; p++) {
        guint64 n = 0;
        g_autoptr(GError) local = NULL;
        if (!g_ascii_string_to_unsigned(g_strstrip(*p), 10, 1, MAX_SEQ, &n, &local)) {
            g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "--seq '%s': %s", text, local->message);
            return FALSE;
        }
        int len = (int)n;
        g_array_append_val(out, len);
    }
    if (out->len == 0) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "--seq: give at least one length");
        return FALSE;
    }
    return TRUE;
}

/* --encoders full,ls,...: each a model.encoder value. */
static gboolean parse_encoders(const char *text, GPtrArray *out, GError **error)
{
    g_auto(GStrv) parts = g_strsplit(text, ",", -1);
    for (char **p = parts; *p != NULL; p++) {
        const char *name = g_strstrip(*p);
        rf_config probe;
        rf_config_defaults(&probe);
        rf_status st = {0};
        if (!rf_config_set2(&probe, "model", "encoder", name, &st)) {
            g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "--encoders: %s", st.msg);
            return FALSE;
        }
        g_ptr_array_add(out, g_strdup(name));
    }
    if (out->len == 0) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "--encoders: give at least one encoder");
        return FALSE;
    }
    return TRUE;
}

static gboolean read_input_shape(const rf_config *cfg, input_shape *out, GError **error)
{
    *out = (input_shape){.vocab = cfg->data.vocab, .classes = cfg->data.classes};
    if (strcmp(cfg->data.task, "listops") == 0) {
        out->vocab = LISTOPS_VOCAB;
        return TRUE;
    }
    if (strcmp(cfg->data.task, "random") == 0)
        return TRUE;
    rf_status st = {0};
    rf_dataset *ds = rf_cli_open_data(cfg, &st);
    if (ds == NULL)
        return rf_cli_fail_status(error, &st);
    *out = (input_shape){ds->feat_dim, ds->grid_h, ds->grid_w, ds->vocab, ds->classes};
    rf_dataset_free(ds);
    return TRUE;
}

/* rf_memory_plan_compute on a grid (which it does not take). */
static gboolean plan_on_grid(const rf_config *cfg, int seq, const input_shape *in, rf_memory_plan *out,
                             rf_status *st)
{
    rf_params *p = rf_params_new(cfg->train.seed);
    rf_model *m = rf_model_new_grid(cfg, cfg->data.batch, seq, in->feat_dim, in->vocab, in->classes, in->grid_h,
                                    in->grid_w, p, false, st);
    if (m != NULL)
        rf_memory_plan_of(m, p, false, out);
    rf_model_free(m);
    rf_params_free(p);
    return m != NULL;
}

static gboolean plan_one(const rf_config *cfg, const char *encoder, int seq, const input_shape *in,
                         gboolean inference, rf_memory_plan *out, GError **error)
{
    rf_config at = *cfg;
    rf_status st = {0};
    if (!rf_config_set2(&at, "model", "encoder", encoder, &st))
        return rf_cli_fail_status(error, &st);
    at.data.max_len = seq;
    at.data.min_len = 0;   /* shapes nothing; it must only stay below max_len */
    g_autofree char *source = g_strdup_printf("model.encoder=%s", encoder);
    if (!rf_config_check(&at, source, error))
        return FALSE;
    gboolean on_grid = in->grid_h > 0 && (int64_t)in->grid_h * in->grid_w == seq;
    gboolean ok = inference ? rf_memory_plan_inference(&at, seq, in->feat_dim, in->vocab, in->classes,
                                                       on_grid ? in->grid_h : 0, on_grid ? in->grid_w : 0, out, &st)
                  : on_grid ? plan_on_grid(&at, seq, in, out, &st)
                            : rf_memory_plan_compute(&at, seq, in->feat_dim, in->vocab, in->classes, out, &st);
    if (!ok) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, "%s at seq %d: %s", encoder, seq,
                    st.failed ? st.msg : "unknown failure");
        return FALSE;
    }
    return TRUE;
}

/* off: the same plan with train.recompute = off, or NULL when it is off. */
static void print_row(int seq, const rf_memory_plan *p, const rf_memory_plan *off)
{
    g_autofree char *total = rf_cli_format_bytes(p->total), *params = rf_cli_format_bytes(p->params),
                    *grads = rf_cli_format_bytes(p->grads), *optimizer = rf_cli_format_bytes(p->optimizer),
                    *act = rf_cli_format_bytes(p->activations), *work = rf_cli_format_bytes(p->workspace),
                    *graph = rf_cli_format_bytes(p->graph);
    printf("%8d  %11s  %11s  %11s  %11s  %11s  %11s  %11s", seq, total, params, grads, optimizer, act, work, graph);
    if (off != NULL) {
        g_autofree char *kept = rf_cli_format_bytes(off->total);
        printf("  %14s", kept);
    }
    printf("\n");
}

static void print_json(const rf_config *cfg, const char *encoder, int seq, const char *job, const rf_memory_plan *p,
                       const rf_memory_plan *off)
{
    rf_json_line j;
    rf_json_begin(&j);
    rf_json_str(&j, "encoder", encoder);
    rf_json_int(&j, "seq", seq);
    rf_json_int(&j, "batch", cfg->data.batch);
    rf_json_str(&j, "device", cfg->train.device);
    rf_json_int(&j, "planned_bytes", (int64_t)p->total);
    rf_json_int(&j, "params", (int64_t)p->params);
    rf_json_int(&j, "grads", (int64_t)p->grads);
    rf_json_int(&j, "optimizer", (int64_t)p->optimizer);
    rf_json_int(&j, "activations", (int64_t)p->activations);
    rf_json_int(&j, "workspace", (int64_t)p->workspace);
    rf_json_int(&j, "graph", (int64_t)p->graph);
    rf_json_int(&j, "param_count", p->param_count);
    rf_json_str(&j, "job", job);
    if (off != NULL) {
        rf_json_str(&j, "recompute", cfg->train.recompute);
        rf_json_int(&j, "planned_bytes_recompute_off", (int64_t)off->total);
    }
    rf_json_print(&j);
}

static void print_inputs(const rf_config *cfg, const input_shape *in)
{
    const char *plural = in->feat_dim == 1 ? "" : "s";
    if (in->feat_dim > 0 && in->grid_h > 0)
        printf("%s: %d feature%s per position on a %d x %d grid, %d classes\n", cfg->data.task, in->feat_dim,
               plural, in->grid_h, in->grid_w, in->classes);
    else if (in->feat_dim > 0)
        printf("%s: %d feature%s per position, %d classes\n", cfg->data.task, in->feat_dim, plural, in->classes);
    else
        printf("%s: token ids below %d, %d classes\n", cfg->data.task, in->vocab, in->classes);
}

/* One encoder: the planner's parts per length. */
static void print_detail(const rf_config *cfg, const char *encoder, const char *job, const int *seq, guint n,
                         const rf_memory_plan *plans, const rf_memory_plan *off)
{
    printf("%s encoder, %d layers, dim %d, %d heads, batch %d, %lld parameters, on %s: %s", encoder,
           cfg->model.layers, cfg->model.dim, cfg->model.heads, cfg->data.batch, (long long)plans[0].param_count,
           cfg->train.device, job);
    if (off != NULL)
        printf(" with train.recompute = %s", cfg->train.recompute);
    printf("\n%8s  %11s  %11s  %11s  %11s  %11s  %11s  %11s", "seq", "planned", "params", "grads", "optimizer",
           "activations", "workspace", "graph");
    printf(off != NULL ? "  %14s\n" : "\n", "recompute off");
    for (guint i = 0; i < n; i++)
        print_row(seq[i], &plans[i], off != NULL ? &off[i] : NULL);
}

/* Several encoders: planned totals, one column each. */
static void print_matrix(const rf_config *cfg, GPtrArray *encoders, const char *job, const int *seq, guint n,
                         const rf_memory_plan *plans, const rf_memory_plan *off)
{
    printf("%d layers, dim %d, %d heads, batch %d: planned bytes of %s on %s%s%s\n", cfg->model.layers,
           cfg->model.dim, cfg->model.heads, cfg->data.batch, job, cfg->train.device,
           off != NULL ? " with train.recompute = " : "", off != NULL ? cfg->train.recompute : "");
    printf("%8s", "seq");
    for (guint e = 0; e < encoders->len; e++)
        printf("  %11s", (const char *)encoders->pdata[e]);
    printf("\n");
    for (guint i = 0; i < n; i++) {
        printf("%8d", seq[i]);
        for (guint e = 0; e < encoders->len; e++) {
            g_autofree char *total = rf_cli_format_bytes(plans[e * n + i].total);
            printf("  %11s", total);
        }
        printf("\n");
    }
    if (off == NULL)
        return;
    printf("the same with train.recompute = off instead of %s:\n", cfg->train.recompute);
    for (guint i = 0; i < n; i++) {
        printf("%8d", seq[i]);
        for (guint e = 0; e < encoders->len; e++) {
            g_autofree char *total = rf_cli_format_bytes(off[e * n + i].total);
            printf("  %11s", total);
        }
        printf("\n");
    }
}

/* Growth last/first per encoder (and, for several, the parameter counts),
 * then a note for each encoder whose growth is quadratic. */
static void print_growth(GPtrArray *encoders, const int *seq, guint n, const rf_memory_plan *plans)
{
    double ratio = (double)seq[n - 1] / seq[0];
    if (encoders->len > 1) {
        if (n > 1) {
            printf("%8s", "growth");
            for (guint e = 0; e < encoders->len; e++) {
                g_autofree char *cell =
                    g_strdup_printf("%.1fx", (double)plans[e * n + n - 1].total / (double)plans[e * n].total);
                printf("  %11s", cell);
            }
            printf("\n");
        }
        printf("%8s", "params");
        for (guint e = 0; e < encoders->len; e++)
            printf("  %11lld", (long long)plans[e * n].param_count);
        printf("\n");
    } else if (n > 1) {
        printf("growth %d -> %d: %.1fx the memory for %gx the length\n", seq[0], seq[n - 1],
               (double)plans[n - 1].total / (double)plans[0].total, ratio);
    }
    if (ratio <= 1)
        return;
    for (guint e = 0; e < encoders->len; e++) {
        double growth = (double)plans[e * n + n - 1].total / (double)plans[e * n].total;
        if (growth > QUADRATIC_FACTOR * ratio)
            printf("note: %s grows %.1fx for %gx the length, above %gx: quadratic in the length\n",
                   (const char *)encoders->pdata[e], growth, ratio, QUADRATIC_FACTOR * ratio);
    }
}

int rf_cmd_memory(int argc, char **argv)
{
    g_autofree char *config = NULL, *seq = NULL, *encoder_list = NULL;
    g_auto(GStrv) sets = NULL;
    gboolean json = FALSE, inference = FALSE;
    const GOptionEntry entries[] = {
        {"config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "Config file (INI)", "FILE"},
        {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Override one key (repeatable)", "SECTION.KEY=VALUE"},
        {"seq", 0, 0, G_OPTION_ARG_STRING, &seq, "Sequence lengths, comma-separated", "N,N,..."},
        {"encoders", 'e', 0, G_OPTION_ARG_STRING, &encoder_list,
         "Encoders to compare, comma-separated (default: the config's model.encoder)", "full,ls,..."},
        {"json", 0, 0, G_OPTION_ARG_NONE, &json, "Print one JSON object per encoder and length", NULL},
        {"inference", 0, 0, G_OPTION_ARG_NONE, &inference,
         "Plan forward-only inference instead (no gradients, saved tensors or AdamW moments)", NULL},
        G_OPTION_ENTRY_NULL,
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_summary(ctx,
        "Plan a training step's memory at each sequence length (data.max_len set to it): parameters,\n"
        "gradients, AdamW moments, activations and workspace, and besides the plan the graph's own\n"
        "bookkeeping (its nodes, names, probe taps). With --encoders, each encoder is planned\n"
        "with the config's other keys. The growth from the first length to the last is shown, with a\n"
        "note where it is quadratic (above 1.25x the length ratio: 20x for 16x the length).\n"
        "With --inference, the forward-only build of `predict` instead: parameters, the activations\n"
        "of a forward pass (freed after their last reader) and workspace; no gradients, no tensors\n"
        "saved for backward, no AdamW moments.\n"
        "With train.recompute = layers or segments, each training plan is shown without recomputation\n"
        "too (the last column), so the saving shows.\n"
        "Nothing is allocated or trained. The input shape comes from the data set: ListOps and the\n"
        "random task need nothing; other tasks are opened once to read it (as slow as their load).");
    g_option_context_set_description(ctx,
        "Examples:\n  rangefinder memory --config data/configs/listops-full.ini --seq 512,1024,2048,4096\n"
        "  rangefinder memory --config data/configs/listops-full.ini --seq 1024,16384 \\\n"
        "      --encoders full,ls,linear,talk,blrp,maelre\n");

    g_autoptr(GError) error = NULL;
    if (!rf_cli_parse(ctx, "memory", &argc, &argv, &error))
        return rf_cli_report(error);
    if (config == NULL || seq == NULL) {
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE,
                    "memory needs --config FILE and --seq N,N,... (see `rangefinder memory --help`)");
        return rf_cli_report(error);
    }
    g_autoptr(GArray) lengths = g_array_new(FALSE, FALSE, sizeof(int));
    g_autoptr(GPtrArray) encoders = g_ptr_array_new_with_free_func(g_free);
    rf_config cfg;
    if (!parse_lengths(seq, lengths, &error) ||
        (encoder_list != NULL && !parse_encoders(encoder_list, encoders, &error)) ||
        !rf_config_load_ini(config, (const char *const *)sets, &cfg, &error))
        return rf_cli_report(error);
    if (encoders->len == 0)
        g_ptr_array_add(encoders, g_strdup(cfg.model.encoder));
    input_shape in;
    if (!read_input_shape(&cfg, &in, &error))
        return rf_cli_report(error);

    /* Plan everything before printing, so a failure leaves no partial table. */
    guint n = lengths->len;
    const int *at = (const int *)(void *)lengths->data;
    g_autofree rf_memory_plan *plans = g_new(rf_memory_plan, (gsize)encoders->len * n);
    for (guint e = 0; e < encoders->len; e++)
        for (guint i = 0; i < n; i++)
            if (!plan_one(&cfg, encoders->pdata[e], at[i], &in, inference, &plans[e * n + i], &error))
                return rf_cli_report(error);
    /* With recomputation, the plan without it too, so the saving shows. */
    g_autofree rf_memory_plan *off = NULL;
    if (!inference && strcmp(cfg.train.recompute, "off") != 0) {
        rf_config kept = cfg;
        g_strlcpy(kept.train.recompute, "off", sizeof kept.train.recompute);
        off = g_new(rf_memory_plan, (gsize)encoders->len * n);
        for (guint e = 0; e < encoders->len; e++)
            for (guint i = 0; i < n; i++)
                if (!plan_one(&kept, encoders->pdata[e], at[i], &in, FALSE, &off[e * n + i], &error))
                    return rf_cli_report(error);
    }
    const char *job = inference ? "inference" : "training";
    if (json) {
        for (guint e = 0; e < encoders->len; e++)
            for (guint i = 0; i < n; i++)
                print_json(&cfg, encoders->pdata[e], at[i], job, &plans[e * n + i], off != NULL ? &off[e * n + i] : NULL);
        return RF_EXIT_OK;
    }
    print_inputs(&cfg, &in);
    if (encoders->len == 1)
        print_detail(&cfg, encoders->pdata[0], inference ? "inference, forward only" : "a training step", at, n,
                     plans, off);
    else
        print_matrix(&cfg, encoders, inference ? "forward-only inference" : "a training step", at, n, plans, off);
    print_growth(encoders, at, n, plans);
    return RF_EXIT_OK;
}
