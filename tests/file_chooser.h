/* The workbench's file choosers in the GUI tests: GTK's own dialog (no
 * portal under Xvfb), found among the toplevels and answered. */
#ifndef RF_TESTS_FILE_CHOOSER_H
#define RF_TESTS_FILE_CHOOSER_H

#include <gtk/gtk.h>

#include "main_loop.h"

/* The open file chooser (GTK's own dialog: no portal under Xvfb), or NULL. */
static inline GtkWindow *find_chooser(void)
{
    GListModel *toplevels = gtk_window_get_toplevels();
    for (guint i = 0; i < g_list_model_get_n_items(toplevels); i++) {
        g_autoptr(GtkWindow) w = g_list_model_get_item(toplevels, i);
        if (GTK_IS_FILE_CHOOSER(w) && gtk_widget_get_visible(GTK_WIDGET(w)))
            return w;
    }
    return NULL;
}

static inline gboolean chooser_open(gpointer data)
{
    (void)data;
    return find_chooser() != NULL;
}

static inline gboolean chooser_gone(gpointer data)
{
    (void)data;
    return find_chooser() == NULL;
}

/* Answer the open chooser: `path` chosen (accept), or NULL (cancel). */
static inline void answer_chooser(const char *path)
{
    GtkWindow *chooser = find_chooser();
    if (chooser == NULL)
        return;
    if (path != NULL) {
        /* a folder chooser answers with the folder it shows */
        g_autoptr(GFile) file = g_file_new_for_path(path);
        if (gtk_file_chooser_get_action(GTK_FILE_CHOOSER(chooser)) == GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER)
            gtk_file_chooser_set_current_folder(GTK_FILE_CHOOSER(chooser), file, NULL);
        else
            gtk_file_chooser_set_file(GTK_FILE_CHOOSER(chooser), file, NULL);
        spin_for(0.5);
        gtk_dialog_response(GTK_DIALOG(chooser), GTK_RESPONSE_ACCEPT);
    } else {
        gtk_window_close(chooser);
    }
    spin_until(chooser_gone, NULL, 5.0);
    spin_for(0.2);   /* the answer is delivered from an idle */
}

#endif
