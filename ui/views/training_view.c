/* The Training view: every run of the session, and the runs of the runs
 * folder picked in the Runs view, overlaid in the training figure (loss,
 * accuracy, learning rate, step time, memory against the step or the wall
 * time), redrawn when the session reports new rows, a new run or another
 * pick. Above it: the smoothing of the train curves and the x axis. */
#include "../figures/training_figure.h"
#include "../plot/smooth.h"
#include "../view.h"
#include "../drop_down_tooltip.h"

#define FIGURE_KEY "rf-training-figure"

static rf_training_figure *figure_of(RfPlotView *plot)
{
    return g_object_get_data(G_OBJECT(plot), FIGURE_KEY);
}

static gboolean has_dir(GPtrArray *runs, const char *dir)
{
    for (guint i = 0; i < runs->len && dir != NULL; i++)
        if (g_strcmp0(((rf_run_data *)g_ptr_array_index(runs, i))->dir, dir) == 0)
            return TRUE;
    return FALSE;
}

/* The session's runs, then the picked runs of the runs folder; a picked
 * run that is one of the session's, and a run that a later one goes on
 * from (its checkpoint opened), are drawn once. */
static void update_runs(RfPlotView *plot, RfSession *s)
{
    GPtrArray *runs = rf_session_get_runs(s), *overlays = rf_session_get_overlays(s);
    g_autoptr(GPtrArray) drawn = g_ptr_array_new();   /* borrowed runs */
    for (guint i = 0; i < runs->len; i++)
        if (!rf_session_run_superseded(s, i))
            g_ptr_array_add(drawn, g_ptr_array_index(runs, i));
    for (guint i = 0; i < overlays->len; i++) {
        rf_run_data *r = g_ptr_array_index(overlays, i);
        if (!has_dir(runs, r->dir))
            g_ptr_array_add(drawn, r);
    }
    /* the figure borrows the runs, not the array */
    rf_training_figure_set_runs(figure_of(plot), (rf_run_data *const *)drawn->pdata, drawn->len);
    rf_plot_view_queue_draw(plot);
}

static void on_session_changed(RfPlotView *plot, RfSession *s)
{
    update_runs(plot, s);
}

static void on_smoothing(GtkRange *range, RfPlotView *plot)
{
    rf_training_figure_set_smoothing(figure_of(plot), gtk_range_get_value(range));
    rf_plot_view_queue_draw(plot);
}

static void on_x_axis(GtkDropDown *d, GParamSpec *pspec, RfPlotView *plot)
{
    (void)pspec;
    rf_training_x x = gtk_drop_down_get_selected(d) == 1 ? RF_TRAINING_X_TIME : RF_TRAINING_X_STEP;
    rf_training_figure_set_x(figure_of(plot), x);
    /* A zoom into steps means nothing in seconds. */
    rf_plot_view_reset_zoom(plot);
}

static GtkWidget *controls(RfPlotView *plot, rf_training_figure *figure)
{
    GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
    gtk_widget_set_margin_start(bar, 12);
    gtk_widget_set_margin_end(bar, 12);
    gtk_widget_set_margin_top(bar, 6);
    gtk_widget_set_margin_bottom(bar, 2);

    GtkWidget *smoothing = gtk_scale_new_with_range(GTK_ORIENTATION_HORIZONTAL, 0, RF_SMOOTH_MAX, 0.001);
    gtk_widget_set_name(smoothing, "smoothing");
    gtk_scale_set_digits(GTK_SCALE(smoothing), 3);
    gtk_scale_set_draw_value(GTK_SCALE(smoothing), TRUE);
    gtk_scale_set_value_pos(GTK_SCALE(smoothing), GTK_POS_RIGHT);
    gtk_range_set_value(GTK_RANGE(smoothing), rf_training_figure_get_smoothing(figure));
    gtk_widget_set_size_request(smoothing, 220, -1);
    gtk_widget_set_tooltip_text(smoothing, "Exponential moving average of the train loss and accuracy, debiased "
                                           "at the start as TensorBoard does (0: raw); the raw rows stay faint "
                                           "behind");
    g_signal_connect_object(smoothing, "value-changed", G_CALLBACK(on_smoothing), plot, 0);
    GtkWidget *smoothing_label = gtk_label_new_with_mnemonic("_Smoothing");
    gtk_label_set_mnemonic_widget(GTK_LABEL(smoothing_label), smoothing);

    static const char *const axes[] = {"Step", "Wall time", NULL};
    GtkWidget *x_axis = gtk_drop_down_new_from_strings(axes);
    gtk_widget_set_name(x_axis, "x-axis");
    gtk_drop_down_set_selected(GTK_DROP_DOWN(x_axis), rf_training_figure_get_x(figure) == RF_TRAINING_X_TIME);
    gtk_widget_set_tooltip_text(x_axis, "Plot against the step or the wall time since the run started");
    rf_drop_down_tooltip_when_closed(x_axis);
    g_signal_connect_object(x_axis, "notify::selected", G_CALLBACK(on_x_axis), plot, 0);
    GtkWidget *x_label = gtk_label_new_with_mnemonic("_X axis");
    gtk_label_set_mnemonic_widget(GTK_LABEL(x_label), x_axis);

    GtkWidget *hint = gtk_label_new("Click a run in the legend to hide it · “log” switches a panel's scale");
    gtk_widget_add_css_class(hint, "dim-label");
    gtk_widget_set_hexpand(hint, TRUE);
    gtk_widget_set_halign(hint, GTK_ALIGN_END);
    gtk_label_set_ellipsize(GTK_LABEL(hint), PANGO_ELLIPSIZE_END);

    gtk_box_append(GTK_BOX(bar), smoothing_label);
    gtk_box_append(GTK_BOX(bar), smoothing);
    gtk_box_append(GTK_BOX(bar), x_label);
    gtk_box_append(GTK_BOX(bar), x_axis);
    gtk_box_append(GTK_BOX(bar), hint);
    return bar;
}

GtkWidget *rf_training_view_new(RfSession *s)
{
    rf_training_figure *figure = rf_training_figure_new();
    rf_figure f = rf_training_figure_figure(figure);
    GtkWidget *plot = rf_plot_view_new(&f, TRUE);
    /* The figure lives as long as the widget that draws it. */
    g_object_set_data_full(G_OBJECT(plot), FIGURE_KEY, figure, (GDestroyNotify)rf_training_figure_free);
    gtk_widget_set_hexpand(plot, TRUE);
    gtk_widget_set_vexpand(plot, TRUE);

    GtkWidget *view = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    gtk_box_append(GTK_BOX(view), rf_view_scroll_sideways(controls(RF_PLOT_VIEW(plot), figure)));
    gtk_box_append(GTK_BOX(view), plot);
    rf_view_set_plot(view, RF_PLOT_VIEW(plot));

    g_signal_connect_object(s, "metrics-changed", G_CALLBACK(on_session_changed), plot, G_CONNECT_SWAPPED);
    g_signal_connect_object(s, "state-changed", G_CALLBACK(on_session_changed), plot, G_CONNECT_SWAPPED);
    g_signal_connect_object(s, "overlays-changed", G_CALLBACK(on_session_changed), plot, G_CONNECT_SWAPPED);
    update_runs(RF_PLOT_VIEW(plot), s);
    return view;
}
