/* The workbench's views as the GUI tests look at them: a plot view's
 * figure drawn at its size and zoom, and the widgets of a type under a
 * root (tests/test_gui.c, test_gui_curves.c). */
#ifndef RF_TESTS_VIEW_DRAWING_H
#define RF_TESTS_VIEW_DRAWING_H

#include <gtk/gtk.h>

#include "../ui/plot_view.h"

/* The view's figure drawn as the view draws it, at its size and zoom (not
 * the widget itself: the pointer's read-out may lie on top). */
static inline cairo_surface_t *draw_plot(RfPlotView *plot)
{
    int w = gtk_widget_get_width(GTK_WIDGET(plot)), h = gtk_widget_get_height(GTK_WIDGET(plot));
    const rf_figure *fig = rf_plot_view_get_figure(plot);
    rf_zoom zoom = rf_plot_view_get_zoom(plot);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, MAX(w, 1), MAX(h, 1));
    cairo_t *cr = cairo_create(s);
    fig->draw(fig->data, cr, w, h, &zoom);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    return s;
}

/* The widgets of `type` under `root`, depth first. */
static inline void collect(GtkWidget *root, GType type, GPtrArray *out)
{
    if (G_TYPE_CHECK_INSTANCE_TYPE(root, type))
        g_ptr_array_add(out, root);
    for (GtkWidget *c = gtk_widget_get_first_child(root); c != NULL; c = gtk_widget_get_next_sibling(c))
        collect(c, type, out);
}

#endif
