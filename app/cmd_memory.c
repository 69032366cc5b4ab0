/* `rangefinder memory`: the memory planner's totals for a config over a
 * range of sequence lengths. Nothing is allocated, no data set is built. */
#include <stdio.h>
#include <string.h>

#include "../core/train.h"
#include "cli.h"
#include "commands.h"
#include "config_file.h"
#include "json_line.h"

/* ListOps has a fixed token table: 15 symbols plus padding (SPEC §6). */
#define LISTOPS_VOCAB 16
#define MAX_SEQ (1 << 22)

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

static char *size_text(size_t bytes)
{
    return rf_cli_format_bytes(bytes);
}

static void print_row(int seq, const rf_memory_plan *p)
{
    g_autofree char *total = size_text(p->total), *params = size_text(p->params), *grads = size_text(p->grads),
                    *optimizer = size_text(p->optimizer), *act = size_text(p->activations),
                    *work = size_text(p->workspace);
    printf("%8d  %11s  %11s  %11s  %11s  %11s  %11s\n", seq, total, params, grads, optimizer, act, work);
}

static void print_json(const rf_config *cfg, int seq, const rf_memory_plan *p)
{
    rf_json_line j;
    rf_json_begin(&j);
    rf_json_str(&j, "encoder", cfg->model.encoder);
    rf_json_int(&j, "seq", seq);
    rf_json_int(&j, "batch", cfg->data.batch);
    rf_json_int(&j, "planned_bytes", (int64_t)p->total);
    rf_json_int(&j, "params", (int64_t)p->params);
    rf_json_int(&j, "grads", (int64_t)p->grads);
    rf_json_int(&j, "optimizer", (int64_t)p->optimizer);
    rf_json_int(&j, "activations", (int64_t)p->activations);
    rf_json_int(&j, "workspace", (int64_t)p->workspace);
    rf_json_int(&j, "param_count", p->param_count);
    rf_json_print(&j);
}

int rf_cmd_memory(int argc, char **argv)
{
    g_autofree char *config = NULL, *seq = NULL;
    g_auto(GStrv) sets = NULL;
    gboolean json = FALSE;
    const GOptionEntry entries[] = {
        {"config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "Config file (INI)", "FILE"},
        {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Override one key (repeatable)", "SECTION.KEY=VALUE"},
        {"seq", 0, 0, G_OPTION_ARG_STRING, &seq, "Sequence lengths, comma-separated", "N,N,..."},
        {"json", 0, 0, G_OPTION_ARG_NONE, &json, "Print one JSON object per length", NULL},
        G_OPTION_ENTRY_NULL,
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_summary(ctx,
        "Plan a training step's memory at each sequence length (data.max_len set to it): parameters,\n"
        "gradients, AdamW moments, activations and workspace. Nothing is allocated or trained.");
    g_option_context_set_description(ctx,
        "Example:\n  rangefinder memory --config data/configs/listops-full.ini --seq 512,1024,2048,4096\n");

    g_autoptr(GError) error = NULL;
    if (!rf_cli_parse(ctx, "memory", &argc, &argv, &error))
        return rf_cli_report(error);
    if (config == NULL || seq == NULL) {
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE,
                    "memory needs --config FILE and --seq N,N,... (see `rangefinder memory --help`)");
        return rf_cli_report(error);
    }
    g_autoptr(GArray) lengths = g_array_new(FALSE, FALSE, sizeof(int));
    rf_config cfg;
    if (!parse_lengths(seq, lengths, &error) ||
        !rf_config_load_ini(config, (const char *const *)sets, &cfg, &error))
        return rf_cli_report(error);

    /* Plan every length before printing, so a failure leaves no partial table. */
    int vocab = strcmp(cfg.data.task, "listops") == 0 ? LISTOPS_VOCAB : cfg.data.vocab;
    g_autofree rf_memory_plan *plans = g_new(rf_memory_plan, lengths->len);
    for (guint i = 0; i < lengths->len; i++) {
        rf_config at = cfg;
        at.data.max_len = g_array_index(lengths, int, i);
        at.data.min_len = 0;   /* shapes nothing; it must only stay below max_len */
        rf_status st = {0};
        if (!rf_memory_plan_compute(&at, at.data.max_len, 0, vocab, cfg.data.classes, &plans[i], &st)) {
            rf_cli_fail_status(&error, &st);
            return rf_cli_report(error);
        }
    }
    if (!json) {
        printf("%s encoder, %d layers, dim %d, %d heads, batch %d, %lld parameters\n", cfg.model.encoder,
               cfg.model.layers, cfg.model.dim, cfg.model.heads, cfg.data.batch, (long long)plans[0].param_count);
        printf("%8s  %11s  %11s  %11s  %11s  %11s  %11s\n", "seq", "planned", "params", "grads", "optimizer",
               "activations", "workspace");
    }
    for (guint i = 0; i < lengths->len; i++) {
        int n = g_array_index(lengths, int, i);
        if (json)
            print_json(&cfg, n, &plans[i]);
        else
            print_row(n, &plans[i]);
    }
    return RF_EXIT_OK;
}
