/* The Attention view: one layer and head of the attention maps of a chosen
 * sample (ui/figures/attention_figure.h), refreshed from the session's
 * probe snapshots while the view is visible. The maps on offer come from
 * the model's taps: full attention's N x N probabilities, linear
 * attention's d_k x d_k key-value state, Transformer-LS's local band and
 * global columns, BLRP's segment self-attention and its segment<->latent
 * cross-attention maps. For image data a toggle shows the attention of a
 * clicked patch over the picture.
 *
 * The figure borrows the snapshot's memory (map_preparer.h, which also
 * builds a large map's colour range and image in a worker thread). Full
 * attention's map is asked for pooled (core/probe.h): the sample's own
 * positions, or the window a zoom shows, in at most about the plot's size
 * of cells, max or mean (the Mean toggle), computed block by block by the
 * training thread without the N x N map; a zoom asks again for what it
 * shows once it comes to rest (pooled_request.h). Transformer-LS's band and
 * global columns are asked for the same way with their queries pooled to
 * the plot's height and every column kept, so a million-token band costs a
 * thousand rows. A pooled map's axes and hover count tokens, not cells. A
 * map of a sample (or inspected input) shorter than the batch is cropped
 * to the sample's own positions, a copy the view owns: BLRP's maps to the
 * tokens the chosen segment holds.
 *
 * The Overview toggle shows every layer and head of the sample at once
 * (ui/figures/attention_overview.h, for full attention's maps, or linear
 * attention's key-value states); a click on one opens it here. The step
 * slider under the toolbar shows a stored step instead of the latest
 * snapshot (probe_picker.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../core/ops/ls_attention.h"
#include "../figures/attention_figure.h"
#include "../view.h"
#include "map_preparer.h"
#include "pooled_request.h"
#include "probe_view.h"

/* Overviews with at least this many cells are pooled off the UI thread. */
#define OFF_THREAD_CELLS (1 << 18)

typedef enum map_kind {
    MAP_PROBS,           /* layer%d.attn.probs [h, N, N] */
    MAP_KV,              /* layer%d.attn.kv [h, dk, dk] */
    MAP_LS,              /* layer%d.ls.local [h, n, L] + layer%d.ls.global [h, n, G] */
    MAP_BLRP_SELF,       /* blrp.self.%d.probs [T*h, t, t] */
    MAP_BLRP_SEG_READS,  /* blrp.segment.<pass>.%d.reads_latent [h, t, l] */
    MAP_BLRP_LAT_READS,  /* blrp.latent.<pass>.%d.reads_segment [h, l, t] */
} map_kind;

typedef struct map_entry {
    map_kind kind;
    int layer;           /* the layer (or BLRP self-attention layer) */
    const char *pass;    /* "fwd" / "bwd" for the cross maps */
    char label[64];
} map_entry;

typedef struct attention_view {
    RfSession *session;
    RfPlotView *plot;
    rf_attention_figure figure;
    rf_probe_picker picker;
    GtkWidget *segment_label;
    GtkSpinButton *segment;     /* BLRP maps: the segment (1-based) */
    GtkToggleButton *picture;   /* image data: over the picture */
    GtkToggleButton *overview_toggle;
    GtkToggleButton *mean;      /* pooled maps: cells are means (off: maxima) */
    rf_pooled_request request;  /* the window full attention's map or LS's band is asked for */
    rf_attention_overview overview;   /* shown by the figure while the toggle is on */
    GArray *maps;               /* of map_entry */
    int segments;               /* BLRP segments T */
    char taps[2][RF_NAME_LEN];  /* what is watched */
    int n_taps;
    rf_map_preparer prep;       /* what the figure borrows; a large map prepared off the UI thread */
    gboolean pooled;            /* the map shown is a stored step's, pooled: its axes say so */
} attention_view;

static void attention_view_free(gpointer data)
{
    attention_view *v = data;
    rf_pooled_request_clear(&v->request);
    rf_attention_figure_free(&v->figure);
    rf_attention_overview_free(&v->overview);
    rf_map_preparer_free(&v->prep);
    g_array_unref(v->maps);
    g_free(v);
}

static const map_entry *chosen_map(attention_view *v)
{
    guint i = rf_probe_picker_get_layer(&v->picker);
    return i < v->maps->len ? &g_array_index(v->maps, map_entry, i) : NULL;
}

static void add_map(attention_view *v, map_kind kind, int layer, const char *pass, const char *label)
{
    map_entry e = {.kind = kind, .layer = layer, .pass = pass};
    g_strlcpy(e.label, label, sizeof e.label);
    g_array_append_val(v->maps, e);
}

/* The kind of map the overview lays out by layer and head: full attention's
 * maps, else linear attention's states; -1 when the model has neither. */
static int overview_kind(attention_view *v)
{
    int kind = -1;
    for (guint i = 0; i < v->maps->len; i++) {
        map_kind k = g_array_index(v->maps, map_entry, i).kind;
        if (k == MAP_PROBS || (k == MAP_KV && kind < 0))
            kind = (int)k;
    }
    return kind;
}

static gboolean overview_on(attention_view *v)
{
    return gtk_toggle_button_get_active(v->overview_toggle) && overview_kind(v) >= 0;
}

static void tap_of(const map_entry *m, char *name)
{
    g_snprintf(name, RF_NAME_LEN, m->kind == MAP_PROBS ? "layer%d.attn.probs" : "layer%d.attn.kv", m->layer);
}

/* Rebuild the list of maps from the taps the model offers. */
static void collect_maps(gpointer data)
{
    attention_view *v = data;
    g_array_set_size(v->maps, 0);
    v->segments = 0;
    gboolean cross[2][2] = {{FALSE}};   /* [pass][segment reads latent, latent reads segment] */
    char label[64];
    const char *const *taps = rf_session_list_taps(v->session);
    for (int i = 0; taps != NULL && taps[i] != NULL; i++) {
        const char *t = taps[i];
        int layer, seg, end = 0;
        char pass[4];
        if (sscanf(t, "layer%d.attn.probs%n", &layer, &end) == 1 && t[end] == '\0') {
            g_snprintf(label, sizeof label, "Layer %d", layer + 1);
            add_map(v, MAP_PROBS, layer, NULL, label);
        } else if (sscanf(t, "layer%d.attn.kv%n", &layer, &end) == 1 && t[end] == '\0') {
            g_snprintf(label, sizeof label, "Layer %d key-value state", layer + 1);
            add_map(v, MAP_KV, layer, NULL, label);
        } else if (sscanf(t, "layer%d.ls.local%n", &layer, &end) == 1 && t[end] == '\0') {
            g_snprintf(label, sizeof label, "Layer %d long-short", layer + 1);
            add_map(v, MAP_LS, layer, NULL, label);
        } else if (sscanf(t, "blrp.self.%d.probs%n", &layer, &end) == 1 && t[end] == '\0') {
            g_snprintf(label, sizeof label, "Segment self-attention, layer %d", layer + 1);
            add_map(v, MAP_BLRP_SELF, layer, NULL, label);
        } else if (sscanf(t, "blrp.segment.%3[a-z].%d.reads_latent%n", pass, &seg, &end) == 2 && t[end] == '\0') {
            cross[strcmp(pass, "bwd") == 0][0] = TRUE;
            v->segments = MAX(v->segments, seg);
        } else if (sscanf(t, "blrp.latent.%3[a-z].%d.reads_segment%n", pass, &seg, &end) == 2 && t[end] == '\0') {
            cross[strcmp(pass, "bwd") == 0][1] = TRUE;
            v->segments = MAX(v->segments, seg);
        }
    }
    static const char *const pass_tag[2] = {"fwd", "bwd"}, *const pass_word[2] = {"forward", "backward"};
    for (int p = 0; p < 2; p++) {
        if (cross[p][0]) {
            g_snprintf(label, sizeof label, "Segment reads latent (%s)", pass_word[p]);
            add_map(v, MAP_BLRP_SEG_READS, 0, pass_tag[p], label);
        }
        if (cross[p][1]) {
            g_snprintf(label, sizeof label, "Latent reads segment (%s)", pass_word[p]);
            add_map(v, MAP_BLRP_LAT_READS, 0, pass_tag[p], label);
        }
    }
    const char **labels = g_new0(const char *, v->maps->len + 1);
    for (guint i = 0; i < v->maps->len; i++)
        labels[i] = g_array_index(v->maps, map_entry, i).label;
    rf_probe_picker_set_layers(&v->picker, labels, v->maps->len);
    g_free(labels);
    gtk_widget_set_sensitive(GTK_WIDGET(v->overview_toggle), overview_kind(v) >= 0);
}

/* Tokens before the first data position: the CLS token, except in the last
 * long-short layer with model.cls = last_layer, which taps the tokens only. */
static int token_offset(const rf_config *cfg, const map_entry *m)
{
    if (strcmp(cfg->model.pool, "cls") != 0)
        return 0;
    if (m->kind == MAP_LS && strcmp(cfg->model.cls, "last_layer") == 0 && m->layer == cfg->model.layers - 1)
        return 0;
    return 1;
}

static gboolean picture_possible(attention_view *v, const map_entry *m)
{
    const rf_dataset *ds = rf_session_get_dataset(v->session);
    return m != NULL && (m->kind == MAP_PROBS || m->kind == MAP_LS) && ds != NULL && ds->grid_h > 0 &&
           ds->grid_w > 0;
}

/* Full attention's map is asked for pooled to the plot's pixels (core/probe.h):
 * at most this many cells each way, about the side of the square the
 * matrix takes in the plot (its margins and legend off). At most heads x
 * 1024 x 1024 floats: 32 MiB for 8 heads, under 1 % of what a
 * million-token run plans. */
static int64_t map_cells(attention_view *v)
{
    return MIN(rf_pooled_request_cells(&v->request, TRUE, 200, 1024),
               rf_pooled_request_cells(&v->request, FALSE, 100, 1024));
}

/* The end of the sample's own positions in a map (RF_POOL_END: the map's). */
static int64_t map_window_end(attention_view *v, const map_entry *m)
{
    int len = rf_probe_picker_sample_length(&v->picker);
    return len > 0 ? token_offset(rf_session_get_run_config(v->session), m) + len : RF_POOL_END;
}

static rf_probe_window map_window(attention_view *v, const map_entry *m)
{
    int64_t cells = map_cells(v), end = map_window_end(v, m);
    rf_pool_reduce reduce = gtk_toggle_button_get_active(v->mean) ? RF_POOL_MEAN : RF_POOL_MAX;
    return rf_pooled_request_window(&v->request, end, end, cells, cells, reduce);
}

/* LS's band and globals are asked for with their queries pooled to the
 * plot's height and every column kept (a band's offsets, the global keys):
 * at 1M tokens the tap is N x heads x (band + globals) floats, the cells at
 * most 1024 rows of them. */
static rf_probe_window band_window(attention_view *v, const map_entry *m)
{
    rf_pool_reduce reduce = gtk_toggle_button_get_active(v->mean) ? RF_POOL_MEAN : RF_POOL_MAX;
    rf_probe_window w = rf_pooled_request_window(&v->request, map_window_end(v, m), RF_POOL_END,
                                                 rf_pooled_request_cells(&v->request, FALSE, 100, 1024), G_MAXINT32,
                                                 reduce);
    w.c0 = 0;
    w.c1 = RF_POOL_END;
    return w;
}

/* Which taps the chosen map needs, watched while the view is visible. */
static void watch(attention_view *v)
{
    const map_entry *m = chosen_map(v);
    int seg = gtk_spin_button_get_value_as_int(v->segment);
    v->n_taps = 0;
    if (m != NULL) {
        switch (m->kind) {
        case MAP_PROBS:
            g_snprintf(v->taps[v->n_taps++], RF_NAME_LEN, "layer%d.attn.probs", m->layer);
            break;
        case MAP_KV:
            g_snprintf(v->taps[v->n_taps++], RF_NAME_LEN, "layer%d.attn.kv", m->layer);
            break;
        case MAP_LS:
            g_snprintf(v->taps[v->n_taps++], RF_NAME_LEN, "layer%d.ls.local", m->layer);
            g_snprintf(v->taps[v->n_taps++], RF_NAME_LEN, "layer%d.ls.global", m->layer);
            break;
        case MAP_BLRP_SELF:
            g_snprintf(v->taps[v->n_taps++], RF_NAME_LEN, "blrp.self.%d.probs", m->layer);
            break;
        case MAP_BLRP_SEG_READS:
            g_snprintf(v->taps[v->n_taps++], RF_NAME_LEN, "blrp.segment.%s.%d.reads_latent", m->pass, seg);
            break;
        case MAP_BLRP_LAT_READS:
            g_snprintf(v->taps[v->n_taps++], RF_NAME_LEN, "blrp.latent.%s.%d.reads_segment", m->pass, seg);
            break;
        }
    }
    if (!gtk_widget_get_mapped(GTK_WIDGET(v->plot)))
        return;
    if (overview_on(v)) {   /* every layer's maps */
        int kind = overview_kind(v);
        GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
        for (guint i = 0; i < v->maps->len; i++) {
            const map_entry *e = &g_array_index(v->maps, map_entry, i);
            if ((int)e->kind == kind) {
                char *name = g_malloc(RF_NAME_LEN);
                tap_of(e, name);
                g_ptr_array_add(names, name);
            }
        }
        /* full attention's maps as thumbnails: the sample's positions pooled to
         * at most 256 cells each way */
        g_autofree rf_probe_window *windows = g_new0(rf_probe_window, names->len + 1);
        int64_t end = m != NULL ? map_window_end(v, m) : RF_POOL_END;
        rf_pool_reduce reduce = gtk_toggle_button_get_active(v->mean) ? RF_POOL_MEAN : RF_POOL_MAX;
        for (guint i = 0; kind == MAP_PROBS && i < names->len; i++)
            windows[i] = (rf_probe_window){0, end, 0, end, 256, 256, reduce};
        rf_probe_picker_watch_pooled(&v->picker, (const char *const *)names->pdata, windows, (int)names->len);
        g_ptr_array_unref(names);
        return;
    }
    const char *names[2] = {v->taps[0], v->taps[1]};
    if (m != NULL && m->kind == MAP_PROBS) {
        rf_probe_window w[1] = {map_window(v, m)};
        rf_probe_picker_watch_pooled(&v->picker, names, w, v->n_taps);
        return;
    }
    if (m != NULL && m->kind == MAP_LS) {
        rf_probe_window w[2] = {band_window(v, m), band_window(v, m)};
        rf_probe_picker_watch_pooled(&v->picker, names, w, v->n_taps);
        return;
    }
    rf_probe_picker_watch(&v->picker, names, v->n_taps);
}

static void show_message(attention_view *v, const char *text)
{
    rf_attention_figure_set_message(&v->figure, text);
    rf_plot_view_queue_draw(v->plot);
}

/* No map to show: say why. */
static void explain_absence(attention_view *v)
{
    const rf_config *cfg = rf_session_get_run_config(v->session);
    const char *const *taps = rf_session_list_taps(v->session);
    char text[200];
    if (taps == NULL || taps[0] == NULL)
        g_snprintf(text, sizeof text, "No attention maps yet: start training or open a checkpoint");
    else
        g_snprintf(text, sizeof text, "This model has no attention maps (encoder: %s)", cfg->model.encoder);
    show_message(v, text);
}

/* Show a rows x cols map of the current snapshot (or `owned`, a buffer
 * holding it that the view then frees). */
static void show_matrix(attention_view *v, const float *map, int rows, int cols, const char *row_label,
                        const char *col_label, float *owned)
{
    char pooled_rows[32], pooled_cols[32];
    if (v->pooled) {
        g_snprintf(pooled_rows, sizeof pooled_rows, "%s (pooled)", row_label);
        g_snprintf(pooled_cols, sizeof pooled_cols, "%s (pooled)", col_label);
        row_label = pooled_rows;
        col_label = pooled_cols;
    }
    rf_map_preparer_show(&v->prep, rf_probe_picker_hold(&v->picker), map, rows, cols, row_label, col_label, owned);
}

/* The shown sample's length in data positions; 0 when unknown or when the
 * map shown is a stored step's pooled one (its cells are not positions). */
static int sample_length(attention_view *v)
{
    return v->pooled ? 0 : rf_probe_picker_sample_length(&v->picker);
}

/* Show the top-left keep_rows x keep_cols block of map [rows, cols], or the
 * whole map when that is all of it. */
static void show_block(attention_view *v, const float *map, int rows, int cols, int keep_rows, int keep_cols,
                       const char *row_label, const char *col_label)
{
    if (keep_rows >= rows && keep_cols >= cols) {
        show_matrix(v, map, rows, cols, row_label, col_label, NULL);
        return;
    }
    float *crop = g_new(float, (size_t)keep_rows * keep_cols);
    for (int r = 0; r < keep_rows; r++)
        memcpy(crop + (size_t)r * keep_cols, map + (size_t)r * cols, (size_t)keep_cols * sizeof *crop);
    show_matrix(v, crop, keep_rows, keep_cols, row_label, col_label, crop);
}

/* A full-attention map [rows, rows] of one head: only the shown sample's
 * own positions (its CLS first, when the model has one), where the batch
 * padded it; the padded queries' rows and keys' columns carry nothing of
 * the sample. A pooled map's window is those positions already. */
static void show_probs(attention_view *v, const rf_config *cfg, const map_entry *m, const rf_probe_value *a,
                       const float *map, int rows, int cols)
{
    if (a->pooled) {   /* the axes count tokens; the title says how many a cell holds */
        show_matrix(v, map, rows, cols, "query", "key", NULL);
        return;
    }
    int len = rows == cols ? sample_length(v) : 0;
    int valid = len > 0 ? MIN(rows, token_offset(cfg, m) + len) : rows;
    show_block(v, map, rows, cols, valid, valid, "query", "key");
}

/* The tokens of the shown sample in BLRP segment seg (1-based) of t: the
 * batch pads at the end, so the last segments hold fewer or none; t when
 * the sample's length is unknown. */
static int segment_tokens(attention_view *v, int seg, int t)
{
    int len = sample_length(v);
    return len > 0 ? CLAMP(len - (seg - 1) * t, 0, t) : t;
}

/* BLRP segment seg (of t tokens) holds none of the sample's tokens. */
static void show_padding(attention_view *v, int seg, int t)
{
    char text[160];
    int len = sample_length(v);
    g_snprintf(text, sizeof text, "Segment %d is padding for this sample: its %d tokens fill %d segment%s of %d", seg,
               len, (len + t - 1) / t, len > t ? "s" : "", t);
    show_message(v, text);
}

/* Name a token map's rows and columns by the sample's tokens, read once
 * zoomed in: full attention's (after the model's CLS) or BLRP segment
 * seg's self-attention (t tokens a segment). A pooled map's cells of
 * several tokens have no words: the axes and hover give their positions. */
static void name_cells(attention_view *v, const rf_config *cfg, const map_entry *m, const rf_probe_value *a, int rows,
                       int cols, int seg, int t)
{
    int n = 0;
    char **names = NULL;
    rf_attention_figure_take_col_names(&v->figure, NULL, 0);
    if (m->kind == MAP_PROBS && rf_pooled_request_coarse(a)) {   /* the axes and hover give the cells' positions */
        rf_attention_figure_take_names(&v->figure, NULL, 0);
        return;
    }
    if (m->kind == MAP_PROBS && a->pooled && (a->window.r0 != 0 || a->window.c0 != 0)) {
        int cn = 0, offset = token_offset(cfg, m);
        names = rf_probe_picker_token_names(&v->picker, offset, (int)a->window.r0, (int)a->window.r1, &n);
        char **col_names = rf_probe_picker_token_names(&v->picker, offset, (int)a->window.c0, (int)a->window.c1, &cn);
        if (a->window.r0 != a->window.c0 || a->window.r1 != a->window.c1)
            rf_attention_figure_take_col_names(&v->figure, col_names, cn);
        else
            g_strfreev(col_names);
        rf_attention_figure_take_names(&v->figure, names, n);
        return;
    } else if (m->kind == MAP_PROBS && !v->pooled)
        names = rf_probe_picker_token_names(&v->picker, token_offset(cfg, m), 0, rows, &n);
    else if (m->kind == MAP_BLRP_SELF && !v->pooled)
        names = rf_probe_picker_token_names(&v->picker, 0, (seg - 1) * t, seg * t, &n);
    if (n > rows || rows != cols)
        g_clear_pointer(&names, g_strfreev);
    rf_attention_figure_take_names(&v->figure, names, n);
}

/* The snapshot shown lacks the map. */

static void show_missing(attention_view *v)
{
    char text[200];
    int64_t step = rf_probe_picker_get_step(&v->picker);
    if (step >= 0)
        g_snprintf(text, sizeof text, "Step %" G_GINT64_FORMAT " has no stored copy of this map: no view showed it "
                   "then", step);
    else
        g_snprintf(text, sizeof text, "Waiting for the next inspection pass of the running model");
    show_message(v, text);
}

/* --- the overview --- */

/* A large overview, pooled in a worker thread. */
typedef struct overview_job {
    RfProbeHold *hold;
    rf_attention_overview built;
    GArray *layers;             /* of map_entry: the grid's rows */
    int heads;
    int keep;                   /* the sample's positions kept of each map (0: all) */
    guint generation;
} overview_job;

static void overview_job_free(gpointer data)
{
    overview_job *job = data;
    rf_attention_overview_free(&job->built);
    rf_probe_hold_release(job->hold);
    g_array_unref(job->layers);
    g_free(job);
}

/* Pool each row's maps, cut to their first `keep` queries and keys, into the
 * overview (any thread: o is nobody's yet). */
static void fill_overview(rf_attention_overview *o, const rf_probe_set *ps, const GArray *layers, int heads,
                          int keep)
{
    rf_attention_overview_resize(o, (int)layers->len, heads);
    for (guint r = 0; r < layers->len; r++) {
        const map_entry *m = &g_array_index(layers, map_entry, r);
        char name[RF_NAME_LEN];
        tap_of(m, name);
        const rf_probe_value *a = rf_probe_set_find(ps, name);
        gboolean ok = a != NULL && a->filled && a->shape.ndim == 3;
        rf_attention_overview_set_layer(o, (int)r, m->layer, ok ? a->data : NULL, ok ? (int)a->shape.dim[0] : 0,
                                        ok ? (int)a->shape.dim[1] : 0, ok ? (int)a->shape.dim[2] : 0, keep);
    }
}

static void overview_in_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancel)
{
    (void)source;
    (void)cancel;
    overview_job *job = data;
    fill_overview(&job->built, rf_probe_hold_get(job->hold), job->layers, job->heads, job->keep);
    g_task_return_boolean(task, TRUE);
}

static void on_overview_built(GObject *plot, GAsyncResult *result, gpointer data)
{
    (void)data;
    attention_view *v = rf_probe_view_get_data(RF_PLOT_VIEW(plot));
    overview_job *job = g_task_get_task_data(G_TASK(result));
    if (v == NULL || job->generation != v->prep.generation)
        return;
    char title[160];
    g_strlcpy(title, v->overview.title, sizeof title);
    rf_attention_overview_move(&v->overview, &job->built);
    rf_attention_overview_set_title(&v->overview, title);
    rf_map_preparer_done(&v->prep);
}

static void refresh_overview(attention_view *v)
{
    int kind = overview_kind(v);
    g_autoptr(GArray) layers = g_array_new(FALSE, TRUE, sizeof(map_entry));
    int heads = 0;
    size_t cells = 0;
    gboolean pooled = FALSE;
    for (guint i = 0; i < v->maps->len; i++) {
        const map_entry *m = &g_array_index(v->maps, map_entry, i);
        if ((int)m->kind != kind)
            continue;
        g_array_append_val(layers, *m);
        char name[RF_NAME_LEN];
        tap_of(m, name);
        gboolean tap_pooled = FALSE;
        const rf_probe_value *a = rf_probe_picker_find(&v->picker, name, &tap_pooled);
        pooled = pooled || tap_pooled;
        if (a != NULL && a->filled && a->shape.ndim == 3) {
            heads = MAX(heads, (int)a->shape.dim[0]);
            cells += (size_t)rf_shape_numel(a->shape);
        }
    }
    rf_attention_figure_show_overview(&v->figure, &v->overview);
    rf_plot_view_show_map(v->plot, "overview");
    if (heads == 0) {
        rf_attention_overview_resize(&v->overview, 0, 0);
        int64_t step = rf_probe_picker_get_step(&v->picker);
        char text[200];
        if (step >= 0)
            g_snprintf(text, sizeof text, "Step %" G_GINT64_FORMAT " has no stored maps of every layer: the overview "
                       "was not on then", step);
        else
            g_snprintf(text, sizeof text, "Waiting for the next inspection pass of the running model");
        rf_attention_overview_set_message(&v->overview, text);
        rf_plot_view_queue_draw(v->plot);
        return;
    }
    rf_probe_picker_set_heads(&v->picker, heads);
    char sample[64], title[160];
    rf_probe_picker_describe(&v->picker, sample, sizeof sample);
    g_snprintf(title, sizeof title, "%s overview · layers down, heads across · %s",
               kind == MAP_PROBS ? "Attention" : "Key-value state", sample);
    /* full attention's maps cut to the sample's own positions, as show_probs
     * cuts the single map (a stored step's pooled maps are not positions) */
    int len = kind == MAP_PROBS && !pooled ? rf_probe_picker_sample_length(&v->picker) : 0;
    const map_entry *first = &g_array_index(layers, map_entry, 0);
    int keep = len > 0 ? token_offset(rf_session_get_run_config(v->session), first) + len : 0;
    RfProbeHold *hold = rf_probe_picker_hold(&v->picker);
    if (cells < OFF_THREAD_CELLS) {
        fill_overview(&v->overview, rf_probe_hold_get(hold), layers, heads, keep);
        rf_probe_hold_release(hold);
        rf_attention_overview_set_title(&v->overview, title);
        rf_plot_view_queue_draw(v->plot);
        return;
    }
    rf_attention_overview_set_title(&v->overview, title);
    overview_job *job = g_new0(overview_job, 1);
    job->hold = hold;
    job->layers = g_array_ref(layers);
    job->heads = heads;
    job->keep = keep;
    job->generation = v->prep.generation;
    GTask *task = g_task_new(v->plot, rf_map_preparer_start(&v->prep), on_overview_built, NULL);
    g_task_set_task_data(task, job, overview_job_free);
    g_task_run_in_thread(task, overview_in_thread);
    g_object_unref(task);
}

/* A click on a thumbnail: leave the overview for that layer and head. */
static void on_pick(void *data, int layer, int head)
{
    attention_view *v = data;
    int kind = overview_kind(v);
    v->picker.updating = TRUE;
    for (guint i = 0; i < v->maps->len; i++) {
        const map_entry *m = &g_array_index(v->maps, map_entry, i);
        if ((int)m->kind == kind && m->layer == layer)
            gtk_drop_down_set_selected(v->picker.layer, i);
    }
    rf_probe_picker_set_head(&v->picker, head);
    v->picker.updating = FALSE;
    gtk_toggle_button_set_active(v->overview_toggle, FALSE);   /* watches that map and shows it */
}

/* The title's account of a pooled window: the positions a zoom shows, and
 * what a cell is (the widest cell's positions: they differ by one at most). */
static void describe_window(const map_entry *m, const rf_probe_value *a, gboolean zoomed, char *title, size_t size)
{
    const rf_probe_window *w = &a->window;
    size_t used = strlen(title);
    if (zoomed && m->kind == MAP_LS)
        g_snprintf(title + used, size - used, " · queries %" G_GINT64_FORMAT "-%" G_GINT64_FORMAT, w->r0, w->r1 - 1);
    else if (zoomed)
        g_snprintf(title + used, size - used, " · queries %" G_GINT64_FORMAT "-%" G_GINT64_FORMAT ", keys %"
                   G_GINT64_FORMAT "-%" G_GINT64_FORMAT, w->r0, w->r1 - 1, w->c0, w->c1 - 1);
    if (!rf_pooled_request_coarse(a))
        return;
    int64_t rows = a->shape.dim[a->shape.ndim - 2], span = (w->r1 - w->r0 + rows - 1) / rows;
    const char *reduce = w->reduce == RF_POOL_MEAN ? "mean" : "max", *up_to = (w->r1 - w->r0) % rows ? "up to " : "";
    used = strlen(title);
    if (m->kind == MAP_LS)   /* the band's columns are offsets, never pooled */
        g_snprintf(title + used, size - used, " · %s over %s%" G_GINT64_FORMAT " queries", reduce, up_to, span);
    else
        g_snprintf(title + used, size - used, " · %s over %s%" G_GINT64_FORMAT "×%" G_GINT64_FORMAT " tokens", reduce,
                   up_to, span, span);
}

/* Show the chosen head of the snapshot. */
static void refresh(gpointer data)
{
    attention_view *v = data;
    rf_map_preparer_forget(&v->prep);
    if (overview_on(v)) {
        refresh_overview(v);
        return;
    }
    rf_attention_figure_show_overview(&v->figure, NULL);
    const map_entry *m = chosen_map(v);
    if (m == NULL) {
        explain_absence(v);
        return;
    }
    const rf_probe_value *a = v->n_taps > 0 ? rf_probe_picker_find(&v->picker, v->taps[0], &v->pooled) : NULL;
    if (a == NULL || !a->filled) {
        show_missing(v);
        return;
    }
    const rf_config *cfg = rf_session_get_run_config(v->session);
    const rf_shape sh = a->shape;
    int head = rf_probe_picker_get_head(&v->picker), seg = gtk_spin_button_get_value_as_int(v->segment);
    int heads = m->kind == MAP_BLRP_SELF ? MAX(1, cfg->model.heads) : (int)sh.dim[0];
    rf_probe_picker_set_heads(&v->picker, heads);
    head = MIN(head, heads - 1);
    if (sh.ndim != 3) {
        show_message(v, "This attention map has an unexpected shape");
        return;
    }
    size_t plane = (size_t)sh.dim[1] * sh.dim[2];
    int rows = (int)sh.dim[1], cols = (int)sh.dim[2];
    if (m->kind == MAP_BLRP_SELF)
        seg = MIN(seg, (int)sh.dim[0] / heads);
    char map[160];
    g_snprintf(map, sizeof map, "%s · %s · head %d · segment %d", cfg->model.encoder, m->label, head + 1,
               m->kind >= MAP_BLRP_SELF ? seg : 0);
    gboolean zoomed = (m->kind == MAP_PROBS || m->kind == MAP_LS) && rf_pooled_request_shows_zoomed(&v->request, a);
    if (zoomed) {   /* a zoomed window's cells fill the plot: it starts unzoomed */
        size_t used = strlen(map);
        g_snprintf(map + used, sizeof map - used, " · %" G_GINT64_FORMAT "-%" G_GINT64_FORMAT " × %" G_GINT64_FORMAT
                   "-%" G_GINT64_FORMAT, a->window.r0, a->window.r1, a->window.c0, a->window.c1);
    }
    rf_pooled_request_show_map(&v->request, map);
    gboolean by_position = m->kind == MAP_PROBS || m->kind == MAP_LS;   /* a pooled map's axes count tokens */
    rf_attention_figure_set_positions(&v->figure, by_position ? rf_pooled_request_rows(a) : (rf_matrix_positions){0},
                                      m->kind == MAP_PROBS ? rf_pooled_request_cols(a) : (rf_matrix_positions){0});
    /* BLRP's maps: the tokens of the chosen segment the sample has */
    int t = m->kind == MAP_BLRP_SELF || m->kind == MAP_BLRP_SEG_READS ? rows : cols;
    int seg_tokens = m->kind >= MAP_BLRP_SELF ? segment_tokens(v, seg, t) : 0;
    if (m->kind >= MAP_BLRP_SELF && seg_tokens == 0) {
        show_padding(v, seg, t);
        return;
    }
    name_cells(v, cfg, m, a, rows, cols, seg, t);
    /* A key-value state is signed: diverging around 0; the rest are weights. */
    if (m->kind == MAP_KV)
        rf_attention_figure_set_quantity(&v->figure, "key-value state", RF_COLORMAP_DIVERGING);
    else
        rf_attention_figure_set_quantity(&v->figure, "attention weight", RF_COLORMAP_SEQUENTIAL);
    switch (m->kind) {
    case MAP_PROBS:
        show_probs(v, cfg, m, a, a->data + head * plane, rows, cols);
        break;
    case MAP_KV:
        show_matrix(v, a->data + head * plane, rows, cols, "key feature", "value feature", NULL);
        break;
    case MAP_LS: {
        const rf_probe_value *g = rf_probe_picker_find(&v->picker, v->taps[1], NULL);
        gboolean globals = g != NULL && g->filled && g->shape.ndim == 3 && g->shape.dim[1] == rows;
        int n_globals = globals ? (int)g->shape.dim[2] : 0;
        if (cols != rf_ls_band(cfg->model.window)) {
            show_message(v, "The long-short band does not match model.window; restart the run");
            return;
        }
        rf_attention_figure_set_band(&v->figure, a->data + head * plane, rows, cfg->model.window,
                                     globals ? g->data + (size_t)head * rows * n_globals : NULL, n_globals);
        rf_map_preparer_keep(&v->prep, rf_probe_picker_hold(&v->picker), NULL);
        break;
    }
    case MAP_BLRP_SELF:
        show_block(v, a->data + ((size_t)(seg - 1) * heads + head) * plane, rows, cols, seg_tokens, seg_tokens,
                   "segment query", "segment key");
        break;
    case MAP_BLRP_SEG_READS:
        show_block(v, a->data + head * plane, rows, cols, seg_tokens, cols, "segment token", "latent");
        break;
    case MAP_BLRP_LAT_READS:
        show_block(v, a->data + head * plane, rows, cols, rows, seg_tokens, "latent", "segment token");
        break;
    }
    char sample[64], title[160];
    rf_probe_picker_describe(&v->picker, sample, sizeof sample);
    gboolean blrp = m->kind >= MAP_BLRP_SELF;
    if (blrp)
        g_snprintf(title, sizeof title, "%s · segment %d · head %d · %s", m->label, seg, head + 1, sample);
    else
        g_snprintf(title, sizeof title, "%s · head %d · %s", m->label, head + 1, sample);
    describe_window(m, a, zoomed, title, sizeof title);
    rf_attention_figure_set_title(&v->figure, title);
    rf_attention_figure_show_picture(&v->figure, gtk_toggle_button_get_active(v->picture) &&
                                                     picture_possible(v, m));
    rf_plot_view_queue_draw(v->plot);
}

/* The picture of the chosen sample (image data), or none. */
static void load_picture(attention_view *v)
{
    const map_entry *m = chosen_map(v);
    gboolean possible = picture_possible(v, m);
    gtk_widget_set_visible(GTK_WIDGET(v->picture), possible);   /* no inert toggle for token data */
    if (!possible) {
        rf_picture_clear(&v->figure.picture);
        return;
    }
    const rf_config *cfg = rf_session_get_run_config(v->session);
    rf_probe_picker_load_picture(&v->picker, &v->figure.picture, token_offset(cfg, m));
}

/* A zoom came to rest: ask for the queries (and keys) now visible
 * (pooled_request.h); a band keeps its columns. */
static void zoom_settled(gpointer data)
{
    attention_view *v = data;
    const map_entry *m = chosen_map(v);
    const rf_probe_value *a = v->n_taps > 0 ? rf_probe_picker_find(&v->picker, v->taps[0], NULL) : NULL;
    if (m == NULL || (m->kind != MAP_PROBS && m->kind != MAP_LS) || overview_on(v) || a == NULL || !a->filled ||
        !a->pooled || rf_probe_picker_get_step(&v->picker) >= 0)
        return;
    if (rf_pooled_request_follow_zoom(&v->request, a, m->kind == MAP_LS))
        watch(v);
}

/* Any choice changed: show the segment chooser where it applies, watch anew. */
static void on_choice(gpointer data)
{
    attention_view *v = data;
    rf_pooled_request_reset(&v->request);   /* another map or sample: all of it */
    const map_entry *m = chosen_map(v);
    gboolean blrp = m != NULL && m->kind >= MAP_BLRP_SELF;
    gtk_widget_set_visible(v->segment_label, blrp);
    gtk_widget_set_visible(GTK_WIDGET(v->segment), blrp);
    gtk_spin_button_set_range(v->segment, 1, MAX(1, v->segments));
    load_picture(v);
    watch(v);
    refresh(v);
}

/* Max or mean: the same window asked again. */
static void on_mean(gpointer data)
{
    watch(data);
}

static void on_segment(GtkSpinButton *b, gpointer data)
{
    (void)b;
    on_choice(data);
}

static void on_picture(GtkToggleButton *b, gpointer data)
{
    (void)b;
    attention_view *v = data;
    rf_attention_figure_show_picture(&v->figure, gtk_toggle_button_get_active(v->picture) &&
                                                     picture_possible(v, chosen_map(v)));
    rf_plot_view_queue_draw(v->plot);
}

/* Hidden (the watch has stopped): let the snapshot go (up to heads x N x N
 * floats); coming back on screen shows the session's latest again. */
static void on_hidden(gpointer data)
{
    attention_view *v = data;
    rf_map_preparer_forget(&v->prep);
    rf_attention_figure_set_message(&v->figure, "Waiting for the next inspection pass of the running model");
    rf_map_preparer_keep(&v->prep, NULL, NULL);
}

/* Picture mode: a click picks the query patch. */
static void on_released(GtkGestureClick *g, int n_press, double x, double y, gpointer data)
{
    (void)g;
    (void)n_press;
    attention_view *v = data;
    int query;
    GtkWidget *w = GTK_WIDGET(v->plot);
    if (rf_attention_figure_query_at(&v->figure, gtk_widget_get_width(w), gtk_widget_get_height(w), x, y, &query)) {
        rf_attention_figure_set_query(&v->figure, query);
        rf_plot_view_queue_draw(v->plot);
    }
}

GtkWidget *rf_attention_view_new(RfSession *s)
{
    attention_view *v = g_new0(attention_view, 1);
    v->session = s;
    v->maps = g_array_new(FALSE, TRUE, sizeof(map_entry));
    rf_attention_figure_init(&v->figure);
    rf_attention_overview_init(&v->overview);
    v->overview.pick = on_pick;
    v->overview.user = v;
    rf_figure f = rf_attention_figure_get(&v->figure);
    GtkWidget *plot = rf_plot_view_new(&f, TRUE);
    v->plot = RF_PLOT_VIEW(plot);
    rf_map_preparer_init(&v->prep, v->plot, &v->figure);

    rf_probe_picker_init(&v->picker, s, "_Map", on_choice, v);
    v->segment_label = gtk_label_new_with_mnemonic("S_egment");
    v->segment = GTK_SPIN_BUTTON(gtk_spin_button_new_with_range(1, 1, 1));
    gtk_label_set_mnemonic_widget(GTK_LABEL(v->segment_label), GTK_WIDGET(v->segment));
    gtk_widget_set_tooltip_text(GTK_WIDGET(v->segment), "The BLRP segment whose maps are shown");
    gtk_box_append(GTK_BOX(v->picker.box), v->segment_label);
    gtk_box_append(GTK_BOX(v->picker.box), GTK_WIDGET(v->segment));
    v->picture = GTK_TOGGLE_BUTTON(gtk_toggle_button_new_with_mnemonic("Over the _picture"));
    gtk_widget_set_tooltip_text(GTK_WIDGET(v->picture),
                                "Image data: show the attention of one patch over the picture; click a patch to "
                                "choose it");
    /* the two ways of showing the maps end the step row: the picker's row
     * is already as wide as a 1024-pixel window */
    gtk_box_append(GTK_BOX(v->picker.history_box), GTK_WIDGET(v->picture));
    v->overview_toggle = GTK_TOGGLE_BUTTON(gtk_toggle_button_new_with_mnemonic("_Overview"));
    gtk_widget_set_tooltip_text(GTK_WIDGET(v->overview_toggle),
                                "Every layer and head of the sample at once; click one to open it");
    gtk_box_append(GTK_BOX(v->picker.history_box), GTK_WIDGET(v->overview_toggle));
    v->mean = GTK_TOGGLE_BUTTON(gtk_toggle_button_new_with_mnemonic("M_ean"));
    gtk_widget_set_tooltip_text(GTK_WIDGET(v->mean),
                                "Maps longer than the screen: each cell the mean of the weights it covers "
                                "(off: the largest, so a single sharp weight stays visible)");
    gtk_box_append(GTK_BOX(v->picker.history_box), GTK_WIDGET(v->mean));
    g_signal_connect_swapped(v->mean, "toggled", G_CALLBACK(on_mean), v);
    rf_pooled_request_init(&v->request, v->plot, zoom_settled, v);
    g_signal_connect_swapped(v->overview_toggle, "toggled", G_CALLBACK(on_choice), v);
    g_signal_connect(v->segment, "value-changed", G_CALLBACK(on_segment), v);
    g_signal_connect(v->picture, "toggled", G_CALLBACK(on_picture), v);

    GtkGesture *click = gtk_gesture_click_new();
    g_signal_connect(click, "released", G_CALLBACK(on_released), v);
    gtk_widget_add_controller(plot, GTK_EVENT_CONTROLLER(click));
    static const rf_probe_view_hooks hooks = {collect_maps, on_choice, refresh, on_hidden, attention_view_free};
    return rf_probe_view_new(s, &v->picker, v->plot, &hooks, v);
}
