/* The BLRP latent-state figure: the latent block L_i (l rows x d columns)
 * of one segment and pass as a heatmap, and underneath a strip of the
 * per-segment norms ||L_i|| of both passes and the norms of their gradients
 * (from the ".grad" taps of the last inspection pass) against the segment
 * index, the chosen segment marked.
 */
#ifndef RF_LATENT_FIGURE_H
#define RF_LATENT_FIGURE_H

#include "../plot/figure.h"
#include "../plot/plot.h"

typedef enum rf_latent_pass { RF_LATENT_FORWARD, RF_LATENT_BACKWARD } rf_latent_pass;

typedef struct rf_latent_figure {
    char message[200];           /* shown while there is nothing to draw */
    char title[160];
    int segments, l, d;          /* segments are numbered 1..segments */
    float *states[2];            /* per pass: segments x l x d; NULL until sized */
    bool *filled[2];             /* per pass and segment: a state arrived */
    double *norms[2];            /* ||L_i|| per pass and segment, NaN when absent */
    double *absmax[2];           /* max |L_i| per pass and segment, 0 when absent */
    double *grad_norms[2];       /* ||dLoss/dL_i||, NaN when absent */
    int segment;                 /* the chosen segment (1-based) */
    rf_latent_pass pass;
    rf_heatmap heat;
} rf_latent_figure;

void rf_latent_figure_init(rf_latent_figure *f);
void rf_latent_figure_free(rf_latent_figure *f);
void rf_latent_figure_set_message(rf_latent_figure *f, const char *text);
void rf_latent_figure_set_title(rf_latent_figure *f, const char *title);

/* Size for `segments` latent blocks of l x d per pass; forgets the states
 * (all absent) when the size changes. */
bool rf_latent_figure_resize(rf_latent_figure *f, int segments, int l, int d);
/* Forget every state and norm (a new snapshot is coming). */
void rf_latent_figure_forget(rf_latent_figure *f);
/* Copy the l x d state (or its gradient) of `segment` (1-based) of a pass. */
void rf_latent_figure_set_state(rf_latent_figure *f, rf_latent_pass pass, int segment, const float *state);
void rf_latent_figure_set_grad(rf_latent_figure *f, rf_latent_pass pass, int segment, const float *grad);
/* Choose what the heatmap shows. */
void rf_latent_figure_select(rf_latent_figure *f, int segment, rf_latent_pass pass);

rf_figure rf_latent_figure_get(rf_latent_figure *f);

#endif
