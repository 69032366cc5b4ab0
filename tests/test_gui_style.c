/* GNOME conventions through libadwaita (issue 12 item 14), under Xvfb with
 * the real application: app.style switches the window between the light
 * and the dark style (and back to following the system), the plots stay
 * readable in both (dark ink on their light canvas, as exported), the
 * About window is libadwaita's, Help → User Guide is app.help on F1 and
 * names the build tree's guide, and toasts are AdwToasts whose text is
 * shown as given (markup characters included) until they time out.
 */
#include <math.h>
#include <string.h>

#include "../config/data_dir.h"
#include "../ui/toast.h"
#include "../ui/view.h"
#include "widget_render.h"
#include "workbench_app.h"

static const char small_config[] = "[data]\n"
                                   "task = listops\n"
                                   "max_len = 32\n"
                                   "min_len = 8\n"
                                   "train_size = 64\n"
                                   "val_size = 16\n"
                                   "test_size = 16\n"
                                   "batch = 8\n"
                                   "[model]\n"
                                   "encoder = ls\n"
                                   "layers = 1\n"
                                   "dim = 16\n"
                                   "heads = 2\n"
                                   "ff = 32\n"
                                   "[train]\n"
                                   "steps = 6\n"
                                   "eval_every = 3\n";

/* The mean luminance (0-1) of `part` as the window draws it (its own
 * background is often the window's), and the share of its pixels darker
 * than 0.35 (text and lines on a light canvas). */
static gboolean measure(RfWindow *win, GtkWidget *part, double *mean, double *dark_share)
{
    g_autoptr(GdkTexture) texture = render(GTK_WIDGET(win));
    graphene_rect_t r;
    if (texture == NULL || !gtk_widget_compute_bounds(part, GTK_WIDGET(win), &r))
        return FALSE;
    int w = gdk_texture_get_width(texture), h = gdk_texture_get_height(texture);
    g_autofree guint32 *pixels = g_new(guint32, (gsize)w * h);
    gdk_texture_download(texture, (guchar *)pixels, (gsize)w * 4);
    int x0 = MAX(0, (int)r.origin.x), y0 = MAX(0, (int)r.origin.y);
    int x1 = MIN(w, (int)(r.origin.x + r.size.width)), y1 = MIN(h, (int)(r.origin.y + r.size.height));
    double sum = 0;
    long dark = 0, n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++, n++) {
            guint32 p = pixels[(long)y * w + x];   /* ARGB, opaque: the window draws its background */
            double lum = (0.2126 * ((p >> 16) & 0xff) + 0.7152 * ((p >> 8) & 0xff) + 0.0722 * (p & 0xff)) / 255;
            sum += lum;
            dark += lum < 0.35;
        }
    if (n == 0)
        return FALSE;
    *mean = sum / (double)n;
    *dark_share = (double)dark / (double)n;
    return TRUE;
}

static GtkWidget *sidebar_of(RfWindow *win)
{
    return gtk_widget_get_ancestor(GTK_WIDGET(rf_window_get_config_panel(win)), GTK_TYPE_SCROLLED_WINDOW);
}

static GtkWidget *training_plot(RfWindow *win)
{
    GtkWidget *view = gtk_stack_get_child_by_name(rf_window_get_stack(win), "training");
    return GTK_WIDGET(rf_view_get_plot(view));
}

static void set_style(RfApplication *app, const char *style)
{
    g_action_group_change_action_state(G_ACTION_GROUP(app), "style", g_variant_new_string(style));
    spin_for(0.5);
}

static void check_styles(RfWindow *win, RfApplication *app)
{
    AdwStyleManager *styles = adw_style_manager_get_default();
    double light_side = 0, dark_side = 0, light_plot = 0, dark_plot = 0, ink_light = 0, ink_dark = 0, unused;

    /* a short run, so the plot has curves, axes and text */
    g_action_group_activate_action(G_ACTION_GROUP(win), "train", NULL);
    tap_ok(spin_until(run_settled, rf_window_get_session(win), 120.0), "a six-step run finishes");
    set_style(app, "light");
    gboolean drawn = measure(win, sidebar_of(win), &light_side, &unused) &&
                     measure(win, training_plot(win), &light_plot, &ink_light);
    set_style(app, "dark");
    drawn = drawn && measure(win, sidebar_of(win), &dark_side, &unused) &&
            measure(win, training_plot(win), &dark_plot, &ink_dark);
    tap_ok(drawn && adw_style_manager_get_dark(styles) && dark_side < 0.3 && light_side > 0.7,
           "Style → Dark turns the window dark (sidebar luminance %.2f, light style %.2f)", dark_side, light_side);
    tap_ok(drawn && dark_plot > 0.7 && ink_dark > 0.002 && ink_dark < 0.3 && fabs(dark_plot - light_plot) < 0.02,
           "the Training plot stays readable in the dark style: its light canvas (luminance %.2f, light style "
           "%.2f) with dark ink on %.2f %% of it", dark_plot, light_plot, 100 * ink_dark);
    g_autoptr(GVariant) state = g_action_group_get_action_state(G_ACTION_GROUP(app), "style");
    tap_ok(strcmp(g_variant_get_string(state, NULL), "dark") == 0, "the Style menu shows Dark as chosen");

    set_style(app, "system");
    tap_ok(adw_style_manager_get_color_scheme(styles) == ADW_COLOR_SCHEME_DEFAULT,
           "Style → Follow the System hands the choice back to the desktop");

    const char *shots = g_getenv("RF_SCREENSHOT_DIR");
    if (shots != NULL) {
        set_style(app, "dark");
        g_autoptr(GdkTexture) shot = render(GTK_WIDGET(win));
        g_autofree char *path = g_build_filename(shots, "screenshot-dark.png", NULL);
        if (shot != NULL)
            gdk_texture_save_to_png(shot, path);
        set_style(app, "system");
    }
}

/* The guide itself opens in the desktop's viewer, which Xvfb has not: the
 * action, its key and the file it opens are checked (the installed guide
 * in tests/test_install.sh). */
static void check_help(RfApplication *app)
{
    tap_ok(g_action_group_has_action(G_ACTION_GROUP(app), "help"), "the application has app.help (Help → User Guide)");
    g_auto(GStrv) accels = gtk_application_get_accels_for_action(GTK_APPLICATION(app), "app.help");
    tap_ok(accels != NULL && accels[0] != NULL && strcmp(accels[0], "F1") == 0 && accels[1] == NULL,
           "app.help is on F1 (%s)", accels != NULL && accels[0] != NULL ? accels[0] : "no key");
    g_autofree char *guide = rf_user_guide();
    tap_ok(g_file_test(guide, G_FILE_TEST_IS_REGULAR) && g_str_has_suffix(guide, "/README.md"),
           "the user guide it opens exists in the build tree (%s)", guide);
}

static void check_about(RfApplication *app)
{
    g_action_group_activate_action(G_ACTION_GROUP(app), "about", NULL);
    spin_for(0.5);
    AdwAboutWindow *about = NULL;
    GListModel *toplevels = gtk_window_get_toplevels();   /* GTK's */
    for (guint i = 0; i < g_list_model_get_n_items(toplevels); i++) {
        g_autoptr(GObject) w = g_list_model_get_item(toplevels, i);
        if (ADW_IS_ABOUT_WINDOW(w))
            about = ADW_ABOUT_WINDOW(w);
    }
    tap_ok(about != NULL && strcmp(adw_about_window_get_application_name(about), "Rangefinder") == 0 &&
               strcmp(adw_about_window_get_version(about), RF_VERSION) == 0,
           "Help → About opens libadwaita's About window naming Rangefinder %s", RF_VERSION);
    if (about != NULL)
        gtk_window_close(GTK_WINDOW(about));
    spin_for(0.3);
}

/* Whether a visible label under `root` shows exactly `text`. */
static gboolean shows_label(GtkWidget *root, const char *text)
{
    if (!gtk_widget_get_mapped(root))
        return FALSE;
    if (GTK_IS_LABEL(root) && strcmp(gtk_label_get_text(GTK_LABEL(root)), text) == 0)
        return TRUE;
    for (GtkWidget *c = gtk_widget_get_first_child(root); c != NULL; c = gtk_widget_get_next_sibling(c))
        if (shows_label(c, text))
            return TRUE;
    return FALSE;
}

/* args: the window, the toast's text (NULL: no toast) and the text a
 * label must not show (NULL: none). Toasts come and go on the main loop's
 * timing, which a loaded machine stretches: wait for them, never a fixed time. */
static gboolean toast_is(gpointer data)
{
    gpointer *args = data;
    RfWindow *win = args[0];
    const char *text = args[1], *gone = args[2];
    gboolean shown = text == NULL ? rf_window_get_toast(win) == NULL
                                  : g_strcmp0(rf_window_get_toast(win), text) == 0 && shows_label(GTK_WIDGET(win), text);
    return shown && (gone == NULL || !shows_label(GTK_WIDGET(win), gone));
}

static void check_toast(RfWindow *win)
{
    const char *text = "Exported <b>plot</b> & curves.png in /tmp/a&b";
    rf_window_toast(win, text, "/tmp");
    gpointer first[3] = {win, (gpointer)text, NULL};
    tap_ok(spin_until(toast_is, first, 10.0), "a toast shows its text as given, markup characters and all");
    tap_ok(shows_label(GTK_WIDGET(win), "Open Folder"), "a toast with a folder offers Open Folder");
    const char *saved = "Saved checkpoint.safetensors in /tmp";
    gint64 t0 = g_get_monotonic_time();
    rf_window_toast(win, saved, NULL);
    /* at once: well before the shown toast's time is up (a queued toast
     * would wait for it); the first is still sliding in, which crashed
     * libadwaita 1.2 when it was dismissed then */
    gpointer second[3] = {win, (gpointer)saved, (gpointer)text};
    tap_ok(spin_until(toast_is, second, RF_TOAST_SECONDS - 1.0) && rf_window_get_toast_folder(win) == NULL,
           "a new toast replaces the shown one at once");
    gpointer none[3] = {win, NULL, (gpointer)saved};
    gboolean went = spin_until(toast_is, none, RF_TOAST_SECONDS + 10.0);
    double after = (g_get_monotonic_time() - t0) / 1e6;
    tap_ok(went && after >= RF_TOAST_SECONDS - 0.5, "the toast goes after %d s (%.1f s)", RF_TOAST_SECONDS, after);
}

int main(int argc, char **argv)
{
    (void)argc;
    application_kernels(argv);
    g_autofree char *dir = g_dir_make_tmp("rf-style-XXXXXX", NULL);
    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, small_config, &app);
    if (win != NULL) {
        gtk_window_set_default_size(GTK_WINDOW(win), 1400, 900);
        spin_for(0.5);
        check_styles(win, app);
        check_about(app);
        check_help(app);
        check_toast(win);
        close_workbench(win, app);
    }
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", dir);
    if (system(cmd) != 0)
        tap_diag("could not remove %s", dir);
    return tap_done();
}
