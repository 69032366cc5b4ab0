/* The probe views' shared wiring (see probe_view.h). */
#include "probe_view.h"

#include "../view.h"

#define GLUE_KEY "rf-probe-view"

typedef struct glue {
    const rf_probe_view_hooks *hooks;
    rf_probe_picker *picker;
    gpointer data;
} glue;

static void glue_free(glue *g)
{
    rf_probe_picker_unwatch(g->picker);
    g->hooks->free(g->data);
    g_free(g);
}

static glue *glue_of(RfPlotView *plot)
{
    return g_object_get_data(G_OBJECT(plot), GLUE_KEY);
}

static void on_probes_changed(RfPlotView *plot, RfSession *s)
{
    (void)s;
    glue *g = glue_of(plot);
    rf_probe_picker_update_steps(g->picker);
    if (gtk_widget_get_mapped(GTK_WIDGET(plot)))
        g->hooks->refresh(g->data);
}

/* A new run, data set or inspected input: new taps, new samples. */
static void on_model_changed(RfPlotView *plot, RfSession *s)
{
    (void)s;
    glue *g = glue_of(plot);
    rf_probe_picker_update_samples(g->picker);
    rf_probe_picker_update_steps(g->picker);
    g->hooks->collect(g->data);
    g->hooks->choose(g->data);
}

static void on_map(GtkWidget *plot, gpointer data)
{
    (void)data;
    glue *g = glue_of(RF_PLOT_VIEW(plot));
    g->hooks->choose(g->data);
}

static void on_unmap(GtkWidget *plot, gpointer data)
{
    (void)data;
    glue *g = glue_of(RF_PLOT_VIEW(plot));
    rf_probe_picker_unwatch(g->picker);
    if (g->hooks->hidden != NULL)
        g->hooks->hidden(g->data);
}

gpointer rf_probe_view_get_data(RfPlotView *plot)
{
    glue *g = glue_of(plot);
    return g != NULL ? g->data : NULL;
}

GtkWidget *rf_probe_view_new(RfSession *s, rf_probe_picker *picker, RfPlotView *plot,
                             const rf_probe_view_hooks *hooks, gpointer data)
{
    glue *g = g_new0(glue, 1);
    *g = (glue){hooks, picker, data};
    g_object_set_data_full(G_OBJECT(plot), GLUE_KEY, g, (GDestroyNotify)glue_free);
    picker->step_changed = hooks->refresh;
    g_signal_connect(plot, "map", G_CALLBACK(on_map), NULL);
    g_signal_connect(plot, "unmap", G_CALLBACK(on_unmap), NULL);
    static const char *const model_signals[] = {"state-changed", "data-changed", "inspected-changed"};
    g_signal_connect_object(s, "probes-changed", G_CALLBACK(on_probes_changed), plot, G_CONNECT_SWAPPED);
    for (guint i = 0; i < G_N_ELEMENTS(model_signals); i++)
        g_signal_connect_object(s, model_signals[i], G_CALLBACK(on_model_changed), plot, G_CONNECT_SWAPPED);

    GtkWidget *view = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    gtk_box_append(GTK_BOX(view), rf_view_scroll_sideways(picker->box));
    gtk_box_append(GTK_BOX(view), picker->history_box);
    gtk_box_append(GTK_BOX(view), GTK_WIDGET(plot));
    rf_view_set_plot(view, plot);
    hooks->collect(data);
    hooks->choose(data);
    return view;
}
