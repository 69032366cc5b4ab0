/* Error messages, the close question, file choosers, the export dialog. */
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

/* --- export --- */

static const struct {
    const char *label;
    const char *extension;
    const char *units;
} export_formats[] = {
    {"PNG image", ".png", "pixels"},
    {"SVG drawing", ".svg", "points"},
    {"PDF document", ".pdf", "points"},
};

typedef struct {
    GtkWindow *dialog;
    GtkWindow *parent;
    GtkDropDown *format;
    GtkSpinButton *width, *height;
    GtkLabel *units;
    char *base_name;
    RfExportCallback done;
    gpointer user_data;
    guint chosen_format;
    int chosen_width, chosen_height;
} ExportRequest;

static void export_request_free(ExportRequest *req)
{
    g_free(req->base_name);
    g_free(req);
}

static void export_path_chosen(const char *path, gpointer user_data)
{
    ExportRequest *req = user_data;
    if (path == NULL) {
        req->done(NULL, 0, 0, req->user_data);
        export_request_free(req);
        return;
    }
    /* The format picked in the dialog decides the extension: a name typed
     * without it, or with another one, gets it. */
    const char *ext = export_formats[req->chosen_format].extension;
    g_autofree char *lower = g_ascii_strdown(path, -1);
    g_autofree char *file = g_str_has_suffix(lower, ext) ? g_strdup(path) : g_strconcat(path, ext, NULL);
    req->done(file, req->chosen_width, req->chosen_height, req->user_data);
    export_request_free(req);
}

/* Cancel, Escape and the window manager's close all end here. */
static gboolean export_close_request(GtkWindow *dialog, gpointer user_data)
{
    (void)dialog;
    ExportRequest *req = user_data;
    req->done(NULL, 0, 0, req->user_data);
    export_request_free(req);
    return FALSE;
}

static void export_accept(GtkButton *button, gpointer user_data)
{
    (void)button;
    ExportRequest *req = user_data;
    req->chosen_format = gtk_drop_down_get_selected(req->format);
    if (req->chosen_format >= G_N_ELEMENTS(export_formats))
        req->chosen_format = 0;
    gtk_spin_button_update(req->width);
    gtk_spin_button_update(req->height);
    req->chosen_width = gtk_spin_button_get_value_as_int(req->width);
    req->chosen_height = gtk_spin_button_get_value_as_int(req->height);
    g_signal_handlers_disconnect_by_func(req->dialog, export_close_request, req);
    gtk_window_destroy(req->dialog);
    g_autofree char *name = g_strconcat(req->base_name, export_formats[req->chosen_format].extension, NULL);
    rf_dialog_choose_path(req->parent, RF_CHOOSE_SAVE_FILE, RF_FOLDER_RUN, "Export Plot", "_Export", NULL, NULL, name,
                          export_path_chosen, req);
}

static void export_format_changed(GtkDropDown *format, GParamSpec *pspec, gpointer user_data)
{
    (void)pspec;
    ExportRequest *req = user_data;
    guint i = gtk_drop_down_get_selected(format);
    if (i < G_N_ELEMENTS(export_formats))
        gtk_label_set_text(req->units, export_formats[i].units);
}

static GtkWidget *grid_label(const char *text)
{
    GtkWidget *label = gtk_label_new_with_mnemonic(text);
    gtk_label_set_xalign(GTK_LABEL(label), 1.0f);
    gtk_widget_add_css_class(label, "dim-label");
    return label;
}

void rf_dialog_export_plot(GtkWindow *parent, const char *base_name, int width, int height, RfExportCallback done,
                           gpointer user_data)
{
    ExportRequest *req = g_new0(ExportRequest, 1);
    req->parent = parent;
    req->base_name = g_strdup(base_name);
    req->done = done;
    req->user_data = user_data;

    GtkWindow *dialog = GTK_WINDOW(gtk_window_new());
    req->dialog = dialog;
    gtk_window_set_title(dialog, "Export Plot");
    gtk_window_set_transient_for(dialog, parent);
    gtk_window_set_modal(dialog, TRUE);
    gtk_window_set_destroy_with_parent(dialog, TRUE);
    gtk_window_set_resizable(dialog, FALSE);

    GtkWidget *header = gtk_header_bar_new();
    gtk_header_bar_set_show_title_buttons(GTK_HEADER_BAR(header), FALSE);
    GtkWidget *cancel = gtk_button_new_with_mnemonic("_Cancel");
    GtkWidget *accept = gtk_button_new_with_mnemonic("_Export…");
    gtk_widget_add_css_class(accept, "suggested-action");
    gtk_header_bar_pack_start(GTK_HEADER_BAR(header), cancel);
    gtk_header_bar_pack_end(GTK_HEADER_BAR(header), accept);
    gtk_window_set_titlebar(dialog, header);
    gtk_window_set_default_widget(dialog, accept);

    const char *format_labels[G_N_ELEMENTS(export_formats) + 1];
    for (size_t i = 0; i < G_N_ELEMENTS(export_formats); i++)
        format_labels[i] = export_formats[i].label;
    format_labels[G_N_ELEMENTS(export_formats)] = NULL;
    req->format = GTK_DROP_DOWN(gtk_drop_down_new_from_strings(format_labels));
    req->width = GTK_SPIN_BUTTON(gtk_spin_button_new_with_range(16, 16384, 10));
    req->height = GTK_SPIN_BUTTON(gtk_spin_button_new_with_range(16, 16384, 10));
    gtk_spin_button_set_value(req->width, width);
    gtk_spin_button_set_value(req->height, height);
    req->units = GTK_LABEL(gtk_label_new(export_formats[0].units));
    gtk_label_set_xalign(req->units, 0.0f);
    gtk_widget_add_css_class(GTK_WIDGET(req->units), "dim-label");

    GtkWidget *grid = gtk_grid_new();
    gtk_grid_set_row_spacing(GTK_GRID(grid), 12);
    gtk_grid_set_column_spacing(GTK_GRID(grid), 12);
    gtk_widget_set_margin_start(grid, 24);
    gtk_widget_set_margin_end(grid, 24);
    gtk_widget_set_margin_top(grid, 24);
    gtk_widget_set_margin_bottom(grid, 24);
    GtkWidget *format_label = grid_label("_Format");
    GtkWidget *width_label = grid_label("_Width");
    GtkWidget *height_label = grid_label("_Height");
    gtk_label_set_mnemonic_widget(GTK_LABEL(format_label), GTK_WIDGET(req->format));
    gtk_label_set_mnemonic_widget(GTK_LABEL(width_label), GTK_WIDGET(req->width));
    gtk_label_set_mnemonic_widget(GTK_LABEL(height_label), GTK_WIDGET(req->height));
    gtk_grid_attach(GTK_GRID(grid), format_label, 0, 0, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), GTK_WIDGET(req->format), 1, 0, 2, 1);
    gtk_grid_attach(GTK_GRID(grid), width_label, 0, 1, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), GTK_WIDGET(req->width), 1, 1, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), GTK_WIDGET(req->units), 2, 1, 1, 2);
    gtk_grid_attach(GTK_GRID(grid), height_label, 0, 2, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), GTK_WIDGET(req->height), 1, 2, 1, 1);
    gtk_window_set_child(dialog, grid);

    g_signal_connect(req->format, "notify::selected", G_CALLBACK(export_format_changed), req);
    g_signal_connect_swapped(cancel, "clicked", G_CALLBACK(gtk_window_close), dialog);
    g_signal_connect(dialog, "close-request", G_CALLBACK(export_close_request), req);
    GtkEventController *keys = gtk_shortcut_controller_new();
    gtk_shortcut_controller_add_shortcut(GTK_SHORTCUT_CONTROLLER(keys),
                                         gtk_shortcut_new(gtk_shortcut_trigger_parse_string("Escape"),
                                                          gtk_named_action_new("window.close")));
    gtk_widget_add_controller(GTK_WIDGET(dialog), keys);
    g_signal_connect(accept, "clicked", G_CALLBACK(export_accept), req);
    gtk_window_present(dialog);
}
