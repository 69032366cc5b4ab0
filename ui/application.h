/* RfApplication: the workbench's AdwApplication (id org.rangefinder.Workbench,
 * unique: launching it again raises the open window, and hands it the files
 * and run folders named on the command line, which the window opens:
 * rf_window_open_files). It owns the session,
 * loads the starting configuration into it, opens the data and shows the
 * main window; app.quit, app.about, app.help (the user guide,
 * config/data_dir.h's rf_user_guide), app.shortcuts and app.style (follow the
 * system's light or dark style, or force one; remembered, ui/settings.h)
 * live here, and the keyboard accelerators of every action.
 */
#ifndef RF_APPLICATION_H
#define RF_APPLICATION_H

#include <adwaita.h>

#include "session.h"

G_BEGIN_DECLS

#define RF_APPLICATION_ID "org.rangefinder.Workbench"

#define RF_TYPE_APPLICATION (rf_application_get_type())
G_DECLARE_FINAL_TYPE(RfApplication, rf_application, RF, APPLICATION, AdwApplication)

/* config_path: the INI to start from (NULL: data/configs/default.ini). */
RfApplication *rf_application_new(const char *config_path);
/* The runs folder the workbench records its runs in and lists in the Runs
 * view (NULL: the runs-folder preference, when set, else
 * $XDG_DATA_HOME/rangefinder/runs); before activation. */
void rf_application_set_runs_dir(RfApplication *app, const char *dir);
/* The session (created on the first activation; NULL before). */
RfSession *rf_application_get_session(RfApplication *app);

G_END_DECLS

#endif
