/* rangefinder: dispatch on the verb. With no arguments it opens the GTK
 * workbench where a display opens, and otherwise (or with options but no
 * verb) trains the default config from the command line into the runs
 * folder; every verb but gui works without a display. */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "../core/blas_kernels.h"
#include "../core/cpu/cpu_features.h"
#include "../core/tiles.h"
#if RF_HAVE_GUI
#include "../ui/workbench.h"
#endif
#include "../core/device.h"
#include "cli.h"
#include "commands.h"
#include "rank_watch.h"
#include "ranks.h"
#include "../parallel/launch.h"
#include "data_dir.h"
#include "run_folder.h"
#include "version.h"   /* generated: RF_GIT_REVISION */

typedef struct verb {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
    bool across_ranks;    /* runs as one rank of an MPI job (app/ranks.h) */
} verb;

static int run_gui(int argc, char **argv);
static int dispatch(int argc, char **argv);

static const verb verbs[] = {
    {"gui", run_gui, "open the workbench (what `rangefinder` with no arguments does)", false},
    {"train", rf_cmd_train, "train a model from a config file, or resume a run (also under mpirun)", true},
    {"eval", rf_cmd_eval, "evaluate a checkpoint on the test or val split", false},
    {"bench", rf_cmd_bench, "time training steps; measured memory against the plan (also under mpirun)", true},
    {"memory", rf_cmd_memory, "plan memory over sequence lengths (nothing is trained)", false},
    {"config", rf_cmd_config, "list every config key, or show a file's effective config", false},
    {"inspect", rf_cmd_inspect, "write a checkpoint's probes for one sample or your input as .npy files", false},
    {"project", rf_cmd_project, "reduce a checkpoint's representations by PCA (CSV, TensorBoard projector)", false},
    {"predict", rf_cmd_predict, "classify your own files and texts with a checkpoint (JSON lines)", false},
    {"make-dataset", rf_cmd_make_dataset, "build a data set on disk (spoken-digits)", false},
    {"sweep", rf_cmd_sweep, "grid or random search over config keys with a budget and early stopping", false},
    {"plot", rf_cmd_plot, "draw runs' training or memory figure to PNG, SVG or PDF (no display)", false},
};

static void print_usage(FILE *out)
{
    fprintf(out, "Usage:\n  rangefinder VERB [OPTION…]\n\n"
                 "A workbench for long-range sequence models.\n\nVerbs:\n");
    for (size_t i = 0; i < G_N_ELEMENTS(verbs); i++)
        fprintf(out, "  %-13s %s\n", verbs[i].name, verbs[i].summary);
    g_autofree char *runs = rf_runs_default_dir();
    g_autofree char *data = rf_data_dir();
    fprintf(out, "\n`rangefinder VERB --help` lists a verb's options. `rangefinder CHECKPOINT|RUNDIR`\n"
                 "opens that checkpoint or run in the workbench. With no arguments, rangefinder\n"
                 "opens the workbench with %s/configs/default.ini. Without a display, or\n"
                 "with options but no verb, it trains that config from the command line into a new\n"
                 "folder of the runs folder (default %s):\n"
                 "  rangefinder [--config FILE] [--runs DIR] [--set SECTION.KEY=VALUE ...]\n",
            data, runs);
}

/* `--NAME VALUE` or `--NAME=VALUE` at argv[*i] into *value. */
static gboolean take_option(char **argv, int argc, int *i, const char *name, const char **value)
{
    size_t n = strlen(name);
    if (strcmp(argv[*i], name) == 0 && *i + 1 < argc) {
        *value = argv[++*i];
        return TRUE;
    }
    if (strncmp(argv[*i], name, n) == 0 && argv[*i][n] == '=') {
        *value = argv[*i] + n + 1;
        return TRUE;
    }
    return FALSE;
}

/* `rangefinder gui [--config FILE] [--runs DIR] [FILE|RUNDIR ...]`, and
 * `rangefinder FILE|RUNDIR ...` */
static int run_gui(int argc, char **argv)
{
    const char *config = NULL, *runs = NULL;
    g_autoptr(GPtrArray) gtk_argv = g_ptr_array_new();
    g_ptr_array_add(gtk_argv, (char *)"rangefinder");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            g_autofree char *default_runs = rf_runs_default_dir();
            g_autofree char *data = rf_data_dir();
            printf("Usage:\n  rangefinder gui [--config FILE] [--runs DIR] [CHECKPOINT|RUNDIR|FILE ...]\n\n"
                   "Open the workbench, starting from FILE (default %s/configs/default.ini). Its runs\n"
                   "are recorded in, and the Runs view lists, the runs folder DIR (default %s).\n"
                   "A checkpoint (.safetensors) named after the options is opened, a run folder drawn\n"
                   "in the Training view, another file inspected through the model; when the\n"
                   "workbench is open already, its window opens them.\n",
                   data, default_runs);
            return RF_EXIT_OK;
        }
        if (take_option(argv, argc, &i, "--config", &config) || take_option(argv, argc, &i, "--runs", &runs))
            continue;
        if (argv[i][0] == '-') {
            fprintf(stderr, "rangefinder: gui: unexpected argument '%s' (see `rangefinder gui --help`)\n", argv[i]);
            return RF_EXIT_USAGE;
        }
        if (!g_file_test(argv[i], G_FILE_TEST_EXISTS)) {
            fprintf(stderr, "rangefinder: gui: %s: no such file or folder\n", argv[i]);
            return RF_EXIT_USAGE;
        }
        g_ptr_array_add(gtk_argv, argv[i]);
    }
#if RF_HAVE_GUI
    g_ptr_array_add(gtk_argv, NULL);
    return rf_workbench_run(config, runs, (int)gtk_argv->len - 1, (char **)gtk_argv->pdata);
#else
    (void)config;
    (void)runs;
    fprintf(stderr, "rangefinder: this build has no workbench (GTK 4 was not found or -Dgui=disabled; rebuild with "
                    "meson setup -Dgui=enabled); every other verb works, e.g. rangefinder train --config FILE\n");
    return RF_EXIT_FAILED;
#endif
}

/* `rangefinder` without a verb: the workbench, or the first run's job from
 * the command line. */
static int run_default(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        print_usage(stdout);
        return RF_EXIT_OK;
    }
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        if (RF_GIT_REVISION[0] != '\0')
            printf("rangefinder %s (git %s)\n", RF_VERSION, RF_GIT_REVISION);
        else
            printf("rangefinder %s\n", RF_VERSION);
        /* what the timed choices (matrix products, attention tiles) are kept under */
        printf("CPU %s; attention tiles RF_TILES = %s\n", rf_cpu_key(), rf_tiles_mode());
        return RF_EXIT_OK;
    }
    const char *why = NULL;
    if (argc < 2) {
#if RF_HAVE_GUI
        if (rf_workbench_open_display()) {
            char *gtk_argv[] = {"rangefinder", NULL};
            return rf_workbench_run(NULL, NULL, 1, gtk_argv);
        }
        why = "no display";
#else
        why = "this build has no workbench (GTK 4 was not found or -Dgui=disabled)";
#endif
    }
    g_autofree char *data = rf_data_dir();
    g_autofree char *config = g_build_filename(data, "configs", "default.ini", NULL);
    return rf_cmd_first_run(argc, argv, config, why);
}

#if RF_HAVE_CUDA
/* The CUDA backend is a module, loaded when a CUDA device is first asked
 * for (core/device.h): kernels/librfcuda.so beside the program in a build
 * tree or a bundle, otherwise where meson installed it relative to the
 * program's folder (so an installed tree can move). */
static void use_cuda_module(void)
{
    g_autofree char *beside = rf_path_from_program("kernels/librfcuda.so");
    g_autofree char *installed = rf_path_from_program(RF_CUDA_MODULE_FROM_BINDIR);
    rf_device_set_cuda_module(beside != NULL && g_file_test(beside, G_FILE_TEST_EXISTS) ? beside : installed);
}
#endif

int main(int argc, char **argv)
{
    /* Before anything else: this may execute the program again. */
    rf_blas_pick_kernels(argv);
#if RF_HAVE_CUDA
    use_cuda_module();
#endif
    /* UTF-8 help texts, but '.' as the decimal point everywhere. */
    setlocale(LC_ALL, "");
    setlocale(LC_NUMERIC, "C");
    /* One rank of an MPI job: fork before MPI and CUDA start, so that the
     * parent can name this rank if it is killed (rank_watch.h). */
    if (rf_launched_by_mpi())
        rf_rank_watch_start();
    if (!rf_ranks_start(&argc, &argv))
        return RF_EXIT_FAILED;
    return rf_ranks_finish(dispatch(argc, argv));
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2 || argv[1][0] == '-') {
        if (!rf_ranks_single_only("rangefinder without a verb"))
            return RF_EXIT_USAGE;
        return run_default(argc, argv);
    }
    const char *name = argv[1];
    if (strcmp(name, "help") == 0) {
        print_usage(stdout);
        return RF_EXIT_OK;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(verbs); i++) {
        if (strcmp(name, verbs[i].name) == 0) {
            g_autofree char *prgname = g_strdup_printf("rangefinder %s", name);
            g_set_prgname(prgname);
            if (!verbs[i].across_ranks && !rf_ranks_single_only(name))
                return RF_EXIT_USAGE;
            return verbs[i].run(argc - 1, argv + 1);
        }
    }
    /* `rangefinder FILE.safetensors`, `rangefinder RUNDIR`: the workbench opens them */
    if (g_file_test(name, G_FILE_TEST_EXISTS))
        return run_gui(argc, argv);
    fprintf(stderr, "rangefinder: unknown verb '%s' (see `rangefinder --help`)\n", name);
    return RF_EXIT_USAGE;
}
