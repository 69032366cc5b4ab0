/* GTK's own file chooser (no portal under Xvfb), found and answered by the
 * GUI tests (test_gui_folders.c, test_gui_data.c, test_gui_compare.c). */
#ifndef RF_TESTS_FILE_CHOOSER_H
#define RF_TESTS_FILE_CHOOSER_H

#include <gtk/gtk.h>

#include "main_loop.h"

/* The open file chooser, or NULL. */
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

/* Once a chooser opened: the folder it starts in ("" when none opened). */
static inline char *opened_chooser_folder(void)
{
    if (!spin_until(chooser_open, NULL, 5.0))
        return g_strdup("");
    spin_for(0.5);   /* the chooser loads its folder asynchronously */
    g_autoptr(GFile) folder = gtk_file_chooser_get_current_folder(GTK_FILE_CHOOSER(find_chooser()));
    return folder != NULL ? g_file_get_path(folder) : g_strdup("(none)");
}

static inline gboolean file_chosen(GtkWindow *chooser, GFile *file)
{
    g_autoptr(GFile) chosen = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(chooser));
    return chosen != NULL && g_file_equal(chosen, file);
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
        GtkFileChooserAction action = gtk_file_chooser_get_action(GTK_FILE_CHOOSER(chooser));
        if (action == GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER)
            gtk_file_chooser_set_current_folder(GTK_FILE_CHOOSER(chooser), file, NULL);
        else
            gtk_file_chooser_set_file(GTK_FILE_CHOOSER(chooser), file, NULL);
        spin_for(0.5);
        /* an existing file is selected once its folder has loaded (asynchronously) */
        for (int tries = 0; action == GTK_FILE_CHOOSER_ACTION_OPEN && tries < 50 && !file_chosen(chooser, file);
             tries++) {
            gtk_file_chooser_set_file(GTK_FILE_CHOOSER(chooser), file, NULL);
            spin_for(0.2);
        }
        gtk_dialog_response(GTK_DIALOG(chooser), GTK_RESPONSE_ACCEPT);
    } else {
        gtk_window_close(chooser);
    }
    spin_until(chooser_gone, NULL, 5.0);
    spin_for(0.2);   /* the answer is delivered from an idle */
}

#endif
