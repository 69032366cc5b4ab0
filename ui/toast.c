#include "toast.h"

/* A dismissed toast (timed out, closed, or replaced) is no longer shown. */
static void on_dismissed(AdwToast *toast, gpointer data)
{
    rf_toast *t = data;
    g_signal_handlers_disconnect_by_data(toast, t);
    if (t->shown == toast) {
        t->shown = NULL;
        g_clear_pointer(&t->text, g_free);
        g_clear_pointer(&t->folder, g_free);
    }
    g_object_unref(toast);
}

void rf_toast_open_folder(rf_toast *t)
{
    if (t->shown == NULL)
        return;
    if (t->folder != NULL) {
        g_autoptr(GFile) folder = g_file_new_for_path(t->folder);
        g_autofree char *uri = g_file_get_uri(folder);
        gtk_show_uri(GTK_WINDOW(gtk_widget_get_root(GTK_WIDGET(t->overlay))), uri, GDK_CURRENT_TIME);
    }
    rf_toast_hide(t);
}

static void on_button(AdwToast *toast, gpointer data)
{
    (void)toast;
    rf_toast_open_folder(data);
}

void rf_toast_init(rf_toast *t, AdwToastOverlay *overlay)
{
    *t = (rf_toast){.overlay = overlay};
}

/* libadwaita 1.2 slides a toast in for 300 ms; a little more to be sure. */
#define SLIDE_IN_US (400 * G_TIME_SPAN_MILLISECOND)

static void show_now(rf_toast *t, const char *text, const char *folder);

static gboolean show_pending(gpointer data)
{
    rf_toast *t = data;
    t->pending_id = 0;
    g_autofree char *text = g_steal_pointer(&t->pending_text), *folder = g_steal_pointer(&t->pending_folder);
    show_now(t, text, folder);
    return G_SOURCE_REMOVE;
}

void rf_toast_show(rf_toast *t, const char *text, const char *folder)
{
    gint64 age = g_get_monotonic_time() - t->shown_at;
    if (t->shown != NULL && age < SLIDE_IN_US) {
        g_free(t->pending_text);
        g_free(t->pending_folder);
        t->pending_text = g_strdup(text);
        t->pending_folder = g_strdup(folder);
        if (t->pending_id == 0)
            t->pending_id = g_timeout_add((guint)((SLIDE_IN_US - age) / G_TIME_SPAN_MILLISECOND) + 1, show_pending, t);
        return;
    }
    show_now(t, text, folder);
}

static void show_now(rf_toast *t, const char *text, const char *folder)
{
    rf_toast_hide(t);
    /* libadwaita 1.2 reads a toast's title as Pango markup. */
    g_autofree char *markup = g_markup_escape_text(text, -1);
    AdwToast *toast = adw_toast_new(markup);
    adw_toast_set_timeout(toast, RF_TOAST_SECONDS);
    if (folder != NULL)
        adw_toast_set_button_label(toast, "_Open Folder");
    g_signal_connect(toast, "button-clicked", G_CALLBACK(on_button), t);
    g_signal_connect(toast, "dismissed", G_CALLBACK(on_dismissed), t);
    t->shown = toast;
    t->shown_at = g_get_monotonic_time();
    t->text = g_strdup(text);
    t->folder = g_strdup(folder);
    /* The overlay takes its own reference; ours lasts until "dismissed". */
    adw_toast_overlay_add_toast(t->overlay, g_object_ref(toast));
}

void rf_toast_written(rf_toast *t, const char *what, const char *path)
{
    g_autofree char *name = g_path_get_basename(path), *folder = g_path_get_dirname(path);
    g_autofree char *text = g_strdup_printf("%s %s in %s", what, name, folder);
    rf_toast_show(t, text, folder);
}

const char *rf_toast_text(const rf_toast *t)
{
    return t->shown != NULL ? t->text : NULL;
}

const char *rf_toast_folder(const rf_toast *t)
{
    return t->shown != NULL ? t->folder : NULL;
}

void rf_toast_hide(rf_toast *t)
{
    g_clear_handle_id(&t->pending_id, g_source_remove);
    g_clear_pointer(&t->pending_text, g_free);
    g_clear_pointer(&t->pending_folder, g_free);
    if (t->shown != NULL)
        adw_toast_dismiss(t->shown);   /* emits "dismissed", which forgets it */
}
