/* The Attribution figure's compare mode with a probe map: one named tap
 * (core/probe.h, as `rangefinder inspect --probe` names it) of model A,
 * of model B and A − B, for the same input, each drawn as heatmaps (one
 * per leading index of the tap: a head, a segment; rows and columns its
 * last two dimensions) on one diverging colour range [-m, m], m the
 * largest |value| of A and B, as `inspect --against --probe` reports it.
 * GTK-free, as every figure. */
#ifndef RF_ATTRIBUTION_MAPS_H
#define RF_ATTRIBUTION_MAPS_H

#include "../../core/graph.h"
#include "../plot/plot.h"

typedef struct rf_attribution_maps {
    char *name;                  /* NULL: none */
    rf_shape shape;              /* the tap's, without the batch */
    float *values[3];            /* A, B, A − B: n floats each */
    size_t n;
    int slices, rows, cols;      /* slices of rows x cols */
    int shown_rows, shown_cols;  /* those drawn: a dimension of the padded length cut to the input's */
    rf_heatmap *heat;            /* 3 x slices, panel by panel */
    double range;                /* m */
} rf_attribution_maps;

/* Keep copies of A's and B's values of tap `name` (shape without the
 * batch), the difference and the shared range. Rows or columns as many as
 * the data set's padded length (seq_len) are drawn only up to the input's
 * own length (len): the padding's. The range covers every value. */
void rf_attribution_maps_set(rf_attribution_maps *m, const char *name, const rf_shape *shape, const float *a,
                             const float *b, int seq_len, int len);
void rf_attribution_maps_clear(rf_attribution_maps *m);

/* The colour range of all three panels, its legend naming the tap and
 * that one range serves A, B and A − B. */
rf_map_scale rf_attribution_maps_scale(const rf_attribution_maps *m);

/* Draw panel `panel`'s heatmaps (0 A, 1 B, 2 A − B) side by side in r,
 * under a line naming the tap. */
void rf_attribution_maps_draw(rf_attribution_maps *m, cairo_t *cr, rf_rect r, double text_scale, int panel);

/* Where panel `panel`'s cell (slice, row, col) is drawn in r (false when
 * no such cell is). */
bool rf_attribution_maps_cell_rect(const rf_attribution_maps *m, rf_rect r, double text_scale, int slice, int row,
                                   int col, rf_rect *cell);

/* The cell under (x, y) in r: its index into a panel's values (false
 * outside every cell). */
bool rf_attribution_maps_cell_at(const rf_attribution_maps *m, rf_rect r, double text_scale, double x, double y,
                                 size_t *index);

/* "NAME[i, j, k]": the tap's element at flat `index`. */
void rf_attribution_maps_describe(const rf_attribution_maps *m, size_t index, char *text, size_t size);

#endif
