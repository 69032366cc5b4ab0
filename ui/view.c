/* The export plot of a view, kept on the view widget itself. */
#include "view.h"

#define VIEW_PLOT_KEY "rf-view-plot"

void rf_view_set_plot(GtkWidget *view, RfPlotView *plot)
{
    g_return_if_fail(GTK_IS_WIDGET(view));
    g_object_set_data_full(G_OBJECT(view), VIEW_PLOT_KEY, plot != NULL ? g_object_ref(plot) : NULL,
                           g_object_unref);
}

RfPlotView *rf_view_get_plot(GtkWidget *view)
{
    g_return_val_if_fail(GTK_IS_WIDGET(view), NULL);
    return g_object_get_data(G_OBJECT(view), VIEW_PLOT_KEY);
}

GtkWidget *rf_view_scroll_sideways(GtkWidget *bar)
{
    g_return_val_if_fail(GTK_IS_WIDGET(bar), NULL);
    GtkWidget *scroller = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scroller), GTK_POLICY_AUTOMATIC, GTK_POLICY_NEVER);
    gtk_scrolled_window_set_propagate_natural_width(GTK_SCROLLED_WINDOW(scroller), TRUE);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroller), bar);
    return scroller;
}

GtkWidget *rf_view_new_with_toolbar(GtkWidget *bar, GtkWidget *body, RfPlotView *plot)
{
    GtkWidget *view = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    gtk_widget_set_margin_start(view, 12);
    gtk_widget_set_margin_end(view, 12);
    gtk_widget_set_margin_top(view, 12);
    gtk_widget_set_margin_bottom(view, 12);
    gtk_box_append(GTK_BOX(view), rf_view_scroll_sideways(bar));
    gtk_box_append(GTK_BOX(view), body);
    rf_view_set_plot(view, plot);
    return view;
}
