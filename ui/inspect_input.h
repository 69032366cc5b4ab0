/* Inspecting a user's input from the workbench (File → Inspect File…, files
 * dropped on the window, text pasted or typed in the Data view): the
 * session featurises it off the UI thread; on success the Data view shows
 * it in its Inspected list, on failure an error dialog gives the one
 * sentence naming the input and what differs, and nothing else changes. */
#ifndef RF_INSPECT_INPUT_H
#define RF_INSPECT_INPUT_H

#include <gtk/gtk.h>

#include "session.h"

/* `path`, or `text` when path is NULL. */
void rf_inspect_input(GtkWindow *parent, RfSession *s, const char *path, const char *text);
/* Each file of a GDK_TYPE_FILE_LIST drop (local files; others are refused by name). */
void rf_inspect_files(GtkWindow *parent, RfSession *s, GSList *files);

#endif
