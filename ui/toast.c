#include "toast.h"

static gboolean expired(gpointer data)
{
    rf_toast *t = data;
    t->timeout = 0;
    gtk_revealer_set_reveal_child(t->revealer, FALSE);
    return G_SOURCE_REMOVE;
}

void rf_toast_hide(rf_toast *t)
{
    g_clear_handle_id(&t->timeout, g_source_remove);
    gtk_revealer_set_reveal_child(t->revealer, FALSE);
}

static void on_open(GtkButton *b, gpointer data)
{
    rf_toast *t = data;
    if (t->folder != NULL) {
        g_autoptr(GFile) folder = g_file_new_for_path(t->folder);
        g_autofree char *uri = g_file_get_uri(folder);
        gtk_show_uri(GTK_WINDOW(gtk_widget_get_root(GTK_WIDGET(b))), uri, GDK_CURRENT_TIME);
    }
    rf_toast_hide(t);
}

static void on_close(GtkButton *b, gpointer data)
{
    (void)b;
    rf_toast_hide(data);
}

void rf_toast_init(rf_toast *t, GtkRevealer *revealer, GtkLabel *label, GtkWidget *open, GtkWidget *close)
{
    *t = (rf_toast){.revealer = revealer, .label = label, .open = open};
    g_signal_connect(open, "clicked", G_CALLBACK(on_open), t);
    g_signal_connect(close, "clicked", G_CALLBACK(on_close), t);
}

void rf_toast_show(rf_toast *t, const char *text, const char *folder)
{
    gtk_label_set_text(t->label, text);
    g_free(t->folder);
    t->folder = g_strdup(folder);
    gtk_widget_set_visible(t->open, folder != NULL);
    gtk_revealer_set_reveal_child(t->revealer, TRUE);
    g_clear_handle_id(&t->timeout, g_source_remove);
    t->timeout = g_timeout_add_seconds(RF_TOAST_SECONDS, expired, t);
}

void rf_toast_written(rf_toast *t, const char *what, const char *path)
{
    g_autofree char *name = g_path_get_basename(path), *folder = g_path_get_dirname(path);
    g_autofree char *text = g_strdup_printf("%s %s in %s", what, name, folder);
    rf_toast_show(t, text, folder);
}

const char *rf_toast_text(const rf_toast *t)
{
    return gtk_revealer_get_reveal_child(t->revealer) ? gtk_label_get_text(t->label) : NULL;
}

const char *rf_toast_folder(const rf_toast *t)
{
    return rf_toast_text(t) != NULL ? t->folder : NULL;
}

void rf_toast_clear(rf_toast *t)
{
    g_clear_handle_id(&t->timeout, g_source_remove);
    g_clear_pointer(&t->folder, g_free);
}
