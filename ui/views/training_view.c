/* The Training view: every run of the session overlaid in the training
 * figure (loss, accuracy, learning rate, step time, memory against the
 * step), redrawn when the session reports new rows or a new run. */
#include "../figures/training_figure.h"
#include "../view.h"

#define FIGURE_KEY "rf-training-figure"

static void update_runs(RfPlotView *plot, RfSession *s)
{
    rf_training_figure *figure = g_object_get_data(G_OBJECT(plot), FIGURE_KEY);
    GPtrArray *runs = rf_session_get_runs(s);
    rf_training_figure_set_runs(figure, (rf_run_data *const *)runs->pdata, runs->len);
    rf_plot_view_queue_draw(plot);
}

static void on_session_changed(RfPlotView *plot, RfSession *s)
{
    update_runs(plot, s);
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
    gtk_box_append(GTK_BOX(view), plot);
    rf_view_set_plot(view, RF_PLOT_VIEW(plot));

    g_signal_connect_object(s, "metrics-changed", G_CALLBACK(on_session_changed), plot, G_CONNECT_SWAPPED);
    g_signal_connect_object(s, "state-changed", G_CALLBACK(on_session_changed), plot, G_CONNECT_SWAPPED);
    update_runs(RF_PLOT_VIEW(plot), s);
    return view;
}
