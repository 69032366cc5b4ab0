/* The Export Plot dialog of the real application under Xvfb: its size
 * (with a unit), resolution and font size reach the file, and are kept in
 * the preferences for the next export.
 *   1. On the Memory view, the dialog starts at the view's size in pixels;
 *      switching the unit to inches converts the numbers at the dpi.
 *   2. 6 x 4 in at 300 dpi, 10 pt, exported as PNG through the file
 *      chooser: a PNG of 1800 x 1200 pixels whose pHYs chunk says 300 dpi.
 *   3. The preferences hold what was chosen, and the dialog opens on it.
 *   4. The same as SVG: 432 x 288 pt, its tick labels 10 pt. */
#include <math.h>
#include <string.h>

#include "../ui/settings.h"
#include "../ui/view.h"
#include "file_chooser.h"
#include "gui_steps.h"
#include "widget_find.h"
#include "workbench_app.h"

static const char small_config[] = RF_TEST_TINY_DATA;

static GtkWindow *find_toplevel(const char *title)
{
    GListModel *toplevels = gtk_window_get_toplevels();
    for (guint i = 0; i < g_list_model_get_n_items(toplevels); i++) {
        g_autoptr(GtkWindow) w = g_list_model_get_item(toplevels, i);
        if (g_strcmp0(gtk_window_get_title(w), title) == 0 && gtk_widget_get_visible(GTK_WIDGET(w)))
            return w;
    }
    return NULL;
}

static GtkWindow *open_dialog(RfWindow *win)
{
    g_action_group_activate_action(G_ACTION_GROUP(win), "export-plot", NULL);
    spin_for(0.3);
    return find_toplevel("Export Plot");
}

static GtkSpinButton *spin(GtkWindow *d, const char *name)
{
    GtkWidget *w = find_named(GTK_WIDGET(d), name);
    return w != NULL && GTK_IS_SPIN_BUTTON(w) ? GTK_SPIN_BUTTON(w) : NULL;
}

static GtkDropDown *drop_down(GtkWindow *d, const char *name)
{
    GtkWidget *w = find_named(GTK_WIDGET(d), name);
    return w != NULL && GTK_IS_DROP_DOWN(w) ? GTK_DROP_DOWN(w) : NULL;
}

static gboolean file_written(gpointer path)
{
    return g_file_test(path, G_FILE_TEST_IS_REGULAR);
}

static guint32 be32(const guchar *p)
{
    return (guint32)p[0] << 24 | (guint32)p[1] << 16 | (guint32)p[2] << 8 | p[3];
}

/* Set the dialog's fields, press Export… and answer the chooser with `path`
 * (the name it suggests: a save chooser keeps its name field). */
static gboolean export_through_dialog(GtkWindow *d, guint format, double w, double h, double dpi, double font,
                                      const char *path)
{
    gtk_drop_down_set_selected(drop_down(d, "export-format"), format);
    gtk_spin_button_set_value(spin(d, "export-width"), w);
    gtk_spin_button_set_value(spin(d, "export-height"), h);
    gtk_spin_button_set_value(spin(d, "export-dpi"), dpi);
    gtk_spin_button_set_value(spin(d, "export-font-size"), font);
    g_signal_emit_by_name(find_named(GTK_WIDGET(d), "export-accept"), "clicked");
    if (!spin_until(chooser_open, NULL, 5.0))
        return FALSE;
    spin_for(0.5);
    answer_chooser(path);
    return spin_until(file_written, (gpointer)path, 30.0);
}

static void check_png(RfWindow *win, const char *dir)
{
    GtkWindow *d = open_dialog(win);
    if (!tap_ok(d != NULL && spin(d, "export-width") != NULL && spin(d, "export-dpi") != NULL &&
                    spin(d, "export-font-size") != NULL && drop_down(d, "export-unit") != NULL,
                "Export Plot opens with width, height, unit, resolution and font size"))
        return;
    RfPlotView *plot = rf_view_get_plot(gtk_stack_get_visible_child(rf_window_get_stack(win)));
    int view_w = gtk_widget_get_width(GTK_WIDGET(plot));
    double w = gtk_spin_button_get_value(spin(d, "export-width"));
    tap_ok(gtk_drop_down_get_selected(drop_down(d, "export-unit")) == RF_LENGTH_PX && fabs(w - view_w) < 0.5 &&
               gtk_spin_button_get_value(spin(d, "export-dpi")) == 96 &&
               fabs(gtk_spin_button_get_value(spin(d, "export-font-size")) - 8.25) < 1e-9,
           "it starts at the view's width in pixels (%g, the view %d), 96 dpi, 8.25 pt", w, view_w);
    gtk_drop_down_set_selected(drop_down(d, "export-unit"), RF_LENGTH_IN);
    spin_for(0.1);
    double inches = gtk_spin_button_get_value(spin(d, "export-width"));
    tap_ok(fabs(inches - view_w / 96.0) < 0.006, "switching to inches converts the width at 96 dpi (%g in)", inches);

    g_autofree char *png = g_build_filename(dir, "memory.png", NULL);
    if (!tap_ok(export_through_dialog(d, 0, 6, 4, 300, 10, png), "6 x 4 in at 300 dpi exports through the chooser"))
        return;
    g_autofree guchar *bytes = NULL;
    gsize len = 0;
    g_file_get_contents(png, (char **)&bytes, &len, NULL);
    tap_ok(len > 24 && be32(bytes + 16) == 1800 && be32(bytes + 20) == 1200, "the PNG is 1800 x 1200 pixels (%u x %u)",
           len > 24 ? be32(bytes + 16) : 0, len > 24 ? be32(bytes + 20) : 0);
    const guchar *phys = len > 50 ? memmem(bytes, len, "pHYs", 4) : NULL;
    tap_ok(phys != NULL && be32(phys + 4) == 11811, "its pHYs chunk says 300 dpi");

    GSettings *settings = rf_settings();
    g_autofree char *unit = settings != NULL ? g_settings_get_string(settings, "export-unit") : NULL;
    tap_ok(settings != NULL && g_settings_get_double(settings, "export-width") == 6 &&
               g_settings_get_double(settings, "export-height") == 4 && g_strcmp0(unit, "in") == 0 &&
               g_settings_get_double(settings, "export-dpi") == 300 &&
               g_settings_get_double(settings, "export-font-size") == 10,
           "the preferences keep 6 x 4 in, 300 dpi, 10 pt");
}

static double commonest_text_points(const char *svg)
{
    g_autoptr(GHashTable) counts = g_hash_table_new(g_direct_hash, g_direct_equal);
    int best = 0, best_n = 0;
    for (const char *t = strstr(svg, "<text "); t != NULL; t = strstr(t + 1, "<text ")) {
        const char *m = strstr(t, "matrix("), *fs = strstr(t, "font-size=\"");
        if (m == NULL || fs == NULL)
            continue;
        int key = (int)lround(g_ascii_strtod(m + 7, NULL) * g_ascii_strtod(fs + 11, NULL) * 100);
        int n = GPOINTER_TO_INT(g_hash_table_lookup(counts, GINT_TO_POINTER(key))) + 1;
        g_hash_table_insert(counts, GINT_TO_POINTER(key), GINT_TO_POINTER(n));
        if (n > best_n) {
            best_n = n;
            best = key;
        }
    }
    return best / 100.0;
}

static void check_kept_and_svg(RfWindow *win, const char *dir)
{
    GtkWindow *d = open_dialog(win);
    if (!tap_ok(d != NULL, "the dialog opens again"))
        return;
    tap_ok(gtk_drop_down_get_selected(drop_down(d, "export-unit")) == RF_LENGTH_IN &&
               gtk_spin_button_get_value(spin(d, "export-width")) == 6 &&
               gtk_spin_button_get_value(spin(d, "export-height")) == 4 &&
               gtk_spin_button_get_value(spin(d, "export-dpi")) == 300 &&
               gtk_spin_button_get_value(spin(d, "export-font-size")) == 10,
           "it opens on the kept 6 x 4 in, 300 dpi, 10 pt");
    spin_for(0.3);
    screenshot_of(GTK_WIDGET(d), "export");   /* docs/screenshot-export.png */
    g_autofree char *svg_path = g_build_filename(dir, "memory.svg", NULL);
    if (!tap_ok(export_through_dialog(d, 1, 6, 4, 300, 10, svg_path), "the same exports as SVG"))
        return;
    g_autofree char *svg = NULL;
    g_file_get_contents(svg_path, &svg, NULL, NULL);
    tap_ok(svg != NULL && strstr(svg, "width=\"432pt\" height=\"288pt\"") != NULL, "the SVG is 432 x 288 pt");
    double common = svg != NULL ? commonest_text_points(svg) : 0;
    tap_ok(fabs(common - 10) < 0.01, "its tick labels are 10 pt (%.2f)", common);
}

int main(int argc, char **argv)
{
    (void)argc;
    application_kernels(argv);
    g_autofree char *dir = g_dir_make_tmp("rf-gui-export-XXXXXX", NULL);
    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, small_config, &app);
    if (win == NULL)
        return tap_done();
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), "memory");
    spin_for(1.0);
    check_png(win, dir);
    check_kept_and_svg(win, dir);
    close_workbench(win, app);
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", dir);
    if (system(cmd) != 0)
        tap_ok(FALSE, "remove %s", dir);
    return tap_done();
}
