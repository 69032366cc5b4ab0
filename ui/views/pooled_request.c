/* The pooled window a map view asks for (see pooled_request.h). */
#include "pooled_request.h"

#include <math.h>

/* A zoom waits this long for the next change before it asks. */
#define SETTLE_MS 250

static gboolean zoom_settled(gpointer data)
{
    rf_pooled_request *r = data;
    r->timer = 0;
    r->settled(r->data);
    return G_SOURCE_REMOVE;
}

static void on_zoom(gpointer data)
{
    rf_pooled_request *r = data;
    if (r->quiet)
        return;
    if (r->timer != 0)
        g_source_remove(r->timer);
    r->timer = g_timeout_add(SETTLE_MS, zoom_settled, r);
}

void rf_pooled_request_init(rf_pooled_request *r, RfPlotView *plot, void (*settled)(gpointer), gpointer data)
{
    *r = (rf_pooled_request){.plot = plot, .settled = settled, .data = data};
    rf_plot_view_on_zoom(plot, on_zoom, r);
}

void rf_pooled_request_clear(rf_pooled_request *r)
{
    if (r->timer != 0)
        g_source_remove(r->timer);
    r->timer = 0;
}

void rf_pooled_request_reset(rf_pooled_request *r)
{
    r->zoomed.rows = 0;
}

void rf_pooled_request_show_map(rf_pooled_request *r, const char *key)
{
    r->quiet = TRUE;
    rf_plot_view_show_map(r->plot, key);
    r->quiet = FALSE;
}

int64_t rf_pooled_request_cells(const rf_pooled_request *r, gboolean along_width, int margin, int64_t most)
{
    GtkWidget *w = GTK_WIDGET(r->plot);
    int size = along_width ? gtk_widget_get_width(w) : gtk_widget_get_height(w);
    return size > 0 ? CLAMP(size - margin, 64, most) : 512;
}

rf_probe_window rf_pooled_request_window(const rf_pooled_request *r, int64_t row_end, int64_t col_end, int64_t rows,
                                         int64_t cols, rf_pool_reduce reduce)
{
    const rf_probe_window *z = &r->zoomed;
    if (z->rows > 0)
        return (rf_probe_window){z->r0, z->r1, z->c0, z->c1, rows, cols, reduce};
    return (rf_probe_window){0, row_end, 0, col_end, rows, cols, reduce};
}

gboolean rf_pooled_request_shows_zoomed(const rf_pooled_request *r, const rf_probe_value *a)
{
    const rf_probe_window *z = &r->zoomed;
    return a->pooled && z->rows > 0 && a->window.r0 == z->r0 && a->window.r1 == z->r1 && a->window.c0 == z->c0 &&
           a->window.c1 == z->c1;
}

gboolean rf_pooled_request_coarse(const rf_probe_value *a)
{
    return a->pooled && a->shape.dim[a->shape.ndim - 2] < a->window.r1 - a->window.r0;
}

rf_matrix_positions rf_pooled_request_rows(const rf_probe_value *a)
{
    if (!a->pooled)
        return (rf_matrix_positions){0};
    return (rf_matrix_positions){a->window.r0, a->window.r1, (int)a->shape.dim[a->shape.ndim - 2]};
}

rf_matrix_positions rf_pooled_request_cols(const rf_probe_value *a)
{
    if (!a->pooled)
        return (rf_matrix_positions){0};
    return (rf_matrix_positions){a->window.c0, a->window.c1, (int)a->shape.dim[a->shape.ndim - 1]};
}

/* The positions [*t0, *t1) of [lo, hi) that the zoom's fractions [f0, f1) show. */
static void visible(int64_t lo, int64_t hi, double f0, double f1, int64_t *t0, int64_t *t1)
{
    int64_t n = hi - lo;
    *t0 = CLAMP(lo + (int64_t)floor(f0 * (double)n), lo, hi - 1);
    *t1 = CLAMP(lo + (int64_t)ceil(f1 * (double)n), *t0 + 1, hi);
}

/* Value a's window at zoom z (rows: y, columns: x) into *zoomed, as
 * rf_pooled_request_follow_zoom says. */
static gboolean follow(rf_probe_window *zoomed, const rf_probe_value *a, rf_zoom z)
{
    const rf_probe_window *w = &a->window;
    int64_t r0, r1, c0, c1;
    visible(w->r0, w->r1, z.y0, z.y1, &r0, &r1);
    visible(w->c0, w->c1, z.x0, z.x1, &c0, &c1);
    if (z.x0 <= 0 && z.x1 >= 1 && z.y0 <= 0 && z.y1 >= 1) {   /* everything shown */
        if (zoomed->rows == 0)
            return FALSE;
        zoomed->rows = 0;   /* zoomed out of a window: the sample's all again */
        return TRUE;
    }
    int64_t rows = a->shape.dim[a->shape.ndim - 2], cols = a->shape.dim[a->shape.ndim - 1];
    gboolean exact = rows == w->r1 - w->r0 && cols == w->c1 - w->c0;
    if (exact || (r0 == w->r0 && r1 == w->r1 && c0 == w->c0 && c1 == w->c1))
        return FALSE;   /* nothing finer to ask for: the cells shown are magnified */
    *zoomed = (rf_probe_window){r0, r1, c0, c1, 1, 1, w->reduce};
    return TRUE;
}

gboolean rf_pooled_request_follow_zoom(rf_pooled_request *r, const rf_probe_value *a, gboolean rows_only)
{
    rf_zoom z = rf_plot_view_get_zoom(r->plot);
    if (rows_only) {
        z.x0 = 0;
        z.x1 = 1;
    }
    return follow(&r->zoomed, a, z);
}

gboolean rf_pooled_request_follow_across(const rf_pooled_request *r, rf_probe_window *zoomed,
                                         const rf_probe_value *a)
{
    rf_zoom z = rf_plot_view_get_zoom(r->plot);
    return follow(zoomed, a, (rf_zoom){0, 1, z.x0, z.x1});
}
