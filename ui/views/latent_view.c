/* The Latent view (BLRP): the latent block of a chosen segment and pass
 * with per-segment norms and gradient norms underneath
 * (ui/figures/latent_figure.h). It watches every "blrp.latent.<pass>.<i>"
 * tap and its ".grad" (l x d floats each: small) while visible; a segment
 * slider and a forward/backward toggle choose the block shown. */
#include <stdio.h>
#include <string.h>

#include "../figures/latent_figure.h"
#include "../view.h"
#include "probe_view.h"

typedef struct latent_view {
    RfSession *session;
    RfPlotView *plot;
    rf_latent_figure figure;
    rf_probe_picker picker;
    GtkRange *segment;              /* 1..segments */
    GtkToggleButton *forward, *backward;
    int segments;
    gboolean has[2];                /* the model has a forward / backward pass */
    GPtrArray *taps;                /* the names watched (char *) */
} latent_view;

static void latent_view_free(gpointer data)
{
    latent_view *v = data;
    rf_latent_figure_free(&v->figure);
    g_ptr_array_unref(v->taps);
    g_free(v);
}

static rf_latent_pass chosen_pass(latent_view *v)
{
    return gtk_toggle_button_get_active(v->backward) ? RF_LATENT_BACKWARD : RF_LATENT_FORWARD;
}

/* The latent taps of the model: states and gradients of every segment. */
static void collect_taps(gpointer data)
{
    latent_view *v = data;
    g_ptr_array_set_size(v->taps, 0);
    v->segments = 0;
    v->has[0] = v->has[1] = FALSE;
    const char *const *taps = rf_session_list_taps(v->session);
    for (int i = 0; taps != NULL && taps[i] != NULL; i++) {
        char pass[4];
        int seg, end = 0;
        const char *t = taps[i];
        if (sscanf(t, "blrp.latent.%3[a-z].%d%n", pass, &seg, &end) != 2 ||
            (t[end] != '\0' && strcmp(t + end, ".grad") != 0))
            continue;
        g_ptr_array_add(v->taps, g_strdup(t));
        v->segments = MAX(v->segments, seg);
        v->has[strcmp(pass, "bwd") == 0] = TRUE;
    }
    gtk_range_set_range(v->segment, 1, MAX(2, v->segments));
    gtk_widget_set_sensitive(GTK_WIDGET(v->segment), v->segments > 1);
    gtk_widget_set_sensitive(GTK_WIDGET(v->forward), v->has[0]);
    gtk_widget_set_sensitive(GTK_WIDGET(v->backward), v->has[1]);
    if (!v->has[0] && v->has[1])
        gtk_toggle_button_set_active(v->backward, TRUE);
}

static void watch(latent_view *v)
{
    if (gtk_widget_get_mapped(GTK_WIDGET(v->plot)))
        rf_probe_picker_watch(&v->picker, (const char *const *)v->taps->pdata, (int)v->taps->len);
}

static void refresh(gpointer data)
{
    latent_view *v = data;
    rf_latent_figure *f = &v->figure;
    if (v->taps->len == 0) {
        const char *const *taps = rf_session_list_taps(v->session);
        char text[200];
        if (taps == NULL || taps[0] == NULL)
            g_snprintf(text, sizeof text, "No latent states yet: start training or open a checkpoint");
        else
            g_snprintf(text, sizeof text, "Latent states exist for the blrp encoder; this run uses %s",
                       rf_session_get_run_config(v->session)->model.encoder);
        rf_latent_figure_set_message(f, text);
        rf_plot_view_queue_draw(v->plot);
        return;
    }
    gboolean sized = FALSE;
    for (guint i = 0; i < v->taps->len; i++) {
        const char *name = g_ptr_array_index(v->taps, i);
        const rf_probe_value *p = rf_probe_picker_find(&v->picker, name, NULL);
        if (p == NULL || !p->filled || p->shape.ndim != 2)
            continue;
        if (!sized) {
            sized = rf_latent_figure_resize(f, v->segments, (int)p->shape.dim[0], (int)p->shape.dim[1]);
            rf_latent_figure_forget(f);
        }
        char pass[4];
        int seg;
        if (!sized || sscanf(name, "blrp.latent.%3[a-z].%d", pass, &seg) != 2 || p->shape.dim[0] != f->l ||
            p->shape.dim[1] != f->d)
            continue;
        rf_latent_pass which = strcmp(pass, "bwd") == 0 ? RF_LATENT_BACKWARD : RF_LATENT_FORWARD;
        if (g_str_has_suffix(name, ".grad"))
            rf_latent_figure_set_grad(f, which, seg, p->data);
        else
            rf_latent_figure_set_state(f, which, seg, p->data);
    }
    if (!sized)
        g_strlcpy(f->message, "Waiting for the next inspection pass of the running model", sizeof f->message);
    rf_latent_figure_select(f, (int)gtk_range_get_value(v->segment), chosen_pass(v));
    char map[64];
    g_snprintf(map, sizeof map, "segment %d · pass %d", (int)gtk_range_get_value(v->segment), (int)chosen_pass(v));
    rf_plot_view_show_map(v->plot, map);
    char sample[64], title[128];
    rf_probe_picker_describe(&v->picker, sample, sizeof sample);
    g_snprintf(title, sizeof title, "BLRP latent states · %s", sample);
    rf_latent_figure_set_title(f, title);
    rf_plot_view_queue_draw(v->plot);
}

/* The sample changed: watch it. */
static void on_choice(gpointer data)
{
    latent_view *v = data;
    watch(v);
    refresh(v);
}

/* Scrubbing needs no new snapshot: every segment is in the figure. */
static void on_select(latent_view *v)
{
    rf_latent_figure_select(&v->figure, (int)gtk_range_get_value(v->segment), chosen_pass(v));
    rf_plot_view_queue_draw(v->plot);
}

static void on_segment(GtkRange *r, gpointer data)
{
    (void)r;
    on_select(data);
}

static void on_pass(GtkToggleButton *b, gpointer data)
{
    if (gtk_toggle_button_get_active(b))
        on_select(data);
}

GtkWidget *rf_latent_view_new(RfSession *s)
{
    latent_view *v = g_new0(latent_view, 1);
    v->session = s;
    v->taps = g_ptr_array_new_with_free_func(g_free);
    rf_latent_figure_init(&v->figure);
    rf_figure f = rf_latent_figure_get(&v->figure);
    GtkWidget *plot = rf_plot_view_new(&f, TRUE);
    v->plot = RF_PLOT_VIEW(plot);

    rf_probe_picker_init(&v->picker, s, NULL, on_choice, v);
    GtkWidget *label = gtk_label_new_with_mnemonic("S_egment");
    v->segment = GTK_RANGE(gtk_scale_new_with_range(GTK_ORIENTATION_HORIZONTAL, 1, 2, 1));
    gtk_scale_set_digits(GTK_SCALE(v->segment), 0);
    gtk_scale_set_draw_value(GTK_SCALE(v->segment), TRUE);
    gtk_widget_set_size_request(GTK_WIDGET(v->segment), 240, -1);
    gtk_label_set_mnemonic_widget(GTK_LABEL(label), GTK_WIDGET(v->segment));
    gtk_box_append(GTK_BOX(v->picker.box), label);
    gtk_box_append(GTK_BOX(v->picker.box), GTK_WIDGET(v->segment));
    GtkWidget *passes = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0);
    gtk_widget_add_css_class(passes, "linked");
    gtk_widget_set_valign(passes, GTK_ALIGN_CENTER);
    v->forward = GTK_TOGGLE_BUTTON(gtk_toggle_button_new_with_mnemonic("_Forward"));
    v->backward = GTK_TOGGLE_BUTTON(gtk_toggle_button_new_with_mnemonic("_Backward"));
    gtk_toggle_button_set_group(v->backward, v->forward);
    gtk_toggle_button_set_active(v->forward, TRUE);
    gtk_box_append(GTK_BOX(passes), GTK_WIDGET(v->forward));
    gtk_box_append(GTK_BOX(passes), GTK_WIDGET(v->backward));
    gtk_box_append(GTK_BOX(v->picker.box), passes);
    g_signal_connect(v->segment, "value-changed", G_CALLBACK(on_segment), v);
    g_signal_connect(v->forward, "toggled", G_CALLBACK(on_pass), v);
    g_signal_connect(v->backward, "toggled", G_CALLBACK(on_pass), v);
    static const rf_probe_view_hooks hooks = {collect_taps, on_choice, refresh, NULL, latent_view_free};
    return rf_probe_view_new(s, &v->picker, v->plot, &hooks, v);
}
