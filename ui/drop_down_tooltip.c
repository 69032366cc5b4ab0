/* A drop-down's tooltip kept off its open list (see drop_down_tooltip.h). */
#include "drop_down_tooltip.h"

static GtkWidget *find_popover(GtkWidget *w)
{
    for (GtkWidget *c = gtk_widget_get_first_child(w); c != NULL; c = gtk_widget_get_next_sibling(c)) {
        if (GTK_IS_POPOVER(c))
            return c;
        GtkWidget *inner = find_popover(c);
        if (inner != NULL)
            return inner;
    }
    return NULL;
}

/* Off while the list shows; on again, when a tooltip is set, once it closes. */
static void on_list_visible(GtkWidget *popover, GParamSpec *pspec, GtkWidget *drop_down)
{
    (void)pspec;
    gtk_widget_set_has_tooltip(drop_down,
                               !gtk_widget_get_visible(popover) && gtk_widget_get_tooltip_text(drop_down) != NULL);
}

void rf_drop_down_tooltip_when_closed(GtkWidget *drop_down)
{
    GtkWidget *popover = find_popover(drop_down);
    if (popover != NULL)
        g_signal_connect_object(popover, "notify::visible", G_CALLBACK(on_list_visible), drop_down, 0);
}
