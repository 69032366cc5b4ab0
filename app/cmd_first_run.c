/* `rangefinder` without a verb where no workbench can open (no display, or
 * a build without GTK), and `rangefinder --runs DIR | --set K=V | --config
 * FILE` anywhere: the first run's job from the command line. It trains the
 * default config into a new folder of the runs folder (config/run_folder.h)
 * with `train`'s progress and summary, then says where the run is and how
 * to plot it or open it in the workbench. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "run_folder.h"

/* `text` as one shell word: as it is when it needs no quoting. */
static char *shell_word(const char *text)
{
    for (const char *c = text; *c != '\0'; c++)
        if (!g_ascii_isalnum(*c) && !strchr("/._-+:,=@%", *c))
            return g_shell_quote(text);
    return g_strdup(text);
}

static void print_where(const char *program, const char *dir)
{
    g_autofree char *prog = shell_word(program);
    g_autofree char *d = shell_word(dir);
    g_autofree char *png = g_build_filename(dir, "curves.png", NULL);
    g_autofree char *ini = g_build_filename(dir, "config.ini", NULL);
    g_autofree char *ckpt = g_build_filename(dir, "checkpoint.safetensors", NULL);
    g_autofree char *png_w = shell_word(png), *ini_w = shell_word(ini), *ckpt_w = shell_word(ckpt);
    printf("The run is in %s (config.ini, metrics.csv, checkpoint.safetensors).\n", d);
    printf("Plot its curves: %s plot %s --out %s\n", prog, d, png_w);
    printf("Open it in the workbench: %s gui --config %s, then Open Checkpoint (Ctrl+Shift+O) %s\n", prog, ini_w,
           ckpt_w);
    printf("Train on: %s train --resume %s --set train.steps=N\n", prog, d);
}

int rf_cmd_first_run(int argc, char **argv, const char *default_config, const char *why)
{
    g_autofree char *config = NULL, *runs = NULL;
    g_auto(GStrv) sets = NULL;
    const GOptionEntry entries[] = {
        {"config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "Config file (INI)", "FILE"},
        {"runs", 0, 0, G_OPTION_ARG_FILENAME, &runs, "The runs folder", "DIR"},
        {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Override one key (repeatable)", "SECTION.KEY=VALUE"},
        G_OPTION_ENTRY_NULL,
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_help_enabled(ctx, FALSE);
    const char *program = argv[0];
    g_autoptr(GError) error = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        g_autoptr(GError) usage = g_error_new(RF_CLI_ERROR, RF_CLI_ERROR_USAGE, "%s (see `rangefinder --help`)",
                                              error->message);
        return rf_cli_report(usage);
    }
    if (argc > 1) {
        g_set_error(&error, RF_CLI_ERROR, RF_CLI_ERROR_USAGE,
                    "unexpected argument '%s' (see `rangefinder --help`)", argv[1]);
        return rf_cli_report(error);
    }
    if (config == NULL)
        config = g_strdup(default_config);
    if (runs == NULL)
        runs = rf_runs_default_dir();
    if (why != NULL)
        printf("%s: training %s from the command line instead, into a new folder of %s (Ctrl-C stops and saves)\n",
               why, config, runs);
    fflush(stdout);

    g_autofree char *dir = NULL;
    int code = rf_train_new_run(config, (const char *const *)sets, NULL, runs, NULL, &dir);
    if ((code == RF_EXIT_OK || code == RF_EXIT_INTERRUPTED) && dir != NULL)
        print_where(program, dir);
    return code;
}
