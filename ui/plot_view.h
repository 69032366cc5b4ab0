/* RfPlotView: a GtkDrawingArea that shows an rf_figure, with a read-out of
 * the value under the pointer, zoom (scroll wheel, or +/-; around the
 * pointer), pan (drag), double-click to reset, a single click handed to
 * the figure (legend entries, buttons drawn in it), and export of exactly
 * what is shown. Views own their figure data and call rf_plot_view_queue_draw
 * when it changed.
 */
#ifndef RF_PLOT_VIEW_H
#define RF_PLOT_VIEW_H

#include <gtk/gtk.h>

#include "plot/figure.h"

G_BEGIN_DECLS

#define RF_TYPE_PLOT_VIEW (rf_plot_view_get_type())
G_DECLARE_FINAL_TYPE(RfPlotView, rf_plot_view, RF, PLOT_VIEW, GtkWidget)

/* `figure` is copied (its data pointer must outlive the widget). zoomable:
 * whether scroll/drag change the zoom. */
GtkWidget *rf_plot_view_new(const rf_figure *figure, gboolean zoomable);
void rf_plot_view_queue_draw(RfPlotView *v);
const rf_figure *rf_plot_view_get_figure(RfPlotView *v);
/* A click at widget point (x, y), as a single click of the pointer: the
 * figure's click, then a redraw when it changed something. */
gboolean rf_plot_view_click(RfPlotView *v, double x, double y);
rf_zoom rf_plot_view_get_zoom(RfPlotView *v);
/* Call fn(data) after every change of the zoom (a view that asks for what
 * is visible: the Attention view's pooled maps); NULL: none. */
void rf_plot_view_on_zoom(RfPlotView *v, void (*fn)(gpointer data), gpointer data);
void rf_plot_view_reset_zoom(RfPlotView *v);
/* The figure now shows the map named `key` (the probe views name the
 * encoder, map, layer, head and segment, not the sample): another map than
 * before starts unzoomed. */
void rf_plot_view_show_map(RfPlotView *v, const char *key);
/* The zoom keys (+ or =, -, 0 or Home), as when the plot has the focus;
 * whether the key was one. The window passes them on from anywhere but a
 * text field. */
gboolean rf_plot_view_key(RfPlotView *v, guint keyval, GdkModifierType state);
/* The read-out text currently shown ("" when the pointer is outside). */
const char *rf_plot_view_get_readout(RfPlotView *v);
/* Whether new figure data is being prepared in another thread (it replaces
 * what is shown when ready); set by the view that prepares it. */
void rf_plot_view_set_pending(RfPlotView *v, gboolean pending);
gboolean rf_plot_view_get_pending(RfPlotView *v);

G_END_DECLS

#endif
