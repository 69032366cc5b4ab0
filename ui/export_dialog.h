/* The plot export dialog: format, size with its unit, resolution and font
 * size, then the file name. The size, unit, resolution and font size are
 * kept in the preferences (export-* keys, ui/settings.h) from one export
 * and launch to the next.
 */
#ifndef RF_UI_EXPORT_DIALOG_H
#define RF_UI_EXPORT_DIALOG_H

#include <gtk/gtk.h>

#include "plot/export_options.h"

G_BEGIN_DECLS

/* Called with the file to write (its extension matches the chosen format)
 * and the options, or path NULL (options NULL) when the user cancelled. */
typedef void (*RfExportCallback)(const char *path, const rf_export_options *options, gpointer user_data);
/* `base_name` ("training") names the suggested file; width x height pixels
 * (the view's size on screen) is the size until one is kept. */
void rf_dialog_export_plot(GtkWindow *parent, const char *base_name, int width, int height, RfExportCallback done,
                           gpointer user_data);

/* The export options kept in the preferences, or width x height pixels at
 * 96 dpi and the figures' font size where none are. */
rf_export_options rf_export_options_kept(int width, int height);

G_END_DECLS

#endif
