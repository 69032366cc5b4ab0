/* The sample figure's state, shared by its drawing files (sample_figure.c:
 * setup, header and picture; sample_audio.c; sample_tokens.c: ListOps and
 * other sequences). Not for use outside ui/figures/. */
#ifndef RF_SAMPLE_FIGURE_PRIVATE_H
#define RF_SAMPLE_FIGURE_PRIVATE_H

#include "../plot/plot.h"
#include "sample_figure.h"

typedef enum sample_kind {
    SAMPLE_MESSAGE,
    SAMPLE_PICTURE,
    SAMPLE_AUDIO,
    SAMPLE_TOKENS,
    SAMPLE_SEQUENCE,
} sample_kind;

struct rf_sample_figure {
    sample_kind kind;
    char *title, *label, *message;
    char *prediction;    /* what the model says, or NULL */

    /* picture */
    int height, width, channels, patch;
    float *values;              /* [height][width][channels], the model's inputs */
    uint8_t *bytes;             /* the same, as shown */
    bool stored_bytes;          /* bytes are the data set's own (else stretched values) */
    cairo_surface_t *picture;   /* bytes as an RGB24 image */
    double grey_lo, grey_hi;    /* a grey picture: the values black and white stand for */

    /* audio */
    float *wave;
    int64_t wave_len;
    int sample_rate;
    char *wave_note;
    float wave_peak;
    float *db;                  /* [bins][frames], highest bin first */
    float *db_above_floor;      /* the same less db_floor, clamped at 0: what the heatmap shows */
    double db_floor, db_top;
    int frames, bins;
    double hop;
    float *bin_hz;
    rf_heatmap spectrogram;

    /* tokens */
    char **tokens;
    int *level;                 /* nesting level of each token (bytes: its character class) */
    int n_tokens, tree_depth;
    double *step_x, *step_y;    /* the depth profile as a staircase, 2 points per token (bytes: the ids) */
    bool byte_text;             /* byte tokens of a text, not a ListOps expression */

    /* sequence */
    float *seq;                 /* [len][max(1, feat_dim)] as given */
    int len, feat_dim;
    double *seq_x, *seq_y;      /* feat_dim <= 1: the points */
    float *strip;               /* feat_dim > 1: [feat_dim][len], last feature first */
    rf_heatmap strip_map;
    /* an attribution drawn over the sample (any kind but sequences), or NULL */
    float *attr;
    int attr_len;
    rf_map_scale attr_scale;    /* its colours, and the legend's words (the method's name) */
    /* a picture's rectangle being dragged out: pixel rows/columns [r0, r1) x [c0, c1); none when r1 <= r0 */
    int mark_r0, mark_c0, mark_r1, mark_c1;
};

/* Height of the header (title and label lines) above every kind's body. */
#define SAMPLE_HEADER_H 50.0

/* A cairo context on a 1x1 surface, for measuring text and laying out
 * panels while answering hover; cairo_destroy it after use. */
cairo_t *sample_scratch_context(void);

/* Opacity of an attribution drawn over a picture or a spectrogram. */
#define SAMPLE_ATTR_ALPHA 0.55
/* Set cr's colour to position i's attribution at that opacity. */
void sample_attr_colour(const rf_sample_figure *f, cairo_t *cr, int i, double alpha);

/* Drop the sample shown (every kind's data) and switch to `kind`. */
void sample_reset(rf_sample_figure *f, sample_kind kind);

/* Release whatever the kind-specific setters allocated. */
void sample_audio_clear(rf_sample_figure *f);
void sample_tokens_clear(rf_sample_figure *f);
void sample_sequence_clear(rf_sample_figure *f);

void sample_audio_draw(rf_sample_figure *f, cairo_t *cr, rf_rect body, const rf_zoom *z);
bool sample_audio_hover(rf_sample_figure *f, rf_rect body, const rf_zoom *z, double x, double y, char *text,
                        size_t size);
void sample_tokens_draw(rf_sample_figure *f, cairo_t *cr, rf_rect body, const rf_zoom *z);
bool sample_tokens_strip(const rf_sample_figure *f, rf_rect body, const rf_zoom *z, int i, rf_rect *strip);
bool sample_tokens_hover(rf_sample_figure *f, rf_rect body, const rf_zoom *z, double x, double y, char *text,
                         size_t size);
void sample_sequence_draw(rf_sample_figure *f, cairo_t *cr, rf_rect body, const rf_zoom *z);
bool sample_sequence_hover(rf_sample_figure *f, rf_rect body, const rf_zoom *z, double x, double y, char *text,
                           size_t size);

#endif
