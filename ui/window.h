/* RfWindow: the workbench's main window (template ui/window.ui). Header bar
 * with Train / Pause / Step / Stop, the step counter, progress and ETA; the
 * configuration sidebar; the views in a stack (Training, Attention, Latent,
 * TaLK, Memory, Data, Compare); a status line. Its actions (win.*) are
 * listed in ui/shortcuts.ui with their accelerators (set by RfApplication).
 * Closing it during a run pauses the run and offers to save a checkpoint.
 */
#ifndef RF_WINDOW_H
#define RF_WINDOW_H

#include <gtk/gtk.h>

#include "config_panel.h"
#include "plot/export_options.h"
#include "session.h"

G_BEGIN_DECLS

#define RF_TYPE_WINDOW (rf_window_get_type())
G_DECLARE_FINAL_TYPE(RfWindow, rf_window, RF, WINDOW, GtkApplicationWindow)

RfWindow *rf_window_new(GtkApplication *app, RfSession *session);

RfSession *rf_window_get_session(RfWindow *win);
/* The stack of views; pages are named training, attention, latent, talk,
 * memory, data, compare. */
GtkStack *rf_window_get_stack(RfWindow *win);
RfConfigPanel *rf_window_get_config_panel(RfWindow *win);
/* The status line's text ("loss 1.73 · acc 0.38 · 0.21 s/step · …"). */
const char *rf_window_get_status_text(RfWindow *win);
/* The header's step counter ("step 1,240 / 5,000", "last run: step 6 / 6"). */
const char *rf_window_get_step_text(RfWindow *win);

/* A toast over the views for RF_TOAST_SECONDS (ui/toast.h): `text`, and an Open Folder
 * button for `folder` (may be NULL). Saves and exports confirm this way. */
void rf_window_toast(RfWindow *win, const char *text, const char *folder);
/* The toast's text and folder while it shows, else NULL. */
const char *rf_window_get_toast(RfWindow *win);
const char *rf_window_get_toast_folder(RfWindow *win);
/* Whether the banner above the views offers to restart the run (an
 * architecture edit of a running or paused run waits for it). */
gboolean rf_window_restart_offered(RfWindow *win);

/* Export the plot of view `page` (a stack page name; NULL: the visible one)
 * to `path` (.png, .svg or .pdf) at the size, resolution and font size of
 * `options`, with the zoom shown on screen. A failure leaves any old file
 * at `path` as it was. */
gboolean rf_window_export_plot_with(RfWindow *win, const char *page, const char *path,
                                    const rf_export_options *options, GError **error);
/* The same at width x height pixels at 96 dpi. */
gboolean rf_window_export_plot(RfWindow *win, const char *page, const char *path, int width, int height,
                               GError **error);
/* The same, a failure shown in an error dialog naming the file: what
 * "Export plot…" does once its dialogs are answered. */
gboolean rf_window_export_plot_or_explain(RfWindow *win, const char *page, const char *path, int width, int height);
/* Files and folders handed to the application (GApplication's open): a
 * run folder is drawn in the Training view (shown) beside the session's
 * runs, a .safetensors checkpoint is opened as Open Checkpoint… does, any
 * other file inspected as a dropped one. Failures show in error dialogs
 * naming the file. */
void rf_window_open_files(RfWindow *win, GFile **files, int n_files);
/* Open the data the config names (rf_session_open_data), showing a
 * failure in an error dialog. */
void rf_window_reload_data(RfWindow *win);
/* Point data.path at `path` and reopen the data; a failure (here or when
 * the data loads) is shown in an error dialog. What "Open data…" does with
 * the chosen folder. */
void rf_window_open_data_path(RfWindow *win, const char *path);

G_END_DECLS

#endif
