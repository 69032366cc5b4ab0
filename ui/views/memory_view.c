/* The Memory view: planned bytes against sequence length for every encoder
 * at the current config (ui/figures/memory_figure.h), recomputed whenever
 * a key or the data set changes, with the measured peaks of the session's
 * runs overlaid.
 *
 * Planning runs in a GTask, in two passes: a quick one (each encoder's
 * lengths up to a plan predicted to take half a second: every encoder but
 * blrp to 1,048,576 tokens in milliseconds, blrp to about 65,536), then,
 * while the view is shown, a full one to 1,048,576 for every encoder
 * (blrp's longest plans take seconds; a length whose plan is predicted to
 * take over 20 s, which only very short blrp segments reach, is left out).
 * Changes that arrive meanwhile stop a full pass before its next plan and
 * are coalesced into one more run with the latest config. */
#include "../figures/memory_figure.h"
#include "../view.h"

#define STATE_KEY "rf-memory-view"
/* Per-plan time beyond which a pass skips an encoder's longer lengths: the
 * quick pass's, and the full pass's (which then leaves out only the
 * lengths a very small blrp segment makes slow, and the memory such a
 * graph takes to plan). */
#define QUICK_BUDGET_SECONDS 0.5
#define FULL_BUDGET_SECONDS 20.0

typedef struct plan_job plan_job;

typedef struct memory_view {
    RfSession *session;      /* outlives the view (the window owns both) */
    RfPlotView *plot;        /* owns this state */
    rf_memory_figure figure;
    plan_job *running;       /* the job a GTask is planning, or NULL */
    gboolean pending;        /* the config changed while it was */
    gboolean full_wanted;    /* the figure holds a quick pass's curves */
} memory_view;

struct plan_job {
    rf_config cfg;
    int feat_dim, vocab, classes;
    gboolean full;           /* the full pass */
    gint stop;               /* set (atomically) to stop a full pass */
    rf_memory_figure result;
};

static void memory_view_free(memory_view *v)
{
    rf_memory_figure_clear(&v->figure);
    g_free(v);
}

static void plan_job_free(plan_job *job)
{
    rf_memory_figure_clear(&job->result);
    g_free(job);
}

static void plan_in_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
    (void)source;
    (void)cancellable;
    plan_job *job = data;
    rf_memory_figure_compute_until(&job->result, &job->cfg, job->feat_dim, job->vocab, job->classes,
                                   job->full ? FULL_BUDGET_SECONDS : QUICK_BUDGET_SECONDS, &job->stop);
    g_task_return_boolean(task, TRUE);
}

static void start_planning(memory_view *v, gboolean full);

/* Take the new curves (unless the pass was stopped), keep the measured
 * points; then the next pass: the latest config's quick one, or the full
 * one once the view is shown. */
static void on_planned(GObject *source, GAsyncResult *result, gpointer user_data)
{
    (void)user_data;
    memory_view *v = g_object_get_data(source, STATE_KEY);
    plan_job *job = g_task_get_task_data(G_TASK(result));
    v->running = NULL;
    if (!g_atomic_int_get(&job->stop)) {
        /* The job's (empty) measured array stays with the job and goes with it. */
        GArray *measured = v->figure.measured;
        v->figure = job->result;
        v->figure.measured = measured;
        v->full_wanted = !job->full;
        v->figure.more_coming = v->full_wanted;
        rf_plot_view_queue_draw(v->plot);
    }
    if (v->pending)
        start_planning(v, FALSE);
    else if (v->full_wanted && gtk_widget_get_mapped(GTK_WIDGET(v->plot)))
        start_planning(v, TRUE);
}

static void show_problem(memory_view *v, const char *problem)
{
    GArray *measured = v->figure.measured;
    rf_memory_figure_init(&v->figure);
    g_array_unref(v->figure.measured);
    v->figure.measured = measured;
    g_strlcpy(v->figure.current_problem, problem, sizeof v->figure.current_problem);
    rf_plot_view_queue_draw(v->plot);
}

static void start_planning(memory_view *v, gboolean full)
{
    if (v->running != NULL) {
        v->pending = TRUE;
        if (v->running->full)
            g_atomic_int_set(&v->running->stop, 1);
        return;
    }
    v->pending = FALSE;
    plan_job *job = g_new0(plan_job, 1);
    job->cfg = *rf_session_get_config(v->session);
    job->full = full;
    const rf_dataset *ds = rf_session_get_dataset(v->session);
    if (ds != NULL) {
        job->feat_dim = ds->feat_dim;
        job->vocab = ds->vocab;
        job->classes = ds->classes;
    } else if (!rf_memory_figure_input_shape(&job->cfg, &job->feat_dim, &job->vocab, &job->classes)) {
        g_free(job);
        v->full_wanted = FALSE;
        show_problem(v, "Open the data set to plan memory for its inputs");
        return;
    }
    rf_memory_figure_init(&job->result);
    v->running = job;
    g_autoptr(GTask) task = g_task_new(v->plot, NULL, on_planned, NULL);
    g_task_set_task_data(task, job, (GDestroyNotify)plan_job_free);
    g_task_run_in_thread(task, plan_in_thread);
}

static void on_config_changed(RfPlotView *plot, const char *key, RfSession *s)
{
    (void)key;
    (void)s;
    start_planning(g_object_get_data(G_OBJECT(plot), STATE_KEY), FALSE);
}

static void on_data_changed(RfPlotView *plot, RfSession *s)
{
    (void)s;
    start_planning(g_object_get_data(G_OBJECT(plot), STATE_KEY), FALSE);
}

/* The full pass runs only while the view is shown. */
static void on_mapped(GtkWidget *plot)
{
    memory_view *v = g_object_get_data(G_OBJECT(plot), STATE_KEY);
    if (v->full_wanted && v->running == NULL)
        start_planning(v, TRUE);
}

static void on_unmapped(GtkWidget *plot)
{
    memory_view *v = g_object_get_data(G_OBJECT(plot), STATE_KEY);
    if (v->running != NULL && v->running->full)
        g_atomic_int_set(&v->running->stop, 1);
}

static void on_runs_changed(RfPlotView *plot, RfSession *s)
{
    memory_view *v = g_object_get_data(G_OBJECT(plot), STATE_KEY);
    GPtrArray *runs = rf_session_get_runs(s);
    guint before = v->figure.measured->len;
    rf_memory_figure_set_runs(&v->figure, (rf_run_data *const *)runs->pdata, runs->len);
    if (before != 0 || v->figure.measured->len != 0)
        rf_plot_view_queue_draw(plot);
}

GtkWidget *rf_memory_view_new(RfSession *s)
{
    memory_view *v = g_new0(memory_view, 1);
    v->session = s;
    rf_memory_figure_init(&v->figure);
    rf_figure f = rf_memory_figure_figure(&v->figure);
    GtkWidget *plot = rf_plot_view_new(&f, FALSE);
    v->plot = RF_PLOT_VIEW(plot);
    g_object_set_data_full(G_OBJECT(plot), STATE_KEY, v, (GDestroyNotify)memory_view_free);
    gtk_widget_set_hexpand(plot, TRUE);
    gtk_widget_set_vexpand(plot, TRUE);

    GtkWidget *view = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    gtk_box_append(GTK_BOX(view), plot);
    rf_view_set_plot(view, v->plot);

    /* The callbacks get the plot first (swapped), then the signal's arguments. */
    g_signal_connect_object(s, "config-changed", G_CALLBACK(on_config_changed), plot, G_CONNECT_SWAPPED);
    g_signal_connect_object(s, "data-changed", G_CALLBACK(on_data_changed), plot, G_CONNECT_SWAPPED);
    g_signal_connect_object(s, "state-changed", G_CALLBACK(on_runs_changed), plot, G_CONNECT_SWAPPED);
    g_signal_connect_object(s, "metrics-changed", G_CALLBACK(on_runs_changed), plot, G_CONNECT_SWAPPED);
    g_signal_connect(plot, "map", G_CALLBACK(on_mapped), NULL);
    g_signal_connect(plot, "unmap", G_CALLBACK(on_unmapped), NULL);
    on_runs_changed(v->plot, s);
    start_planning(v, FALSE);
    return view;
}
