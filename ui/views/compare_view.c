/* The Compare view: a queue of runs trained one after another in the
 * background (its pending runs listed with the keys they change and an
 * ETA), their curves overlaid (the training figure) and a results table
 * (the paper's comparison table on the user's data) whose header stays in
 * view and that exports to CSV. */
#include <math.h>

#include "../dialogs.h"
#include "../figures/training_figure.h"
#include "../view.h"

#define STATE_KEY "rf-compare-view"

static const char *const encoders[] = {"full", "ls", "linear", "talk", "blrp", "maelre"};
static const char *const columns[] = {"Run",  "Final acc (train)", "Best val acc", "Test acc",
                                      "s/step", "Planned", "Peak", "Parameters"};

typedef struct compare_view {
    RfSession *session;           /* outlives the view */
    GtkWidget *root;
    RfPlotView *plot;
    GtkWidget *pending;           /* the pending runs: a summary over their list; hidden when none */
    GtkWidget *pending_summary;
    GtkWidget *pending_grid;      /* name, changes, steps, ETA per run */
    GtkWidget *header;            /* GtkGrid: the results table's header row, outside its scroller */
    GtkWidget *table;             /* GtkGrid: one row per run, its columns as wide as the header's */
    GtkSizeGroup *widths[G_N_ELEMENTS(columns)];    /* per column: the header's label and the rows' cells */
    GtkWidget *status;            /* queue length and the last notice */
    rf_training_figure *figure;
} compare_view;

static void compare_view_free(compare_view *v)
{
    rf_training_figure_free(v->figure);
    for (guint c = 0; c < G_N_ELEMENTS(v->widths); c++)
        g_object_unref(v->widths[c]);
    g_free(v);
}

static compare_view *view_of(GtkWidget *w)
{
    return g_object_get_data(G_OBJECT(w), STATE_KEY);
}

static void set_status(compare_view *v, const char *notice)
{
    guint queued = rf_session_queue_length(v->session);
    g_autofree char *text = queued == 0   ? g_strdup("No runs queued")
                            : queued == 1 ? g_strdup("1 run queued")
                                          : g_strdup_printf("%u runs queued", queued);
    if (notice != NULL && *notice != '\0') {
        g_autofree char *joined = g_strdup_printf("%s · %s", text, notice);
        gtk_label_set_text(GTK_LABEL(v->status), joined);
    } else {
        gtk_label_set_text(GTK_LABEL(v->status), text);
    }
}

/* ---- the results table ---- */

static char *percent_or_dash(double v)
{
    return isfinite(v) ? g_strdup_printf("%.1f %%", 100 * v) : g_strdup("–");
}

static char *bytes_or_dash(double v)
{
    return v > 0 ? g_format_size_full((guint64)v, G_FORMAT_SIZE_IEC_UNITS) : g_strdup("–");
}

static void add_cell(compare_view *v, GtkWidget *grid, int col, int row, const char *text)
{
    gboolean header = grid == v->header;
    GtkWidget *label = gtk_label_new(text);
    gtk_label_set_xalign(GTK_LABEL(label), col == 0 ? 0.0f : 1.0f);
    gtk_label_set_selectable(GTK_LABEL(label), !header);
    if (header)
        gtk_widget_add_css_class(label, "heading");
    else if (col > 0)
        gtk_widget_add_css_class(label, "numeric");
    gtk_size_group_add_widget(v->widths[col], label);
    gtk_grid_attach(GTK_GRID(grid), label, col, row, 1, 1);
}

static void clear_grid(GtkWidget *grid)
{
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(grid)) != NULL)
        gtk_grid_remove(GTK_GRID(grid), child);
}

/* The session's runs, each once (a run a later one goes on from left out). */
static GPtrArray *shown_runs(compare_view *v)
{
    GPtrArray *runs = rf_session_get_runs(v->session), *shown = g_ptr_array_new();
    for (guint i = 0; i < runs->len; i++)
        if (!rf_session_run_superseded(v->session, i))
            g_ptr_array_add(shown, g_ptr_array_index(runs, i));
    return shown;
}

static void fill_table(compare_view *v)
{
    clear_grid(v->table);
    g_autoptr(GPtrArray) runs = shown_runs(v);
    for (guint i = 0; i < runs->len; i++) {
        const rf_run_data *r = runs->pdata[i];
        const rf_metrics *train = rf_run_data_last(r, RF_SPLIT_TRAIN), *test = rf_run_data_last(r, RF_SPLIT_TEST);
        char *cells[G_N_ELEMENTS(columns)] = {
            g_strdup(r->name),
            percent_or_dash(train != NULL ? train->accuracy : NAN),
            percent_or_dash(rf_run_data_best_val(r)),
            percent_or_dash(test != NULL ? test->accuracy : NAN),
            r->median_step_seconds > 0 ? g_strdup_printf("%.3g", r->median_step_seconds) : g_strdup("–"),
            bytes_or_dash(r->planned_bytes),
            bytes_or_dash(r->peak_bytes),
            r->params > 0 ? g_strdup_printf("%'" G_GINT64_FORMAT, r->params) : g_strdup("–"),
        };
        for (guint c = 0; c < G_N_ELEMENTS(columns); c++) {
            add_cell(v, v->table, (int)c, (int)i, cells[c]);
            g_free(cells[c]);
        }
    }
}

/* ---- the pending runs ---- */

/* "~0.25 s", "~40 s", "~12 min", "~2.5 h" */
static char *duration(double seconds)
{
    if (seconds < 10)
        return g_strdup_printf("~%.2g s", seconds);
    if (seconds < 90)
        return g_strdup_printf("~%.0f s", seconds);
    if (seconds < 90 * 60)
        return g_strdup_printf("~%.0f min", seconds / 60);
    return g_strdup_printf("~%.1f h", seconds / 3600);
}

static void add_pending_cell(compare_view *v, int col, int row, const char *text, gboolean dim)
{
    GtkWidget *label = gtk_label_new(text);
    gtk_label_set_xalign(GTK_LABEL(label), col >= 2 ? 1.0f : 0.0f);
    gtk_label_set_wrap(GTK_LABEL(label), col == 1);
    gtk_label_set_wrap_mode(GTK_LABEL(label), PANGO_WRAP_WORD_CHAR);
    gtk_widget_set_hexpand(label, col == 1);
    if (dim)
        gtk_widget_add_css_class(label, "dim-label");
    if (col >= 2)
        gtk_widget_add_css_class(label, "numeric");
    gtk_grid_attach(GTK_GRID(v->pending_grid), label, col, row, 1, 1);
}

static char *pending_summary(compare_view *v, guint n)
{
    double left_seconds = rf_session_queue_seconds_left(v->session);
    if (!(left_seconds > 0))
        return g_strdup_printf("%u pending %s · no ETA until a run on their data has measured its step time", n,
                               n == 1 ? "run" : "runs");
    g_autofree char *left = duration(left_seconds);
    return g_strdup_printf("%u pending %s · queue done in %s · each ETA from a measured run of the same config "
                           "(else of its data and encoder, else of its data), scaled by the planned FLOPs",
                           n, n == 1 ? "run" : "runs", left);
}

static void fill_pending(compare_view *v)
{
    g_autoptr(GPtrArray) items = rf_session_queue_list(v->session);
    gtk_widget_set_visible(v->pending, items->len > 0);
    clear_grid(v->pending_grid);
    if (items->len == 0)
        return;
    g_autofree char *summary = pending_summary(v, items->len);
    gtk_label_set_text(GTK_LABEL(v->pending_summary), summary);
    for (guint i = 0; i < items->len; i++) {
        const rf_queue_item *q = items->pdata[i];
        gboolean as_edited = q->changes[0] == NULL;
        g_autofree char *changes = as_edited ? g_strdup("as edited") : g_strjoinv("  ", q->changes);
        g_autofree char *steps = g_strdup_printf("%" G_GINT64_FORMAT " steps", (gint64)q->steps);
        g_autofree char *eta = NULL;
        if (q->seconds > 0) {
            g_autofree char *d = duration(q->seconds);
            eta = g_strdup_printf("%s (from %.3g s/step)", d, q->seconds_per_step);
        }
        add_pending_cell(v, 0, (int)i, q->name, FALSE);
        add_pending_cell(v, 1, (int)i, changes, as_edited);
        add_pending_cell(v, 2, (int)i, steps, FALSE);
        add_pending_cell(v, 3, (int)i, eta != NULL ? eta : "ETA after a measured run on its data", eta == NULL);
    }
}

static void refresh(compare_view *v)
{
    g_autoptr(GPtrArray) runs = shown_runs(v);
    /* the figure borrows the runs, not the array */
    rf_training_figure_set_runs(v->figure, (rf_run_data *const *)runs->pdata, runs->len);
    rf_plot_view_queue_draw(v->plot);
    fill_table(v);
    fill_pending(v);
}

static void on_session_changed(GtkWidget *root, RfSession *s)
{
    (void)s;
    compare_view *v = view_of(root);
    refresh(v);
    set_status(v, NULL);
}

/* The pending runs' changes are against the edited config. */
static void on_config_changed(GtkWidget *root, const char *key, RfSession *s)
{
    (void)key;
    (void)s;
    fill_pending(view_of(root));
}

/* ---- the toolbar ---- */

static char *run_name(const rf_config *cfg)
{
    return g_strdup_printf("%s · %s", cfg->data.task, cfg->model.encoder);
}

static void on_queue_encoders(GtkButton *button, compare_view *v)
{
    (void)button;
    g_autoptr(GString) skipped = g_string_new(NULL);
    for (guint e = 0; e < G_N_ELEMENTS(encoders); e++) {
        rf_config cfg = *rf_session_get_config(v->session);
        rf_status st = {0};
        if (!rf_config_set2(&cfg, "model", "encoder", encoders[e], &st) || !rf_config_validate(&cfg, &st)) {
            g_string_append_printf(skipped, "%s%s skipped (%s)", skipped->len > 0 ? "; " : "", encoders[e], st.msg);
            continue;
        }
        g_autofree char *name = run_name(&cfg);
        rf_session_queue_add(v->session, &cfg, name);
    }
    set_status(v, skipped->str);
}

static void on_queue_current(GtkButton *button, compare_view *v)
{
    (void)button;
    const rf_config *cfg = rf_session_get_config(v->session);
    rf_status st = {0};
    if (!rf_config_validate(cfg, &st)) {
        rf_dialog_error(GTK_WINDOW(gtk_widget_get_root(v->root)), "The current config cannot be queued", st.msg);
        return;
    }
    g_autofree char *name = run_name(cfg);
    rf_session_queue_add(v->session, cfg, name);
    set_status(v, NULL);
}

static void on_run_queue(GtkButton *button, compare_view *v)
{
    (void)button;
    rf_session_queue_run(v->session);
    set_status(v, NULL);
}

static void on_clear(GtkButton *button, compare_view *v)
{
    (void)button;
    rf_session_queue_clear(v->session);
    set_status(v, NULL);
}

static void on_table_path(const char *path, gpointer user_data)
{
    compare_view *v = user_data;
    if (path == NULL)
        return;
    GPtrArray *runs = rf_session_get_runs(v->session);
    g_autoptr(GError) error = NULL;
    if (!rf_run_data_write_table_csv((rf_run_data *const *)runs->pdata, runs->len, path, &error)) {
        rf_dialog_error(GTK_WINDOW(gtk_widget_get_root(v->root)), "Could not export the results table",
                        error->message);
        return;
    }
    g_autofree char *notice = g_strdup_printf("table written to %s", path);
    set_status(v, notice);
}

static void on_export_table(GtkButton *button, compare_view *v)
{
    (void)button;
    if (rf_session_get_runs(v->session)->len == 0) {
        set_status(v, "no runs to export yet");
        return;
    }
    rf_dialog_choose_path(GTK_WINDOW(gtk_widget_get_root(v->root)), RF_CHOOSE_SAVE_FILE, RF_FOLDER_RUN, "Export Results Table",
                          "_Export", "CSV files", "*.csv", "results.csv", on_table_path, v);
}

static GtkWidget *tool_button(const char *label, const char *tooltip, GCallback cb, compare_view *v)
{
    GtkWidget *b = gtk_button_new_with_mnemonic(label);
    gtk_widget_set_tooltip_text(b, tooltip);
    g_signal_connect(b, "clicked", cb, v);
    return b;
}

static GtkWidget *toolbar(compare_view *v)
{
    GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_widget_set_margin_start(bar, 6);
    gtk_widget_set_margin_end(bar, 6);
    gtk_widget_set_margin_top(bar, 6);
    gtk_widget_set_margin_bottom(bar, 6);
    gtk_box_append(GTK_BOX(bar), tool_button("Queue _Every Encoder",
                                             "One run per encoder with the current task, widths and budget",
                                             G_CALLBACK(on_queue_encoders), v));
    gtk_box_append(GTK_BOX(bar), tool_button("Queue _Current Config", "One run with the config as edited",
                                             G_CALLBACK(on_queue_current), v));
    GtkWidget *run = tool_button("_Run Queue", "Train the queued runs one after another in the background",
                                 G_CALLBACK(on_run_queue), v);
    gtk_widget_add_css_class(run, "suggested-action");
    gtk_box_append(GTK_BOX(bar), run);
    gtk_box_append(GTK_BOX(bar), tool_button("C_lear Queue", "Remove the runs not started yet",
                                             G_CALLBACK(on_clear), v));
    gtk_box_append(GTK_BOX(bar), tool_button("E_xport Table…", "Write the results table as CSV",
                                             G_CALLBACK(on_export_table), v));
    v->status = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(v->status), 1.0f);
    gtk_label_set_ellipsize(GTK_LABEL(v->status), PANGO_ELLIPSIZE_END);
    gtk_widget_set_hexpand(v->status, TRUE);
    gtk_widget_add_css_class(v->status, "dim-label");
    gtk_box_append(GTK_BOX(bar), v->status);
    return bar;
}

/* The pending runs under the toolbar: a summary line (count, ETA of the
 * whole queue, the estimate's basis) over a short list that scrolls. */
static GtkWidget *pending_list(compare_view *v)
{
    v->pending_summary = gtk_label_new(NULL);
    gtk_widget_set_name(v->pending_summary, "pending-summary");
    gtk_label_set_xalign(GTK_LABEL(v->pending_summary), 0.0f);
    gtk_label_set_wrap(GTK_LABEL(v->pending_summary), TRUE);
    gtk_widget_add_css_class(v->pending_summary, "heading");
    v->pending_grid = gtk_grid_new();
    gtk_widget_set_name(v->pending_grid, "pending-runs");
    gtk_grid_set_column_spacing(GTK_GRID(v->pending_grid), 18);
    gtk_grid_set_row_spacing(GTK_GRID(v->pending_grid), 2);
    GtkWidget *scroller = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_propagate_natural_height(GTK_SCROLLED_WINDOW(scroller), TRUE);
    gtk_scrolled_window_set_max_content_height(GTK_SCROLLED_WINDOW(scroller), 110);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroller), v->pending_grid);
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4);
    gtk_widget_set_margin_start(box, 12);
    gtk_widget_set_margin_end(box, 12);
    gtk_widget_set_margin_top(box, 6);
    gtk_widget_set_margin_bottom(box, 6);
    gtk_box_append(GTK_BOX(box), v->pending_summary);
    gtk_box_append(GTK_BOX(box), scroller);
    v->pending = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    gtk_box_append(GTK_BOX(v->pending), box);
    gtk_box_append(GTK_BOX(v->pending), gtk_separator_new(GTK_ORIENTATION_HORIZONTAL));
    return v->pending;
}

static GtkWidget *table_grid(const char *name)
{
    GtkWidget *grid = gtk_grid_new();
    gtk_widget_set_name(grid, name);
    gtk_grid_set_column_spacing(GTK_GRID(grid), 18);
    gtk_grid_set_row_spacing(GTK_GRID(grid), 4);
    gtk_widget_set_margin_start(grid, 12);
    gtk_widget_set_margin_end(grid, 12);
    gtk_widget_set_margin_top(grid, 6);
    gtk_widget_set_margin_bottom(grid, 6);
    return grid;
}

/* The header row stays in view: it sits above the scroller of the rows,
 * each column as wide in both (a size group per column). The two scroll
 * sideways together inside an outer scroller. */
static GtkWidget *results_table(compare_view *v)
{
    v->header = table_grid("results-header");
    v->table = table_grid("results-rows");
    for (guint c = 0; c < G_N_ELEMENTS(columns); c++) {
        v->widths[c] = gtk_size_group_new(GTK_SIZE_GROUP_HORIZONTAL);
        add_cell(v, v->header, (int)c, 0, columns[c]);
    }
    GtkWidget *rows = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(rows), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(rows), v->table);
    gtk_widget_set_vexpand(rows, TRUE);
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    gtk_box_append(GTK_BOX(box), v->header);
    gtk_box_append(GTK_BOX(box), gtk_separator_new(GTK_ORIENTATION_HORIZONTAL));
    gtk_box_append(GTK_BOX(box), rows);
    GtkWidget *sideways = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(sideways), GTK_POLICY_AUTOMATIC, GTK_POLICY_NEVER);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(sideways), box);
    gtk_widget_set_size_request(sideways, -1, 120);
    return sideways;
}

GtkWidget *rf_compare_view_new(RfSession *s)
{
    compare_view *v = g_new0(compare_view, 1);
    v->session = s;
    v->figure = rf_training_figure_new();
    rf_figure f = rf_training_figure_figure(v->figure);
    GtkWidget *plot = rf_plot_view_new(&f, TRUE);
    v->plot = RF_PLOT_VIEW(plot);
    gtk_widget_set_vexpand(plot, TRUE);

    GtkWidget *paned = gtk_paned_new(GTK_ORIENTATION_VERTICAL);
    gtk_paned_set_start_child(GTK_PANED(paned), plot);
    gtk_paned_set_end_child(GTK_PANED(paned), results_table(v));
    gtk_paned_set_resize_end_child(GTK_PANED(paned), FALSE);
    gtk_widget_set_vexpand(paned, TRUE);

    v->root = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    gtk_box_append(GTK_BOX(v->root), rf_view_scroll_sideways(toolbar(v)));
    gtk_box_append(GTK_BOX(v->root), gtk_separator_new(GTK_ORIENTATION_HORIZONTAL));
    gtk_box_append(GTK_BOX(v->root), pending_list(v));
    gtk_box_append(GTK_BOX(v->root), paned);
    /* The state (and the figure the plot draws) lives as long as the plot. */
    g_object_set_data_full(G_OBJECT(plot), STATE_KEY, v, (GDestroyNotify)compare_view_free);
    g_object_set_data(G_OBJECT(v->root), STATE_KEY, v);
    rf_view_set_plot(v->root, v->plot);

    g_signal_connect_object(s, "queue-changed", G_CALLBACK(on_session_changed), v->root, G_CONNECT_SWAPPED);
    g_signal_connect_object(s, "metrics-changed", G_CALLBACK(on_session_changed), v->root, G_CONNECT_SWAPPED);
    g_signal_connect_object(s, "state-changed", G_CALLBACK(on_session_changed), v->root, G_CONNECT_SWAPPED);
    g_signal_connect_object(s, "config-changed", G_CALLBACK(on_config_changed), v->root, G_CONNECT_SWAPPED);
    refresh(v);
    set_status(v, NULL);
    return v->root;
}
