/* The TaLK view: each token's adaptive window [a^l, a^r] for the chosen
 * sample, layer and head (ui/figures/talk_figure.h), from the
 * "layer<i>.talk.bounds" taps, refreshed while the view is visible. The
 * bounds are asked for pooled to the plot's width (RF_POOL_SPAN,
 * core/probe.h: per column the widest window of its tokens), so a sample of
 * a million tokens costs a few thousand floats; a zoom that comes to rest
 * asks for the tokens it shows, down to one column a token. For image data
 * a toggle shows window widths over the picture; a click outlines the
 * window of the clicked position. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../figures/talk_figure.h"
#include "../view.h"
#include "pooled_request.h"
#include "probe_view.h"

typedef struct talk_view {
    RfSession *session;
    RfPlotView *plot;
    rf_talk_figure figure;
    rf_probe_picker picker;
    GtkToggleButton *picture;
    GArray *layers;                 /* of int: the layers with a bounds tap */
    char tap[RF_NAME_LEN];          /* what is watched */
    int64_t zoom_first, zoom_last;  /* the tokens a zoom asked for; equal: the sample's all */
    rf_pooled_request request;      /* its settle delay (the tokens run across: the window is the view's) */
} talk_view;

static void talk_view_free(gpointer data)
{
    talk_view *v = data;
    rf_pooled_request_clear(&v->request);
    rf_talk_figure_free(&v->figure);
    g_array_unref(v->layers);
    g_free(v);
}

static void collect_layers(gpointer data)
{
    talk_view *v = data;
    g_array_set_size(v->layers, 0);
    const char *const *taps = rf_session_list_taps(v->session);
    for (int i = 0; taps != NULL && taps[i] != NULL; i++) {
        int layer, end = 0;
        if (sscanf(taps[i], "layer%d.talk.bounds%n", &layer, &end) == 1 && taps[i][end] == '\0')
            g_array_append_val(v->layers, layer);
    }
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < v->layers->len; i++)
        g_ptr_array_add(names, g_strdup_printf("Layer %d", g_array_index(v->layers, int, i) + 1));
    rf_probe_picker_set_layers(&v->picker, (const char *const *)names->pdata, names->len);
    g_ptr_array_unref(names);
}

static gboolean picture_possible(talk_view *v)
{
    const rf_dataset *ds = rf_session_get_dataset(v->session);
    return v->layers->len > 0 && ds != NULL && ds->grid_h > 0 && ds->grid_w > 0;
}

/* The talk mixer runs over every token, the CLS included (model.pool = cls). */
static int cls_offset(talk_view *v)
{
    return strcmp(rf_session_get_run_config(v->session)->model.pool, "cls") == 0 ? 1 : 0;
}

static void load_picture(talk_view *v)
{
    gboolean possible = picture_possible(v);
    gtk_widget_set_visible(GTK_WIDGET(v->picture), possible);   /* no inert toggle for token data */
    if (!possible) {
        rf_picture_clear(&v->figure.picture);
        return;
    }
    rf_probe_picker_load_picture(&v->picker, &v->figure.picture, cls_offset(v));
}

/* Columns asked for: about one a pixel of the plot's frame (its margins
 * off), 1024 before the plot has a size. */
static int64_t plot_columns(talk_view *v)
{
    int w = gtk_widget_get_width(GTK_WIDGET(v->plot));
    return w > 0 ? CLAMP(w - 100, 64, 4096) : 1024;
}

/* The tokens asked for: a zoom's, or the sample's own (the CLS included). */
static rf_probe_window bounds_window(talk_view *v)
{
    int len = rf_probe_picker_sample_length(&v->picker);
    int64_t r0 = 0, r1 = len > 0 ? cls_offset(v) + len : RF_POOL_END;
    if (v->zoom_last > v->zoom_first) {
        r0 = v->zoom_first;
        r1 = v->zoom_last;
    }
    /* every bound of every head kept: span pools tokens only */
    return (rf_probe_window){r0, r1, 0, RF_POOL_END, plot_columns(v), G_MAXINT32, RF_POOL_SPAN};
}

static void watch(talk_view *v)
{
    guint i = rf_probe_picker_get_layer(&v->picker);
    v->tap[0] = '\0';
    if (i < v->layers->len)
        g_snprintf(v->tap, sizeof v->tap, "layer%d.talk.bounds", g_array_index(v->layers, int, i));
    if (!gtk_widget_get_mapped(GTK_WIDGET(v->plot)))
        return;
    const char *names[1] = {v->tap};
    rf_probe_window w[1] = {bounds_window(v)};
    rf_probe_picker_watch_pooled(&v->picker, names, w, v->tap[0] != '\0' ? 1 : 0);
}

/* Put value p's head into the figure: pooled by span (what the view asks
 * for), or whole (a stored step taken before pooling). */
static gboolean show_bounds(talk_view *v, const rf_probe_value *p, int heads, int head)
{
    rf_talk_figure *f = &v->figure;
    int cells = (int)p->shape.dim[0];
    if (p->pooled && p->window.reduce == RF_POOL_SPAN)
        return rf_talk_figure_set_spans(f, p->data, cells, heads, head, p->window.r0, p->window.r1);
    if (!p->pooled)
        return rf_talk_figure_set_bounds(f, p->data, cells, heads, head);
    rf_talk_figure_set_message(f, "These window bounds were pooled another way; show the live ones");
    return false;
}

/* The title's account of a column: one token, or up to k of them. */
static void describe_columns(const rf_talk_figure *f, char *text, size_t size)
{
    int64_t n = f->last - f->first;
    if (rf_talk_figure_exact(f)) {
        g_snprintf(text, size, "tokens %" G_GINT64_FORMAT "-%" G_GINT64_FORMAT ", a column a token", f->first,
                   f->last - 1);
        return;
    }
    int64_t span = (n + f->cells - 1) / f->cells;
    g_snprintf(text, size, "tokens %" G_GINT64_FORMAT "-%" G_GINT64_FORMAT ", a column %s%" G_GINT64_FORMAT
               " tokens: their widest window", f->first, f->last - 1, n % f->cells != 0 ? "up to " : "", span);
}

static void refresh(gpointer data)
{
    talk_view *v = data;
    rf_talk_figure *f = &v->figure;
    char text[200];
    if (v->layers->len == 0) {
        const char *const *taps = rf_session_list_taps(v->session);
        if (taps == NULL || taps[0] == NULL)
            g_snprintf(text, sizeof text, "No window bounds yet: start training or open a checkpoint");
        else
            g_snprintf(text, sizeof text, "Window bounds exist for the talk encoder; this run uses %s",
                       rf_session_get_run_config(v->session)->model.encoder);
        rf_talk_figure_set_message(f, text);
        rf_plot_view_queue_draw(v->plot);
        return;
    }
    const rf_probe_value *p = rf_probe_picker_find(&v->picker, v->tap, NULL);
    if (p == NULL || !p->filled || p->shape.ndim != 2 || p->shape.dim[1] % 2 != 0) {
        rf_talk_figure_set_message(f, "Waiting for the next inspection pass of the running model");
        rf_plot_view_queue_draw(v->plot);
        return;
    }
    int heads = (int)p->shape.dim[1] / 2;
    rf_probe_picker_set_heads(&v->picker, heads);
    int head = MIN(rf_probe_picker_get_head(&v->picker), heads - 1);
    char map[128];
    g_snprintf(map, sizeof map, "%s · head %d", v->tap, head + 1);
    if (p->pooled && p->window.reduce == RF_POOL_SPAN && v->zoom_last > v->zoom_first) {
        /* a zoomed window's columns fill the plot: it starts unzoomed */
        size_t used = strlen(map);
        g_snprintf(map + used, sizeof map - used, " · %" G_GINT64_FORMAT "-%" G_GINT64_FORMAT, p->window.r0,
                   p->window.r1);
    }
    rf_pooled_request_show_map(&v->request, map);
    if (!show_bounds(v, p, heads, head)) {
        rf_plot_view_queue_draw(v->plot);
        return;
    }
    int n = 0;
    /* names only for columns of one token (a pooled million have none) */
    char **names = rf_talk_figure_exact(f) ? rf_probe_picker_token_names(&v->picker, cls_offset(v), (int)f->first,
                                                                        (int)f->last, &n)
                                           : NULL;
    rf_talk_figure_take_names(f, names, n);
    rf_talk_figure_show_picture(f, gtk_toggle_button_get_active(v->picture) && picture_possible(v));
    char sample[64], columns[96];
    rf_probe_picker_describe(&v->picker, sample, sizeof sample);
    describe_columns(f, columns, sizeof columns);
    g_snprintf(text, sizeof text, "TaLK windows · layer %d · head %d · %s · %s",
               g_array_index(v->layers, int, rf_probe_picker_get_layer(&v->picker)) + 1, head + 1, sample, columns);
    rf_talk_figure_set_title(f, text);
    rf_plot_view_queue_draw(v->plot);
}

/* A zoom came to rest: ask for the tokens now visible, pooled to the
 * plot's width (one column a token once few enough are visible), or for
 * the sample's all again when the zoom went back to everything. The
 * columns shown are magnified meanwhile; the newest request is the one the
 * worker takes. */
static void zoom_settled(gpointer data)
{
    talk_view *v = data;
    const rf_probe_value *p = v->tap[0] != '\0' ? rf_probe_picker_find(&v->picker, v->tap, NULL) : NULL;
    const rf_talk_figure *f = &v->figure;
    if (p == NULL || !p->filled || !p->pooled || f->cells == 0 || rf_probe_picker_get_step(&v->picker) >= 0)
        return;
    rf_zoom z = rf_plot_view_get_zoom(v->plot);
    gboolean everything = z.x0 <= 0 && z.x1 >= 1;
    if (everything) {
        if (v->zoom_last == v->zoom_first)
            return;
        v->zoom_first = v->zoom_last = 0;   /* zoomed out of a window: the sample's all again */
    } else {
        /* the figure's x axis runs over [first - 0.5, last - 0.5) */
        int64_t n = f->last - f->first;
        int64_t t0 = CLAMP((int64_t)floor(f->first + z.x0 * (double)n), f->first, f->last - 1);
        int64_t t1 = CLAMP((int64_t)ceil(f->first + z.x1 * (double)n), t0 + 1, f->last);
        if (rf_talk_figure_exact(f) && t0 == f->first && t1 == f->last)
            return;   /* nothing finer to ask for */
        v->zoom_first = t0;
        v->zoom_last = t1;
    }
    watch(v);
}

static void on_choice(gpointer data)
{
    talk_view *v = data;
    v->zoom_first = v->zoom_last = 0;   /* another layer or sample: all of it */
    load_picture(v);
    watch(v);
    refresh(v);
}

static void on_picture(GtkToggleButton *b, gpointer data)
{
    (void)b;
    talk_view *v = data;
    rf_talk_figure_show_picture(&v->figure, gtk_toggle_button_get_active(v->picture) && picture_possible(v));
    rf_plot_view_queue_draw(v->plot);
}

/* Picture mode: a click outlines that position's window. */
static void on_released(GtkGestureClick *g, int n_press, double x, double y, gpointer data)
{
    (void)g;
    (void)n_press;
    talk_view *v = data;
    GtkWidget *w = GTK_WIDGET(v->plot);
    int token;
    if (rf_talk_figure_token_at(&v->figure, gtk_widget_get_width(w), gtk_widget_get_height(w), x, y, &token)) {
        rf_talk_figure_set_token(&v->figure, token);
        rf_plot_view_queue_draw(v->plot);
    }
}

GtkWidget *rf_talk_view_new(RfSession *s)
{
    talk_view *v = g_new0(talk_view, 1);
    v->session = s;
    v->layers = g_array_new(FALSE, TRUE, sizeof(int));
    rf_talk_figure_init(&v->figure);
    rf_figure f = rf_talk_figure_get(&v->figure);
    GtkWidget *plot = rf_plot_view_new(&f, TRUE);
    v->plot = RF_PLOT_VIEW(plot);

    rf_probe_picker_init(&v->picker, s, "_Layer", on_choice, v);
    v->picture = GTK_TOGGLE_BUTTON(gtk_toggle_button_new_with_mnemonic("Over the _picture"));
    gtk_widget_set_tooltip_text(GTK_WIDGET(v->picture),
                                "Image data: window widths over the picture; click a position to outline its window");
    gtk_box_append(GTK_BOX(v->picker.box), GTK_WIDGET(v->picture));
    g_signal_connect(v->picture, "toggled", G_CALLBACK(on_picture), v);

    rf_pooled_request_init(&v->request, v->plot, zoom_settled, v);
    GtkGesture *click = gtk_gesture_click_new();
    g_signal_connect(click, "released", G_CALLBACK(on_released), v);
    gtk_widget_add_controller(plot, GTK_EVENT_CONTROLLER(click));
    static const rf_probe_view_hooks hooks = {collect_layers, on_choice, refresh, NULL, talk_view_free};
    return rf_probe_view_new(s, &v->picker, v->plot, &hooks, v);
}
