/* rangefinder: dispatch on the verb. With no arguments it will start the
 * workbench; until the GUI exists it runs the default training job. */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

typedef struct verb {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} verb;

static const verb verbs[] = {
    {"train", rf_cmd_train, "train a model from a config file, or resume a run"},
    {"eval", rf_cmd_eval, "evaluate a checkpoint on the test or val split"},
    {"bench", rf_cmd_bench, "time training steps; measured memory against the plan"},
    {"memory", rf_cmd_memory, "plan memory over sequence lengths (nothing is trained)"},
    {"config", rf_cmd_config, "list every config key, or show a file's effective config"},
    {"inspect", rf_cmd_inspect, "write a checkpoint's probes for one sample as .npy files"},
    {"make-dataset", rf_cmd_make_dataset, "build a data set on disk (spoken-digits)"},
};

static void print_usage(FILE *out)
{
    fprintf(out, "Usage:\n  rangefinder VERB [OPTION…]\n\n"
                 "A workbench for long-range sequence models.\n\nVerbs:\n");
    for (size_t i = 0; i < G_N_ELEMENTS(verbs); i++)
        fprintf(out, "  %-12s %s\n", verbs[i].name, verbs[i].summary);
    fprintf(out, "\n`rangefinder VERB --help` lists a verb's options. With no arguments, rangefinder\n"
                 "runs the default training job (%s/configs/default.ini).\n", RF_DATADIR);
}

/* The first-run job: runs/default, or runs/default-N when that one holds a
 * finished run, so running the program twice never fails. */
static int run_default(void)
{
    g_autofree char *config = g_build_filename(RF_DATADIR, "configs", "default.ini", NULL);
    g_autofree char *out = g_strdup("runs/default");
    g_autofree char *checkpoint = g_build_filename(out, "checkpoint.safetensors", NULL);
    for (int n = 2; g_file_test(checkpoint, G_FILE_TEST_EXISTS); n++) {
        g_free(out);
        g_free(checkpoint);
        out = g_strdup_printf("runs/default-%d", n);
        checkpoint = g_build_filename(out, "checkpoint.safetensors", NULL);
    }
    fprintf(stderr,
            "rangefinder: the GUI is not built yet; running `rangefinder train --config %s --out %s` instead\n",
            config, out);
    char *argv[] = {"train", "--config", config, "--out", out, NULL};
    g_set_prgname("rangefinder train");
    return rf_cmd_train(5, argv);
}

int main(int argc, char **argv)
{
    /* UTF-8 help texts, but '.' as the decimal point everywhere. */
    setlocale(LC_ALL, "");
    setlocale(LC_NUMERIC, "C");

    if (argc < 2)
        return run_default();
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        print_usage(stdout);
        return RF_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0) {
        printf("rangefinder %s\n", RF_VERSION);
        return RF_EXIT_OK;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(verbs); i++) {
        if (strcmp(name, verbs[i].name) == 0) {
            g_autofree char *prgname = g_strdup_printf("rangefinder %s", name);
            g_set_prgname(prgname);
            return verbs[i].run(argc - 1, argv + 1);
        }
    }
    fprintf(stderr, "rangefinder: unknown verb '%s' (see `rangefinder --help`)\n", name);
    return RF_EXIT_USAGE;
}
