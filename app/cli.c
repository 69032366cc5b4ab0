#include "cli.h"

#include <stdio.h>

#include "../core/pool.h"

G_DEFINE_QUARK(rf-cli-error-quark, rf_cli_error)

int rf_cli_exit_code(const GError *error)
{
    gboolean usage = error->domain == G_OPTION_ERROR ||
                     (error->domain == RF_CLI_ERROR && error->code == RF_CLI_ERROR_USAGE);
    return usage ? RF_EXIT_USAGE : RF_EXIT_FAILED;
}

int rf_cli_report(const GError *error)
{
    fprintf(stderr, "rangefinder: %s\n", error->message);
    fflush(stderr);
    return rf_cli_exit_code(error);
}

gboolean rf_cli_parse(GOptionContext *ctx, const char *verb, int *argc, char ***argv, GError **error)
{
    g_autoptr(GError) local = NULL;
    if (!g_option_context_parse(ctx, argc, argv, &local)) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "%s (see `rangefinder %s --help`)", local->message,
                    verb);
        return FALSE;
    }
    if (*argc > 1) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE,
                    "%s: unexpected argument '%s' (see `rangefinder %s --help`)", verb, (*argv)[1], verb);
        return FALSE;
    }
    return TRUE;
}

gboolean rf_cli_fail_status(GError **error, const rf_status *st)
{
    g_set_error_literal(error, RF_CLI_ERROR, RF_CLI_ERROR_FAILED, st->failed ? st->msg : "unknown failure");
    return FALSE;
}

gboolean rf_cli_parse_split(const char *text, rf_split *out, GError **error)
{
    if (g_strcmp0(text, "test") == 0) {
        *out = RF_SPLIT_TEST;
        return TRUE;
    }
    if (g_strcmp0(text, "val") == 0) {
        *out = RF_SPLIT_VAL;
        return TRUE;
    }
    g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "--split '%s': allowed values are test|val", text);
    return FALSE;
}

gboolean rf_cli_parse_any_split(const char *text, rf_split *out, GError **error)
{
    if (g_strcmp0(text, "train") == 0) {
        *out = RF_SPLIT_TRAIN;
        return TRUE;
    }
    if (g_strcmp0(text, "test") != 0 && g_strcmp0(text, "val") != 0) {
        g_set_error(error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "--split '%s': allowed values are test|val|train",
                    text);
        return FALSE;
    }
    return rf_cli_parse_split(text, out, error);
}

int rf_cli_threads(int configured)
{
    return configured > 0 ? configured : rf_cpu_count();
}

char *rf_cli_format_bytes(size_t bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < (int)G_N_ELEMENTS(units) - 1) {
        v /= 1024;
        u++;
    }
    return u == 0 ? g_strdup_printf("%zu B", bytes) : g_strdup_printf("%.1f %s", v, units[u]);
}
