/* The Transformer-LS band of a million tokens, under Xvfb with the real
 * application: a one-layer LS model of width 8 (window 8, 8 global
 * landmarks) trains one step on long_match samples of 1,048,576 tokens, and
 * on the Attention view
 *   1. the band and the globals the view watches arrive with their queries
 *      pooled to about the plot's height, max by default, every column
 *      kept: the snapshot holds a few thousand rows, under 1 % of the run's
 *      planned bytes (the whole tap is N x (16 + 8) floats), the axes count
 *      tokens and the title says how many queries a row covers;
 *   2. the rows drawn are those of `rangefinder inspect --pool max` with the
 *      same cells on the saved model (another process), and the maximum of
 *      the exact band (the CLI's whole tap) over each row's queries;
 *   3. hover names a row's token range;
 *   4. zooming in asks for the visible queries: a few hundred come back one
 *      row a token, the exact band, the title naming them; 0 goes back to
 *      all the tokens, pooled.
 * argv[1]: the rangefinder executable. RF_SCREENSHOT_DIR set: the window at
 * 1024 x 600 and 1920 x 1080 (ls-million-WxH.png). */
#include <stdio.h>
#include <string.h>

#include "../ui/figures/attention_figure.h"
#include "../ui/view.h"
#include "trained_view.h"

#define TOKENS 1048576
#define LOCAL "layer0.ls.local"
#define GLOBAL "layer0.ls.global"
static const char million_config[] = "[data]\ntask = long_match\nmax_len = 1048576\ntrain_size = 2\nval_size = 1\n"
                                     "test_size = 1\nbatch = 1\n"
                                     "[model]\nencoder = ls\nlayers = 1\ndim = 8\nheads = 1\nff = 16\nwindow = 8\n"
                                     "rank = 8\n"
                                     "[train]\nsteps = 1\neval_every = 1\nlog_every = 1\ncheckpoint_every = 0\n"
                                     "threads = 2\n";

static const rf_probe_value *pooled(RfSession *s, const char *name)
{
    const rf_probe_value *p = rf_session_find_probe(s, name);
    return p != NULL && p->filled && p->pooled && p->shape.ndim == 3 ? p : NULL;
}

static const rf_attention_figure *figure_of(RfPlotView *plot)
{
    return rf_plot_view_get_figure(plot)->data;
}

/* The figure draws the snapshot's band, all the sample's queries pooled. */
static gboolean whole_shown(gpointer data)
{
    gpointer *args = data;
    const rf_probe_value *p = pooled(args[0], LOCAL);
    const rf_attention_figure *f = figure_of(args[1]);
    return p != NULL && p->window.r0 == 0 && p->window.r1 >= TOKENS && f->layout == RF_ATTENTION_BAND &&
           f->map == p->data && f->rows == p->shape.dim[1] && f->rows < TOKENS;
}

/* The figure draws a window of queries smaller than the sample, one row a token. */
static gboolean exact_shown(gpointer data)
{
    gpointer *args = data;
    const rf_probe_value *p = pooled(args[0], LOCAL);
    const rf_attention_figure *f = figure_of(args[1]);
    return p != NULL && p->window.r1 - p->window.r0 < 2000 && p->shape.dim[1] == p->window.r1 - p->window.r0 &&
           f->layout == RF_ATTENTION_BAND && f->map == p->data && f->rows == p->shape.dim[1];
}

static void check(RfWindow *win, const char *rangefinder, const char *dir)
{
    RfSession *s = rf_window_get_session(win);
    GtkWidget *page = gtk_stack_get_child_by_name(rf_window_get_stack(win), "attention");
    RfPlotView *plot = rf_view_get_plot(page);
    gpointer args[2] = {s, plot};
    /* 1 */
    if (!tap_ok(spin_until(whole_shown, args, 120.0), "the Attention view shows the LS band pooled"))
        return;
    const rf_attention_figure *f = figure_of(plot);
    const rf_probe_value *p = pooled(s, LOCAL), *g = pooled(s, GLOBAL);
    int cells = f->rows, height = gtk_widget_get_height(GTK_WIDGET(plot));
    int64_t end = p->window.r1;
    tap_ok(cells >= 64 && cells <= height && f->cols == 16 && g != NULL && g->shape.dim[1] == cells &&
               g->shape.dim[2] == 8 && f->n_globals == 8,
           "the snapshot holds %d rows of the 16-column band and 8 globals for %lld queries (the plot %d pixels "
           "high)", cells, (long long)end, height);
    rf_memory_plan plan = {0};
    g_autoptr(GError) error = NULL;
    size_t probe = (size_t)(rf_shape_numel(p->shape) + (g != NULL ? rf_shape_numel(g->shape) : 0)) * sizeof(float);
    gboolean planned = rf_session_plan(s, 0, &plan, NULL, &error);
    tap_ok(planned && probe * 100 < plan.total, "the probe's %zu bytes are under 1 %% of the run's planned %zu (%s)",
           probe, plan.total, error != NULL ? error->message : "planned");
    tap_ok(f->row_at.lo == 0 && f->row_at.hi == end && f->row_at.cells == cells,
           "the query axis counts tokens 0-%lld, not the %d rows", (long long)end - 1, cells);
    int64_t span = (end + cells - 1) / cells;
    g_autofree char *words = g_strdup_printf("max over up to %lld queries", (long long)span);
    tap_ok(strstr(f->title, words) != NULL, "the title says what a row covers: \"%s\" (%s)", words, f->title);
    view_screenshots(win, "ls-million");

    /* 2 */
    g_autofree char *model = save_model_for_cli(win, dir);
    g_autofree char *size = g_strdup_printf("%dx16", cells);
    g_autofree char *rows = g_strdup_printf("0:%lld", (long long)end);
    const char *pooled_args[] = {"--pool", "max", "--cells", size, "--rows", rows, NULL};
    gsize n = 0;
    g_autofree float *want = inspect_train_sample(rangefinder, model, dir, LOCAL, pooled_args, &n);
    double diff = largest_difference_of(f->map, (gsize)f->rows * f->cols, want, n);
    tap_ok(diff == 0, "the rows drawn are `inspect --pool max --cells %s`'s (largest difference %.3g)", size, diff);
    gsize whole_n = 0;
    g_autofree float *whole = inspect_train_sample(rangefinder, model, dir, LOCAL, NULL, &whole_n);
    diff = against_row_maxima(f->map, f->rows, f->cols, &f->row_at, whole, whole_n);
    tap_ok(diff == 0, "each row is the maximum of its queries' exact band (the CLI's %zu floats; largest difference "
           "%.3g)", whole_n, diff);

    /* 3 */
    check_hover_names_tokens(plot, gtk_widget_get_width(GTK_WIDGET(plot)) / 3, height / 3, 0, 5, span, "row");

    /* 4 */
    for (int i = 0; i < 37; i++)   /* 1.25^-37 of the axis: about 270 tokens */
        rf_plot_view_key(plot, GDK_KEY_plus, 0);
    if (!tap_ok(spin_until(exact_shown, args, 120.0), "zooming in asks for the visible queries: one row a token"))
        return;
    spin_for(0.3);
    f = figure_of(plot);
    p = pooled(s, LOCAL);
    g_autofree char *named = g_strdup_printf("queries %lld-%lld", (long long)p->window.r0,
                                             (long long)p->window.r1 - 1);
    tap_ok(f->rows < 600 && strstr(f->title, named) != NULL && strstr(f->title, " over ") == NULL,
           "the title names the %d queries shown and no pooling (%s)", f->rows, f->title);
    diff = against_row_maxima(f->map, f->rows, f->cols, &f->row_at, whole, whole_n);
    tap_ok(diff == 0, "their rows are the exact band of queries %lld-%lld (largest difference %.3g)",
           (long long)p->window.r0, (long long)p->window.r1 - 1, diff);
    rf_plot_view_key(plot, GDK_KEY_0, 0);
    tap_ok(spin_until(whole_shown, args, 120.0), "0 goes back to all %lld queries, pooled", (long long)end);
}

static void show_attention(RfWindow *win)
{
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), "attention");
}

int main(int argc, char **argv)
{
    return trained_run_main(argc, argv, "the LS band of a million tokens", million_config, "1,048,576-token",
                            show_attention, check);
}
