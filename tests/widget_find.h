/* Widgets the GUI tests look for: the first under `root` (depth first)
 * whose tooltip starts with `tip`, whose widget name is `name`, or that a
 * mnemonic label of `text` ("_Map" reads "Map") names; NULL when none. */
#ifndef RF_TESTS_WIDGET_FIND_H
#define RF_TESTS_WIDGET_FIND_H

#include <gtk/gtk.h>

static inline GtkWidget *find_by_tooltip(GtkWidget *root, const char *tip)
{
    const char *t = gtk_widget_get_tooltip_text(root);
    if (t != NULL && g_str_has_prefix(t, tip))
        return root;
    for (GtkWidget *c = gtk_widget_get_first_child(root); c != NULL; c = gtk_widget_get_next_sibling(c)) {
        GtkWidget *found = find_by_tooltip(c, tip);
        if (found != NULL)
            return found;
    }
    return NULL;
}

static inline GtkWidget *find_named(GtkWidget *root, const char *name)
{
    if (g_strcmp0(gtk_widget_get_name(root), name) == 0)
        return root;
    for (GtkWidget *c = gtk_widget_get_first_child(root); c != NULL; c = gtk_widget_get_next_sibling(c)) {
        GtkWidget *found = find_named(c, name);
        if (found != NULL)
            return found;
    }
    return NULL;
}

static inline GtkWidget *find_labelled(GtkWidget *root, const char *text)
{
    if (GTK_IS_LABEL(root) && g_strcmp0(gtk_label_get_text(GTK_LABEL(root)), text) == 0)
        return gtk_label_get_mnemonic_widget(GTK_LABEL(root));
    for (GtkWidget *c = gtk_widget_get_first_child(root); c != NULL; c = gtk_widget_get_next_sibling(c)) {
        GtkWidget *found = find_labelled(c, text);
        if (found != NULL)
            return found;
    }
    return NULL;
}

#endif
