/* The inspection views' shared toolbar (see probe_picker.h). */
#include "probe_picker.h"

#include <math.h>
#include <string.h>

#include "../figures/data_sample.h"
#include "../figures/position_words.h"
#include "../drop_down_tooltip.h"

/* On the session: the picker whose taps are being watched. */
#define WATCHER_KEY "rf-probe-watcher"

static void notify_changed(rf_probe_picker *p)
{
    if (!p->updating && p->changed != NULL)
        p->changed(p->data);
}

static void on_dropdown(GObject *o, GParamSpec *pspec, gpointer data)
{
    (void)o;
    (void)pspec;
    notify_changed(data);
}

static void on_spin(GtkSpinButton *b, gpointer data)
{
    (void)b;
    notify_changed(data);
}

/* Choosing a sample by hand leaves an inspected input for it. */
static void leave_inspected(rf_probe_picker *p)
{
    if (!p->updating)
        rf_session_watch_inspected(p->session, NULL);
}

static void on_split(GObject *o, GParamSpec *pspec, gpointer data)
{
    (void)o;
    (void)pspec;
    rf_probe_picker *p = data;
    leave_inspected(p);
    rf_probe_picker_update_samples(p);
    notify_changed(p);
}

static void on_sample(GtkSpinButton *b, gpointer data)
{
    (void)b;
    leave_inspected(data);
    notify_changed(data);
}

/* --- the step slider --- */

static const rf_probe_history_entry *shown_entry(const rf_probe_picker *p)
{
    if (p->shown_step < 0)
        return NULL;
    const rf_probe_history *h = rf_session_get_history(p->session);
    return rf_probe_history_get(h, rf_probe_history_nearest(h, p->shown_step));
}

static char *format_step(GtkScale *scale, double value, gpointer data)
{
    (void)scale;
    const rf_probe_history *h = rf_session_get_history(((rf_probe_picker *)data)->session);
    const rf_probe_history_entry *e = rf_probe_history_get(h, (int)lround(value));
    return e != NULL ? g_strdup_printf("step %" G_GINT64_FORMAT, e->eval_step) : g_strdup("live");
}

static void on_step(GtkRange *r, gpointer data)
{
    rf_probe_picker *p = data;
    if (p->updating)
        return;
    const rf_probe_history *h = rf_session_get_history(p->session);
    const rf_probe_history_entry *e = rf_probe_history_get(h, (int)lround(gtk_range_get_value(r)));
    int64_t step = e != NULL ? e->eval_step : -1;
    if (step == p->shown_step)
        return;
    p->shown_step = step;
    if (p->step_changed != NULL)
        p->step_changed(p->data);
}

void rf_probe_picker_update_steps(rf_probe_picker *p)
{
    const rf_probe_history *h = rf_session_get_history(p->session);
    int n = rf_probe_history_count(h);
    int at = p->shown_step >= 0 ? rf_probe_history_nearest(h, p->shown_step) : -1;
    p->shown_step = at >= 0 ? rf_probe_history_get(h, at)->eval_step : -1;
    p->updating = TRUE;
    gtk_scale_clear_marks(p->step);
    for (int i = 0; i < n; i++)
        gtk_scale_add_mark(p->step, i, GTK_POS_BOTTOM, NULL);
    if (n > 0)   /* with nothing stored the value label alone says "live", where this mark would sit */
        gtk_scale_add_mark(p->step, n, GTK_POS_BOTTOM, "live");
    gtk_range_set_range(GTK_RANGE(p->step), 0, MAX(n, 1));
    gtk_range_set_value(GTK_RANGE(p->step), at >= 0 ? at : n);
    gtk_widget_set_sensitive(GTK_WIDGET(p->step), n > 0);
    p->updating = FALSE;
}

int64_t rf_probe_picker_get_step(const rf_probe_picker *p)
{
    return p->shown_step;
}

void rf_probe_picker_set_step(rf_probe_picker *p, int64_t step)
{
    const rf_probe_history *h = rf_session_get_history(p->session);
    int at = step >= 0 ? rf_probe_history_nearest(h, step) : -1;
    gtk_range_set_value(GTK_RANGE(p->step), at >= 0 ? at : rf_probe_history_count(h));
}

const rf_probe_value *rf_probe_picker_find(const rf_probe_picker *p, const char *name, gboolean *pooled)
{
    const rf_probe_history_entry *e = shown_entry(p);
    if (pooled != NULL)
        *pooled = FALSE;
    if (e == NULL)
        return rf_session_find_probe(p->session, name);
    const rf_probe_set *ps = rf_probe_hold_get(e->hold);
    const rf_probe_value *v = rf_probe_set_find(ps, name);
    if (v != NULL && pooled != NULL)
        *pooled = rf_probe_history_entry_pooled(e, (int)(v - ps->values));
    return v;
}

RfProbeHold *rf_probe_picker_hold(const rf_probe_picker *p)
{
    const rf_probe_history_entry *e = shown_entry(p);
    return e != NULL ? rf_probe_hold_acquire(e->hold) : rf_session_hold_probes(p->session);
}

/* The sample of what is shown: the stored step's, or the chosen one. */
static void shown_sample(const rf_probe_picker *p, rf_split *split, int64_t *sample)
{
    const rf_probe_history_entry *e = shown_entry(p);
    *split = e != NULL ? e->split : rf_probe_picker_get_split(p);
    *sample = e != NULL ? e->sample : rf_probe_picker_get_sample(p);
}

static GtkWidget *build_history_row(rf_probe_picker *p)
{
    GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_widget_add_css_class(row, "toolbar");
    gtk_widget_set_margin_start(row, 6);
    gtk_widget_set_margin_end(row, 6);
    p->step = GTK_SCALE(gtk_scale_new_with_range(GTK_ORIENTATION_HORIZONTAL, 0, 1, 1));
    gtk_range_set_round_digits(GTK_RANGE(p->step), 0);
    gtk_scale_set_draw_value(p->step, TRUE);
    gtk_scale_set_value_pos(p->step, GTK_POS_LEFT);
    gtk_scale_set_format_value_func(p->step, format_step, p, NULL);
    gtk_widget_set_hexpand(GTK_WIDGET(p->step), TRUE);
    gtk_widget_set_tooltip_text(GTK_WIDGET(p->step),
                                "Which step to show: one snapshot is kept per evaluation while a view watches; "
                                "the right end shows the latest");
    GtkWidget *label = gtk_label_new_with_mnemonic("S_tep");
    gtk_label_set_mnemonic_widget(GTK_LABEL(label), GTK_WIDGET(p->step));
    gtk_box_append(GTK_BOX(row), label);
    gtk_box_append(GTK_BOX(row), GTK_WIDGET(p->step));
    g_signal_connect(p->step, "value-changed", G_CALLBACK(on_step), p);
    return row;
}

static GtkWidget *labelled(rf_probe_picker *p, const char *text, GtkWidget *w)
{
    GtkWidget *label = gtk_label_new_with_mnemonic(text);
    gtk_label_set_mnemonic_widget(GTK_LABEL(label), w);
    gtk_box_append(GTK_BOX(p->box), label);
    gtk_box_append(GTK_BOX(p->box), w);
    return label;
}

void rf_probe_picker_init(rf_probe_picker *p, RfSession *s, const char *layer_title, void (*changed)(gpointer),
                          gpointer data)
{
    *p = (rf_probe_picker){.session = s, .changed = changed, .data = data, .shown_step = -1};
    p->box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_widget_add_css_class(p->box, "toolbar");
    gtk_widget_set_margin_start(p->box, 6);
    gtk_widget_set_margin_end(p->box, 6);

    const char *splits[] = {rf_split_name(RF_SPLIT_TRAIN), rf_split_name(RF_SPLIT_VAL),
                            rf_split_name(RF_SPLIT_TEST), NULL};
    p->split = GTK_DROP_DOWN(gtk_drop_down_new_from_strings(splits));
    gtk_widget_set_tooltip_text(GTK_WIDGET(p->split), "The split the sample comes from");
    rf_drop_down_tooltip_when_closed(GTK_WIDGET(p->split));
    labelled(p, "_Sample", GTK_WIDGET(p->split));
    p->sample = GTK_SPIN_BUTTON(gtk_spin_button_new_with_range(0, 0, 1));
    gtk_widget_set_tooltip_text(GTK_WIDGET(p->sample), "Which sample of the split to inspect");
    gtk_box_append(GTK_BOX(p->box), GTK_WIDGET(p->sample));

    p->layers = gtk_string_list_new(NULL);
    p->layer = GTK_DROP_DOWN(gtk_drop_down_new(G_LIST_MODEL(p->layers), NULL));
    gtk_widget_set_name(GTK_WIDGET(p->layer), "probe-layer");
    p->layer_label = labelled(p, layer_title != NULL ? layer_title : "_Layer", GTK_WIDGET(p->layer));
    gtk_widget_set_sensitive(GTK_WIDGET(p->layer), FALSE);   /* until a run gives it layers */
    gtk_widget_set_sensitive(p->layer_label, FALSE);
    p->head = GTK_SPIN_BUTTON(gtk_spin_button_new_with_range(1, 1, 1));
    gtk_widget_set_tooltip_text(GTK_WIDGET(p->head), "Attention head, counted from 1 like the layers");
    p->head_label = labelled(p, "_Head", GTK_WIDGET(p->head));
    if (layer_title == NULL) {
        gtk_widget_set_visible(p->layer_label, FALSE);
        gtk_widget_set_visible(GTK_WIDGET(p->layer), FALSE);
    }
    rf_probe_picker_set_heads(p, 1);

    g_signal_connect(p->split, "notify::selected", G_CALLBACK(on_split), p);
    g_signal_connect(p->layer, "notify::selected", G_CALLBACK(on_dropdown), p);
    g_signal_connect(p->sample, "value-changed", G_CALLBACK(on_sample), p);
    g_signal_connect(p->head, "value-changed", G_CALLBACK(on_spin), p);
    rf_probe_picker_update_samples(p);
    p->history_box = build_history_row(p);
    rf_probe_picker_update_steps(p);
}

rf_split rf_probe_picker_get_split(const rf_probe_picker *p)
{
    guint i = gtk_drop_down_get_selected(p->split);
    return i < RF_SPLIT_COUNT ? (rf_split)i : RF_SPLIT_TRAIN;
}

int64_t rf_probe_picker_get_sample(const rf_probe_picker *p)
{
    return (int64_t)gtk_spin_button_get_value(p->sample);
}

guint rf_probe_picker_get_layer(const rf_probe_picker *p)
{
    guint i = gtk_drop_down_get_selected(p->layer);
    return i == GTK_INVALID_LIST_POSITION ? 0 : i;
}

int rf_probe_picker_get_head(const rf_probe_picker *p)
{
    return gtk_spin_button_get_value_as_int(p->head) - 1;    /* the spinner counts from 1 */
}

void rf_probe_picker_set_head(rf_probe_picker *p, int head)
{
    gtk_spin_button_set_value(p->head, head + 1);
}

void rf_probe_picker_set_layers(rf_probe_picker *p, const char *const *labels, guint n)
{
    if (n == 0)   /* no map: no head to choose either */
        rf_probe_picker_set_heads(p, 1);
    /* greyed out, not a live "(None)", while the run has nothing to pick */
    gtk_widget_set_sensitive(GTK_WIDGET(p->layer), n > 0);
    gtk_widget_set_sensitive(p->layer_label, n > 0);
    guint old_n = g_list_model_get_n_items(G_LIST_MODEL(p->layers));
    gboolean same = old_n == n;
    for (guint i = 0; same && i < n; i++)
        same = g_strcmp0(gtk_string_list_get_string(p->layers, i), labels[i]) == 0;
    if (same)
        return;
    g_autofree char *chosen = old_n > 0 ? g_strdup(gtk_string_list_get_string(p->layers, rf_probe_picker_get_layer(p)))
                                        : NULL;
    p->updating = TRUE;
    g_autofree const char **copy = g_new0(const char *, n + 1);
    guint keep = 0;
    for (guint i = 0; i < n; i++) {
        copy[i] = labels[i];
        if (chosen != NULL && g_strcmp0(labels[i], chosen) == 0)
            keep = i;
    }
    gtk_string_list_splice(p->layers, 0, old_n, copy);
    gtk_drop_down_set_selected(p->layer, keep);
    p->updating = FALSE;
}

void rf_probe_picker_set_heads(rf_probe_picker *p, int heads)
{
    heads = heads < 1 ? 1 : heads;
    p->updating = TRUE;
    gtk_spin_button_set_range(p->head, 1, heads);
    p->updating = FALSE;
    gboolean shown = heads > 1 && gtk_widget_get_visible(GTK_WIDGET(p->layer)) &&
                     g_list_model_get_n_items(G_LIST_MODEL(p->layers)) > 0;
    gtk_widget_set_visible(p->head_label, shown);
    gtk_widget_set_visible(GTK_WIDGET(p->head), shown);
}

void rf_probe_picker_update_samples(rf_probe_picker *p)
{
    const rf_dataset *ds = rf_session_get_dataset(p->session);
    int64_t size = ds != NULL ? ds->size[rf_probe_picker_get_split(p)] : 1;
    p->updating = TRUE;
    gtk_spin_button_set_range(p->sample, 0, (double)(size > 0 ? size - 1 : 0));
    p->updating = FALSE;
}

void rf_probe_picker_watch(rf_probe_picker *p, const char *const *names, int n)
{
    rf_probe_picker_watch_pooled(p, names, NULL, n);
}

void rf_probe_picker_watch_pooled(rf_probe_picker *p, const char *const *names, const rf_probe_window *windows, int n)
{
    g_object_set_data(G_OBJECT(p->session), WATCHER_KEY, p);
    rf_session_watch_probes_pooled(p->session, names, windows, n, rf_probe_picker_get_split(p),
                                   rf_probe_picker_get_sample(p));
}

void rf_probe_picker_unwatch(rf_probe_picker *p)
{
    if (g_object_get_data(G_OBJECT(p->session), WATCHER_KEY) != p)
        return;
    g_object_set_data(G_OBJECT(p->session), WATCHER_KEY, NULL);
    rf_session_watch_probes(p->session, NULL, 0, rf_probe_picker_get_split(p), rf_probe_picker_get_sample(p));
}

void rf_probe_picker_describe(const rf_probe_picker *p, char *buf, size_t size)
{
    const rf_inspected *in = rf_session_get_probe_inspected(p->session);
    const rf_probe_history_entry *e = shown_entry(p);
    if (e != NULL)
        g_snprintf(buf, size, "%s sample %" G_GINT64_FORMAT " · step %" G_GINT64_FORMAT, rf_split_name(e->split),
                   e->sample, e->eval_step);
    else if (in != NULL)
        g_snprintf(buf, size, "inspected (not from the data set): %s", in->name);
    else
        g_snprintf(buf, size, "%s sample %" G_GINT64_FORMAT, rf_split_name(rf_probe_picker_get_split(p)),
                   rf_probe_picker_get_sample(p));
}

void rf_probe_picker_load_picture(const rf_probe_picker *p, rf_picture *picture, int token_offset)
{
    const rf_dataset *ds = rf_session_get_dataset(p->session);
    const rf_inspected *in = rf_session_get_watched_inspected(p->session);
    if (in != NULL && ds != NULL && in->feat_dim == ds->feat_dim && in->seq_len == ds->seq_len)
        rf_picture_from_tokens(picture, ds, in->x, token_offset);
    else
        rf_picture_from_sample(picture, ds, rf_probe_picker_get_split(p), rf_probe_picker_get_sample(p),
                               token_offset);
}

/* The input row (x [ds->seq_len * max(1, feat_dim)]) and length of the
 * probes shown: a sample of the data set or an inspected input; false
 * when unknown (an inspected input is watched but not yet probed). */
static bool shown_input(const rf_probe_picker *p, const rf_dataset *ds, float *x, int *len)
{
    if (shown_entry(p) == NULL) {
        const rf_inspected *in = rf_session_get_probe_inspected(p->session);
        if (in != NULL) {
            if (in->seq_len != ds->seq_len || in->feat_dim != ds->feat_dim || in->len > ds->seq_len)
                return false;
            memcpy(x, in->x, (size_t)in->len * (size_t)MAX(1, ds->feat_dim) * sizeof *x);
            *len = in->len;
            return true;
        }
        if (rf_session_get_watched_inspected(p->session) != NULL)
            return false;
    }
    rf_split split;
    int64_t sample;
    shown_sample(p, &split, &sample);
    int label = 0;
    rf_status st = {0};
    return ds->get(ds, split, sample, x, len, &label, &st);
}

char **rf_probe_picker_token_names(const rf_probe_picker *p, int token_offset, int first, int last, int *n)
{
    *n = 0;
    const rf_dataset *ds = rf_session_get_dataset(p->session);
    if (ds == NULL)
        return NULL;
    float *x = g_new0(float, (size_t)ds->seq_len * (size_t)MAX(1, ds->feat_dim));
    int len = 0;
    char **names = NULL;
    if (shown_input(p, ds, x, &len))
        names = rf_position_words_range(ds, x, len, token_offset, first, last, n);
    g_free(x);
    return names;
}

int rf_probe_picker_sample_length(const rf_probe_picker *p)
{
    const rf_dataset *ds = rf_session_get_dataset(p->session);
    if (ds == NULL)
        return 0;
    float *x = g_new0(float, (size_t)ds->seq_len * (size_t)(ds->feat_dim > 0 ? ds->feat_dim : 1));
    int len = 0;
    bool ok = shown_input(p, ds, x, &len);
    g_free(x);
    return ok ? len : 0;
}
