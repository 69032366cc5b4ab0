/* The Latent view's layer selector (issue 12 item 9), under Xvfb with the
 * real application: a tiny BLRP (2 Θ_SELF layers, segments of 8, a latent
 * of 4, ListOps up to 32 tokens: 4 segments) is stepped by hand with the
 * Latent view on screen, and for every entry of its Layer drop-down
 * (Θ_L (latent), Θ_SELF 1, Θ_SELF 2, Θ_X: the latent, then a segment's
 * way to it in BLRP's order, numbered from 1):
 *   - the next inspection pass holds that layer's taps and no other layer's
 *     (the view watches only what it shows, plus the latent norms' taps);
 *   - the figure shows segment 2's block of that layer: its title names
 *     the layer and its rows (8 tokens or 4 latent rows), and the block's
 *     values are the session's probe values of that layer and segment.
 * Then the Attention view's segment maps and the Latent view's token
 * states are cut to the tokens the chosen segment holds of a sample
 * shorter than the batch (check_segment_crop).
 * RF_SCREENSHOT_DIR set: also writes screenshot-latent-self.png of the
 * window with Θ_SELF 2 chosen, and screenshot-attention-segment.png. */
#include <stdlib.h>
#include <string.h>

#include "../ui/figures/attention_figure.h"
#include "../ui/figures/latent_figure.h"
#include "../ui/view.h"
#include "gui_steps.h"
#include "widget_find.h"
#include "workbench_app.h"

enum { SEGMENT = 8, LATENT = 4, DIM = 16, HEADS = 2, SEGMENTS = 4, SHOWN = 2 };

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
        rf_session_step_once(s, NULL);
        if (spin_until(probe_filled, args, 2.0))
            return TRUE;
    }
    return FALSE;
}

/* A Θ_SELF value is segment `segment`'s rows of the tap, exactly (the
 * window the view asks for; the whole tap is [SEGMENTS·t, d]). */
static gboolean segment_rows(const rf_probe_value *p, int segment)
{
    return p->pooled && p->window.r0 == (int64_t)(segment - 1) * SEGMENT &&
           p->window.r1 == (int64_t)segment * SEGMENT && p->shape.ndim == 2 && p->shape.dim[0] == SEGMENT &&
           p->shape.dim[1] == DIM;
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

/* Hover over the block names its rows and dimensions from 1, as the
 * segments and Θ_SELF layers are numbered: 1..rows and 1..DIM, no 0. */
static void check_hover_numbers(RfPlotView *plot, int rows)
{
    const rf_figure *f = rf_plot_view_get_figure(plot);
    int w = gtk_widget_get_width(GTK_WIDGET(plot)), h = gtk_widget_get_height(GTK_WIDGET(plot));
    int row_lo = G_MAXINT, row_hi = G_MININT, dim_lo = G_MAXINT, dim_hi = G_MININT;
    char text[256];
    for (int y = 0; y < h; y += 3)
        for (int x = 0; x < w; x += 3) {
            const char *row, *dim;
            if (!f->hover(f->data, w, h, &RF_ZOOM_ALL, x, y, text, sizeof text) ||
                (row = strstr(text, ", token ")) == NULL || (dim = strstr(text, ", dimension ")) == NULL)
                continue;
            int r = atoi(row + strlen(", token ")), d = atoi(dim + strlen(", dimension "));
            row_lo = MIN(row_lo, r), row_hi = MAX(row_hi, r), dim_lo = MIN(dim_lo, d), dim_hi = MAX(dim_hi, d);
        }
    tap_ok(row_lo == 1 && row_hi == rows && dim_lo == 1 && dim_hi == DIM,
           "hover counts the block's tokens %d-%d and dimensions %d-%d from 1, as segments and layers are", row_lo,
           row_hi, dim_lo, dim_hi);
}

typedef struct layer_case {
    const char *label;       /* the drop-down's entry */
    const char *tap;         /* the tap holding segment SHOWN's block */
    gboolean window;         /* watched as segment SHOWN's rows of the tap, not whole */
    int rows;
    const char *title;       /* the block's title */
} layer_case;

/* The probes are of training sample wanted_sample and hold wanted_probe. */
static int64_t wanted_sample;
static const char *wanted_probe;
static gboolean probes_of_sample(gpointer data)
{
    rf_split split;
    int64_t sample;
    rf_inspection info;
    const rf_probe_value *p = rf_session_find_probe(data, wanted_probe);
    return rf_session_get_probe_sample(data, &split, &sample, &info) && split == RF_SPLIT_TRAIN &&
           sample == wanted_sample && p != NULL && p->filled;
}

/* Step until the probes are of wanted_sample and hold `probe`. */
static gboolean step_until_sample_probe(RfSession *s, const char *probe)
{
    wanted_probe = probe;
    for (int tries = 0; tries < 20; tries++) {
        rf_session_step_once(s, NULL);
        if (spin_until(probes_of_sample, s, 2.0))
            return TRUE;
    }
    return FALSE;
}

/* The Attention view on a training sample of L tokens, 8 < L < 24 and L not
 * a multiple of 8: its last segment k = ceil(L / 8) is shown as the
 * L - 8(k - 1) tokens it holds (rows, columns, values and token names),
 * and segment 4, all padding for this sample, as a sentence saying so. */
static void check_segment_crop(RfWindow *win, RfSession *s)
{
    const rf_dataset *ds = rf_session_get_dataset(s);
    float x[32];
    int len = 0, label;
    rf_status st = {0};
    wanted_sample = -1;
    for (int64_t i = 0; i < ds->size[RF_SPLIT_TRAIN] && wanted_sample < 0; i++)
        if (ds->get(ds, RF_SPLIT_TRAIN, i, x, &len, &label, &st) && len > SEGMENT && len < 3 * SEGMENT &&
            len % SEGMENT >= 3)
            wanted_sample = i;
    if (!tap_ok(wanted_sample >= 0, "the tiny data set has a sample of 9-23 tokens, 3 or more in its last segment"))
        return;
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), "attention");
    GtkWidget *page = gtk_stack_get_visible_child(rf_window_get_stack(win));
    const rf_attention_figure *fig = rf_plot_view_get_figure(rf_view_get_plot(page))->data;
    GtkSpinButton *sample = GTK_SPIN_BUTTON(find_by_tooltip(page, "Which sample"));
    GtkSpinButton *segment = GTK_SPIN_BUTTON(find_by_tooltip(page, "The BLRP segment whose maps are shown"));
    GtkDropDown *map = GTK_DROP_DOWN(find_labelled(page, "Map"));
    if (!tap_ok(sample != NULL && segment != NULL && map != NULL, "the Attention view has Map, Sample and Segment"))
        return;
    gtk_drop_down_set_selected(map, 0);   /* Segment self-attention, layer 0 */
    gtk_spin_button_set_value(sample, (double)wanted_sample);
    spin_for(0.2);
    gboolean probed = step_until_sample_probe(s, "blrp.self.0.probs");
    int last = (len + SEGMENT - 1) / SEGMENT, held = len - (last - 1) * SEGMENT;
    gtk_spin_button_set_value(segment, last);
    spin_for(0.3);
    const rf_probe_value *p = rf_session_find_probe(s, "blrp.self.0.probs");   /* the sample's [T*heads, t, t] */
    const float *plane = probed ? p->data + (size_t)(last - 1) * HEADS * SEGMENT * SEGMENT : NULL;
    int off = plane != NULL && fig->rows == held && fig->cols == held ? 0 : -1;
    for (int r = 0; off >= 0 && r < held; r++)
        for (int c = 0; c < held; c++)
            off += fig->map[r * held + c] != plane[r * SEGMENT + c];
    tap_ok(probed && off == 0 && fig->n_names == held,
           "a %d-token sample's segment %d is its %d tokens by %d (%d x %d shown, %d cells differ, %d named)", len, last,
           held, held, fig->rows, fig->cols, off, fig->n_names);
    screenshot(win, "attention-segment");
    gtk_spin_button_set_value(segment, SEGMENTS);
    spin_for(0.3);
    tap_ok(strstr(fig->message, "Segment 4 is padding for this sample") != NULL,
           "its segment 4 is all padding, and the view says so (\"%s\")", fig->message);

    /* the Latent view's token states of that sample: the same rows */
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), "latent");
    page = gtk_stack_get_visible_child(rf_window_get_stack(win));
    const rf_latent_figure *latent = rf_plot_view_get_figure(rf_view_get_plot(page))->data;
    GtkDropDown *layer = GTK_DROP_DOWN(find_by_tooltip(page, "BLRP's depth"));
    GtkRange *slider = GTK_RANGE(find_by_tooltip(page, "Which segment to show"));
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(find_by_tooltip(page, "Which sample")), (double)wanted_sample);
    gtk_drop_down_set_selected(layer, 1);   /* Θ_SELF 1 */
    gtk_range_set_value(slider, last);
    gboolean filled = step_until_sample_probe(s, "blrp.self.0.out");
    spin_for(0.3);
    char title[160];
    rf_latent_figure_block_title(latent, title, sizeof title);
    const rf_probe_value *states = rf_session_find_probe(s, "blrp.self.0.out");   /* segment last's [t, d] */
    gboolean same = filled && segment_rows(states, last) && latent->heat.rows == held &&
                    memcmp(latent->heat.data, states->data, (size_t)held * DIM * sizeof(float)) == 0;
    tap_ok(same, "the Latent view's Θ_SELF 1 block of segment %d is the sample's %d tokens ('%s')", last, held, title);
    gtk_range_set_value(slider, SEGMENTS);
    spin_for(0.3);
    rf_latent_figure_block_title(latent, title, sizeof title);
    tap_ok(title[0] == '\0' && latent->sample_tokens == len, "and segment 4 shows no block of padding");
}

int main(int argc, char **argv)
{
    application_kernels(argv);
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
    tap_ok(first && strcmp(listed->str, "Θ_L (latent), Θ_SELF 1, Θ_SELF 2, Θ_X") == 0 &&
               gtk_drop_down_get_selected(layer) == 0,
           "the Layer drop-down lists the model's layers, the latent chosen (%s)", listed->str);
    g_string_free(listed, TRUE);
    gtk_range_set_value(segment, SHOWN);

    const layer_case cases[] = {
        {"Θ_L (latent)", "blrp.latent.fwd.2", FALSE, LATENT,
         "segment 2 · forward · Θ_L (latent): latent block, 4 × 16"},
        {"Θ_SELF 1", "blrp.self.0.out", TRUE, SEGMENT, "segment 2 · forward · Θ_SELF 1: token states, 8 × 16"},
        {"Θ_SELF 2", "blrp.self.1.out", TRUE, SEGMENT, "segment 2 · forward · Θ_SELF 2: token states, 8 × 16"},
        {"Θ_X", "blrp.segment.fwd.2", FALSE, SEGMENT,
         "segment 2 · forward · Θ_X: segment after reading the latent, 8 × 16"},
    };
    for (guint i = 0; i < G_N_ELEMENTS(cases) && i < n; i++) {
        const layer_case *c = &cases[i];
        gtk_drop_down_set_selected(layer, i);
        spin_for(0.1);
        gboolean filled = step_until_probe(s, c->tap);
        spin_for(0.3);
        /* only this layer's taps: the others' states are not copied */
        gboolean cross = g_str_has_prefix(c->tap, "blrp.segment."), self = g_str_has_prefix(c->tap, "blrp.self.");
        gboolean own = cross == snapshot_has(s, "blrp.segment.", NULL) &&
                       !snapshot_has(s, "blrp.self.", self ? c->tap : NULL);
        tap_ok(filled && own, "%s: the inspection pass holds %s and no other layer's states", c->label, c->tap);
        char title[160];
        rf_latent_figure_block_title(fig, title, sizeof title);
        const rf_probe_value *p = rf_session_find_probe(s, c->tap);
        gboolean same = p != NULL && fig->heat.data != NULL && fig->heat.rows == c->rows && fig->heat.cols == DIM &&
                        memcmp(fig->heat.data, p->data, (size_t)c->rows * DIM * sizeof(float)) == 0;
        tap_ok(strcmp(title, c->title) == 0 && same, "%s: the figure shows %s's segment %d block ('%s')", c->label,
               c->tap, SHOWN, title);
        if (c->window)
            tap_ok(p != NULL && segment_rows(p, SHOWN),
                   "%s: only segment %d's %d rows of %s are copied, a row a token (rows %" G_GINT64_FORMAT
                   "-%" G_GINT64_FORMAT " of the sequence)", c->label, SHOWN, SEGMENT, c->tap,
                   p != NULL ? p->window.r0 : -1, p != NULL ? p->window.r1 - 1 : -1);
        if (i == 2)
            screenshot(win, "latent-self");
    }
    check_hover_numbers(plot, SEGMENT);

    check_segment_crop(win, s);
    rf_session_stop(s);
    close_workbench(win, app);
    return tap_done();
}
