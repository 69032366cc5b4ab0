/* A widget drawn offscreen as the window would show it (tests/test_gui*.c):
 * for pixel checks and the screenshots in docs/. */
#ifndef RF_TESTS_WIDGET_RENDER_H
#define RF_TESTS_WIDGET_RENDER_H

#include <gtk/gtk.h>

static inline GdkTexture *render_once(GtkWidget *widget)
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

/* The widget as drawn, or NULL when it has no size or draws nothing for
 * 3 s. A widget that was just shown, or has a redraw queued, renders as
 * nothing until its next frame: on a loaded machine that frame can come
 * late, so the main loop runs between tries. */
static inline GdkTexture *render(GtkWidget *widget)
{
    gint64 end = g_get_monotonic_time() + 3 * G_USEC_PER_SEC;
    GdkTexture *texture = render_once(widget);
    while (texture == NULL && g_get_monotonic_time() < end) {
        gint64 next = g_get_monotonic_time() + G_USEC_PER_SEC / 10;
        while (g_get_monotonic_time() < next)
            if (!g_main_context_iteration(NULL, FALSE))
                g_usleep(1000);
        texture = render_once(widget);
    }
    return texture;
}

#endif
