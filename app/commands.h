/* The verbs of `rangefinder VERB [OPTION…]`. Each parses its own options
 * (argv[0] is the verb) and returns the process exit code. */
#ifndef RF_APP_COMMANDS_H
#define RF_APP_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int rf_cmd_train(int argc, char **argv);
int rf_cmd_eval(int argc, char **argv);
int rf_cmd_bench(int argc, char **argv);
int rf_cmd_memory(int argc, char **argv);
int rf_cmd_config(int argc, char **argv);
int rf_cmd_inspect(int argc, char **argv);
int rf_cmd_predict(int argc, char **argv);
int rf_cmd_project(int argc, char **argv);
int rf_cmd_make_dataset(int argc, char **argv);
int rf_cmd_plot(int argc, char **argv);
int rf_cmd_sweep(int argc, char **argv);

/* `rangefinder` without a verb on a machine without a workbench: train
 * `default_config` into a new folder of the runs folder (app/cmd_first_run.c).
 * `why` (may be NULL) says why it does not open the workbench. */
int rf_cmd_first_run(int argc, char **argv, const char *default_config, const char *why);

/* A new run of `config` (with --set `sets`) into `out`, or a new folder in
 * `runs` (config/run_folder.h), or runs/<config name>; progress, summary and
 * errors as `rangefinder train` prints them; `init` (may be NULL) a checkpoint
 * whose weights it starts from (train --init). `dir` (may be NULL) receives
 * the run's folder, NULL when none was chosen. Returns the exit status. */
int rf_train_new_run(const char *config, const char *const *sets, const char *out, const char *runs,
                     const char *init, char **dir);

/* What `rangefinder sweep` asks of a run it trains (app/cmd_sweep.c). */
typedef struct rf_train_watch {
    /* At each validation row (the run's step, its loss and accuracy): true
     * stops the run there, the checkpoint saved, with the reason written
     * into `why` (shown on the progress line). */
    bool (*evaluated)(void *ctx, int64_t step, double loss, double accuracy, char *why, size_t size);
    void *ctx;
    bool stopped;         /* set when `evaluated` stopped the run */
    char why[512];
    char failure[1024];   /* the error, when the run failed */
} rf_train_watch;

/* A run in folder `out` under `watch`: a new one of `config` with `sets`,
 * or, where `out` holds a checkpoint already (a run that was interrupted),
 * that run resumed. Progress and the result line as `rangefinder train`
 * prints them. Returns the exit status: RF_EXIT_OK also when `watch`
 * stopped it (watch->stopped), RF_EXIT_INTERRUPTED at Ctrl-C. */
int rf_train_watched_run(const char *config, const char *const *sets, const char *out, rf_train_watch *watch);

#endif
