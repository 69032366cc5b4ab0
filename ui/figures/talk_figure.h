/* The TaLK window-bounds figure: for one sample, layer and head, each
 * token's adaptive window [a^l, a^r] (absolute positions, as the talk op
 * stores them: a^l = clamp(i - ã^l lmax, 0, L-1), a^r = clamp(i + ã^r rmax,
 * 0, L-1); core/ops/talk.h) drawn as a vertical band over the token's
 * x position, relative to the token (from a^l - i to a^r - i), so windows
 * of a few dozen positions stay readable in sequences of 4096. A long
 * sample's bounds come pooled (RF_POOL_SPAN, core/probe.h): each column of
 * the figure then covers a run of tokens and shows the widest window among
 * them (the least left offset, the greatest right offset). Where more
 * columns than pixels share a pixel, it shows the union of their windows.
 * For image data, a picture mode shows the window width of every
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
    int cells;                   /* columns shown (0: the message instead) */
    int64_t first, last;         /* the tokens [first, last) they cover */
    float *left, *right;         /* per column: least a^l - i, greatest a^r - i of its tokens i */
    rf_picture picture;
    bool show_picture;
    int token;                   /* the chosen token (picture mode) */
    float *widths;               /* per raster position: a^r - a^l, for the overlay */
    char **names;                /* token first + k in the data's own words (NULL: none) */
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
/* Head `head`'s columns of a tap pooled by RF_POOL_SPAN over tokens
 * [first, last) into `cells` rows of [cells, 2 * heads] (offsets relative
 * to each token already). */
bool rf_talk_figure_set_spans(rf_talk_figure *f, const float *spans, int cells, int heads, int head, int64_t first,
                              int64_t last);
/* Whether every column is one token (not pooled). */
bool rf_talk_figure_exact(const rf_talk_figure *f);
/* The tokens [*t0, *t1) column `i` covers. */
void rf_talk_figure_column(const rf_talk_figure *f, int i, int64_t *t0, int64_t *t1);

/* Name the tokens from `first` on in the data's own words for the hover
 * (taken over, freed by the figure; NULL: none). */
void rf_talk_figure_take_names(rf_talk_figure *f, char **names, int n);

void rf_talk_figure_show_picture(rf_talk_figure *f, bool on);
void rf_talk_figure_set_token(rf_talk_figure *f, int token);
/* Picture mode: the token of the position under (x, y); false elsewhere. */
bool rf_talk_figure_token_at(const rf_talk_figure *f, double width, double height, double x, double y, int *token);

rf_figure rf_talk_figure_get(rf_talk_figure *f);

#endif
