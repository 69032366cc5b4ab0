/* The BLRP latent-state figure (see latent_figure.h). */
#include "latent_figure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "../../core/probe.h"
#include "matrix_panel.h"

#define TITLE_H 28.0
#define BAR_W RF_MAP_LEGEND_W
#define STRIP_SHARE 0.34     /* of the height, for the norms strip */
#define LEGEND_W 170.0       /* the strip's legend, right of its plot: never over a curve */

static const char *const pass_name[2] = {"forward", "backward"};

void rf_latent_figure_init(rf_latent_figure *f)
{
    *f = (rf_latent_figure){.segment = 1, .layer = {RF_LATENT_LAYER_LATENT, 0}};
    snprintf(f->message, sizeof f->message, "No latent states yet: start training");
}

void rf_latent_layer_name(rf_latent_layer layer, char *buf, size_t size)
{
    if (layer.kind == RF_LATENT_LAYER_SELF)
        snprintf(buf, size, "Θ_SELF %d", layer.self);
    else
        snprintf(buf, size, "%s", layer.kind == RF_LATENT_LAYER_CROSS ? "Θ_X" : "Θ_L (latent)");
}

/* What a layer's block holds, for titles. */
static const char *layer_content(rf_latent_layer layer)
{
    return layer.kind == RF_LATENT_LAYER_SELF    ? "token states"
           : layer.kind == RF_LATENT_LAYER_CROSS ? "segment after reading the latent"
                                                 : "latent block";
}

/* ---- blocks: rows x d per pass, the segment each holds ---- */

static void blocks_release(rf_latent_blocks *b)
{
    for (int p = 0; p < 2; p++)
        free(b->data[p]);
    *b = (rf_latent_blocks){0};
}

static void blocks_forget(rf_latent_blocks *b)
{
    b->segment[0] = b->segment[1] = 0;
}

static bool blocks_alloc(rf_latent_blocks *b, int rows, int d)
{
    blocks_release(b);
    b->rows = rows;
    for (int p = 0; p < 2; p++) {
        b->data[p] = calloc((size_t)rows * d, sizeof(float));
        if (b->data[p] == NULL) {
            blocks_release(b);
            return false;
        }
    }
    return true;
}

static double max_abs(const float *v, size_t n)
{
    float m = 0;
    for (size_t i = 0; i < n; i++) {
        float a = fabsf(v[i]);
        m = a > m ? a : m;    /* NaN compares false: skipped */
    }
    return m;
}

/* Copy one block in: the pass's block from now on. */
static void blocks_set(rf_latent_blocks *b, int d, rf_latent_pass pass, int segment, const float *src)
{
    memcpy(b->data[pass], src, (size_t)b->rows * d * sizeof(float));
    b->segment[pass] = segment;
}

/* The blocks the chosen layer shows. */
static const rf_latent_blocks *shown(const rf_latent_figure *f)
{
    return f->layer.kind == RF_LATENT_LAYER_LATENT ? &f->latent : &f->tokens;
}

static bool shown_filled(const rf_latent_figure *f)
{
    const rf_latent_blocks *b = shown(f);
    return b->data[f->pass] != NULL && b->segment[f->pass] == f->segment;
}

bool rf_latent_figure_holds(const rf_latent_figure *f, rf_latent_pass pass, int segment)
{
    const rf_latent_blocks *b = shown(f);
    return b->data[pass] != NULL && b->segment[pass] == segment;
}

/* The rows of segment s's block that hold the sample's tokens: all of a
 * latent block, or when the sample's length is unknown. */
static int rows_held(const rf_latent_figure *f, int s)
{
    const rf_latent_blocks *b = shown(f);
    if (f->layer.kind == RF_LATENT_LAYER_LATENT || f->sample_tokens <= 0)
        return b->rows;
    int held = f->sample_tokens - (s - 1) * b->rows;
    return held < 0 ? 0 : held > b->rows ? b->rows : held;
}

/* ---- the figure's data ---- */

static void strip_release(rf_latent_strip *s)
{
    for (int k = 0; k < RF_LATENT_NORMS; k++)
        free(s->cells[k]);
    *s = (rf_latent_strip){0};
}

static void release(rf_latent_figure *f)
{
    blocks_release(&f->latent);
    blocks_release(&f->tokens);
    strip_release(&f->strip);
    free(f->sequence);
    f->sequence = NULL;
    f->segments = f->l = f->d = 0;
}

void rf_latent_figure_free(rf_latent_figure *f)
{
    rf_heatmap_clear(&f->heat);
    g_strfreev(f->names);
    release(f);
    rf_latent_figure_init(f);
}

void rf_latent_figure_set_message(rf_latent_figure *f, const char *text)
{
    snprintf(f->message, sizeof f->message, "%s", text);
    release(f);
    rf_heatmap_clear(&f->heat);
}

void rf_latent_figure_take_names(rf_latent_figure *f, char **names, int n)
{
    g_strfreev(f->names);
    f->names = names;
    f->n_names = names != NULL ? n : 0;
}

rf_map_scale rf_latent_figure_scale(const rf_latent_figure *f)
{
    return (rf_map_scale){.vmin = f->heat.vmin,
                          .vmax = f->heat.vmax,
                          .kind = RF_COLORMAP_DIVERGING,
                          .quantity = f->layer.kind == RF_LATENT_LAYER_LATENT ? "latent value" : "state value"};
}

void rf_latent_figure_set_title(rf_latent_figure *f, const char *title)
{
    snprintf(f->title, sizeof f->title, "%s", title != NULL ? title : "");
}

void rf_latent_figure_forget(rf_latent_figure *f)
{
    blocks_forget(&f->latent);
    blocks_forget(&f->tokens);
    strip_release(&f->strip);
}

bool rf_latent_figure_resize(rf_latent_figure *f, int segments, int l, int d)
{
    if (segments == f->segments && l == f->l && d == f->d)
        return true;
    release(f);
    rf_heatmap_clear(&f->heat);
    if (segments < 1 || l < 1 || d < 1 || !blocks_alloc(&f->latent, l, d))
        return false;
    f->segments = segments;
    f->l = l;
    f->d = d;
    rf_latent_figure_forget(f);
    if (f->segment > segments)
        f->segment = segments;
    return true;
}

/* The heatmap follows the chosen block; its colour range is symmetric
 * around 0 over the rows of it that hold the sample's tokens. */
static void refresh_heat(rf_latent_figure *f)
{
    if (f->sequence != NULL) {
        double m = fmax(1e-12, max_abs(f->sequence, (size_t)f->sequence_rows * f->d));
        rf_heatmap_set(&f->heat, f->sequence, f->sequence_rows, f->d, -m, m);
        f->heat.colormap = RF_COLORMAP_DIVERGING;
        rf_heatmap_changed(&f->heat);
        return;
    }
    const rf_latent_blocks *b = shown(f);
    if (f->segments == 0 || b->data[f->pass] == NULL) {
        rf_heatmap_clear(&f->heat);
        return;
    }
    int rows = rows_held(f, f->segment);
    if (rows == 0 || !shown_filled(f)) {
        rf_heatmap_clear(&f->heat);
        return;
    }
    double m = fmax(1e-12, max_abs(b->data[f->pass], (size_t)rows * f->d));
    rf_heatmap_set(&f->heat, b->data[f->pass], rows, f->d, -m, m);
    f->heat.colormap = RF_COLORMAP_DIVERGING;   /* signed states: white is 0 */
    rf_heatmap_changed(&f->heat);
}

void rf_latent_figure_set_state(rf_latent_figure *f, rf_latent_pass pass, int segment, const float *state)
{
    if (segment < 1 || segment > f->segments || state == NULL)
        return;
    blocks_set(&f->latent, f->d, pass, segment, state);
    refresh_heat(f);
}

void rf_latent_figure_set_norms(rf_latent_figure *f, rf_latent_norm which, const float *cells,
                                rf_matrix_positions at, bool mean)
{
    rf_latent_strip *s = &f->strip;
    free(s->cells[which]);
    s->cells[which] = NULL;
    if (cells == NULL || at.cells < 1 || at.hi <= at.lo)
        return;
    s->cells[which] = malloc((size_t)at.cells * sizeof(float));
    if (s->cells[which] == NULL)
        return;
    memcpy(s->cells[which], cells, (size_t)at.cells * sizeof(float));
    s->at[which] = at;
    s->mean[which] = mean;
}

/* The first series present (the strip's axis and title follow it), or -1. */
static int strip_lead(const rf_latent_figure *f)
{
    for (int k = 0; k < RF_LATENT_NORMS; k++)
        if (f->strip.cells[k] != NULL)
            return k;
    return -1;
}

void rf_latent_figure_strip_title(const rf_latent_figure *f, char *buf, size_t size)
{
    int k = strip_lead(f);
    const rf_matrix_positions *at = k >= 0 ? &f->strip.at[k] : NULL;
    if (at == NULL || at->cells >= at->hi - at->lo) {
        snprintf(buf, size, "Per-segment norms (gradients from the last inspection pass)");
        return;
    }
    int64_t n = at->hi - at->lo;
    snprintf(buf, size, "Per-segment norms, %s over %s%lld segments a cell (gradients from the last inspection pass)",
             f->strip.mean[k] ? "mean" : "max", n % at->cells ? "up to " : "",
             (long long)((n + at->cells - 1) / at->cells));
}

void rf_latent_figure_set_tokens(rf_latent_figure *f, rf_latent_pass pass, int segment, const float *block)
{
    if (segment < 1 || segment > f->segments || block == NULL || f->tokens.data[pass] == NULL)
        return;
    blocks_set(&f->tokens, f->d, pass, segment, block);
    refresh_heat(f);
}

void rf_latent_figure_set_sequence(rf_latent_figure *f, const float *cells, int rows, rf_matrix_positions at)
{
    free(f->sequence);
    f->sequence = NULL;
    f->sequence_rows = 0;
    if (cells != NULL && rows > 0 && f->d > 0) {
        f->sequence = malloc((size_t)rows * f->d * sizeof(float));
        if (f->sequence != NULL) {
            memcpy(f->sequence, cells, (size_t)rows * f->d * sizeof(float));
            f->sequence_rows = rows;
            f->sequence_at = at;
        }
    }
    refresh_heat(f);
}

void rf_latent_figure_set_sample_tokens(rf_latent_figure *f, int tokens)
{
    f->sample_tokens = tokens > 0 ? tokens : 0;
    refresh_heat(f);
}

void rf_latent_figure_select(rf_latent_figure *f, int segment, rf_latent_pass pass)
{
    f->segment = segment < 1 ? 1 : segment > f->segments && f->segments > 0 ? f->segments : segment;
    f->pass = pass;
    refresh_heat(f);
}

bool rf_latent_figure_set_layer(rf_latent_figure *f, rf_latent_layer layer, int rows)
{
    bool same = layer.kind == f->layer.kind && layer.self == f->layer.self;
    f->layer = layer;
    bool ok = layer.kind == RF_LATENT_LAYER_LATENT;
    if (ok || rows < 1)
        blocks_release(&f->tokens);
    else if (!same || rows != f->tokens.rows || f->tokens.data[0] == NULL)
        ok = f->segments > 0 && blocks_alloc(&f->tokens, rows, f->d);
    else
        ok = true;
    refresh_heat(f);
    return ok;
}

/* ---- layout ---- */

typedef struct layout {
    rf_matrix_panel heat;
    rf_rect bar, strip, legend;   /* strip: the norms plot; legend: the band right of it */
    rf_axis x, y;            /* the strip's axes */
} layout;

static bool has_any(const rf_latent_figure *f)
{
    for (int p = 0; p < 2; p++)
        if (f->latent.segment[p] > 0 || f->tokens.segment[p] > 0)
            return true;
    return f->sequence != NULL || strip_lead(f) >= 0;
}

/* The segment (1-based) at the middle of strip cell i of `at`. */
static double cell_segment(const rf_matrix_positions *at, int i)
{
    int64_t a = rf_pool_edge(at->lo, at->hi, at->cells, i), b = rf_pool_edge(at->lo, at->hi, at->cells, i + 1);
    return 0.5 * (double)(a + b - 1) + 1;
}

/* The cell of `at` that holds segment s (1-based), or -1. */
static int cell_of(const rf_matrix_positions *at, int64_t s)
{
    int64_t r = s - 1;
    if (r < at->lo || r >= at->hi)
        return -1;
    return (int)(((r - at->lo + 1) * at->cells - 1) / (at->hi - at->lo));
}

static const char *row_name(const rf_latent_figure *f)
{
    return f->layer.kind == RF_LATENT_LAYER_LATENT ? "latent row" : "token";
}

/* s: the text's scale (rf_plot_text_scale; 1 on screen). */
static layout lay_out(const rf_latent_figure *f, double width, double height, const rf_zoom *zoom, double s)
{
    layout l = {0};
    double strip_h = fmax(120, STRIP_SHARE * height), title_h = TITLE_H * s, bar_w = BAR_W * s;
    rf_rect top = {8, title_h, fmax(1, width - bar_w - 16), fmax(1, height - title_h - strip_h - 8)};
    int rows = f->sequence != NULL ? f->sequence_rows : rows_held(f, f->segment);
    rf_matrix_panel_layout(&l.heat, top, rows > 0 ? rows : 1, f->d, zoom, false);
    if (f->sequence != NULL)
        l.heat.row_at = f->sequence_at;
    /* the legend's words below the panel's title line, never across it */
    l.bar = (rf_rect){width - bar_w + 4, l.heat.frame.y + rf_map_legend_above(s), 14,
                      fmax(1, l.heat.frame.h - rf_map_legend_above(s) - rf_map_legend_below(s))};
    l.strip = (rf_rect){0, height - strip_h, fmax(1, width - LEGEND_W * s), strip_h};
    l.legend = (rf_rect){l.strip.w, l.strip.y, width - l.strip.w, strip_h};
    /* the strip's segments: its series' window (all of them before any
     * arrived), the zoom's part of it across */
    int lead = strip_lead(f);
    double lo = lead >= 0 ? (double)f->strip.at[lead].lo : 0;
    double n = lead >= 0 ? (double)f->strip.at[lead].hi - lo : f->segments;
    l.x = (rf_axis){.min = lo + 0.5 + zoom->x0 * n, .max = lo + 0.5 + zoom->x1 * n, .label = "segment", .whole = true};
    l.y = (rf_axis){.min = NAN, .max = NAN, .scale = RF_AXIS_LOG, .label = "norm"};
    for (int k = 0; k < RF_LATENT_NORMS; k++)
        for (int i = 0; f->strip.cells[k] != NULL && i < f->strip.at[k].cells; i++)
            rf_axis_include(&l.y, f->strip.cells[k][i]);
    rf_axis_finish(&l.x, true);
    rf_axis_finish(&l.y, false);
    return l;
}

static void draw_strip(const rf_latent_figure *f, cairo_t *cr, const layout *l)
{
    rf_plot p;
    char title[160];
    rf_latent_figure_strip_title(f, title, sizeof title);
    rf_plot_begin(&p, cr, l->strip, &l->x, &l->y, title);
    int most = 1;
    for (int k = 0; k < RF_LATENT_NORMS; k++)
        most = f->strip.cells[k] != NULL && f->strip.at[k].cells > most ? f->strip.at[k].cells : most;
    double *xs = malloc((size_t)most * sizeof *xs), *ys = malloc((size_t)most * sizeof *ys);
    if (xs != NULL && ys != NULL) {
        const char *labels[4] = {"‖L‖ forward", "‖L‖ backward", "‖∇L‖ forward", "‖∇L‖ backward"};
        rf_rgb colors[4] = {rf_series_color(0), rf_series_color(1), rf_series_color(2), rf_series_color(3)};
        const char *shown[5];
        rf_rgb shown_colors[5];
        int n = 0;
        for (int k = 0; k < RF_LATENT_NORMS; k++) {
            const float *v = f->strip.cells[k];
            const rf_matrix_positions *at = &f->strip.at[k];
            bool any = false;
            for (int i = 0; v != NULL && i < at->cells; i++) {
                xs[i] = cell_segment(at, i);
                ys[i] = v[i];
                any |= isfinite(ys[i]);
            }
            if (!any)
                continue;
            rf_plot_line(&p, xs, ys, at->cells, colors[k], 2, k < 2 ? 0 : 4);
            rf_plot_points(&p, xs, ys, at->cells, colors[k], 2.5);
            shown[n] = labels[k];
            shown_colors[n++] = colors[k];
        }
        /* The chosen segment's marker is named in the legend, not beside the line. */
        char label[48];
        snprintf(label, sizeof label, "segment %d", f->segment);
        rf_rgb marker = {0.85, 0.2, 0.1};
        rf_plot_vline(&p, f->segment, marker, NULL);
        shown[n] = label;
        shown_colors[n++] = marker;
        /* the band's whole height, beside the strip's title and axis too: five
         * entries outgrow the plot's frame in a short strip (a 600-pixel window) */
        rf_plot band = p;
        band.frame = l->legend;
        rf_plot_legend(&band, shown, shown_colors, n, RF_LEGEND_TOP_LEFT);
    }
    free(xs);
    free(ys);
    rf_plot_end(&p);
}

void rf_latent_figure_block_title(const rf_latent_figure *f, char *buf, size_t size)
{
    char layer[32];
    rf_latent_layer_name(f->layer, layer, sizeof layer);
    if (f->segments == 0 || !shown_filled(f) || rows_held(f, f->segment) == 0)
        snprintf(buf, size, "%s", "");
    else
        snprintf(buf, size, "segment %d · %s · %s: %s, %d × %d", f->segment, pass_name[f->pass], layer,
                 layer_content(f->layer), rows_held(f, f->segment), f->d);
}

double rf_latent_figure_row_spread(const rf_latent_figure *f)
{
    int rows = f->segments > 0 ? rows_held(f, f->segment) : 0;
    if (rows == 0 || !shown_filled(f))
        return NAN;
    const rf_latent_blocks *b = shown(f);
    const float *v = b->data[f->pass];
    double total = 0, apart = 0;
    for (int c = 0; c < f->d; c++) {
        double mean = 0;
        for (int r = 0; r < rows; r++)
            mean += v[(size_t)r * f->d + c];
        mean /= rows;
        for (int r = 0; r < rows; r++) {
            double x = v[(size_t)r * f->d + c];
            total += x * x;
            apart += (x - mean) * (x - mean);
        }
    }
    return total > 0 ? apart / total : NAN;
}

void rf_latent_figure_heat_title(const rf_latent_figure *f, char *buf, size_t size)
{
    rf_latent_figure_block_title(f, buf, size);
    double spread = 100 * rf_latent_figure_row_spread(f);
    size_t n = strlen(buf);
    if (isfinite(spread) && n > 0)
        snprintf(buf + n, size - n, spread < 0.01 ? " · rows differ: < 0.01%%" : " · rows differ: %.2g%%", spread);
}

static void draw(void *data, cairo_t *cr, double width, double height, const rf_zoom *zoom)
{
    rf_latent_figure *f = data;
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    if (f->segments == 0 || !has_any(f)) {
        rf_draw_message(cr, (rf_rect){0, 0, width, height}, f->message);
        cairo_restore(cr);
        return;
    }
    rf_set_color(cr, (rf_rgb){0.1, 0.1, 0.1}, 1);
    rf_draw_text(cr, 12, 6, 0, 0, RF_PLOT_TITLE, true, f->title);
    layout l = lay_out(f, width, height, zoom, rf_plot_text_scale(cr));
    char title[160], layer[32];
    rf_latent_layer_name(f->layer, layer, sizeof layer);
    if (f->sequence != NULL) {
        const rf_matrix_positions *at = &f->sequence_at;
        snprintf(title, sizeof title, "%s: token states of tokens %lld-%lld, %d rows × %d", layer, (long long)at->lo,
                 (long long)at->hi - 1, f->sequence_rows, f->d);
        rf_matrix_panel_draw(&l.heat, cr, &f->heat, title, "token", "model dimension", 0, 1);
        rf_map_scale scale = rf_latent_figure_scale(f);
        rf_map_legend(cr, l.bar, &scale);
    } else if (shown_filled(f) && rows_held(f, f->segment) > 0) {
        rf_latent_figure_heat_title(f, title, sizeof title);
        /* rows and dimensions counted from 1, as the segments and layers are */
        rf_matrix_panel_draw(&l.heat, cr, &f->heat, title, row_name(f), "model dimension", 1, 1);
        rf_map_scale scale = rf_latent_figure_scale(f);
        rf_map_legend(cr, l.bar, &scale);
    } else if (shown_filled(f)) {
        snprintf(title, sizeof title, "Segment %d is padding for this sample: its %d tokens end in segment %d",
                 f->segment, f->sample_tokens, (f->sample_tokens + shown(f)->rows - 1) / shown(f)->rows);
        rf_draw_message(cr, l.heat.frame, title);
    } else {   /* the figure holds the chosen segment's blocks only: another one is asked for */
        snprintf(title, sizeof title, "Segment %d's %s (%s, %s pass) comes with the next inspection pass", f->segment,
                 layer_content(f->layer), layer, pass_name[f->pass]);
        rf_draw_message(cr, l.heat.frame, title);
    }
    draw_strip(f, cr, &l);
    cairo_restore(cr);
}

static bool hover(void *data, double width, double height, const rf_zoom *zoom, double x, double y, char *text,
                  size_t size)
{
    rf_latent_figure *f = data;
    if (f->segments == 0 || !has_any(f))
        return false;
    layout l = lay_out(f, width, height, zoom, 1.0);
    int row, col;
    if (f->sequence != NULL && rf_matrix_panel_cell_at(&l.heat, &f->heat, x, y, &row, &col)) {
        char tokens[64], layer[32];
        if (!rf_matrix_positions_name(&f->sequence_at, row, tokens, sizeof tokens))
            snprintf(tokens, sizeof tokens, "token %d", row);
        rf_latent_layer_name(f->layer, layer, sizeof layer);
        snprintf(text, size, "%s, %s, dimension %d: %.4g", layer, tokens, col + 1, f->sequence[(size_t)row * f->d + col]);
        return true;
    }
    if (shown_filled(f) && rows_held(f, f->segment) > 0 && rf_matrix_panel_cell_at(&l.heat, &f->heat, x, y, &row, &col)) {
        float v = f->heat.data[(size_t)row * f->d + col];
        char layer[32] = "";
        if (f->layer.kind != RF_LATENT_LAYER_LATENT) {
            rf_latent_layer_name(f->layer, layer + 2, sizeof layer - 2);
            memcpy(layer, ", ", 2);
        }
        char word[96] = "";
        if (f->layer.kind != RF_LATENT_LAYER_LATENT && row < f->n_names && f->names[row] != NULL)
            snprintf(word, sizeof word, " \"%s\"", f->names[row]);
        snprintf(text, size, "segment %d %s%s, %s %d%s, dimension %d: %.4g", f->segment, pass_name[f->pass], layer,
                 row_name(f), row + 1, word, col + 1, v);
        return true;
    }
    if (y < l.strip.y || y > l.strip.y + l.strip.h)
        return false;
    rf_plot p = {.outer = l.strip, .x = l.x, .y = l.y};
    /* rf_plot_begin computes the frame; hover needs it without drawing. */
    cairo_surface_t *scratch = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *cr = cairo_create(scratch);
    char title[160];
    rf_latent_figure_strip_title(f, title, sizeof title);
    rf_plot_begin(&p, cr, l.strip, &l.x, &l.y, title);
    cairo_destroy(cr);
    cairo_surface_destroy(scratch);
    int lead = strip_lead(f);
    if (!rf_plot_contains(&p, x, y) || lead < 0)
        return false;
    int64_t s = lround(rf_plot_x_at(&p, x));
    int cell = cell_of(&f->strip.at[lead], s);
    if (cell < 0)
        return false;
    /* the lead series' cell names the segments; each series reads its own cell of them */
    const rf_matrix_positions *at = &f->strip.at[lead];
    int64_t a = rf_pool_edge(at->lo, at->hi, at->cells, cell), b = rf_pool_edge(at->lo, at->hi, at->cells, cell + 1);
    char v[4][24], where[64];
    for (int k = 0; k < RF_LATENT_NORMS; k++) {
        int c = f->strip.cells[k] != NULL ? cell_of(&f->strip.at[k], a + 1) : -1;
        if (c >= 0 && isfinite(f->strip.cells[k][c]))
            snprintf(v[k], sizeof v[k], "%.4g", f->strip.cells[k][c]);
        else
            snprintf(v[k], sizeof v[k], "–");
    }
    if (b - a == 1)
        snprintf(where, sizeof where, "segment %lld", (long long)a + 1);
    else
        snprintf(where, sizeof where, "segments %lld-%lld (%s)", (long long)a + 1, (long long)b,
                 f->strip.mean[lead] ? "mean" : "max");
    snprintf(text, size, "%s: ‖L‖ forward %s, backward %s · ‖∇L‖ forward %s, backward %s", where, v[0], v[1], v[2],
             v[3]);
    return true;
}

rf_figure rf_latent_figure_get(rf_latent_figure *f)
{
    return (rf_figure){.draw = draw, .hover = hover, .data = f};
}
