/* The TaLK view of a million tokens, under Xvfb with the real application:
 * a one-layer TaLK model of width 8 trains one step on long_match samples
 * of 1,048,576 tokens, and on the TaLK view
 *   1. the bounds the view watches arrive pooled by span (core/probe.h) to
 *      about the plot's width: the snapshot holds a few thousand floats, under
 *      1 % of the run's planned bytes, and the title says how many tokens a
 *      column covers;
 *   2. the columns drawn are those of `rangefinder inspect --pool span`
 *      with the same cells on the saved model (another process), and the
 *      least left and greatest right offsets of the exact bounds (the
 *      CLI's whole tap) over each column's tokens;
 *   3. hover names a column's token range;
 *   4. zooming in asks for the visible tokens: a few hundred come back one
 *      column a token, the exact bounds, the title naming them; 0 goes back
 *      to all the tokens, pooled.
 * argv[1]: the rangefinder executable. RF_SCREENSHOT_DIR set: the window at
 * 1024 x 600 and 1920 x 1080 (talk-million-WxH.png). */
#include <stdio.h>
#include <string.h>

#include "../ui/figures/talk_figure.h"
#include "../ui/view.h"
#include "trained_view.h"

#define TOKENS 1048576
#define TAP "layer0.talk.bounds"
static const char million_config[] = "[data]\ntask = long_match\nmax_len = 1048576\ntrain_size = 2\nval_size = 1\n"
                                     "test_size = 1\nbatch = 1\n"
                                     "[model]\nencoder = talk\nlayers = 1\ndim = 8\nheads = 1\nff = 16\n"
                                     "[train]\nsteps = 1\neval_every = 1\nlog_every = 1\ncheckpoint_every = 0\n"
                                     "threads = 2\n";

static const rf_probe_value *pooled_bounds(RfSession *s)
{
    const rf_probe_value *p = rf_session_find_probe(s, TAP);
    return p != NULL && p->filled && p->pooled && p->window.reduce == RF_POOL_SPAN ? p : NULL;
}

static const rf_talk_figure *figure_of(RfPlotView *plot)
{
    return rf_plot_view_get_figure(plot)->data;
}

/* The figure shows the snapshot's columns, all the sample's tokens pooled. */
static gboolean whole_shown(gpointer data)
{
    gpointer *args = data;
    const rf_probe_value *p = pooled_bounds(args[0]);
    const rf_talk_figure *f = figure_of(args[1]);
    return p != NULL && p->window.r0 == 0 && p->window.r1 >= TOKENS && f->cells == p->shape.dim[0] &&
           f->cells < TOKENS && f->first == 0 && f->last == p->window.r1;
}

/* The figure shows a window smaller than the sample, one column a token. */
static gboolean exact_shown(gpointer data)
{
    gpointer *args = data;
    const rf_probe_value *p = pooled_bounds(args[0]);
    const rf_talk_figure *f = figure_of(args[1]);
    return p != NULL && p->window.r1 - p->window.r0 < 2000 && p->shape.dim[0] == p->window.r1 - p->window.r0 &&
           f->first == p->window.r0 && f->last == p->window.r1 && rf_talk_figure_exact(f);
}

/* The figure's columns against [cells, 2] relative offsets: the largest difference. */
static double against_spans(const rf_talk_figure *f, const float *want, gsize n)
{
    if (want == NULL || n != (gsize)f->cells * 2)
        return INFINITY;
    double worst = 0;
    for (int i = 0; i < f->cells; i++)
        worst = fmax(worst, fmax(fabs(f->left[i] - want[2 * i]), fabs(f->right[i] - want[2 * i + 1])));
    return worst;
}

/* The figure's columns against the exact absolute bounds [tokens, 2],
 * reduced here the plain way: per column the least a^l - t and the
 * greatest a^r - t of its tokens. */
static double against_exact(const rf_talk_figure *f, const float *bounds, gsize n)
{
    if (bounds == NULL || n < (gsize)f->last * 2)
        return INFINITY;
    double worst = 0;
    for (int i = 0; i < f->cells; i++) {
        int64_t t0, t1;
        rf_talk_figure_column(f, i, &t0, &t1);
        double lo = INFINITY, hi = -INFINITY;
        for (int64_t t = t0; t < t1; t++) {
            lo = fmin(lo, bounds[2 * t] - (double)t);
            hi = fmax(hi, bounds[2 * t + 1] - (double)t);
        }
        worst = fmax(worst, fmax(fabs(f->left[i] - lo), fabs(f->right[i] - hi)));
    }
    return worst;
}

static void check(RfWindow *win, const char *rangefinder, const char *dir)
{
    RfSession *s = rf_window_get_session(win);
    RfPlotView *plot = plot_of(win, "talk");
    gpointer args[2] = {s, plot};
    /* 1 */
    if (!tap_ok(spin_until(whole_shown, args, 120.0), "the TaLK view shows the bounds pooled by span"))
        return;
    const rf_talk_figure *f = figure_of(plot);
    const rf_probe_value *p = pooled_bounds(s);
    int cells = f->cells;
    int64_t end = p->window.r1;
    int width = gtk_widget_get_width(GTK_WIDGET(plot));
    tap_ok(cells >= 64 && cells <= width && p->shape.ndim == 2 && p->shape.dim[1] == 2,
           "the snapshot holds %d columns of 2 bounds for %lld tokens (the plot %d pixels wide)", cells,
           (long long)end, width);
    rf_memory_plan plan = {0};
    g_autoptr(GError) error = NULL;
    size_t probe = (size_t)rf_shape_numel(p->shape) * sizeof(float);
    gboolean planned = rf_session_plan(s, 0, &plan, NULL, &error);
    tap_ok(planned && probe * 100 < plan.total, "the probe's %zu bytes are under 1 %% of the run's planned %zu (%s)",
           probe, plan.total, error != NULL ? error->message : "planned");
    int64_t span = (end + cells - 1) / cells;
    g_autofree char *words = g_strdup_printf("a column up to %lld tokens", (long long)span);
    tap_ok(strstr(f->title, words) != NULL, "the title says what a column covers: \"%s\" (%s)", words, f->title);
    view_screenshots(win, "talk-million");

    /* 2 */
    g_autofree char *model = save_model_for_cli(win, dir);
    g_autofree char *size = g_strdup_printf("%dx2", cells);
    g_autofree char *rows = g_strdup_printf("0:%lld", (long long)end);
    const char *pooled[] = {"--pool", "span", "--cells", size, "--rows", rows, NULL};
    gsize n = 0;
    g_autofree float *want = inspect_train_sample(rangefinder, model, dir, TAP, pooled, &n);
    double diff = against_spans(f, want, n);
    tap_ok(diff == 0, "the columns drawn are `inspect --pool span --cells %s`'s (largest difference %.3g)", size,
           diff);
    gsize whole_n = 0;
    g_autofree float *whole = inspect_train_sample(rangefinder, model, dir, TAP, NULL, &whole_n);
    diff = against_exact(f, whole, whole_n);
    tap_ok(diff == 0, "each column is the widest window of its tokens' exact bounds (the CLI's %zu floats; largest "
           "difference %.3g)", whole_n, diff);

    /* 3 */
    check_hover_names_tokens(plot, width / 3, gtk_widget_get_height(GTK_WIDGET(plot)) / 2, 5, 0, span, "column");

    /* 4 */
    for (int i = 0; i < 37; i++)   /* 1.25^-37 of the axis: about 270 tokens */
        rf_plot_view_key(plot, GDK_KEY_plus, 0);
    if (!tap_ok(spin_until(exact_shown, args, 120.0), "zooming in asks for the visible tokens: one column a token"))
        return;
    spin_for(0.3);
    f = figure_of(plot);
    g_autofree char *named = g_strdup_printf("tokens %lld-%lld, a column a token", (long long)f->first,
                                             (long long)f->last - 1);
    tap_ok(f->cells < 600 && strstr(f->title, named) != NULL, "the title names the %d tokens shown (%s)", f->cells,
           f->title);
    diff = against_exact(f, whole, whole_n);
    tap_ok(diff == 0, "their columns are the exact bounds of tokens %lld-%lld (largest difference %.3g)",
           (long long)f->first, (long long)f->last - 1, diff);
    rf_plot_view_key(plot, GDK_KEY_0, 0);
    tap_ok(spin_until(whole_shown, args, 120.0), "0 goes back to all %lld tokens, pooled", (long long)end);
}

static void show_talk(RfWindow *win)
{
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), "talk");
}

int main(int argc, char **argv)
{
    return trained_run_main(argc, argv, "the TaLK view of a million tokens", million_config, "1,048,576-token", show_talk, check);
}
