/* The Latent view over a long sample, under Xvfb with the real
 * application: a one-layer BLRP of width 8 (segments of 16, a latent of 16:
 * 1,024 segments, more than the norms strip has pixels) trains one step on
 * long_match samples of 16,384 tokens (as long as keeps the test under a
 * minute in the sanitised build: a BLRP step of a million tokens takes
 * minutes on 2 cores; tests/test_latent_probe_bytes.c sizes the probe at a
 * million), and on the Latent view with Θ_SELF 1 and Whole sequence chosen
 *   1. the token states arrive pooled along the sequence to about the
 *      plot's height, max by default, every dimension kept: the whole probe
 *      (these rows, the norms strip's cells and the chosen segment's
 *      latents) is under 1 % of the run's planned bytes, the rows count
 *      tokens and the title says how many tokens a row covers;
 *   2. the rows drawn are those of `rangefinder inspect --pool max` with the
 *      same cells on the saved model (another process), and the maximum of
 *      the exact states (the CLI's whole tap) over each row's tokens;
 *   3. hover names a row's token range;
 *   4. zooming in asks for the visible tokens: a few hundred come back one
 *      row a token, the exact states, the title naming them; 0 goes back to
 *      all the tokens, pooled;
 * then with the latent (Θ_L) chosen
 *   5. the norms strip arrives pooled along the segments (max): fewer cells
 *      than segments, its title saying how many segments a cell holds, each
 *      cell the largest of the per-segment norms of `inspect --probe
 *      blrp.latent.fwd.norms` (another process) over its segments;
 *   6. the snapshot holds the chosen segment's latent whole and no other
 *      segment's, before and after the slider moves to another segment,
 *      and the block drawn is that segment's;
 *   7. zooming in across asks for the visible segments: a few come back a
 *      point a segment, the exact norms, and the point of a segment among
 *      them is the norm of its own tap blrp.latent.fwd.<i>, watched whole
 *      once the slider chooses it; 0 goes back to all the segments.
 * argv[1]: the rangefinder executable. RF_SCREENSHOT_DIR set: the window at
 * 1024 x 600 and 1920 x 1080 (latent-long-WxH.png, latent-norms-long-WxH.png). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../ui/figures/latent_figure.h"
#include "../ui/view.h"
#include "trained_view.h"

#define TOKENS 16384
#define DIM 8
#define SEGMENT 16
#define LATENT 16
#define SEGMENTS (TOKENS / SEGMENT)
#define TAP "blrp.self.0.out"
#define NORMS "blrp.latent.fwd.norms"
static const char long_config[] = "[data]\ntask = long_match\nmax_len = 16384\ntrain_size = 2\nval_size = 1\n"
                                  "test_size = 1\nbatch = 1\n"
                                  "[model]\nencoder = blrp\nlayers = 1\ndim = 8\nheads = 1\nff = 16\n"
                                  "segment = 16\nlatent = 16\n"
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

/* ---- the norms strip over the segments (5-7) ---- */

static const rf_probe_value *norms_of(RfSession *s)
{
    const rf_probe_value *p = rf_session_find_probe(s, NORMS);
    return p != NULL && p->filled && p->pooled && p->shape.ndim == 2 && p->shape.dim[1] == 1 ? p : NULL;
}

/* The figure's forward-norm series holds the snapshot's cells. */
static gboolean strip_drawn(const rf_latent_figure *f, const rf_probe_value *p)
{
    const rf_matrix_positions *at = &f->strip.at[RF_LATENT_NORM_FORWARD];
    return f->strip.cells[RF_LATENT_NORM_FORWARD] != NULL && at->lo == p->window.r0 && at->hi == p->window.r1 &&
           at->cells == p->shape.dim[0] &&
           memcmp(f->strip.cells[RF_LATENT_NORM_FORWARD], p->data, (size_t)at->cells * sizeof(float)) == 0;
}

/* All the segments, drawn. */
static gboolean strip_all(gpointer data)
{
    gpointer *args = data;
    const rf_probe_value *p = norms_of(args[0]);
    return p != NULL && p->window.r0 == 0 && p->window.r1 == SEGMENTS && strip_drawn(figure_of(args[1]), p);
}

/* All the segments pooled: fewer cells than segments, drawn. */
static gboolean strip_pooled(gpointer data)
{
    gpointer *args = data;
    return strip_all(data) && norms_of(args[0])->shape.dim[0] < SEGMENTS;
}

/* A zoom's few segments, a point each, drawn. */
static gboolean strip_exact(gpointer data)
{
    gpointer *args = data;
    const rf_probe_value *p = norms_of(args[0]);
    return p != NULL && p->window.r1 - p->window.r0 < 100 && p->shape.dim[0] == p->window.r1 - p->window.r0 &&
           strip_drawn(figure_of(args[1]), p);
}

/* The snapshot holds segment `chosen`'s forward latent whole, no other's. */
static gboolean only_block(RfSession *s, int chosen, int *others)
{
    *others = 0;
    for (int seg = 1; seg <= SEGMENTS; seg++) {
        char name[RF_NAME_LEN];
        g_snprintf(name, sizeof name, "blrp.latent.fwd.%d", seg);
        *others += seg != chosen && rf_session_find_probe(s, name) != NULL;
    }
    char name[RF_NAME_LEN];
    g_snprintf(name, sizeof name, "blrp.latent.fwd.%d", chosen);
    const rf_probe_value *p = rf_session_find_probe(s, name);
    return p != NULL && p->filled && !p->pooled && p->shape.dim[0] == LATENT && *others == 0;
}

static int wanted_segment;
static gboolean block_arrived(gpointer data)
{
    gpointer *args = data;
    const rf_latent_figure *f = figure_of(args[1]);
    char name[RF_NAME_LEN];
    g_snprintf(name, sizeof name, "blrp.latent.fwd.%d", wanted_segment);
    const rf_probe_value *p = rf_session_find_probe(args[0], name);
    return p != NULL && p->filled && f->segment == wanted_segment && f->heat.data != NULL &&
           f->heat.rows == LATENT && memcmp(f->heat.data, p->data, (size_t)LATENT * DIM * sizeof(float)) == 0;
}

/* The strip's forward cells against the exact per-segment norms (n of
 * them), pooled here the plain way: per cell the largest of its segments'. */
static double against_segment_maxima(const rf_latent_figure *f, const float *exact, gsize n)
{
    const float *cells = f->strip.cells[RF_LATENT_NORM_FORWARD];
    const rf_matrix_positions *at = &f->strip.at[RF_LATENT_NORM_FORWARD];
    if (cells == NULL || exact == NULL || n != SEGMENTS)
        return INFINITY;
    double worst = 0;
    for (int i = 0; i < at->cells; i++) {
        float m = -INFINITY;
        for (int64_t r = rf_pool_edge(at->lo, at->hi, at->cells, i); r < rf_pool_edge(at->lo, at->hi, at->cells, i + 1);
             r++)
            m = fmaxf(m, exact[r]);
        worst = fmax(worst, fabs(cells[i] - m));
    }
    return worst;
}

/* page: the Latent view's; layer: its Layer drop-down. */
static void check_strip(RfWindow *win, GtkWidget *page, GtkDropDown *layer, const char *rangefinder, const char *dir,
                        const char *model)
{
    RfSession *s = rf_window_get_session(win);
    RfPlotView *plot = rf_view_get_plot(page);
    gpointer args[2] = {s, plot};
    GtkRange *slider = GTK_RANGE(find_by_tooltip(page, "Which segment to show"));
    gtk_drop_down_set_selected(layer, 0);   /* Θ_L (latent) */
    /* 5 */
    if (!tap_ok(spin_until(strip_pooled, args, 120.0), "the norms strip shows the %d segments pooled", SEGMENTS))
        return;
    const rf_latent_figure *f = figure_of(plot);
    const rf_matrix_positions *at = &f->strip.at[RF_LATENT_NORM_FORWARD];
    int cells = at->cells, width = gtk_widget_get_width(GTK_WIDGET(plot));
    tap_ok(cells >= 64 && cells < width && f->strip.cells[RF_LATENT_NORM_BACKWARD] != NULL &&
               f->strip.cells[RF_LATENT_GRAD_NORM_FORWARD] != NULL,
           "the snapshot holds %d cells a series for %d segments (the plot %d pixels wide), both passes and their "
           "gradients", cells, SEGMENTS, width);
    char title[200];
    rf_latent_figure_strip_title(f, title, sizeof title);
    g_autofree char *words = g_strdup_printf("max over %s%d segments a cell", SEGMENTS % cells ? "up to " : "",
                                             (SEGMENTS + cells - 1) / cells);
    tap_ok(strstr(title, words) != NULL, "the strip's title says what a cell holds: \"%s\" (%s)", words, title);
    view_screenshots(win, "latent-norms-long");
    gsize n = 0;
    g_autofree float *norms = inspect_train_sample(rangefinder, model, dir, NORMS, NULL, &n);
    double diff = against_segment_maxima(figure_of(plot), norms, n);
    tap_ok(diff == 0, "each cell is the largest of its segments' norms from `inspect --probe %s` (%zu floats; "
           "largest difference %.3g)", NORMS, n, diff);

    /* 6 */
    int chosen = (int)gtk_range_get_value(slider), others = 0;
    tap_ok(only_block(s, chosen, &others), "the snapshot holds segment %d's latent whole and no other segment's "
           "(%d others)", chosen, others);
    wanted_segment = 700;
    gtk_range_set_value(slider, wanted_segment);
    gboolean arrived = spin_until(block_arrived, args, 120.0);
    tap_ok(arrived && only_block(s, wanted_segment, &others), "the slider at segment %d: its block is watched and "
           "drawn, no other segment's (%d others)", wanted_segment, others);

    /* 7 */
    for (int i = 0; i < 20; i++)   /* 1.25^-20 of the axis: about 12 segments */
        rf_plot_view_key(plot, GDK_KEY_plus, 0);
    if (!tap_ok(spin_until(strip_exact, args, 120.0), "zooming in across asks for the visible segments, a point each"))
        return;
    spin_for(0.3);
    const rf_probe_value *p = norms_of(s);
    f = figure_of(plot);
    double exact = norms != NULL ? 0 : INFINITY;
    for (int64_t r = p->window.r0; r < p->window.r1 && norms != NULL; r++)
        exact = fmax(exact, fabs(p->data[r - p->window.r0] - norms[r]));
    rf_latent_figure_strip_title(f, title, sizeof title);
    tap_ok(exact == 0 && strstr(title, "segments a cell") == NULL,
           "segments %lld-%lld come back a point each, the exact norms (largest difference %.3g; '%s')",
           (long long)p->window.r0 + 1, (long long)p->window.r1, exact, title);
    /* a segment among them: its own tap's norm is its point */
    int64_t r0 = p->window.r0, r1 = p->window.r1;
    wanted_segment = (int)((r0 + r1) / 2) + 1;
    gtk_range_set_value(slider, wanted_segment);
    arrived = spin_until(block_arrived, args, 120.0) && spin_until(strip_exact, args, 120.0);
    p = norms_of(s);
    char name[RF_NAME_LEN];
    g_snprintf(name, sizeof name, "blrp.latent.fwd.%d", wanted_segment);
    const rf_probe_value *block = rf_session_find_probe(s, name);
    double sum = 0;
    for (int e = 0; arrived && e < LATENT * DIM; e++)
        sum += (double)block->data[e] * block->data[e];
    /* the series rounds its double sum to float once */
    double err = arrived && p->window.r0 == r0 && p->window.r1 == r1
                     ? fabs(p->data[wanted_segment - 1 - r0] - sqrt(sum)) / (FLT_EPSILON * sqrt(sum) + FLT_MIN)
                     : INFINITY;
    tap_ok(err <= 1, "segment %d's point is the norm of its own tap %s (off by %.3g of a float's rounding)",
           wanted_segment, name, err);
    rf_plot_view_key(plot, GDK_KEY_0, 0);
    tap_ok(spin_until(strip_all, args, 120.0), "0 goes back to all %d segments", SEGMENTS);
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
    tap_ok(planned && probe * 100 < plan.total, "the probe's %zu bytes (the rows, the strip's cells, a segment's latents) "
           "are under 1 %% of the run's planned %zu (%s)", probe, plan.total, error != NULL ? error->message : "planned");
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
    gtk_toggle_button_set_active(sequence, FALSE);
    check_strip(win, page, layer, rangefinder, dir, model);
}

static void show_latent(RfWindow *win)
{
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), "latent");
}

int main(int argc, char **argv)
{
    return trained_run_main(argc, argv, "the Latent view over 16,384 tokens and 1,024 segments", long_config,
                            "16,384-token", show_latent, check);
}
