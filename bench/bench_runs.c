/* bench_runs: the workbench's start with a full runs folder (issue 12 item
 * 12's bar: 200 runs open in under 1 s). Writes RUNS run folders into a
 * temporary folder (config.ini with every key, a 5,000-step metrics.csv
 * with a train row every step, a val row every 100, a test row for most,
 * placeholder checkpoints; encoders, widths and learning rates vary), then
 * times, each the median of REPS tries (the first one separately):
 *   - reading the runs folder into the runs table (ui/runs_table.h),
 *   - building the Runs view's model from it (the differing keys, a row
 *     object per run in a GListStore, a sort by every column),
 *   - a refresh with nothing changed (what the view does every 5 s),
 *   - on the shown view, Reload after one run moved on,
 *   - under a display (xvfb-run, or your own): the Runs view alone in a
 *     window until its list has been drawn, and the whole workbench (the
 *     application's window with every view, on a small ListOps config)
 *     until it has been drawn, each with an empty runs folder and with the
 *     RUNS runs.
 * The window timings give the wall time and, in brackets, the process's CPU
 * time: on a shared machine the wall time includes waiting for a core.
 * The files are in the page cache after writing: a cold start also reads
 * about 200 KiB per run from disk.
 *
 *   bench_runs [RUNS]     (default 200)
 */
#include <gtk/gtk.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../tests/main_loop.h"
#include "../tests/run_folders.h"
#include "../ui/application.h"
#include "../ui/runs_table.h"
#include "../ui/view.h"
#include "../ui/views/run_row.h"
#include "../ui/window.h"

#define STEPS 5000
#define REPS 5

static const char *const fixed_columns[] = {"name", "encoder", "data", "status", "steps",
                                            "best_val", "test", "duration", "tags"};

static double ms_since(gint64 t0)
{
    return (double)(g_get_monotonic_time() - t0) / 1000.0;
}

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* Wall and CPU time of a window's start. */
typedef struct span {
    double wall, cpu;
} span;

static span span_start(void)
{
    return (span){(double)g_get_monotonic_time() / 1000.0, cpu_ms()};
}

static span span_end(span t0)
{
    return (span){(double)g_get_monotonic_time() / 1000.0 - t0.wall, cpu_ms() - t0.cpu};
}

/* "WHAT, drawn: 200 runs" (runs < 0: "an empty runs folder"). */
static void print_span(const char *what, int runs, span s)
{
    g_autofree char *line = runs < 0 ? g_strdup_printf("%s, drawn, an empty runs folder:", what)
                                     : g_strdup_printf("%s, drawn, %d runs:", what, runs);
    printf("%-52s %7.1f ms (CPU %6.1f ms)\n", line, s.wall, s.cpu);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void make_runs(const char *root, int n)
{
    static const char *const encoders[] = {"full", "blrp", "ls", "linear", "talk"};
    static const char *const dims[] = {"32", "64", "128"};
    static const char *const lrs[] = {"0.001", "0.0005", "0.0003", "0.002"};
    for (int i = 0; i < n; i++) {
        g_autofree char *enc = g_strdup_printf("model.encoder=%s", encoders[i % 5]);
        g_autofree char *dim = g_strdup_printf("model.dim=%s", dims[i / 5 % 3]);
        g_autofree char *lr = g_strdup_printf("train.lr=%s", lrs[i / 15 % 4]);
        g_autofree char *seed = g_strdup_printf("train.seed=%d", i);
        const char *sets[] = {enc, dim, lr, seed, NULL};
        g_autofree char *folder = g_strdup_printf("2026-11-%02d_%06d-listops-%s", 1 + i / 10, i, encoders[i % 5]);
        fake_run run = {folder, sets, STEPS, 1, i % 7 != 0, TRUE, 3600};
        g_free(write_fake_run(root, &run));
    }
}

static int compare_rows(gconstpointer a, gconstpointer b, gpointer column)
{
    return rf_run_entry_compare(rf_run_row_get_entry(RF_RUN_ROW((gpointer)a)),
                                rf_run_row_get_entry(RF_RUN_ROW((gpointer)b)), column);
}

/* What the Runs view builds from a table: its columns' keys, its rows,
 * and the rows sorted by each column. */
static void build_model(rf_runs_table *t)
{
    g_auto(GStrv) keys = rf_runs_table_differing_keys(t);
    g_autoptr(GListStore) store = g_list_store_new(RF_TYPE_RUN_ROW);
    for (guint i = 0; i < t->entries->len; i++) {
        g_autoptr(RfRunRow) row = rf_run_row_new(g_ptr_array_index(t->entries, i));
        g_list_store_append(store, row);
    }
    for (size_t c = 0; c < G_N_ELEMENTS(fixed_columns); c++)
        g_list_store_sort(store, compare_rows, (gpointer)fixed_columns[c]);
    for (guint k = 0; keys[k] != NULL; k++)
        g_list_store_sort(store, compare_rows, keys[k]);
}

typedef struct timing {
    double first, median;
} timing;

static timing time_reps(void (*fn)(const char *root), const char *root)
{
    double t[REPS + 1];
    for (int i = 0; i <= REPS; i++) {
        gint64 t0 = g_get_monotonic_time();
        fn(root);
        t[i] = ms_since(t0);
    }
    timing out = {.first = t[0]};
    qsort(t + 1, REPS, sizeof t[0], by_value);
    out.median = t[1 + REPS / 2];
    return out;
}

static void load_only(const char *root)
{
    g_autoptr(rf_runs_table) t = rf_runs_table_new(root);
    rf_runs_table_refresh(t);
}

static void load_and_build(const char *root)
{
    g_autoptr(rf_runs_table) t = rf_runs_table_new(root);
    rf_runs_table_refresh(t);
    build_model(t);
}

static gboolean list_drawn(gpointer view)
{
    return gtk_widget_get_mapped(view) && gtk_widget_get_height(view) > 0;
}

/* The Runs view made in a window and shown. */
static gboolean frame_done;

static gboolean on_frame(GtkWidget *w, GdkFrameClock *clock, gpointer data)
{
    (void)w;
    (void)clock;
    (void)data;
    frame_done = TRUE;
    return G_SOURCE_REMOVE;
}

static gboolean frame_seen(gpointer data)
{
    (void)data;
    return frame_done;
}

/* On the shown view: a row appended to one run's metrics.csv, then Reload
 * until the next frame (what the view does every 5 s while a CLI run
 * trains: that row is made again, not the others). */
static span time_one_run_moved(GtkWidget *view, const char *root)
{
    g_autoptr(GDir) d = g_dir_open(root, 0, NULL);
    const char *first = d != NULL ? g_dir_read_name(d) : NULL;
    g_autofree char *csv = first != NULL ? g_build_filename(root, first, "metrics.csv", NULL) : NULL;
    FILE *f = csv != NULL ? fopen(csv, "a") : NULL;
    if (f != NULL) {
        fputs("5001,train,1.0,0.5,0.001,300.0\n", f);
        fclose(f);
    }
    span t0 = span_start();
    frame_done = FALSE;
    gtk_widget_activate_action(view, "runs.reload", NULL);
    gtk_widget_queue_draw(view);
    gtk_widget_add_tick_callback(view, on_frame, NULL, NULL);
    spin_until(frame_seen, NULL, 30.0);
    return span_end(t0);
}

static span time_view(const char *root, span *moved)
{
    g_autoptr(RfSession) s = rf_session_new();
    rf_session_set_runs_dir(s, root);
    span t0 = span_start();
    GtkWidget *window = gtk_window_new();
    gtk_window_set_default_size(GTK_WINDOW(window), 1600, 1000);
    GtkWidget *view = rf_runs_view_new(s);
    gtk_window_set_child(GTK_WINDOW(window), view);
    gtk_window_present(GTK_WINDOW(window));
    spin_until(list_drawn, view, 30.0);
    span took = span_end(t0);
    if (moved != NULL)
        *moved = time_one_run_moved(view, root);
    gtk_window_destroy(GTK_WINDOW(window));
    return took;
}

static const char small_config[] = "[data]\ntask = listops\nmax_len = 32\nmin_len = 8\ntrain_size = 64\n"
                                   "val_size = 16\ntest_size = 16\nbatch = 8\n";

/* The workbench started on runs folder `root`, until its window is drawn;
 * *runs: then the Runs view shown, until it is drawn. */
static span time_workbench(const char *root, const char *config, span *runs)
{
    span t0 = span_start();
    RfApplication *app = rf_application_new(config);
    rf_application_set_runs_dir(app, root);
    g_application_set_flags(G_APPLICATION(app), G_APPLICATION_NON_UNIQUE);
    if (!g_application_register(G_APPLICATION(app), NULL, NULL))
        g_error("bench_runs: the application does not register");
    g_application_activate(G_APPLICATION(app));
    GtkWidget *win = GTK_WIDGET(gtk_application_get_active_window(GTK_APPLICATION(app)));
    spin_until(list_drawn, win, 30.0);
    span took = span_end(t0);
    /* the data set loads and the sidebar's planner runs: not the Runs view's work */
    spin_until(data_loaded, rf_window_get_session(RF_WINDOW(win)), 30.0);
    spin_for(0.5);
    GtkStack *stack = rf_window_get_stack(RF_WINDOW(win));
    GtkWidget *view = gtk_stack_get_child_by_name(stack, "runs");
    span t1 = span_start();
    gtk_stack_set_transition_type(stack, GTK_STACK_TRANSITION_TYPE_NONE);
    gtk_stack_set_visible_child(stack, view);
    spin_until(list_drawn, view, 30.0);
    *runs = span_end(t1);
    gtk_window_destroy(GTK_WINDOW(win));
    spin_for(0.2);
    g_object_unref(app);
    return took;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200;
    if (n <= 0) {
        fprintf(stderr, "usage: bench_runs [RUNS]\n");
        return 2;
    }
    g_autofree char *root = g_dir_make_tmp("rf-bench-runs-XXXXXX", NULL);
    make_runs(root, n);
    g_autoptr(rf_runs_table) t = rf_runs_table_new(root);
    rf_runs_table_refresh(t);
    g_auto(GStrv) keys = rf_runs_table_differing_keys(t);
    printf("%d run folders of %d steps (a train row every step), %u differing keys, in %s\n", n, STEPS,
           g_strv_length(keys), root);

    timing load = time_reps(load_only, root), both = time_reps(load_and_build, root);
    gint64 t0 = g_get_monotonic_time();
    gboolean changed = rf_runs_table_refresh(t);
    double unchanged = ms_since(t0);
    printf("read the runs folder:              first %7.1f ms, median %7.1f ms\n", load.first, load.median);
    printf("read it and build the table model: first %7.1f ms, median %7.1f ms\n", both.first, both.median);
    printf("refresh with nothing changed:            %7.1f ms%s\n", unchanged, changed ? " (it changed?)" : "");
    g_setenv("GSK_RENDERER", "cairo", FALSE);   /* as the workbench does (ui/workbench.c) */
    if (!gtk_init_check()) {
        printf("no display: the window timings need one (run it under xvfb-run)\n");
    } else {
        /* GTK's own first-window costs (theme, fonts) are not the runs' */
        g_autofree char *empty = g_dir_make_tmp("rf-bench-runs-empty-XXXXXX", NULL);
        g_autofree char *config = g_build_filename(empty, "small.ini", NULL);
        g_file_set_contents(config, small_config, -1, NULL);
        time_view(empty, NULL);   /* not counted */
        print_span("the Runs view alone", -1, time_view(empty, NULL));
        span moved;
        print_span("the Runs view alone", n, time_view(root, &moved));
        printf("%-52s %7.1f ms (CPU %6.1f ms)\n", "one run moved on, Reload, next frame:", moved.wall, moved.cpu);
        span runs_empty, runs_full;
        span empty_start = time_workbench(empty, config, &runs_empty);
        span full_start = time_workbench(root, config, &runs_full);
        print_span("the workbench opens", -1, empty_start);
        print_span("the workbench opens", n, full_start);
        print_span("then the Runs view is shown", -1, runs_empty);
        print_span("then the Runs view is shown", n, runs_full);
        g_remove(config);
        g_rmdir(empty);
    }
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : 1;
}
