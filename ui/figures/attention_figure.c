/* The attention-map figure (see attention_figure.h). */
#include "attention_figure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "../../core/ops/ls_attention.h"
#include "../../core/probe.h"
#include "matrix_panel.h"

#define TITLE_H 28.0
#define BAR_W 110.0          /* the colour bar and its labels */
#define OVERLAY_ALPHA 0.6

void rf_attention_figure_init(rf_attention_figure *f)
{
    *f = (rf_attention_figure){.layout = RF_ATTENTION_MESSAGE, .kind = RF_COLORMAP_SEQUENTIAL};
    snprintf(f->message, sizeof f->message, "No attention maps yet: start training");
    snprintf(f->quantity, sizeof f->quantity, "attention weight");
}

void rf_attention_figure_set_quantity(rf_attention_figure *f, const char *quantity, rf_colormap_kind kind)
{
    snprintf(f->quantity, sizeof f->quantity, "%s", quantity);
    f->kind = kind;
}

void rf_attention_figure_free(rf_attention_figure *f)
{
    rf_heatmap_clear(&f->heat);
    rf_heatmap_clear(&f->heat_globals);
    rf_picture_clear(&f->picture);
    free(f->overlay);
    g_strfreev(f->names);
    g_strfreev(f->col_names);
    rf_attention_figure_init(f);
}

void rf_attention_figure_take_names(rf_attention_figure *f, char **names, int n)
{
    g_strfreev(f->names);
    f->names = names;
    f->n_names = names != NULL ? n : 0;
}

void rf_attention_figure_take_col_names(rf_attention_figure *f, char **names, int n)
{
    g_strfreev(f->col_names);
    f->col_names = names;
    f->n_col_names = names != NULL ? n : 0;
}

void rf_attention_figure_set_message(rf_attention_figure *f, const char *text)
{
    f->layout = RF_ATTENTION_MESSAGE;
    snprintf(f->message, sizeof f->message, "%s", text);
}

void rf_attention_figure_set_positions(rf_attention_figure *f, rf_matrix_positions row_at, rf_matrix_positions col_at)
{
    f->row_at = row_at;
    f->col_at = col_at;
}

void rf_attention_figure_set_title(rf_attention_figure *f, const char *title)
{
    snprintf(f->title, sizeof f->title, "%s", title != NULL ? title : "");
}

void rf_attention_range(const float *p, size_t n, double *lo, double *hi)
{
    float a = 0, b = 0;
    for (size_t i = 0; i < n; i++) {   /* NaN compares false: skipped */
        a = p[i] < a ? p[i] : a;
        b = p[i] > b ? p[i] : b;
    }
    *lo = a;
    *hi = b > a ? b : a + 1;
}

static void rebuild_overlay(rf_attention_figure *f);

static void show_matrix(rf_attention_figure *f, const char *row_label, const char *col_label)
{
    if (f->kind == RF_COLORMAP_DIVERGING) {    /* signed values: white is 0 */
        double m = fmax(fabs(f->heat.vmin), fabs(f->heat.vmax));
        f->heat.vmin = -m;
        f->heat.vmax = m;
        rf_heatmap_changed(&f->heat);
    }
    f->heat.colormap = f->kind;
    f->layout = RF_ATTENTION_MATRIX;
    f->map = f->heat.data;
    f->rows = f->heat.rows;
    f->cols = f->heat.cols;
    f->n_globals = 0;
    snprintf(f->row_label, sizeof f->row_label, "%s", row_label);
    snprintf(f->col_label, sizeof f->col_label, "%s", col_label);
    rebuild_overlay(f);
}

bool rf_attention_figure_set_matrix(rf_attention_figure *f, const float *map, int rows, int cols,
                                    const char *row_label, const char *col_label)
{
    if (map == NULL || rows < 1 || cols < 1) {
        rf_attention_figure_set_message(f, "This attention map could not be read");
        return false;
    }
    double lo, hi;
    rf_attention_range(map, (size_t)rows * cols, &lo, &hi);
    rf_heatmap_set(&f->heat, map, rows, cols, lo, hi);
    show_matrix(f, row_label, col_label);
    return true;
}

void rf_attention_figure_adopt_matrix(rf_attention_figure *f, rf_heatmap *ready, const char *row_label,
                                      const char *col_label)
{
    rf_heatmap_clear(&f->heat);
    f->heat = *ready;
    *ready = (rf_heatmap){0};
    show_matrix(f, row_label, col_label);
}

bool rf_attention_figure_set_band(rf_attention_figure *f, const float *local, int rows, int window,
                                  const float *globals, int n_globals)
{
    int band = rf_ls_band(window);
    double lo, hi, glo = 0, ghi = 1;
    if (local == NULL || rows < 1 || window < 1 || n_globals < 0 || (n_globals > 0 && globals == NULL)) {
        rf_attention_figure_set_message(f, "This long-short attention map could not be read");
        return false;
    }
    rf_attention_range(local, (size_t)rows * band, &lo, &hi);
    if (n_globals > 0)
        rf_attention_range(globals, (size_t)rows * n_globals, &glo, &ghi);
    f->map = local;
    f->globals = globals;
    f->layout = RF_ATTENTION_BAND;
    f->rows = rows;
    f->cols = band;
    f->n_globals = n_globals;
    f->window = window;
    f->extent = rf_ls_extent(window);
    snprintf(f->row_label, sizeof f->row_label, "query");
    snprintf(f->col_label, sizeof f->col_label, "key");
    /* One joint softmax: both blocks share the colour range. */
    if (n_globals > 0) {
        lo = fmin(lo, glo);
        hi = fmax(hi, ghi);
    }
    rf_heatmap_set(&f->heat, f->map, rows, band, lo, hi);
    f->heat.colormap = RF_COLORMAP_SEQUENTIAL;
    if (n_globals > 0)
        rf_heatmap_set(&f->heat_globals, f->globals, rows, n_globals, lo, hi);
    rebuild_overlay(f);
    return true;
}

int rf_attention_figure_band_key(const rf_attention_figure *f, int row, int col)
{
    return row / f->window * f->window - f->extent + col;
}

/* ---- picture mode ---- */

static bool picture_on(const rf_attention_figure *f)
{
    return f->show_picture && f->picture.pixels != NULL && f->layout != RF_ATTENTION_MESSAGE;
}

/* The query row's weight on each raster position (NaN where it has none). */
static void rebuild_overlay(rf_attention_figure *f)
{
    const rf_picture *p = &f->picture;
    if (p->pixels == NULL || f->layout == RF_ATTENTION_MESSAGE || f->query < 0 || f->query >= f->rows)
        return;
    size_t cells = (size_t)p->grid_h * p->grid_w;
    float *o = realloc(f->overlay, cells * sizeof *o);
    if (o == NULL)
        return;
    f->overlay = o;
    for (size_t i = 0; i < cells; i++)
        o[i] = NAN;
    const float *row = f->map + (size_t)f->query * f->cols;
    for (int c = 0; c < f->cols; c++) {
        int key = f->layout == RF_ATTENTION_BAND ? rf_attention_figure_band_key(f, f->query, c) : c;
        int pos = key - p->token_offset;
        if (pos >= 0 && (size_t)pos < cells)
            o[pos] = row[c];
    }
}

void rf_attention_figure_show_picture(rf_attention_figure *f, bool on)
{
    f->show_picture = on;
    rebuild_overlay(f);
}

void rf_attention_figure_set_query(rf_attention_figure *f, int query)
{
    f->query = query;
    rebuild_overlay(f);
}

/* ---- layout, shared by draw and hover ---- */

typedef struct layout {
    rf_matrix_panel main, side;     /* the map (or local band) and the globals */
    rf_rect bar, fit;               /* colour bar; picture */
} layout;

/* s: the text's scale (rf_plot_text_scale; 1 on screen). */
static layout lay_out(const rf_attention_figure *f, double width, double height, const rf_zoom *zoom, double s)
{
    layout l = {0};
    double title_h = TITLE_H * s, bar_w = BAR_W * s;
    rf_rect body = {8, title_h, fmax(1, width - bar_w - 16), fmax(1, height - title_h - 8)};
    l.bar = (rf_rect){width - bar_w + 4, title_h + 24, 14, fmax(1, height - title_h - 24 - 48)};
    if (picture_on(f)) {
        l.fit = rf_picture_fit(&f->picture, (rf_rect){body.x, body.y + 4, body.w, body.h - 28});
        l.bar = (rf_rect){l.fit.x + l.fit.w + 18, l.fit.y + rf_map_legend_above(s), 14,
                          fmax(1, l.fit.h - rf_map_legend_above(s) - rf_map_legend_below(s))};
        return l;
    }
    if (f->layout == RF_ATTENTION_BAND && f->n_globals > 0) {
        /* The band gets most of the width, the globals enough for their columns. */
        double side_w = fmin(0.3 * body.w, 90 + 24.0 * f->n_globals);
        rf_rect left = {body.x, body.y, body.w - side_w, body.h}, right = {body.x + body.w - side_w, body.y, side_w, body.h};
        rf_matrix_panel_layout(&l.main, left, f->rows, f->cols, zoom, false);
        rf_zoom rows_only = {0, 1, zoom->y0, zoom->y1};
        rf_matrix_panel_layout(&l.side, right, f->rows, f->n_globals, &rows_only, false);
    } else {
        rf_matrix_panel_layout(&l.main, body, f->rows, f->cols, zoom, f->layout == RF_ATTENTION_MATRIX);
        l.bar.x = l.main.frame.x + l.main.frame.w + 18;
        l.bar.y = l.main.frame.y + rf_map_legend_above(s);
        l.bar.h = fmax(1, l.main.frame.h - rf_map_legend_above(s) - rf_map_legend_below(s));
    }
    l.main.row_at = l.side.row_at = f->row_at;
    if (f->layout == RF_ATTENTION_MATRIX)
        l.main.col_at = f->col_at;
    return l;
}

/* "(r, c)" of a raster position. */
static void patch_name(const rf_picture *p, int pos, char *buf, size_t size)
{
    snprintf(buf, size, "(%d, %d)", pos / p->grid_w, pos % p->grid_w);
}

/* The query's weights over the picture: from 0 (or below) to their largest. */
static void overlay_range(const rf_attention_figure *f, double *lo, double *hi)
{
    const rf_picture *p = &f->picture;
    *lo = 0;
    *hi = 1;
    if (f->overlay == NULL)
        return;
    rf_data_range(f->overlay, (size_t)p->grid_h * p->grid_w, lo, hi);
    *lo = fmin(0, *lo);
    *hi = *hi > *lo ? *hi : *lo + 1;
}

rf_map_scale rf_attention_figure_scale(const rf_attention_figure *f)
{
    rf_map_scale s = {.vmin = f->heat.vmin, .vmax = f->heat.vmax, .kind = f->kind, .quantity = f->quantity};
    if (picture_on(f))
        overlay_range(f, &s.vmin, &s.vmax);
    if (picture_on(f) || f->layout == RF_ATTENTION_BAND) {
        s.kind = RF_COLORMAP_SEQUENTIAL;
        s.quantity = "attention weight";
    }
    return s;
}

static void draw_picture(rf_attention_figure *f, cairo_t *cr, const layout *l)
{
    const rf_picture *p = &f->picture;
    rf_picture_draw(p, cr, l->fit);
    double lo, hi;
    overlay_range(f, &lo, &hi);
    if (f->overlay != NULL)
        rf_picture_draw_overlay(p, cr, l->fit, f->overlay, lo, hi, OVERLAY_ALPHA);
    int pos = f->query - p->token_offset;
    char caption[96], name[32];
    if (pos >= 0 && pos < p->grid_h * p->grid_w) {
        rf_rect c = rf_picture_cell(p, l->fit, pos);
        rf_set_color(cr, (rf_rgb){1, 0.2, 0.1}, 1);
        cairo_set_line_width(cr, 2.5);
        cairo_rectangle(cr, c.x, c.y, c.w, c.h);
        cairo_stroke(cr);
        patch_name(p, pos, name, sizeof name);
        snprintf(caption, sizeof caption, "Attention of patch %s (query %d); click a patch to choose", name,
                 f->query);
    } else {
        snprintf(caption, sizeof caption, "Query %d is not a patch of the picture; click a patch to choose",
                 f->query);
    }
    rf_set_color(cr, (rf_rgb){0.1, 0.1, 0.1}, 1);
    rf_draw_text(cr, l->fit.x + l->fit.w / 2, l->fit.y + l->fit.h + 6, 0.5, 0, RF_PLOT_TEXT, false, caption);
    rf_map_scale scale = rf_attention_figure_scale(f);
    rf_map_legend(cr, l->bar, &scale);
}

static void draw(void *data, cairo_t *cr, double width, double height, const rf_zoom *zoom)
{
    rf_attention_figure *f = data;
    if (f->overview != NULL) {
        rf_figure o = rf_attention_overview_get(f->overview);
        o.draw(o.data, cr, width, height, zoom);
        return;
    }
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    if (f->layout == RF_ATTENTION_MESSAGE) {
        rf_draw_message(cr, (rf_rect){0, 0, width, height}, f->message);
        cairo_restore(cr);
        return;
    }
    rf_set_color(cr, (rf_rgb){0.1, 0.1, 0.1}, 1);
    rf_draw_text(cr, 12, 6, 0, 0, RF_PLOT_TITLE, true, f->title);
    layout l = lay_out(f, width, height, zoom, rf_plot_text_scale(cr));
    if (picture_on(f)) {
        draw_picture(f, cr, &l);
    } else if (f->layout == RF_ATTENTION_MATRIX) {
        bool one_names = f->col_names == NULL;   /* the panel draws one list on both axes */
        rf_matrix_panel_draw_named(&l.main, cr, &f->heat, NULL, f->row_label, f->col_label,
                                   one_names ? (const char *const *)f->names : NULL, one_names ? f->n_names : 0);
    } else {
        char title[96];
        snprintf(title, sizeof title, "Local band (w = %d, %d keys; column j = key s·w − %d + j)", f->window,
                 f->cols, f->extent);
        /* Columns are labelled by their offset from the segment start. */
        rf_matrix_panel_draw(&l.main, cr, &f->heat, title, "query", "key offset from the segment start", 0,
                             -f->extent);
        if (f->n_globals > 0) {
            snprintf(title, sizeof title, "Global (%d)", f->n_globals);
            rf_matrix_panel_draw(&l.side, cr, &f->heat_globals, title, NULL, "global key", 0, 0);
        }
    }
    if (!picture_on(f)) {
        rf_map_scale scale = rf_attention_figure_scale(f);
        rf_map_legend(cr, l.bar, &scale);
    }
    cairo_restore(cr);
}

/* ` "[MAX"` for a named cell (the sample's token, pixels or time), else "". */
static void name_of(char *const *names, int n, int i, char *buf, size_t size)
{
    if (names != NULL && i >= 0 && i < n && names[i] != NULL)
        snprintf(buf, size, " \"%s\"", names[i]);
    else
        buf[0] = '\0';
}

static void cell_name(const rf_attention_figure *f, int i, char *buf, size_t size)
{
    name_of(f->names, f->n_names, i, buf, size);
}

static void column_name(const rf_attention_figure *f, int i, char *buf, size_t size)
{
    if (f->col_names != NULL)
        name_of(f->col_names, f->n_col_names, i, buf, size);
    else
        cell_name(f, i, buf, size);
}

/* The positions cell i of `at` covers. */
static int64_t row_span(const rf_matrix_positions *at, int i)
{
    return rf_pool_edge(at->lo, at->hi, at->cells, i + 1) - rf_pool_edge(at->lo, at->hi, at->cells, i);
}

static bool hover(void *data, double width, double height, const rf_zoom *zoom, double x, double y, char *text,
                  size_t size)
{
    rf_attention_figure *f = data;
    if (f->overview != NULL) {
        rf_figure o = rf_attention_overview_get(f->overview);
        return o.hover(o.data, width, height, zoom, x, y, text, size);
    }
    if (f->layout == RF_ATTENTION_MESSAGE)
        return false;
    layout l = lay_out(f, width, height, zoom, 1.0);
    int row, col;
    if (picture_on(f)) {
        const rf_picture *p = &f->picture;
        int pos;
        if (!rf_picture_position_at(p, l.fit, x, y, &pos))
            return false;
        char name[32], words[96];
        patch_name(p, pos, name, sizeof name);
        cell_name(f, pos + p->token_offset, words, sizeof words);   /* its pixels, where named */
        float v = f->overlay != NULL ? f->overlay[pos] : NAN;
        if (isfinite(v))
            snprintf(text, size, "patch %s = key %d%s: %.4g", name, pos + p->token_offset, words, v);
        else
            snprintf(text, size, "patch %s = key %d%s: outside the query's window", name, pos + p->token_offset,
                     words);
        return true;
    }
    if (rf_matrix_panel_cell_at(&l.main, &f->heat, x, y, &row, &col)) {
        float v = f->map[(size_t)row * f->cols + col];
        char rows_at[64], cols_at[64];
        bool pooled_rows = rf_matrix_positions_name(&l.main.row_at, row, rows_at, sizeof rows_at);
        if (f->layout == RF_ATTENTION_MATRIX && pooled_rows &&
            rf_matrix_positions_name(&l.main.col_at, col, cols_at, sizeof cols_at)) {
            char row_name[96], col_name[96];   /* a single token's words, where named */
            cell_name(f, row, row_name, sizeof row_name);
            column_name(f, col, col_name, sizeof col_name);
            snprintf(text, size, "%s %s%s, %s %s%s: %.4g", f->row_label, rows_at, row_name, f->col_label, cols_at,
                     col_name, v);
        } else if (f->layout == RF_ATTENTION_MATRIX) {
            char row_name[96], col_name[96];
            cell_name(f, row, row_name, sizeof row_name);
            column_name(f, col, col_name, sizeof col_name);
            snprintf(text, size, "%s %d%s, %s %d%s: %.4g", f->row_label, row, row_name, f->col_label, col, col_name,
                     v);
        } else if (pooled_rows && row_span(&l.main.row_at, row) > 1) {
            /* a column holds one offset from each query's segment start */
            snprintf(text, size, "query %s, key offset %d from the segment start: %.4g", rows_at, col - f->extent, v);
        } else if (pooled_rows) {   /* one query of a window of them */
            int64_t query = rf_pool_edge(l.main.row_at.lo, l.main.row_at.hi, l.main.row_at.cells, row);
            snprintf(text, size, "query %lld, key %d (band column %d): %.4g", (long long)query,
                     rf_attention_figure_band_key(f, (int)query, col), col, v);
        } else {
            int key = rf_attention_figure_band_key(f, row, col);
            if (key < 0 || key >= f->rows)
                snprintf(text, size, "query %d, key %d: outside the sequence (masked)", row, key);
            else
                snprintf(text, size, "query %d, key %d (band column %d): %.4g", row, key, col, v);
        }
        return true;
    }
    if (f->layout == RF_ATTENTION_BAND && f->n_globals > 0 &&
        rf_matrix_panel_cell_at(&l.side, &f->heat_globals, x, y, &row, &col)) {
        char rows_at[64];
        if (rf_matrix_positions_name(&l.side.row_at, row, rows_at, sizeof rows_at))
            snprintf(text, size, "query %s, global key %d: %.4g", rows_at, col,
                     f->globals[(size_t)row * f->n_globals + col]);
        else
            snprintf(text, size, "query %d, global key %d: %.4g", row, col, f->globals[(size_t)row * f->n_globals + col]);
        return true;
    }
    return false;
}

bool rf_attention_figure_query_at(const rf_attention_figure *f, double width, double height, double x, double y,
                                  int *query)
{
    if (!picture_on(f))
        return false;
    layout l = lay_out(f, width, height, &RF_ZOOM_ALL, 1.0);
    int pos;
    if (!rf_picture_position_at(&f->picture, l.fit, x, y, &pos))
        return false;
    *query = pos + f->picture.token_offset;
    return *query < f->rows;
}

static bool click(void *data, double width, double height, const rf_zoom *zoom, double x, double y)
{
    rf_attention_figure *f = data;
    if (f->overview == NULL)
        return false;
    rf_figure o = rf_attention_overview_get(f->overview);
    return o.click(o.data, width, height, zoom, x, y);
}

void rf_attention_figure_show_overview(rf_attention_figure *f, rf_attention_overview *o)
{
    f->overview = o;
}

rf_figure rf_attention_figure_get(rf_attention_figure *f)
{
    return (rf_figure){.draw = draw, .hover = hover, .data = f, .click = click};
}
