/* The view switcher above the views: the views in a few groups ("Run",
 * "Model", "Why"), the groups as one linked row of toggles and the chosen
 * group's views as tabs beside it, so that twelve views and more fit a
 * 1024-pixel window with their names written out. A click on a group shows
 * the view last shown in it; the stack's visible child (a tab, a shortcut,
 * win.show-sample) always has its group and tab highlighted. */
#ifndef RF_VIEW_SWITCHER_H
#define RF_VIEW_SWITCHER_H

#include <gtk/gtk.h>

/* A switcher for the pages of `stack` that rf_view_switcher_add() gives it. */
GtkWidget *rf_view_switcher_new(GtkStack *stack);

/* Page `name` of the stack (titled), in group `group` (made on first use,
 * groups in the order they come). Its tab is named "view-tab-NAME", its
 * group's toggle "view-group-GROUP". */
void rf_view_switcher_add(GtkWidget *switcher, const char *name, const char *group);

#endif
