/* The Attention view of a long sequence, under Xvfb with the real
 * application: a one-layer full-attention model of width 8 trains one step
 * on long_match samples of 8,192 tokens (a map of 67 million weights), and
 * on the Attention view
 *   1. the map the view watches arrives pooled (core/probe.h) to about the
 *      plot's pixels, max by default: the snapshot holds its cells, not
 *      8,192 x 8,192 floats, and the title says "max over K×K tokens";
 *   2. the cells drawn are those of `rangefinder inspect --pool max` with
 *      the same cells on the saved model (the core request, another
 *      process);
 *   3. hover names a cell's token range;
 *   4. the Mean toggle asks again: the title says "mean over", and the
 *      cells are the CLI's `--pool mean`;
 *   5. zooming in asks for the visible queries and keys: a few hundred of
 *      them come back one cell a token, the exact weights (the CLI's
 *      `--rows A:B --columns C:D` window), the title naming the window;
 *      0 goes back to all 8,192 tokens, pooled;
 *   6. the Overview asks for every layer's maps as 256 x 256 thumbnails.
 * argv[1]: the rangefinder executable. RF_SCREENSHOT_DIR set: the window at
 * 1024 x 600 and 1920 x 1080 (attention-long-WxH.png). */
#include <stdio.h>
#include <string.h>

#include "../ui/figures/attention_figure.h"
#include "../ui/view.h"
#include "trained_view.h"

#define TOKENS 8192
static const char long_config[] = "[data]\ntask = long_match\nmax_len = 8192\ntrain_size = 4\nval_size = 2\n"
                                  "test_size = 2\nbatch = 1\n"
                                  "[model]\nencoder = full\nlayers = 1\ndim = 8\nheads = 1\nff = 16\n"
                                  "[train]\nsteps = 1\neval_every = 1\nlog_every = 1\ncheckpoint_every = 0\n"
                                  "threads = 2\n";

/* The snapshot's map is pooled with `reduce` (a pointer to it). */
static const rf_probe_value *pooled_map(RfSession *s)
{
    const rf_probe_value *p = rf_session_find_probe(s, "layer0.attn.probs");
    return p != NULL && p->filled && p->pooled ? p : NULL;
}

static gboolean map_pooled_by(gpointer data)
{
    gpointer *args = data;
    const rf_probe_value *p = pooled_map(args[0]);
    const rf_attention_figure *fig = rf_plot_view_get_figure(args[1])->data;
    return p != NULL && p->window.reduce == *(rf_pool_reduce *)args[2] && fig->map == p->data &&
           strstr(fig->title, *(rf_pool_reduce *)args[2] == RF_POOL_MEAN ? "mean over" : "max over") != NULL;
}

/* The snapshot's map is a window smaller than the sample, one cell a token. */
static gboolean exact_window(gpointer s)
{
    const rf_probe_value *p = pooled_map(s);
    return p != NULL && p->window.r1 - p->window.r0 < TOKENS && p->shape.dim[1] == p->window.r1 - p->window.r0 &&
           p->shape.dim[2] == p->window.c1 - p->window.c0;
}

static gboolean thumbnails(gpointer s)
{
    const rf_probe_value *p = pooled_map(s);
    return p != NULL && p->window.r1 == TOKENS && p->shape.dim[1] == 256 && p->shape.dim[2] == 256;
}

static gboolean whole_again(gpointer s)
{
    const rf_probe_value *p = pooled_map(s);
    return p != NULL && p->window.r0 == 0 && p->window.r1 == TOKENS && p->shape.dim[1] < TOKENS;
}

/* `rangefinder inspect --pool` of train sample 0 into `cells` x `cells`
 * (over `window`, "A:B", or all): the floats after the .npy header, or NULL. */
static float *cli_window(const char *rangefinder, const char *model, const char *dir, int cells, const char *reduce,
                         const char *rows, const char *cols, gsize *n)
{
    g_autofree char *out = g_build_filename(dir, "pooled.npy", NULL);
    g_autofree char *size = g_strdup_printf("%dx%d", cells, cells);
    const char *argv[] = {rangefinder, "inspect", "--checkpoint", model, "--split", "train", "--sample", "0",
                          "--probe", "layer0.attn.probs", "--pool", reduce, "--cells", size, "--out", out,
                          "--rows", rows, "--columns", cols, NULL};
    g_autofree char *stdout_text = NULL, *err = NULL, *bytes = NULL;
    int status = 0;
    gsize len = 0;
    if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &stdout_text, &err, &status, NULL) ||
        !g_spawn_check_wait_status(status, NULL) || !g_file_get_contents(out, &bytes, &len, NULL) || len < 10) {
        tap_diag("inspect --pool failed: %s", err != NULL ? err : "");
        return NULL;
    }
    gsize header = 10 + (guchar)bytes[8] + 256 * (guchar)bytes[9];   /* .npy 1.0 */
    *n = (len - header) / sizeof(float);
    return g_memdup2(bytes + header, len - header);
}

static float *cli_pooled(const char *rangefinder, const char *model, const char *dir, int cells, const char *reduce,
                         gsize *n)
{
    return cli_window(rangefinder, model, dir, cells, reduce, "0:", "0:", n);
}

/* The figure's cells against the CLI's: the largest difference. */
static double largest_difference(const rf_attention_figure *fig, const float *want, gsize n)
{
    if (want == NULL || n != (gsize)fig->rows * fig->cols)
        return INFINITY;
    double worst = 0;
    for (gsize i = 0; i < n; i++)
        worst = fmax(worst, fabs(fig->map[i] - want[i]));
    return worst;
}

static void check(RfWindow *win, const char *rangefinder, const char *dir)
{
    RfSession *s = rf_window_get_session(win);
    GtkWidget *page = gtk_stack_get_child_by_name(rf_window_get_stack(win), "attention");
    RfPlotView *plot = rf_view_get_plot(page);
    rf_pool_reduce max = RF_POOL_MAX, mean = RF_POOL_MEAN;
    gpointer by_max[3] = {s, plot, &max}, by_mean[3] = {s, plot, &mean};
    /* 1 */
    if (!tap_ok(spin_until(map_pooled_by, by_max, 120.0), "the Attention view shows a pooled map, max by default"))
        return;
    const rf_attention_figure *fig = rf_plot_view_get_figure(plot)->data;
    const rf_probe_value *p = pooled_map(s);
    int cells = (int)p->shape.dim[1];
    tap_ok(p->shape.ndim == 3 && p->shape.dim[0] == 1 && cells == p->shape.dim[2] && cells >= 64 && cells < TOKENS &&
               p->window.r0 == 0 && p->window.r1 == TOKENS && fig->rows == cells && fig->cols == cells,
           "the snapshot holds the %d x %d cells of all %d tokens (%d x %d drawn), not %d x %d floats", cells, cells,
           TOKENS, fig->rows, fig->cols, TOKENS, TOKENS);
    int span = (TOKENS + cells - 1) / cells;
    g_autofree char *words = g_strdup_printf("max over %s%d×%d tokens", TOKENS % cells ? "up to " : "", span, span);
    tap_ok(strstr(fig->title, words) != NULL, "the title says what a cell is: \"%s\" (%s)", words, fig->title);
    view_screenshots(win, "attention-long");

    /* 2 */
    g_autofree char *model = save_model_for_cli(win, dir);
    gsize n = 0;
    g_autofree float *want = cli_pooled(rangefinder, model, dir, cells, "max", &n);
    double diff = largest_difference(fig, want, n);
    tap_ok(diff <= 1e-6, "the cells drawn are `inspect --pool max --cells %dx%d`'s (largest difference %.3g)", cells,
           cells, diff);

    /* 3 */
    GtkWidget *w = GTK_WIDGET(plot);
    const rf_figure *f = rf_plot_view_get_figure(plot);
    rf_zoom z = rf_plot_view_get_zoom(plot);
    char text[256] = "";
    gboolean found = FALSE;
    int width = gtk_widget_get_width(w), height = gtk_widget_get_height(w);
    for (int y = height / 4; !found && y < height; y += 7)
        for (int x = width / 4; !found && x < width; x += 7)
            found = f->hover(f->data, width, height, &z, x, y, text, sizeof text) && strstr(text, "tokens ") != NULL;
    int a = 0, b = 0;
    const char *at = strstr(text, "tokens ");
    tap_ok(found && sscanf(at, "tokens %d-%d", &a, &b) == 2 && b - a + 1 >= span - 1 && b - a + 1 <= span,
           "hover names a cell's tokens: %s", text);

    /* 4 */
    GtkToggleButton *mean_toggle = GTK_TOGGLE_BUTTON(find_by_tooltip(page, "Maps longer than the screen"));
    if (!tap_ok(mean_toggle != NULL, "the Attention view has a Mean toggle"))
        return;
    gtk_toggle_button_set_active(mean_toggle, TRUE);
    if (!tap_ok(spin_until(map_pooled_by, by_mean, 120.0), "Mean asks again: the title says \"mean over\""))
        return;
    fig = rf_plot_view_get_figure(plot)->data;
    cells = fig->rows;
    g_free(want);
    want = cli_pooled(rangefinder, model, dir, cells, "mean", &n);
    diff = largest_difference(fig, want, n);
    tap_ok(diff <= 1e-6, "the mean cells drawn are `inspect --pool mean --cells %dx%d`'s (largest difference %.3g)",
           cells, cells, diff);

    /* 5 */
    for (int i = 0; i < 15; i++)   /* 1.25^15: about 1/28 of the map each way */
        rf_plot_view_key(plot, GDK_KEY_plus, 0);
    if (!tap_ok(spin_until(exact_window, s, 120.0), "zooming in asks for the visible window: one cell a token"))
        return;
    spin_for(0.3);
    p = pooled_map(s);
    fig = rf_plot_view_get_figure(plot)->data;
    g_autofree char *rows = g_strdup_printf("%lld:%lld", (long long)p->window.r0, (long long)p->window.r1);
    g_autofree char *cols = g_strdup_printf("%lld:%lld", (long long)p->window.c0, (long long)p->window.c1);
    g_autofree char *named = g_strdup_printf("queries %lld-%lld, keys %lld-%lld", (long long)p->window.r0,
                                             (long long)p->window.r1 - 1, (long long)p->window.c0,
                                             (long long)p->window.c1 - 1);
    tap_ok(fig->map == p->data && fig->rows < 600 && fig->cols < 600 && strstr(fig->title, named) != NULL &&
               strstr(fig->title, " over ") == NULL,
           "the title names the window and no pooling (%s), %d x %d tokens drawn", fig->title, fig->rows, fig->cols);
    g_free(want);
    want = cli_window(rangefinder, model, dir, MAX(fig->rows, fig->cols), "max", rows, cols, &n);
    diff = largest_difference(fig, want, n);
    tap_ok(diff <= 1e-6, "its cells are the exact weights, `inspect --rows %s --columns %s`'s (largest difference "
           "%.3g)", rows, cols, diff);
    rf_plot_view_key(plot, GDK_KEY_0, 0);
    tap_ok(spin_until(whole_again, s, 120.0), "0 goes back to all %d tokens, pooled", TOKENS);

    /* 6 */
    GtkToggleButton *overview = GTK_TOGGLE_BUTTON(find_by_tooltip(page, "Every layer and head"));
    if (tap_ok(overview != NULL, "the Attention view has an Overview toggle")) {
        gtk_toggle_button_set_active(overview, TRUE);
        tap_ok(spin_until(thumbnails, s, 120.0), "the Overview asks for the maps of all %d tokens as 256 x 256 "
               "thumbnails", TOKENS);
    }
}

static void show_attention(RfWindow *win)
{
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), "attention");
}

int main(int argc, char **argv)
{
    return trained_run_main(argc, argv, "the Attention view of 8,192 tokens", long_config, "8,192-token", show_attention, check);
}
