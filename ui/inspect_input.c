#include "inspect_input.h"

#include "dialogs.h"
#include "window.h"

static void inspected(GObject *source, GAsyncResult *result, gpointer data)
{
    GtkWindow *parent = data;   /* a reference, or NULL */
    g_autoptr(GError) error = NULL;
    if (rf_session_inspect_finish(RF_SESSION(source), result, &error) == NULL)
        rf_dialog_error(parent, "The model cannot take this input", error->message);
    else if (parent != NULL && RF_IS_WINDOW(parent))
        gtk_stack_set_visible_child_name(rf_window_get_stack(RF_WINDOW(parent)), "data");
    if (parent != NULL)
        g_object_unref(parent);
}

void rf_inspect_input(GtkWindow *parent, RfSession *s, const char *path, const char *text)
{
    rf_session_inspect_async(s, path, text, inspected, parent != NULL ? g_object_ref(parent) : NULL);
}

void rf_inspect_files(GtkWindow *parent, RfSession *s, GSList *files)
{
    for (GSList *l = files; l != NULL; l = l->next) {
        g_autofree char *path = g_file_get_path(l->data);
        if (path != NULL) {
            rf_inspect_input(parent, s, path, NULL);
        } else {
            g_autofree char *uri = g_file_get_uri(l->data);
            g_autofree char *detail = g_strdup_printf("%s: not a local file; copy it to this computer first", uri);
            rf_dialog_error(parent, "The model cannot take this input", detail);
        }
    }
}
