/* The toast over the workbench's views (issue 12 item 4): a line saying
 * what a save or an export wrote, with Open Folder for its folder and a
 * close button, shown for RF_TOAST_SECONDS. Its widgets are the window's
 * (ui/window.ui); this keeps its state and behaviour.
 */
#ifndef RF_UI_TOAST_H
#define RF_UI_TOAST_H

#include <gtk/gtk.h>

#define RF_TOAST_SECONDS 8

typedef struct rf_toast {
    GtkRevealer *revealer;
    GtkLabel *label;
    GtkWidget *open;       /* Open Folder */
    char *folder;          /* what Open Folder opens; NULL: no button */
    guint timeout;         /* hides it */
} rf_toast;

/* Wire the widgets: Open Folder shows the folder, `close` hides the toast. */
void rf_toast_init(rf_toast *t, GtkRevealer *revealer, GtkLabel *label, GtkWidget *open, GtkWidget *close);
void rf_toast_show(rf_toast *t, const char *text, const char *folder);
/* "Saved checkpoint.safetensors in runs/x", offering runs/x. */
void rf_toast_written(rf_toast *t, const char *what, const char *path);
/* The text and folder while it shows, else NULL. */
const char *rf_toast_text(const rf_toast *t);
const char *rf_toast_folder(const rf_toast *t);
void rf_toast_hide(rf_toast *t);
/* Hide and let go of the state (the widgets stay the window's). */
void rf_toast_clear(rf_toast *t);

#endif
