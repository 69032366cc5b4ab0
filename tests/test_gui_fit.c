/* A window that fits the screens people have, under Xvfb with the real
 * application after a short BLRP run: at 1024 x 600, 1280 x 720,
 * 1366 x 768 and 1920 x 1080 (run once more with GDK_SCALE=2, where
 * 1920 x 1080 is a 3840 x 2160 screen), for every view,
 *   1. the window keeps the size asked for: no view, toolbar or label makes
 *      it wider or taller;
 *   2. every widget shown lies inside the window (what a scrolled window
 *      holds may scroll; the scrolled window itself must lie inside), so the
 *      view tabs, the toolbars and the panels are all reachable;
 *   3. the view's own tab in the view switcher and the sidebar's toggle are
 *      shown, and the switcher leaves room for two more tabs as wide as
 *      its widest (views to come);
 *   4. every control of a view's toolbar (a button, drop-down, switch, spin
 *      button or slider in a row that scrolls sideways) lies wholly inside
 *      the window and the visible part of its row (a row too wide for the
 *      window is clipped there, which check 2 cannot see), and no label
 *      in it is ellipsized (given less than its natural width);
 * and below the fold the sidebar hides, its toggle (and F9) shows it over
 * the views, inside the window.
 * RF_SCREENSHOT_DIR set: each view at each size is saved there as
 * fit-WxH-VIEW.png, to look at.
 */
#include <math.h>
#include <string.h>

#include "widget_find.h"
#include "widget_render.h"
#include "workbench_app.h"

static const char small_config[] = RF_TEST_TINY_DATA RF_TEST_TINY_BLRP "[train]\nsteps = 6\neval_every = 3\n"
                                                                      "eval_batches = 1\n";

static const char *const pages[] = {"training", "attention", "latent", "talk",    "distributions", "memory",
                                    "data",     "evaluation", "attribution", "projector", "compare", "runs"};

/* Shown widgets under `w` that stick out of the window's `frame` (its bounds,
 * decorations included; a few of them into `out`); a scrolled window's
 * contents may scroll, so they are not looked at. */
static int count_outside(GtkWidget *w, GtkWidget *win, const graphene_rect_t *frame, GString *out)
{
    if (!gtk_widget_get_mapped(w) || (GTK_IS_NATIVE(w) && w != win))
        return 0;
    int n = 0;
    graphene_rect_t r;
    if (w != win && gtk_widget_get_width(w) > 0 && gtk_widget_get_height(w) > 0 &&
        gtk_widget_compute_bounds(w, win, &r)) {
        graphene_rect_t inflated;
        graphene_rect_inset_r(frame, -0.5f, -0.5f, &inflated);
        if (!graphene_rect_contains_rect(&inflated, &r)) {
            float x0 = r.origin.x, y0 = r.origin.y;
            if (n < 4 && out->len < 600)
                g_string_append_printf(out, " %s%s%s at %.0f,%.0f %.0fx%.0f;", G_OBJECT_TYPE_NAME(w),
                                       gtk_widget_get_name(w)[0] != '\0' ? " " : "", gtk_widget_get_name(w), x0, y0,
                                       r.size.width, r.size.height);
            n++;
        }
    }
    if (GTK_IS_SCROLLED_WINDOW(w))
        return n;
    for (GtkWidget *c = gtk_widget_get_first_child(w); c != NULL; c = gtk_widget_get_next_sibling(c))
        n += count_outside(c, win, frame, out);
    return n;
}

/* The chain of widgets that asks for the most width (or height), from `w`
 * down, for the failure's diagnosis: "GtkBox 1200 > GtkBox 900 > GtkLabel 700". */
static void widest_chain(GtkWidget *w, GtkOrientation orientation, GString *out)
{
    for (int depth = 0; w != NULL && depth < 24; depth++) {
        int min = 0;
        gtk_widget_measure(w, orientation, -1, &min, NULL, NULL, NULL);
        g_string_append_printf(out, "%s%s %d", depth > 0 ? " > " : "", G_OBJECT_TYPE_NAME(w), min);
        GtkWidget *widest = NULL;
        int widest_min = -1;
        for (GtkWidget *c = gtk_widget_get_first_child(w); c != NULL; c = gtk_widget_get_next_sibling(c)) {
            if (!gtk_widget_get_visible(c) || GTK_IS_NATIVE(c))
                continue;
            int m = 0;
            gtk_widget_measure(c, orientation, -1, &m, NULL, NULL, NULL);
            if (m > widest_min) {
                widest_min = m;
                widest = c;
            }
        }
        w = widest;
    }
}

static gboolean is_control(GtkWidget *w)
{
    return GTK_IS_BUTTON(w) || GTK_IS_DROP_DOWN(w) || GTK_IS_SWITCH(w) || GTK_IS_SPIN_BUTTON(w) ||
           GTK_IS_MENU_BUTTON(w) || GTK_IS_CHECK_BUTTON(w) || GTK_IS_SCALE(w);
}

/* A label shown inside control `w` whose text is cut (ellipsized: given
 * less than its natural width), or NULL. */
static GtkLabel *cut_label(GtkWidget *w)
{
    if (!gtk_widget_get_mapped(w) || GTK_IS_NATIVE(w))
        return NULL;
    if (GTK_IS_LABEL(w) && pango_layout_is_ellipsized(gtk_label_get_layout(GTK_LABEL(w))))
        return GTK_LABEL(w);
    for (GtkWidget *c = gtk_widget_get_first_child(w); c != NULL; c = gtk_widget_get_next_sibling(c)) {
        GtkLabel *cut = cut_label(c);
        if (cut != NULL)
            return cut;
    }
    return NULL;
}

/* Shown controls under `w` (in a toolbar row whose visible part is
 * `visible`, in window coordinates) that do not lie wholly inside it, or
 * whose label is cut; a few of them into `out`. A control's own parts are
 * not looked at again. */
static int controls_cut(GtkWidget *w, GtkWidget *win, const graphene_rect_t *visible, GString *out)
{
    if (!gtk_widget_get_mapped(w) || GTK_IS_NATIVE(w))
        return 0;
    if (is_control(w)) {
        graphene_rect_t r, inflated;
        graphene_rect_inset_r(visible, -0.5f, -0.5f, &inflated);
        GtkLabel *label = cut_label(w);
        if (!gtk_widget_compute_bounds(w, win, &r) ||
            (graphene_rect_contains_rect(&inflated, &r) && label == NULL))
            return 0;
        const char *tip = gtk_widget_get_tooltip_text(w);
        if (out->len < 600 && label != NULL)
            g_string_append_printf(out, " %s %s's label \"%.40s\" cut to %d px;", G_OBJECT_TYPE_NAME(w),
                                   gtk_widget_get_name(w), gtk_label_get_text(label),
                                   gtk_widget_get_width(GTK_WIDGET(label)));
        else if (out->len < 600)
            g_string_append_printf(out, " %s %s \"%.30s\" at %.0f,%.0f %.0fx%.0f;", G_OBJECT_TYPE_NAME(w),
                                   gtk_widget_get_name(w), tip != NULL ? tip : "", r.origin.x, r.origin.y,
                                   r.size.width, r.size.height);
        return 1;
    }
    int n = 0;
    for (GtkWidget *c = gtk_widget_get_first_child(w); c != NULL; c = gtk_widget_get_next_sibling(c))
        n += controls_cut(c, win, visible, out);
    return n;
}

/* The toolbars (rows that scroll sideways: rf_view_scroll_sideways) under
 * `w`, and the controls in them that are cut off. */
static int toolbar_controls_cut(GtkWidget *w, GtkWidget *win, const graphene_rect_t *frame, GString *out)
{
    if (!gtk_widget_get_mapped(w) || GTK_IS_NATIVE(w))
        return 0;
    GtkPolicyType sideways, upwards;
    if (GTK_IS_SCROLLED_WINDOW(w)) {
        gtk_scrolled_window_get_policy(GTK_SCROLLED_WINDOW(w), &sideways, &upwards);
        graphene_rect_t row, visible;
        if (upwards == GTK_POLICY_NEVER && gtk_widget_compute_bounds(w, win, &row)) {
            if (!graphene_rect_intersection(&row, frame, &visible))
                visible = GRAPHENE_RECT_INIT(0, 0, 0, 0);
            return controls_cut(w, win, &visible, out);
        }
    }
    int n = 0;
    for (GtkWidget *c = gtk_widget_get_first_child(w); c != NULL; c = gtk_widget_get_next_sibling(c))
        n += toolbar_controls_cut(c, win, frame, out);
    return n;
}

static GtkWidget *find_type(GtkWidget *root, GType type)
{
    if (G_TYPE_CHECK_INSTANCE_TYPE(root, type))
        return root;
    for (GtkWidget *c = gtk_widget_get_first_child(root); c != NULL; c = gtk_widget_get_next_sibling(c)) {
        GtkWidget *found = find_type(c, type);
        if (found != NULL)
            return found;
    }
    return NULL;
}

static void save_screenshot(GtkWidget *win, int width, int height, const char *page)
{
    const char *dir = g_getenv("RF_SCREENSHOT_DIR");
    if (dir == NULL)
        return;
    g_autoptr(GdkTexture) texture = render(win);
    g_autofree char *name = g_strdup_printf("fit-%dx%d-%s.png", width, height, page);
    g_autofree char *path = g_build_filename(dir, name, NULL);
    if (texture != NULL)
        gdk_texture_save_to_png(texture, path);
}

/* The window's bounds, its decorations (the client-side shadow) included:
 * what the size asked for measures. */
static graphene_rect_t window_frame(GtkWidget *win)
{
    graphene_rect_t frame = GRAPHENE_RECT_INIT(0, 0, 0, 0);
    if (!gtk_widget_compute_bounds(win, win, &frame))
        frame = GRAPHENE_RECT_INIT(0, 0, (float)gtk_widget_get_width(win), (float)gtk_widget_get_height(win));
    return frame;
}

/* Whether `w` is shown, wholly inside the window; where it is, into `where`. */
static gboolean shown_inside(GtkWidget *w, GtkWidget *win, GString *where)
{
    graphene_rect_t r = GRAPHENE_RECT_INIT(0, 0, 0, 0), frame = window_frame(win);
    gboolean inside = w != NULL && gtk_widget_get_mapped(w) && gtk_widget_compute_bounds(w, win, &r) &&
                      r.size.width > 0 && graphene_rect_contains_rect(&frame, &r);
    g_string_append_printf(where, " %s%s at %.0f,%.0f %.0fx%.0f", where->len > 0 ? "," : "",
                           w != NULL ? G_OBJECT_TYPE_NAME(w) : "(none)", r.origin.x, r.origin.y, r.size.width,
                           r.size.height);
    return inside;
}

/* The widest of the shown buttons under `w`, by the width they ask for. */
static int widest_button(GtkWidget *w)
{
    int widest = 0;
    for (GtkWidget *c = gtk_widget_get_first_child(w); c != NULL; c = gtk_widget_get_next_sibling(c)) {
        if (!gtk_widget_get_visible(c))
            continue;
        int min = 0;
        if (GTK_IS_BUTTON(c))
            gtk_widget_measure(c, GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
        widest = MAX(widest, MAX(min, widest_button(c)));
    }
    return widest;
}

/* The view switcher (or tabs: the stack's switcher) asks for no more than
 * the views' width less two of its widest tabs: a group can take two more
 * views. */
static void check_room_for_more(GtkWidget *w, int width, int height, const char *page)
{
    GtkWidget *views = GTK_WIDGET(rf_window_get_stack(RF_WINDOW(w)));
    GtkWidget *switcher = find_named(w, "view-switcher");
    if (switcher == NULL)
        switcher = find_type(w, GTK_TYPE_STACK_SWITCHER);
    int min = 0, tab = switcher != NULL ? widest_button(switcher) : 0;
    if (switcher != NULL)
        gtk_widget_measure(switcher, GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
    int room = gtk_widget_get_width(views);
    tap_ok(switcher != NULL && min + 2 * tab <= room,
           "%dx%d, %s view: the view switcher (%d px) leaves room for two more %d px tabs in the views' %d px",
           width, height, page, min, tab, room);
}

static void check_view(RfWindow *win, int width, int height, const char *page)
{
    GtkWidget *w = GTK_WIDGET(win);
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), page);
    spin_for(0.4);
    graphene_rect_t frame = window_frame(w);
    int got_w = (int)lroundf(frame.size.width), got_h = (int)lroundf(frame.size.height);
    g_autoptr(GString) widest = g_string_new(NULL);
    if (got_w > width)
        widest_chain(w, GTK_ORIENTATION_HORIZONTAL, widest);
    else if (got_h > height)
        widest_chain(w, GTK_ORIENTATION_VERTICAL, widest);
    tap_ok(got_w <= width && got_h <= height, "%dx%d, %s view: the window is %dx%d %s", width, height, page, got_w,
           got_h, widest->str);
    g_autoptr(GString) outside = g_string_new(NULL);
    int n = count_outside(w, w, &frame, outside);
    tap_ok(n == 0, "%dx%d, %s view: every widget shown lies inside the window (%d outside:%s)", width, height, page,
           n, outside->str);
    g_autoptr(GString) cut = g_string_new(NULL);
    GtkWidget *view = gtk_stack_get_visible_child(rf_window_get_stack(win));
    int cut_n = toolbar_controls_cut(view, w, &frame, cut);
    tap_ok(cut_n == 0,
           "%dx%d, %s view: every control of its toolbars lies wholly inside the window, its label uncut (%d cut "
           "off:%s)",
           width, height, page, cut_n, cut->str);
    g_autofree char *tab_name = g_strdup_printf("view-tab-%s", page);
    GtkWidget *tab = find_named(w, tab_name);
    GtkWidget *toggle = find_named(w, "sidebar-toggle");
    g_autoptr(GString) where = g_string_new(NULL);
    gboolean tab_inside = shown_inside(tab, w, where), toggle_inside = shown_inside(toggle, w, where);
    tap_ok(tab_inside && toggle_inside,
           "%dx%d, %s view: its tab and the sidebar toggle are shown inside the window (%s)", width, height, page,
           where->str);
    check_room_for_more(w, width, height, page);
    save_screenshot(w, width, height, page);
}

/* Below the fold the sidebar is hidden; its toggle shows it, inside the
 * window, and F9 hides it again. */
static void check_folded_sidebar(RfWindow *win, int width, int height)
{
    GtkWidget *w = GTK_WIDGET(win);
    GtkWidget *sidebar = gtk_widget_get_ancestor(GTK_WIDGET(rf_window_get_config_panel(win)), GTK_TYPE_SCROLLED_WINDOW);
    GtkWidget *toggle = find_named(w, "sidebar-toggle");
    if (!tap_ok(toggle != NULL && GTK_IS_TOGGLE_BUTTON(toggle), "%dx%d: the header bar has the sidebar toggle", width,
                height))
        return;
    gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(toggle), FALSE);
    spin_for(0.6);
    tap_ok(!gtk_widget_get_mapped(sidebar), "%dx%d: the sidebar is folded away", width, height);
    g_signal_emit_by_name(toggle, "clicked");
    spin_for(0.6);
    float frame_width = window_frame(w).size.width;
    g_autoptr(GString) where = g_string_new(NULL);
    tap_ok(gtk_toggle_button_get_active(GTK_TOGGLE_BUTTON(toggle)) && shown_inside(sidebar, w, where) &&
               frame_width <= (float)width + 0.5f,
           "%dx%d: the toggle shows the sidebar inside the window (%s), which keeps its width (%.0f)", width, height,
           where->str, frame_width);
    save_screenshot(w, width, height, "sidebar");
    gtk_widget_activate_action(w, "win.toggle-sidebar", NULL);
    spin_for(0.6);
    tap_ok(!gtk_toggle_button_get_active(GTK_TOGGLE_BUTTON(toggle)) && !gtk_widget_get_mapped(sidebar),
           "%dx%d: the toggle's action (F9) folds it away again", width, height);
    /* as a wider window would show it */
    gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(toggle), TRUE);
}

struct asked_size {
    GtkWidget *win;
    int width, height;
};

static gboolean frame_fits(gpointer data)
{
    const struct asked_size *a = data;
    graphene_rect_t frame = window_frame(a->win);
    return frame.size.width <= (float)a->width + 0.5f && frame.size.height <= (float)a->height + 0.5f;
}

/* Asks for the size, as a screen of that size would, and waits until the
 * window has taken it. GTK keeps a shown window's size as its default
 * size, so a configure from the X server that arrives late (a loaded
 * machine) can put the old size back, even after the new one showed: the
 * request is repeated then. A window that cannot shrink (its content asks
 * for more) keeps failing check_view's size check, which names the widest
 * widget. */
static void ask_for_size(GtkWidget *win, int width, int height)
{
    struct asked_size asked = {win, width, height};
    for (int attempt = 0; attempt < 10; attempt++) {
        gtk_window_set_default_size(GTK_WINDOW(win), width, height);
        if (!spin_until(frame_fits, &asked, 2.0))
            continue;
        spin_for(0.6);   /* room for a late configure to undo it */
        if (frame_fits(&asked))
            return;
    }
}

int main(int argc, char **argv)
{
    application_kernels(argv);
    (void)argc;
    (void)argv;
    g_autofree char *dir = g_dir_make_tmp("rf-fit-XXXXXX", NULL);
    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, small_config, &app);
    if (win == NULL)
        return tap_done();
    /* the sidebar's slide and the views' crossfade end at once */
    g_object_set(gtk_settings_get_default(), "gtk-enable-animations", FALSE, NULL);
    RfSession *s = rf_window_get_session(win);
    g_action_group_activate_action(G_ACTION_GROUP(win), "train", NULL);
    tap_ok(spin_until(run_settled, s, 120.0) && rf_session_get_state(s) == RF_RUN_FINISHED,
           "a 6-step BLRP run finishes, so every view has something to show");

    static const int sizes[][2] = {{1024, 600}, {1280, 720}, {1366, 768}, {1920, 1080}};
    for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++) {
        int width = sizes[i][0], height = sizes[i][1];
        ask_for_size(GTK_WIDGET(win), width, height);
        for (size_t p = 0; p < G_N_ELEMENTS(pages); p++)
            check_view(win, width, height, pages[p]);
        if (width < 1280)
            check_folded_sidebar(win, width, height);
    }
    close_workbench(win, app);
    return tap_done();
}
