/* Error messages, the close question, file choosers. */
#include "dialogs.h"

#include <string.h>

static char *last_error, *last_error_detail;
static char *last_warning, *last_warning_detail;

static void destroy_on_response(GtkDialog *dialog, int response, gpointer user_data)
{
    (void)response;
    (void)user_data;
    gtk_window_destroy(GTK_WINDOW(dialog));
}

static void show_message(GtkWindow *parent, GtkMessageType type, const char *what, const char *detail,
                         char **kept_what, char **kept_detail)
{
    g_free(*kept_what);
    g_free(*kept_detail);
    *kept_what = g_strdup(what);
    *kept_detail = g_strdup(detail != NULL ? detail : "");
    g_message("%s: %s", what, *kept_detail);

    GtkWidget *dialog = gtk_message_dialog_new(parent, GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT, type,
                                               GTK_BUTTONS_CLOSE, "%s", what);
    if (detail != NULL && detail[0] != '\0')
        gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(dialog), "%s", detail);
    g_signal_connect(dialog, "response", G_CALLBACK(destroy_on_response), NULL);
    gtk_widget_show(dialog);
}

void rf_dialog_error(GtkWindow *parent, const char *what, const char *detail)
{
    show_message(parent, GTK_MESSAGE_ERROR, what, detail, &last_error, &last_error_detail);
}

void rf_dialog_warning(GtkWindow *parent, const char *what, const char *detail)
{
    show_message(parent, GTK_MESSAGE_WARNING, what, detail, &last_warning, &last_warning_detail);
}

const char *rf_dialog_last_warning(void)
{
    return last_warning;
}

const char *rf_dialog_last_warning_detail(void)
{
    return last_warning_detail;
}

const char *rf_dialog_last_error(void)
{
    return last_error;
}

const char *rf_dialog_last_error_detail(void)
{
    return last_error_detail;
}

/* --- close while training --- */

typedef struct {
    RfCloseCallback done;
    gpointer user_data;
    RfCloseAnswer answer;
} CloseQuestion;

/* The answer goes out from an idle callback, once the dialog is gone: the
 * callback may destroy the window the dialog is transient for, which must
 * not happen while the dialog still refers to it. */
static gboolean close_question_answer(gpointer data)
{
    CloseQuestion *q = data;
    q->done(q->answer, q->user_data);
    g_free(q);
    return G_SOURCE_REMOVE;
}

static void close_question_response(GtkDialog *dialog, int response, gpointer user_data)
{
    CloseQuestion *q = user_data;
    q->answer = response == GTK_RESPONSE_ACCEPT   ? RF_CLOSE_SAVE
                : response == GTK_RESPONSE_REJECT ? RF_CLOSE_DISCARD
                                                  : RF_CLOSE_CANCEL;
    gtk_window_destroy(GTK_WINDOW(dialog));
    g_idle_add(close_question_answer, q);
}

void rf_dialog_ask_close(GtkWindow *parent, int64_t saved_step, RfCloseCallback done, gpointer user_data)
{
    GtkWidget *dialog = gtk_message_dialog_new(parent, GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                               GTK_MESSAGE_QUESTION, GTK_BUTTONS_NONE,
                                               "Save a checkpoint before closing?");
    if (saved_step > 0)
        gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(dialog),
                                                 "Training is paused. The run's folder keeps its checkpoint of step "
                                                 "%" G_GINT64_FORMAT "; without a new one, the steps since are lost "
                                                 "when the window closes.",
                                                 saved_step);
    else
        gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(dialog),
                                                 "Training is paused. Without a checkpoint, the weights of this run "
                                                 "are lost when the window closes.");
    gtk_dialog_add_button(GTK_DIALOG(dialog), "_Cancel", GTK_RESPONSE_CANCEL);
    GtkWidget *discard = gtk_dialog_add_button(GTK_DIALOG(dialog), "Close _Without Saving", GTK_RESPONSE_REJECT);
    gtk_widget_add_css_class(discard, "destructive-action");
    GtkWidget *save = gtk_dialog_add_button(GTK_DIALOG(dialog), "_Save…", GTK_RESPONSE_ACCEPT);
    gtk_widget_add_css_class(save, "suggested-action");
    gtk_dialog_set_default_response(GTK_DIALOG(dialog), GTK_RESPONSE_ACCEPT);

    CloseQuestion *q = g_new(CloseQuestion, 1);
    q->done = done;
    q->user_data = user_data;
    g_signal_connect(dialog, "response", G_CALLBACK(close_question_response), q);
    gtk_widget_show(dialog);
}

/* --- yes or no --- */

typedef struct {
    RfConfirmCallback done;
    gpointer user_data;
    gboolean yes;
} ConfirmQuestion;

static gboolean confirm_answer(gpointer data)
{
    ConfirmQuestion *q = data;
    q->done(q->yes, q->user_data);
    g_free(q);
    return G_SOURCE_REMOVE;
}

static void confirm_response(GtkDialog *dialog, int response, gpointer user_data)
{
    ConfirmQuestion *q = user_data;
    q->yes = response == GTK_RESPONSE_ACCEPT;
    gtk_window_destroy(GTK_WINDOW(dialog));
    g_idle_add(confirm_answer, q);
}

void rf_dialog_confirm(GtkWindow *parent, const char *what, const char *detail, const char *action,
                       RfConfirmCallback done, gpointer user_data)
{
    GtkWidget *dialog = gtk_message_dialog_new(parent, GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                               GTK_MESSAGE_QUESTION, GTK_BUTTONS_NONE, "%s", what);
    gtk_widget_set_name(dialog, "confirm");
    gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(dialog), "%s", detail);
    gtk_dialog_add_button(GTK_DIALOG(dialog), "_Cancel", GTK_RESPONSE_CANCEL);
    GtkWidget *yes = gtk_dialog_add_button(GTK_DIALOG(dialog), action, GTK_RESPONSE_ACCEPT);
    gtk_widget_add_css_class(yes, "destructive-action");
    gtk_dialog_set_default_response(GTK_DIALOG(dialog), GTK_RESPONSE_CANCEL);
    ConfirmQuestion *q = g_new0(ConfirmQuestion, 1);
    q->done = done;
    q->user_data = user_data;
    g_signal_connect(dialog, "response", G_CALLBACK(confirm_response), q);
    gtk_widget_show(dialog);
}

/* --- file choosers --- */

typedef struct {
    RfPathCallback done;
    gpointer user_data;
    RfFolderKind folder;
    char *path;
} PathRequest;

/* As with the close question: answer once the chooser is gone. */
static gboolean chooser_answer(gpointer data)
{
    PathRequest *req = data;
    req->done(req->path, req->user_data);
    g_free(req->path);
    g_free(req);
    return G_SOURCE_REMOVE;
}

static void chooser_response(GtkNativeDialog *native, int response, gpointer user_data)
{
    PathRequest *req = user_data;
    if (response == GTK_RESPONSE_ACCEPT) {
        g_autoptr(GFile) file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(native));
        if (file != NULL)
            req->path = g_file_get_path(file);
        rf_start_folder_note(req->folder, req->path);
    }
    gtk_native_dialog_destroy(native);
    g_object_unref(native);
    g_idle_add(chooser_answer, req);
}

void rf_dialog_choose_path(GtkWindow *parent, RfChooseMode mode, RfFolderKind folder, const char *title,
                           const char *accept_label,
                           const char *pattern_name, const char *pattern, const char *suggested_name,
                           RfPathCallback done, gpointer user_data)
{
    GtkFileChooserAction action = mode == RF_CHOOSE_OPEN_FOLDER ? GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER
                                  : mode == RF_CHOOSE_SAVE_FILE ? GTK_FILE_CHOOSER_ACTION_SAVE
                                                                : GTK_FILE_CHOOSER_ACTION_OPEN;
    GtkFileChooserNative *native = gtk_file_chooser_native_new(title, parent, action, accept_label, "_Cancel");
    gtk_native_dialog_set_modal(GTK_NATIVE_DIALOG(native), TRUE);
    GtkFileChooser *chooser = GTK_FILE_CHOOSER(native);
    if (pattern != NULL) {
        GtkFileFilter *filter = gtk_file_filter_new();
        gtk_file_filter_set_name(filter, pattern_name);
        gtk_file_filter_add_pattern(filter, pattern);
        gtk_file_chooser_add_filter(chooser, filter);
        g_object_unref(filter);
        GtkFileFilter *all = gtk_file_filter_new();
        gtk_file_filter_set_name(all, "All files");
        gtk_file_filter_add_pattern(all, "*");
        gtk_file_chooser_add_filter(chooser, all);
        g_object_unref(all);
    }
    g_autofree char *start = rf_start_folder(folder);
    if (start != NULL) {
        g_autoptr(GFile) dir = g_file_new_for_path(start);
        gtk_file_chooser_set_current_folder(chooser, dir, NULL);
    }
    if (mode == RF_CHOOSE_SAVE_FILE && suggested_name != NULL)
        gtk_file_chooser_set_current_name(chooser, suggested_name);

    PathRequest *req = g_new0(PathRequest, 1);
    req->done = done;
    req->user_data = user_data;
    req->folder = folder;
    g_signal_connect(native, "response", G_CALLBACK(chooser_response), req);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(native));
}
