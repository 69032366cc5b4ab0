/* A dragged rectangle of the shown picture occluded (picture_occluder.h). */
#include "picture_occluder.h"

#include <string.h>

#include "../figures/data_sample.h"
#include "../plot_view.h"
#include "../shown_sample.h"

#define OCCLUDER_KEY "rf-picture-occluder"

typedef struct occluder {
    RfSession *session;          /* not held: it outlives the Data view's plot */
    rf_sample_figure *figure;
    GtkWidget *plot;
    int row0, col0;              /* the pixel the drag began on */
    double x0, y0;               /* and its widget point */
    rf_inspected *copy;          /* the last copy made (a reference), or NULL */
    rf_split split;              /* what it was made from */
    int64_t index;
    rf_inspected *origin;        /* a reference, or NULL for a data set sample */
} occluder;

static void occluder_free(occluder *o)
{
    g_clear_pointer(&o->origin, rf_inspected_release);
    g_clear_pointer(&o->copy, rf_inspected_release);
    g_free(o);
}

void rf_occlude_features(float *x, int grid_h, int grid_w, int feat_dim, int r0, int c0, int r1, int c1)
{
    int h, w, channels, patch;
    if (!rf_sample_unpatch(x, grid_h, grid_w, feat_dim, NULL, &h, &w, &channels, &patch))
        return;
    for (int r = MAX(r0, 0); r < MIN(r1, h); r++)
        for (int c = MAX(c0, 0); c < MIN(c1, w); c++) {
            int token = (r / patch) * grid_w + c / patch;
            float *at = x + (size_t)token * feat_dim + ((size_t)(r % patch) * patch + c % patch) * channels;
            for (int k = 0; k < channels; k++)
                at[k] = 0.0f;
        }
}

static gboolean pixel_at(occluder *o, double x, double y, gboolean clamp, int *row, int *col)
{
    rf_zoom z = rf_plot_view_get_zoom(RF_PLOT_VIEW(o->plot));
    return rf_sample_figure_picture_pixel(o->figure, gtk_widget_get_width(o->plot), gtk_widget_get_height(o->plot),
                                          &z, x, y, clamp, row, col);
}

/* The rectangle from the first pixel to the one at the drag's offset, both included. */
static void rectangle(occluder *o, double dx, double dy, int *r0, int *c0, int *r1, int *c1)
{
    int row = o->row0, col = o->col0;
    pixel_at(o, o->x0 + dx, o->y0 + dy, TRUE, &row, &col);
    *r0 = MIN(row, o->row0);
    *c0 = MIN(col, o->col0);
    *r1 = MAX(row, o->row0) + 1;
    *c1 = MAX(col, o->col0) + 1;
}

static void on_begin(GtkGestureDrag *drag, double x, double y, gpointer data)
{
    occluder *o = data;
    GdkModifierType mods = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(drag));
    rf_split split;
    int64_t index;
    const rf_inspected *in;
    const rf_dataset *ds = rf_session_get_dataset(o->session);
    gboolean over = (mods & GDK_CONTROL_MASK) == 0 && ds != NULL && rf_data_kind_of(ds) == RF_DATA_PICTURE &&
                    rf_shown_sample_get(o->session, &split, &index, &in) &&
                    pixel_at(o, x, y, FALSE, &o->row0, &o->col0);
    if (!over) {
        gtk_gesture_set_state(GTK_GESTURE(drag), GTK_EVENT_SEQUENCE_DENIED);   /* the plot pans */
        o->row0 = -1;
        return;
    }
    gtk_gesture_set_state(GTK_GESTURE(drag), GTK_EVENT_SEQUENCE_CLAIMED);
    o->x0 = x;
    o->y0 = y;
}

static void on_update(GtkGestureDrag *drag, double dx, double dy, gpointer data)
{
    (void)drag;
    occluder *o = data;
    if (o->row0 < 0)
        return;
    int r0, c0, r1, c1;
    rectangle(o, dx, dy, &r0, &c0, &r1, &c1);
    rf_sample_figure_set_mark(o->figure, r0, c0, r1, c1);
    rf_plot_view_queue_draw(RF_PLOT_VIEW(o->plot));
}

/* What the model predicted for the shown sample, if its latest snapshot is of it. */
static char *prediction_of_shown(occluder *o, const rf_dataset *ds, rf_split split, int64_t index,
                                 const rf_inspected *in)
{
    rf_split ps;
    int64_t pi;
    rf_inspection info;
    if (!rf_session_probes_fit_data(o->session) || !rf_session_get_probe_sample(o->session, &ps, &pi, &info) ||
        rf_session_get_probe_inspected(o->session) != in || (in == NULL && (ps != split || pi != index)))
        return NULL;
    char text[160];
    rf_data_class_text(ds, info.predicted, text, sizeof text);
    return g_strdup(text);
}

static void occlude(occluder *o, int r0, int c0, int r1, int c1)
{
    rf_split split;
    int64_t index;
    const rf_inspected *in;
    const rf_dataset *ds = rf_session_get_dataset(o->session);
    if (ds == NULL || !rf_shown_sample_get(o->session, &split, &index, &in))
        return;
    float *x = g_new0(float, (size_t)ds->seq_len * ds->feat_dim);
    int len = 0, label = 0;
    rf_status st = {0};
    if (in != NULL) {
        len = in->len;
        memcpy(x, in->x, (size_t)len * ds->feat_dim * sizeof *x);
    } else if (!ds->get(ds, split, index, x, &len, &label, &st)) {
        g_free(x);
        return;
    }
    rf_occlude_features(x, ds->grid_h, ds->grid_w, ds->feat_dim, r0, c0, r1, c1);
    g_autofree char *of = in != NULL ? g_strdup(in->name)
                                     : g_strdup_printf("%s #%" G_GINT64_FORMAT, rf_split_name(split), index);
    g_autofree char *name = g_strdup_printf("%s, rows %d-%d × columns %d-%d occluded", of, r0, r1 - 1, c0, c1 - 1);
    g_autofree char *before = prediction_of_shown(o, ds, split, index, in);
    if (in == NULL || in != o->copy) {   /* occluding the copy again keeps its original */
        g_clear_pointer(&o->origin, rf_inspected_release);
        o->origin = in != NULL ? rf_inspected_acquire((rf_inspected *)in) : NULL;
        o->split = split;
        o->index = index;
    }
    g_clear_pointer(&o->copy, rf_inspected_release);
    const rf_inspected *copy = rf_session_add_inspected(o->session, name, x, len, before);
    o->copy = copy != NULL ? rf_inspected_acquire((rf_inspected *)copy) : NULL;
    g_free(x);
    if (copy != NULL)
        rf_session_watch_inspected(o->session, copy);   /* the Data view shows it, knowing it for a copy */
}

static void on_end(GtkGestureDrag *drag, double dx, double dy, gpointer data)
{
    (void)drag;
    occluder *o = data;
    if (o->row0 < 0)
        return;
    int r0, c0, r1, c1;
    rectangle(o, dx, dy, &r0, &c0, &r1, &c1);
    o->row0 = -1;
    rf_sample_figure_set_mark(o->figure, 0, 0, 0, 0);
    rf_plot_view_queue_draw(RF_PLOT_VIEW(o->plot));
    occlude(o, r0, c0, r1, c1);
}

void rf_picture_occluder_attach(GtkWidget *plot, rf_sample_figure *figure, RfSession *s)
{
    occluder *o = g_new0(occluder, 1);
    o->session = s;
    o->figure = figure;
    o->plot = plot;
    o->row0 = -1;
    g_object_set_data_full(G_OBJECT(plot), OCCLUDER_KEY, o, (GDestroyNotify)occluder_free);
    GtkGesture *drag = gtk_gesture_drag_new();
    gtk_widget_set_name(plot, "data-sample");
    gtk_event_controller_set_name(GTK_EVENT_CONTROLLER(drag), "occlude");
    /* before the plot's own drag, which pans: claiming the drag over a picture denies it */
    gtk_event_controller_set_propagation_phase(GTK_EVENT_CONTROLLER(drag), GTK_PHASE_CAPTURE);
    g_signal_connect(drag, "drag-begin", G_CALLBACK(on_begin), o);
    g_signal_connect(drag, "drag-update", G_CALLBACK(on_update), o);
    g_signal_connect(drag, "drag-end", G_CALLBACK(on_end), o);
    gtk_widget_add_controller(plot, GTK_EVENT_CONTROLLER(drag));
}

gboolean rf_picture_occluder_origin(GtkWidget *plot, const rf_inspected *in, rf_split *split, int64_t *index,
                                    const rf_inspected **origin)
{
    occluder *o = g_object_get_data(G_OBJECT(plot), OCCLUDER_KEY);
    if (o == NULL || in == NULL || in != o->copy)
        return FALSE;
    *split = o->split;
    *index = o->index;
    *origin = o->origin;
    return TRUE;
}
