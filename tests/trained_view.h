/* What the GUI tests of the views that run the trained model share
 * (tests/test_gui_evaluation.c, test_gui_attribution.c,
 * test_gui_projector.c): the real workbench on a tiny full-attention
 * ListOps run, the view's button refused before any model, the run trained
 * to its end, then the test's own checks; and the Data view's selection and
 * the screenshots they all take. */
#ifndef RF_TESTS_TRAINED_VIEW_H
#define RF_TESTS_TRAINED_VIEW_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../ui/figures/matrix_panel.h"

#include "gui_steps.h"
#include "view_drawing.h"
#include "widget_find.h"
#include "workbench_app.h"

/* 300 validation samples, for the Projector's points; trained in well under a second. */
#define TRAINED_VIEW_VAL 300
static const char trained_view_config[] = "[data]\ntask = listops\nmax_len = 32\nmin_len = 8\ntrain_size = 64\n"
                                          "val_size = 300\ntest_size = 16\nbatch = 8\n"
                                          "[model]\nencoder = full\nlayers = 1\ndim = 16\nheads = 2\nff = 32\n"
                                          "[train]\nsteps = 8\nlr = 0.01\nwarmup = 0\neval_every = 4\n"
                                          "log_every = 2\ncheckpoint_every = 0\nthreads = 1\n";

static inline gboolean file_written(gpointer path)
{
    return g_file_test(path, G_FILE_TEST_IS_REGULAR);
}

static inline gboolean data_view_shown(gpointer win)
{
    return g_strcmp0(gtk_stack_get_visible_child_name(rf_window_get_stack(win)), "data") == 0;
}

/* The page's button clicked before any model: the status label's words. */
static inline const char *click_without_model(RfWindow *win, const char *page, const char *button,
                                              const char *status)
{
    show_page(win, page);
    GtkWidget *view = gtk_stack_get_child_by_name(rf_window_get_stack(win), page);
    g_signal_emit_by_name(find_named(view, button), "clicked");
    return gtk_label_get_text(GTK_LABEL(find_named(view, status)));
}

/* The Data view's selected sample and split (G_MAXUINT where there is none). */
static inline void data_view_selection(RfWindow *win, guint *selected, guint *split)
{
    GtkWidget *data = gtk_stack_get_child_by_name(rf_window_get_stack(win), "data");
    g_autoptr(GPtrArray) lists = g_ptr_array_new();
    collect(data, GTK_TYPE_LIST_VIEW, lists);
    g_autoptr(GPtrArray) menus = g_ptr_array_new();
    collect(data, GTK_TYPE_DROP_DOWN, menus);
    GtkSelectionModel *model = NULL;   /* the sample list's, not a drop-down's (those sit in popovers) */
    for (guint i = 0; i < lists->len; i++)
        if (gtk_widget_get_ancestor(g_ptr_array_index(lists, i), GTK_TYPE_POPOVER) == NULL)
            model = gtk_list_view_get_model(g_ptr_array_index(lists, i));
    *selected = model != NULL && GTK_IS_SINGLE_SELECTION(model)
                    ? gtk_single_selection_get_selected(GTK_SINGLE_SELECTION(model))
                    : G_MAXUINT;
    /* the Data view's drop-downs: the data set, then the split */
    *split = menus->len > 1 ? gtk_drop_down_get_selected(g_ptr_array_index(menus, 1)) : G_MAXUINT;
}

/* After `what` (a click that opens a sample): the Data view comes forward
 * with `sample` of `split` selected. */
static inline void check_data_view_shows(RfWindow *win, const char *what, rf_split split, int64_t sample)
{
    tap_ok(spin_until(data_view_shown, win, 5.0), "%s brings the Data view forward", what);
    spin_for(0.5);
    guint selected, chosen;
    data_view_selection(win, &selected, &chosen);
    tap_ok(selected == (guint)sample && chosen == (guint)split,
           "the Data view shows %s sample #%lld (selected %u, split %u)", rf_split_name(split), (long long)sample,
           selected, chosen);
}

/* The session's model saved as `dir`/model.safetensors for the command
 * line: its path. */
static inline char *save_model_for_cli(RfWindow *win, const char *dir)
{
    char *path = g_build_filename(dir, "model.safetensors", NULL);
    g_autoptr(GError) error = NULL;
    tap_ok(rf_session_save_checkpoint(rf_window_get_session(win), path, &error), "the model is saved for the CLI (%s)",
           error != NULL ? error->message : "");
    return path;
}

/* `rangefinder inspect` of train sample 0's tap `probe` on the saved
 * `model` (extra: more options such as --pool, NULL-ended, or NULL for the
 * whole tap), written under `dir`: the floats after the .npy header (*n of
 * them), or NULL. */
static inline float *inspect_train_sample(const char *rangefinder, const char *model, const char *dir,
                                          const char *probe, const char *const *extra, gsize *n)
{
    g_autofree char *out = g_build_filename(dir, "inspected.npy", NULL);
    GPtrArray *argv = g_ptr_array_new();
    const char *base[] = {rangefinder, "inspect", "--checkpoint", model, "--split", "train", "--sample", "0",
                          "--probe", probe, "--out", out};
    for (gsize i = 0; i < G_N_ELEMENTS(base); i++)
        g_ptr_array_add(argv, (gpointer)base[i]);
    for (int i = 0; extra != NULL && extra[i] != NULL; i++)
        g_ptr_array_add(argv, (gpointer)extra[i]);
    g_ptr_array_add(argv, NULL);
    g_autofree char *stdout_text = NULL, *err = NULL, *bytes = NULL;
    int status = 0;
    gsize len = 0;
    gboolean ran = g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &stdout_text, &err,
                                &status, NULL);
    g_ptr_array_unref(argv);
    if (!ran || !g_spawn_check_wait_status(status, NULL) || !g_file_get_contents(out, &bytes, &len, NULL) ||
        len < 10) {
        tap_diag("inspect failed: %s", err != NULL ? err : "");
        return NULL;
    }
    gsize header = 10 + (guchar)bytes[8] + 256 * (guchar)bytes[9];   /* .npy 1.0 */
    *n = (len - header) / sizeof(float);
    return g_memdup2(bytes + header, len - header);
}

/* `got` (n_got floats) against `want` (n_want): the largest difference,
 * INFINITY when the sizes differ or want is NULL. */
static inline double largest_difference_of(const float *got, gsize n_got, const float *want, gsize n_want)
{
    if (got == NULL || want == NULL || n_got != n_want)
        return INFINITY;
    double worst = 0;
    for (gsize i = 0; i < n_got; i++)
        worst = fmax(worst, fabs(got[i] - want[i]));
    return worst;
}

/* Rows pooled by max along a sequence, `cells` [rows, cols] said to cover
 * the positions `at` gives, against the exact `exact` [positions, cols] (n
 * floats) reduced here the plain way: per row and column the largest value
 * of the positions the row covers. The largest difference; INFINITY when
 * `at` is not of those rows or exact is too short. */
static inline double against_row_maxima(const float *cells, int rows, int cols, const rf_matrix_positions *at,
                                        const float *exact, gsize n)
{
    if (cells == NULL || exact == NULL || at->cells != rows || n < (gsize)at->hi * cols)
        return INFINITY;
    double worst = 0;
    for (int i = 0; i < at->cells; i++) {
        int64_t t0 = rf_pool_edge(at->lo, at->hi, at->cells, i), t1 = rf_pool_edge(at->lo, at->hi, at->cells, i + 1);
        for (int j = 0; j < cols; j++) {
            double best = -INFINITY;
            for (int64_t t = t0; t < t1; t++)
                best = fmax(best, exact[t * cols + j]);
            worst = fmax(worst, fabs(cells[(size_t)i * cols + j] - best));
        }
    }
    return worst;
}

/* Hover the plot from (x, y) in steps of (dx, dy) until the read-out names
 * a run of tokens ("tokens A-B"): the check that it names `span` of them
 * (or one fewer: pooled cells differ by one at most), one cell being
 * `cell` ("row", "column", "cell"). */
static inline void check_hover_names_tokens(RfPlotView *plot, int x, int y, int dx, int dy, int64_t span,
                                            const char *cell)
{
    const rf_figure *fig = rf_plot_view_get_figure(plot);
    rf_zoom z = rf_plot_view_get_zoom(plot);
    int width = gtk_widget_get_width(GTK_WIDGET(plot)), height = gtk_widget_get_height(GTK_WIDGET(plot));
    char text[256] = "";
    gboolean found = FALSE;
    for (; !found && x < width && y < height; x += dx, y += dy)
        found = fig->hover(fig->data, width, height, &z, x, y, text, sizeof text) && strstr(text, "tokens ") != NULL;
    long long a = 0, b = 0;
    const char *at = found ? strstr(text, "tokens ") : "";
    tap_ok(found && sscanf(at, "tokens %lld-%lld", &a, &b) == 2 && b - a + 1 >= span - 1 && b - a + 1 <= span,
           "hover names a %s's tokens: %s", cell, text);
}

/* RF_SCREENSHOT_DIR set: the window at 1024 x 600 and 1920 x 1080
 * (NAME-WxH.png), and at the docs' size (screenshot-NAME.png). */
static inline void view_screenshots(RfWindow *win, const char *name)
{
    if (g_getenv("RF_SCREENSHOT_DIR") == NULL)
        return;
    static const int sizes[][2] = {{1024, 600}, {1920, 1080}};
    for (int i = 0; i < 2; i++) {
        gtk_window_set_default_size(GTK_WINDOW(win), sizes[i][0], sizes[i][1]);
        spin_for(0.8);
        g_autofree char *shot = g_strdup_printf("%s-%dx%d", name, sizes[i][0], sizes[i][1]);
        screenshot(win, shot);
    }
    size_for_screenshots(win);
    spin_for(0.8);
    screenshot(win, name);
}

/* The main of a test that trains a run in the workbench on `config` and
 * then checks a view: argv[1] is the rangefinder executable; `before` runs
 * on the workbench before any model, `check` after the run (`run_what` in
 * the messages) finished, with the executable and a scratch folder,
 * removed afterwards. */
static inline int trained_run_main(int argc, char **argv, const char *what, const char *config,
                                   const char *run_what, void (*before)(RfWindow *win),
                                   void (*check)(RfWindow *win, const char *rangefinder, const char *dir))
{
    application_kernels(argv);
    g_autofree char *dir = g_dir_make_tmp("rf-gui-view-XXXXXX", NULL);
    if (argc < 2) {
        tap_skip(what, "no rangefinder executable given");
        return tap_done();
    }
    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, config, &app);
    if (win == NULL)
        return tap_done();
    before(win);
    if (train_run(win, run_what))
        check(win, argv[1], dir);
    close_workbench(win, app);
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", dir);
    if (system(cmd) != 0)
        tap_ok(FALSE, "remove %s", dir);
    return tap_done();
}

/* The same on trained_view_config's tiny run (these views read the model
 * itself: no probes waited for). */
static inline int trained_view_main(int argc, char **argv, const char *what, void (*before)(RfWindow *win),
                                    void (*check)(RfWindow *win, const char *rangefinder, const char *dir))
{
    return trained_run_main(argc, argv, what, trained_view_config, "tiny", before, check);
}

#endif
