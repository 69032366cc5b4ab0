/* Choosing the data set from the Data view (data_set_picker.h). */
#include "data_set_picker.h"

#include <string.h>

#include "../choose_data_task.h"
#include "../data_tasks.h"
#include "../drop_down_tooltip.h"
#include "../start_folders.h"

#define PICKER_KEY "rf-data-set-picker"

typedef struct picker {
    RfSession *session;
    rf_data_set_refused refused;
    rf_data_set_opening opening;
    GObject *owner;                /* what refused and opening tell (not held: it holds the picker) */
    GtkWidget *task_menu, *path_button;
    bool syncing;                  /* widgets are being set from the config: not a user's choice */
} picker;

static void picker_free(picker *p)
{
    if (p->session != NULL)
        g_signal_handlers_disconnect_by_data(p->session, p);
    g_clear_object(&p->session);
    g_free(p);
}

static picker *picker_of(GtkWidget *widget)
{
    return g_object_get_data(G_OBJECT(widget), PICKER_KEY);
}

/* While a chooser is open the picker and the view it tells stay alive. */
static GtkWidget *hold(GtkWidget *widget)
{
    g_object_ref(picker_of(widget)->owner);
    return g_object_ref(widget);
}

static void release(GtkWidget *widget)
{
    g_object_unref(picker_of(widget)->owner);
    g_object_unref(widget);
}

static const rf_data_task *current_task(picker *p)
{
    guint i = gtk_drop_down_get_selected(GTK_DROP_DOWN(p->task_menu));
    return i < rf_data_task_count ? &rf_data_tasks[i] : NULL;
}

static bool set_key(picker *p, const char *key, const char *value)
{
    GError *err = NULL;
    if (rf_session_set_key(p->session, key, value, NULL, &err))
        return true;
    p->refused(p->owner, err->message);
    g_error_free(err);
    return false;
}

/* ---- the folder ---- */

static void on_folder_chosen(GtkNativeDialog *dialog, int response, gpointer data)
{
    GtkWidget *widget = data;
    picker *p = picker_of(widget);
    if (response == GTK_RESPONSE_ACCEPT) {
        GFile *file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog));
        char *path = file != NULL ? g_file_get_path(file) : NULL;
        rf_start_folder_note(RF_FOLDER_DATA, path);
        if (path != NULL && set_key(p, "data.path", path)) {
            rf_session_open_data(p->session);
            p->opening(p->owner);
        }
        g_free(path);
        if (file != NULL)
            g_object_unref(file);
    }
    gtk_native_dialog_destroy(dialog);
    g_object_unref(dialog);
    release(widget);
}

static void choose_folder(GtkWidget *widget)
{
    const rf_data_task *t = current_task(picker_of(widget));
    char *title = rf_data_task_chooser_title("Choose", t);
    GtkNative *native = gtk_widget_get_native(widget);
    GtkFileChooserNative *dialog = gtk_file_chooser_native_new(
        title, native != NULL ? GTK_WINDOW(native) : NULL, GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, "_Open", "_Cancel");
    gtk_native_dialog_set_modal(GTK_NATIVE_DIALOG(dialog), TRUE);
    char *start = rf_start_folder(RF_FOLDER_DATA);
    if (start != NULL) {
        GFile *dir = g_file_new_for_path(start);
        gtk_file_chooser_set_current_folder(GTK_FILE_CHOOSER(dialog), dir, NULL);
        g_object_unref(dir);
        g_free(start);
    }
    g_signal_connect(dialog, "response", G_CALLBACK(on_folder_chosen), hold(widget));
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(dialog));
    g_free(title);
}

static void on_path_clicked(GtkButton *button, gpointer data)
{
    (void)button;
    choose_folder(data);
}

/* ---- the task ---- */

/* Widgets follow the config, whoever changed it. */
static void sync_from_config(picker *p)
{
    const rf_config *cfg = rf_session_get_config(p->session);
    p->syncing = true;
    const rf_data_task *t = rf_data_task_find(cfg->data.task);
    if (t != NULL)
        gtk_drop_down_set_selected(GTK_DROP_DOWN(p->task_menu), (guint)(t - rf_data_tasks));
    p->syncing = false;
    t = current_task(p);
    char *base = cfg->data.path[0] != '\0' ? g_path_get_basename(cfg->data.path) : NULL;
    gtk_button_set_label(GTK_BUTTON(p->path_button), base != NULL ? base : "Choose Folder…");
    gtk_widget_set_tooltip_text(p->path_button, cfg->data.path[0] != '\0' ? cfg->data.path
                                                                          : "Choose the folder that holds the data");
    gtk_widget_set_sensitive(p->path_button, t != NULL && t->takes_path);
    g_free(base);
}

/* A cancel or a refusal shows the task as it was. */
static void task_chosen(gboolean switched, gboolean needs_restart, const GError *error, gpointer data)
{
    (void)needs_restart;
    GtkWidget *widget = data;
    picker *p = picker_of(widget);
    if (!switched)
        sync_from_config(p);
    if (error != NULL)
        p->refused(p->owner, error->message);
    release(widget);
}

static void on_task(GObject *menu, GParamSpec *pspec, gpointer data)
{
    (void)menu;
    (void)pspec;
    GtkWidget *widget = data;
    picker *p = picker_of(widget);
    const rf_data_task *t = current_task(p);
    if (p->syncing || t == NULL)
        return;
    GtkNative *native = gtk_widget_get_native(widget);
    rf_choose_data_task(native != NULL ? GTK_WINDOW(native) : NULL, p->session, t->key, task_chosen, hold(widget));
}

static void on_config_changed(RfSession *s, const char *key, gpointer data)
{
    (void)s;
    if (key == NULL || strcmp(key, "data.task") == 0 || strcmp(key, "data.path") == 0)
        sync_from_config(data);
}

GtkWidget *rf_data_set_picker_new(void)
{
    picker *p = g_new0(picker, 1);
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12);
    GtkStringList *names = gtk_string_list_new(NULL);
    for (size_t i = 0; i < rf_data_task_count; i++)
        gtk_string_list_append(names, rf_data_tasks[i].title);
    p->task_menu = gtk_drop_down_new(G_LIST_MODEL(names), NULL);
    gtk_widget_set_tooltip_text(p->task_menu, "The data set to browse and train on");
    rf_drop_down_tooltip_when_closed(p->task_menu);
    p->path_button = gtk_button_new_with_label("Choose Folder…");
    GtkWidget *label = gtk_label_new_with_mnemonic("_Data set");
    gtk_label_set_mnemonic_widget(GTK_LABEL(label), p->task_menu);
    gtk_box_append(GTK_BOX(box), label);
    gtk_box_append(GTK_BOX(box), p->task_menu);
    gtk_box_append(GTK_BOX(box), p->path_button);
    g_object_set_data_full(G_OBJECT(box), PICKER_KEY, p, (GDestroyNotify)picker_free);
    g_signal_connect(p->task_menu, "notify::selected", G_CALLBACK(on_task), box);
    g_signal_connect(p->path_button, "clicked", G_CALLBACK(on_path_clicked), box);
    return box;
}

void rf_data_set_picker_attach(GtkWidget *widget, RfSession *s, rf_data_set_refused refused,
                               rf_data_set_opening opening, GObject *owner)
{
    picker *p = picker_of(widget);
    g_set_object(&p->session, s);
    p->refused = refused;
    p->opening = opening;
    p->owner = owner;
    g_signal_connect(s, "config-changed", G_CALLBACK(on_config_changed), p);
    sync_from_config(p);
}
