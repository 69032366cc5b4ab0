/* The edge between the sidebar and the views, dragged to make the sidebar
 * wider or narrower (the width a preference, ui/settings.h). */
#ifndef RF_UI_SIDEBAR_HANDLE_H
#define RF_UI_SIDEBAR_HANDLE_H

#include <gtk/gtk.h>

/* The sidebar's width in pixels: at most this wide, at least this narrow. */
#define RF_SIDEBAR_MIN_WIDTH 280
#define RF_SIDEBAR_MAX_WIDTH 720

/* Make `handle` (the flap's separator) a grip that sets `sidebar`'s width
 * when dragged sideways, showing the resize pointer over it. */
void rf_sidebar_handle_attach(GtkWidget *handle, GtkWidget *sidebar);

/* Set the sidebar's width, clamped to the limits above. */
void rf_sidebar_set_width(GtkWidget *sidebar, int width);

/* The sidebar's width as set (its width request). */
int rf_sidebar_get_width(GtkWidget *sidebar);

#endif
