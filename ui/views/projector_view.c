/* The Projector view: how the current model arranges the first samples of
 * the validation (or test) split, as `rangefinder project` computes it:
 * their pooled representation (the head's input) or BLRP's final latent
 * state, reduced by PCA to two coordinates and drawn as a scatter
 * (ui/figures/projector_figure.h) coloured by label, answer or
 * correctness.
 *
 * Compute builds a forward-only model from the session's model (paused,
 * finished or stopped) on its run's data set in the background
 * (ui/background_model.h), collects the vectors (datasets/projection.h) and
 * fits the PCA (core/pca.h); the window stays responsive meanwhile. Hover
 * names a sample, a click opens it in the Data view (win.show-sample).
 * Export Plot writes the figure; Export for TensorBoard… the vectors in
 * TensorBoard's projector format (datasets/projection_tensorboard.h).
 *
 * The step slider's positions are the run's kept weights (its folder's
 * weights/, core/kept_weights.h), oldest first, and last the current
 * model: moving it projects that step's weights in the background, which
 * needs no paused run, so it works while the run trains (new steps join as
 * they are written). A run that keeps none leaves it insensitive, saying
 * why. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/kept_weights.h"
#include "../../core/pca.h"
#include "../../datasets/datasets.h"
#include "../../datasets/projection_tensorboard.h"
#include "../background_model.h"
#include "../dialogs.h"
#include "../drop_down_tooltip.h"
#include "../figures/position_words.h"
#include "../figures/projector_figure.h"
#include "../view.h"

#define STATE_KEY "rf-projector-view"
#define WORDS_SHOWN 24          /* positions of a sample named in hover, for data without describe() */
#define NO_KEPT_STEPS "This run keeps no weights of earlier evaluations (train.keep_weights = 0, no runs " \
                      "folder, or no evaluation yet), so only the current model can be projected"
#define STEPS_TIP "The step projected: the weights the run kept at its evaluations (train.keep_weights of them, " \
                  "spread over the run), or the current model at the right end"
#define LATENT_ONLY_BLRP "BLRP's latent state exists only for model.encoder = blrp"

typedef struct projector_view {
    RfSession *session;          /* outlives the view (the window owns both) */
    RfPlotView *plot;            /* owns this state */
    rf_projector_figure *figure;
    rf_background_model model;   /* the Compute button and the status label */
    GtkWidget *split_menu, *samples, *what_menu, *colour_menu, *steps, *step_label, *export_tb;
    GArray *kept;                /* int64_t: the steps the run's folder keeps weights of, ascending */
    char *kept_dir;              /* that folder, or NULL */
    gboolean pending;            /* the slider moved while a projection ran: project again after it */
    rf_projection shown;         /* what the figure shows (its vectors, for the TensorBoard export) */
    rf_split shown_split;
    char shown_data[64];         /* its data set's name and split size: describe only the same samples */
    int64_t shown_split_size;
} projector_view;

typedef struct project_job {
    rf_split split;
    int64_t samples, step;
    int64_t kept_step;           /* the kept weights' step (the run's count), or -1: the current model */
    rf_projection_what what;
    rf_projection p;
    float *coords;               /* p.count x 2 */
    double explained[2];
    int classes;
    char **class_names;          /* the data set's (NULL-terminated copies), or NULL */
    char data_name[64];
    int64_t split_size;
} project_job;

static void projector_view_free(projector_view *v)
{
    rf_projector_figure_free(v->figure);
    rf_projection_clear(&v->shown);
    g_array_unref(v->kept);
    g_free(v->kept_dir);
    g_free(v);
}

static void project_job_free(project_job *job)
{
    rf_projection_clear(&job->p);
    g_free(job->coords);
    g_strfreev(job->class_names);
    g_free(job);
}

/* ---- the job (a worker thread) ---- */

static bool project(void *data, rf_loaded_model *m, rf_status *st)
{
    project_job *job = data;
    const rf_dataset *ds = m->ds;
    job->step = job->kept_step >= 0 ? job->kept_step : m->step;
    rf_pca pca = {0};
    bool ok = rf_projection_collect(m->trainer, ds, job->split, job->samples, job->what, &job->p, st) &&
              rf_pca_fit(job->p.vectors, job->p.count, job->p.width, 2, &pca, st);
    if (ok) {
        job->coords = g_new(float, (size_t)job->p.count * 2);
        rf_pca_project(&pca, job->p.vectors, job->p.count, job->coords);
        job->explained[0] = pca.explained[0];
        job->explained[1] = pca.explained[1];
        job->classes = ds->classes;
        if (ds->class_names != NULL) {   /* ds->classes of them, not NULL-terminated */
            job->class_names = g_new0(char *, (size_t)ds->classes + 1);
            for (int c = 0; c < ds->classes; c++)
                job->class_names[c] = g_strdup(ds->class_names[c]);
        }
        g_strlcpy(job->data_name, ds->name != NULL ? ds->name : "", sizeof job->data_name);
        job->split_size = ds->size[job->split];
    }
    rf_pca_clear(&pca);
    return ok;
}

/* ---- the view ---- */

static void project_chosen(projector_view *v);

static void on_projected(void *view, void *data)
{
    projector_view *v = view;
    project_job *job = data;
    const rf_projection *p = &job->p;
    int64_t right = 0;
    for (int64_t i = 0; i < p->count; i++)
        right += p->label[i] == p->predicted[i];
    g_autofree char *title = g_strdup_printf(
        "%s of the first %lld %s samples at step %lld (%d numbers each), accuracy %.1f%%",
        job->what == RF_PROJECTION_LATENT ? "BLRP's final latent state" : "Pooled representation",
        (long long)p->count, job->split == RF_SPLIT_VAL ? "validation" : "test", (long long)job->step, p->width,
        100.0 * (double)right / (double)p->count);
    rf_projector_figure_set(v->figure, job->coords, p->count, p->label, p->predicted, job->classes,
                            (const char *const *)job->class_names, job->explained, title);
    rf_projection_clear(&v->shown);
    v->shown = job->p;
    job->p = (rf_projection){0};
    v->shown_split = job->split;
    g_strlcpy(v->shown_data, job->data_name, sizeof v->shown_data);
    v->shown_split_size = job->split_size;
    gtk_widget_set_sensitive(v->export_tb, TRUE);
    rf_background_model_say(&v->model, title);
    rf_plot_view_queue_draw(v->plot);
    if (v->pending) {
        v->pending = FALSE;
        project_chosen(v);
    }
}

/* The kept step the slider is at, or -1 at its right end (the current model). */
static int64_t chosen_step(projector_view *v)
{
    int at = (int)lround(gtk_range_get_value(GTK_RANGE(v->steps)));
    return at >= 0 && at < (int)v->kept->len ? g_array_index(v->kept, int64_t, at) : -1;
}

/* Project the step the slider is at: a kept one from its file, the
 * current model as it is now (which needs a paused run). */
static void project_chosen(projector_view *v)
{
    int64_t step = chosen_step(v);
    char path[4096];
    if (step >= 0 ? v->model.computing : !rf_background_model_ready(&v->model))
        return;
    if (step >= 0 && !rf_kept_weights_path(v->kept_dir, step, path, sizeof path))
        return;
    project_job *job = g_new0(project_job, 1);
    job->kept_step = step;
    job->split = gtk_drop_down_get_selected(GTK_DROP_DOWN(v->split_menu)) == 1 ? RF_SPLIT_TEST : RF_SPLIT_VAL;
    job->samples = gtk_spin_button_get_value_as_int(GTK_SPIN_BUTTON(v->samples));
    job->what = gtk_widget_get_sensitive(v->what_menu) &&
                        gtk_drop_down_get_selected(GTK_DROP_DOWN(v->what_menu)) == 1
                    ? RF_PROJECTION_LATENT
                    : RF_PROJECTION_POOL;
    if (step >= 0)
        rf_background_model_start_file(&v->model, path, job, (GDestroyNotify)project_job_free);
    else
        rf_background_model_start(&v->model, job, (GDestroyNotify)project_job_free);
}

static void on_compute(GtkButton *button, gpointer data)
{
    (void)button;
    project_chosen(data);
}

/* "now" or the step, beside the slider. */
static void show_chosen_step(projector_view *v)
{
    int64_t step = chosen_step(v);
    g_autofree char *text = step >= 0 ? g_strdup_printf("%lld", (long long)step) : g_strdup("now");
    gtk_label_set_text(GTK_LABEL(v->step_label), text);
}

static void on_step_moved(GtkRange *range, gpointer data)
{
    (void)range;
    projector_view *v = data;
    show_chosen_step(v);
    if (v->model.computing)
        v->pending = TRUE;
    else
        project_chosen(v);
}

/* The slider's positions from the current run's folder: its kept steps,
 * then the current model. It stays where it was (the same step, or the
 * current model) as steps join or are thinned away. */
static void update_steps(projector_view *v)
{
    rf_run_data *run = rf_session_get_current_run(v->session);
    const char *dir = run != NULL ? run->dir : NULL;
    int64_t *steps = NULL;
    int n = 0;
    rf_status st = {0};
    if (dir == NULL || !rf_kept_weights_list(dir, &steps, &n, &st))
        n = 0;
    gboolean same = g_strcmp0(dir, v->kept_dir) == 0 && (guint)n == v->kept->len &&
                    (n == 0 || memcmp(steps, v->kept->data, (size_t)n * sizeof *steps) == 0);
    if (same) {
        free(steps);
        return;
    }
    int64_t was = chosen_step(v);
    g_free(v->kept_dir);
    v->kept_dir = g_strdup(dir);
    g_array_set_size(v->kept, 0);
    if (n > 0)
        g_array_append_vals(v->kept, steps, (guint)n);
    free(steps);
    int at = MAX(n, 1);   /* the current model, unless the step shown before is still kept */
    for (int i = 0; was >= 0 && i < n; i++)
        if (g_array_index(v->kept, int64_t, i) == was)
            at = i;
    g_signal_handlers_block_by_func(v->steps, on_step_moved, v);
    gtk_range_set_range(GTK_RANGE(v->steps), 0, MAX(n, 1));
    gtk_range_set_value(GTK_RANGE(v->steps), at);
    g_signal_handlers_unblock_by_func(v->steps, on_step_moved, v);
    gtk_widget_set_sensitive(v->steps, n > 0);
    gtk_widget_set_tooltip_text(v->steps, n > 0 ? STEPS_TIP : NO_KEPT_STEPS);
    show_chosen_step(v);
}

/* Hover's words for a sample: the session's data set's describe(), else
 * the words of its first positions, where the session holds the data set
 * the projection was computed on. */
static void describe_sample(void *data, int64_t sample, char *text, size_t size)
{
    projector_view *v = data;
    const rf_dataset *ds = rf_session_get_dataset(v->session);
    if (ds == NULL || g_strcmp0(ds->name, v->shown_data) != 0 || ds->size[v->shown_split] != v->shown_split_size)
        return;
    if (ds->describe != NULL) {
        ds->describe(ds, v->shown_split, sample, text, size);
        return;
    }
    g_autofree float *x = g_new0(float, (size_t)ds->seq_len * (size_t)MAX(1, ds->feat_dim));
    int len = 0, label = 0;
    rf_status st = {0};
    if (!ds->get(ds, v->shown_split, sample, x, &len, &label, &st))
        return;
    int n = 0;
    g_auto(GStrv) words = rf_position_words_range(ds, x, len, 0, 0, MIN(len, WORDS_SHOWN), &n);
    if (words == NULL)
        return;
    g_autofree char *joined = g_strjoinv(" ", words);
    g_strlcpy(text, joined, size);
    if (len > WORDS_SHOWN && strlen(joined) + 4 < size)
        g_strlcat(text, " …", size);
}

static void open_sample(void *data, int64_t sample)
{
    projector_view *v = data;
    gtk_widget_activate_action(GTK_WIDGET(v->plot), "win.show-sample", "(ix)", (gint32)v->shown_split,
                               (gint64)sample);
}

static void on_colour(GObject *menu, GParamSpec *pspec, gpointer data)
{
    (void)pspec;
    projector_view *v = data;
    rf_projector_figure_set_colouring(v->figure, (rf_projector_colouring)gtk_drop_down_get_selected(
                                                     GTK_DROP_DOWN(menu)));
    rf_plot_view_queue_draw(v->plot);
}

/* BLRP's latent only where the run's encoder is BLRP. */
static void update_what(projector_view *v)
{
    const rf_config *cfg = rf_session_get_run_config(v->session);
    gboolean blrp = cfg != NULL && strcmp(cfg->model.encoder, "blrp") == 0;
    if (!blrp)
        gtk_drop_down_set_selected(GTK_DROP_DOWN(v->what_menu), 0);
    gtk_widget_set_sensitive(v->what_menu, blrp);
    gtk_widget_set_tooltip_text(v->what_menu, blrp ? "What to project: the pooled representation (the head's "
                                                     "input) or BLRP's final latent state"
                                                   : LATENT_ONLY_BLRP);
}

/* Connected with the plot (which owns the state) as data. */
static void on_session_changed(RfSession *s, gpointer plot)
{
    (void)s;
    update_what(g_object_get_data(plot, STATE_KEY));
    update_steps(g_object_get_data(plot, STATE_KEY));
}

/* An evaluation may have kept weights. */
static void on_metrics_changed(RfSession *s, gpointer plot)
{
    (void)s;
    update_steps(g_object_get_data(plot, STATE_KEY));
}

static void on_config_changed(RfSession *s, const char *key, gpointer plot)
{
    (void)s;
    (void)key;
    update_what(g_object_get_data(plot, STATE_KEY));
}

static void tensorboard_chosen(const char *path, gpointer data)
{
    GtkWidget *plot = data;
    projector_view *v = g_object_get_data(G_OBJECT(plot), STATE_KEY);
    if (path != NULL && v->shown.count > 0) {
        rf_status st = {0};
        if (rf_projection_write_tensorboard(&v->shown, path, &st)) {
            g_autofree char *done = g_strdup_printf("Wrote tensors.tsv, metadata.tsv and projector_config.pbtxt "
                                                    "into %s", path);
            rf_background_model_say(&v->model, done);
        } else {
            rf_dialog_error(GTK_WINDOW(gtk_widget_get_root(plot)), "Could not export for TensorBoard", st.msg);
        }
    }
    g_object_unref(plot);
}

static void on_export_tensorboard(GtkButton *button, gpointer data)
{
    projector_view *v = data;
    rf_dialog_choose_path(GTK_WINDOW(gtk_widget_get_root(GTK_WIDGET(button))), RF_CHOOSE_OPEN_FOLDER,
                          RF_FOLDER_RUN, "Export for TensorBoard", "_Export", NULL, NULL, NULL, tensorboard_chosen,
                          g_object_ref(v->plot));
}

static GtkWidget *labelled(const char *text, GtkWidget *widget)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_box_append(GTK_BOX(box), gtk_label_new(text));
    gtk_box_append(GTK_BOX(box), widget);
    return box;
}

/* The step slider: the run's kept steps, then the current model. */
static GtkWidget *step_slider(projector_view *v)
{
    v->kept = g_array_new(FALSE, FALSE, sizeof(int64_t));
    v->steps = gtk_scale_new_with_range(GTK_ORIENTATION_HORIZONTAL, 0, 1, 1);
    gtk_widget_set_name(v->steps, "projector-steps");
    gtk_scale_set_draw_value(GTK_SCALE(v->steps), FALSE);
    gtk_range_set_round_digits(GTK_RANGE(v->steps), 0);
    gtk_widget_set_size_request(v->steps, 52, -1);
    gtk_range_set_value(GTK_RANGE(v->steps), 1);
    gtk_widget_set_sensitive(v->steps, FALSE);
    gtk_widget_set_tooltip_text(v->steps, NO_KEPT_STEPS);
    v->step_label = gtk_label_new("now");
    gtk_widget_set_name(v->step_label, "projector-step");
    gtk_label_set_width_chars(GTK_LABEL(v->step_label), 4);
    gtk_label_set_xalign(GTK_LABEL(v->step_label), 0);
    g_signal_connect(v->steps, "value-changed", G_CALLBACK(on_step_moved), v);
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4);
    gtk_box_append(GTK_BOX(box), gtk_label_new("Step"));
    gtk_box_append(GTK_BOX(box), v->steps);
    gtk_box_append(GTK_BOX(box), v->step_label);
    return box;
}

/* The less-used control, under a menu button so that the toolbar fits
 * 1024 pixels: the TensorBoard export. */
static GtkWidget *more_menu(projector_view *v)
{
    v->export_tb = gtk_button_new_with_label("Export for TensorBoard…");
    gtk_widget_set_name(v->export_tb, "projector-export-tensorboard");
    gtk_widget_set_tooltip_text(v->export_tb, "The vectors shown, in TensorBoard's projector format (tensors.tsv, "
                                              "metadata.tsv, projector_config.pbtxt), into a folder "
                                              "(File → Export Plot writes the figure)");
    gtk_widget_set_sensitive(v->export_tb, FALSE);
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
    gtk_widget_set_margin_start(box, 6);
    gtk_widget_set_margin_end(box, 6);
    gtk_widget_set_margin_top(box, 6);
    gtk_widget_set_margin_bottom(box, 6);
    gtk_box_append(GTK_BOX(box), v->export_tb);
    GtkWidget *popover = gtk_popover_new();
    gtk_popover_set_child(GTK_POPOVER(popover), box);
    GtkWidget *button = gtk_menu_button_new();
    gtk_widget_set_name(button, "projector-more");
    gtk_menu_button_set_icon_name(GTK_MENU_BUTTON(button), "view-more-symbolic");
    gtk_widget_set_tooltip_text(button, "More: Export for TensorBoard…");
    gtk_menu_button_set_popover(GTK_MENU_BUTTON(button), popover);
    g_signal_connect_swapped(v->export_tb, "clicked", G_CALLBACK(gtk_popover_popdown), popover);
    g_signal_connect(v->export_tb, "clicked", G_CALLBACK(on_export_tensorboard), v);
    return button;
}

static GtkWidget *build_toolbar(projector_view *v)
{
    /* 10 pixels apart, not 12: room for the Step slider at 1024 pixels */
    GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 10);
    GtkWidget *compute = gtk_button_new_with_mnemonic("_Compute");
    gtk_widget_set_name(compute, "project");
    gtk_widget_add_css_class(compute, "suggested-action");
    gtk_widget_set_tooltip_text(compute, "Read the representation of the split's first samples by the model at "
                                         "the step chosen (the current model needs a paused run) and reduce it "
                                         "to two coordinates by PCA");
    const char *const splits[] = {"Validation", "Test", NULL};
    v->split_menu = gtk_drop_down_new_from_strings(splits);
    gtk_widget_set_name(v->split_menu, "projector-split");
    gtk_widget_set_tooltip_text(v->split_menu, "The split whose first samples are projected");
    rf_drop_down_tooltip_when_closed(v->split_menu);
    v->samples = gtk_spin_button_new_with_range(1, RF_PROJECTION_MAX_SAMPLES, 100);
    gtk_widget_set_name(v->samples, "projector-samples");
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(v->samples), RF_PROJECTION_DEFAULT_SAMPLES);
    gtk_widget_set_tooltip_text(v->samples, "How many of the split's first samples (at most 10,000)");
    const char *const whats[] = {"Pooled vector", "BLRP latent", NULL};   /* short: the toolbar fits 1024 pixels */
    v->what_menu = gtk_drop_down_new_from_strings(whats);
    gtk_widget_set_name(v->what_menu, "projector-what");
    rf_drop_down_tooltip_when_closed(v->what_menu);
    const char *const colours[] = {"Label", "Prediction", "Correctness", NULL};
    v->colour_menu = gtk_drop_down_new_from_strings(colours);
    gtk_widget_set_name(v->colour_menu, "projector-colour");
    gtk_widget_set_tooltip_text(v->colour_menu, "Colour the points by their label, the model's answer, or whether "
                                                "the answer is right");
    rf_drop_down_tooltip_when_closed(v->colour_menu);
    v->model = (rf_background_model){.session = v->session, .plot = v->plot, .button = compute,
                                     .verb = "project", .busy = "Computing…", .work = project,
                                     .done = on_projected, .view = v};
    gtk_box_append(GTK_BOX(bar), compute);
    gtk_box_append(GTK_BOX(bar), v->split_menu);
    gtk_box_append(GTK_BOX(bar), labelled("Samples", v->samples));
    gtk_box_append(GTK_BOX(bar), v->what_menu);
    gtk_box_append(GTK_BOX(bar), labelled("Colour by", v->colour_menu));
    gtk_box_append(GTK_BOX(bar), step_slider(v));
    gtk_box_append(GTK_BOX(bar), more_menu(v));
    gtk_box_append(GTK_BOX(bar), rf_background_model_status(&v->model, "projector-status", NULL));
    g_signal_connect(compute, "clicked", G_CALLBACK(on_compute), v);
    g_signal_connect(v->colour_menu, "notify::selected", G_CALLBACK(on_colour), v);
    return bar;
}

GtkWidget *rf_projector_view_new(RfSession *s)
{
    projector_view *v = g_new0(projector_view, 1);
    v->session = s;
    v->figure = rf_projector_figure_new();
    rf_projector_figure_on_sample(v->figure, open_sample, v);
    rf_projector_figure_on_describe(v->figure, describe_sample, v);
    rf_figure f = rf_projector_figure_get(v->figure);
    GtkWidget *plot = rf_plot_view_new(&f, TRUE);
    v->plot = RF_PLOT_VIEW(plot);
    g_object_set_data_full(G_OBJECT(plot), STATE_KEY, v, (GDestroyNotify)projector_view_free);
    gtk_widget_set_hexpand(plot, TRUE);
    gtk_widget_set_vexpand(plot, TRUE);

    GtkWidget *view = rf_view_new_with_toolbar(build_toolbar(v), plot, v->plot);
    update_what(v);
    update_steps(v);
    g_signal_connect_object(s, "state-changed", G_CALLBACK(on_session_changed), plot, 0);
    g_signal_connect_object(s, "metrics-changed", G_CALLBACK(on_metrics_changed), plot, 0);
    g_signal_connect_object(s, "config-changed", G_CALLBACK(on_config_changed), plot, 0);
    return view;
}
