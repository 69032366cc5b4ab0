/* Where the workbench's file choosers start (issue 12 item 10): a chooser
 * for configs starts in the folder of the last config opened (at first the
 * shipped data/configs), one for data in the last data folder (at first
 * Debian's /usr/share/datasets where it exists), and one for checkpoints and
 * exports in the run's folder: where the last checkpoint was opened or
 * saved, or an export written (at first the runs folder, where it exists).
 * The folders are preferences (ui/settings.h): the next launch starts there.
 * Main thread only.
 */
#ifndef RF_UI_START_FOLDERS_H
#define RF_UI_START_FOLDERS_H

#include <glib.h>

typedef enum {
    RF_FOLDER_CONFIGS,
    RF_FOLDER_DATA,
    RF_FOLDER_RUN,
} RfFolderKind;

/* The folder a chooser of `kind` starts in (an existing folder), or NULL:
 * GTK's own choice. Free with g_free. */
char *rf_start_folder(RfFolderKind kind);

/* Remember a path chosen or used for `kind`: a data folder itself, else
 * the folder holding the file. */
void rf_start_folder_note(RfFolderKind kind, const char *path);

#endif
