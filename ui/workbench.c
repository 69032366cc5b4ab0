/* rf_workbench_run: the entry point `rangefinder` calls with no arguments. */
#include "workbench.h"

#include <stdio.h>

#include "application.h"

int rf_workbench_run(const char *config_path, int argc, char **argv)
{
    /* main() has set the locale, with '.' as the decimal point for configs
     * and numbers; GTK would reset all of it to the environment's. */
    gtk_disable_setlocale();
    if (!gtk_init_check()) {
        fprintf(stderr, "rangefinder: no display; to train from the command line run "
                        "`rangefinder train --config FILE`\n");
        return 1;
    }
    g_set_application_name("Rangefinder");
    g_autoptr(RfApplication) app = rf_application_new(config_path);
    return g_application_run(G_APPLICATION(app), argc, argv);
}
