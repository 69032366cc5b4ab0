/* bench_gui: the workbench's speed benchmark (issue 5, "Speed"). The real
 * application at 1920x1080 (run it under Xvfb: bench/gui.sh) while a run of
 * N = 4096 tokens trains on one thread, all but one of two cores:
 *
 *  1. Throughput and UI latency: 30 timed steps (after 3 warm-up steps)
 *     with the Training view visible, then 30 with the Attention view
 *     visible (probe snapshots copied); meanwhile the intervals between
 *     frame-clock ticks and the lateness of a 16 ms timeout in the UI thread.
 *  2. Redraw time of every view with data of N = 4096 runs (full attention;
 *     BLRP for Latent, TaLK for TaLK), training still running:
 *       update  the view's handler of the signal its data arrives with;
 *       ready   from then until data the view prepares in a worker thread
 *               is in its figure (the Attention view's large maps; the
 *               main loop runs meanwhile, the old map stays on screen);
 *       first   the figure's draw into a 1920x1080 image surface once the
 *               data is in (heatmap pooling and other caches rebuilt,
 *               unless the worker already built them);
 *       redraw  the same draw again, same data (hover, expose);
 *       widget  the plot widget through GTK: queue_draw, snapshot, the
 *               window's GSK renderer to a texture, downloaded (so the
 *               renderer has finished);
 *       frame   a whole on-screen frame of the window after queue_draw on
 *               the plot (frame clock before-paint to after-paint).
 *
 * Usage: bench_gui [--redraw-only] CONFIG.ini RESULTS.txt [RUN_DIR...].
 * --redraw-only skips the throughput phase (for profiling the views). Each
 * RUN_DIR (a run folder, e.g. bench/runs/listops-*) is drawn beside the
 * training run in the Training figure, with the default
 * smoothing (issue 12: ten runs overlaid). CONFIG is the full-attention
 * config (gui.sh writes it; the BLRP and TaLK runs change model keys of
 * it); RESULTS receives "key = value" lines for gui.sh's throughput table.
 * The tables go to stdout.
 */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/blas_kernels.h"
#include "../ui/application.h"
#include "../ui/view.h"
#include "../ui/window.h"
#include "../tests/main_loop.h"

#define WIDTH 1920
#define HEIGHT 1080
#define REPS 20
#define WARMUP_STEPS 3
#define TIMED_STEPS 30
#define TIMEOUT_MS 16
#define LATENCY_ONLY_S 10.0   /* UI latency with the Latent and TaLK views */

static double now_ms(void)
{
    return (double)g_get_monotonic_time() / 1000.0;
}

/* --- statistics --- */

typedef struct summary {
    guint n;
    double median, p95, max;
} summary;

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static summary summarize(const GArray *values)
{
    summary s = {.n = values->len};
    if (values->len == 0)
        return s;
    double *v = g_memdup2(values->data, values->len * sizeof *v);
    qsort(v, values->len, sizeof *v, compare_double);
    guint n = values->len;
    s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    s.p95 = v[(guint)ceil(0.95 * n) - 1];
    s.max = v[n - 1];
    g_free(v);
    return s;
}

static GArray *samples_new(void)
{
    return g_array_new(FALSE, FALSE, sizeof(double));
}

static void add_sample(GArray *a, double v)
{
    g_array_append_val(a, v);
}

/* --- the main loop --- */

static gboolean run_running(gpointer s)
{
    return rf_session_get_state(s) == RF_RUN_RUNNING;
}

typedef struct step_goal {
    RfSession *session;
    int64_t step;
} step_goal;

static gboolean step_reached(gpointer data)
{
    step_goal *g = data;
    RfRunState st = rf_session_get_state(g->session);
    return rf_session_get_step(g->session) >= g->step || st == RF_RUN_FAILED || st == RF_RUN_STOPPED;
}

typedef struct probe_goal {
    RfSession *session;
    const char *name_part;
} probe_goal;

/* The latest probe snapshot holds a filled tap whose name contains name_part. */
static gboolean probe_arrived(gpointer data)
{
    probe_goal *g = data;
    const rf_probe_set *ps = rf_session_get_probes(g->session);
    for (int i = 0; ps != NULL && i < ps->count; i++)
        if (ps->values[i].filled && strstr(ps->values[i].name, g->name_part) != NULL)
            return TRUE;
    return FALSE;
}

/* --- UI-thread latency --- */

typedef struct latency_probe {
    GArray *tick_ms;    /* between frame-clock ticks (60 Hz: 16.7 ms when idle) */
    GArray *late_ms;    /* how late a 16 ms timeout fires */
    double last_tick, last_timeout;
    guint tick_id, timeout_id;
    GtkWidget *widget;
} latency_probe;

static gboolean on_tick(GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
    (void)widget;
    (void)clock;
    latency_probe *p = data;
    double t = now_ms();
    if (p->last_tick > 0)
        add_sample(p->tick_ms, t - p->last_tick);
    p->last_tick = t;
    return G_SOURCE_CONTINUE;
}

static gboolean on_timeout(gpointer data)
{
    latency_probe *p = data;
    double t = now_ms();
    /* GLib schedules the next call TIMEOUT_MS after this dispatch. */
    add_sample(p->late_ms, MAX(0.0, t - p->last_timeout - TIMEOUT_MS));
    p->last_timeout = t;
    return G_SOURCE_CONTINUE;
}

static void latency_start(latency_probe *p, GtkWidget *widget)
{
    *p = (latency_probe){.tick_ms = samples_new(), .late_ms = samples_new(), .widget = widget};
    p->last_timeout = now_ms();
    p->tick_id = gtk_widget_add_tick_callback(widget, on_tick, p, NULL);
    p->timeout_id = g_timeout_add(TIMEOUT_MS, on_timeout, p);
}

static void latency_stop(latency_probe *p)
{
    gtk_widget_remove_tick_callback(p->widget, p->tick_id);
    g_source_remove(p->timeout_id);
}

static void latency_free(latency_probe *p)
{
    g_array_unref(p->tick_ms);
    g_array_unref(p->late_ms);
}

typedef struct latency_row {
    char view[32];
    summary tick, late;
    double seconds;
} latency_row;

static latency_row latency_result(const latency_probe *p, const char *view, double seconds)
{
    latency_row r = {.tick = summarize(p->tick_ms), .late = summarize(p->late_ms), .seconds = seconds};
    g_strlcpy(r.view, view, sizeof r.view);
    return r;
}

/* --- the window --- */

static void show_page(RfWindow *win, const char *page)
{
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), page);
    spin_for(0.5);   /* mapped, watching, and a drain or two */
}

static RfPlotView *page_plot(RfWindow *win, const char *page)
{
    return rf_view_get_plot(gtk_stack_get_child_by_name(rf_window_get_stack(win), page));
}

/* The window's own size 1920x1080 (the default size also counts its frame). */
static void size_window(RfWindow *win)
{
    gtk_window_set_default_size(GTK_WINDOW(win), WIDTH, HEIGHT);
    spin_for(0.3);
    gtk_window_set_default_size(GTK_WINDOW(win), 2 * WIDTH - gtk_widget_get_width(GTK_WIDGET(win)),
                                2 * HEIGHT - gtk_widget_get_height(GTK_WIDGET(win)));
    spin_for(0.3);
}

static gboolean set_key(RfSession *s, const char *key, const char *value)
{
    g_autoptr(GError) error = NULL;
    if (rf_session_set_key(s, key, value, NULL, &error))
        return TRUE;
    fprintf(stderr, "bench_gui: %s = %s: %s\n", key, value, error->message);
    return FALSE;
}

static gboolean start_run(RfWindow *win)
{
    RfSession *s = rf_window_get_session(win);
    g_action_group_activate_action(G_ACTION_GROUP(win), "train", NULL);
    if (spin_until(run_running, s, 120.0))
        return TRUE;
    fprintf(stderr, "bench_gui: the run did not start (%s)\n",
            rf_session_get_error(s) != NULL ? rf_session_get_error(s) : "no error");
    return FALSE;
}

/* --- throughput --- */

typedef struct throughput {
    double step_median;    /* the engine's own step_seconds */
    double wall_per_step;  /* wall time over the timed steps: probes and all */
    int steps;
} throughput;

/* The train rows of steps (first, first + n] of the current run. */
static throughput throughput_of(RfSession *s, int64_t first, int n)
{
    throughput t = {0};
    rf_run_data *run = rf_session_get_current_run(s);
    g_autoptr(GArray) step_s = samples_new();
    double start = -1, end = -1;
    for (guint i = 0; run != NULL && i < run->rows->len; i++) {
        const rf_metrics *m = &g_array_index(run->rows, rf_metrics, i);
        if (m->split != RF_SPLIT_TRAIN)
            continue;
        if (m->step == first)
            start = m->seconds;
        if (m->step > first && m->step <= first + n) {
            add_sample(step_s, m->step_seconds);
            end = m->seconds;
        }
    }
    t.steps = (int)step_s->len;
    t.step_median = summarize(step_s).median;
    t.wall_per_step = start >= 0 && end > start && t.steps > 0 ? (end - start) / t.steps : 0;
    return t;
}

/* With `page` visible: warm up, then time TIMED_STEPS steps while watching
 * the UI thread's latency. */
static gboolean measure_training(RfWindow *win, const char *page, throughput *t, latency_row *lat)
{
    RfSession *s = rf_window_get_session(win);
    show_page(win, page);
    step_goal goal = {s, rf_session_get_step(s) + WARMUP_STEPS};
    if (!spin_until(step_reached, &goal, 600.0) || !run_running(s))
        return FALSE;
    int64_t first = rf_session_get_step(s);
    latency_probe probe;
    latency_start(&probe, GTK_WIDGET(win));
    double t0 = now_ms();
    goal.step = first + TIMED_STEPS;
    gboolean ok = spin_until(step_reached, &goal, 1200.0) && run_running(s);
    latency_stop(&probe);
    *lat = latency_result(&probe, page, (now_ms() - t0) / 1000.0);
    latency_free(&probe);
    spin_for(0.2);   /* the last rows */
    *t = throughput_of(s, first, TIMED_STEPS);
    return ok && t->steps == TIMED_STEPS;
}

/* The UI thread's latency for `seconds` with `page` visible. */
static latency_row measure_latency(RfWindow *win, const char *page, double seconds)
{
    latency_probe probe;
    latency_start(&probe, GTK_WIDGET(win));
    spin_for(seconds);
    latency_stop(&probe);
    latency_row r = latency_result(&probe, page, seconds);
    latency_free(&probe);
    return r;
}

/* --- redraw --- */

typedef struct frame_probe {
    gboolean armed;
    double before;
    GArray *ms;
} frame_probe;

static void on_before_paint(GdkFrameClock *clock, gpointer data)
{
    (void)clock;
    frame_probe *p = data;
    if (p->armed)
        p->before = now_ms();
}

static void on_after_paint(GdkFrameClock *clock, gpointer data)
{
    (void)clock;
    frame_probe *p = data;
    if (p->armed && p->before > 0) {
        add_sample(p->ms, now_ms() - p->before);
        p->armed = FALSE;
    }
}

static gboolean frame_done(gpointer data)
{
    return !((frame_probe *)data)->armed;
}

typedef struct redraw_row {
    char view[32];
    summary update, ready, first, redraw, widget, frame;
    double ink;   /* share of the 1920x1080 figure's pixels that are not background */
    int plot_w, plot_h;
} redraw_row;

static double draw_figure(const rf_figure *f, const rf_zoom *zoom, cairo_surface_t *surface)
{
    cairo_t *cr = cairo_create(surface);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    double t0 = now_ms();
    f->draw(f->data, cr, WIDTH, HEIGHT, zoom);
    cairo_surface_flush(surface);
    double t = now_ms() - t0;
    cairo_destroy(cr);
    return t;
}

static double ink_of(cairo_surface_t *surface)
{
    const unsigned char *pixels = cairo_image_surface_get_data(surface);
    int stride = cairo_image_surface_get_stride(surface);
    size_t drawn = 0;
    for (int y = 0; y < HEIGHT; y++) {
        const guint32 *row = (const guint32 *)(pixels + (size_t)y * stride);
        for (int x = 0; x < WIDTH; x++)
            drawn += (row[x] & 0xffffff) != 0xffffff;
    }
    return (double)drawn / ((double)WIDTH * HEIGHT);
}

/* The plot through GTK: a fresh snapshot of it, rendered by the window's
 * renderer and downloaded. */
static double render_widget(RfPlotView *plot, guchar *pixels)
{
    GtkWidget *w = GTK_WIDGET(plot), *parent = gtk_widget_get_parent(w);
    graphene_rect_t bounds;
    if (!gtk_widget_compute_bounds(w, parent, &bounds))
        return 0;
    double t0 = now_ms();
    gtk_widget_queue_draw(w);
    GtkSnapshot *snapshot = gtk_snapshot_new();
    gtk_widget_snapshot_child(parent, w, snapshot);
    GskRenderNode *node = gtk_snapshot_free_to_node(snapshot);
    if (node == NULL)
        return 0;
    GskRenderer *renderer = gtk_native_get_renderer(gtk_widget_get_native(w));
    GdkTexture *texture = gsk_renderer_render_texture(renderer, node, &bounds);
    gdk_texture_download(texture, pixels, (gsize)gdk_texture_get_width(texture) * 4);
    double t = now_ms() - t0;
    g_object_unref(texture);
    gsk_render_node_unref(node);
    return t;
}

static gboolean plot_ready(gpointer plot)
{
    return !rf_plot_view_get_pending(plot);
}

static redraw_row time_view(RfWindow *win, const char *page, const char *update_signal)
{
    RfSession *s = rf_window_get_session(win);
    redraw_row r = {0};
    g_strlcpy(r.view, page, sizeof r.view);
    show_page(win, page);
    RfPlotView *plot = page_plot(win, page);
    const rf_figure *f = rf_plot_view_get_figure(plot);
    rf_zoom zoom = rf_plot_view_get_zoom(plot);
    r.plot_w = gtk_widget_get_width(GTK_WIDGET(plot));
    r.plot_h = gtk_widget_get_height(GTK_WIDGET(plot));
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
    g_autoptr(GArray) update = samples_new(), ready = samples_new(), first = samples_new(), redraw = samples_new();
    g_autoptr(GArray) widget = samples_new(), frame = samples_new();

    /* Main-loop iterations only while prepared data is pending. One untimed
     * round first: data prepared in a worker thread is sized for the last
     * draw, which until then was the widget's, not this surface's. */
    for (int i = -1; i < REPS; i++) {
        double t0 = now_ms();
        g_signal_emit_by_name(s, update_signal);
        double t1 = now_ms();
        if (rf_plot_view_get_pending(plot))
            spin_until(plot_ready, plot, 10.0);
        double t2 = now_ms(), t_first = draw_figure(f, &zoom, surface);
        if (i < 0)
            continue;
        add_sample(update, t1 - t0);
        add_sample(ready, t2 - t1);
        add_sample(first, t_first);
    }
    for (int i = 0; i < REPS; i++)
        add_sample(redraw, draw_figure(f, &zoom, surface));
    r.ink = ink_of(surface);

    guchar *pixels = g_malloc((gsize)MAX(r.plot_w, 1) * MAX(r.plot_h, 1) * 4);
    render_widget(plot, pixels);   /* the caches at the widget's own size */
    for (int i = 0; i < REPS; i++)
        add_sample(widget, render_widget(plot, pixels));
    g_free(pixels);

    frame_probe probe = {.ms = frame};
    GdkFrameClock *clock = gtk_widget_get_frame_clock(GTK_WIDGET(win));
    gulong before = g_signal_connect(clock, "before-paint", G_CALLBACK(on_before_paint), &probe);
    gulong after = g_signal_connect(clock, "after-paint", G_CALLBACK(on_after_paint), &probe);
    for (int i = 0; i < REPS; i++) {
        probe.armed = TRUE;
        probe.before = 0;
        gtk_widget_queue_draw(GTK_WIDGET(plot));
        spin_until(frame_done, &probe, 2.0);
        probe.armed = FALSE;
        spin_for(0.02);
    }
    g_signal_handler_disconnect(clock, before);
    g_signal_handler_disconnect(clock, after);

    r.update = summarize(update);
    r.ready = summarize(ready);
    r.first = summarize(first);
    r.redraw = summarize(redraw);
    r.widget = summarize(widget);
    r.frame = summarize(frame);
    cairo_surface_destroy(surface);
    return r;
}

/* A new run of `encoder` (model keys as "key", "value", ... NULL) with
 * `page` visible, trained until a probe whose name contains `probe_part`
 * arrives; then that view is timed and the UI latency watched. */
static gboolean inspect_run(RfWindow *win, const char *const *keys, const char *page, const char *probe_part,
                            redraw_row *redraw, latency_row *lat)
{
    RfSession *s = rf_window_get_session(win);
    rf_session_stop(s);
    for (int i = 0; keys[i] != NULL; i += 2)
        if (!set_key(s, keys[i], keys[i + 1]))
            return FALSE;
    show_page(win, page);
    if (!start_run(win))
        return FALSE;
    probe_goal goal = {s, probe_part};
    if (!spin_until(probe_arrived, &goal, 600.0)) {
        fprintf(stderr, "bench_gui: no %s probe arrived\n", probe_part);
        return FALSE;
    }
    spin_for(0.3);
    *redraw = time_view(win, page, "probes-changed");
    *lat = measure_latency(win, page, LATENCY_ONLY_S);
    return TRUE;
}

/* --- report --- */

static void print_redraw(const redraw_row *rows, int n)
{
    printf("\nRedraw, ms, median / max of %d (figure into a %dx%d image surface; widget and frame at the plot's "
           "own size)\n",
           REPS, WIDTH, HEIGHT);
    printf("%-10s %15s %15s %15s %15s %15s %15s %7s %10s\n", "view", "update", "ready", "first draw", "redraw",
           "GTK widget", "screen frame", "ink", "plot size");
    for (int i = 0; i < n; i++) {
        const redraw_row *r = &rows[i];
        printf("%-10s %7.2f/%7.2f %7.2f/%7.2f %7.2f/%7.2f %7.2f/%7.2f %7.2f/%7.2f %7.2f/%7.2f %6.1f%% %5dx%-4d\n",
               r->view, r->update.median, r->update.max, r->ready.median, r->ready.max, r->first.median,
               r->first.max, r->redraw.median, r->redraw.max,
               r->widget.median, r->widget.max, r->frame.median, r->frame.max, 100 * r->ink, r->plot_w, r->plot_h);
    }
}

static void print_latency(const latency_row *rows, int n)
{
    printf("\nUI thread while training, ms: frame-clock tick interval (16.7 ideal) and lateness of a %d ms "
           "timeout\n",
           TIMEOUT_MS);
    printf("%-10s %8s %26s %26s\n", "visible", "seconds", "tick median/p95/max", "timeout late median/p95/max");
    for (int i = 0; i < n; i++) {
        const latency_row *r = &rows[i];
        printf("%-10s %8.1f %8.1f/%8.1f/%8.1f %8.1f/%8.1f/%8.1f\n", r->view, r->seconds, r->tick.median,
               r->tick.p95, r->tick.max, r->late.median, r->late.p95, r->late.max);
    }
}

static void write_results(const char *path, const throughput *training, const throughput *attention,
                          const redraw_row *redraws, int n_redraws, const latency_row *lats, int n_lats)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "bench_gui: cannot write %s\n", path);
        return;
    }
    fprintf(f, "gui_training_step_s = %.4f\ngui_training_wall_s = %.4f\n", training->step_median,
            training->wall_per_step);
    fprintf(f, "gui_attention_step_s = %.4f\ngui_attention_wall_s = %.4f\n", attention->step_median,
            attention->wall_per_step);
    double worst_redraw = 0, worst_frame = 0, worst_late = 0;
    for (int i = 0; i < n_redraws; i++) {
        worst_redraw = MAX(worst_redraw, redraws[i].redraw.max);
        worst_frame = MAX(worst_frame, redraws[i].frame.median);
    }
    for (int i = 0; i < n_lats; i++)
        worst_late = MAX(worst_late, lats[i].late.p95);
    fprintf(f, "worst_redraw_max_ms = %.2f\nworst_frame_median_ms = %.2f\nworst_timeout_late_p95_ms = %.2f\n",
            worst_redraw, worst_frame, worst_late);
    fclose(f);
}

int main(int argc, char **argv)
{
    rf_blas_pick_kernels(argv);
    setlocale(LC_ALL, "");
    setlocale(LC_NUMERIC, "C");
    gtk_disable_setlocale();
    gboolean redraw_only = argc > 1 && strcmp(argv[1], "--redraw-only") == 0;
    if (redraw_only) {
        argv++;
        argc--;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: bench_gui [--redraw-only] CONFIG.ini RESULTS.txt [RUN_DIR...] (under a display: "
                        "see bench/gui.sh)\n");
        return 2;
    }
    if (!gtk_init_check()) {
        fprintf(stderr, "bench_gui: no display (run it under xvfb-run, as bench/gui.sh does)\n");
        return 1;
    }
    RfApplication *app = rf_application_new(argv[1]);
    /* its runs are recorded in a folder of its own, not the user's */
    g_autofree char *runs = g_dir_make_tmp("rf-bench-gui-runs-XXXXXX", NULL);
    rf_application_set_runs_dir(app, runs);
    g_application_set_flags(G_APPLICATION(app), G_APPLICATION_NON_UNIQUE);
    g_autoptr(GError) error = NULL;
    if (!g_application_register(G_APPLICATION(app), NULL, &error)) {
        fprintf(stderr, "bench_gui: %s\n", error->message);
        return 1;
    }
    g_application_activate(G_APPLICATION(app));
    RfWindow *win = RF_WINDOW(gtk_application_get_active_window(GTK_APPLICATION(app)));
    RfSession *s = rf_window_get_session(win);
    gtk_stack_set_transition_type(rf_window_get_stack(win), GTK_STACK_TRANSITION_TYPE_NONE);
    size_window(win);
    printf("window %dx%d, renderer %s\n", gtk_widget_get_width(GTK_WIDGET(win)),
           gtk_widget_get_height(GTK_WIDGET(win)),
           G_OBJECT_TYPE_NAME(gtk_native_get_renderer(gtk_widget_get_native(GTK_WIDGET(win)))));
    if (!spin_until(data_loaded, s, 120.0)) {
        fprintf(stderr, "bench_gui: the data did not load (%s)\n",
                rf_session_get_error(s) != NULL ? rf_session_get_error(s) : "no error");
        return 1;
    }

    for (int i = 3; i < argc; i++)
        if (!rf_session_add_overlay(s, argv[i], &error)) {
            fprintf(stderr, "bench_gui: %s\n", error->message);
            return 1;
        }
    if (argc > 3)
        printf("%d runs overlaid in the Training view\n", argc - 3);

    redraw_row redraws[7];
    latency_row lats[4];
    int n_redraws = 0, n_lats = 0;
    throughput training = {0}, attention = {0};
    gboolean ok = start_run(win);
    if (redraw_only)
        show_page(win, "attention");
    else
        ok = ok && measure_training(win, "training", &training, &lats[n_lats++]) &&
             measure_training(win, "attention", &attention, &lats[n_lats++]);
    if (!redraw_only)
        printf("full attention, %d steps each: Training view %.4f s/step (wall %.4f), Attention view %.4f s/step "
               "(wall %.4f)\n",
               TIMED_STEPS, training.step_median, training.wall_per_step, attention.step_median,
               attention.wall_per_step);
    fflush(stdout);

    static const struct {
        const char *page, *signal;
    } full_views[] = {
        {"attention", "probes-changed"}, {"training", "metrics-changed"}, {"memory", "metrics-changed"},
        {"data", "probes-changed"},      {"compare", "metrics-changed"},
    };
    probe_goal attention_probe = {s, "attn.probs"};
    ok = ok && spin_until(probe_arrived, &attention_probe, 300.0);
    for (size_t i = 0; ok && i < G_N_ELEMENTS(full_views); i++)
        redraws[n_redraws++] = time_view(win, full_views[i].page, full_views[i].signal);

    static const char *const blrp_keys[] = {"model.encoder", "blrp", "model.segment", "128",
                                            "model.latent",  "64",   NULL};
    static const char *const talk_keys[] = {"model.encoder", "talk", NULL};
    ok = ok && inspect_run(win, blrp_keys, "latent", "blrp.latent.", &redraws[n_redraws], &lats[n_lats]);
    if (ok)
        n_redraws++, n_lats++;
    ok = ok && inspect_run(win, talk_keys, "talk", ".talk.bounds", &redraws[n_redraws], &lats[n_lats]);
    if (ok)
        n_redraws++, n_lats++;
    if (!ok)
        fprintf(stderr, "bench_gui: incomplete: %s\n",
                rf_session_get_error(s) != NULL ? rf_session_get_error(s) : "a step above failed or timed out");
    rf_session_stop(s);

    print_redraw(redraws, n_redraws);
    print_latency(lats, n_lats);
    write_results(argv[2], &training, &attention, redraws, n_redraws, lats, n_lats);
    /* Destroy the window first: the session it holds then goes with the
     * application and joins its worker, which may still be inspecting
     * (process exit under a running OpenBLAS call crashes). */
    gtk_window_destroy(GTK_WINDOW(win));
    spin_for(0.5);
    g_application_quit(G_APPLICATION(app));
    g_object_unref(app);
    return ok ? 0 : 1;
}
