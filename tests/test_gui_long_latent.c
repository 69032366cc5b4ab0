/* The Latent view's Θ_SELF token states over a long sample, under Xvfb with
 * the real application: a one-layer BLRP of width 8 (segments of 256, a
 * latent of 16) trains one step on long_match samples of 16,384 tokens (as
 * long as keeps the test under a minute in the sanitised build: a BLRP step
 * of a million tokens takes minutes on 2 cores), and on the Latent view
 * with Θ_SELF 1 and Whole sequence chosen
 *   1. the token states arrive pooled along the sequence to about the
 *      plot's height, max by default, every dimension kept: the whole probe
 *      (these rows and the latents of every segment) is under 1 % of the
 *      run's planned bytes, the rows count tokens and the title says how
 *      many tokens a row covers;
 *   2. the rows drawn are those of `rangefinder inspect --pool max` with the
 *      same cells on the saved model (another process), and the maximum of
 *      the exact states (the CLI's whole tap) over each row's tokens;
 *   3. hover names a row's token range;
 *   4. zooming in asks for the visible tokens: a few hundred come back one
 *      row a token, the exact states, the title naming them; 0 goes back to
 *      all the tokens, pooled.
 * argv[1]: the rangefinder executable. RF_SCREENSHOT_DIR set: the window at
 * 1024 x 600 and 1920 x 1080 (latent-long-WxH.png). */
#include <stdio.h>
#include <string.h>

#include "../ui/figures/latent_figure.h"
#include "../ui/view.h"
#include "trained_view.h"

#define TOKENS 16384
#define DIM 8
#define TAP "blrp.self.0.out"
static const char long_config[] = "[data]\ntask = long_match\nmax_len = 16384\ntrain_size = 2\nval_size = 1\n"
                                  "test_size = 1\nbatch = 1\n"
                                  "[model]\nencoder = blrp\nlayers = 1\ndim = 8\nheads = 1\nff = 16\n"
                                  "segment = 256\nlatent = 16\n"
                                  "[train]\nsteps = 1\neval_every = 1\nlog_every = 1\ncheckpoint_every = 0\n"
                                  "threads = 2\n";

static const rf_probe_value *pooled(RfSession *s)
{
    const rf_probe_value *p = rf_session_find_probe(s, TAP);
    return p != NULL && p->filled && p->pooled && p->shape.ndim == 2 ? p : NULL;
}

static const rf_latent_figure *figure_of(RfPlotView *plot)
{
    return rf_plot_view_get_figure(plot)->data;
}

/* The figure's sequence holds the snapshot's rows. */
static gboolean drawn(const rf_latent_figure *f, const rf_probe_value *p)
{
    return f->sequence != NULL && f->sequence_rows == p->shape.dim[0] && f->d == DIM &&
           memcmp(f->sequence, p->data, (size_t)f->sequence_rows * DIM * sizeof(float)) == 0;
}

/* The figure draws all the sample's tokens pooled. */
static gboolean whole_shown(gpointer data)
{
    gpointer *args = data;
    const rf_probe_value *p = pooled(args[0]);
    const rf_latent_figure *f = figure_of(args[1]);
    return p != NULL && p->window.r0 == 0 && p->window.r1 == TOKENS && p->shape.dim[0] < TOKENS && drawn(f, p);
}

/* The figure draws a window of tokens smaller than the sample, one row a token. */
static gboolean exact_shown(gpointer data)
{
    gpointer *args = data;
    const rf_probe_value *p = pooled(args[0]);
    const rf_latent_figure *f = figure_of(args[1]);
    return p != NULL && p->window.r1 - p->window.r0 < 1000 && p->shape.dim[0] == p->window.r1 - p->window.r0 &&
           drawn(f, p);
}

static void check(RfWindow *win, const char *rangefinder, const char *dir)
{
    RfSession *s = rf_window_get_session(win);
    GtkWidget *page = gtk_stack_get_child_by_name(rf_window_get_stack(win), "latent");
    RfPlotView *plot = rf_view_get_plot(page);
    gpointer args[2] = {s, plot};
    GtkDropDown *layer = GTK_DROP_DOWN(find_by_tooltip(page, "BLRP's depth at the chosen segment"));
    GtkToggleButton *sequence = GTK_TOGGLE_BUTTON(find_by_tooltip(page, "Θ_SELF layers: the token states"));
    if (!tap_ok(layer != NULL && sequence != NULL, "the Latent view has a Layer drop-down and a Whole sequence toggle"))
        return;
    gtk_drop_down_set_selected(layer, 1);   /* Θ_SELF 1 */
    gtk_toggle_button_set_active(sequence, TRUE);
    /* 1 */
    if (!tap_ok(spin_until(whole_shown, args, 120.0), "the Latent view shows Θ_SELF 1 over the sequence, pooled"))
        return;
    const rf_latent_figure *f = figure_of(plot);
    int cells = f->sequence_rows, height = gtk_widget_get_height(GTK_WIDGET(plot));
    tap_ok(cells >= 64 && cells <= height, "the snapshot holds %d rows of %d dimensions for %d tokens (the plot %d "
           "pixels high)", cells, DIM, TOKENS, height);
    rf_memory_plan plan = {0};
    g_autoptr(GError) error = NULL;
    size_t probe = rf_probe_set_bytes(rf_session_get_probes(s));
    gboolean planned = rf_session_plan(s, 0, &plan, NULL, &error);
    tap_ok(planned && probe * 100 < plan.total, "the probe's %zu bytes (the rows and every segment's latents) are "
           "under 1 %% of the run's planned %zu (%s)", probe, plan.total, error != NULL ? error->message : "planned");
    tap_ok(f->sequence_at.lo == 0 && f->sequence_at.hi == TOKENS && f->sequence_at.cells == cells,
           "the token axis counts tokens 0-%d, not the %d rows", TOKENS - 1, cells);
    int span = (TOKENS + cells - 1) / cells;
    g_autofree char *words = g_strdup_printf("max over %s%d tokens a row", TOKENS % cells ? "up to " : "", span);
    tap_ok(strstr(f->title, words) != NULL, "the title says what a row covers: \"%s\" (%s)", words, f->title);
    view_screenshots(win, "latent-long");

    /* 2 */
    g_autofree char *model = save_model_for_cli(win, dir);
    g_autofree char *size = g_strdup_printf("%dx%d", cells, DIM);
    g_autofree char *rows = g_strdup_printf("0:%d", TOKENS);
    const char *pooled_args[] = {"--pool", "max", "--cells", size, "--rows", rows, NULL};
    gsize n = 0;
    g_autofree float *want = inspect_train_sample(rangefinder, model, dir, TAP, pooled_args, &n);
    double diff = largest_difference_of(f->sequence, (gsize)f->sequence_rows * DIM, want, n);
    tap_ok(diff == 0, "the rows drawn are `inspect --pool max --cells %s`'s (largest difference %.3g)", size, diff);
    gsize whole_n = 0;
    g_autofree float *whole = inspect_train_sample(rangefinder, model, dir, TAP, NULL, &whole_n);
    diff = against_row_maxima(f->sequence, f->sequence_rows, DIM, &f->sequence_at, whole, whole_n);
    tap_ok(diff == 0, "each row is the maximum of its tokens' exact states (the CLI's %zu floats; largest difference "
           "%.3g)", whole_n, diff);

    /* 3 */
    check_hover_names_tokens(plot, gtk_widget_get_width(GTK_WIDGET(plot)) / 3, 40, 0, 5, span, "row");

    /* 4 */
    for (int i = 0; i < 20; i++)   /* 1.25^-20 of the axis: about 190 tokens */
        rf_plot_view_key(plot, GDK_KEY_plus, 0);
    if (!tap_ok(spin_until(exact_shown, args, 120.0), "zooming in asks for the visible tokens: one row a token"))
        return;
    spin_for(0.3);
    f = figure_of(plot);
    const rf_probe_value *p = pooled(s);
    g_autofree char *named = g_strdup_printf("tokens %lld-%lld, a row a token", (long long)p->window.r0,
                                             (long long)p->window.r1 - 1);
    tap_ok(strstr(f->title, named) != NULL, "the title names the %d tokens shown (%s)", f->sequence_rows, f->title);
    diff = against_row_maxima(f->sequence, f->sequence_rows, DIM, &f->sequence_at, whole, whole_n);
    tap_ok(diff == 0, "their rows are the exact states of tokens %lld-%lld (largest difference %.3g)",
           (long long)p->window.r0, (long long)p->window.r1 - 1, diff);
    rf_plot_view_key(plot, GDK_KEY_0, 0);
    tap_ok(spin_until(whole_shown, args, 120.0), "0 goes back to all %d tokens, pooled", TOKENS);
}

static void show_latent(RfWindow *win)
{
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), "latent");
}

int main(int argc, char **argv)
{
    return trained_run_main(argc, argv, "the Latent view over 16,384 tokens", long_config, "16,384-token", show_latent,
                            check);
}
