/* The Latent view (BLRP): a block of a chosen segment, pass and layer of
 * BLRP's depth (the latent block L_i by default; segment i's token states
 * after a Θ_SELF layer, or X̃_i after Θ_X) with the per-segment latent norms
 * and gradient norms underneath (ui/figures/latent_figure.h). While visible
 * it watches the chosen segment's "blrp.latent.<pass>.<i>" of both passes
 * whole (l x d floats each), the series "blrp.latent.<pass>.norms" and
 * ".grad_norms" (core/probe.h) pooled along the segments to about the
 * strip's width, max or mean (the Mean toggle), and the chosen layer's
 * taps: the chosen segment's rows of "blrp.self.<k>.out" for Θ_SELF k+1
 * (a window of the tap a row a token, core/probe.h), the chosen segment's
 * "blrp.segment.<pass>.<i>" for Θ_X. So a million tokens (10,486 segments)
 * cost a few blocks and a few thousand cells, not a block a segment nor the
 * whole sequence's token states. The
 * forward/backward toggle chooses among what is watched; the segment
 * slider and the Layer drop-down watch anew. A zoom of the strip that
 * comes to rest asks for the segments it shows, down to one point a
 * segment (pooled_request.h).
 *
 * With **Whole sequence** on, a Θ_SELF layer's token states are shown over
 * all the sample's tokens instead of one segment: the tap is asked for
 * pooled along the sequence to the plot's height (core/probe.h), max or
 * mean (the Mean toggle), every dimension kept, so a long sample costs a
 * few hundred rows; a zoom that comes to rest asks for the tokens it shows,
 * down to one row a token (pooled_request.h). */
#include <stdio.h>
#include <string.h>

#include "../figures/latent_figure.h"
#include "../view.h"
#include "pooled_request.h"
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
    int self_layers;                /* Θ_SELF layers with a blrp.self.<k>.out tap */
    gboolean has_cross;             /* blrp.segment.<pass>.<i> taps exist */
    gboolean has_latent;            /* blrp.latent.<pass>.<i> taps exist */
    GPtrArray *layer_taps;          /* the chosen layer's taps, watched too (char *) */
    GtkToggleButton *sequence;      /* Θ_SELF over the whole sample, pooled */
    GtkToggleButton *mean;          /* pooled rows and strip cells are means (off: maxima) */
    rf_pooled_request request;      /* the tokens the sequence is asked for */
    rf_probe_window strip_zoom;     /* the segments a zoom of the strip asked for; rows 0: all */
} latent_view;

/* The strip's series, in rf_latent_norm's order. */
static void norm_tap(rf_latent_norm k, char *buf, size_t size)
{
    g_snprintf(buf, size, "blrp.latent.%s.%s", k % 2 == 0 ? "fwd" : "bwd", k < 2 ? "norms" : "grad_norms");
}

/* The chosen segment's latent block of a pass. */
static void latent_tap(rf_latent_pass pass, int segment, char *buf, size_t size)
{
    g_snprintf(buf, size, "blrp.latent.%s.%d", pass == RF_LATENT_BACKWARD ? "bwd" : "fwd", segment);
}

static int chosen_segment(latent_view *v)
{
    return (int)gtk_range_get_value(v->segment);
}

static void latent_view_free(gpointer data)
{
    latent_view *v = data;
    rf_pooled_request_clear(&v->request);
    rf_latent_figure_free(&v->figure);
    g_ptr_array_unref(v->layer_taps);
    g_free(v);
}

static rf_latent_pass chosen_pass(latent_view *v)
{
    return gtk_toggle_button_get_active(v->backward) ? RF_LATENT_BACKWARD : RF_LATENT_FORWARD;
}

/* The Layer drop-down's entries: the latent Θ_L (the view's subject, chosen
 * first), then a segment's way to it in BLRP's order: Θ_SELF 1 .. K, Θ_X. */
static rf_latent_layer layer_at(const latent_view *v, guint i)
{
    if (i >= 1 && (int)i <= v->self_layers)
        return (rf_latent_layer){RF_LATENT_LAYER_SELF, (int)i};
    if (v->has_cross && (int)i == v->self_layers + 1)
        return (rf_latent_layer){RF_LATENT_LAYER_CROSS, 0};
    return (rf_latent_layer){RF_LATENT_LAYER_LATENT, 0};
}

static rf_latent_layer chosen_layer(const latent_view *v)
{
    return layer_at(v, rf_probe_picker_get_layer(&v->picker));
}

static void list_layers(latent_view *v)
{
    /* nothing to pick in a model without latent states */
    guint n = v->has_latent ? 1 + (v->has_cross ? 1 : 0) + (guint)v->self_layers : 0;
    g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < n; i++) {
        char name[32];
        rf_latent_layer_name(layer_at(v, i), name, sizeof name);
        g_ptr_array_add(labels, g_strdup(name));
    }
    rf_probe_picker_set_layers(&v->picker, (const char *const *)labels->pdata, n);
}

/* The chosen layer's taps: S after Θ_SELF layer k, or X̃ of the chosen
 * segment of both passes (so the pass toggle needs no new watch). */
static void collect_layer_taps(latent_view *v)
{
    g_ptr_array_set_size(v->layer_taps, 0);
    rf_latent_layer layer = chosen_layer(v);
    if (layer.kind == RF_LATENT_LAYER_SELF)
        g_ptr_array_add(v->layer_taps, g_strdup_printf("blrp.self.%d.out", layer.self - 1));
    for (int p = 0; layer.kind == RF_LATENT_LAYER_CROSS && p < 2; p++)
        if (v->has[p])
            g_ptr_array_add(v->layer_taps,
                            g_strdup_printf("blrp.segment.%s.%d", p == 0 ? "fwd" : "bwd", chosen_segment(v)));
}

/* The model's segments, passes and layers, from its latent taps' names. */
static void collect_taps(gpointer data)
{
    latent_view *v = data;
    v->segments = v->self_layers = 0;
    v->has[0] = v->has[1] = v->has_cross = v->has_latent = FALSE;
    const char *const *taps = rf_session_list_taps(v->session);
    for (int i = 0; taps != NULL && taps[i] != NULL; i++) {
        char pass[4];
        int seg, end = 0;
        const char *t = taps[i];
        if (sscanf(t, "blrp.self.%d.out%n", &seg, &end) == 1 && t[end] == '\0')
            v->self_layers = MAX(v->self_layers, seg + 1);
        else if (sscanf(t, "blrp.segment.%3[a-z].%d%n", pass, &seg, &end) == 2 && t[end] == '\0')
            v->has_cross = TRUE;
        if (sscanf(t, "blrp.latent.%3[a-z].%d%n", pass, &seg, &end) != 2 || t[end] != '\0')
            continue;
        v->has_latent = TRUE;
        v->segments = MAX(v->segments, seg);
        v->has[strcmp(pass, "bwd") == 0] = TRUE;
    }
    gtk_range_set_range(v->segment, 1, MAX(2, v->segments));
    gtk_widget_set_sensitive(GTK_WIDGET(v->segment), v->segments > 1);
    gtk_widget_set_sensitive(GTK_WIDGET(v->forward), v->has[0]);
    gtk_widget_set_sensitive(GTK_WIDGET(v->backward), v->has[1]);
    if (!v->has[0] && v->has[1])
        gtk_toggle_button_set_active(v->backward, TRUE);
    list_layers(v);
}

/* The chosen layer is a Θ_SELF one shown over the whole sample. */
static gboolean sequence_on(latent_view *v)
{
    return gtk_toggle_button_get_active(v->sequence) && chosen_layer(v).kind == RF_LATENT_LAYER_SELF;
}

/* The Θ_SELF tap's window: the sample's tokens (or a zoom's) pooled to
 * about the heatmap's height (the plot less its norms strip), every
 * dimension kept. */
static rf_probe_window sequence_window(latent_view *v)
{
    int len = rf_probe_picker_sample_length(&v->picker);
    rf_pool_reduce reduce = gtk_toggle_button_get_active(v->mean) ? RF_POOL_MEAN : RF_POOL_MAX;
    rf_probe_window w = rf_pooled_request_window(&v->request, len > 0 ? len : RF_POOL_END, RF_POOL_END,
                                                 rf_pooled_request_cells(&v->request, FALSE, 360, 1024), G_MAXINT32,
                                                 reduce);
    w.c0 = 0;
    w.c1 = RF_POOL_END;
    return w;
}

/* The strip's series' window: the segments (or a zoom's) pooled to about
 * the strip's width (the plot less its legend band and axis). */
static rf_probe_window strip_window(latent_view *v)
{
    rf_pool_reduce reduce = gtk_toggle_button_get_active(v->mean) ? RF_POOL_MEAN : RF_POOL_MAX;
    int64_t cells = rf_pooled_request_cells(&v->request, TRUE, 260, 4096);
    const rf_probe_window *z = &v->strip_zoom;
    return (rf_probe_window){z->rows > 0 ? z->r0 : 0, z->rows > 0 ? z->r1 : RF_POOL_END, 0, 1, cells, 1, reduce};
}

/* BLRP's t, the tokens a segment holds. */
static int64_t segment_length(latent_view *v)
{
    return rf_session_get_run_config(v->session)->model.segment;
}

/* The chosen segment's rows of a Θ_SELF tap [T·t, d], exactly: one cell a
 * token, every dimension. */
static rf_probe_window segment_window(latent_view *v)
{
    int64_t t = segment_length(v);
    int64_t r0 = (chosen_segment(v) - 1) * t;
    return (rf_probe_window){r0, r0 + t, 0, RF_POOL_END, t, G_MAXINT32, RF_POOL_MAX};
}

static void watch(latent_view *v)
{
    collect_layer_taps(v);
    if (!gtk_widget_get_mapped(GTK_WIDGET(v->plot)))
        return;
    g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GArray) windows = g_array_new(FALSE, TRUE, sizeof(rf_probe_window));
    rf_probe_window whole = {0}, strip = strip_window(v);
    char name[RF_NAME_LEN];
    for (int k = 0; k < RF_LATENT_NORMS; k++)
        if (v->has[k % 2]) {
            norm_tap((rf_latent_norm)k, name, sizeof name);
            g_ptr_array_add(all, g_strdup(name));
            g_array_append_val(windows, strip);
        }
    for (int p = 0; p < 2; p++)
        if (v->has[p]) {
            latent_tap((rf_latent_pass)p, chosen_segment(v), name, sizeof name);
            g_ptr_array_add(all, g_strdup(name));
            g_array_append_val(windows, whole);
        }
    for (guint i = 0; i < v->layer_taps->len; i++) {
        /* the Θ_SELF tap pooled over the sequence or the segment's rows; Θ_X's block whole */
        rf_probe_window w = chosen_layer(v).kind != RF_LATENT_LAYER_SELF ? whole
                            : sequence_on(v)                            ? sequence_window(v)
                                                                        : segment_window(v);
        g_ptr_array_add(all, g_strdup(g_ptr_array_index(v->layer_taps, i)));
        g_array_append_val(windows, w);
    }
    rf_probe_picker_watch_pooled(&v->picker, (const char *const *)all->pdata, (const rf_probe_window *)windows->data,
                                 (int)all->len);
}

/* The Θ_SELF tap pooled along the sequence, shown in place of a block; the
 * title says how many tokens a row covers. FALSE: not shown (the snapshot
 * holds none yet, or a whole one). */
static gboolean show_sequence(latent_view *v, char *rows, size_t size)
{
    rf_latent_figure *f = &v->figure;
    const char *name = v->layer_taps->len > 0 ? g_ptr_array_index(v->layer_taps, 0) : NULL;
    const rf_probe_value *p = name != NULL ? rf_probe_picker_find(&v->picker, name, NULL) : NULL;
    if (p == NULL || !p->filled || !p->pooled || p->shape.ndim != 2 || p->shape.dim[1] != f->d) {
        rf_latent_figure_set_sequence(f, NULL, 0, (rf_matrix_positions){0});
        return FALSE;
    }
    const rf_probe_window *w = &p->window;
    int cells = (int)p->shape.dim[0];
    rf_latent_figure_set_sequence(f, p->data, cells, rf_pooled_request_rows(p));
    if (rf_pooled_request_coarse(p))
        g_snprintf(rows, size, "%s over %s%" G_GINT64_FORMAT " tokens a row", w->reduce == RF_POOL_MEAN ? "mean" : "max",
                   (w->r1 - w->r0) % cells ? "up to " : "", (w->r1 - w->r0 + cells - 1) / cells);
    else
        g_snprintf(rows, size, "tokens %" G_GINT64_FORMAT "-%" G_GINT64_FORMAT ", a row a token", w->r0, w->r1 - 1);
    return TRUE;
}

/* Segment s's rows of a Θ_SELF value: the value itself when it is the
 * segment's window a row a token (segment_window), its rows (s - 1) t ..
 * s t - 1 when it is the whole tap (a stored step's); NULL when it holds
 * other rows (another segment's, or the sequence pooled). */
static const float *self_block(const rf_probe_value *p, int s, int segments, int64_t t)
{
    if (!p->pooled)
        return p->data + (size_t)(s - 1) * (size_t)(p->shape.dim[0] / segments) * (size_t)p->shape.dim[1];
    const rf_probe_window *w = &p->window;
    return w->r0 == (s - 1) * t && w->r1 - w->r0 == t && p->shape.dim[0] == t ? p->data : NULL;
}

/* The chosen layer's blocks of the chosen segment from the snapshot shown:
 * its rows of S [T·t, d] (the same for both passes), X̃_i [t, d] per pass. */
static void show_layer(latent_view *v)
{
    rf_latent_figure *f = &v->figure;
    rf_latent_layer layer = chosen_layer(v);
    if (layer.kind == RF_LATENT_LAYER_LATENT || f->segments == 0) {
        rf_latent_figure_set_layer(f, layer, 0);
        return;
    }
    gboolean sized = FALSE;
    for (guint i = 0; i < v->layer_taps->len; i++) {
        const char *name = g_ptr_array_index(v->layer_taps, i);
        gboolean pooled = FALSE;
        const rf_probe_value *p = rf_probe_picker_find(&v->picker, name, &pooled);
        if (p == NULL || !p->filled || pooled || p->shape.ndim != 2 || p->shape.dim[1] != f->d)
            continue;
        char pass[4];
        int seg;
        if (layer.kind == RF_LATENT_LAYER_SELF) {
            int s = chosen_segment(v);
            const float *block = self_block(p, s, f->segments, segment_length(v));
            int rows = block != NULL ? (int)(p->pooled ? p->shape.dim[0] : p->shape.dim[0] / f->segments) : 0;
            if (rows < 1 || !rf_latent_figure_set_layer(f, layer, rows))
                break;
            sized = TRUE;
            for (int k = 0; k < 2; k++)
                rf_latent_figure_set_tokens(f, (rf_latent_pass)k, s, block);
        } else if (sscanf(name, "blrp.segment.%3[a-z].%d", pass, &seg) == 2) {
            if (!sized)
                sized = rf_latent_figure_set_layer(f, layer, (int)p->shape.dim[0]);
            if (sized && p->shape.dim[0] == f->tokens.rows)
                rf_latent_figure_set_tokens(f, strcmp(pass, "bwd") == 0 ? RF_LATENT_BACKWARD : RF_LATENT_FORWARD,
                                            seg, p->data);
        }
    }
    if (!sized)   /* nothing of this layer in the snapshot: the figure says so */
        rf_latent_figure_set_layer(f, layer, 0);
}

/* Name the chosen segment's token rows by the sample's positions in the
 * data's words (segment s holds positions (s - 1) t .. s t - 1). */
static void name_rows(latent_view *v)
{
    rf_latent_figure *f = &v->figure;
    int n = 0, t = f->tokens.rows;
    char **names = NULL;
    if (f->layer.kind != RF_LATENT_LAYER_LATENT && t > 0)
        names = rf_probe_picker_token_names(&v->picker, 0, (f->segment - 1) * t, f->segment * t, &n);
    rf_latent_figure_take_names(f, names, n);
}

/* The chosen segment's latent blocks and the strip's series from the
 * snapshot shown. FALSE: no block arrived to size the figure by. */
static gboolean show_latent(latent_view *v)
{
    rf_latent_figure *f = &v->figure;
    gboolean sized = f->segments == v->segments && f->l > 0;
    rf_latent_figure_forget(f);
    char name[RF_NAME_LEN];
    for (int k = 0; k < 2; k++) {
        latent_tap((rf_latent_pass)k, chosen_segment(v), name, sizeof name);
        const rf_probe_value *p = rf_probe_picker_find(&v->picker, name, NULL);
        if (p == NULL || !p->filled || p->shape.ndim != 2 ||
            !rf_latent_figure_resize(f, v->segments, (int)p->shape.dim[0], (int)p->shape.dim[1]))
            continue;
        sized = TRUE;
        rf_latent_figure_set_state(f, (rf_latent_pass)k, chosen_segment(v), p->data);
    }
    for (int k = 0; sized && k < RF_LATENT_NORMS; k++) {
        norm_tap((rf_latent_norm)k, name, sizeof name);
        const rf_probe_value *p = rf_probe_picker_find(&v->picker, name, NULL);
        if (p == NULL || !p->filled || p->shape.ndim != 2 || p->shape.dim[1] != 1)
            continue;
        rf_matrix_positions at = {p->window.r0, p->window.r1, (int)p->shape.dim[0]};
        rf_latent_figure_set_norms(f, (rf_latent_norm)k, p->data, at, p->window.reduce == RF_POOL_MEAN);
    }
    return sized;
}

/* The fwd series of the strip (else the bwd one) in the snapshot shown. */
static const rf_probe_value *strip_value(latent_view *v)
{
    char name[RF_NAME_LEN];
    for (int k = 0; k < 2; k++) {
        norm_tap((rf_latent_norm)k, name, sizeof name);
        const rf_probe_value *p = rf_probe_picker_find(&v->picker, name, NULL);
        if (p != NULL && p->filled && p->shape.ndim == 2)
            return p;
    }
    return NULL;
}

static void refresh(gpointer data)
{
    latent_view *v = data;
    rf_latent_figure *f = &v->figure;
    if (!v->has_latent) {
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
    if (!show_latent(v))
        g_strlcpy(f->message, "Waiting for the next inspection pass of the running model", sizeof f->message);
    rf_latent_figure_set_sample_tokens(f, rf_probe_picker_sample_length(&v->picker));
    char rows[96] = "";
    gboolean whole = sequence_on(v) && show_sequence(v, rows, sizeof rows);
    if (!whole) {
        rf_latent_figure_set_sequence(f, NULL, 0, (rf_matrix_positions){0});
        show_layer(v);
    } else {
        rf_latent_figure_set_layer(f, chosen_layer(v), 0);   /* no blocks: the sequence instead */
    }
    rf_latent_figure_select(f, (int)gtk_range_get_value(v->segment), chosen_pass(v));
    name_rows(v);
    char map[128], layer[32];
    rf_latent_layer_name(f->layer, layer, sizeof layer);
    g_snprintf(map, sizeof map, "segment %d · pass %d · %s", whole ? 0 : (int)gtk_range_get_value(v->segment),
               whole ? 0 : (int)chosen_pass(v), layer);
    const rf_probe_value *strip = strip_value(v);
    if (strip != NULL && v->strip_zoom.rows > 0) {   /* a zoomed strip's segments fill it */
        size_t used = strlen(map);
        g_snprintf(map + used, sizeof map - used, " · segments %" G_GINT64_FORMAT "-%" G_GINT64_FORMAT,
                   strip->window.r0, strip->window.r1);
    }
    const rf_probe_value *p = whole ? rf_probe_picker_find(&v->picker, g_ptr_array_index(v->layer_taps, 0), NULL) : NULL;
    if (p != NULL && rf_pooled_request_shows_zoomed(&v->request, p)) {   /* a zoomed window's rows fill the plot */
        size_t used = strlen(map);
        g_snprintf(map + used, sizeof map - used, " · %" G_GINT64_FORMAT "-%" G_GINT64_FORMAT, p->window.r0,
                   p->window.r1);
    }
    rf_pooled_request_show_map(&v->request, map);
    char sample[64], title[160];
    rf_probe_picker_describe(&v->picker, sample, sizeof sample);
    if (whole)
        g_snprintf(title, sizeof title, "BLRP token states over the sequence · %s · %s", sample, rows);
    else
        g_snprintf(title, sizeof title, "BLRP latent states · %s", sample);
    rf_latent_figure_set_title(f, title);
    rf_plot_view_queue_draw(v->plot);
}

/* The sample or the layer changed: watch it, all of the sequence and of
 * the segments. */
static void on_choice(gpointer data)
{
    latent_view *v = data;
    rf_pooled_request_reset(&v->request);
    v->strip_zoom.rows = 0;
    watch(v);
    refresh(v);
}

/* Max or mean: the same window asked again. */
static void on_mean(gpointer data)
{
    watch(data);
}

/* A zoom came to rest: ask for the tokens of the sequence and the
 * segments of the strip it shows. */
static void zoom_settled(gpointer data)
{
    latent_view *v = data;
    if (rf_probe_picker_get_step(&v->picker) >= 0)
        return;   /* a stored step is shown: nothing to ask the model */
    const char *name = v->layer_taps->len > 0 ? g_ptr_array_index(v->layer_taps, 0) : NULL;
    const rf_probe_value *p = name != NULL ? rf_probe_picker_find(&v->picker, name, NULL) : NULL;
    const rf_probe_value *strip = strip_value(v);
    gboolean again = sequence_on(v) && p != NULL && p->filled && p->pooled &&
                     rf_pooled_request_follow_zoom(&v->request, p, TRUE);
    again |= strip != NULL && rf_pooled_request_follow_across(&v->request, &v->strip_zoom, strip);
    if (again)
        watch(v);
}

/* The pass toggle needs no new snapshot: both passes' blocks are in it. */
static void on_select(latent_view *v)
{
    rf_latent_figure_select(&v->figure, chosen_segment(v), chosen_pass(v));
    name_rows(v);
    rf_plot_view_queue_draw(v->plot);
}

/* Another segment: its blocks are watched (the figure holds the chosen one's only). */
static void on_segment(GtkRange *r, gpointer data)
{
    (void)r;
    latent_view *v = data;
    watch(v);
    refresh(v);
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
    v->layer_taps = g_ptr_array_new_with_free_func(g_free);
    rf_latent_figure_init(&v->figure);
    rf_figure f = rf_latent_figure_get(&v->figure);
    GtkWidget *plot = rf_plot_view_new(&f, TRUE);
    v->plot = RF_PLOT_VIEW(plot);

    rf_probe_picker_init(&v->picker, s, "_Layer", on_choice, v);
    gtk_widget_set_tooltip_text(GTK_WIDGET(v->picker.layer),
                                "BLRP's depth at the chosen segment: the latent block (Θ_L), the segment after "
                                "reading the latent (Θ_X) or its token states after a self-attention layer (Θ_SELF)");
    GtkWidget *label = gtk_label_new_with_mnemonic("S_egment");
    v->segment = GTK_RANGE(gtk_scale_new_with_range(GTK_ORIENTATION_HORIZONTAL, 1, 2, 1));
    gtk_scale_set_digits(GTK_SCALE(v->segment), 0);
    gtk_scale_set_draw_value(GTK_SCALE(v->segment), TRUE);
    gtk_widget_set_size_request(GTK_WIDGET(v->segment), 240, -1);
    gtk_widget_set_tooltip_text(GTK_WIDGET(v->segment), "Which segment to show (1-based, as in the tap names)");
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
    v->sequence = GTK_TOGGLE_BUTTON(gtk_toggle_button_new_with_mnemonic("Whole se_quence"));
    gtk_widget_set_tooltip_text(GTK_WIDGET(v->sequence),
                                "Θ_SELF layers: the token states of the whole sample, pooled along the sequence to "
                                "the plot's height; zoom in for single tokens");
    gtk_box_append(GTK_BOX(v->picker.history_box), GTK_WIDGET(v->sequence));
    v->mean = GTK_TOGGLE_BUTTON(gtk_toggle_button_new_with_mnemonic("M_ean"));
    gtk_widget_set_tooltip_text(GTK_WIDGET(v->mean),
                                "The whole sequence: each row the mean of the tokens it covers; the norms strip: "
                                "each point the mean of the segments it covers (off: the largest value)");
    gtk_box_append(GTK_BOX(v->picker.history_box), GTK_WIDGET(v->mean));
    g_signal_connect_swapped(v->sequence, "toggled", G_CALLBACK(on_choice), v);
    g_signal_connect_swapped(v->mean, "toggled", G_CALLBACK(on_mean), v);
    rf_pooled_request_init(&v->request, v->plot, zoom_settled, v);
    g_signal_connect(v->segment, "value-changed", G_CALLBACK(on_segment), v);
    g_signal_connect(v->forward, "toggled", G_CALLBACK(on_pass), v);
    g_signal_connect(v->backward, "toggled", G_CALLBACK(on_pass), v);
    static const rf_probe_view_hooks hooks = {collect_taps, on_choice, refresh, NULL, latent_view_free};
    return rf_probe_view_new(s, &v->picker, v->plot, &hooks, v);
}
