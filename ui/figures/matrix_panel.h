/* A heatmap panel with matrix orientation: row 0 at the top (queries down,
 * keys across), index ticks on the left and bottom, a title above. Shared
 * by the inspection figures (attention maps, latent states), whose y-axis
 * runs downwards unlike rf_plot's.
 */
#ifndef RF_MATRIX_PANEL_H
#define RF_MATRIX_PANEL_H

#include "../plot/figure.h"
#include "../plot/plot.h"

/* The sequence positions an axis's cells cover: cell i of `cells` holds
 * positions [rf_pool_edge(lo, hi, cells, i), rf_pool_edge(lo, hi, cells, i + 1))
 * (a map pooled to the screen, core/probe.h). cells 0: the cells are
 * indices. */
typedef struct rf_matrix_positions {
    int64_t lo, hi;
    int cells;
} rf_matrix_positions;

typedef struct rf_matrix_panel {
    rf_rect frame;                 /* where the cells are drawn */
    double r0, r1, c0, c1;         /* visible cells (fractional bounds) */
    rf_matrix_positions row_at, col_at;   /* set after layout: ticks count positions, not cells */
} rf_matrix_panel;

/* Lay out a panel for a rows x cols matrix inside `outer`, showing the part
 * of it that `zoom` selects (x: columns, y: rows). `square` keeps cells
 * square when the matrix is square (an N x N attention map). */
void rf_matrix_panel_layout(rf_matrix_panel *p, rf_rect outer, int rows, int cols, const rf_zoom *zoom,
                            bool square);

/* Draw the heatmap, the ticks (labelled index + origin), the axis labels and
 * the title. */
void rf_matrix_panel_draw(const rf_matrix_panel *p, cairo_t *cr, rf_heatmap *h, const char *title,
                          const char *row_label, const char *col_label, int row_origin, int col_origin);
/* The same, and where cells are at least RF_MATRIX_NAME_PITCH pixels apart
 * (zoomed in far enough to read), each visible row and column named by
 * names[index] (a token's text; n_names entries, NULL: none) in place of the
 * index ticks and the axis label. */
#define RF_MATRIX_NAME_PITCH 14.0
void rf_matrix_panel_draw_named(const rf_matrix_panel *p, cairo_t *cr, rf_heatmap *h, const char *title,
                                const char *row_label, const char *col_label, const char *const *names,
                                int n_names);

/* "tokens 1024-2047" (or "token 5") for cell i of `at`; false when its
 * cells are indices. */
bool rf_matrix_positions_name(const rf_matrix_positions *at, int i, char *buf, size_t size);

/* The cell under (x, y), false outside the frame. */
bool rf_matrix_panel_cell_at(const rf_matrix_panel *p, const rf_heatmap *h, double x, double y, int *row,
                             int *col);

/* Device position of a fractional cell coordinate (column cx, row ry). */
double rf_matrix_panel_x(const rf_matrix_panel *p, double cx);
double rf_matrix_panel_y(const rf_matrix_panel *p, double ry);

#endif
