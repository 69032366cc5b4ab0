/* The attention overview and the step history (issue 12 item 13), under
 * Xvfb with the real application: a small full-attention ListOps model
 * (2 layers, 3 heads) evaluating every 3 steps is stepped by hand with the
 * Attention view in its Overview mode, and
 *   1. the overview draws 2 x 3 thumbnails, and a click on one opens that
 *      layer and head in the single-map mode, both counted from 1 in the
 *      hover, the Head spinner and the title; a thumbnail is cut like the
 *      single map, to the sample's own queries and keys (the sample is
 *      shorter than the batch: no band of padding);
 *   2. the step slider under the toolbar keeps one step per evaluation;
 *      moving it to an earlier step shows that step's map (another than the
 *      latest) and the title names the step; its right end is live again;
 *   3. a TaLK run (no attention map: the Map drop-down is empty) offers no
 *      Head chooser.
 * RF_SCREENSHOT_DIR set: also writes screenshot-attention-overview.png of
 * the window there. */
#include <string.h>

#include "../ui/figures/attention_figure.h"
#include "../ui/view.h"
#include "figure_pixels.h"
#include "widget_find.h"
#include "widget_render.h"
#include "workbench_app.h"

static const char small_config[] = RF_TEST_TINY_DATA
                                   "[model]\n"
                                   "encoder = full\n"
                                   "layers = 2\n"
                                   "dim = 24\n"
                                   "heads = 3\n"
                                   "ff = 32\n"
                                   "[train]\n"
                                   "steps = 1000\n"
                                   "lr = 0.01\n"
                                   "warmup = 0\n"
                                   "eval_every = 3\n"
                                   "eval_batches = 1\n";

/* Asks for the pause each time it is polled, until the run is paused (a
 * pause asked once while the run loads was lost once under heavy load). */
static gboolean paused(gpointer session)
{
    rf_session_pause(session);
    return rf_session_get_state(session) == RF_RUN_PAUSED;
}

static gboolean step_at_least(gpointer data)
{
    RfSession *s = ((gpointer *)data)[0];
    return rf_session_get_step(s) >= *(int64_t *)((gpointer *)data)[1];
}

/* The history's newest stored step is the evaluation at `step`. */
static gboolean history_reaches(gpointer data)
{
    RfSession *s = ((gpointer *)data)[0];
    const rf_probe_history *h = rf_session_get_history(s);
    int n = rf_probe_history_count(h);
    return n > 0 && rf_probe_history_get(h, n - 1)->eval_step == *(int64_t *)((gpointer *)data)[1];
}

static void set_key(RfSession *s, const char *key, const char *value)
{
    g_autoptr(GError) error = NULL;
    tap_ok(rf_session_set_key(s, key, value, NULL, &error), "%s = %s%s%s", key, value, error ? ": " : "",
           error ? error->message : "");
}

/* Step to the evaluation at `step` with both layers' maps watched, then
 * wait until the history stores it. */
static gboolean step_and_keep(RfSession *s, int64_t step)
{
    const char *names[] = {"layer0.attn.probs", "layer1.attn.probs"};
    rf_session_watch_probes(s, names, 2, RF_SPLIT_TRAIN, 0);
    while (rf_session_get_step(s) < step) {
        int64_t next = rf_session_get_step(s) + 1;
        gpointer args[2] = {s, &next};
        rf_session_step_once(s, NULL);
        if (!spin_until(step_at_least, args, 30.0))
            return FALSE;
    }
    rf_session_watch_probes(s, names, 2, RF_SPLIT_TRAIN, 0);
    gpointer args[2] = {s, &step};
    return spin_until(history_reaches, args, 30.0);
}

/* The stored steps (indices) that hold `tap`: a step stores the taps that
 * were watched when it was taken. */
static int steps_holding(const rf_probe_history *h, const char *tap, int *index, int max)
{
    int k = 0;
    for (int i = 0; i < rf_probe_history_count(h) && k < max; i++)
        if (rf_probe_set_find(rf_probe_hold_get(rf_probe_history_get(h, i)->hold), tap) != NULL)
            index[k++] = i;
    return k;
}

static gboolean has_overview(gpointer data)
{
    const rf_attention_figure *f = data;
    return f->overview != NULL && f->overview->layers == 2 && f->overview->heads == 3 &&
           f->overview->cells[5].thumb != NULL;
}

static gboolean has_matrix(gpointer data)
{
    const rf_attention_figure *f = data;
    return f->overview == NULL && f->layout == RF_ATTENTION_MATRIX && f->map != NULL;
}

/* The slider moved to `index`, once the figure's title names `want` (NULL:
 * names no step, the live end); FALSE after 10 s. */
typedef struct slider_wait {
    const rf_attention_figure *fig;
    const char *want;
} slider_wait;

static gboolean title_shows(gpointer data)
{
    const slider_wait *w = data;
    return w->want != NULL ? strstr(w->fig->title, w->want) != NULL : strstr(w->fig->title, "step") == NULL;
}

static gboolean move_slider(GtkRange *slider, double index, const rf_attention_figure *fig, const char *want)
{
    gtk_range_set_value(slider, index);
    slider_wait w = {fig, want};
    return spin_until(title_shows, &w, 10.0);
}

/* The runs of thumbnail pixels along row y of s. */
static int runs_along_row(cairo_surface_t *s, int y, double *centres, int max)
{
    int n = 0, start = 0;
    for (int x = 0; x < cairo_image_surface_get_width(s); x++) {
        bool in = colourful(s, x, y), before = x > 0 && colourful(s, x - 1, y);
        if (in && !before)
            start = x;
        if (!in && before) {
            if (x - start > 20 && n < max)
                centres[n] = (start + x) / 2.0;
            n += x - start > 20;
        }
    }
    return n;
}

static int runs_along_column(cairo_surface_t *s, int x, double *centres, int max)
{
    int n = 0, start = 0;
    for (int y = 0; y < cairo_image_surface_get_height(s); y++) {
        bool in = colourful(s, x, y), before = y > 0 && colourful(s, x, y - 1);
        if (in && !before)
            start = y;
        if (!in && before) {
            if (y - start > 20 && n < max)
                centres[n] = (start + y) / 2.0;
            n += y - start > 20;
        }
    }
    return n;
}

static float *copy_map(const rf_attention_figure *f)
{
    return g_memdup2(f->map, (gsize)f->rows * f->cols * sizeof(float));
}

int main(int argc, char **argv)
{
    application_kernels(argv);
    (void)argc;
    (void)argv;
    g_autofree char *dir = g_dir_make_tmp("rf-history-XXXXXX", NULL);
    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, small_config, &app);
    if (win == NULL)
        return tap_done();
    gtk_window_set_default_size(GTK_WINDOW(win), 1600, 1000);
    RfSession *s = rf_window_get_session(win);
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), "attention");
    spin_for(0.3);
    GtkWidget *page = gtk_stack_get_visible_child(rf_window_get_stack(win));
    RfPlotView *plot = rf_view_get_plot(page);
    GtkToggleButton *overview = GTK_TOGGLE_BUTTON(find_by_tooltip(page, "Every layer and head"));
    GtkRange *slider = GTK_RANGE(find_by_tooltip(page, "Which step to show"));
    GtkSpinButton *head = GTK_SPIN_BUTTON(find_by_tooltip(page, "Attention head"));
    if (!tap_ok(plot != NULL && overview != NULL && slider != NULL && head != NULL,
                "the Attention view has its plot, an Overview toggle, a step slider and the Head chooser"))
        return tap_done();
    const rf_attention_figure *fig = rf_plot_view_get_figure(plot)->data;

    g_action_group_activate_action(G_ACTION_GROUP(win), "train", NULL);
    gboolean pause_took = spin_until(paused, s, 60.0);
    tap_ok(pause_took, "the new run pauses (at step %" G_GINT64_FORMAT ")", rf_session_get_step(s));
    gtk_toggle_button_set_active(overview, TRUE);
    /* the next three evaluations after the pause: the Train action refreshes
     * the window after starting the run, and under load this small model
     * made several steps (past the evaluation at 3) before the pause took */
    int64_t first = (rf_session_get_step(s) / 3 + 1) * 3;
    gboolean kept = step_and_keep(s, first) && step_and_keep(s, first + 3) && step_and_keep(s, first + 6);
    const rf_probe_history *history = rf_session_get_history(s);
    g_autoptr(GString) stored = g_string_new(NULL);
    gboolean evals = rf_probe_history_count(history) >= 2;
    for (int i = 0; i < rf_probe_history_count(history); i++) {
        const rf_probe_history_entry *e = rf_probe_history_get(history, i);
        g_string_append_printf(stored, " %lld@%lld", (long long)e->eval_step, (long long)e->step);
        evals = evals && e->eval_step % 3 == 0 && e->step >= e->eval_step && e->step < e->eval_step + 3;
    }
    tap_ok(kept && evals, "stepping through the evaluations at %lld, %lld and %lld stores one snapshot per "
           "evaluation, taken before the next (eval@taken:%s)", (long long)first, (long long)first + 3,
           (long long)first + 6, stored->str);

    /* 1 */
    tap_ok(spin_until(has_overview, (gpointer)fig, 30.0), "the overview holds 2 x 3 thumbnails");
    spin_for(0.3);
    int w = gtk_widget_get_width(GTK_WIDGET(plot)), h = gtk_widget_get_height(GTK_WIDGET(plot));
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    cairo_t *cr = cairo_create(surface);
    const rf_figure *f = rf_plot_view_get_figure(plot);
    f->draw(f->data, cr, w, h, &RF_ZOOM_ALL);
    cairo_destroy(cr);
    cairo_surface_flush(surface);
    double xs[8] = {0}, ys[8] = {0};
    int across = 0, down = 0;
    for (int y = 0; y < h && across != 3; y += 4)
        across = runs_along_row(surface, y, xs, 8);
    for (int x = 0; x < w && down != 2; x += 4)
        down = runs_along_column(surface, x, ys, 8);
    cairo_surface_destroy(surface);
    tap_ok(across == 3 && down == 2, "the overview draws 2 layers x 3 heads of thumbnails (%d across, %d down, %dx%d)",
           across, down, w, h);
    char text[200] = "";
    gboolean named = across == 3 && down == 2 && f->hover(f->data, w, h, &RF_ZOOM_ALL, xs[2], ys[1], text, sizeof text);
    tap_ok(named && g_str_has_prefix(text, "Layer 2 · head 3"),
           "hover names the last cell, counting layers and heads from 1 like the Latent view (%s)", text);
    const char *shots = g_getenv("RF_SCREENSHOT_DIR");
    if (shots != NULL) {
        g_autoptr(GdkTexture) texture = render(GTK_WIDGET(win));
        g_autofree char *path = g_build_filename(shots, "screenshot-attention-overview.png", NULL);
        tap_ok(texture != NULL && gdk_texture_save_to_png(texture, path), "screenshot %s", path);
    }
    const rf_overview_cell *cell = &fig->overview->cells[1 * 3 + 2];
    int thumb_rows = cell->rows, thumb_cols = cell->cols;
    g_autofree float *thumb = g_memdup2(cell->thumb, (gsize)thumb_rows * thumb_cols * sizeof(float));
    if (across == 3 && down == 2)
        rf_plot_view_click(plot, xs[2], ys[1]);
    double lowest = 0, highest = 0;
    gtk_spin_button_get_range(head, &lowest, &highest);
    tap_ok(!gtk_toggle_button_get_active(overview) && gtk_spin_button_get_value_as_int(head) == 3 && lowest == 1 &&
               highest == 3 && spin_until(has_matrix, (gpointer)fig, 30.0) &&
               strstr(fig->title, "Layer 2 · head 3") != NULL,
           "a click on L2 H3 opens the second layer's third head, the Head spinner at 3 of 1..%g (%s)", highest,
           fig->title);
    const rf_probe_value *probs = rf_session_find_probe(s, "layer1.attn.probs");
    int batch_n = probs != NULL ? (int)probs->shape.dim[2] : 0;
    tap_ok(fig->cols < batch_n && thumb_rows == fig->rows && thumb_cols == fig->cols &&
               memcmp(thumb, fig->map, (size_t)fig->rows * fig->cols * sizeof(float)) == 0,
           "its thumbnail is the single map: the sample's %d x %d queries and keys of the batch's %d, no padding "
           "(thumbnail %d x %d)", fig->rows, fig->cols, batch_n, thumb_rows, thumb_cols);

    /* hover names the query and the key by the sample's ListOps tokens */
    char hovered[200] = "", query_name[64] = "", key_name[64] = "";
    int query = -1, key = -1;
    gboolean named_cell = FALSE;
    for (int y = 0; y < h && !named_cell; y += 3)
        for (int x = 0; x < w && !named_cell; x += 3)
            named_cell = f->hover(f->data, w, h, &RF_ZOOM_ALL, x + 0.5, y + 0.5, hovered, sizeof hovered) &&
                         sscanf(hovered, "query %d \"%63[^\"]\", key %d \"%63[^\"]\"", &query, query_name, &key,
                                key_name) == 4;
    gboolean operator = FALSE, digit = FALSE;
    for (int i = 0; i < fig->n_names; i++) {
        operator |= fig->names[i][0] == '[';
        digit |= g_ascii_isdigit(fig->names[i][0]);
    }
    tap_ok(named_cell && query < fig->n_names && key < fig->n_names && strcmp(query_name, fig->names[query]) == 0 &&
               strcmp(key_name, fig->names[key]) == 0 && operator && digit,
           "hover over the map names the query's and the key's tokens (%s)", hovered);

    /* 2 */
    int n = rf_probe_history_count(history);
    tap_ok(gtk_range_get_value(slider) == n && strstr(fig->title, "step") == NULL,
           "the slider starts at its live end (%g of %d)", gtk_range_get_value(slider), n);
    spin_for(0.3);
    g_autofree float *live = copy_map(fig);
    int live_cells = fig->rows * fig->cols;
    int with_map[2];
    if (tap_ok(steps_holding(history, "layer1.attn.probs", with_map, 2) == 2,
               "two stored steps hold layer 1's maps")) {
        char want[2][32];
        for (int i = 0; i < 2; i++)
            g_snprintf(want[i], sizeof want[i], "step %lld",
                       (long long)rf_probe_history_get(history, with_map[i])->eval_step);
        gboolean changed = move_slider(slider, with_map[0], fig, want[0]) && fig->rows * fig->cols == live_cells &&
                           memcmp(fig->map, live, live_cells * sizeof(float)) != 0;
        tap_ok(changed, "moving the slider to %s shows that step's map, not the latest (%s)", want[0], fig->title);
        g_autofree float *earlier = copy_map(fig);
        tap_ok(move_slider(slider, with_map[1], fig, want[1]) &&
                   memcmp(fig->map, earlier, live_cells * sizeof(float)) != 0,
               "%s shows another map again (%s)", want[1], fig->title);
    }
    tap_ok(move_slider(slider, n, fig, NULL) && memcmp(fig->map, live, live_cells * sizeof(float)) == 0,
           "the right end shows the latest snapshot again");

    /* 3 */
    rf_session_stop(s);
    gboolean chooser = gtk_widget_get_visible(GTK_WIDGET(head)) && gtk_widget_get_sensitive(GTK_WIDGET(head));
    set_key(s, "model.encoder", "talk");
    set_key(s, "train.steps", "3");
    g_action_group_activate_action(G_ACTION_GROUP(win), "train", NULL);
    gboolean trained = spin_until(run_settled, s, 120.0) && rf_session_get_state(s) == RF_RUN_FINISHED;
    spin_for(0.5);
    GtkDropDown *map = GTK_DROP_DOWN(find_labelled(page, "Map"));
    guint maps = map != NULL ? g_list_model_get_n_items(gtk_drop_down_get_model(map)) : 99;
    gboolean offered = gtk_widget_get_visible(GTK_WIDGET(head)) && gtk_widget_get_sensitive(GTK_WIDGET(head));
    tap_ok(chooser && trained && maps == 0 && !offered,
           "a TaLK run has no attention map: the Head chooser, offered for full attention's 3 heads, is not (%u maps, "
           "head %s)", maps, offered ? "offered" : "not offered");

    rf_session_stop(s);
    close_workbench(win, app);
    return tap_done();
}
