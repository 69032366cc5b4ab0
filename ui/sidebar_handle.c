/* Dragging the sidebar's edge: the sidebar's width request follows the
 * pointer from where the drag began. The flap folds the sidebar away by
 * itself when the window is then too narrow for both side by side. */
#include "sidebar_handle.h"

typedef struct {
    GtkWidget *sidebar;
    int start_width; /* the width when the drag began */
} Drag;

void rf_sidebar_set_width(GtkWidget *sidebar, int width)
{
    gtk_widget_set_size_request(sidebar, CLAMP(width, RF_SIDEBAR_MIN_WIDTH, RF_SIDEBAR_MAX_WIDTH), -1);
}

int rf_sidebar_get_width(GtkWidget *sidebar)
{
    int width = 0;
    gtk_widget_get_size_request(sidebar, &width, NULL);
    return width;
}

static void on_drag_begin(GtkGestureDrag *gesture, double x, double y, gpointer user_data)
{
    (void)gesture;
    (void)x;
    (void)y;
    Drag *drag = user_data;
    drag->start_width = rf_sidebar_get_width(drag->sidebar);
}

static void on_drag_update(GtkGestureDrag *gesture, double dx, double dy, gpointer user_data)
{
    (void)dy;
    Drag *drag = user_data;
    /* the sidebar is on the left, or on the right in a right-to-left locale */
    if (gtk_widget_get_direction(gtk_event_controller_get_widget(GTK_EVENT_CONTROLLER(gesture))) == GTK_TEXT_DIR_RTL)
        dx = -dx;
    rf_sidebar_set_width(drag->sidebar, drag->start_width + (int)dx);
}

void rf_sidebar_handle_attach(GtkWidget *handle, GtkWidget *sidebar)
{
    Drag *drag = g_new0(Drag, 1);
    drag->sidebar = sidebar;
    GtkGesture *gesture = gtk_gesture_drag_new();
    g_signal_connect(gesture, "drag-begin", G_CALLBACK(on_drag_begin), drag);
    g_signal_connect(gesture, "drag-update", G_CALLBACK(on_drag_update), drag);
    g_object_set_data_full(G_OBJECT(gesture), "rf-sidebar-drag", drag, g_free);
    gtk_widget_add_controller(handle, GTK_EVENT_CONTROLLER(gesture));
    gtk_widget_set_cursor_from_name(handle, "col-resize");
    gtk_widget_set_tooltip_text(handle, "Drag to make the sidebar wider or narrower");
}
