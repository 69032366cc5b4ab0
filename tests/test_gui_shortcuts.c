/* The keyboard shortcuts window (Ctrl+?, app.shortcuts) of the real
 * application under Xvfb opens without a GTK warning: GTK 4.8's page
 * switcher of a GtkShortcutsSection of two pages warned "GtkLabel reported
 * min width -3" once per page label. */
#include <string.h>

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

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    g_autofree char *dir = g_dir_make_tmp("rf-shortcuts-XXXXXX", NULL);
    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, small_config, &app);
    if (win == NULL)
        return tap_done();
    spin_for(0.5);
    check_shortcuts_window(app);
    close_workbench(win, app);
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", dir);
    if (system(cmd) != 0)
        tap_ok(FALSE, "remove %s", dir);
    return tap_done();
}
