/* The TaLK window-bounds figure: for one sample, layer and head, each
 * token's adaptive window [a^l, a^r] (absolute positions, as the talk op
 * stores them: a^l = clamp(i - ã^l lmax, 0, L-1), a^r = clamp(i + ã^r rmax,
 * 0, L-1); core/ops/talk.h) drawn as a vertical band over the token's
 * x position, relative to the token (from a^l - i to a^r - i), so windows
 * of a few dozen positions stay readable in sequences of 4096. Where more
 * tokens than pixels share a column, the column shows the union of their
 * windows. For image data, a picture mode shows the window width of every
 * position over the image and outlines the window of a chosen position.
 */
#ifndef RF_TALK_FIGURE_H
#define RF_TALK_FIGURE_H

#include "../plot/figure.h"
#include "../plot/plot.h"
#include "picture.h"

typedef struct rf_talk_figure {
    char message[200];           /* shown while there are no bounds */
    char title[160];
    int tokens;                  /* tokens shown (trailing padding dropped) */
    float *left, *right;         /* per token: a^l, a^r */
    rf_picture picture;
    bool show_picture;
    int token;                   /* the chosen token (picture mode) */
    float *widths;               /* per raster position: a^r - a^l, for the overlay */
    char **names;                /* token t in the data's own words (NULL: none) */
    int n_names;
} rf_talk_figure;

void rf_talk_figure_init(rf_talk_figure *f);
void rf_talk_figure_free(rf_talk_figure *f);
void rf_talk_figure_set_message(rf_talk_figure *f, const char *text);
void rf_talk_figure_set_title(rf_talk_figure *f, const char *title);

/* Copy head `head`'s bounds out of a layer's [tokens, 2 * heads] tap (a^l of
 * every head, then a^r of every head). Trailing padded tokens (both bounds
 * 0) are dropped. */
bool rf_talk_figure_set_bounds(rf_talk_figure *f, const float *bounds, int tokens, int heads, int head);

/* Name the tokens in the data's own words for the hover (taken over,
 * freed by the figure; NULL: none). */
void rf_talk_figure_take_names(rf_talk_figure *f, char **names, int n);

void rf_talk_figure_show_picture(rf_talk_figure *f, bool on);
void rf_talk_figure_set_token(rf_talk_figure *f, int token);
/* Picture mode: the token of the position under (x, y); false elsewhere. */
bool rf_talk_figure_token_at(const rf_talk_figure *f, double width, double height, double x, double y, int *token);

rf_figure rf_talk_figure_get(rf_talk_figure *f);

#endif
