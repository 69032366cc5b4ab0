/* The Latent view's layer selector (issue 12 item 9), under Xvfb with the
 * real application: a tiny BLRP (2 Θ_SELF layers, segments of 8, a latent
 * of 4, ListOps up to 32 tokens: 4 segments) is stepped by hand with the
 * Latent view on screen, and for every entry of its Layer drop-down
 * (Θ_L (latent), Θ_X, Θ_SELF 2, Θ_SELF 1):
 *   - the next inspection pass holds that layer's taps and no other layer's
 *     (the view watches only what it shows, plus the latent norms' taps);
 *   - the figure shows segment 2's block of that layer: its title names
 *     the layer and its rows (8 tokens or 4 latent rows), and the block's
 *     values are the session's probe values of that layer and segment.
 * RF_SCREENSHOT_DIR set: also writes screenshot-latent-self.png of the
 * window with Θ_SELF 2 chosen. */
#include <string.h>

#include "../ui/figures/latent_figure.h"
#include "../ui/view.h"
#include "widget_find.h"
#include "widget_render.h"
#include "workbench_app.h"

enum { SEGMENT = 8, LATENT = 4, DIM = 16, SEGMENTS = 4, SHOWN = 2 };

static const char small_config[] = RF_TEST_TINY_DATA
                                   "[model]\n"
                                   "encoder = blrp\n"
                                   "pos = none\n"
                                   "layers = 2\n"
                                   "dim = 16\n"
                                   "heads = 2\n"
                                   "ff = 32\n"
                                   "segment = 8\n"
                                   "latent = 4\n"
                                   "[train]\n"
                                   "steps = 1000\n"
                                   "lr = 0.01\n"
                                   "warmup = 0\n"
                                   "eval_every = 1000\n";

/* The latest snapshot holds `name`, filled. */
static gboolean probe_filled(gpointer data)
{
    RfSession *s = ((gpointer *)data)[0];
    const rf_probe_value *p = rf_session_find_probe(s, ((gpointer *)data)[1]);
    return p != NULL && p->filled;
}

/* Step until an inspection pass has filled `name` (the watch follows the
 * view's choice; a pass runs after a step). */
static gboolean step_until_probe(RfSession *s, const char *name)
{
    gpointer args[2] = {s, (gpointer)name};
    for (int tries = 0; tries < 20; tries++) {
        if (probe_filled(args))
            return TRUE;
        rf_session_step_once(s);
        if (spin_until(probe_filled, args, 2.0))
            return TRUE;
    }
    return FALSE;
}

/* Whether the latest snapshot holds a tap of this prefix. */
static gboolean snapshot_has(RfSession *s, const char *prefix, const char *except)
{
    const rf_probe_set *ps = rf_session_get_probes(s);
    for (int i = 0; ps != NULL && i < ps->count; i++)
        if (g_str_has_prefix(ps->values[i].name, prefix) && g_strcmp0(ps->values[i].name, except) != 0 &&
            !g_str_has_suffix(ps->values[i].name, ".grad") && strstr(ps->values[i].name, "reads_") == NULL &&
            strstr(ps->values[i].name, "probs") == NULL)
            return TRUE;
    return FALSE;
}

typedef struct layer_case {
    const char *label;       /* the drop-down's entry */
    const char *tap;         /* the tap holding segment SHOWN's block */
    int64_t offset;          /* where in it the block starts */
    int rows;
    const char *title;       /* the block's title */
} layer_case;

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    g_autofree char *dir = g_dir_make_tmp("rf-latent-XXXXXX", NULL);
    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, small_config, &app);
    if (win == NULL)
        return tap_done();
    gtk_window_set_default_size(GTK_WINDOW(win), 1600, 1000);
    RfSession *s = rf_window_get_session(win);
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), "latent");
    spin_for(0.3);
    GtkWidget *page = gtk_stack_get_visible_child(rf_window_get_stack(win));
    RfPlotView *plot = rf_view_get_plot(page);
    GtkDropDown *layer = GTK_DROP_DOWN(find_by_tooltip(page, "BLRP's depth"));
    GtkRange *segment = GTK_RANGE(find_by_tooltip(page, "Which segment to show"));
    if (!tap_ok(plot != NULL && layer != NULL && segment != NULL,
                "the Latent view has its plot, a Layer drop-down and a segment slider"))
        return tap_done();
    const rf_latent_figure *fig = rf_plot_view_get_figure(plot)->data;

    g_action_group_activate_action(G_ACTION_GROUP(win), "train", NULL);
    rf_session_pause(s);
    spin_for(0.5);
    gboolean first = step_until_probe(s, "blrp.latent.fwd.1");
    GListModel *entries = gtk_drop_down_get_model(layer);
    guint n = g_list_model_get_n_items(entries);
    GString *listed = g_string_new(NULL);
    for (guint i = 0; i < n; i++)
        g_string_append_printf(listed, "%s%s", i > 0 ? ", " : "",
                                gtk_string_list_get_string(GTK_STRING_LIST(entries), i));
    tap_ok(first && strcmp(listed->str, "Θ_L (latent), Θ_X, Θ_SELF 2, Θ_SELF 1") == 0 &&
               gtk_drop_down_get_selected(layer) == 0,
           "the Layer drop-down lists the model's layers, the latent chosen (%s)", listed->str);
    g_string_free(listed, TRUE);
    gtk_range_set_value(segment, SHOWN);

    const int64_t token_block = (int64_t)(SHOWN - 1) * SEGMENT * DIM;
    const layer_case cases[] = {
        {"Θ_L (latent)", "blrp.latent.fwd.2", 0, LATENT, "segment 2 · forward · Θ_L (latent): latent block, 4 × 16"},
        {"Θ_X", "blrp.segment.fwd.2", 0, SEGMENT,
         "segment 2 · forward · Θ_X: segment after reading the latent, 8 × 16"},
        {"Θ_SELF 2", "blrp.self.1.out", token_block, SEGMENT, "segment 2 · forward · Θ_SELF 2: token states, 8 × 16"},
        {"Θ_SELF 1", "blrp.self.0.out", token_block, SEGMENT, "segment 2 · forward · Θ_SELF 1: token states, 8 × 16"},
    };
    for (guint i = 0; i < G_N_ELEMENTS(cases) && i < n; i++) {
        const layer_case *c = &cases[i];
        gtk_drop_down_set_selected(layer, i);
        spin_for(0.1);
        gboolean filled = step_until_probe(s, c->tap);
        spin_for(0.3);
        /* only this layer's taps: the others' states are not copied */
        gboolean own = (i == 1) == snapshot_has(s, "blrp.segment.", NULL) &&
                       !snapshot_has(s, "blrp.self.", i >= 2 ? c->tap : NULL);
        tap_ok(filled && own, "%s: the inspection pass holds %s and no other layer's states", c->label, c->tap);
        char title[160];
        rf_latent_figure_block_title(fig, title, sizeof title);
        const rf_probe_value *p = rf_session_find_probe(s, c->tap);
        gboolean same = p != NULL && fig->heat.data != NULL && fig->heat.rows == c->rows && fig->heat.cols == DIM &&
                        memcmp(fig->heat.data, p->data + c->offset, (size_t)c->rows * DIM * sizeof(float)) == 0;
        tap_ok(strcmp(title, c->title) == 0 && same, "%s: the figure shows %s's segment %d block ('%s')", c->label,
               c->tap, SHOWN, title);
        const char *shots = g_getenv("RF_SCREENSHOT_DIR");
        if (shots != NULL && i == 2) {
            g_autoptr(GdkTexture) texture = render(GTK_WIDGET(win));
            g_autofree char *path = g_build_filename(shots, "screenshot-latent-self.png", NULL);
            tap_ok(texture != NULL && gdk_texture_save_to_png(texture, path), "screenshot %s", path);
        }
    }

    rf_session_stop(s);
    close_workbench(win, app);
    return tap_done();
}
