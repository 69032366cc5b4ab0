/* The workbench's dialogs: error messages, the close-while-training
 * question and file choosers (the plot export dialog: export_dialog.h). All are
 * asynchronous (the main loop keeps running, training keeps reporting); each
 * reports its answer through a callback.
 */
#ifndef RF_DIALOGS_H
#define RF_DIALOGS_H

#include <gtk/gtk.h>
#include <stdint.h>

#include "start_folders.h"

G_BEGIN_DECLS

/* A modal error message over `parent`: `what` is the headline ("Could not
 * open the data"), `detail` the message that says what and where (a GError's
 * message). The app stays usable; the dialog closes on OK. */
void rf_dialog_error(GtkWindow *parent, const char *what, const char *detail);
/* The headline and detail of the last error shown (NULL before any), so
 * tests can check the error path without clicking a modal dialog. */
const char *rf_dialog_last_error(void);
const char *rf_dialog_last_error_detail(void);

/* The same for something that went through with a caveat ("2 files
 * skipped"): a warning icon, and its own last headline and detail. */
void rf_dialog_warning(GtkWindow *parent, const char *what, const char *detail);
const char *rf_dialog_last_warning(void);
const char *rf_dialog_last_warning_detail(void);

typedef enum {
    RF_CLOSE_SAVE,      /* save a checkpoint first */
    RF_CLOSE_DISCARD,   /* close without saving */
    RF_CLOSE_CANCEL,    /* keep the window open */
} RfCloseAnswer;

typedef void (*RfCloseCallback)(RfCloseAnswer answer, gpointer user_data);
/* "Save a checkpoint before closing?" with Save… / Close without saving /
 * Cancel, saying what closing without saving loses: every weight, or (with
 * saved_step > 0, the step of the run's last checkpoint) the steps since. */
void rf_dialog_ask_close(GtkWindow *parent, int64_t saved_step, RfCloseCallback done, gpointer user_data);

typedef void (*RfConfirmCallback)(gboolean yes, gpointer user_data);
/* A question `what` (detail below it) with Cancel and `action` (a
 * destructive button, e.g. "_Delete"); `done` hears the answer once the
 * dialog is gone. The dialog is named "confirm" (tests answer it). */
void rf_dialog_confirm(GtkWindow *parent, const char *what, const char *detail, const char *action,
                       RfConfirmCallback done, gpointer user_data);

typedef enum {
    RF_CHOOSE_OPEN_FILE,
    RF_CHOOSE_OPEN_FOLDER,
    RF_CHOOSE_SAVE_FILE,
} RfChooseMode;

/* Called with the chosen path, or NULL when the user cancelled. */
typedef void (*RfPathCallback)(const char *path, gpointer user_data);
/* A file chooser, starting in the folder `folder` says (start_folders.h),
 * which remembers the path chosen. `pattern` ("*.safetensors", may be NULL)
 * with its `pattern_name` filters the list; `suggested_name` (may be NULL)
 * fills the name field of a save chooser. */
void rf_dialog_choose_path(GtkWindow *parent, RfChooseMode mode, RfFolderKind folder, const char *title,
                           const char *accept_label,
                           const char *pattern_name, const char *pattern, const char *suggested_name,
                           RfPathCallback done, gpointer user_data);

G_END_DECLS

#endif
