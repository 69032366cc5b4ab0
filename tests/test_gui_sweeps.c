/* A sweep in the Runs view, under Xvfb: `rangefinder sweep` (argv[1])
 * trains a 2 x 2 grid of 2-step trials into the test's runs folder beside
 * one plain run; the real application lists the four trials as runs named
 * "sw/trial-NNN" (the sweep folder itself not left out), the Sweep toggle
 * shows the parallel coordinates with one line per trial (the figure's
 * model, and four lines crossing a column of its pixels), a click on each
 * trial's line selects that trial's row alone and draws it in the Training
 * view, a selected trial row highlights its line (the model, and the dark
 * casing in the pixels), and a sweep.csv that changes is read again.
 * All at 1024 x 600, the smallest screen the window fits. RF_SCREENSHOT_DIR
 * set: also writes screenshot-sweep.png there (1280 x 800).
 */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "../ui/figures/training_figure.h"
#include "../ui/view.h"
#include "../ui/views/run_row.h"
#include "../ui/views/sweep_panel.h"
#include "figure_pixels.h"
#include "run_folders.h"
#include "widget_find.h"
#include "widget_render.h"
#include "workbench_app.h"

static const char small_config[] = RF_TEST_TINY_DATA RF_TEST_TINY_BLRP "[train]\nsteps = 2\n";

/* Two learning rates by two widths, 2 steps each: the lines go from the
 * lr axis (0.001 at the bottom, 0.01 at the top) to the dim axis (8 at
 * the bottom, 16 at the top). */
static const char sweep_ini[] = "[sweep]\nmethod = grid\nmetric = val_accuracy\n"
                                RF_TEST_TINY_DATA
                                "[model]\ndim = 16\nheads = 2\nff = 32\n"
                                "[train]\nsteps = 2\neval_every = 2\nlog_every = 2\ncheckpoint_every = 2\nthreads = 1\n"
                                "[keys]\ntrain.lr = 0.01, 0.001\nmodel.dim = 8, 16\n";

/* Each trial's ends, 1 = top of the axes, 0 = bottom, in trial order
 * (the grid's: lr outer, dim inner). */
static const double trial_ends[4][2] = {{1, 0}, {1, 1}, {0, 0}, {0, 1}};

static gboolean run_sweep(const char *rangefinder, const char *dir)
{
    g_autofree char *ini = g_build_filename(dir, "sw.ini", NULL), *runs = g_build_filename(dir, "runs", NULL);
    g_file_set_contents(ini, sweep_ini, -1, NULL);
    const char *argv[] = {rangefinder, "sweep", ini, "--runs", runs, NULL};
    g_autofree char *out = NULL, *err = NULL;
    int status = 0;
    if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, NULL) ||
        !g_spawn_check_wait_status(status, NULL)) {
        tap_diag("sweep failed: %s", err != NULL ? err : "");
        return FALSE;
    }
    return TRUE;
}

static GListModel *rows_of(GtkColumnView *list)
{
    return G_LIST_MODEL(gtk_column_view_get_model(list));
}

static const rf_run_entry *entry_at(GtkColumnView *list, guint i)
{
    g_autoptr(RfRunRow) row = g_list_model_get_item(rows_of(list), i);
    return rf_run_row_get_entry(row);   /* the table keeps the entry */
}

/* The folder of the one selected row ("" when none, "several" when more). */
static const char *selected_folder(GtkColumnView *list)
{
    g_autoptr(GtkBitset) set = gtk_selection_model_get_selection(gtk_column_view_get_model(list));
    if (gtk_bitset_get_size(set) != 1)
        return gtk_bitset_get_size(set) == 0 ? "" : "several";
    return entry_at(list, gtk_bitset_get_nth(set, 0))->folder;
}

static void select_folder(GtkColumnView *list, const char *folder)
{
    for (guint i = 0; i < g_list_model_get_n_items(rows_of(list)); i++)
        if (strcmp(entry_at(list, i)->folder, folder) == 0)
            gtk_selection_model_select_item(gtk_column_view_get_model(list), i, TRUE);
    spin_for(0.1);
}

static guint training_run_count(RfWindow *win)
{
    GtkWidget *view = gtk_stack_get_child_by_name(rf_window_get_stack(win), "training");
    RfPlotView *plot = rf_view_get_plot(view);
    return rf_training_figure_get_run_count(g_object_get_data(G_OBJECT(plot), "rf-training-figure"));
}

/* The plot's figure drawn at its size into an image. */
static cairo_surface_t *draw_plot(RfPlotView *plot, int w, int h)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    cairo_t *cr = cairo_create(s);
    const rf_figure *f = rf_plot_view_get_figure(plot);
    rf_zoom zoom = RF_ZOOM_ALL;
    f->draw(f->data, cr, w, h, &zoom);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    return s;
}

/* An axis pixel: the axes' grey (0.35). */
static bool is_axis_grey(cairo_surface_t *s, int x, int y)
{
    int r, g, b;
    pixel(s, x, y, &r, &g, &b);
    return abs(r - 89) <= 6 && r == g && g == b;
}

/* An axis's vertical span: the longest run of its grey down column x. */
static void axis_span(cairo_surface_t *s, int x, int *top, int *bottom)
{
    int h = cairo_image_surface_get_height(s), start = 0;
    *top = *bottom = -1;
    for (int y = 0; y <= h; y++) {
        if (y < h && is_axis_grey(s, x, y))
            continue;
        if (y - start > *bottom - *top) {
            *top = start;
            *bottom = y - 1;
        }
        start = y + 1;
    }
}

/* Runs of drawn (not white) pixels down column x between top and bottom. */
static int lines_crossing(cairo_surface_t *s, int x, int top, int bottom)
{
    int n = 0;
    bool in = false;
    for (int y = top; y <= bottom; y++) {
        bool drawn = painted(s, x, y);
        n += drawn && !in;
        in = drawn;
    }
    return n;
}

/* The darkest pixel (r + g + b) down column x within 8 rows of y. */
static int darkest_near(cairo_surface_t *s, int x, int y)
{
    int darkest = 3 * 255;
    for (int k = y - 8; k <= y + 8; k++) {
        int r, g, b;
        pixel(s, x, k, &r, &g, &b);
        darkest = MIN(darkest, r + g + b);
    }
    return darkest;
}

static gboolean figure_has(gpointer data)
{
    gpointer *args = data;
    rf_parallel_figure *f = rf_sweep_panel_figure(args[0]);
    return f != NULL && rf_parallel_figure_trial_count(f) == GPOINTER_TO_UINT(args[1]);
}

int main(int argc, char **argv)
{
    application_kernels(argv);
    if (argc < 2) {
        tap_ok(FALSE, "usage: test_gui_sweeps RANGEFINDER");
        return tap_done();
    }
    g_autofree char *dir = g_dir_make_tmp("rf-gui-sweeps-XXXXXX", NULL);
    g_autofree char *runs = g_build_filename(dir, "runs", NULL);
    if (!tap_ok(run_sweep(argv[1], dir), "`rangefinder sweep` trains the four trials"))
        return tap_done();
    static const char *const sets[] = {"model.dim=32", "data.task=listops", NULL};
    g_free(write_fake_run(runs, &(fake_run){"2026-11-20_100000-plain", sets, 100, 10, TRUE, TRUE, 7200}));

    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, small_config, &app);
    if (win == NULL)
        return tap_done();
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), "runs");
    spin_for(0.3);
    gtk_window_set_default_size(GTK_WINDOW(win), 1024, 600);   /* the smallest screen the window fits */
    spin_for(0.4);
    GtkWidget *view = gtk_stack_get_child_by_name(rf_window_get_stack(win), "runs");
    GtkColumnView *list = view != NULL ? GTK_COLUMN_VIEW(find_named(view, "runs-list")) : NULL;
    if (!tap_ok(list != NULL, "the window has a Runs view with its list"))
        return tap_done();

    /* the list: the plain run and the sweep's trials, nothing left out */
    guint n = g_list_model_get_n_items(rows_of(list)), trials = 0;
    for (guint i = 0; i < n; i++) {
        const rf_run_entry *e = entry_at(list, i);
        g_autofree char *name = rf_run_entry_cell(e, "name");
        g_autofree char *want = g_strdup_printf("sw/%s", e->folder);
        trials += strcmp(e->sweep, "sw") == 0 && strcmp(name, want) == 0 && e->status == RF_RUN_STATUS_FINISHED;
    }
    tap_ok(n == 5 && trials == 4, "it lists the plain run and the sweep's 4 trials as sw/trial-NNN, finished "
                                  "(%u rows, %u trials)", n, trials);
    GtkWidget *warnings = find_named(view, "runs-warnings");
    tap_ok(warnings != NULL && !gtk_widget_get_visible(warnings), "the sweep folder is not left out (%s)",
           warnings != NULL ? gtk_label_get_text(GTK_LABEL(warnings)) : "-");

    /* the Sweep panel */
    GtkWidget *toggle = find_named(view, "sweep-toggle"), *panel = find_named(view, "sweep-panel");
    if (!tap_ok(toggle != NULL && panel != NULL && gtk_widget_get_sensitive(toggle) && !gtk_widget_get_visible(panel),
                "a Sweep toggle, the panel hidden until it is on"))
        return tap_done();
    gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(toggle), TRUE);
    spin_for(0.4);
    RfPlotView *plot = rf_sweep_panel_plot(panel);
    rf_parallel_figure *figure = rf_sweep_panel_figure(panel);
    tap_ok(gtk_widget_get_mapped(GTK_WIDGET(plot)) && rf_view_get_plot(view) == plot,
           "it shows the sweep's figure, the plot File → Export Plot… writes");
    if (!tap_ok(figure != NULL && rf_parallel_figure_trial_count(figure) == 4 &&
                    strcmp(rf_parallel_figure_trial_label(figure, 0), "trial-001") == 0 &&
                    strcmp(rf_parallel_figure_trial_label(figure, 3), "trial-004") == 0 &&
                    rf_parallel_figure_axis_count(figure) == 3,
                "its figure has one line per trial (%u) over lr, dim and the metric",
                figure != NULL ? rf_parallel_figure_trial_count(figure) : 0))
        return tap_done();

    int w = gtk_widget_get_width(GTK_WIDGET(plot)), h = gtk_widget_get_height(GTK_WIDGET(plot));
    cairo_surface_t *s = draw_plot(plot, w, h);
    cairo_t *cr = cairo_create(s);
    double x0 = rf_parallel_figure_axis_x(figure, cr, w, h, 0), x1 = rf_parallel_figure_axis_x(figure, cr, w, h, 1);
    cairo_destroy(cr);
    int top, bottom;
    axis_span(s, (int)round(x0), &top, &bottom);
    /* a quarter of the way from the lr axis to the dim axis, the four lines are apart */
    double qx = x0 + 0.25 * (x1 - x0);
    int crossing = lines_crossing(s, (int)qx, top - 3, bottom + 3);
    tap_ok(top >= 0 && bottom - top > 60 && crossing == 4,
           "%d lines cross its pixels between the first two axes (axes from y %d to %d, %dx%d)", crossing, top, bottom,
           w, h);
    cairo_surface_destroy(s);

    /* a click on each line selects its trial's row alone; the first draws it in the Training view */
    guint before = training_run_count(win);
    guint right = 0;
    for (int k = 0; k < 4; k++) {
        double a = trial_ends[k][0], b = trial_ends[k][1];
        double y = bottom - (a + 0.25 * (b - a)) * (bottom - top);
        rf_plot_view_click(plot, qx, y);
        spin_for(0.1);
        g_autofree char *want = g_strdup_printf("trial-%03d", k + 1);
        const char *got = selected_folder(list);
        if (strcmp(got, want) == 0)
            right++;
        else
            tap_diag("a click on %s's line selected %s", want, got[0] != '\0' ? got : "nothing");
    }
    tap_ok(right == 4, "a click on each trial's line selects that trial's row alone (%u of 4)", right);
    tap_ok(training_run_count(win) == before + 4, "and the Training view draws the clicked trials (%u, %u before)",
           training_run_count(win), before);
    gtk_selection_model_unselect_all(gtk_column_view_get_model(list));
    spin_for(0.1);
    rf_plot_view_click(plot, qx, (top + bottom) / 2.0);
    spin_for(0.1);
    tap_ok(strcmp(selected_folder(list), "") == 0, "a click between the lines selects nothing");

    /* a selected trial row highlights its line: drawn last, with a dark casing */
    select_folder(list, "trial-003");
    tap_ok(g_strcmp0(rf_parallel_figure_highlighted(rf_sweep_panel_figure(panel)), "trial-003") == 0,
           "selecting trial-003's row highlights its line (%s)",
           rf_parallel_figure_highlighted(rf_sweep_panel_figure(panel)) != NULL
               ? rf_parallel_figure_highlighted(rf_sweep_panel_figure(panel))
               : "none");
    s = draw_plot(plot, w, h);
    /* trial-003 runs along the bottom of the axes, trial-002 (not highlighted) along the top */
    int dark = darkest_near(s, (int)qx, bottom), other = darkest_near(s, (int)qx, top);
    tap_ok(dark < 60 && other > 150, "its pixels: a dark casing (darkest r+g+b %d), none on the others' lines (%d)",
           dark, other);
    cairo_surface_destroy(s);
    select_folder(list, "2026-11-20_100000-plain");
    tap_ok(rf_parallel_figure_highlighted(rf_sweep_panel_figure(panel)) == NULL,
           "a plain run's row highlights no line");

    /* live: sweep.csv rewritten (as `rangefinder sweep` does after each trial) is read again */
    g_autofree char *csv = g_build_filename(runs, "sw", "sweep.csv", NULL);
    g_autofree char *text = NULL;
    g_file_get_contents(csv, &text, NULL, NULL);
    g_autofree char *three = g_strdup(text != NULL ? text : "");
    char *last = strstr(three, "\n4,");
    if (last != NULL)
        last[1] = '\0';
    g_autofree char *tmp = g_strconcat(csv, ".new", NULL);
    g_file_set_contents(tmp, three, -1, NULL);
    g_rename(tmp, csv);
    tap_ok(spin_until(figure_has, (gpointer[]){panel, GUINT_TO_POINTER(3)}, 4.0),
           "a sweep.csv that changes is read again (3 trials)");

    const char *shots = g_getenv("RF_SCREENSHOT_DIR");
    if (shots != NULL) {
        g_file_set_contents(tmp, text != NULL ? text : "", -1, NULL);
        g_rename(tmp, csv);
        select_folder(list, "trial-002");
        spin_until(figure_has, (gpointer[]){panel, GUINT_TO_POINTER(4)}, 4.0);
        gtk_window_set_default_size(GTK_WINDOW(win), 1280, 800);
        spin_for(0.5);
        g_autoptr(GdkTexture) texture = render(GTK_WIDGET(win));
        g_autofree char *path = g_build_filename(shots, "screenshot-sweep.png", NULL);
        tap_ok(texture != NULL && gdk_texture_save_to_png(texture, path), "screenshot %s", path);
    }
    close_workbench(win, app);
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", dir);
    if (system(cmd) != 0)
        tap_ok(FALSE, "remove %s", dir);
    return tap_done();
}
