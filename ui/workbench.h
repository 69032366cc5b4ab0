/* The GTK 4 workbench, started by `rangefinder gui` and by `rangefinder`
 * with no arguments where a display opens. */
#ifndef RF_WORKBENCH_H
#define RF_WORKBENCH_H

#include <glib.h>

/* Prepare GTK for the workbench and connect to the display; FALSE when
 * there is none. Later calls return the first call's answer. */
gboolean rf_workbench_open_display(void);

/* Run the application (GtkApplication, id org.rangefinder.Workbench) with
 * `config_path` (may be NULL: data/configs/default.ini) as the starting
 * configuration and `runs_dir` (may be NULL: the default runs folder) as
 * its runs folder. Without a display, prints how to train from the command
 * line instead and returns 1. Returns the exit status. */
int rf_workbench_run(const char *config_path, const char *runs_dir, int argc, char **argv);

#endif
