/* Choosing data sets (issue 12 item 8), under Xvfb with the real
 * application:
 *   1. The sidebar's Task and the Data view's menu name the data sets with
 *      the same labels in the same order (the key table's).
 *   2. Choosing a task that needs a folder in the sidebar opens the folder
 *      chooser at once; cancelling leaves the previous task (config, sidebar
 *      and Data view) as it was.
 *   3. Accepting a folder switches task and folder together and opens the
 *      data; until it has loaded the Data view lists none of the previous
 *      task's samples and says it is loading.
 *   4. A split the data made shorter than asked (validation 2000 asked of
 *      six images) is named in the Data view.
 *   5. Fashion-MNIST, where Debian's copy is installed, opens from there
 *      without a chooser.
 *   6. A ListOps expression inspected before the switch to the image folder
 *      puts the Data view on its Inspected list; once the images load (the
 *      expression is forgotten) the view is back on the data set's Train
 *      samples, not on an empty Inspected list.
 */
#include <string.h>

#include "../ui/config_panel.h"
#include "../ui/data_tasks.h"
#include "../ui/inspect_input.h"
#include "file_chooser.h"
#include "widget_find.h"
#include "workbench_app.h"

static const char small_config[] = "[data]\n"
                                   "task = listops\n"
                                   "max_len = 32\n"
                                   "min_len = 8\n"
                                   "train_size = 64\n"
                                   "val_size = 2000\n"
                                   "test_size = 2\n"
                                   "batch = 8\n"
                                   "image_size = 8\n"
                                   "[model]\n"
                                   "encoder = full\n"
                                   "layers = 1\n"
                                   "dim = 16\n"
                                   "heads = 2\n"
                                   "ff = 32\n";

/* The first widget under root of `type` whose tooltip or name is `tag`. */
static GtkWidget *find_tagged(GtkWidget *root, GType type, const char *tag)
{
    if (G_TYPE_CHECK_INSTANCE_TYPE(root, type) &&
        (g_strcmp0(gtk_widget_get_tooltip_text(root), tag) == 0 || g_strcmp0(gtk_widget_get_name(root), tag) == 0))
        return root;
    for (GtkWidget *c = gtk_widget_get_first_child(root); c != NULL; c = gtk_widget_get_next_sibling(c)) {
        GtkWidget *found = find_tagged(c, type, tag);
        if (found != NULL)
            return found;
    }
    return NULL;
}

/* The first widget of `type` under root, outside pop-ups (a drop-down's
 * list is a GtkListView too). */
static GtkWidget *find_type(GtkWidget *root, GType type)
{
    if (G_TYPE_CHECK_INSTANCE_TYPE(root, type))
        return root;
    if (GTK_IS_POPOVER(root))
        return NULL;
    for (GtkWidget *c = gtk_widget_get_first_child(root); c != NULL; c = gtk_widget_get_next_sibling(c)) {
        GtkWidget *found = find_type(c, type);
        if (found != NULL)
            return found;
    }
    return NULL;
}

/* "a|b|c": the strings of a drop-down's model. */
static char *drop_down_items(GtkWidget *w)
{
    GListModel *model = gtk_drop_down_get_model(GTK_DROP_DOWN(w));
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < g_list_model_get_n_items(model); i++)
        g_string_append_printf(s, "%s%s", i > 0 ? "|" : "",
                               gtk_string_list_get_string(GTK_STRING_LIST(model), i));
    return g_string_free(s, FALSE);
}

static const char *drop_down_text(GtkWidget *w)
{
    GListModel *model = gtk_drop_down_get_model(GTK_DROP_DOWN(w));
    return gtk_string_list_get_string(GTK_STRING_LIST(model), gtk_drop_down_get_selected(GTK_DROP_DOWN(w)));
}

static guint task_index(const char *key)
{
    return (guint)(rf_data_task_find(key) - rf_data_tasks);
}

/* Six 8x8 PNGs in two class folders. */
static void make_images(const char *root)
{
    static const char *const classes[] = {"dark", "light"};
    for (int c = 0; c < 2; c++) {
        g_autofree char *dir = g_build_filename(root, classes[c], NULL);
        g_mkdir_with_parents(dir, 0700);
        for (int k = 0; k < 3; k++) {
            g_autoptr(GdkPixbuf) pb = gdk_pixbuf_new(GDK_COLORSPACE_RGB, FALSE, 8, 8, 8);
            gdk_pixbuf_fill(pb, c == 0 ? 0x20202000u + (guint)k : 0xe0e0e000u + (guint)k);
            char name[16];
            g_snprintf(name, sizeof name, "%d.png", k);
            g_autofree char *path = g_build_filename(dir, name, NULL);
            gdk_pixbuf_save(pb, path, "png", NULL, NULL);
        }
    }
}

/* The drop-down shows the task `want` names (a cancel is answered from an idle). */
typedef struct shows {
    GtkWidget *drop_down;
    const char *task;
} shows;

static gboolean showing(gpointer data)
{
    const shows *w = data;
    return strcmp(drop_down_text(w->drop_down), rf_choice_label("data.task", w->task)) == 0;
}

static gboolean data_is(gpointer session)
{
    const rf_dataset *ds = rf_session_get_dataset(session);
    return ds != NULL && !rf_session_data_loading(session) &&
           strcmp(ds->name, rf_session_get_config(session)->data.task) == 0;
}

static gboolean loaded_images(gpointer session)
{
    return strcmp(rf_session_get_config(session)->data.task, "image_folder") == 0 && data_is(session);
}

/* What the Data view shows the moment the image folder starts loading
 * (this handler runs after the view's). */
typedef struct loading_watch {
    GtkWidget *data_view;
    GListModel *samples;
    gboolean loading, listed, said;
} loading_watch;

static void on_state(RfSession *s, gpointer data)
{
    loading_watch *w = data;
    if (!rf_session_data_loading(s) || strcmp(rf_session_get_config(s)->data.task, "image_folder") != 0)
        return;
    w->loading = TRUE;
    w->listed = w->listed || g_list_model_get_n_items(w->samples) > 0;
    w->said = w->said || find_tagged(w->data_view, GTK_TYPE_LABEL, "Loading Image folder…") != NULL;
}

static gboolean inspected_one(gpointer session)
{
    return rf_session_get_inspected_count(session) == 1;
}

int main(int argc, char **argv)
{
    application_kernels(argv);
    (void)argc;
    (void)argv;
    g_autofree char *dir = g_dir_make_tmp("rf-data-XXXXXX", NULL);
    g_autofree char *images = g_build_filename(dir, "images", NULL);
    make_images(images);
    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, small_config, &app);
    if (win == NULL)
        return tap_done();
    RfSession *s = rf_window_get_session(win);
    GtkWidget *sidebar_task = rf_config_panel_get_editor(rf_window_get_config_panel(win), "data.task");
    GtkWidget *data_view = gtk_stack_get_child_by_name(rf_window_get_stack(win), "data");
    GtkWidget *view_task = find_tagged(data_view, GTK_TYPE_DROP_DOWN, "The data set to browse and train on");
    GtkWidget *shortfall = find_tagged(data_view, GTK_TYPE_LABEL, "data-shortfall");
    GtkListView *list = GTK_LIST_VIEW(find_type(data_view, GTK_TYPE_LIST_VIEW));
    if (!tap_ok(sidebar_task != NULL && view_task != NULL && shortfall != NULL && list != NULL,
                "the sidebar's Task, the Data view's menu, list and shortfall line are there"))
        return tap_done();
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), "data");
    spin_for(0.3);
    GListModel *samples = G_LIST_MODEL(gtk_list_view_get_model(list));
    loading_watch watch = {data_view, samples, FALSE, FALSE, FALSE};

    /* 1 */
    g_autofree char *in_sidebar = drop_down_items(sidebar_task), *in_view = drop_down_items(view_task);
    const rf_config_key *task_key = NULL;
    for (const rf_config_key *k = rf_config_keys; k->section != NULL; k++)
        if (strcmp(k->section, "data") == 0 && strcmp(k->key, "task") == 0)
            task_key = k;
    g_auto(GStrv) keys = g_strsplit(task_key->choices, "|", -1);
    GString *want = g_string_new(NULL);
    for (guint i = 0; keys[i] != NULL; i++)
        g_string_append_printf(want, "%s%s", i > 0 ? "|" : "", rf_choice_label("data.task", keys[i]));
    tap_ok(strcmp(in_sidebar, in_view) == 0 && strcmp(in_sidebar, want->str) == 0,
           "the sidebar and the Data view name the data sets alike, in the key table's order (%s / %s)", in_sidebar,
           in_view);
    g_string_free(want, TRUE);

    /* 2 */
    guint listops_samples = g_list_model_get_n_items(samples);
    gtk_drop_down_set_selected(GTK_DROP_DOWN(sidebar_task), task_index("image_folder"));
    tap_ok(spin_until(chooser_open, NULL, 5.0), "choosing Image folder in the sidebar opens the folder chooser");
    answer_chooser(NULL);
    spin_until(showing, &(shows){sidebar_task, "listops"}, 5.0);
    tap_ok(strcmp(rf_session_get_config(s)->data.task, "listops") == 0 &&
               strcmp(drop_down_text(sidebar_task), rf_choice_label("data.task", "listops")) == 0 &&
               strcmp(drop_down_text(view_task), rf_choice_label("data.task", "listops")) == 0 &&
               g_list_model_get_n_items(samples) == listops_samples && listops_samples > 0,
           "cancelling keeps ListOps: config, sidebar (%s), Data view (%s) and its %u samples", drop_down_text(sidebar_task),
           drop_down_text(view_task), listops_samples);

    /* 6: an input inspected on ListOps */
    GtkWidget *split = find_by_tooltip(data_view, "Which split's samples");
    rf_inspect_input(GTK_WINDOW(win), s, NULL, "[MAX 2 9 ]");
    gboolean inspected = spin_until(inspected_one, s, 30.0);
    spin_for(0.3);
    tap_ok(inspected && split != NULL && strcmp(drop_down_text(split), "Inspected") == 0 &&
               g_list_model_get_n_items(samples) == 1,
           "an expression inspected on ListOps is shown in the Inspected list (%s)",
           split != NULL ? drop_down_text(split) : "no split menu");

    /* 3 */
    gtk_drop_down_set_selected(GTK_DROP_DOWN(sidebar_task), task_index("image_folder"));
    tap_ok(spin_until(chooser_open, NULL, 5.0), "choosing Image folder again opens the chooser again");
    spin_for(0.5);   /* the chooser loads its start folder asynchronously */
    GtkWindow *chooser = find_chooser();
    g_autoptr(GFile) folder = g_file_new_for_path(images);
    gtk_file_chooser_set_current_folder(GTK_FILE_CHOOSER(chooser), folder, NULL);
    spin_for(0.5);
    gulong handler = g_signal_connect_after(s, "state-changed", G_CALLBACK(on_state), &watch);
    gtk_dialog_response(GTK_DIALOG(chooser), GTK_RESPONSE_ACCEPT);
    spin_until(chooser_gone, NULL, 5.0);
    gboolean loaded = spin_until(loaded_images, s, 30.0);
    tap_ok(loaded && watch.loading && !watch.listed && watch.said,
           "while Image folder loads the Data view lists none of ListOps' samples (%s) and says it is loading (%s)",
           watch.listed ? "it did" : "none", watch.said ? "it did" : "it did not");
    g_signal_handler_disconnect(s, handler);
    tap_ok(strcmp(rf_session_get_config(s)->data.path, images) == 0,
           "accepting switches task and folder together and opens %s", images);
    spin_for(0.3);
    tap_ok(g_list_model_get_n_items(samples) > 0 &&
               strcmp(drop_down_text(view_task), rf_choice_label("data.task", "image_folder")) == 0,
           "the Data view lists the images (%u) under Image folder", g_list_model_get_n_items(samples));
    /* 6 */
    tap_ok(rf_session_get_inspected_count(s) == 0 && split != NULL && strcmp(drop_down_text(split), "Train") == 0 &&
               g_list_model_get_n_items(samples) == (guint)rf_session_get_dataset(s)->size[RF_SPLIT_TRAIN],
           "the new data set forgot the expression, and the Data view is back on its Train samples (%s, %u)",
           split != NULL ? drop_down_text(split) : "no split menu", g_list_model_get_n_items(samples));

    /* 4 */
    const char *line = gtk_label_get_text(GTK_LABEL(shortfall));
    g_autofree char *asked = g_strdup_printf("validation: %lld of 2000 asked",
                                             (long long)rf_session_get_dataset(s)->size[RF_SPLIT_VAL]);
    tap_ok(gtk_widget_get_visible(shortfall) && strstr(line, asked) != NULL,
           "the shortened validation split is named: \"%s\"", line);

    /* 2 again, the Data view's menu: a cancel there changes nothing either */
    gtk_drop_down_set_selected(GTK_DROP_DOWN(view_task), task_index("audio_folder"));
    tap_ok(spin_until(chooser_open, NULL, 5.0), "choosing Audio folder in the Data view opens the chooser");
    answer_chooser(NULL);
    spin_until(showing, &(shows){view_task, "image_folder"}, 5.0);
    tap_ok(strcmp(rf_session_get_config(s)->data.task, "image_folder") == 0 &&
               strcmp(drop_down_text(view_task), rf_choice_label("data.task", "image_folder")) == 0 &&
               strcmp(drop_down_text(sidebar_task), rf_choice_label("data.task", "image_folder")) == 0,
           "cancelling keeps Image folder in the config, the Data view and the sidebar");

    /* 5 */
    const rf_data_task *fashion = rf_data_task_find("fashion_mnist");
    gtk_drop_down_set_selected(GTK_DROP_DOWN(sidebar_task), task_index("fashion_mnist"));
    if (g_file_test(fashion->default_path, G_FILE_TEST_IS_DIR)) {
        spin_for(0.5);
        tap_ok(find_chooser() == NULL && strcmp(rf_session_get_config(s)->data.task, "fashion_mnist") == 0 &&
                   rf_session_get_config(s)->data.path[0] == '\0',
               "Fashion-MNIST opens from %s without a chooser", fashion->default_path);
        tap_ok(spin_until(data_is, s, 120.0), "Fashion-MNIST loads");
    } else {
        tap_ok(spin_until(chooser_open, NULL, 5.0), "without %s, Fashion-MNIST asks for its folder",
               fashion->default_path);
        answer_chooser(NULL);
    }
    close_workbench(win, app);
    return tap_done();
}
