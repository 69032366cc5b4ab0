/* Zoom per map and the zoom keys (issue 12 item 5), under Xvfb with the
 * real application: a small full-attention model (2 layers, 2 heads)
 * trains two steps, and on the Attention view
 *   1. a zoomed map switched to another head, or to another layer's map,
 *      starts unzoomed;
 *   2. another sample of the same map keeps the zoom (to compare samples);
 *   3. the zoom keys (+, -, 0) reach the plot from any focused widget but a
 *      text field: from the Map drop-down they zoom, in the Head field they
 *      are typed, not taken.
 */
#include <string.h>

#include "../ui/figures/attention_figure.h"
#include "../ui/view.h"
#include "widget_find.h"
#include "workbench_app.h"

static const char small_config[] = RF_TEST_TINY_DATA
                                   "[model]\n"
                                   "encoder = full\n"
                                   "layers = 2\n"
                                   "dim = 16\n"
                                   "heads = 2\n"
                                   "ff = 32\n"
                                   "[train]\n"
                                   "steps = 2\n";

static gboolean has_map(gpointer s)
{
    const rf_probe_value *p = rf_session_find_probe(s, "layer0.attn.probs");
    return p != NULL && p->filled;
}

static gboolean zoomed(RfPlotView *plot)
{
    rf_zoom z = rf_plot_view_get_zoom(plot);
    return z.x1 - z.x0 < 1.0 || z.y1 - z.y0 < 1.0;
}

/* The map shown is the one whose title starts `want[1]` (a new map arrives
 * from the worker after the choice: under load, well after it). */
static gboolean showing(gpointer data)
{
    gpointer *args = data;
    const rf_attention_figure *fig = rf_plot_view_get_figure(args[0])->data;
    return g_str_has_prefix(fig->title, args[1]);
}

/* A key pressed with the window's focus where it is: every key controller
 * of the window sees it, as GTK's bubbling would deliver it there. */
static gboolean press_on_window(RfWindow *win, guint keyval)
{
    gboolean taken = FALSE;
    GListModel *controllers = gtk_widget_observe_controllers(GTK_WIDGET(win));
    for (guint i = 0; i < g_list_model_get_n_items(controllers); i++) {
        g_autoptr(GObject) c = g_list_model_get_item(controllers, i);
        gboolean handled = FALSE;
        if (GTK_IS_EVENT_CONTROLLER_KEY(c))
            g_signal_emit_by_name(c, "key-pressed", keyval, 0, (GdkModifierType)0, &handled);
        taken = taken || handled;
    }
    g_object_unref(controllers);
    return taken;
}

int main(int argc, char **argv)
{
    application_kernels(argv);
    (void)argc;
    (void)argv;
    g_autofree char *dir = g_dir_make_tmp("rf-zoom-XXXXXX", NULL);
    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, small_config, &app);
    if (win == NULL)
        return tap_done();
    RfSession *s = rf_window_get_session(win);
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), "attention");
    g_action_group_activate_action(G_ACTION_GROUP(win), "train", NULL);
    tap_ok(spin_until(run_settled, s, 120.0) && rf_session_get_state(s) == RF_RUN_FINISHED, "a two-step run finishes");
    tap_ok(spin_until(has_map, s, 30.0), "the Attention view has a map");
    spin_for(0.5);

    GtkWidget *page = gtk_stack_get_visible_child(rf_window_get_stack(win));
    RfPlotView *plot = rf_view_get_plot(page);
    GtkSpinButton *head = GTK_SPIN_BUTTON(find_by_tooltip(page, "Attention head"));
    GtkSpinButton *sample = GTK_SPIN_BUTTON(find_by_tooltip(page, "Which sample"));
    GtkDropDown *map = GTK_DROP_DOWN(find_labelled(page, "Map"));
    if (!tap_ok(plot != NULL && head != NULL && sample != NULL && map != NULL,
                "the Attention view has its plot, Map, Head and Sample choosers"))
        return tap_done();

    /* the map's rows and columns can be named by the sample's tokens (drawn once zoomed in) */
    const rf_attention_figure *fig = rf_plot_view_get_figure(plot)->data;
    bool tokens = fig->names != NULL && fig->n_names > 2;
    for (int i = 0; tokens && i < fig->n_names; i++)
        tokens = fig->names[i] != NULL && (g_str_has_prefix(fig->names[i], "[") || strcmp(fig->names[i], "]") == 0 ||
                                           g_ascii_isdigit(fig->names[i][0]));
    tap_ok(tokens, "the Attention view names the map's %d cells by the sample's ListOps tokens (%s %s ...)",
           fig->n_names, tokens ? fig->names[0] : "-", tokens ? fig->names[1] : "-");
    tap_ok(fig->n_names < 32 && fig->rows == fig->n_names && fig->cols == fig->n_names,
           "the map is the sample's %d tokens by %d, not the batch's 32 positions (%d x %d shown)", fig->n_names,
           fig->n_names, fig->rows, fig->cols);

    GtkWidget *picture = find_by_tooltip(page, "Image data: show the attention");
    tap_ok(picture != NULL && !gtk_widget_get_visible(picture),
           "token data: no inert \"Over the picture\" toggle in the toolbar (issue 12 item 9)");

    /* 1 */
    rf_plot_view_key(plot, GDK_KEY_plus, 0);
    tap_ok(zoomed(plot), "+ zooms the map in");
    gtk_spin_button_set_value(head, 2);    /* heads count from 1: the second head */
    spin_for(0.3);
    tap_ok(!zoomed(plot), "head 2 starts unzoomed");
    rf_plot_view_key(plot, GDK_KEY_plus, 0);
    gtk_drop_down_set_selected(map, 1);
    gpointer layer2[2] = {plot, "Layer 2 · head 2"};
    tap_ok(spin_until(showing, layer2, 30.0), "the second layer's map arrives");
    spin_for(0.3);
    GtkStringObject *item = gtk_drop_down_get_selected_item(map);
    tap_ok(gtk_drop_down_get_selected(map) == 1 && !zoomed(plot) && item != NULL &&
               strcmp(gtk_string_object_get_string(item), "Layer 2") == 0,
           "the second layer's map, \"Layer 2\" as layers count from 1, starts unzoomed");

    /* 2 */
    rf_plot_view_key(plot, GDK_KEY_plus, 0);
    gtk_spin_button_set_value(sample, 1);
    gpointer sample1[2] = {plot, "Layer 2 · head 2 · train sample 1"};
    tap_ok(spin_until(showing, sample1, 30.0), "the second sample's map arrives");
    spin_for(0.3);
    tap_ok(gtk_spin_button_get_value_as_int(sample) == 1 && zoomed(plot), "another sample of the map keeps the zoom");

    /* 3 */
    rf_plot_view_key(plot, GDK_KEY_0, 0);
    tap_ok(!zoomed(plot), "0 resets the zoom");
    gtk_widget_grab_focus(GTK_WIDGET(map));
    tap_ok(press_on_window(win, GDK_KEY_plus) && zoomed(plot), "+ with the focus on the Map drop-down zooms the plot");
    tap_ok(press_on_window(win, GDK_KEY_0) && !zoomed(plot), "0 there resets it");
    gtk_widget_grab_focus(GTK_WIDGET(head));
    GtkWidget *focus = gtk_root_get_focus(GTK_ROOT(win));
    tap_ok(focus != NULL && GTK_IS_EDITABLE(focus), "the Head field takes the focus as a text field");
    tap_ok(!press_on_window(win, GDK_KEY_plus) && !zoomed(plot), "+ typed in the Head field leaves the plot alone");

    close_workbench(win, app);
    return tap_done();
}
