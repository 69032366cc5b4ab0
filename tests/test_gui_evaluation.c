/* The Evaluation view of the real application under Xvfb, against the
 * command line: Evaluate before any model says there is none; a tiny
 * ListOps run (tests/trained_view.h) is trained to its end, its model saved
 * and evaluated by `rangefinder eval --slices --json`, and the view's
 * Evaluate gives the same test split:
 *   - the counts the figure draws in the matrix's cells (its last texts,
 *     row by row) are the CLI's matrix, and so are the exported SVG's;
 *   - a click on the fullest cell lists its samples, each labelled as the
 *     cell's row says, as many as the CLI counts there;
 *   - a click on a listed sample brings the Data view forward on the test
 *     split with that sample selected;
 *   - CSV export writes the CLI's confusion rows.
 * argv[1]: the rangefinder executable. RF_SCREENSHOT_DIR set: also writes
 * screenshot-evaluation.png (1600 x 1000, for docs/) and the window at
 * 1024 x 600 and 1920 x 1080. */
#include <string.h>

#include "../ui/figures/evaluation_figure.h"
#include "../ui/view.h"
#include "figure_text.h"
#include "file_chooser.h"
#include "trained_view.h"

/* The "confusion" matrix of eval's JSON line, row-major; its size in *n. */
static GArray *cli_matrix(const char *rangefinder, const char *checkpoint, int *n)
{
    GArray *counts = g_array_new(FALSE, FALSE, sizeof(gint64));
    *n = 0;
    const char *argv[] = {rangefinder, "eval", "--checkpoint", checkpoint, "--slices", "--json", NULL};
    g_autofree char *out = NULL, *err = NULL;
    int status = 0;
    if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, NULL) ||
        !g_spawn_check_wait_status(status, NULL)) {
        tap_diag("eval failed: %s", err != NULL ? err : "");
        return counts;
    }
    const char *at = strstr(out, "\"confusion\":[[");
    if (at == NULL)
        return counts;
    at += strlen("\"confusion\":[");
    int rows = 0;
    while (*at == '[') {
        rows++;
        at++;
        while (*at != ']') {
            char *end;
            gint64 v = g_ascii_strtoll(at, &end, 10);
            g_array_append_val(counts, v);
            at = *end == ',' ? end + 1 : end;
        }
        at++;
        if (*at == ',')
            at++;
    }
    *n = rows;
    return counts;
}

/* The last n*n texts, as numbers, equal the matrix. */
static gboolean texts_are_matrix(GPtrArray *texts, const GArray *matrix, int n)
{
    if (n == 0 || texts->len < (guint)(n * n))
        return FALSE;
    guint first = texts->len - (guint)(n * n);
    for (int i = 0; i < n * n; i++) {
        const char *t = g_ptr_array_index(texts, first + (guint)i);
        char *end;
        gint64 v = g_ascii_strtoll(t, &end, 10);
        if (*end != '\0' || end == t || v != g_array_index(matrix, gint64, i)) {
            tap_diag("cell %d, %d drawn as \"%s\", the CLI counts %lld", i / n, i % n, t,
                     (long long)g_array_index(matrix, gint64, i));
            return FALSE;
        }
    }
    return TRUE;
}

static gboolean evaluated(gpointer data)
{
    return rf_evaluation_figure_slices(data) != NULL;
}

/* The view's status line as it stands. */
static const char *status_text(RfWindow *win)
{
    GtkWidget *page = gtk_stack_get_child_by_name(rf_window_get_stack(win), "evaluation");
    return gtk_label_get_text(GTK_LABEL(find_named(page, "evaluation-status")));
}

static void check_evaluation(RfWindow *win, const char *rangefinder, const char *dir)
{
    RfSession *s = rf_window_get_session(win);
    g_autofree char *ckpt = save_model_for_cli(win, dir);
    int n = 0;
    g_autoptr(GArray) matrix = cli_matrix(rangefinder, ckpt, &n);
    if (!tap_ok(n == 10 && matrix->len == 100, "rangefinder eval --slices --json gives a 10 x 10 matrix"))
        return;

    show_page(win, "evaluation");
    /* the run has finished: nothing stands in Evaluate's way, and the line
     * no longer says there is no model */
    tap_ok(status_text(win)[0] == '\0', "once the run has finished the status line is clear ('%s')",
           status_text(win));
    GtkWidget *page = gtk_stack_get_child_by_name(rf_window_get_stack(win), "evaluation");
    RfPlotView *plot = rf_view_get_plot(page);
    rf_evaluation_figure *fig = rf_plot_view_get_figure(plot)->data;
    g_signal_emit_by_name(find_named(page, "evaluate"), "clicked");
    if (!tap_ok(spin_until(evaluated, fig, 60.0), "Evaluate fills the figure"))
        return;
    spin_for(0.5);
    const rf_eval_slices *sl = rf_evaluation_figure_slices(fig);
    tap_ok(sl->samples == 16, "it classified the 16 test samples (%lld)", (long long)sl->samples);
    g_autoptr(GPtrArray) texts = figure_texts(plot);
    tap_ok(texts_are_matrix(texts, matrix, n), "the counts drawn in the cells are the CLI's matrix, row by row");

    /* the fullest cell */
    int best = 0;
    for (int i = 1; i < n * n; i++)
        best = g_array_index(matrix, gint64, i) > g_array_index(matrix, gint64, best) ? i : best;
    int label = best / n, answer = best % n;
    double x, y;
    int w = gtk_widget_get_width(GTK_WIDGET(plot)), h = gtk_widget_get_height(GTK_WIDGET(plot));
    rf_evaluation_figure_cell_centre(fig, w, h, label, answer, &x, &y);
    rf_plot_view_click(plot, x, y);
    spin_for(0.3);
    GtkWidget *samples = find_named(page, "evaluation-samples");
    g_autoptr(GPtrArray) rows = g_ptr_array_new();
    collect(samples, GTK_TYPE_LIST_BOX_ROW, rows);
    gint64 want = g_array_index(matrix, gint64, best);
    bool labelled = rows->len > 0;
    const rf_dataset *ds = rf_session_get_dataset(s);
    float xs[64];
    for (guint i = 0; i < rows->len && labelled; i++) {
        int64_t index = GPOINTER_TO_INT(g_object_get_data(g_ptr_array_index(rows, i), "sample")) - 1;
        int len, lab = -1;
        rf_status st = {0};
        memset(xs, 0, sizeof xs);
        labelled = index >= 0 && ds->get(ds, RF_SPLIT_TEST, index, xs, &len, &lab, &st) && lab == label;
    }
    tap_ok(rows->len == (guint)want && labelled,
           "a click on cell (label %d, answer %d) lists its %lld samples (%u listed), each labelled %d", label, answer,
           (long long)want, rows->len, label);

    g_autofree char *svg = g_build_filename(dir, "evaluation.svg", NULL);
    char err[512] = "";
    rf_zoom zoom = rf_plot_view_get_zoom(plot);
    bool written = rf_figure_export(rf_plot_view_get_figure(plot), &zoom, svg, 1200, 800, err, sizeof err);
    g_autofree char *text = NULL;
    g_file_get_contents(svg, &text, NULL, NULL);
    g_autoptr(GPtrArray) svg_text = text != NULL ? svg_texts(text) : g_ptr_array_new();
    tap_ok(written && texts_are_matrix(svg_text, matrix, n), "the exported SVG holds the matrix as text (%s)", err);

    /* Export CSV… through the chooser, under the name it suggests */
    g_autofree char *csv_path = g_build_filename(dir, "evaluation.csv", NULL);
    g_signal_emit_by_name(find_named(page, "evaluation-export-csv"), "clicked");
    if (spin_until(chooser_open, NULL, 5.0)) {
        spin_for(0.5);
        answer_chooser(csv_path);
    }
    g_autofree char *csv = NULL;
    spin_until(file_written, csv_path, 10.0);
    g_file_get_contents(csv_path, &csv, NULL, NULL);
    g_autofree char *row0 = g_strdup_printf("\nconfusion,%d,%d,%lld\n", label, answer, (long long)want);
    g_autofree char *made = rf_eval_slices_csv(sl);
    tap_ok(csv != NULL && strstr(csv, row0) != NULL && strcmp(csv, made) == 0,
           "Export CSV… writes the evaluation, the cell's row among it: %s", row0 + 1);

    view_screenshots(win, "evaluation");
    show_page(win, "evaluation");
    /* the last listed: the Data view starts on sample 0 of another split */
    if (tap_ok(rows->len > 0, "a listed sample to open")) {
        GtkWidget *last = g_ptr_array_index(rows, rows->len - 1);
        gtk_widget_activate(last);
        check_data_view_shows(win, "a click on a listed sample", RF_SPLIT_TEST,
                              GPOINTER_TO_INT(g_object_get_data(G_OBJECT(last), "sample")) - 1);
    }
}

static void before_any_model(RfWindow *win)
{
    tap_ok(strstr(status_text(win), "no model yet") != NULL, "before any run the status line says why Evaluate "
           "would refuse, unasked: %s", status_text(win));
    const char *said = click_without_model(win, "evaluation", "evaluate", "evaluation-status");
    GtkWidget *page = gtk_stack_get_child_by_name(rf_window_get_stack(win), "evaluation");
    tap_ok(strstr(said, "no model yet") != NULL &&
               rf_evaluation_figure_slices(rf_plot_view_get_figure(rf_view_get_plot(page))->data) == NULL,
           "Evaluate before any model says so and draws nothing: %s", said);
}

int main(int argc, char **argv)
{
    return trained_view_main(argc, argv, "the Evaluation view against the CLI", before_any_model, check_evaluation);
}
