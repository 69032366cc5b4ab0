/* A drop-down's tooltip kept off its open list.
 *
 * GTK 4.8 looks a tooltip up from the widget under the pointer through its
 * parents, and a GtkDropDown's list is a popover inside it: the drop-down's
 * tooltip would show over the list's first entries. */
#ifndef RF_UI_DROP_DOWN_TOOLTIP_H
#define RF_UI_DROP_DOWN_TOOLTIP_H

#include <gtk/gtk.h>

/* Show `drop_down`'s tooltip only while its list is closed. */
void rf_drop_down_tooltip_when_closed(GtkWidget *drop_down);

#endif
