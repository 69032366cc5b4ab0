/* The GTK 4 workbench, started by `rangefinder` with no arguments. */
#ifndef RF_WORKBENCH_H
#define RF_WORKBENCH_H

/* Run the application (GtkApplication, id org.rangefinder.Workbench) with
 * `config_path` (may be NULL: data/configs/default.ini) as the starting
 * configuration. Without a display, prints how to train from the command
 * line instead and returns 1. Returns the exit status. */
int rf_workbench_run(const char *config_path, int argc, char **argv);

#endif
