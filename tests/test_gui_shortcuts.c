/* The keyboard shortcuts window (Ctrl+?, app.shortcuts) of the real
 * application under Xvfb opens without a GTK warning: GTK 4.8's page
 * switcher of a GtkShortcutsSection of two pages warned "GtkLabel reported
 * min width -3" once per page label. And the views' keys and switcher:
 * Alt+0 is bound to show Evaluation, which then has its group (Why) and
 * its tab chosen; Ctrl+Page Down's action shows the next view; a click on
 * the Run group brings back the view last shown in it. */
#include <string.h>

#include "widget_find.h"
#include "workbench_app.h"

static const char small_config[] = RF_TEST_TINY_DATA RF_TEST_TINY_BLRP;

static guint gtk_warnings;
static GString *warning_text;

static GLogWriterOutput count_warnings(GLogLevelFlags level, const GLogField *fields, gsize n, gpointer data)
{
    (void)data;
    if (level & (G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL)) {
        gtk_warnings++;
        for (gsize i = 0; i < n; i++)
            if (strcmp(fields[i].key, "MESSAGE") == 0)
                g_string_append_printf(warning_text, " [%s]", (const char *)fields[i].value);
    }
    return g_log_writer_default(level, fields, n, data);
}

static GtkWindow *find_shortcuts(void)
{
    GListModel *toplevels = gtk_window_get_toplevels();
    for (guint i = 0; i < g_list_model_get_n_items(toplevels); i++) {
        g_autoptr(GtkWindow) w = g_list_model_get_item(toplevels, i);
        if (GTK_IS_SHORTCUTS_WINDOW(w) && gtk_widget_get_visible(GTK_WIDGET(w)))
            return w;
    }
    return NULL;
}

static void check_shortcuts_window(RfApplication *app)
{
    warning_text = g_string_new(NULL);
    g_log_set_writer_func(count_warnings, NULL, NULL);
    g_action_group_activate_action(G_ACTION_GROUP(app), "shortcuts", NULL);
    spin_for(1.0);
    GtkWindow *shortcuts = find_shortcuts();
    tap_ok(shortcuts != NULL && gtk_warnings == 0, "the shortcuts window opens without a warning (%u:%s)",
           gtk_warnings, warning_text->str);
    if (shortcuts != NULL)
        gtk_window_destroy(shortcuts);
    spin_for(0.2);
}

static gboolean chosen(RfWindow *win, const char *name)
{
    GtkWidget *w = find_named(GTK_WIDGET(win), name);
    return w != NULL && gtk_toggle_button_get_active(GTK_TOGGLE_BUTTON(w)) && gtk_widget_get_mapped(w);
}

static void check_view_keys(RfApplication *app, RfWindow *win)
{
    GtkStack *stack = rf_window_get_stack(win);
    g_auto(GStrv) keys = gtk_application_get_accels_for_action(GTK_APPLICATION(app), "win.show-view::evaluation");
    g_auto(GStrv) next = gtk_application_get_accels_for_action(GTK_APPLICATION(app), "win.next-view");
    tap_ok(keys[0] != NULL && strcmp(keys[0], "<Alt>0") == 0 && next[0] != NULL &&
               strcmp(next[0], "<Control>Page_Down") == 0,
           "Alt+0 shows the Evaluation view and Ctrl+Page Down the next (%s, %s)", keys[0] ? keys[0] : "none",
           next[0] ? next[0] : "none");
    g_action_group_activate_action(G_ACTION_GROUP(win), "show-view", g_variant_new_string("evaluation"));
    spin_for(0.3);
    tap_ok(g_strcmp0(gtk_stack_get_visible_child_name(stack), "evaluation") == 0 && chosen(win, "view-group-Why") &&
               chosen(win, "view-tab-evaluation") && !gtk_widget_get_mapped(find_named(GTK_WIDGET(win),
                                                                                       "view-tab-training")),
           "its action shows Evaluation with the Why group and its tab chosen, the Run group's tabs hidden");
    g_action_group_activate_action(G_ACTION_GROUP(win), "next-view", NULL);
    spin_for(0.3);
    tap_ok(g_strcmp0(gtk_stack_get_visible_child_name(stack), "attribution") == 0 &&
               chosen(win, "view-tab-attribution"),
           "the next view is Attribution (%s)", gtk_stack_get_visible_child_name(stack));
    g_signal_emit_by_name(find_named(GTK_WIDGET(win), "view-group-Run"), "clicked");
    spin_for(0.3);
    tap_ok(g_strcmp0(gtk_stack_get_visible_child_name(stack), "training") == 0 && chosen(win, "view-group-Run") &&
               chosen(win, "view-tab-training"),
           "a click on the Run group brings back Training, the view last shown in it (%s)",
           gtk_stack_get_visible_child_name(stack));
}

int main(int argc, char **argv)
{
    application_kernels(argv);
    (void)argc;
    (void)argv;
    g_autofree char *dir = g_dir_make_tmp("rf-shortcuts-XXXXXX", NULL);
    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, small_config, &app);
    if (win == NULL)
        return tap_done();
    spin_for(0.5);
    check_shortcuts_window(app);
    check_view_keys(app, win);
    close_workbench(win, app);
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", dir);
    if (system(cmd) != 0)
        tap_ok(FALSE, "remove %s", dir);
    return tap_done();
}
