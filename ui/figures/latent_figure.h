/* The BLRP latent-state figure: one block of a chosen segment, pass and
 * layer of BLRP's depth as a heatmap (rows down, model dimensions across):
 * the latent block L_i (l rows, Θ_L, the default), segment i's token states
 * S_i after a Θ_SELF layer or X̃_i after Θ_X (t rows each). It holds the
 * chosen segment's block of each pass only, so a sequence of 10,000
 * segments costs one block. Underneath, a strip of the per-segment latent
 * norms ||L_i|| of both passes and the norms of their gradients (from the
 * last inspection pass) against the segment index, the chosen segment
 * marked: one point a segment, or, for more segments than the strip has
 * pixels, one a cell of segments pooled by max or mean (the series
 * blrp.latent.<pass>.norms, core/probe.h), its title saying which and how
 * many segments a cell holds.
 *
 * In place of a block the heatmap can show a Θ_SELF layer's token states
 * over the whole sample, pooled along the sequence (a long sample's, asked
 * for at the plot's height, core/probe.h): its rows and hover count tokens.
 */
#ifndef RF_LATENT_FIGURE_H
#define RF_LATENT_FIGURE_H

#include "../plot/figure.h"
#include "../plot/plot.h"
#include "matrix_panel.h"

typedef enum rf_latent_pass { RF_LATENT_FORWARD, RF_LATENT_BACKWARD } rf_latent_pass;

typedef enum rf_latent_layer_kind {
    RF_LATENT_LAYER_LATENT,      /* Θ_L: the latent block L_i */
    RF_LATENT_LAYER_SELF,        /* Θ_SELF k: segment i's token states S_i after layer k */
    RF_LATENT_LAYER_CROSS,       /* Θ_X: X̃_i, the segment after reading the latent */
} rf_latent_layer_kind;

typedef struct rf_latent_layer {
    rf_latent_layer_kind kind;
    int self;                    /* RF_LATENT_LAYER_SELF: k, 1..model.layers */
} rf_latent_layer;

/* The layer's short name ("Θ_SELF 2", "Θ_X", "Θ_L (latent)"). */
void rf_latent_layer_name(rf_latent_layer layer, char *buf, size_t size);

/* One rows x d block per pass: the last segment's block set. */
typedef struct rf_latent_blocks {
    int rows;
    float *data[2];              /* per pass: rows x d; NULL until sized */
    int segment[2];              /* per pass: the segment the block holds (1-based), 0: none */
} rf_latent_blocks;

/* The strip's series: the latent norms and gradient norms of each pass. */
typedef enum rf_latent_norm {
    RF_LATENT_NORM_FORWARD,
    RF_LATENT_NORM_BACKWARD,
    RF_LATENT_GRAD_NORM_FORWARD,
    RF_LATENT_GRAD_NORM_BACKWARD,
    RF_LATENT_NORMS
} rf_latent_norm;

typedef struct rf_latent_strip {
    float *cells[RF_LATENT_NORMS];        /* NULL: absent; a cell may be NaN (no segment read) */
    rf_matrix_positions at[RF_LATENT_NORMS];   /* the segments (rows from 0) the cells cover */
    bool mean[RF_LATENT_NORMS];           /* a cell of several segments is their mean (else their max) */
} rf_latent_strip;

typedef struct rf_latent_figure {
    char message[200];           /* shown while there is nothing to draw */
    char title[160];
    int segments, l, d;          /* segments are numbered 1..segments */
    rf_latent_blocks latent;     /* L_i, l rows */
    rf_latent_blocks tokens;     /* the chosen layer's S_i or X̃_i when it is not the latent */
    rf_latent_strip strip;       /* ||L_i|| and ||dLoss/dL_i|| of both passes */
    int segment;                 /* the chosen segment (1-based) */
    int sample_tokens;           /* the sample's tokens (0: unknown): a token block shows only those it holds */
    rf_latent_pass pass;
    rf_latent_layer layer;       /* the layer the heatmap shows */
    rf_heatmap heat;
    char **names;                /* the chosen segment's token rows in the data's words (NULL: none) */
    int n_names;
    float *sequence;             /* Θ_SELF's token states over the sample, rows x d (NULL: the block) */
    int sequence_rows;
    rf_matrix_positions sequence_at;   /* the tokens its rows cover */
} rf_latent_figure;

void rf_latent_figure_init(rf_latent_figure *f);
void rf_latent_figure_free(rf_latent_figure *f);
void rf_latent_figure_set_message(rf_latent_figure *f, const char *text);
void rf_latent_figure_set_title(rf_latent_figure *f, const char *title);

/* Size for `segments` segments of an l x d latent; forgets the states
 * (all absent) when the size changes. */
bool rf_latent_figure_resize(rf_latent_figure *f, int segments, int l, int d);
/* Forget every state and norm (a new snapshot is coming). */
void rf_latent_figure_forget(rf_latent_figure *f);
/* Copy the l x d state of `segment` (1-based) of a pass: the pass's block
 * from now on (the block it held before is dropped). */
void rf_latent_figure_set_state(rf_latent_figure *f, rf_latent_pass pass, int segment, const float *state);
/* Copy one series of the strip: at.cells values, cell i covering the
 * segments (from 0) [rf_pool_edge(at.lo, at.hi, at.cells, i), ... i + 1),
 * each their mean or their max. NULL: absent. */
void rf_latent_figure_set_norms(rf_latent_figure *f, rf_latent_norm which, const float *cells,
                                rf_matrix_positions at, bool mean);
/* The strip's title: "Per-segment norms", and for cells of several
 * segments "max (or mean) over up to N segments a cell". */
void rf_latent_figure_strip_title(const rf_latent_figure *f, char *buf, size_t size);
/* The pass holds `segment`'s block. */
bool rf_latent_figure_holds(const rf_latent_figure *f, rf_latent_pass pass, int segment);
/* Choose what the heatmap shows. */
void rf_latent_figure_select(rf_latent_figure *f, int segment, rf_latent_pass pass);
/* Choose the layer shown; a Θ_SELF or Θ_X layer has `rows` token rows per
 * segment (the segment length t; 0: none arrived, the figure says so). The
 * token blocks are forgotten when the layer or its size changes. False when
 * a token layer has no blocks (rows 0, out of memory). */
bool rf_latent_figure_set_layer(rf_latent_figure *f, rf_latent_layer layer, int rows);
/* Copy the rows x d token block of `segment` (1-based) of a pass, for the
 * chosen Θ_SELF or Θ_X layer (the pass's token block from now on). */
void rf_latent_figure_set_tokens(rf_latent_figure *f, rf_latent_pass pass, int segment, const float *block);
/* Show, in place of the chosen block, the chosen Θ_SELF layer's token
 * states over the sample: rows x d cells (copied), row i covering the
 * tokens `at` gives. NULL: the block again. */
void rf_latent_figure_set_sequence(rf_latent_figure *f, const float *cells, int rows, rf_matrix_positions at);
/* The shown sample's length in tokens (0: unknown, every row shown). The
 * batch pads at the end, so a token block shows the rows of the sample's
 * tokens in its segment (fewer in the last, none past it: the figure says
 * the segment is padding); the colour range spans those rows only. */
void rf_latent_figure_set_sample_tokens(rf_latent_figure *f, int tokens);

/* Name the chosen segment's token rows (row r: names[r]) in the data's
 * own words for the hover (taken over, freed by the figure; NULL: none).
 * Latent rows are the model's own and stay unnamed. */
void rf_latent_figure_take_names(rf_latent_figure *f, char **names, int n);
/* The legend of the heatmap: latent or state values, diverging around 0. */
rf_map_scale rf_latent_figure_scale(const rf_latent_figure *f);

/* The heatmap's title, naming segment, pass and layer ("segment 3 ·
 * forward · Θ_SELF 2: token states, 100 × 64"); empty when the chosen block
 * has not arrived or is all padding. */
void rf_latent_figure_block_title(const rf_latent_figure *f, char *buf, size_t size);

/* How far apart the shown block's rows are: Σ_r ‖row_r − mean row‖² over
 * Σ_r ‖row_r‖². 0 when every row is the same vector (a latent whose l slots
 * have collapsed into one), 1 when the rows average to zero. NaN when no
 * block is shown or it is all zero. */
double rf_latent_figure_row_spread(const rf_latent_figure *f);
/* The title drawn over the heatmap: the block title and the row spread in
 * percent ("... latent block, 100 × 64 · rows differ: 0.12%"), so a latent
 * that has collapsed to one row shows as such. */
void rf_latent_figure_heat_title(const rf_latent_figure *f, char *buf, size_t size);

rf_figure rf_latent_figure_get(rf_latent_figure *f);

#endif
