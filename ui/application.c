/* The workbench's AdwApplication: start-up, accelerators, app actions. */
#include "application.h"

#include "../config/data_dir.h"
#include "../config/run_folder.h"
#include "dialogs.h"
#include "settings.h"
#include "start_folders.h"
#include "window.h"

struct _RfApplication {
    AdwApplication parent_instance;
    char *config_path;
    char *runs_dir;
    RfSession *session;
};

G_DEFINE_TYPE(RfApplication, rf_application, ADW_TYPE_APPLICATION)

static const struct {
    const char *action;
    const char *accels[3];
} accelerators[] = {
    {"win.train", {"<Control>Return", NULL}},
    {"win.pause", {"<Control>p", NULL}},
    {"win.step", {"<Control>Right", NULL}},
    {"win.stop", {"<Control>period", NULL}},
    {"win.open-data", {"<Control>o", NULL}},
    {"win.open-checkpoint", {"<Control><Shift>o", NULL}},
    {"win.save-checkpoint", {"<Control>s", NULL}},
    {"win.export-plot", {"<Control>e", NULL}},
    {"win.export-metrics", {"<Control><Shift>e", NULL}},
    {"win.inspect-file", {"<Control>i", NULL}},
    {"win.next-view", {"<Control>Page_Down", NULL}},
    {"win.previous-view", {"<Control>Page_Up", NULL}},
    {"app.help", {"F1", NULL}},
    {"win.toggle-sidebar", {"F9", NULL}},
    {"app.shortcuts", {"<Control>question", NULL}},
    {"app.quit", {"<Control>q", NULL}},
};

/* Each window asks about a running run before it goes; the application
 * ends when the last one has. */
static void action_quit(GSimpleAction *a, GVariant *p, gpointer user_data)
{
    (void)a;
    (void)p;
    GList *windows = g_list_copy(gtk_application_get_windows(GTK_APPLICATION(user_data)));
    for (GList *l = windows; l != NULL; l = l->next)
        gtk_window_close(GTK_WINDOW(l->data));
    g_list_free(windows);
}

static void action_about(GSimpleAction *a, GVariant *p, gpointer user_data)
{
    (void)a;
    (void)p;
    static const char *const developers[] = {"The Rangefinder authors", NULL};
    GtkWidget *about = adw_about_window_new();
    g_object_set(about, "transient-for", gtk_application_get_active_window(GTK_APPLICATION(user_data)),
                 "application-name", "Rangefinder",
                 "application-icon", "utilities-system-monitor-symbolic",
                 "version", RF_VERSION,
                 "developer-name", "The Rangefinder authors",
                 "developers", developers,
                 "comments", "A workbench for long-range sequence models: train small models and watch "
                             "attention maps, BLRP latent states, TaLK bounds and memory curves live.",
                 "license-type", GTK_LICENSE_MIT_X11,
                 NULL);
    gtk_window_present(GTK_WINDOW(about));
}

/* app.style: "system" follows the desktop's light or dark preference
 * (libadwaita's style manager reads it), "light" and "dark" force one. The
 * choice is a preference (ui/settings.h): the next launch starts with it. */
static AdwColorScheme scheme_of(const char *style)
{
    return g_strcmp0(style, "light") == 0  ? ADW_COLOR_SCHEME_FORCE_LIGHT
           : g_strcmp0(style, "dark") == 0 ? ADW_COLOR_SCHEME_FORCE_DARK
                                           : ADW_COLOR_SCHEME_DEFAULT;
}

static void action_style(GSimpleAction *a, GVariant *state, gpointer user_data)
{
    (void)user_data;
    const char *style = g_variant_get_string(state, NULL);
    adw_style_manager_set_color_scheme(adw_style_manager_get_default(), scheme_of(style));
    g_simple_action_set_state(a, state);
    GSettings *settings = rf_settings();
    if (settings != NULL)
        g_settings_set_string(settings, "style", style);
}

/* Help → User Guide: the guide's first page in the desktop's viewer. */
static void action_help(GSimpleAction *a, GVariant *p, gpointer user_data)
{
    (void)a;
    (void)p;
    GtkWindow *win = gtk_application_get_active_window(GTK_APPLICATION(user_data));
    g_autofree char *guide = rf_user_guide();
    if (!g_file_test(guide, G_FILE_TEST_EXISTS)) {
        g_autofree char *why = g_strdup_printf("%s is missing: reinstall Rangefinder.", guide);
        rf_dialog_error(win, "Could not open the user guide", why);
        return;
    }
    g_autofree char *uri = g_filename_to_uri(guide, NULL, NULL);
    gtk_show_uri(win, uri, GDK_CURRENT_TIME);
}

static void action_shortcuts(GSimpleAction *a, GVariant *p, gpointer user_data)
{
    (void)a;
    (void)p;
    g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource("/org/rangefinder/Workbench/shortcuts.ui");
    GtkWindow *shortcuts = GTK_WINDOW(gtk_builder_get_object(builder, "shortcuts"));
    gtk_window_set_transient_for(shortcuts, gtk_application_get_active_window(GTK_APPLICATION(user_data)));
    gtk_window_present(shortcuts);
}

static const GActionEntry app_actions[] = {
    {"quit", action_quit, NULL, NULL, NULL, {0}},
    {"about", action_about, NULL, NULL, NULL, {0}},
    {"shortcuts", action_shortcuts, NULL, NULL, NULL, {0}},
    {"help", action_help, NULL, NULL, NULL, {0}},
    {"style", NULL, "s", "'system'", action_style, {0}},
};

static void rf_application_startup(GApplication *application)
{
    G_APPLICATION_CLASS(rf_application_parent_class)->startup(application);
    g_action_map_add_action_entries(G_ACTION_MAP(application), app_actions, G_N_ELEMENTS(app_actions), application);
    for (size_t i = 0; i < G_N_ELEMENTS(accelerators); i++)
        gtk_application_set_accels_for_action(GTK_APPLICATION(application), accelerators[i].action,
                                              accelerators[i].accels);
    GSettings *settings = rf_settings();
    if (settings != NULL) {
        g_autofree char *style = g_settings_get_string(settings, "style");
        g_action_group_change_action_state(G_ACTION_GROUP(application), "style", g_variant_new_string(style));
    }
}

/* --runs, else the runs-folder preference, else the default. */
static char *runs_folder(RfApplication *app)
{
    if (app->runs_dir != NULL)
        return g_strdup(app->runs_dir);
    GSettings *settings = rf_settings();
    g_autofree char *preferred = settings != NULL ? g_settings_get_string(settings, "runs-folder") : NULL;
    return preferred != NULL && preferred[0] != '\0' ? g_steal_pointer(&preferred) : rf_runs_default_dir();
}

static void rf_application_activate(GApplication *application)
{
    RfApplication *app = RF_APPLICATION(application);
    GtkWindow *open = gtk_application_get_active_window(GTK_APPLICATION(app));
    if (open != NULL) {
        gtk_window_present(open);
        return;
    }
    if (app->session == NULL) {
        app->session = rf_session_new();
        g_autofree char *runs = runs_folder(app);
        rf_session_set_runs_dir(app->session, runs);
    }
    g_autofree char *data = rf_data_dir();
    g_autofree char *path = app->config_path != NULL ? g_strdup(app->config_path)
                                                     : g_build_filename(data, "configs", "default.ini", NULL);
    g_autoptr(GError) error = NULL;
    gboolean loaded = rf_session_load_config_file(app->session, path, &error);
    if (loaded)
        rf_start_folder_note(RF_FOLDER_CONFIGS, path);

    RfWindow *win = rf_window_new(GTK_APPLICATION(app), app->session);
    gtk_window_present(GTK_WINDOW(win));
    if (!loaded)
        rf_dialog_error(GTK_WINDOW(win), "Could not load the configuration", error->message);
    rf_window_reload_data(win);
}

/* `rangefinder FILE|RUNDIR`, here or handed over by a second launch: the
 * window (opened first if need be) opens them. */
static void rf_application_open(GApplication *application, GFile **files, int n_files, const char *hint)
{
    (void)hint;
    g_application_activate(application);
    GtkWindow *win = gtk_application_get_active_window(GTK_APPLICATION(application));
    if (win != NULL)
        rf_window_open_files(RF_WINDOW(win), files, n_files);
}

static void rf_application_shutdown(GApplication *application)
{
    RfApplication *app = RF_APPLICATION(application);
    if (app->session != NULL)
        rf_session_stop(app->session);
    G_APPLICATION_CLASS(rf_application_parent_class)->shutdown(application);
}

static void rf_application_finalize(GObject *object)
{
    RfApplication *app = RF_APPLICATION(object);
    g_clear_object(&app->session);
    g_free(app->config_path);
    g_free(app->runs_dir);
    G_OBJECT_CLASS(rf_application_parent_class)->finalize(object);
}

static void rf_application_class_init(RfApplicationClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = rf_application_finalize;
    G_APPLICATION_CLASS(klass)->startup = rf_application_startup;
    G_APPLICATION_CLASS(klass)->activate = rf_application_activate;
    G_APPLICATION_CLASS(klass)->open = rf_application_open;
    G_APPLICATION_CLASS(klass)->shutdown = rf_application_shutdown;
}

static void rf_application_init(RfApplication *app)
{
    (void)app;
}

RfApplication *rf_application_new(const char *config_path)
{
    RfApplication *app = g_object_new(RF_TYPE_APPLICATION, "application-id", RF_APPLICATION_ID,
                                      "flags", G_APPLICATION_HANDLES_OPEN, NULL);
    app->config_path = g_strdup(config_path);
    return app;
}

void rf_application_set_runs_dir(RfApplication *app, const char *dir)
{
    g_free(app->runs_dir);
    app->runs_dir = g_strdup(dir);
}

RfSession *rf_application_get_session(RfApplication *app)
{
    g_return_val_if_fail(RF_IS_APPLICATION(app), NULL);
    return app->session;
}
