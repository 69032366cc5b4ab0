/* The attention overview (BertViz's model view): every layer and head of
 * one sample at a glance, a layers x heads grid of small maps, each labelled
 * "L<layer> H<head>" (counted from 1, as the Map and Head choosers count;
 * layer_ids and `pick` keep the taps' 0-based numbers) and coloured from 0
 * to its own largest weight, which the grid's one legend says. A click on
 * a cell hands its layer and head to `pick` (the Attention view opens that
 * map); hovering names the cell.
 *
 * The thumbnails are the maps max-pooled to at most RF_OVERVIEW_THUMB cells
 * a side and owned by the figure, so the snapshot they came from may go.
 * Filling an overview nobody draws is thread-safe (the view fills large
 * ones in a worker thread). No GTK.
 */
#ifndef RF_ATTENTION_OVERVIEW_H
#define RF_ATTENTION_OVERVIEW_H

#include "../plot/figure.h"
#include "../plot/plot.h"

#define RF_OVERVIEW_THUMB 64

typedef struct rf_overview_cell {
    float *thumb;            /* rows x cols, or NULL: no map */
    const char *why;         /* thumb NULL: why there is none ("not stored at this step") */
    int rows, cols;
    double peak;             /* the largest weight of the full map */
    rf_heatmap heat;
} rf_overview_cell;

typedef struct rf_attention_overview {
    int layers, heads;
    int *layer_ids;          /* the layer number of each grid row */
    rf_overview_cell *cells; /* layers x heads, row by row */
    char title[160];
    char message[200];       /* shown instead of the grid when the grid is empty */
    void (*pick)(void *user, int layer, int head);   /* a click on a cell (may be NULL) */
    void *user;
} rf_attention_overview;

void rf_attention_overview_init(rf_attention_overview *o);
void rf_attention_overview_free(rf_attention_overview *o);
/* An empty grid of `layers` x `heads` cells. */
void rf_attention_overview_resize(rf_attention_overview *o, int layers, int heads);
/* Row `row` shows layer `layer`: `heads` maps of rows x cols floats each,
 * one after another (NULL: none stored for this layer), each cut to its
 * top-left keep x keep block (the sample's own queries and keys of a map
 * the batch padded, as the single map is cut; keep <= 0: whole). */
void rf_attention_overview_set_layer(rf_attention_overview *o, int row, int layer, const float *maps, int heads,
                                     int rows, int cols, int keep);
void rf_attention_overview_set_title(rf_attention_overview *o, const char *title);
void rf_attention_overview_set_message(rf_attention_overview *o, const char *text);
/* Hand over everything o shows to `to` (which is freed first); o is left empty. */
void rf_attention_overview_move(rf_attention_overview *to, rf_attention_overview *o);

/* The layer and head of the cell under (x, y) of a width x height drawing;
 * false between and outside the cells. */
bool rf_attention_overview_cell_at(const rf_attention_overview *o, double width, double height, double x, double y,
                                   int *layer, int *head);

rf_figure rf_attention_overview_get(rf_attention_overview *o);

#endif
