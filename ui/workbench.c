/* rf_workbench_run: the entry point of `rangefinder gui` and of `rangefinder`
 * with no arguments on a display. */
#include "workbench.h"

#include <stdio.h>

#include "application.h"

gboolean rf_workbench_open_display(void)
{
    /* GTK is set up once; main() asks before rf_workbench_run does. */
    static gboolean tried, opened;
    if (tried)
        return opened;
    tried = TRUE;
    /* main() has set the locale, with '.' as the decimal point for configs
     * and numbers; GTK would reset all of it to the environment's. */
    gtk_disable_setlocale();
    /* Every view draws with cairo, so GTK's cairo renderer only has to
     * composite finished images. Its GL renderer costs 90-180 ms a frame on
     * a machine without a GPU (software GL takes the training core) and
     * gains little on one with a GPU (docs/bench-gui.md). GSK_RENDERER set
     * by the user wins. */
    g_setenv("GSK_RENDERER", "cairo", FALSE);
    opened = gtk_init_check();
    return opened;
}

int rf_workbench_run(const char *config_path, const char *runs_dir, int argc, char **argv)
{
    if (!rf_workbench_open_display()) {
        fprintf(stderr, "rangefinder: no display; to train from the command line run `rangefinder` without "
                        "arguments, or `rangefinder train --config FILE`\n");
        return 1;
    }
    g_set_application_name("Rangefinder");
    g_autoptr(RfApplication) app = rf_application_new(config_path);
    rf_application_set_runs_dir(app, runs_dir);
    return g_application_run(G_APPLICATION(app), argc, argv);
}
