/* The toast over the workbench's views (issue 12 item 4): a line saying
 * what a save or an export wrote, with Open Folder for its folder, shown
 * for RF_TOAST_SECONDS in the window's AdwToastOverlay (libadwaita's toast,
 * as GNOME's own apps show them). This keeps which toast is up, so the
 * window can say what it shows.
 */
#ifndef RF_UI_TOAST_H
#define RF_UI_TOAST_H

#include <adwaita.h>

#define RF_TOAST_SECONDS 8

typedef struct rf_toast {
    AdwToastOverlay *overlay;
    AdwToast *shown;       /* the toast on screen, or NULL */
    char *text, *folder;   /* its text, and what Open Folder opens (NULL: no button) */
    gint64 shown_at;       /* when it was added (monotonic microseconds) */
    /* A toast that replaces one still sliding in waits until it is in:
     * libadwaita 1.2 frees the first one's show animation twice when it is
     * dismissed during that animation (a crash). */
    guint pending_id;
    char *pending_text, *pending_folder;
} rf_toast;

void rf_toast_init(rf_toast *t, AdwToastOverlay *overlay);
void rf_toast_show(rf_toast *t, const char *text, const char *folder);
/* "Saved checkpoint.safetensors in runs/x", offering runs/x. */
void rf_toast_written(rf_toast *t, const char *what, const char *path);
/* The text and folder while it shows, else NULL. */
const char *rf_toast_text(const rf_toast *t);
const char *rf_toast_folder(const rf_toast *t);
/* Open the shown toast's folder and dismiss it (its button does this). */
void rf_toast_open_folder(rf_toast *t);
/* Dismiss the shown toast (and drop one waiting) and let go of its state. */
void rf_toast_hide(rf_toast *t);

#endif
