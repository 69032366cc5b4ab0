/* Preferences that persist (ui/settings.h), under Xvfb with the real
 * application and GSettings' keyfile backend in a scratch XDG_CONFIG_HOME
 * (the user's own settings are never touched):
 *   1. The build tree's compiled schema is found (uninstalled.ini).
 *   2. A first launch chooses Style → Dark, resizes the window, widens the
 *      sidebar by dragging its edge (the drag gesture's own signals) and
 *      opens a data folder, then closes its window.
 *   3. A second launch, a new process on the same settings, starts dark,
 *      at that size, with that sidebar, and its data chooser in that folder;
 *      one on empty settings starts from the defaults.
 *   4. Without the schema there are no preferences, and no crash.
 * The second launches run this program again with --report DIR: it opens
 * the workbench and prints what it found.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../ui/settings.h"
#include "../ui/start_folders.h"
#include "widget_find.h"
#include "workbench_app.h"

static const char small_config[] = RF_TEST_TINY_DATA RF_TEST_TINY_BLRP "[train]\nsteps = 2\n";

/* What a launch shows: the style, the window's size (as GTK keeps it for
 * the next map, and as drawn: the latter without the shadow of the
 * window's own decorations), whether the sidebar is shown and its drawn
 * width, the data chooser's folder. */
typedef struct {
    char style[16];
    int width, height, drawn_width, drawn_height, sidebar, sidebar_width;
    char data_folder[1024];
} Shown;

static AdwFlap *sidebar_flap(RfWindow *win)
{
    return ADW_FLAP(gtk_widget_get_ancestor(GTK_WIDGET(rf_window_get_config_panel(win)), ADW_TYPE_FLAP));
}

static gboolean window_mapped(gpointer win)
{
    return gtk_widget_get_mapped(GTK_WIDGET(win)) && gtk_widget_get_width(GTK_WIDGET(win)) > 0;
}

static gboolean no_windows(gpointer app)
{
    return gtk_application_get_windows(GTK_APPLICATION(app)) == NULL;
}

/* Drag the sidebar's edge by dx pixels through its drag gesture's own
 * signals (Xvfb has no pointer to drag with), then let it lay out. */
static gboolean drag_sidebar_edge(RfWindow *win, double dx)
{
    GtkWidget *handle = find_named(GTK_WIDGET(win), "sidebar-handle");
    if (handle == NULL)
        return FALSE;
    g_autoptr(GListModel) controllers = gtk_widget_observe_controllers(handle);
    for (guint i = 0; i < g_list_model_get_n_items(controllers); i++) {
        g_autoptr(GObject) c = g_list_model_get_item(controllers, i);
        if (GTK_IS_GESTURE_DRAG(c)) {
            g_signal_emit_by_name(c, "drag-begin", 0.0, 0.0);
            g_signal_emit_by_name(c, "drag-update", dx, 0.0);
            g_signal_emit_by_name(c, "drag-end", dx, 0.0);
            spin_for(0.5);
            return TRUE;
        }
    }
    return FALSE;
}

/* --report DIR: open the workbench in DIR and print what it restored. */
static int report(const char *dir)
{
    /* the TAP lines of opening go to stderr: stdout is the report */
    int out = dup(1);
    dup2(2, 1);
    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, small_config, &app);
    if (win == NULL || !spin_until(window_mapped, win, 20.0))
        return 1;
    spin_for(0.5);
    g_autoptr(GVariant) style = g_action_group_get_action_state(G_ACTION_GROUP(app), "style");
    g_autofree char *data_folder = rf_start_folder(RF_FOLDER_DATA);
    int width = 0, height = 0;
    gtk_window_get_default_size(GTK_WINDOW(win), &width, &height);
    FILE *report = fdopen(out, "w");
    fprintf(report, "%s %d %d %d %d %d %d %s\n", g_variant_get_string(style, NULL), width, height,
            gtk_widget_get_width(GTK_WIDGET(win)), gtk_widget_get_height(GTK_WIDGET(win)),
            adw_flap_get_reveal_flap(sidebar_flap(win)), gtk_widget_get_width(adw_flap_get_flap(sidebar_flap(win))),
            data_folder != NULL ? data_folder : "-");
    fprintf(report, "scheme %d\n", adw_style_manager_get_color_scheme(adw_style_manager_get_default()));
    fclose(report);
    close_workbench(win, app);
    return 0;
}

/* Launch this program again with --report, XDG_CONFIG_HOME=`config`. */
static gboolean relaunch(const char *self, const char *dir, const char *config, Shown *shown, int *scheme)
{
    char *argv[] = {(char *)self, "--report", (char *)dir, NULL};
    g_auto(GStrv) env = g_environ_setenv(g_get_environ(), "XDG_CONFIG_HOME", config, TRUE);
    g_autofree char *out = NULL, *err = NULL;
    int status = 0;
    g_autoptr(GError) error = NULL;
    if (!g_spawn_sync(NULL, argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error)) {
        tap_diag("%s", error->message);
        return FALSE;
    }
    if (!g_spawn_check_wait_status(status, NULL) ||
        sscanf(out, "%15s %d %d %d %d %d %d %1023s\nscheme %d", shown->style, &shown->width, &shown->height,
               &shown->drawn_width, &shown->drawn_height, &shown->sidebar, &shown->sidebar_width, shown->data_folder,
               scheme) != 9) {
        tap_diag("the second launch: %s%s", out, err);
        return FALSE;
    }
    return TRUE;
}

int main(int argc, char **argv)
{
    application_kernels(argv);
    if (argc == 3 && strcmp(argv[1], "--report") == 0)
        return report(argv[2]);

    g_autofree char *dir = g_dir_make_tmp("rf-prefs-XXXXXX", NULL);
    g_autofree char *config = g_build_filename(dir, "config", NULL);
    g_autofree char *fresh = g_build_filename(dir, "fresh-config", NULL);
    g_autofree char *data = g_build_filename(dir, "my-data", NULL);
    g_mkdir_with_parents(data, 0700);
    /* before anything of GIO reads them */
    g_setenv("GSETTINGS_BACKEND", "keyfile", TRUE);
    g_setenv("XDG_CONFIG_HOME", config, TRUE);

    tap_ok(rf_settings() != NULL, "the build tree's compiled schema %s is found", RF_SETTINGS_SCHEMA);

    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, small_config, &app);
    if (win == NULL || !tap_ok(spin_until(window_mapped, win, 20.0), "the first launch shows its window"))
        return tap_done();
    g_action_group_change_action_state(G_ACTION_GROUP(app), "style", g_variant_new_string("dark"));
    /* wide: the sidebar beside the views, and hidden there (F9) */
    gtk_window_set_default_size(GTK_WINDOW(win), 1700, 950);
    spin_for(0.5);
    GtkWidget *sidebar = adw_flap_get_flap(sidebar_flap(win));
    int before = gtk_widget_get_width(sidebar);
    gboolean dragged = drag_sidebar_edge(win, 1000);
    int widest = gtk_widget_get_width(sidebar);
    tap_ok(dragged && before == 360 && widest == 720,
           "dragging the sidebar's edge far right widens it from 360 px, stopping at 720 (%d to %d)", before, widest);
    dragged = drag_sidebar_edge(win, -200);
    int back = gtk_widget_get_width(sidebar);
    tap_ok(dragged && back == 520, "dragging it 200 px back makes the sidebar 520 px wide (%d)", back);
    g_action_group_activate_action(G_ACTION_GROUP(win), "toggle-sidebar", NULL);
    rf_start_folder_note(RF_FOLDER_DATA, data);
    spin_for(0.5);
    gtk_window_close(GTK_WINDOW(win));
    tap_ok(spin_until(no_windows, app, 10.0), "the first launch closes its window");
    g_object_unref(app);
    g_settings_sync();

    g_autofree char *keyfile = g_build_filename(config, "glib-2.0", "settings", "keyfile", NULL);
    g_autofree char *saved = NULL;
    tap_ok(g_file_get_contents(keyfile, &saved, NULL, NULL) && strstr(saved, "[org/rangefinder/Workbench]") != NULL,
           "the preferences are written to the scratch XDG_CONFIG_HOME (%s)", keyfile);
    /* one diagnostic line per keyfile line: TAP has no multi-line comments */
    g_auto(GStrv) lines = g_strsplit(saved != NULL ? saved : "", "\n", -1);
    for (char **line = lines; *line != NULL; line++)
        if (**line != '\0')
            tap_diag("%s", *line);

    Shown shown = {0};
    int scheme = -1;
    if (tap_ok(relaunch(argv[0], dir, config, &shown, &scheme), "a second launch opens and reports")) {
        tap_ok(strcmp(shown.style, "dark") == 0 && scheme == ADW_COLOR_SCHEME_FORCE_DARK,
               "the second launch starts in the dark style (Style menu: %s, colour scheme %d)", shown.style, scheme);
        tap_ok(shown.width == 1700 && shown.height == 950 && shown.drawn_width > 1650 && shown.drawn_height > 900,
               "the second launch opens the window at 1700 x 950 (%d x %d, drawn %d x %d)", shown.width, shown.height,
               shown.drawn_width, shown.drawn_height);
        tap_ok(shown.sidebar == 0, "the second launch keeps the sidebar hidden (shown: %d)", shown.sidebar);
        tap_ok(shown.sidebar_width == 520, "the second launch's sidebar is 520 px wide, as dragged (%d)",
               shown.sidebar_width);
        tap_ok(strcmp(shown.data_folder, data) == 0, "the second launch's data chooser starts in %s (%s)", data,
               shown.data_folder);
    }
    if (tap_ok(relaunch(argv[0], dir, fresh, &shown, &scheme), "a launch on empty settings opens and reports")) {
        tap_ok(strcmp(shown.style, "system") == 0 && scheme == ADW_COLOR_SCHEME_DEFAULT && shown.height == 900 &&
                   shown.drawn_width < 1650 && shown.sidebar == 1 && shown.sidebar_width == 360,
               "a launch on empty settings starts from the defaults: style %s, %d x %d, sidebar shown %d, %d px wide",
               shown.style, shown.width, shown.height, shown.sidebar, shown.sidebar_width);
    }

    GSettingsSchemaSource *system = g_settings_schema_source_get_default();
    g_autoptr(GSettingsSchema) installed =
        system != NULL ? g_settings_schema_source_lookup(system, RF_SETTINGS_SCHEMA, TRUE) : NULL;
    if (installed != NULL) {
        tap_skip("without the schema there are no preferences", "the schema is installed on this system");
    } else {
        g_autofree char *empty = g_build_filename(dir, "no-schema", NULL);
        g_mkdir_with_parents(empty, 0700);
        GSettings *none = rf_settings_new_from(empty);
        tap_ok(none == NULL, "without the schema there are no preferences (and one warning)");
        g_clear_object(&none);
    }
    return tap_done();
}
