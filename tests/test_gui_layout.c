/* The window's layout (issue 12 item 7), under Xvfb with the real
 * application: the sidebar keeps its width whichever view is shown and
 * however narrow the window gets, and no label of the sidebar (nor its
 * planner line) is cut short with an ellipsis, at the default size or in a
 * narrow window.
 */
#include <string.h>

#include "workbench_app.h"

static const char small_config[] = RF_TEST_TINY_DATA
                                   RF_TEST_TINY_BLRP;

/* Labels under `root` (visible ones) whose text is cut with an ellipsis;
 * their texts are appended to `cut`. */
static int count_cut(GtkWidget *root, GString *cut)
{
    if (!gtk_widget_get_visible(root))
        return 0;
    int n = 0;
    if (GTK_IS_LABEL(root) && pango_layout_is_ellipsized(gtk_label_get_layout(GTK_LABEL(root)))) {
        g_string_append_printf(cut, "%s\"%s\"", cut->len > 0 ? ", " : "", gtk_label_get_text(GTK_LABEL(root)));
        n++;
    }
    for (GtkWidget *c = gtk_widget_get_first_child(root); c != NULL; c = gtk_widget_get_next_sibling(c))
        n += count_cut(c, cut);
    return n;
}

static void check_sidebar(RfWindow *win, const char *when, int *width)
{
    GtkWidget *sidebar = gtk_widget_get_ancestor(GTK_WIDGET(rf_window_get_config_panel(win)), GTK_TYPE_SCROLLED_WINDOW);
    int w = gtk_widget_get_width(sidebar);
    if (*width == 0)
        *width = w;
    g_autoptr(GString) cut = g_string_new(NULL);
    int n = count_cut(sidebar, cut);
    tap_ok(w == *width && n == 0, "%s: the sidebar is %d px wide (at first %d) and no label of it is cut (%d: %s)",
           when, w, *width, n, cut->str);
}

static void resize(RfWindow *win, int w, int h)
{
    gtk_window_set_default_size(GTK_WINDOW(win), w, h);
    spin_for(0.5);
}

int main(int argc, char **argv)
{
    application_kernels(argv);
    (void)argc;
    (void)argv;
    g_autofree char *dir = g_dir_make_tmp("rf-layout-XXXXXX", NULL);
    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, small_config, &app);
    if (win == NULL)
        return tap_done();
    resize(win, 1400, 900);

    int width = 0;
    check_sidebar(win, "at 1400 x 900", &width);
    static const char *const pages[] = {"training", "attention",  "latent",      "talk",      "distributions", "memory",
                                        "data",     "evaluation", "attribution", "projector", "compare",       "runs"};
    for (size_t i = 0; i < G_N_ELEMENTS(pages); i++) {
        gtk_stack_set_visible_child_name(rf_window_get_stack(win), pages[i]);
        spin_for(0.4);
        g_autofree char *when = g_strdup_printf("with the %s view", pages[i]);
        check_sidebar(win, when, &width);
    }
    resize(win, 900, 700);
    check_sidebar(win, "in a 900 x 700 window", &width);
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), "data");
    spin_for(0.4);
    check_sidebar(win, "in a 900 x 700 window with the data view", &width);

    close_workbench(win, app);
    return tap_done();
}
