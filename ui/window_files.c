/* The window's file actions: opening data, configurations and checkpoints,
 * inspecting a file (chosen or dropped), saving a checkpoint, exporting
 * metrics and plots, launching on a cluster; and the files and run folders
 * handed to the application (`rangefinder FILE|RUNDIR`). */
#include "window_private.h"

#include "data_tasks.h"
#include "dialogs.h"
#include "export_dialog.h"
#include "inspect_input.h"
#include "launch_dialog.h"
#include "plot/plot.h"
#include "view.h"

void rf_window_open_data_path(RfWindow *win, const char *path)
{
    g_return_if_fail(RF_IS_WINDOW(win));
    g_autoptr(GError) error = NULL;
    if (!rf_session_set_key(win->session, "data.path", path, NULL, &error)) {
        rf_dialog_error(GTK_WINDOW(win), "Could not open the data", error->message);
        return;
    }
    rf_window_open_data(win);
}

static void data_path_chosen(const char *path, gpointer user_data)
{
    RfWindow *win = user_data;
    if (path != NULL)
        rf_window_open_data_path(win, path);
    g_object_unref(win);
}

static void action_open_data(GSimpleAction *a, GVariant *p, gpointer user_data)
{
    (void)a;
    (void)p;
    RfWindow *win = user_data;
    const char *task = rf_session_get_config(win->session)->data.task;
    const rf_data_task *t = rf_data_task_find(task);
    if (t == NULL || !t->takes_path) {
        g_autoptr(GString) readers = g_string_new(NULL);
        for (size_t i = 0; i < rf_data_task_count; i++)
            if (rf_data_tasks[i].takes_path)
                g_string_append_printf(readers, "%s%s", readers->len > 0 ? ", " : "", rf_data_tasks[i].title);
        g_autofree char *detail = g_strdup_printf("%s is generated, not read from disk. Choose a data set that "
                                                  "reads files (%s) under Data → Task first.",
                                                  rf_choice_label("data.task", task), readers->str);
        rf_dialog_error(GTK_WINDOW(win), "Nothing to open for this data set", detail);
        return;
    }
    /* start in the data folder the sidebar names, if it is one */
    const char *current = rf_session_get_config(win->session)->data.path;
    if (g_file_test(current, G_FILE_TEST_IS_DIR))
        rf_start_folder_note(RF_FOLDER_DATA, current);
    g_autofree char *title = rf_data_task_chooser_title("Open", rf_data_task_find(task));
    rf_dialog_choose_path(GTK_WINDOW(win), RF_CHOOSE_OPEN_FOLDER, RF_FOLDER_DATA, title, "_Open", NULL, NULL, NULL,
                          data_path_chosen, g_object_ref(win));
}

/* Open the chosen checkpoint with `load`: its error in a dialog, or its
 * note (a GPU model run on the CPU) as a toast. Drops the window's ref;
 * returns whether it loaded. */
static gboolean open_checkpoint_with(RfWindow *win, const char *path,
                                     gboolean (*load)(RfSession *, const char *, GError **), const char *failure)
{
    g_autoptr(GError) error = NULL;
    gboolean loaded = path != NULL && load(win->session, path, &error);
    if (path != NULL && !loaded)
        rf_dialog_error(GTK_WINDOW(win), failure, error->message);
    else if (loaded && rf_session_get_load_note(win->session) != NULL)
        rf_window_toast(win, rf_session_get_load_note(win->session), NULL);
    rf_window_refresh(win);
    g_object_unref(win);
    return loaded;
}

static void checkpoint_to_open(const char *path, gpointer user_data)
{
    open_checkpoint_with(user_data, path, rf_session_load_checkpoint, "Could not open the checkpoint");
}

static void action_open_checkpoint(GSimpleAction *a, GVariant *p, gpointer user_data)
{
    (void)a;
    (void)p;
    rf_dialog_choose_path(GTK_WINDOW(user_data), RF_CHOOSE_OPEN_FILE, RF_FOLDER_RUN, "Open Checkpoint", "_Open",
                          "Checkpoints (safetensors)", "*.safetensors", NULL, checkpoint_to_open,
                          g_object_ref(user_data));
}

/* A run of the Runs view (its checkpoint's path): opened as Open Checkpoint
 * opens it, then shown in the Training view with its curves. */
static void action_open_run(GSimpleAction *a, GVariant *p, gpointer user_data)
{
    (void)a;
    RfWindow *win = user_data;
    if (open_checkpoint_with(g_object_ref(win), g_variant_get_string(p, NULL), rf_session_load_checkpoint,
                             "Could not open the run"))
        gtk_stack_set_visible_child_name(rf_window_get_stack(win), "training");
}

/* The model of a checkpoint on the data set the sidebar names (LRA's files
 * for a model trained on generated ListOps, data.concat for the length test). */
static void checkpoint_to_open_on_data(const char *path, gpointer user_data)
{
    open_checkpoint_with(user_data, path, rf_session_load_checkpoint_on_data,
                         "Could not open the checkpoint on this data set");
}

static void action_open_checkpoint_on_data(GSimpleAction *a, GVariant *p, gpointer user_data)
{
    (void)a;
    (void)p;
    rf_dialog_choose_path(GTK_WINDOW(user_data), RF_CHOOSE_OPEN_FILE, RF_FOLDER_RUN,
                          "Open Checkpoint on the Current Data",
                          "_Open", "Checkpoints (safetensors)", "*.safetensors", NULL, checkpoint_to_open_on_data,
                          g_object_ref(user_data));
}

static void file_to_inspect(const char *path, gpointer user_data)
{
    RfWindow *win = user_data;
    if (path != NULL)
        rf_inspect_input(GTK_WINDOW(win), win->session, path, NULL);
    g_object_unref(win);
}

static void action_inspect_file(GSimpleAction *a, GVariant *p, gpointer user_data)
{
    (void)a;
    (void)p;
    rf_dialog_choose_path(GTK_WINDOW(user_data), RF_CHOOSE_OPEN_FILE, RF_FOLDER_DATA, "Inspect File", "_Inspect",
                          NULL, NULL, NULL, file_to_inspect, g_object_ref(user_data));
}

gboolean rf_window_on_drop(GtkDropTarget *target, const GValue *value, double x, double y, gpointer user_data)
{
    (void)target;
    (void)x;
    (void)y;
    RfWindow *win = user_data;
    if (!G_VALUE_HOLDS(value, GDK_TYPE_FILE_LIST))
        return FALSE;
    rf_inspect_files(GTK_WINDOW(win), win->session, gdk_file_list_get_files(g_value_get_boxed(value)));
    return TRUE;
}

/* A run folder handed to the application: its curves in the Training
 * view beside the session's own. */
static void open_run_folder(RfWindow *win, const char *dir)
{
    g_autoptr(GError) error = NULL;
    if (!rf_session_add_overlay(win->session, dir, &error)) {
        rf_dialog_error(GTK_WINDOW(win), "Could not open the run", error->message);
        return;
    }
    gtk_stack_set_visible_child_name(win->view_stack, "training");
}

void rf_window_open_files(RfWindow *win, GFile **files, int n_files)
{
    g_return_if_fail(RF_IS_WINDOW(win));
    GSList *to_inspect = NULL;
    for (int i = 0; i < n_files; i++) {
        g_autofree char *path = g_file_get_path(files[i]);
        if (path != NULL && g_file_test(path, G_FILE_TEST_IS_DIR))
            open_run_folder(win, path);
        else if (path != NULL && g_str_has_suffix(path, ".safetensors"))
            open_checkpoint_with(g_object_ref(win), path, rf_session_load_checkpoint, "Could not open the checkpoint");
        else
            to_inspect = g_slist_append(to_inspect, files[i]);
    }
    if (to_inspect != NULL)
        rf_inspect_files(GTK_WINDOW(win), win->session, to_inspect);
    g_slist_free(to_inspect);
}

gboolean rf_window_save_checkpoint(RfWindow *win, const char *path)
{
    g_autoptr(GError) error = NULL;
    if (rf_session_save_checkpoint(win->session, path, &error)) {
        rf_toast_written(&win->toast, "Saved", path);
        return TRUE;
    }
    rf_dialog_error(GTK_WINDOW(win), "Could not save the checkpoint", error->message);
    return FALSE;
}

static void checkpoint_to_save(const char *path, gpointer user_data)
{
    RfWindow *win = user_data;
    if (path != NULL)
        rf_window_save_checkpoint(win, path);
    g_object_unref(win);
}

static void action_save_checkpoint(GSimpleAction *a, GVariant *p, gpointer user_data)
{
    (void)a;
    (void)p;
    rf_dialog_choose_path(GTK_WINDOW(user_data), RF_CHOOSE_SAVE_FILE, RF_FOLDER_RUN, "Save Checkpoint", "_Save",
                          "Checkpoints (safetensors)", "*.safetensors", "checkpoint.safetensors",
                          checkpoint_to_save, g_object_ref(user_data));
}

static void config_to_open(const char *path, gpointer user_data)
{
    RfWindow *win = user_data;
    g_autoptr(GError) error = NULL;
    if (path != NULL) {
        if (rf_session_load_config_file(win->session, path, &error))
            rf_window_open_data(win);
        else
            rf_dialog_error(GTK_WINDOW(win), "Could not open the configuration", error->message);
    }
    g_object_unref(win);
}

static void action_open_config(GSimpleAction *a, GVariant *p, gpointer user_data)
{
    (void)a;
    (void)p;
    rf_dialog_choose_path(GTK_WINDOW(user_data), RF_CHOOSE_OPEN_FILE, RF_FOLDER_CONFIGS, "Open Configuration",
                          "_Open", "Configurations (INI)", "*.ini", NULL, config_to_open, g_object_ref(user_data));
}

static void metrics_to_save(const char *path, gpointer user_data)
{
    RfWindow *win = user_data;
    rf_run_data *run = rf_session_get_current_run(win->session);
    g_autoptr(GError) error = NULL;
    if (path != NULL && run != NULL) {
        if (rf_run_data_write_metrics_csv(run, path, &error))
            rf_toast_written(&win->toast, "Exported the metrics to", path);
        else
            rf_dialog_error(GTK_WINDOW(win), "Could not export the metrics", error->message);
    }
    g_object_unref(win);
}

static void action_export_metrics(GSimpleAction *a, GVariant *p, gpointer user_data)
{
    (void)a;
    (void)p;
    rf_dialog_choose_path(GTK_WINDOW(user_data), RF_CHOOSE_SAVE_FILE, RF_FOLDER_RUN, "Export Metrics", "_Export",
                          "CSV files", "*.csv", "metrics.csv", metrics_to_save, g_object_ref(user_data));
}

/* The session's config on several ranks (mpirun or Slurm). */
static void action_launch_cluster(GSimpleAction *a, GVariant *p, gpointer user_data)
{
    (void)a;
    (void)p;
    RfWindow *win = user_data;
    rf_launch_dialog_show(GTK_WINDOW(win), rf_session_get_config(win->session));
}

/* --- plot export --- */

static GtkWidget *find_page(RfWindow *win, const char *page)
{
    return page != NULL ? gtk_stack_get_child_by_name(win->view_stack, page)
                        : gtk_stack_get_visible_child(win->view_stack);
}

gboolean rf_window_export_plot(RfWindow *win, const char *page, const char *path, int width, int height,
                               GError **error)
{
    rf_export_options options = rf_export_pixels(width, height);
    return rf_window_export_plot_with(win, page, path, &options, error);
}

gboolean rf_window_export_plot_with(RfWindow *win, const char *page, const char *path,
                                    const rf_export_options *options, GError **error)
{
    g_return_val_if_fail(RF_IS_WINDOW(win), FALSE);
    GtkWidget *view = find_page(win, page);
    RfPlotView *plot = view != NULL ? rf_view_get_plot(view) : NULL;
    if (plot == NULL) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "The %s view has no plot to export",
                    view != NULL ? gtk_stack_page_get_title(gtk_stack_get_page(win->view_stack, view)) : page);
        return FALSE;
    }
    if (!rf_figure_format_known(path)) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                    "%s: unknown format; the file name must end in .png, .svg or .pdf", path);
        return FALSE;
    }
    char message[512];
    rf_zoom zoom = rf_plot_view_get_zoom(plot);
    if (!rf_figure_export_with(rf_plot_view_get_figure(plot), &zoom, path, options, message, sizeof message)) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", message);
        return FALSE;
    }
    return TRUE;
}

typedef struct {
    RfWindow *win;
    char *page;
} ExportTarget;

static gboolean export_or_explain(RfWindow *win, const char *page, const char *path, const rf_export_options *options)
{
    g_autoptr(GError) error = NULL;
    if (rf_window_export_plot_with(win, page, path, options, &error)) {
        rf_toast_written(&win->toast, "Exported the plot to", path);
        return TRUE;
    }
    rf_dialog_error(GTK_WINDOW(win), "Could not export the plot", error->message);
    return FALSE;
}

gboolean rf_window_export_plot_or_explain(RfWindow *win, const char *page, const char *path, int width, int height)
{
    rf_export_options options = rf_export_pixels(width, height);
    return export_or_explain(win, page, path, &options);
}

static void plot_export_chosen(const char *path, const rf_export_options *options, gpointer user_data)
{
    ExportTarget *t = user_data;
    if (path != NULL)
        export_or_explain(t->win, t->page, path, options);
    g_object_unref(t->win);
    g_free(t->page);
    g_free(t);
}

static void action_export_plot(GSimpleAction *a, GVariant *p, gpointer user_data)
{
    (void)a;
    (void)p;
    RfWindow *win = user_data;
    GtkWidget *view = gtk_stack_get_visible_child(win->view_stack);
    RfPlotView *plot = view != NULL ? rf_view_get_plot(view) : NULL;
    const char *page = view != NULL ? gtk_stack_get_visible_child_name(win->view_stack) : "view";
    if (plot == NULL) {
        g_autofree char *detail = g_strdup_printf("The %s view has no plot to export.", page);
        rf_dialog_error(GTK_WINDOW(win), "Nothing to export", detail);
        return;
    }
    /* The size on screen is the default until one is kept: the file looks
     * like the view. */
    int width = gtk_widget_get_width(GTK_WIDGET(plot)), height = gtk_widget_get_height(GTK_WIDGET(plot));
    ExportTarget *t = g_new0(ExportTarget, 1);
    t->win = g_object_ref(win);
    t->page = g_strdup(page);
    rf_dialog_export_plot(GTK_WINDOW(win), page, width > 16 ? width : 1600, height > 16 ? height : 1000,
                          plot_export_chosen, t);
}

const GActionEntry rf_window_file_actions[] = {
    {"open-data", action_open_data, NULL, NULL, NULL, {0}},
    {"open-config", action_open_config, NULL, NULL, NULL, {0}},
    {"open-checkpoint", action_open_checkpoint, NULL, NULL, NULL, {0}},
    {"open-checkpoint-on-data", action_open_checkpoint_on_data, NULL, NULL, NULL, {0}},
    {"open-run", action_open_run, "s", NULL, NULL, {0}},
    {"save-checkpoint", action_save_checkpoint, NULL, NULL, NULL, {0}},
    {"export-plot", action_export_plot, NULL, NULL, NULL, {0}},
    {"export-metrics", action_export_metrics, NULL, NULL, NULL, {0}},
    {"launch-cluster", action_launch_cluster, NULL, NULL, NULL, {0}},
    {"inspect-file", action_inspect_file, NULL, NULL, NULL, {0}},
};
const int rf_window_file_action_count = G_N_ELEMENTS(rf_window_file_actions);
