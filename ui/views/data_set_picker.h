/* The Data view's data set picker: "Data set", a drop-down of the data
 * tasks, and the button for the folder a file-backed task reads. Both
 * follow data.task and data.path, whoever sets them. Choosing a task
 * switches it as the sidebar does (choose_data_task.h); choosing a folder
 * sets data.path and opens the data set. */
#ifndef RF_DATA_SET_PICKER_H
#define RF_DATA_SET_PICKER_H

#include <gtk/gtk.h>

#include "../session.h"

/* What the picker tells the view it sits in (`owner`): a choice the
 * session refused, in one line to show; or that the chosen folder's data
 * set is opening. */
typedef void (*rf_data_set_refused)(GObject *owner, const char *message);
typedef void (*rf_data_set_opening)(GObject *owner);

GtkWidget *rf_data_set_picker_new(void);

/* Once, before the picker is used: it follows `s`'s config from here on
 * (connect to "config-changed" after this to see the picker already in
 * step), and tells `owner` (held while a chooser is open). */
void rf_data_set_picker_attach(GtkWidget *picker, RfSession *s, rf_data_set_refused refused,
                               rf_data_set_opening opening, GObject *owner);

#endif
