/* The attention overview: a layers x heads grid of pooled thumbnails (see
 * attention_overview.h). */
#include "attention_overview.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention_figure.h"

#define MARGIN 12.0
#define TITLE_H 34.0
#define GAP 8.0
#define LABEL_H 17.0       /* a cell's "L0 H1" above it */
#define HEADER_W 34.0      /* small cells: "L0" left of each row ... */
#define HEADER_H 18.0      /* ... and "H0" above each column */
#define MIN_LABELLED 56.0  /* cells at least this wide carry their own label */
#define LEGEND_GAP 8.0     /* between the grid and its one legend, right of it */

void rf_attention_overview_init(rf_attention_overview *o)
{
    memset(o, 0, sizeof *o);
}

static void clear_cells(rf_attention_overview *o)
{
    for (int i = 0; i < o->layers * o->heads; i++) {
        rf_heatmap_clear(&o->cells[i].heat);
        free(o->cells[i].thumb);
    }
    free(o->cells);
    free(o->layer_ids);
    o->cells = NULL;
    o->layer_ids = NULL;
    o->layers = o->heads = 0;
}

void rf_attention_overview_free(rf_attention_overview *o)
{
    clear_cells(o);
}

void rf_attention_overview_resize(rf_attention_overview *o, int layers, int heads)
{
    clear_cells(o);
    if (layers <= 0 || heads <= 0)
        return;
    o->layers = layers;
    o->heads = heads;
    o->cells = calloc((size_t)layers * heads, sizeof *o->cells);
    o->layer_ids = calloc((size_t)layers, sizeof *o->layer_ids);
    for (int r = 0; r < layers; r++)
        o->layer_ids[r] = r;
}

void rf_attention_overview_set_layer(rf_attention_overview *o, int row, int layer, const float *maps, int heads,
                                     int rows, int cols, int keep)
{
    if (row < 0 || row >= o->layers)
        return;
    int keep_rows = keep > 0 && keep < rows ? keep : rows, keep_cols = keep > 0 && keep < cols ? keep : cols;
    o->layer_ids[row] = layer;
    for (int h = 0; h < o->heads; h++) {
        rf_overview_cell *c = &o->cells[row * o->heads + h];
        rf_heatmap_clear(&c->heat);
        free(c->thumb);
        c->thumb = NULL;
        c->why = maps == NULL ? "not stored at this step" : h >= heads ? "the layer has fewer heads" : "an empty map";
        if (maps == NULL || h >= heads || rows <= 0 || cols <= 0)
            continue;
        c->why = NULL;
        const float *map = maps + (size_t)h * rows * cols;
        c->rows = keep_rows < RF_OVERVIEW_THUMB ? keep_rows : RF_OVERVIEW_THUMB;
        c->cols = keep_cols < RF_OVERVIEW_THUMB ? keep_cols : RF_OVERVIEW_THUMB;
        c->thumb = malloc((size_t)c->rows * c->cols * sizeof *c->thumb);
        rf_heatmap_pool_block(map, rows, cols, keep_rows, keep_cols, c->thumb, c->rows, c->cols);
        double lo, hi;
        rf_attention_range(c->thumb, (size_t)c->rows * c->cols, &lo, &hi);
        c->peak = hi;
        rf_heatmap_set(&c->heat, c->thumb, c->rows, c->cols, lo, hi);
    }
}

void rf_attention_overview_set_title(rf_attention_overview *o, const char *title)
{
    snprintf(o->title, sizeof o->title, "%s", title);
}

void rf_attention_overview_set_message(rf_attention_overview *o, const char *text)
{
    snprintf(o->message, sizeof o->message, "%s", text);
}

void rf_attention_overview_move(rf_attention_overview *to, rf_attention_overview *o)
{
    clear_cells(to);
    to->layers = o->layers;
    to->heads = o->heads;
    to->layer_ids = o->layer_ids;
    to->cells = o->cells;
    memcpy(to->title, o->title, sizeof to->title);
    memcpy(to->message, o->message, sizeof to->message);
    o->cells = NULL;
    o->layer_ids = NULL;
    o->layers = o->heads = 0;
}

/* Where the cells go: square, as large as the drawing allows, centred. */
typedef struct grid {
    double x0, y0;        /* the first cell's map */
    double side;          /* of a map */
    double step_x, step_y;
    bool labelled;        /* each cell's own label; else row and column headers */
} grid;

/* s: the text's scale (rf_plot_text_scale; 1 on screen). */
static grid lay_out(const rf_attention_overview *o, double width, double height, double s)
{
    grid g = {0};
    double legend_room = rf_map_legend_w(s) + LEGEND_GAP;
    for (int pass = 0; pass < 2; pass++) {
        g.labelled = pass == 0;
        double left = MARGIN + (g.labelled ? 0 : HEADER_W), top = TITLE_H + (g.labelled ? 0 : HEADER_H);
        double label = g.labelled ? LABEL_H : 0;
        double w = (width - legend_room - left - MARGIN - (o->heads - 1) * GAP) / o->heads;
        double h = (height - top - MARGIN - (o->layers - 1) * GAP) / o->layers - label;
        g.side = fmax(2, floor(fmin(w, h)));
        g.step_x = g.side + GAP;
        g.step_y = g.side + GAP + label;
        double used = o->heads * g.side + (o->heads - 1) * GAP;
        g.x0 = floor(left + fmax(0, (width - legend_room - left - MARGIN - used) / 2));
        g.y0 = top + label;
        if (g.side >= MIN_LABELLED)
            break;
    }
    return g;
}

static rf_rect cell_rect(const grid *g, int row, int head)
{
    return (rf_rect){g->x0 + head * g->step_x, g->y0 + row * g->step_y, g->side, g->side};
}

/* One legend for the grid, right of it: every thumbnail is coloured from 0
 * to its own largest weight (so a head of weak weights still shows its
 * pattern), and the legend says so. */
static void draw_legend(cairo_t *cr, const grid *g, double width, double height)
{
    double text_scale = rf_plot_text_scale(cr), top = g->y0 + rf_map_legend_above(text_scale);
    rf_rect bar = {width - rf_map_legend_w(text_scale), top, 14,
                   fmax(40, fmin(240, height - top - MARGIN - rf_map_legend_below(text_scale)))};
    rf_map_scale s = {.kind = RF_COLORMAP_SEQUENTIAL, .quantity = "attention weight", .per_map = true};
    rf_map_legend(cr, bar, &s);
}

/* Why a cell has no map, inside it, so no cell is blank without a reason:
 * the whole reason where it fits, else "no map" (the hover has the rest). */
static void draw_why(cairo_t *cr, rf_rect c, const char *why)
{
    if (why == NULL || rf_text_width(cr, RF_PLOT_TEXT, false, why) > c.w - 4)
        why = "no map";
    cairo_save(cr);
    cairo_rectangle(cr, c.x, c.y, c.w, c.h);
    cairo_clip(cr);
    rf_set_color(cr, (rf_rgb){0.35, 0.35, 0.35}, 1);
    rf_draw_text(cr, c.x + c.w / 2, c.y + c.h / 2, 0.5, 0.5, RF_PLOT_TEXT, false, why);
    cairo_restore(cr);
}

static void draw(void *data, cairo_t *cr, double width, double height, const rf_zoom *zoom)
{
    (void)zoom;   /* the grid always shows every map whole */
    rf_attention_overview *o = data;
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    if (o->layers == 0 || o->heads == 0) {
        rf_draw_message(cr, (rf_rect){0, 0, width, height}, o->message);
        cairo_restore(cr);
        return;
    }
    rf_set_color(cr, (rf_rgb){0.1, 0.1, 0.1}, 1);
    rf_draw_text(cr, MARGIN, 6, 0, 0, RF_PLOT_TITLE, true, o->title);
    grid g = lay_out(o, width, height, rf_plot_text_scale(cr));
    char text[32];
    for (int r = 0; r < o->layers; r++)
        for (int h = 0; h < o->heads; h++) {
            rf_rect c = cell_rect(&g, r, h);
            rf_overview_cell *cell = &o->cells[r * o->heads + h];
            if (cell->thumb != NULL) {
                rf_heatmap_draw(&cell->heat, cr, c, 0, cell->rows, 0, cell->cols);
            } else {
                rf_set_color(cr, (rf_rgb){0.93, 0.93, 0.93}, 1);
                cairo_rectangle(cr, c.x, c.y, c.w, c.h);
                cairo_fill(cr);
                draw_why(cr, c, cell->why);
            }
            rf_set_color(cr, (rf_rgb){0.6, 0.6, 0.6}, 1);
            cairo_set_line_width(cr, 1);
            cairo_rectangle(cr, c.x - 0.5, c.y - 0.5, c.w + 1, c.h + 1);
            cairo_stroke(cr);
            rf_set_color(cr, (rf_rgb){0.1, 0.1, 0.1}, 1);
            if (g.labelled) {
                snprintf(text, sizeof text, "L%d H%d", o->layer_ids[r] + 1, h + 1);
                rf_draw_text(cr, c.x + c.w / 2, c.y - 3, 0.5, 1, RF_PLOT_TEXT, false, text);
            }
            if (!g.labelled && r == 0) {
                snprintf(text, sizeof text, "H%d", h + 1);
                rf_draw_text(cr, c.x + c.w / 2, c.y - 3, 0.5, 1, RF_PLOT_TEXT, false, text);
            }
            if (!g.labelled && h == 0) {
                snprintf(text, sizeof text, "L%d", o->layer_ids[r] + 1);
                rf_draw_text(cr, c.x - 6, c.y + c.h / 2, 1, 0.5, RF_PLOT_TEXT, false, text);
            }
        }
    draw_legend(cr, &g, width, height);
    cairo_restore(cr);
}

/* The grid row and head under (x, y). */
static bool row_at(const rf_attention_overview *o, double width, double height, double x, double y, int *row,
                   int *head)
{
    if (o->layers == 0 || o->heads == 0)
        return false;
    grid g = lay_out(o, width, height, 1.0);
    int h = (int)floor((x - g.x0) / g.step_x), r = (int)floor((y - g.y0) / g.step_y);
    if (h < 0 || h >= o->heads || r < 0 || r >= o->layers)
        return false;
    rf_rect c = cell_rect(&g, r, h);
    if (x >= c.x + c.w || y >= c.y + c.h)
        return false;   /* in the gap (or the next row's label) */
    *row = r;
    *head = h;
    return true;
}

bool rf_attention_overview_cell_at(const rf_attention_overview *o, double width, double height, double x, double y,
                                   int *layer, int *head)
{
    int row;
    if (!row_at(o, width, height, x, y, &row, head))
        return false;
    *layer = o->layer_ids[row];
    return true;
}

static bool hover(void *data, double width, double height, const rf_zoom *zoom, double x, double y, char *text,
                  size_t size)
{
    (void)zoom;
    const rf_attention_overview *o = data;
    int row, head;
    if (!row_at(o, width, height, x, y, &row, &head))
        return false;
    const rf_overview_cell *c = &o->cells[row * o->heads + head];
    if (c->thumb == NULL)
        snprintf(text, size, "Layer %d · head %d: no map (%s)", o->layer_ids[row] + 1, head + 1,
                 c->why != NULL ? c->why : "not stored at this step");
    else
        snprintf(text, size, "Layer %d · head %d · largest weight %.3g (its colour scale's top) · click to open",
                 o->layer_ids[row] + 1, head + 1, c->peak);
    return true;
}

static bool click(void *data, double width, double height, const rf_zoom *zoom, double x, double y)
{
    (void)zoom;
    rf_attention_overview *o = data;
    int layer, head;
    if (o->pick == NULL || !rf_attention_overview_cell_at(o, width, height, x, y, &layer, &head))
        return false;
    o->pick(o->user, layer, head);
    return true;
}

rf_figure rf_attention_overview_get(rf_attention_overview *o)
{
    return (rf_figure){.draw = draw, .hover = hover, .data = o, .click = click};
}
