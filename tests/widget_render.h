/* A widget drawn offscreen as the window would show it (tests/test_gui*.c):
 * for pixel checks and the screenshots in docs/. */
#ifndef RF_TESTS_WIDGET_RENDER_H
#define RF_TESTS_WIDGET_RENDER_H

#include <gtk/gtk.h>

/* NULL when the widget has no size yet. */
static inline GdkTexture *render(GtkWidget *widget)
{
    int w = gtk_widget_get_width(widget), h = gtk_widget_get_height(widget);
    if (w <= 0 || h <= 0)
        return NULL;
    g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new(widget);
    GtkSnapshot *snapshot = gtk_snapshot_new();
    gdk_paintable_snapshot(paintable, snapshot, w, h);
    g_autoptr(GskRenderNode) node = gtk_snapshot_free_to_node(snapshot);
    if (node == NULL)
        return NULL;
    GskRenderer *renderer = gtk_native_get_renderer(gtk_widget_get_native(widget));
    return gsk_renderer_render_texture(renderer, node, &GRAPHENE_RECT_INIT(0, 0, (float)w, (float)h));
}

#endif
