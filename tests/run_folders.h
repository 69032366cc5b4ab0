/* Run folders as `rangefinder train --runs DIR` writes them (config.ini
 * with every key, metrics.csv, a checkpoint file), for the runs table's
 * tests and bench/bench_runs.c. The metrics are synthetic but shaped like a
 * real run's: a train row every `log_every` steps, a val row every 100, a
 * test row at the end when the run finished. */
#ifndef RF_TESTS_RUN_FOLDERS_H
#define RF_TESTS_RUN_FOLDERS_H

#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <time.h>
#include <utime.h>

#include "../config/config_file.h"

typedef struct fake_run {
    const char *folder;
    const char *const *sets;    /* "model.dim=32", ...; NULL-terminated, may be NULL */
    int steps;                  /* the rows go up to this step */
    int log_every;              /* a train row every this many steps (0: 1) */
    gboolean finished;          /* a test row at the end */
    gboolean checkpoint;        /* a (placeholder) checkpoint file */
    double age_seconds;         /* the files' age: 0 = just written */
} fake_run;

/* Write the run folder root/run->folder; returns its path (g_free). */
static inline char *write_fake_run(const char *root, const fake_run *run)
{
    char *dir = g_build_filename(root, run->folder, NULL);
    g_mkdir_with_parents(dir, 0700);
    rf_config cfg;
    rf_config_defaults(&cfg);
    g_autoptr(GError) error = NULL;
    if (!rf_config_apply_sets(&cfg, run->sets, &error))
        g_error("%s", error->message);
    g_autofree char *ini = g_build_filename(dir, "config.ini", NULL);
    rf_config_write_ini(&cfg, ini, " written by tests/run_folders.h", NULL);

    GString *csv = g_string_new("step,split,loss,accuracy,lr,seconds\n");
    int every = run->log_every > 0 ? run->log_every : 1;
    double seconds = 0;
    for (int step = every; step <= run->steps; step += every) {
        double t = (double)step / run->steps;
        seconds += 0.05 * every;
        g_string_append_printf(csv, "%d,train,%.6g,%.6g,0.001,%.3f\n", step, 2.3 * exp(-2 * t) + 0.1,
                               0.1 + 0.6 * t, seconds);
        if (step % 100 == 0) {
            seconds += 0.4;
            g_string_append_printf(csv, "%d,val,%.6g,%.6g,0.001,%.3f\n", step, 2.3 * exp(-2 * t) + 0.2,
                                   0.1 + 0.5 * t, seconds);
        }
    }
    if (run->finished)
        g_string_append_printf(csv, "%d,test,1.1,0.55,0.001,%.3f\n", run->steps, seconds + 0.4);
    g_autofree char *metrics = g_build_filename(dir, "metrics.csv", NULL);
    g_file_set_contents(metrics, csv->str, (gssize)csv->len, NULL);
    g_string_free(csv, TRUE);
    g_autofree char *checkpoint = g_build_filename(dir, "checkpoint.safetensors", NULL);
    if (run->checkpoint)
        g_file_set_contents(checkpoint, "placeholder", -1, NULL);
    if (run->age_seconds > 0) {
        struct utimbuf old = {.actime = time(NULL) - (time_t)run->age_seconds,
                              .modtime = time(NULL) - (time_t)run->age_seconds};
        g_utime(metrics, &old);
        g_utime(ini, &old);
        if (run->checkpoint)
            g_utime(checkpoint, &old);
    }
    return dir;
}

#endif
