/* Heatmap panels in matrix orientation (see matrix_panel.h). */
#include "matrix_panel.h"

#include <math.h>
#include <stdio.h>

#include "../../core/probe.h"

/* Room for tick labels and axis labels around the cells. */
#define MARGIN_LEFT 58.0
#define MARGIN_RIGHT 8.0
#define MARGIN_TOP 24.0
#define MARGIN_BOTTOM 40.0

void rf_matrix_panel_layout(rf_matrix_panel *p, rf_rect outer, int rows, int cols, const rf_zoom *zoom,
                            bool square)
{
    p->r0 = zoom->y0 * rows;
    p->r1 = zoom->y1 * rows;
    p->c0 = zoom->x0 * cols;
    p->c1 = zoom->x1 * cols;
    double w = fmax(1, outer.w - MARGIN_LEFT - MARGIN_RIGHT);
    double h = fmax(1, outer.h - MARGIN_TOP - MARGIN_BOTTOM);
    if (square && rows == cols) {
        double side = fmin(w, h);
        w = h = side;
    }
    p->frame = (rf_rect){outer.x + MARGIN_LEFT, outer.y + MARGIN_TOP, w, h};
}

double rf_matrix_panel_x(const rf_matrix_panel *p, double cx)
{
    return p->frame.x + (cx - p->c0) / (p->c1 - p->c0) * p->frame.w;
}

double rf_matrix_panel_y(const rf_matrix_panel *p, double ry)
{
    return p->frame.y + (ry - p->r0) / (p->r1 - p->r0) * p->frame.h;
}

static bool counts_positions(const rf_matrix_positions *at)
{
    return at->cells > 0 && at->hi > at->lo && (at->lo != 0 || at->hi != at->cells);
}

bool rf_matrix_positions_name(const rf_matrix_positions *at, int i, char *buf, size_t size)
{
    if (!counts_positions(at) || i < 0 || i >= at->cells)
        return false;
    int64_t a = rf_pool_edge(at->lo, at->hi, at->cells, i), b = rf_pool_edge(at->lo, at->hi, at->cells, i + 1) - 1;
    if (a == b)
        snprintf(buf, size, "token %lld", (long long)a);
    else
        snprintf(buf, size, "tokens %lld-%lld", (long long)a, (long long)b);
    return true;
}

/* Ticks at cell centres for indices in [lo, hi) labelled index + origin, or,
 * where the cells cover positions (`at`), at the positions' own places
 * labelled by position; `along_x` picks the edge. */
static void draw_ticks(const rf_matrix_panel *p, cairo_t *cr, double lo, double hi, int origin,
                       const rf_matrix_positions *at, bool along_x)
{
    bool positions = counts_positions(at);
    double per_cell = positions ? (double)(at->hi - at->lo) / at->cells : 1, first = positions ? at->lo : origin;
    double cell_lo = along_x ? p->c0 : p->r0, cell_hi = along_x ? p->c1 : p->r1;
    rf_axis a = {.min = lo + origin, .max = hi + origin, .scale = RF_AXIS_LINEAR, .whole = true};
    if (positions)   /* the positions the visible cells cover */
        a = (rf_axis){.min = ceil(first + cell_lo * per_cell), .max = floor(first + cell_hi * per_cell - 1),
                      .scale = RF_AXIS_LINEAR, .whole = true};
    double ticks[16];
    int n = a.max >= a.min ? rf_axis_ticks(&a, ticks, 16) : 0;
    char label[32];
    rf_set_color(cr, (rf_rgb){0.25, 0.25, 0.25}, 1);
    cairo_set_line_width(cr, 1);
    for (int i = 0; i < n; i++) {
        /* a position's centre in cells: (t + 0.5 - lo) / per_cell; an index's, index + 0.5 */
        double index = positions ? (ticks[i] + 0.5 - first) / per_cell - 0.5 : ticks[i] - origin;
        snprintf(label, sizeof label, "%.0f", ticks[i]);
        if (along_x) {
            double x = rf_matrix_panel_x(p, index + 0.5);
            if (x < p->frame.x || x > p->frame.x + p->frame.w)
                continue;
            double y = p->frame.y + p->frame.h;
            cairo_move_to(cr, x, y);
            cairo_line_to(cr, x, y + 4);
            cairo_stroke(cr);
            rf_draw_text(cr, x, y + 6, 0.5, 0, RF_PLOT_TEXT, false, label);
        } else {
            double y = rf_matrix_panel_y(p, index + 0.5);
            if (y < p->frame.y || y > p->frame.y + p->frame.h)
                continue;
            cairo_move_to(cr, p->frame.x, y);
            cairo_line_to(cr, p->frame.x - 4, y);
            cairo_stroke(cr);
            rf_draw_text(cr, p->frame.x - 6, y, 1, 0.5, RF_PLOT_TEXT, false, label);
        }
    }
}

/* Each visible cell's name beside its row (left) or under its column
 * (turned upright), when the cells are far enough apart to read them. */
static bool draw_names(const rf_matrix_panel *p, cairo_t *cr, const char *const *names, int n, bool along_x)
{
    double lo = along_x ? p->c0 : p->r0, hi = along_x ? p->c1 : p->r1;
    double pitch = (along_x ? p->frame.w : p->frame.h) / (hi - lo);
    if (names == NULL || pitch < RF_MATRIX_NAME_PITCH)
        return false;
    rf_set_color(cr, (rf_rgb){0.25, 0.25, 0.25}, 1);
    for (int i = (int)ceil(lo - 0.5); i <= (int)floor(hi - 0.5); i++) {
        if (i < 0 || i >= n || names[i] == NULL)
            continue;
        if (along_x) {
            cairo_save(cr);
            cairo_translate(cr, rf_matrix_panel_x(p, i + 0.5), p->frame.y + p->frame.h + 4);
            cairo_rotate(cr, -M_PI / 2);
            rf_draw_text(cr, 0, 0, 1, 0.5, RF_PLOT_TEXT, false, names[i]);
            cairo_restore(cr);
        } else {
            rf_draw_text(cr, p->frame.x - 6, rf_matrix_panel_y(p, i + 0.5), 1, 0.5, RF_PLOT_TEXT, false, names[i]);
        }
    }
    return true;
}

static void draw_panel(const rf_matrix_panel *p, cairo_t *cr, rf_heatmap *h, const char *title, const char *row_label,
                       const char *col_label, int row_origin, int col_origin, const char *const *names, int n_names)
{
    const rf_rect f = p->frame;
    rf_heatmap_draw(h, cr, f, p->r0, p->r1, p->c0, p->c1);
    rf_set_color(cr, (rf_rgb){0.3, 0.3, 0.3}, 1);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, f.x - 0.5, f.y - 0.5, f.w + 1, f.h + 1);
    cairo_stroke(cr);
    /* Names where they fit, else ticks over the cells whose centres are visible. */
    bool cols_named = draw_names(p, cr, names, n_names, true);
    bool rows_named = draw_names(p, cr, names, n_names, false);
    if (!cols_named)
        draw_ticks(p, cr, ceil(p->c0 - 0.5), floor(p->c1 - 0.5), col_origin, &p->col_at, true);
    if (!rows_named)
        draw_ticks(p, cr, ceil(p->r0 - 0.5), floor(p->r1 - 0.5), row_origin, &p->row_at, false);
    rf_set_color(cr, (rf_rgb){0.1, 0.1, 0.1}, 1);
    if (title != NULL)
        rf_draw_text(cr, f.x + f.w / 2, f.y - 6, 0.5, 1, RF_PLOT_TITLE, true, title);
    if (col_label != NULL && !cols_named)
        rf_draw_text(cr, f.x + f.w / 2, f.y + f.h + 22, 0.5, 0, RF_PLOT_TEXT, false, col_label);
    if (row_label != NULL && !rows_named) {
        cairo_save(cr);
        cairo_translate(cr, f.x - 46, f.y + f.h / 2);
        cairo_rotate(cr, -M_PI / 2);
        rf_draw_text(cr, 0, 0, 0.5, 0.5, RF_PLOT_TEXT, false, row_label);
        cairo_restore(cr);
    }
}

void rf_matrix_panel_draw(const rf_matrix_panel *p, cairo_t *cr, rf_heatmap *h, const char *title,
                          const char *row_label, const char *col_label, int row_origin, int col_origin)
{
    draw_panel(p, cr, h, title, row_label, col_label, row_origin, col_origin, NULL, 0);
}

void rf_matrix_panel_draw_named(const rf_matrix_panel *p, cairo_t *cr, rf_heatmap *h, const char *title,
                                const char *row_label, const char *col_label, const char *const *names,
                                int n_names)
{
    draw_panel(p, cr, h, title, row_label, col_label, 0, 0, names, n_names);
}

bool rf_matrix_panel_cell_at(const rf_matrix_panel *p, const rf_heatmap *h, double x, double y, int *row,
                             int *col)
{
    return rf_heatmap_cell_at(h, p->frame, p->r0, p->r1, p->c0, p->c1, x, y, row, col);
}
