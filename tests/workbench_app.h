/* The real workbench for the small GUI tests (tests/test_gui_*.c): GTK
 * opened on the test's display, `config` written to `dir`/small.ini, the
 * application registered (non-unique: tests may run beside a workbench the
 * user has open) with the runs folder `dir`/runs (not the user's) and
 * activated, its window open and its data loaded, each step a TAP check. */
#ifndef RF_TESTS_WORKBENCH_APP_H
#define RF_TESTS_WORKBENCH_APP_H

#include <locale.h>

#include "../core/blas_kernels.h"
#include "../ui/application.h"
#include "../ui/window.h"
#include "main_loop.h"
#include "tap.h"

/* The [data] section of the small GUI tests' configs: 64 ListOps training
 * samples of 8-32 tokens, in batches of 8. */
#define RF_TEST_TINY_DATA                                                                                        \
    "[data]\ntask = listops\nmax_len = 32\nmin_len = 8\ntrain_size = 64\nval_size = 16\ntest_size = 16\n"     \
    "batch = 8\n"
/* A one-layer BLRP of width 16 for that data (segments of 8, a latent of 4). */
#define RF_TEST_TINY_BLRP "[model]\nencoder = blrp\nlayers = 1\ndim = 16\nheads = 2\nff = 32\nsegment = 8\nlatent = 4\n"

/* The OpenBLAS kernels the application runs: `rangefinder` re-executes
 * itself with better ones where OpenBLAS's own choice stops short of AVX2
 * (core/blas_kernels.h; an Intel Xeon that OpenBLAS 0.3.21 calls Prescott),
 * so this process's views equal the CLI's output bit for bit only if the test
 * does the same. First thing in main: it may re-execute the test. */
static inline void application_kernels(char **argv)
{
    rf_blas_pick_kernels(argv);
}

/* The window, or NULL (the failed check says why). */
static inline RfWindow *open_workbench(const char *dir, const char *config, RfApplication **app)
{
    setlocale(LC_ALL, "");
    setlocale(LC_NUMERIC, "C");
    gtk_disable_setlocale();
    if (!tap_ok(gtk_init_check(), "GTK opens the display"))
        return NULL;
    g_autofree char *path = g_build_filename(dir, "small.ini", NULL);
    g_mkdir_with_parents(dir, 0700);
    g_file_set_contents(path, config, -1, NULL);
    *app = rf_application_new(path);
    g_autofree char *runs = g_build_filename(dir, "runs", NULL);
    rf_application_set_runs_dir(*app, runs);
    g_application_set_flags(G_APPLICATION(*app), g_application_get_flags(G_APPLICATION(*app)) | G_APPLICATION_NON_UNIQUE);
    g_autoptr(GError) error = NULL;
    tap_ok(g_application_register(G_APPLICATION(*app), NULL, &error), "the application registers");
    g_application_activate(G_APPLICATION(*app));
    RfWindow *win = RF_WINDOW(gtk_application_get_active_window(GTK_APPLICATION(*app)));
    if (!tap_ok(win != NULL, "activation opens the main window"))
        return NULL;
    tap_ok(spin_until(data_loaded, rf_window_get_session(win), 60.0), "the data loads");
    return win;
}

static inline void close_workbench(RfWindow *win, RfApplication *app)
{
    gtk_window_destroy(GTK_WINDOW(win));
    spin_for(0.2);
    g_object_unref(app);
}

#endif
