/* The Distributions view: one tensor's distribution over training
 * (min, max and the percentiles of distributions.csv at each evaluation)
 * as TensorBoard-style bands over steps (ui/figures/distribution_figure.h),
 * for the runs the Training view overlays: the session's runs and the
 * runs picked in the Runs view, each in its run colour.
 *
 * Above the figure: what to show (parameters, gradients or probe taps) and
 * which tensor, a drop-down that searches as one types. The view re-reads
 * a run's distributions.csv when the file changes: on the session's
 * signals and, while the view is shown, once a second (runs of the runs
 * folder may be trained by the command line). */
#include <string.h>
#include <sys/stat.h>

#include "../../config/distributions_csv.h"
#include "../drop_down_tooltip.h"
#include "../figures/distribution_figure.h"
#include "../plot/plot.h"
#include "../view.h"

#define STATE_KEY "rf-distributions-view"
#define POLL_SECONDS 1
#define NO_RUNS "No runs to show: train a run (Train in the sidebar) or pick runs in the Runs view; " \
                "their distributions appear here at each evaluation"
#define NO_FILE "These runs have no distributions.csv (runs from before distributions were recorded " \
                "have none): train a run to see its tensors here"
#define NO_ROWS "No evaluation yet: a run records its distributions at each evaluation " \
                "(every train.eval_every steps)"

/* A run folder's distributions.csv as last read. */
typedef struct run_file {
    GArray *rows;                /* rf_distribution_row; NULL: missing or unreadable */
    char *error;                 /* why it could not be read (a missing file is no error) */
    gint64 mtime_ns;             /* -1: no file */
    gint64 size;
} run_file;

typedef struct distributions_view {
    RfSession *session;          /* outlives the view (the window owns both) */
    RfPlotView *plot;            /* owns this state */
    rf_distribution_figure figure;
    GHashTable *files;           /* run folder -> run_file */
    GtkWidget *kind_menu, *tensor_menu, *status;
    GtkStringList *tensors;      /* the chosen kind's tensors of the runs shown */
    const char *why_empty;       /* NULL: the figure has rows to draw */
    char message[512];           /* a file that could not be read, or a kind no run has, said in the figure */
    gboolean filling;            /* the tensor list is being replaced: ignore its selection */
    guint poll;
} distributions_view;

static void run_file_free(run_file *rf)
{
    if (rf->rows != NULL)
        g_array_unref(rf->rows);
    g_free(rf->error);
    g_free(rf);
}

static void distributions_view_free(distributions_view *v)
{
    g_clear_handle_id(&v->poll, g_source_remove);
    rf_distribution_figure_clear(&v->figure);
    g_hash_table_unref(v->files);
    g_free(v);
}

/* Whether the file at `path` is there, with its time and size. */
static gboolean stamp(const char *path, gint64 *mtime_ns, gint64 *size)
{
    struct stat st;
    gboolean exists = stat(path, &st) == 0;
    *mtime_ns = exists ? (gint64)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec : -1;
    *size = exists ? (gint64)st.st_size : -1;
    return exists;
}

static gboolean changed_since(const char *dir, const run_file *rf)
{
    g_autofree char *path = g_build_filename(dir, "distributions.csv", NULL);
    gint64 mtime_ns, size;
    stamp(path, &mtime_ns, &size);
    return rf == NULL || mtime_ns != rf->mtime_ns || size != rf->size;
}

/* `dir`'s distributions.csv, read again when its size or time changed. */
static run_file *load_file(distributions_view *v, const char *dir)
{
    run_file *rf = g_hash_table_lookup(v->files, dir);
    if (!changed_since(dir, rf))
        return rf;
    g_autofree char *path = g_build_filename(dir, "distributions.csv", NULL);
    gint64 mtime_ns, size;
    gboolean exists = stamp(path, &mtime_ns, &size);
    if (rf == NULL) {
        rf = g_new0(run_file, 1);
        g_hash_table_insert(v->files, g_strdup(dir), rf);
    }
    rf->mtime_ns = mtime_ns;
    rf->size = size;
    g_clear_pointer(&rf->rows, g_array_unref);
    g_clear_pointer(&rf->error, g_free);
    if (exists) {
        g_autoptr(GError) error = NULL;
        rf->rows = rf_distributions_csv_read_written(path, &error);   /* a run may be writing it */
        if (rf->rows == NULL)
            rf->error = g_strdup(error->message);
    }
    return rf;
}

static gboolean has_dir(GPtrArray *runs, const char *dir)
{
    for (guint i = 0; i < runs->len && dir != NULL; i++)
        if (g_strcmp0(((rf_run_data *)g_ptr_array_index(runs, i))->dir, dir) == 0)
            return TRUE;
    return FALSE;
}

/* The runs the Training view draws (ui/views/training_view.c): the
 * session's, less those a later run goes on from, then the picked ones. */
static GPtrArray *shown_runs(RfSession *s)
{
    GPtrArray *runs = rf_session_get_runs(s), *overlays = rf_session_get_overlays(s);
    GPtrArray *drawn = g_ptr_array_new();
    for (guint i = 0; i < runs->len; i++)
        if (!rf_session_run_superseded(s, i))
            g_ptr_array_add(drawn, g_ptr_array_index(runs, i));
    for (guint i = 0; i < overlays->len; i++) {
        rf_run_data *r = g_ptr_array_index(overlays, i);
        if (!has_dir(runs, r->dir))
            g_ptr_array_add(drawn, r);
    }
    return drawn;
}

static rf_dist_kind chosen_kind(distributions_view *v)
{
    guint k = gtk_drop_down_get_selected(GTK_DROP_DOWN(v->kind_menu));
    return k < RF_DIST_KINDS ? (rf_dist_kind)k : RF_DIST_PARAM;
}

static const char *chosen_tensor(distributions_view *v)
{
    guint i = gtk_drop_down_get_selected(GTK_DROP_DOWN(v->tensor_menu));
    return i < g_list_model_get_n_items(G_LIST_MODEL(v->tensors)) ? gtk_string_list_get_string(v->tensors, i)
                                                                   : NULL;
}

/* The tensors of the chosen kind, in the order of the first run that has
 * them, the choice kept where the new list holds it. */
static void fill_tensors(distributions_view *v, GPtrArray *files)
{
    rf_dist_kind kind = chosen_kind(v);
    g_autoptr(GPtrArray) names = g_ptr_array_new();
    g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint f = 0; f < files->len; f++) {
        const GArray *rows = ((run_file *)g_ptr_array_index(files, f))->rows;
        for (guint i = 0; rows != NULL && i < rows->len; i++) {
            const rf_distribution_row *r = &g_array_index(rows, rf_distribution_row, i);
            if (r->d.kind == kind && g_hash_table_add(seen, (gpointer)r->d.name))
                g_ptr_array_add(names, (gpointer)r->d.name);
        }
    }
    guint n = g_list_model_get_n_items(G_LIST_MODEL(v->tensors));
    gboolean same = n == names->len;
    for (guint i = 0; same && i < n; i++)
        same = strcmp(gtk_string_list_get_string(v->tensors, i), names->pdata[i]) == 0;
    if (same)
        return;
    g_autofree char *was = g_strdup(chosen_tensor(v));
    g_ptr_array_add(names, NULL);
    v->filling = TRUE;
    gtk_string_list_splice(v->tensors, 0, n, (const char *const *)names->pdata);
    guint keep = 0;
    for (guint i = 0; was != NULL && i + 1 < names->len; i++)
        if (strcmp(names->pdata[i], was) == 0)
            keep = i;
    gtk_drop_down_set_selected(GTK_DROP_DOWN(v->tensor_menu), names->len > 1 ? keep : GTK_INVALID_LIST_POSITION);
    v->filling = FALSE;
}

/* Re-read what changed, and draw the chosen tensor of the runs shown. */
static void refresh(distributions_view *v)
{
    g_autoptr(GPtrArray) runs = shown_runs(v->session);
    g_autoptr(GPtrArray) files = g_ptr_array_new();   /* run_file of each run with a folder, borrowed */
    g_autoptr(GPtrArray) labels = g_ptr_array_new();
    g_autoptr(GArray) colors = g_array_new(FALSE, FALSE, sizeof(int));
    GString *errors = g_string_new(NULL);
    int with_file = 0, with_rows = 0, evaluations = 0;
    g_autoptr(GHashTable) shown_dirs = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = 0; i < runs->len; i++) {
        const rf_run_data *r = g_ptr_array_index(runs, i);
        if (r->dir == NULL)
            continue;
        run_file *rf = load_file(v, r->dir);
        g_hash_table_add(shown_dirs, r->dir);
        g_ptr_array_add(files, rf);
        g_ptr_array_add(labels, r->name);
        int color = r->color >= 0 ? r->color : (int)i;   /* as the Training figure colours it */
        g_array_append_val(colors, color);
        with_file += rf->rows != NULL;
        with_rows += rf->rows != NULL && rf->rows->len > 0;
        if (rf->error != NULL)
            g_string_append_printf(errors, "%s%s", errors->len > 0 ? "; " : "", rf->error);
    }
    /* the files of runs no longer shown are forgotten */
    GHashTableIter it;
    gpointer dir;
    g_hash_table_iter_init(&it, v->files);
    while (g_hash_table_iter_next(&it, &dir, NULL))
        if (!g_hash_table_contains(shown_dirs, dir))
            g_hash_table_iter_remove(&it);
    fill_tensors(v, files);

    const char *name = chosen_tensor(v);
    rf_distribution_figure_clear(&v->figure);
    rf_distribution_figure_init(&v->figure, name != NULL ? name : "", chosen_kind(v));
    guint drawn = 0;
    for (guint f = 0; f < files->len && name != NULL; f++) {
        const run_file *rf = g_ptr_array_index(files, f);
        if (rf->rows == NULL)
            continue;
        guint n = rf_distribution_figure_add_run_colored(&v->figure, labels->pdata[f],
                                                         g_array_index(colors, int, f), rf->rows);
        drawn += n > 0;
        evaluations = MAX(evaluations, (int)n);
    }
    if (errors->len > 0)
        g_strlcpy(v->message, errors->str, sizeof v->message);
    else
        g_snprintf(v->message, sizeof v->message, "These runs recorded no %s distributions: choose another kind",
                   chosen_kind(v) == RF_DIST_GRAD  ? "gradient"
                   : chosen_kind(v) == RF_DIST_TAP ? "probe tap"
                                                   : "parameter");
    v->why_empty = runs->len == 0                        ? NO_RUNS
                   : drawn > 0                           ? NULL
                   : errors->len > 0                     ? v->message
                   : with_file == 0                      ? NO_FILE
                   : with_rows > 0                       ? v->message
                                                         : NO_ROWS;
    guint tensors = g_list_model_get_n_items(G_LIST_MODEL(v->tensors));
    g_autofree char *said = NULL;
    if (errors->len > 0)
        said = g_strdup(errors->str);
    else if (v->why_empty == NULL)
        said = g_strdup_printf("%u of %u run%s · %d evaluation%s · %u tensor%s", drawn, runs->len,
                               runs->len == 1 ? "" : "s", evaluations, evaluations == 1 ? "" : "s", tensors,
                               tensors == 1 ? "" : "s");
    gtk_label_set_text(GTK_LABEL(v->status), said != NULL ? said : "");
    gtk_widget_set_tooltip_text(v->status, said);
    gtk_widget_set_sensitive(v->tensor_menu, tensors > 0);
    g_string_free(errors, TRUE);
    rf_plot_view_queue_draw(v->plot);
}

/* While the view is shown: a run folder's file changed? */
static gboolean poll_files(gpointer data)
{
    distributions_view *v = data;
    if (!gtk_widget_get_mapped(GTK_WIDGET(v->plot)))
        return G_SOURCE_CONTINUE;
    GHashTableIter it;
    gpointer dir, value;
    gboolean changed = FALSE;
    g_hash_table_iter_init(&it, v->files);
    while (!changed && g_hash_table_iter_next(&it, &dir, &value))
        changed = changed_since(dir, value);
    if (changed)
        refresh(v);
    return G_SOURCE_CONTINUE;
}

/* ---- the figure: the distribution figure, or what to do first ---- */

static void draw(void *data, cairo_t *cr, double width, double height, const rf_zoom *zoom)
{
    distributions_view *v = data;
    if (v->why_empty != NULL) {
        rf_draw_message(cr, (rf_rect){0, 0, width, height}, v->why_empty);
        return;
    }
    rf_figure f = rf_distribution_figure_figure(&v->figure);
    f.draw(f.data, cr, width, height, zoom);
}

static bool hover(void *data, double width, double height, const rf_zoom *zoom, double x, double y, char *text,
                  size_t size)
{
    distributions_view *v = data;
    rf_figure f = rf_distribution_figure_figure(&v->figure);
    return v->why_empty == NULL && f.hover(f.data, width, height, zoom, x, y, text, size);
}

static bool empty(void *data, char *why, size_t size)
{
    distributions_view *v = data;
    if (v->why_empty == NULL)
        return false;
    g_strlcpy(why, v->why_empty, size);
    return true;
}

/* ---- the controls ---- */

static void on_session_changed(RfSession *s, gpointer plot)
{
    (void)s;
    refresh(g_object_get_data(plot, STATE_KEY));
}

static void on_kind(GtkDropDown *d, GParamSpec *pspec, gpointer data)
{
    (void)d;
    (void)pspec;
    distributions_view *v = data;
    rf_plot_view_reset_zoom(v->plot);
    refresh(v);
}

static void on_tensor(GtkDropDown *d, GParamSpec *pspec, gpointer data)
{
    (void)d;
    (void)pspec;
    distributions_view *v = data;
    if (v->filling)
        return;
    rf_plot_view_reset_zoom(v->plot);
    refresh(v);
}

static GtkWidget *build_toolbar(distributions_view *v)
{
    GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
    static const char *const kinds[] = {"Parameters", "Gradients", "Taps", NULL};
    v->kind_menu = gtk_drop_down_new_from_strings(kinds);
    gtk_widget_set_name(v->kind_menu, "distributions-kind");
    gtk_widget_set_tooltip_text(v->kind_menu, "Parameter tensors, their gradients (of the last step before each "
                                              "evaluation) or the probe taps (activations, BLRP's latent norms, "
                                              "TaLK's window sizes)");
    rf_drop_down_tooltip_when_closed(v->kind_menu);

    v->tensors = gtk_string_list_new(NULL);
    v->tensor_menu = gtk_drop_down_new(G_LIST_MODEL(v->tensors),
                                       gtk_property_expression_new(GTK_TYPE_STRING_OBJECT, NULL, "string"));
    gtk_widget_set_name(v->tensor_menu, "distributions-tensor");
    gtk_drop_down_set_enable_search(GTK_DROP_DOWN(v->tensor_menu), TRUE);
    gtk_widget_set_tooltip_text(v->tensor_menu, "The tensor drawn; type in the open list to search its names");
    rf_drop_down_tooltip_when_closed(v->tensor_menu);
    GtkWidget *tensor_label = gtk_label_new_with_mnemonic("_Tensor");
    gtk_label_set_mnemonic_widget(GTK_LABEL(tensor_label), v->tensor_menu);

    v->status = gtk_label_new(NULL);
    gtk_widget_set_name(v->status, "distributions-status");
    gtk_widget_add_css_class(v->status, "dim-label");
    gtk_widget_set_hexpand(v->status, TRUE);
    gtk_widget_set_halign(v->status, GTK_ALIGN_END);
    gtk_label_set_ellipsize(GTK_LABEL(v->status), PANGO_ELLIPSIZE_END);
    gtk_label_set_width_chars(GTK_LABEL(v->status), 12);

    gtk_box_append(GTK_BOX(bar), v->kind_menu);
    gtk_box_append(GTK_BOX(bar), tensor_label);
    gtk_box_append(GTK_BOX(bar), v->tensor_menu);
    gtk_box_append(GTK_BOX(bar), v->status);
    g_signal_connect(v->kind_menu, "notify::selected", G_CALLBACK(on_kind), v);
    g_signal_connect(v->tensor_menu, "notify::selected", G_CALLBACK(on_tensor), v);
    return bar;
}

GtkWidget *rf_distributions_view_new(RfSession *s)
{
    distributions_view *v = g_new0(distributions_view, 1);
    v->session = s;
    v->files = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)run_file_free);
    rf_distribution_figure_init(&v->figure, "", RF_DIST_PARAM);
    v->why_empty = NO_RUNS;
    rf_figure f = {.draw = draw, .hover = hover, .empty = empty, .data = v};
    GtkWidget *plot = rf_plot_view_new(&f, TRUE);
    v->plot = RF_PLOT_VIEW(plot);
    g_object_set_data_full(G_OBJECT(plot), STATE_KEY, v, (GDestroyNotify)distributions_view_free);
    gtk_widget_set_hexpand(plot, TRUE);
    gtk_widget_set_vexpand(plot, TRUE);

    GtkWidget *view = rf_view_new_with_toolbar(build_toolbar(v), plot, v->plot);
    g_object_set_data(G_OBJECT(view), STATE_KEY, v);

    g_signal_connect_object(s, "metrics-changed", G_CALLBACK(on_session_changed), plot, 0);
    g_signal_connect_object(s, "state-changed", G_CALLBACK(on_session_changed), plot, 0);
    g_signal_connect_object(s, "overlays-changed", G_CALLBACK(on_session_changed), plot, 0);
    v->poll = g_timeout_add_seconds(POLL_SECONDS, poll_files, v);
    refresh(v);
    return view;
}

const rf_distribution_figure *rf_distributions_view_figure(GtkWidget *view)
{
    const distributions_view *v = g_object_get_data(G_OBJECT(view), STATE_KEY);
    return v != NULL && v->why_empty == NULL ? &v->figure : NULL;
}
