/* `rangefinder config`: the key reference (--list) and a config file's
 * effective values (--show). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "config_file.h"

static char *allowed_text(const rf_config_key *k)
{
    switch (k->type) {
    case RF_KEY_INT:
        return g_strdup_printf("%.0f..%.0f", k->min, k->max);
    case RF_KEY_FLOAT:
        return g_strdup_printf("%.10g..%.10g", k->min, k->max);
    case RF_KEY_U64:
        return g_strdup("integer >= 0");
    case RF_KEY_CHOICE:
        return g_strdup(k->choices);
    case RF_KEY_STRING:
        return g_strdup("text");
    }
    g_assert_not_reached();
}

static void list_keys(void)
{
    int wname = 0, wdef = 0, wallowed = 0;
    for (const rf_config_key *k = rf_config_keys; k->section != NULL; k++) {
        g_autofree char *allowed = allowed_text(k);
        wname = MAX(wname, (int)(strlen(k->section) + 1 + strlen(k->key)));
        wdef = MAX(wdef, (int)strlen(k->def[0] ? k->def : "\"\""));
        wallowed = MAX(wallowed, (int)strlen(allowed));
    }
    for (const rf_config_key *k = rf_config_keys; k->section != NULL; k++) {
        g_autofree char *name = g_strdup_printf("%s.%s", k->section, k->key);
        g_autofree char *allowed = allowed_text(k);
        printf("%-*s  %-*s  %-*s  %s\n", wname, name, wdef, k->def[0] ? k->def : "\"\"", wallowed, allowed,
               k->help);
    }
}

int rf_cmd_config(int argc, char **argv)
{
    g_autofree char *config = NULL;
    g_auto(GStrv) sets = NULL;
    gboolean list = FALSE, show = FALSE;
    const GOptionEntry entries[] = {
        {"list", 'l', 0, G_OPTION_ARG_NONE, &list, "Every key: name, default, allowed values, meaning", NULL},
        {"show", 0, 0, G_OPTION_ARG_NONE, &show, "The effective config of --config with --set, as INI", NULL},
        {"config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "Config file (INI) for --show", "FILE"},
        {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Override one key (repeatable)", "SECTION.KEY=VALUE"},
        G_OPTION_ENTRY_NULL,
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_summary(ctx,
        "The config keys. An INI file sets keys by section:\n"
        "  [model]\n  dim = 64\n"
        "sets model.dim; --set model.dim=64 does the same from the command line.");
    g_option_context_set_description(ctx,
        "Examples:\n  rangefinder config --list\n"
        "  rangefinder config --show --config data/configs/default.ini --set model.layers=4\n");

    g_autoptr(GError) error = NULL;
    if (!rf_cli_parse(ctx, "config", &argc, &argv, &error))
        return rf_cli_report(error);
    if (list == show)
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE,
                    "config needs one of --list or --show (see `rangefinder config --help`)");
    else if (show && config == NULL)
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "config --show needs --config FILE");
    else if (list && (config != NULL || sets != NULL))
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "config --list takes no --config or --set");
    if (error != NULL)
        return rf_cli_report(error);

    if (list) {
        list_keys();
        return RF_EXIT_OK;
    }
    rf_config cfg;
    if (!rf_config_load_ini(config, (const char *const *)sets, &cfg, &error))
        return rf_cli_report(error);
    g_autofree char *comment = g_strdup_printf(" Effective configuration of %s", config);
    g_autofree char *text = rf_config_to_ini(&cfg, comment);
    fputs(text, stdout);
    return RF_EXIT_OK;
}
