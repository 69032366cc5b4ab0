/* What window.c and window_files.c share: the window's fields and the
 * few functions one calls in the other. Not for the rest of the UI, which
 * goes through window.h. */
#ifndef RF_WINDOW_PRIVATE_H
#define RF_WINDOW_PRIVATE_H

#include <adwaita.h>

#include "toast.h"
#include "window.h"

struct _RfWindow {
    GtkApplicationWindow parent_instance;
    RfSession *session;
    RfConfigPanel *panel;
    gboolean loading_data;      /* an open_data we asked for has not answered yet */
    guint loading_tick;         /* the status line's refresh while it loads */
    gboolean resume_on_cancel;  /* the close question paused a running run */

    GtkWidget *train_button;
    GtkLabel *train_label, *step_label, *eta_label, *status_label;
    GtkProgressBar *progress;
    GtkScrolledWindow *sidebar;
    AdwFlap *flap;                 /* holds the sidebar; folds it away when narrow */
    GtkWidget *sidebar_handle;     /* the sidebar's edge, dragged to resize it */
    GtkToggleButton *sidebar_toggle;
    GtkStack *view_stack;
    GtkScrolledWindow *view_tabs_scroller;   /* holds the view switcher */
    GtkRevealer *restart_banner;   /* an architecture edit waits for a restart */
    AdwToastOverlay *toast_overlay;   /* what a save or an export wrote */
    rf_toast toast;
};

/* The header, the status line and the actions' enabled state, again. */
void rf_window_refresh(RfWindow *win);
/* Load the data the session's config names, the status line following. */
void rf_window_open_data(RfWindow *win);
/* Save a checkpoint, telling the user what was written or what failed. */
gboolean rf_window_save_checkpoint(RfWindow *win, const char *path);
/* Files dropped on the window: inspected through the model. */
gboolean rf_window_on_drop(GtkDropTarget *target, const GValue *value, double x, double y, gpointer user_data);

/* The file and export actions (win.open-data, win.save-checkpoint, ...). */
extern const GActionEntry rf_window_file_actions[];
extern const int rf_window_file_action_count;

#endif
