/* Switching the data set, from the sidebar's Task or the Data view's menu:
 * a task that reads no folder, or whose default location exists here
 * (Fashion-MNIST from Debian's package), switches at once; the others open
 * the folder chooser first, and only accepting it switches task and folder
 * together. A folder belongs to the task it was chosen for, so a switch
 * empties data.path or sets the chosen one. Then the data set opens, unless
 * a run is under way (it opens when the run restarts). */
#ifndef RF_CHOOSE_DATA_TASK_H
#define RF_CHOOSE_DATA_TASK_H

#include <gtk/gtk.h>

#include "session.h"

/* After the choice: `switched` FALSE when the user cancelled the chooser or
 * the session refused the keys (`error` says why; NULL for a cancel), with
 * the config as it was. */
typedef void (*RfDataTaskDone)(gboolean switched, gboolean needs_restart, const GError *error, gpointer user_data);

/* Switch to data.task `task`; `done` may run before this returns. */
void rf_choose_data_task(GtkWindow *parent, RfSession *s, const char *task, RfDataTaskDone done,
                         gpointer user_data);

#endif
