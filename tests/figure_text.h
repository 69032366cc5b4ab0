/* The words a figure draws, as a person reads them off the screen: the
 * figure drawn at a size with its text collected (ui/plot/plot.h's
 * rf_plot_collect_svg_text) instead of rendered, one string per text
 * element, in drawing order (tests/test_gui_walkthrough.c). */
#ifndef RF_TESTS_FIGURE_TEXT_H
#define RF_TESTS_FIGURE_TEXT_H

#include <string.h>

#include "../ui/plot/plot.h"
#include "../ui/plot_view.h"

/* The contents of each <text ...>...</text> in `svg`, unescaped. */
static inline GPtrArray *svg_texts(const char *svg)
{
    GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
    for (const char *at = svg; (at = strstr(at, "<text")) != NULL;) {
        const char *open = strchr(at, '>'), *close = open != NULL ? strstr(open, "</text>") : NULL;
        if (close == NULL)
            break;
        g_autofree char *escaped = g_strndup(open + 1, (gsize)(close - open - 1));
        /* the collector escapes with g_markup_escape_text: undo its five */
        g_autoptr(GString) s = g_string_new(escaped);
        g_string_replace(s, "&lt;", "<", 0);
        g_string_replace(s, "&gt;", ">", 0);
        g_string_replace(s, "&quot;", "\"", 0);
        g_string_replace(s, "&apos;", "'", 0);
        g_string_replace(s, "&amp;", "&", 0);
        g_ptr_array_add(out, g_string_free(g_steal_pointer(&s), FALSE));
        at = close;
    }
    return out;
}

/* The texts the figure of `plot` draws at the plot's size and zoom. */
static inline GPtrArray *figure_texts(RfPlotView *plot)
{
    int w = MAX(gtk_widget_get_width(GTK_WIDGET(plot)), 1), h = MAX(gtk_widget_get_height(GTK_WIDGET(plot)), 1);
    const rf_figure *fig = rf_plot_view_get_figure(plot);
    rf_zoom zoom = rf_plot_view_get_zoom(plot);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    cairo_t *cr = cairo_create(s);
    GString *svg = g_string_new(NULL);
    rf_plot_collect_svg_text(cr, svg);
    fig->draw(fig->data, cr, w, h, &zoom);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    GPtrArray *texts = svg_texts(svg->str);
    g_string_free(svg, TRUE);
    return texts;
}

/* The texts joined with " | ", for a TAP line. */
static inline char *joined(GPtrArray *texts)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < texts->len; i++)
        g_string_append_printf(s, "%s%s", i > 0 ? " | " : "", (const char *)g_ptr_array_index(texts, i));
    return g_string_free(s, FALSE);
}

static inline gboolean has_text(GPtrArray *texts, const char *wanted)
{
    for (guint i = 0; i < texts->len; i++)
        if (strstr(g_ptr_array_index(texts, i), wanted) != NULL)
            return TRUE;
    return FALSE;
}

#endif
