/* The window of a long map a view asks for pooled (core/probe.h): all of
 * the sample's positions, or, once a zoom has come to rest (a settle
 * delay), the positions it shows, in about the plot's pixels of cells and
 * one cell a position once few enough are visible. The view then watches
 * anew; the training thread takes the newest request, so a zoom never
 * queues stale ones; the cells shown are magnified meanwhile. Shared by
 * the Attention view (full attention's maps, Transformer-LS's bands), the
 * Latent view (Θ_SELF's token states over the sequence, the latent norms
 * over the segments) and the TaLK view
 * (its settle delay: its tokens run across, and it keeps its own window). */
#ifndef RF_POOLED_REQUEST_H
#define RF_POOLED_REQUEST_H

#include <gtk/gtk.h>

#include "../../core/probe.h"
#include "../figures/matrix_panel.h"
#include "../plot_view.h"

typedef struct rf_pooled_request {
    RfPlotView *plot;
    rf_probe_window zoomed;         /* what a zoom asked for; rows 0: the sample's all */
    guint timer;                    /* a zoom settling before it asks */
    gboolean quiet;                 /* the view's own zoom reset (a new window shown): asks nothing */
    void (*settled)(gpointer data); /* a zoom came to rest: the view calls rf_pooled_request_follow_zoom */
    gpointer data;
} rf_pooled_request;

void rf_pooled_request_init(rf_pooled_request *r, RfPlotView *plot, void (*settled)(gpointer), gpointer data);
/* Stop a settling zoom (the view is freed). */
void rf_pooled_request_clear(rf_pooled_request *r);
/* Another map or sample: all of it again. */
void rf_pooled_request_reset(rf_pooled_request *r);
/* rf_plot_view_show_map, its zoom reset asking nothing. */
void rf_pooled_request_show_map(rf_pooled_request *r, const char *key);

/* Cells along the plot's height (rows) or width: its pixels less `margin`,
 * 64 to `most`; 512 before the plot has a size. */
int64_t rf_pooled_request_cells(const rf_pooled_request *r, gboolean along_width, int margin, int64_t most);
/* The window to watch: the zoom's positions, or rows [0, row_end) and
 * columns [0, col_end) (RF_POOL_END: the map's), in at most rows x cols cells. */
rf_probe_window rf_pooled_request_window(const rf_pooled_request *r, int64_t row_end, int64_t col_end, int64_t rows,
                                         int64_t cols, rf_pool_reduce reduce);
/* Value a holds the window a zoom asked for (not the sample's all). */
gboolean rf_pooled_request_shows_zoomed(const rf_pooled_request *r, const rf_probe_value *a);
/* Value a is pooled to fewer rows than its window's positions. */
gboolean rf_pooled_request_coarse(const rf_probe_value *a);
/* The positions a pooled value's rows and columns cover, for the axes
 * (rf_matrix_panel): {0} for a value that is not pooled. */
rf_matrix_positions rf_pooled_request_rows(const rf_probe_value *a);
rf_matrix_positions rf_pooled_request_cols(const rf_probe_value *a);

/* The plot's zoom came to rest over value a (pooled, shown whole): ask for
 * the positions now visible, or for the sample's all when the zoom went
 * back to everything. `rows_only`: the columns stay as asked (a band's
 * offsets). TRUE when the request changed: the view watches anew. */
gboolean rf_pooled_request_follow_zoom(rf_pooled_request *r, const rf_probe_value *a, gboolean rows_only);
/* The same for a value whose rows run across the plot (the Latent view's
 * norms strip: a row a segment), kept in the view's own `zoomed` (rows 0:
 * all of them): the zoom's x fractions choose its rows. */
gboolean rf_pooled_request_follow_across(const rf_pooled_request *r, rf_probe_window *zoomed,
                                         const rf_probe_value *a);

#endif
