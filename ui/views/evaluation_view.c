/* The Evaluation view: where the current model is right and wrong on the
 * test or validation split (ui/figures/evaluation_figure.h), as
 * `rangefinder eval --slices` computes it.
 *
 * Evaluate builds a forward-only model from the session's model (paused,
 * finished or stopped) on its run's data set in the background
 * (ui/background_model.h), classifies the whole split and measures the
 * baselines; the window stays responsive and training may go on meanwhile.
 * A click on a cell of the matrix lists its samples beside the figure; a
 * click on one (or Enter) opens it in the Data view (win.show-sample).
 * Export Plot writes the figure; Export CSV… the numbers
 * (rf_eval_slices_csv). */
#include <string.h>

#include "../../core/atomic_file.h"
#include "../../datasets/datasets.h"
#include "../background_model.h"
#include "../dialogs.h"
#include "../figures/evaluation_figure.h"
#include "../view.h"

#define STATE_KEY "rf-evaluation-view"
#define LISTED_MAX 1000   /* samples listed for one cell */

typedef struct evaluation_view {
    RfSession *session;          /* outlives the view (the window owns both) */
    RfPlotView *plot;            /* owns this state */
    rf_evaluation_figure *figure;
    rf_background_model model;   /* the Evaluate button and the status label */
    GtkWidget *split_menu, *export_csv, *cell_title, *samples;
    rf_split shown_split;        /* of the figure */
} evaluation_view;

typedef struct eval_job {
    rf_split split;
    int64_t step;
    rf_eval_slices slices;
} eval_job;

static void evaluation_view_free(evaluation_view *v)
{
    rf_evaluation_figure_free(v->figure);
    g_free(v);
}

static void eval_job_free(eval_job *job)
{
    rf_eval_slices_clear(&job->slices);
    g_free(job);
}

/* ---- the job (a worker thread) ---- */

static bool evaluate(void *data, rf_loaded_model *m, rf_status *st)
{
    eval_job *job = data;
    job->step = m->step;
    rf_status ignored = {0};   /* no baselines is no error: images, audio */
    rf_baseline_rules rules;
    bool have_rules = m->ds->feat_dim == 0 && rf_baseline_rules_fit(m->ds, &rules, &ignored);
    rf_eval_trainer c = {m->trainer};
    bool ok = rf_eval_slices_measure(m->ds, job->split, m->cfg.data.concat, have_rules ? &rules : NULL,
                                     rf_trainer_model(m->trainer)->batch * RF_LENGTH_BUCKETS,
                                     rf_eval_classify_trainer, &c, &job->slices, st);
    job->slices.rules = NULL;   /* borrowed for the measuring only */
    if (have_rules)
        rf_baseline_rules_clear(&rules);
    return ok;
}

/* ---- the view ---- */

static void clear_samples(evaluation_view *v, const char *title)
{
    gtk_label_set_text(GTK_LABEL(v->cell_title), title);
    for (GtkWidget *row; (row = gtk_widget_get_first_child(v->samples)) != NULL;)
        gtk_list_box_remove(GTK_LIST_BOX(v->samples), row);
}

static void on_evaluated(void *view, void *data)
{
    evaluation_view *v = view;
    eval_job *job = data;
    const rf_eval_slices *s = &job->slices;
    double accuracy = s->samples > 0 ? (double)s->right / (double)s->samples : 0;
    g_autofree char *title = g_strdup_printf("%s split at step %lld: %lld samples, accuracy %.1f%%",
                                             job->split == RF_SPLIT_VAL ? "Validation" : "Test",
                                             (long long)job->step, (long long)s->samples, 100 * accuracy);
    v->shown_split = job->split;
    rf_evaluation_figure_set(v->figure, &job->slices, title);
    gtk_widget_set_sensitive(v->export_csv, TRUE);
    clear_samples(v, "Click a cell of the matrix to list its samples");
    rf_background_model_say(&v->model, title);
    rf_plot_view_queue_draw(v->plot);
}

static void on_evaluate(GtkButton *button, gpointer data)
{
    (void)button;
    evaluation_view *v = data;
    if (!rf_background_model_ready(&v->model))
        return;
    eval_job *job = g_new0(eval_job, 1);
    job->split = gtk_drop_down_get_selected(GTK_DROP_DOWN(v->split_menu)) == 1 ? RF_SPLIT_VAL : RF_SPLIT_TEST;
    rf_background_model_start(&v->model, job, (GDestroyNotify)eval_job_free);
}

/* A cell was chosen: list its samples, their text where the session's data
 * set is the evaluated one. */
static void on_cell(void *data, int label, int answer)
{
    evaluation_view *v = data;
    const rf_eval_slices *s = rf_evaluation_figure_slices(v->figure);
    if (s == NULL)
        return;
    int64_t count = 0;
    g_autofree int64_t *indices = rf_eval_slices_cell(s, label, answer, &count);
    char label_name[64], answer_name[64];
    rf_eval_slices_class_name(s, label, label_name, sizeof label_name);
    rf_eval_slices_class_name(s, answer, answer_name, sizeof answer_name);
    g_autofree char *title = g_strdup_printf(count > LISTED_MAX ? "Label %s, answered %s: %lld samples (the first %d)"
                                                                : "Label %s, answered %s: %lld samples",
                                             label_name, answer_name, (long long)count, LISTED_MAX);
    clear_samples(v, title);
    const rf_dataset *ds = rf_session_get_dataset(v->session);
    bool describe = ds != NULL && ds->describe != NULL && ds->size[v->shown_split] == s->samples;
    char text[256];
    for (int64_t i = 0; i < MIN(count, LISTED_MAX); i++) {
        text[0] = '\0';
        if (describe)
            ds->describe(ds, v->shown_split, indices[i], text, sizeof text);
        g_autofree char *line = g_strdup_printf("#%lld%s%s", (long long)indices[i], text[0] ? " · " : "", text);
        GtkWidget *row = gtk_label_new(line);
        gtk_label_set_xalign(GTK_LABEL(row), 0);
        gtk_label_set_ellipsize(GTK_LABEL(row), PANGO_ELLIPSIZE_END);
        gtk_widget_set_tooltip_text(row, "Open this sample in the Data view");
        gtk_list_box_append(GTK_LIST_BOX(v->samples), row);
        g_object_set_data(G_OBJECT(gtk_widget_get_parent(row)), "sample", GINT_TO_POINTER((int)indices[i] + 1));
    }
}

static void on_sample_activated(GtkListBox *box, GtkListBoxRow *row, gpointer data)
{
    evaluation_view *v = data;
    int index = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(row), "sample")) - 1;
    if (index >= 0)
        gtk_widget_activate_action(GTK_WIDGET(box), "win.show-sample", "(ix)", (gint32)v->shown_split,
                                   (gint64)index);
}

static void csv_chosen(const char *path, gpointer data)
{
    GtkWidget *plot = data;
    evaluation_view *v = g_object_get_data(G_OBJECT(plot), STATE_KEY);
    const rf_eval_slices *s = rf_evaluation_figure_slices(v->figure);
    if (path != NULL && s != NULL) {
        g_autofree char *text = rf_eval_slices_csv(s);
        rf_status st = {0};
        if (rf_atomic_write_bytes(path, text, strlen(text), &st)) {
            g_autofree char *done = g_strdup_printf("Wrote %s", path);
            rf_background_model_say(&v->model, done);
        } else {
            rf_dialog_error(GTK_WINDOW(gtk_widget_get_root(plot)), "Could not export the evaluation", st.msg);
        }
    }
    g_object_unref(plot);
}

static void on_export_csv(GtkButton *button, gpointer data)
{
    evaluation_view *v = data;
    rf_dialog_choose_path(GTK_WINDOW(gtk_widget_get_root(GTK_WIDGET(button))), RF_CHOOSE_SAVE_FILE, RF_FOLDER_RUN,
                          "Export Evaluation", "_Export", "CSV tables", "*.csv", "evaluation.csv", csv_chosen,
                          g_object_ref(v->plot));
}

static GtkWidget *build_toolbar(evaluation_view *v)
{
    GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12);
    GtkWidget *button = gtk_button_new_with_mnemonic("_Evaluate");
    gtk_widget_set_name(button, "evaluate");
    gtk_widget_add_css_class(button, "suggested-action");
    gtk_widget_set_tooltip_text(button, "Classify the whole split with the model as it is now (pause a run "
                                        "first) and show where it is right and wrong");
    const char *const splits[] = {"Test", "Validation", NULL};
    v->split_menu = gtk_drop_down_new_from_strings(splits);
    gtk_widget_set_tooltip_text(v->split_menu, "The split to evaluate");
    v->export_csv = gtk_button_new_with_label("Export CSV…");
    gtk_widget_set_name(v->export_csv, "evaluation-export-csv");
    gtk_widget_set_tooltip_text(v->export_csv, "The matrix, the per-class numbers and the slices as one CSV table "
                                               "(File → Export Plot writes the figure)");
    gtk_widget_set_sensitive(v->export_csv, FALSE);
    v->model = (rf_background_model){.session = v->session, .plot = v->plot, .button = button,
                                     .verb = "evaluate", .busy = "Evaluating…", .work = evaluate,
                                     .done = on_evaluated, .view = v};
    gtk_box_append(GTK_BOX(bar), button);
    gtk_box_append(GTK_BOX(bar), v->split_menu);
    gtk_box_append(GTK_BOX(bar), v->export_csv);
    gtk_box_append(GTK_BOX(bar), rf_background_model_status(&v->model, "evaluation-status", NULL));
    g_signal_connect(button, "clicked", G_CALLBACK(on_evaluate), v);
    g_signal_connect(v->export_csv, "clicked", G_CALLBACK(on_export_csv), v);
    return bar;
}

static GtkWidget *build_samples(evaluation_view *v)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    v->cell_title = gtk_label_new("Click a cell of the matrix to list its samples");
    gtk_label_set_xalign(GTK_LABEL(v->cell_title), 0);
    gtk_label_set_wrap(GTK_LABEL(v->cell_title), TRUE);
    gtk_widget_add_css_class(v->cell_title, "heading");
    v->samples = gtk_list_box_new();
    gtk_widget_set_name(v->samples, "evaluation-samples");
    gtk_list_box_set_activate_on_single_click(GTK_LIST_BOX(v->samples), TRUE);
    g_signal_connect(v->samples, "row-activated", G_CALLBACK(on_sample_activated), v);
    GtkWidget *scroller = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroller), v->samples);
    gtk_widget_set_vexpand(scroller, TRUE);
    gtk_box_append(GTK_BOX(box), v->cell_title);
    gtk_box_append(GTK_BOX(box), scroller);
    gtk_widget_set_size_request(box, 200, -1);
    return box;
}

GtkWidget *rf_evaluation_view_new(RfSession *s)
{
    evaluation_view *v = g_new0(evaluation_view, 1);
    v->session = s;
    v->figure = rf_evaluation_figure_new();
    rf_evaluation_figure_on_cell(v->figure, on_cell, v);
    rf_figure f = rf_evaluation_figure_get(v->figure);
    GtkWidget *plot = rf_plot_view_new(&f, FALSE);
    v->plot = RF_PLOT_VIEW(plot);
    g_object_set_data_full(G_OBJECT(plot), STATE_KEY, v, (GDestroyNotify)evaluation_view_free);
    gtk_widget_set_hexpand(plot, TRUE);
    gtk_widget_set_vexpand(plot, TRUE);

    GtkWidget *paned = gtk_paned_new(GTK_ORIENTATION_HORIZONTAL);
    gtk_paned_set_start_child(GTK_PANED(paned), plot);
    gtk_paned_set_end_child(GTK_PANED(paned), build_samples(v));
    gtk_paned_set_resize_end_child(GTK_PANED(paned), FALSE);
    gtk_paned_set_shrink_end_child(GTK_PANED(paned), FALSE);
    gtk_widget_set_vexpand(paned, TRUE);

    GtkWidget *view = rf_view_new_with_toolbar(build_toolbar(v), paned, v->plot);
    return view;
}
