/* The Attention view's shown map and its off-thread preparation (see
 * map_preparer.h). */
#include "map_preparer.h"

#include "probe_view.h"

/* Maps with at least this many cells are prepared off the UI thread (a
 * full-attention map pooled to a large plot is 512 x 512 or more). */
#define OFF_THREAD_CELLS (1 << 18)

void rf_map_preparer_init(rf_map_preparer *p, RfPlotView *plot, rf_attention_figure *figure)
{
    *p = (rf_map_preparer){.plot = plot, .figure = figure};
}

void rf_map_preparer_free(rf_map_preparer *p)
{
    rf_probe_hold_release(p->shown);
    g_free(p->crop);
    g_clear_object(&p->preparing);   /* its task held the plot: it is over */
}

void rf_map_preparer_forget(rf_map_preparer *p)
{
    p->generation++;
    if (p->preparing != NULL)
        g_cancellable_cancel(p->preparing);
    g_clear_object(&p->preparing);
    rf_plot_view_set_pending(p->plot, FALSE);
}

void rf_map_preparer_keep(rf_map_preparer *p, RfProbeHold *hold, float *crop)
{
    rf_probe_hold_release(p->shown);
    p->shown = hold;
    g_free(p->crop);
    p->crop = crop;
}

GCancellable *rf_map_preparer_start(rf_map_preparer *p)
{
    p->preparing = g_cancellable_new();
    rf_plot_view_set_pending(p->plot, TRUE);
    return p->preparing;
}

void rf_map_preparer_done(rf_map_preparer *p)
{
    g_clear_object(&p->preparing);
    rf_plot_view_set_pending(p->plot, FALSE);
    rf_plot_view_queue_draw(p->plot);
}

/* A large map, prepared in a worker thread. */
typedef struct prepare_job {
    RfProbeHold *hold;          /* keeps heat.data alive */
    float *crop;                /* or owns it: a cropped map */
    rf_heatmap heat;            /* in: the map; out: its colour range and image */
    gboolean sized;             /* build the image at the figure's last size and view: */
    int iw, ih;
    double view[4];
    char row_label[32], col_label[32];
    guint generation;
} prepare_job;

static void prepare_job_free(gpointer data)
{
    prepare_job *job = data;
    rf_heatmap_clear(&job->heat);
    rf_probe_hold_release(job->hold);
    g_free(job->crop);
    g_free(job);
}

static void prepare_in_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancel)
{
    (void)source;
    prepare_job *job = data;
    rf_attention_range(job->heat.data, (size_t)job->heat.rows * job->heat.cols, &job->heat.vmin, &job->heat.vmax);
    if (job->sized && !g_cancellable_is_cancelled(cancel))
        rf_heatmap_prepare(&job->heat, job->iw, job->ih, job->view);
    g_task_return_boolean(task, TRUE);
}

static void on_prepared(GObject *plot, GAsyncResult *result, gpointer data)
{
    rf_map_preparer *p = data;   /* alive while its view is */
    prepare_job *job = g_task_get_task_data(G_TASK(result));
    if (rf_probe_view_get_data(RF_PLOT_VIEW(plot)) == NULL || job->generation != p->generation)
        return;    /* a later refresh replaced it */
    rf_attention_figure_adopt_matrix(p->figure, &job->heat, job->row_label, job->col_label);
    rf_map_preparer_keep(p, g_steal_pointer(&job->hold), g_steal_pointer(&job->crop));
    rf_map_preparer_done(p);
}

void rf_map_preparer_show(rf_map_preparer *p, RfProbeHold *hold, const float *map, int rows, int cols,
                          const char *row_label, const char *col_label, float *owned)
{
    if ((size_t)rows * cols < OFF_THREAD_CELLS) {
        rf_attention_figure_set_matrix(p->figure, map, rows, cols, row_label, col_label);
        rf_map_preparer_keep(p, hold, owned);
        return;
    }
    prepare_job *job = g_new0(prepare_job, 1);
    job->hold = hold;
    job->crop = owned;
    rf_heatmap_set(&job->heat, map, rows, cols, 0, 1);
    job->sized = rf_heatmap_cached_view(&p->figure->heat, &job->iw, &job->ih, job->view);
    g_strlcpy(job->row_label, row_label, sizeof job->row_label);
    g_strlcpy(job->col_label, col_label, sizeof job->col_label);
    job->generation = p->generation;
    GTask *task = g_task_new(p->plot, rf_map_preparer_start(p), on_prepared, p);
    g_task_set_task_data(task, job, prepare_job_free);
    g_task_run_in_thread(task, prepare_in_thread);
    g_object_unref(task);
}
