/* Steps the workbench tests share (test_gui.c, test_gui_inspect.c):
 * showing a view, screenshots, training a run to its end, and waiting for
 * the probes of an inspected input. */
#ifndef RF_TESTS_GUI_STEPS_H
#define RF_TESTS_GUI_STEPS_H

#include <stdlib.h>

#include "../ui/view.h"
#include "../ui/window.h"
#include "main_loop.h"
#include "tap.h"
#include "widget_render.h"

static inline gboolean has_probes(gpointer s)
{
    return rf_session_get_probes(s) != NULL;
}


/* The screenshots' size, 1600x1000, inside the window's frame, and views
 * switched without a transition. */
static inline gboolean sized_near_1600x1000(gpointer win)
{
    int w = gtk_widget_get_width(win), h = gtk_widget_get_height(win);
    return w > 1400 && w <= 1600 && h > 800 && h <= 1000;
}

static inline void size_for_screenshots(RfWindow *win)
{
    gtk_window_set_default_size(GTK_WINDOW(win), 1600, 1000);
    /* the frame's margins are what the window lacks of the size asked,
     * once it has taken that size (late on a loaded machine) */
    spin_until(sized_near_1600x1000, win, 10.0);
    gtk_window_set_default_size(GTK_WINDOW(win), 3200 - gtk_widget_get_width(GTK_WIDGET(win)),
                                2000 - gtk_widget_get_height(GTK_WIDGET(win)));
    gtk_stack_set_transition_type(rf_window_get_stack(win), GTK_STACK_TRANSITION_TYPE_NONE);
}

static inline void show_page(RfWindow *win, const char *page)
{
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), page);
    /* Views refresh at most ten times a second: give them a few frames. */
    spin_for(0.5);
}

static inline void screenshot_of(GtkWidget *widget, const char *shot)
{
    const char *dir = g_getenv("RF_SCREENSHOT_DIR");
    if (dir == NULL)
        return;
    GdkTexture *texture = render(widget);
    g_autofree char *name = g_strdup_printf("screenshot-%s.png", shot);
    g_autofree char *path = g_build_filename(dir, name, NULL);
    tap_ok(texture != NULL && gdk_texture_save_to_png(texture, path), "screenshot %s (%s, %d x %d)", path,
           texture == NULL ? "not rendered" : "rendered", gtk_widget_get_width(widget), gtk_widget_get_height(widget));
    g_clear_object(&texture);
}

static inline void screenshot(RfWindow *win, const char *shot)
{
    screenshot_of(GTK_WIDGET(win), shot);
}


static inline RfPlotView *plot_of(RfWindow *win, const char *page)
{
    return rf_view_get_plot(gtk_stack_get_child_by_name(rf_window_get_stack(win), page));
}


/* The run trained to its last step, its checks said. */
static inline gboolean train_run(RfWindow *win, const char *what)
{
    RfSession *s = rf_window_get_session(win);
    GAction *train = g_action_map_lookup_action(G_ACTION_MAP(win), "train");
    tap_ok(g_action_get_enabled(train), "win.train is enabled before the %s run", what);
    g_action_activate(train, NULL);
    gboolean settled = spin_until(run_settled, s, 300.0);
    if (!tap_ok(settled && rf_session_get_state(s) == RF_RUN_FINISHED, "the %s run finishes (%s)", what,
                rf_session_get_error(s) != NULL ? rf_session_get_error(s) : "no error"))
        return FALSE;
    tap_ok(rf_session_get_step(s) == rf_session_get_config(s)->train.steps, "the %s run reached step %d", what,
           rf_session_get_config(s)->train.steps);
    return TRUE;
}

/* The same, and the probes the views draw collected. */
static inline gboolean train_to_the_end(RfWindow *win, const char *what)
{
    if (!train_run(win, what))
        return FALSE;
    spin_until(has_probes, rf_window_get_session(win), 20.0);
    spin_for(0.5);
    return TRUE;
}


static inline gboolean inspected_count_is(gpointer data)
{
    return rf_session_get_inspected_count(data) >= 1;
}

/* The latest snapshot is of the watched inspected input and holds
 * `wanted_tap`. */
static const char *wanted_tap;
static inline gboolean probes_of_input(gpointer data)
{
    RfSession *s = data;
    return rf_session_get_probe_inspected(s) != NULL &&
           rf_session_get_probe_inspected(s) == rf_session_get_watched_inspected(s) &&
           rf_session_find_probe(s, wanted_tap) != NULL;
}

/* The watched input is the one named wanted_name. */
static const char *wanted_name;
static inline gboolean watching_named(gpointer data)
{
    const rf_inspected *in = rf_session_get_watched_inspected(data);
    return in != NULL && strcmp(in->name, wanted_name) == 0;
}

/* Pixels of the predicted class's bar colour (217, 94, 3) in a drawing. */
static inline int best_bar_pixels(cairo_surface_t *s)
{
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s), n = 0;
    int stride = cairo_image_surface_get_stride(s);
    const guint8 *d = cairo_image_surface_get_data(s);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            guint32 px = *(const guint32 *)(d + y * stride + x * 4);
            n += abs((int)((px >> 16) & 0xff) - 217) <= 2 && abs((int)((px >> 8) & 0xff) - 94) <= 2 &&
                 abs((int)(px & 0xff) - 3) <= 2;
        }
    return n;
}

#endif
