/* The Compare view (issue 12 item 12), under Xvfb with the real
 * application:
 *   1. the pending runs are listed with the keys each changes against the
 *      edited config (and follow its edits), without an ETA before any run
 *      measured its steps and with one (and its basis) after;
 *   2. the results table keeps its header in view when its rows scroll,
 *      each header over its column;
 *   3. Export Table… starts in the runs folder and writes the CSV there.
 */
#include <glib/gstdio.h>
#include <string.h>

#include "file_chooser.h"
#include "widget_find.h"
#include "widget_render.h"
#include "workbench_app.h"

static const char small_config[] = RF_TEST_TINY_DATA
                                   RF_TEST_TINY_BLRP
                                   "[train]\n"
                                   "steps = 4\n"
                                   "log_every = 1\n";

static GtkWidget *find_button(GtkWidget *root, const char *label)
{
    if (GTK_IS_BUTTON(root) && g_strcmp0(gtk_button_get_label(GTK_BUTTON(root)), label) == 0)
        return root;
    for (GtkWidget *c = gtk_widget_get_first_child(root); c != NULL; c = gtk_widget_get_next_sibling(c)) {
        GtkWidget *found = find_button(c, label);
        if (found != NULL)
            return found;
    }
    return NULL;
}

static void click(GtkWidget *root, const char *label)
{
    GtkWidget *b = find_button(root, label);
    /* "clicked" itself: a button's activation clicks only after a timeout */
    if (tap_ok(b != NULL && gtk_widget_is_sensitive(b), "the %s button is there", label))
        g_signal_emit_by_name(b, "clicked");
    spin_for(0.3);
}

static const char *cell_text(GtkWidget *grid, int col, int row)
{
    GtkWidget *w = grid != NULL ? gtk_grid_get_child_at(GTK_GRID(grid), col, row) : NULL;
    return w != NULL && GTK_IS_LABEL(w) ? gtk_label_get_text(GTK_LABEL(w)) : "";
}

static int grid_rows(GtkWidget *grid)
{
    int n = 0;
    while (grid != NULL && gtk_grid_get_child_at(GTK_GRID(grid), 0, n) != NULL)
        n++;
    return n;
}

/* The row of the pending list named `name`, or -1. */
static int pending_row(GtkWidget *pending, const char *name)
{
    for (int r = 0; r < grid_rows(pending); r++)
        if (strcmp(cell_text(pending, 0, r), name) == 0)
            return r;
    return -1;
}

static graphene_rect_t bounds_in(GtkWidget *w, GtkWidget *root)
{
    graphene_rect_t b = GRAPHENE_RECT_INIT(-1, -1, 0, 0);
    if (w != NULL && !gtk_widget_compute_bounds(w, root, &b))
        b = GRAPHENE_RECT_INIT(-1, -1, 0, 0);
    return b;
}

static void screenshot(GtkWidget *view, const char *name)
{
    const char *shots = g_getenv("RF_SCREENSHOT_DIR");
    if (shots == NULL)
        return;
    g_autoptr(GdkTexture) shot = render(view);
    g_autofree char *path = g_build_filename(shots, name, NULL);
    tap_ok(shot != NULL && gdk_texture_save_to_png(shot, path), "screenshot %s", path);
}

typedef struct queue_wait {
    RfSession *s;
    guint runs;
} queue_wait;

static gboolean queue_finished(gpointer data)
{
    queue_wait *q = data;
    return rf_session_get_runs(q->s)->len >= q->runs && rf_session_queue_length(q->s) == 0 && run_settled(q->s);
}

static void check_pending(GtkWidget *view, RfSession *s, RfWindow *win)
{
    GtkWidget *pending = find_named(view, "pending-runs");
    click(view, "Queue _Every Encoder");
    int full = pending_row(pending, "listops · full"), blrp = pending_row(pending, "listops · blrp");
    tap_ok(pending != NULL && gtk_widget_is_drawable(pending) && grid_rows(pending) == (int)rf_session_queue_length(s) &&
               full >= 0 && blrp >= 0,
           "the queued runs are listed (%d of %u)", grid_rows(pending), rf_session_queue_length(s));
    tap_ok(strcmp(cell_text(pending, 1, full), "model.encoder=full") == 0 &&
               strcmp(cell_text(pending, 1, blrp), "as edited") == 0 &&
               strcmp(cell_text(pending, 2, full), "4 steps") == 0,
           "each with the keys it changes against the edited config (\"%s\", \"%s\") and its steps",
           cell_text(pending, 1, full), cell_text(pending, 1, blrp));
    tap_ok(strstr(cell_text(pending, 3, full), "ETA after") != NULL,
           "no ETA before a run has measured its steps (\"%s\")", cell_text(pending, 3, full));
    rf_session_set_key(s, "model.encoder", "full", NULL, NULL);
    spin_for(0.2);
    tap_ok(strcmp(cell_text(pending, 1, full), "as edited") == 0 &&
               strcmp(cell_text(pending, 1, blrp), "model.encoder=blrp") == 0,
           "an edit of the config changes them (\"%s\", \"%s\")", cell_text(pending, 1, full),
           cell_text(pending, 1, blrp));
    rf_session_set_key(s, "model.encoder", "blrp", NULL, NULL);
    click(view, "C_lear Queue");
    tap_ok(!gtk_widget_is_drawable(pending), "a cleared queue hides the list");

    g_action_group_activate_action(G_ACTION_GROUP(win), "train", NULL);
    tap_ok(spin_until(run_settled, s, 120.0) && rf_session_get_state(s) == RF_RUN_FINISHED, "a four-step run finishes");
    click(view, "Queue _Every Encoder");
    full = pending_row(pending, "listops · full");
    const char *eta = cell_text(pending, 3, full);
    tap_ok(full >= 0 && eta[0] == '~' && strstr(eta, "(from ") != NULL && strstr(eta, " s/step)") != NULL,
           "then each has an ETA that says its basis (\"%s\")", eta);
    GtkWidget *summary = find_named(view, "pending-summary");
    const char *text = summary != NULL && GTK_IS_LABEL(summary) ? gtk_label_get_text(GTK_LABEL(summary)) : "";
    tap_ok(strstr(text, "queue done in ~") != NULL && strstr(text, "same config") != NULL &&
               strstr(text, "planned FLOPs") != NULL,
           "the summary gives the whole queue's ETA and the estimate's basis (\"%s\")", text);
    screenshot(view, "screenshot-compare-queue.png");
}

static void check_header(GtkWidget *view)
{
    GtkWidget *header = find_named(view, "results-header"), *rows = find_named(view, "results-rows");
    GtkWidget *paned = rows != NULL ? gtk_widget_get_ancestor(rows, GTK_TYPE_PANED) : NULL;
    if (!tap_ok(header != NULL && rows != NULL && paned != NULL, "the results table has a header and rows"))
        return;
    /* a short table area, so that the rows scroll */
    gtk_paned_set_position(GTK_PANED(paned), gtk_widget_get_height(paned) - 140);
    spin_for(0.5);
    GtkWidget *scroller = gtk_widget_get_ancestor(rows, GTK_TYPE_SCROLLED_WINDOW);
    GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment(GTK_SCROLLED_WINDOW(scroller));
    double range = gtk_adjustment_get_upper(adj) - gtk_adjustment_get_page_size(adj);
    tap_ok(range > 20, "the rows scroll (%.0f px more than the table shows)", range);

    graphene_rect_t head = bounds_in(gtk_grid_get_child_at(GTK_GRID(header), 0, 0), view);
    graphene_rect_t first = bounds_in(gtk_grid_get_child_at(GTK_GRID(rows), 0, 0), view);
    gtk_adjustment_set_value(adj, range);
    spin_for(0.5);
    graphene_rect_t head2 = bounds_in(gtk_grid_get_child_at(GTK_GRID(header), 0, 0), view);
    graphene_rect_t first2 = bounds_in(gtk_grid_get_child_at(GTK_GRID(rows), 0, 0), view);
    graphene_rect_t shown = bounds_in(scroller, view);
    tap_ok(head.origin.y >= 0 && head2.origin.y == head.origin.y && head2.origin.y + head2.size.height <= shown.origin.y &&
               first2.origin.y < first.origin.y - 20,
           "scrolled to the last row the header stays in view above the rows (y %.0f -> %.0f; the first row %.0f -> "
           "%.0f)",
           head.origin.y, head2.origin.y, first.origin.y, first2.origin.y);
    int misaligned = 0;
    for (int c = 0; c < 8; c++) {
        graphene_rect_t h = bounds_in(gtk_grid_get_child_at(GTK_GRID(header), c, 0), view);
        graphene_rect_t r = bounds_in(gtk_grid_get_child_at(GTK_GRID(rows), c, 0), view);
        if (fabsf(h.origin.x - r.origin.x) > 1 || fabsf(h.size.width - r.size.width) > 1)
            misaligned++;
    }
    tap_ok(misaligned == 0, "each header label spans its column of cells (%d of 8 off)", misaligned);
    screenshot(view, "screenshot-compare-table.png");
}

static gboolean file_exists(gpointer path)
{
    return g_file_test(path, G_FILE_TEST_EXISTS);
}

static void check_export(GtkWidget *view, RfSession *s, const char *runs_folder)
{
    click(view, "E_xport Table…");
    g_autofree char *start = opened_chooser_folder();
    tap_ok(g_strcmp0(start, runs_folder) == 0, "Export Table… starts in the runs folder (%s)", start);
    g_autofree char *path = g_build_filename(runs_folder, "results.csv", NULL);
    answer_chooser(path);
    spin_until(file_exists, path, 5.0);   /* the answer comes from an idle */
    g_autofree char *text = NULL;
    g_file_get_contents(path, &text, NULL, NULL);
    g_auto(GStrv) lines = text != NULL ? g_strsplit(text, "\n", -1) : g_new0(char *, 1);
    guint n = rf_session_get_runs(s)->len;
    tap_ok(lines[0] != NULL && g_str_has_prefix(lines[0], "run,steps,final_train_accuracy,") &&
               g_strv_length(lines) == n + 2 && strstr(lines[1], "-listops-blrp,4,") != NULL,
           "it writes the results table: a header and one line per run (%u runs)", n);
    g_autoptr(GDir) dir = g_dir_open(runs_folder, 0, NULL);
    int files = 0;
    while (dir != NULL && g_dir_read_name(dir) != NULL)
        files++;
    tap_ok(files == 1, "and nothing else (no temporary file left: %d entries)", files);
}

int main(int argc, char **argv)
{
    application_kernels(argv);
    (void)argc;
    (void)argv;
    g_autofree char *dir = g_dir_make_tmp("rf-compare-XXXXXX", NULL);
    g_autofree char *data_home = g_build_filename(dir, "data-home", NULL);
    g_autofree char *runs = g_build_filename(data_home, "rangefinder", "runs", NULL);
    g_mkdir_with_parents(runs, 0700);
    g_setenv("XDG_DATA_HOME", data_home, TRUE);
    RfApplication *app = NULL;
    RfWindow *win = open_workbench(dir, small_config, &app);
    if (win == NULL)
        return tap_done();
    RfSession *s = rf_window_get_session(win);
    gtk_window_set_default_size(GTK_WINDOW(win), 1400, 900);
    gtk_stack_set_visible_child_name(rf_window_get_stack(win), "compare");
    spin_for(0.5);
    GtkWidget *view = gtk_stack_get_child_by_name(rf_window_get_stack(win), "compare");

    check_pending(view, s, win);
    queue_wait q = {s, rf_session_get_runs(s)->len + rf_session_queue_length(s)};
    click(view, "_Run Queue");
    tap_ok(spin_until(queue_finished, &q, 300.0), "the queue runs (%u runs)", q.runs);
    spin_for(0.5);
    check_header(view);
    check_export(view, s, runs);

    close_workbench(win, app);
    return tap_done();
}
