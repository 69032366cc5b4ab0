/* RfPlotView: an rf_figure on screen, with the read-out of the value under
 * the pointer drawn in a small box beside it, and zoom/pan kept inside the
 * figure's full extent. */
#include "plot_view.h"

#include <math.h>
#include <string.h>

#include "plot/plot.h"

/* The narrowest view, as a fraction of the full extent (a 10,000x zoom). */
#define MIN_SPAN 1e-4
#define WHEEL_FACTOR 1.15
#define KEY_FACTOR 1.25

struct _RfPlotView {
    GtkWidget parent_instance;
    rf_figure figure;
    gboolean zoomable;
    rf_zoom zoom;
    char *map_key;   /* what the figure shows (rf_plot_view_show_map) */
    void (*zoomed)(gpointer data);   /* rf_plot_view_on_zoom */
    gpointer zoomed_data;
    rf_zoom drag_start;
    gboolean pointer_inside;
    double pointer_x, pointer_y;
    char readout[256];
    gboolean pending;
    double press_x, press_y;
};

G_DEFINE_TYPE(RfPlotView, rf_plot_view, GTK_TYPE_WIDGET)

/* Keep [*lo, *hi] inside [0, 1] with at least MIN_SPAN, shifting before
 * shrinking so a pan stops at the edge instead of squeezing the view. */
static void fit_range(double *lo, double *hi)
{
    double span = *hi - *lo;
    if (span > 1.0)
        span = 1.0;
    if (span < MIN_SPAN)
        span = MIN_SPAN;
    double mid = 0.5 * (*lo + *hi);
    *lo = mid - 0.5 * span;
    *hi = mid + 0.5 * span;
    if (*lo < 0.0) {
        *hi -= *lo;
        *lo = 0.0;
    }
    if (*hi > 1.0) {
        *lo -= *hi - 1.0;
        *hi = 1.0;
    }
}

static void update_readout(RfPlotView *v)
{
    v->readout[0] = '\0';
    if (!v->pointer_inside || v->figure.hover == NULL)
        return;
    double w = gtk_widget_get_width(GTK_WIDGET(v)), h = gtk_widget_get_height(GTK_WIDGET(v));
    if (w <= 0 || h <= 0)
        return;
    if (!v->figure.hover(v->figure.data, w, h, &v->zoom, v->pointer_x, v->pointer_y, v->readout,
                         sizeof v->readout))
        v->readout[0] = '\0';
}

static void set_zoom(RfPlotView *v, rf_zoom z)
{
    fit_range(&z.x0, &z.x1);
    fit_range(&z.y0, &z.y1);
    v->zoom = z;
    update_readout(v);
    gtk_widget_queue_draw(GTK_WIDGET(v));
    if (v->zoomed != NULL)
        v->zoomed(v->zoomed_data);
}

/* Scale the visible span by `factor` (< 1 zooms in) keeping the point at
 * widget fraction (fx, fy) where it is. */
static void zoom_around(RfPlotView *v, double factor, double fx, double fy)
{
    rf_zoom z = v->zoom;
    double cx = z.x0 + fx * (z.x1 - z.x0), cy = z.y0 + fy * (z.y1 - z.y0);
    z.x0 = cx - (cx - z.x0) * factor;
    z.x1 = cx + (z.x1 - cx) * factor;
    z.y0 = cy - (cy - z.y0) * factor;
    z.y1 = cy + (z.y1 - cy) * factor;
    set_zoom(v, z);
}

static void zoom_at_pointer(RfPlotView *v, double factor)
{
    double w = gtk_widget_get_width(GTK_WIDGET(v)), h = gtk_widget_get_height(GTK_WIDGET(v));
    double fx = 0.5, fy = 0.5;
    if (v->pointer_inside && w > 0 && h > 0) {
        fx = CLAMP(v->pointer_x / w, 0.0, 1.0);
        fy = CLAMP(v->pointer_y / h, 0.0, 1.0);
    }
    zoom_around(v, factor, fx, fy);
}

/* --- drawing --- */

static void draw_readout(RfPlotView *v, cairo_t *cr, double w, double h)
{
    const double pad = 6.0, offset = 14.0;
    cairo_select_font_face(cr, RF_PLOT_FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, RF_PLOT_TEXT + 1.0);
    cairo_text_extents_t te;
    cairo_font_extents_t fe;
    cairo_text_extents(cr, v->readout, &te);
    cairo_font_extents(cr, &fe);
    double bw = te.x_advance + 2 * pad, bh = fe.ascent + fe.descent + 2 * pad;
    /* Beside the pointer, flipped to the other side near the right and bottom edges. */
    double x = v->pointer_x + offset, y = v->pointer_y + offset;
    if (x + bw > w)
        x = v->pointer_x - offset - bw;
    if (y + bh > h)
        y = v->pointer_y - offset - bh;
    x = floor(MAX(x, 0.0)) + 0.5;
    y = floor(MAX(y, 0.0)) + 0.5;
    cairo_rectangle(cr, x, y, ceil(bw), ceil(bh));
    cairo_set_source_rgba(cr, 1.0, 1.0, 1.0, 0.94);
    cairo_fill_preserve(cr);
    cairo_set_source_rgba(cr, 0.0, 0.0, 0.0, 0.35);
    cairo_set_line_width(cr, 1.0);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_move_to(cr, x + pad, y + pad + fe.ascent);
    cairo_show_text(cr, v->readout);
}

static void rf_plot_view_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
    RfPlotView *v = RF_PLOT_VIEW(widget);
    double w = gtk_widget_get_width(widget), h = gtk_widget_get_height(widget);
    if (w <= 0 || h <= 0 || v->figure.draw == NULL)
        return;
    cairo_t *cr = gtk_snapshot_append_cairo(snapshot, &GRAPHENE_RECT_INIT(0, 0, (float)w, (float)h));
    /* GTK replays the recording at the window's scale: images a figure caches match it */
    rf_plot_set_replay_scale(cr, gtk_widget_get_scale_factor(widget));
    cairo_save(cr);
    v->figure.draw(v->figure.data, cr, w, h, &v->zoom);
    cairo_restore(cr);
    if (v->readout[0] != '\0')
        draw_readout(v, cr, w, h);
    cairo_destroy(cr);
}

static void rf_plot_view_measure(GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                                 int *natural, int *minimum_baseline, int *natural_baseline)
{
    (void)widget;
    (void)for_size;
    gboolean horizontal = orientation == GTK_ORIENTATION_HORIZONTAL;
    *minimum = horizontal ? 240 : 160;
    *natural = horizontal ? 640 : 420;
    *minimum_baseline = *natural_baseline = -1;
}

static void rf_plot_view_size_allocate(GtkWidget *widget, int width, int height, int baseline)
{
    (void)width;
    (void)height;
    (void)baseline;
    update_readout(RF_PLOT_VIEW(widget));
}

/* --- input --- */

static void on_motion(GtkEventControllerMotion *c, double x, double y, gpointer user_data)
{
    (void)c;
    RfPlotView *v = user_data;
    gboolean was_shown = v->readout[0] != '\0';
    v->pointer_inside = TRUE;
    v->pointer_x = x;
    v->pointer_y = y;
    update_readout(v);
    /* The box follows the pointer; with no box and none before, nothing changes on screen. */
    if (was_shown || v->readout[0] != '\0')
        gtk_widget_queue_draw(GTK_WIDGET(v));
}

static void on_leave(GtkEventControllerMotion *c, gpointer user_data)
{
    (void)c;
    RfPlotView *v = user_data;
    v->pointer_inside = FALSE;
    if (v->readout[0] != '\0') {
        v->readout[0] = '\0';
        gtk_widget_queue_draw(GTK_WIDGET(v));
    }
}

static gboolean on_scroll(GtkEventControllerScroll *c, double dx, double dy, gpointer user_data)
{
    (void)c;
    (void)dx;
    RfPlotView *v = user_data;
    if (!v->zoomable || dy == 0.0)
        return FALSE;
    zoom_at_pointer(v, pow(WHEEL_FACTOR, dy));
    return TRUE;
}

static void on_drag_begin(GtkGestureDrag *g, double x, double y, gpointer user_data)
{
    (void)g;
    (void)x;
    (void)y;
    RfPlotView *v = user_data;
    v->drag_start = v->zoom;
}

static void on_drag_update(GtkGestureDrag *g, double ox, double oy, gpointer user_data)
{
    (void)g;
    RfPlotView *v = user_data;
    double w = gtk_widget_get_width(GTK_WIDGET(v)), h = gtk_widget_get_height(GTK_WIDGET(v));
    if (!v->zoomable || w <= 0 || h <= 0)
        return;
    rf_zoom z = v->drag_start;
    double dx = -ox / w * (z.x1 - z.x0), dy = -oy / h * (z.y1 - z.y0);
    z.x0 += dx;
    z.x1 += dx;
    z.y0 += dy;
    z.y1 += dy;
    set_zoom(v, z);
}

static void on_pressed(GtkGestureClick *g, int n_press, double x, double y, gpointer user_data)
{
    (void)g;
    RfPlotView *v = user_data;
    gtk_widget_grab_focus(GTK_WIDGET(v));
    v->press_x = x;
    v->press_y = y;
    if (n_press == 2 && v->zoomable)
        rf_plot_view_reset_zoom(v);
}

/* A single click (not the end of a pan) goes to the figure. */
static void on_released(GtkGestureClick *g, int n_press, double x, double y, gpointer user_data)
{
    (void)g;
    RfPlotView *v = user_data;
    if (n_press == 1 && hypot(x - v->press_x, y - v->press_y) < 4.0)
        rf_plot_view_click(v, x, y);
}

static gboolean on_key(GtkEventControllerKey *c, guint keyval, guint keycode, GdkModifierType state,
                       gpointer user_data)
{
    (void)c;
    (void)keycode;
    return rf_plot_view_key(user_data, keyval, state);
}

gboolean rf_plot_view_key(RfPlotView *v, guint keyval, GdkModifierType state)
{
    g_return_val_if_fail(RF_IS_PLOT_VIEW(v), FALSE);
    if (!v->zoomable || (state & (GDK_CONTROL_MASK | GDK_ALT_MASK)) != 0)
        return FALSE;
    switch (keyval) {
    case GDK_KEY_plus:
    case GDK_KEY_equal:
    case GDK_KEY_KP_Add:
        zoom_at_pointer(v, 1.0 / KEY_FACTOR);
        return TRUE;
    case GDK_KEY_minus:
    case GDK_KEY_KP_Subtract:
        zoom_at_pointer(v, KEY_FACTOR);
        return TRUE;
    case GDK_KEY_0:
    case GDK_KEY_KP_0:
    case GDK_KEY_Home:
        rf_plot_view_reset_zoom(v);
        return TRUE;
    default:
        return FALSE;
    }
}

/* --- type --- */

static void rf_plot_view_finalize(GObject *object)
{
    g_free(RF_PLOT_VIEW(object)->map_key);
    G_OBJECT_CLASS(rf_plot_view_parent_class)->finalize(object);
}

static void rf_plot_view_class_init(RfPlotViewClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = rf_plot_view_finalize;
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    widget_class->snapshot = rf_plot_view_snapshot;
    widget_class->measure = rf_plot_view_measure;
    widget_class->size_allocate = rf_plot_view_size_allocate;
    gtk_widget_class_set_css_name(widget_class, "plotview");
    gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void rf_plot_view_init(RfPlotView *v)
{
    v->zoom = RF_ZOOM_ALL;
    gtk_widget_set_focusable(GTK_WIDGET(v), TRUE);
    gtk_widget_set_hexpand(GTK_WIDGET(v), TRUE);
    gtk_widget_set_vexpand(GTK_WIDGET(v), TRUE);

    GtkEventController *motion = gtk_event_controller_motion_new();
    g_signal_connect(motion, "motion", G_CALLBACK(on_motion), v);
    g_signal_connect(motion, "enter", G_CALLBACK(on_motion), v);
    g_signal_connect(motion, "leave", G_CALLBACK(on_leave), v);
    gtk_widget_add_controller(GTK_WIDGET(v), motion);

    GtkEventController *scroll = gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
    g_signal_connect(scroll, "scroll", G_CALLBACK(on_scroll), v);
    gtk_widget_add_controller(GTK_WIDGET(v), scroll);

    GtkGesture *drag = gtk_gesture_drag_new();
    g_signal_connect(drag, "drag-begin", G_CALLBACK(on_drag_begin), v);
    g_signal_connect(drag, "drag-update", G_CALLBACK(on_drag_update), v);
    gtk_widget_add_controller(GTK_WIDGET(v), GTK_EVENT_CONTROLLER(drag));

    GtkGesture *click = gtk_gesture_click_new();
    g_signal_connect(click, "pressed", G_CALLBACK(on_pressed), v);
    g_signal_connect(click, "released", G_CALLBACK(on_released), v);
    gtk_widget_add_controller(GTK_WIDGET(v), GTK_EVENT_CONTROLLER(click));

    GtkEventController *keys = gtk_event_controller_key_new();
    g_signal_connect(keys, "key-pressed", G_CALLBACK(on_key), v);
    gtk_widget_add_controller(GTK_WIDGET(v), keys);
}

GtkWidget *rf_plot_view_new(const rf_figure *figure, gboolean zoomable)
{
    RfPlotView *v = g_object_new(RF_TYPE_PLOT_VIEW, NULL);
    v->figure = *figure;
    v->zoomable = zoomable;
    return GTK_WIDGET(v);
}

void rf_plot_view_queue_draw(RfPlotView *v)
{
    g_return_if_fail(RF_IS_PLOT_VIEW(v));
    update_readout(v);
    gtk_widget_queue_draw(GTK_WIDGET(v));
}

gboolean rf_plot_view_click(RfPlotView *v, double x, double y)
{
    g_return_val_if_fail(RF_IS_PLOT_VIEW(v), FALSE);
    double w = gtk_widget_get_width(GTK_WIDGET(v)), h = gtk_widget_get_height(GTK_WIDGET(v));
    if (v->figure.click == NULL || w <= 0 || h <= 0 || !v->figure.click(v->figure.data, w, h, &v->zoom, x, y))
        return FALSE;
    rf_plot_view_queue_draw(v);
    return TRUE;
}

const rf_figure *rf_plot_view_get_figure(RfPlotView *v)
{
    g_return_val_if_fail(RF_IS_PLOT_VIEW(v), NULL);
    return &v->figure;
}

rf_zoom rf_plot_view_get_zoom(RfPlotView *v)
{
    g_return_val_if_fail(RF_IS_PLOT_VIEW(v), RF_ZOOM_ALL);
    return v->zoom;
}

void rf_plot_view_on_zoom(RfPlotView *v, void (*fn)(gpointer data), gpointer data)
{
    g_return_if_fail(RF_IS_PLOT_VIEW(v));
    v->zoomed = fn;
    v->zoomed_data = data;
}

void rf_plot_view_reset_zoom(RfPlotView *v)
{
    g_return_if_fail(RF_IS_PLOT_VIEW(v));
    set_zoom(v, RF_ZOOM_ALL);
}

void rf_plot_view_show_map(RfPlotView *v, const char *key)
{
    g_return_if_fail(RF_IS_PLOT_VIEW(v));
    if (g_strcmp0(v->map_key, key) == 0)
        return;
    g_free(v->map_key);
    v->map_key = g_strdup(key);
    set_zoom(v, RF_ZOOM_ALL);
}

const char *rf_plot_view_get_readout(RfPlotView *v)
{
    g_return_val_if_fail(RF_IS_PLOT_VIEW(v), "");
    return v->readout;
}

void rf_plot_view_set_pending(RfPlotView *v, gboolean pending)
{
    g_return_if_fail(RF_IS_PLOT_VIEW(v));
    v->pending = pending;
}

gboolean rf_plot_view_get_pending(RfPlotView *v)
{
    g_return_val_if_fail(RF_IS_PLOT_VIEW(v), FALSE);
    return v->pending;
}
