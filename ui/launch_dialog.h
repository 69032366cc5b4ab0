/* Launch on a Cluster…: the mpirun line or sbatch script that trains the
 * session's config on several ranks (what `rangefinder train
 * --print-launch` prints), to copy or save. Copying or saving also writes
 * the config the job reads into the run folder (ui/launch_files.h).
 */
#ifndef RF_LAUNCH_DIALOG_H
#define RF_LAUNCH_DIALOG_H

#include <gtk/gtk.h>

#include "../core/config.h"
#include "../parallel/launch.h"

G_BEGIN_DECLS

/* Open the dialog over `parent` for `cfg` (copied). Returns the dialog
 * window (owned by GTK; it closes itself). */
GtkWindow *rf_launch_dialog_show(GtkWindow *parent, const rf_config *cfg);

/* For tests: choose the launcher, ranks and run folder as the user would,
 * read the text shown (NULL while the choice is refused: then the error
 * line says why), and press Copy. */
void rf_launch_dialog_set(GtkWindow *dialog, rf_launch_kind kind, int ranks, const char *out_dir);
const char *rf_launch_dialog_text(GtkWindow *dialog);
const char *rf_launch_dialog_status(GtkWindow *dialog);
gboolean rf_launch_dialog_copy(GtkWindow *dialog);

G_END_DECLS

#endif
