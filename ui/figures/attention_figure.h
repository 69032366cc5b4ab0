/* The attention-map figure: one layer and head of one sample.
 *
 * Three layouts:
 *  - a matrix (full and linear attention's N x N map, BLRP's self- and
 *    cross-attention maps): queries down, keys across, a colour bar;
 *  - a long-short band (Transformer-LS): the N x L local band, column j of
 *    query t being key (t / w) * w - e + j (e = max(w/2, 1), L = w + 2e, as
 *    core/ops/ls_attention.h lays it out), beside the N x G global columns;
 *  - a picture (image data): the attention of one query over the image as
 *    a translucent overlay, the query's patch outlined.
 * The figure borrows what it shows: the caller keeps the maps alive until
 * the next set_* / adopt or free (the attention view holds a reference to
 * its probe snapshot). It draws with the pooled, cached rf_heatmap, so a
 * 4096 x 4096 map redraws quickly at any size; for such maps the view builds
 * the heatmap's range and image in another thread and hands it over with
 * rf_attention_figure_adopt_matrix.
 *
 * An overview (attention_overview.h) set with rf_attention_figure_show_overview
 * is drawn instead of all of these, and takes the hover and the clicks.
 */
#ifndef RF_ATTENTION_FIGURE_H
#define RF_ATTENTION_FIGURE_H

#include "../plot/figure.h"
#include "../plot/plot.h"
#include "attention_overview.h"
#include "matrix_panel.h"
#include "picture.h"

typedef enum rf_attention_layout {
    RF_ATTENTION_MESSAGE,    /* nothing to show: a message */
    RF_ATTENTION_MATRIX,
    RF_ATTENTION_BAND,
} rf_attention_layout;

typedef struct rf_attention_figure {
    rf_attention_layout layout;
    char title[160];
    char message[200];
    char row_label[32], col_label[32];
    const float *map;            /* rows x cols: the matrix, or the local band */
    int rows, cols;
    const float *globals;        /* BAND: rows x n_globals */
    int n_globals;
    int window, extent;          /* BAND: w and e */
    rf_heatmap heat, heat_globals;
    /* Picture mode (image data): the query's attention over the image. */
    rf_picture picture;
    bool show_picture;
    int query;                   /* the chosen query row */
    float *overlay;              /* grid_h x grid_w, rebuilt for each query */
    char **names;                /* MATRIX: the tokens' texts, cell by cell (NULL: none) */
    int n_names;
    char **col_names;            /* MATRIX: the columns' own, where they differ from the rows' (NULL: names) */
    int n_col_names;
    rf_matrix_positions row_at, col_at;   /* a pooled map: the tokens its cells cover (cells 0: indices) */
    rf_attention_overview *overview;   /* borrowed: drawn instead when set */
    /* What the map's values are, for its legend: attention weights
     * (sequential, the default) or a signed state (diverging around 0). */
    char quantity[48];
    rf_colormap_kind kind;
} rf_attention_figure;

void rf_attention_figure_init(rf_attention_figure *f);
void rf_attention_figure_free(rf_attention_figure *f);

/* Show `text` instead of a map (e.g. "This model has no attention maps"). */
void rf_attention_figure_set_message(rf_attention_figure *f, const char *text);
/* Show a rows x cols map. Labels name the axes ("query", "key"). */
bool rf_attention_figure_set_matrix(rf_attention_figure *f, const float *map, int rows, int cols,
                                    const char *row_label, const char *col_label);
/* Show the map of a heatmap prepared elsewhere (rf_heatmap_set with the
 * colour range of rf_attention_range, perhaps rf_heatmap_prepare); the
 * figure takes it over and leaves *ready empty. */
void rf_attention_figure_adopt_matrix(rf_attention_figure *f, rf_heatmap *ready, const char *row_label,
                                      const char *col_label);
/* The colour range of attention weights: from 0 (or below) to the largest
 * value; NaN skipped. Thread-safe. */
void rf_attention_range(const float *p, size_t n, double *lo, double *hi);
/* Show a long-short layer's local band (rows x rf_ls_band(window)) and its
 * globals (rows x n_globals; may be NULL with n_globals 0). */
bool rf_attention_figure_set_band(rf_attention_figure *f, const float *local, int rows, int window,
                                  const float *globals, int n_globals);
/* The token positions the rows and columns of what is shown cover (a map
 * pooled to the screen, core/probe.h): its ticks and hover count tokens,
 * not cells. {0}: the cells are positions themselves. A band's columns are
 * band offsets and ignore col_at. Kept until set again. */
void rf_attention_figure_set_positions(rf_attention_figure *f, rf_matrix_positions row_at, rf_matrix_positions col_at);
void rf_attention_figure_set_title(rf_attention_figure *f, const char *title);
/* Name what the next maps hold, for the legend: "attention weight"
 * (sequential, from 0) unless set; a DIVERGING quantity (linear attention's
 * key-value state) is coloured on a range symmetric around 0. */
void rf_attention_figure_set_quantity(rf_attention_figure *f, const char *quantity, rf_colormap_kind kind);
/* The legend of what is drawn now (the picture's overlay, the band, the matrix). */
rf_map_scale rf_attention_figure_scale(const rf_attention_figure *f);
/* Name a square map's rows and columns by the tokens' texts (taken over:
 * freed by the figure; NULL: index ticks only); drawn once zoomed in far
 * enough to read them (RF_MATRIX_NAME_PITCH pixels a cell). */
void rf_attention_figure_take_names(rf_attention_figure *f, char **names, int n);
/* Name the columns apart from the rows (a window of keys other than its
 * queries'; NULL: the rows' names): read on hover, not drawn. */
void rf_attention_figure_take_col_names(rf_attention_figure *f, char **names, int n);

/* BAND: the key position of local column `col` for query `row` (it may lie
 * outside [0, rows): such keys are masked). */
int rf_attention_figure_band_key(const rf_attention_figure *f, int row, int col);

/* Picture mode: on when a picture is set and `on`. The query is a row of
 * the map (a token, the picture's token_offset included). */
void rf_attention_figure_show_picture(rf_attention_figure *f, bool on);
void rf_attention_figure_set_query(rf_attention_figure *f, int query);
/* Picture mode: the query row of the patch under (x, y); false elsewhere. */
bool rf_attention_figure_query_at(const rf_attention_figure *f, double width, double height, double x, double y,
                                  int *query);

/* Draw `o` (borrowed; NULL: back to the map) in place of the map. */
void rf_attention_figure_show_overview(rf_attention_figure *f, rf_attention_overview *o);

rf_figure rf_attention_figure_get(rf_attention_figure *f);

#endif
