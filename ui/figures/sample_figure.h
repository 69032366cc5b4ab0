/* The Data view's figure: one sample of a data set, drawn as what it is.
 *
 *   picture   an image (gray or RGB) with nearest-neighbour scaling and the
 *             patch grid the model's tokens follow;
 *   audio     the waveform above the log-mel spectrogram (dB, colour bar),
 *             sharing the time axis;
 *   tokens    a ListOps expression, each token coloured by its nesting
 *             depth, above the depth profile along the sequence; or a
 *             text's bytes, coloured by character class, above their ids;
 *   sequence  a time series as a line, token ids as points, or feature
 *             vectors as a heat strip (features down, positions across).
 *
 * A header above every kind names the sample and its label. Zoom: x picks
 * the span of the sequence (time, tokens, positions) or of the picture's
 * width; y the picture's rows or the spectrogram's mel bins. Hover reads
 * out the value under the pointer: the pixel and the model's input value,
 * time and amplitude, time + frequency + dB, token + depth.
 *
 * The figure copies everything it is given; GTK-free (GLib for memory).
 */
#ifndef RF_SAMPLE_FIGURE_H
#define RF_SAMPLE_FIGURE_H

#include <stdbool.h>
#include <stdint.h>

#include "../plot/figure.h"
#include "../plot/plot.h"

typedef struct rf_sample_figure rf_sample_figure;

rf_sample_figure *rf_sample_figure_new(void);
void rf_sample_figure_free(rf_sample_figure *f);

/* The rf_figure that draws f (f must outlive it). */
rf_figure rf_sample_figure_get(rf_sample_figure *f);

/* Header lines: the sample (e.g. "train #12: Sneaker (cat/01.png)") and
 * its label ("label: Sneaker (class 7)"); either may be NULL. */
void rf_sample_figure_set_caption(rf_sample_figure *f, const char *title, const char *label);
/* What the trained model makes of the sample ("model: 7 (class 7) · loss
 * 0.12 · step 300"), drawn at the right of the label; NULL clears it. A new
 * caption clears it too. */
void rf_sample_figure_set_prediction(rf_sample_figure *f, const char *text);

/* The prediction text drawn now, or NULL. */
const char *rf_sample_figure_get_prediction(const rf_sample_figure *f);

/* Nothing to show but a centred message ("Open a data set"). */
void rf_sample_figure_set_message(rf_sample_figure *f, const char *message);

/* A picture of height x width pixels with `channels` (1 gray, 3 RGB)
 * interleaved. values: the model's inputs per pixel and channel (read out on
 * hover). pixels: the stored bytes to show, or NULL to show `values`
 * stretched from their minimum to their maximum. patch: the side of a
 * token's square (1 for one token per pixel). */
void rf_sample_figure_set_picture(rf_sample_figure *f, const uint8_t *pixels, const float *values, int height,
                                  int width, int channels, int patch);

/* Reassemble a picture from patch tokens: x holds grid_h * grid_w tokens of
 * feat_dim = patch * patch * channels floats (each patch's pixels in raster
 * order, channels interleaved), channels 1 or 3 (feat_dim a square, or three
 * times one). out gets (grid_h * patch) x (grid_w * patch) x channels floats
 * (NULL: only the shape). False when feat_dim fits neither layout. */
bool rf_sample_unpatch(const float *x, int grid_h, int grid_w, int feat_dim, float *out, int *height, int *width,
                       int *channels, int *patch);

/* Audio: wave[n] mono samples at sample_rate (NULL when the file cannot be
 * read; wave_note then says why), logmel[frames x bins] natural-log mel
 * energies one row per frame, frames hop_seconds apart, bin_hz[bins] the
 * centre frequency of each mel filter. */
void rf_sample_figure_set_audio(rf_sample_figure *f, const float *wave, int64_t n, int sample_rate,
                                const char *wave_note, const float *logmel, int frames, int bins,
                                double hop_seconds, const float *bin_hz);

/* A ListOps expression: n token texts ("[MAX", "7", "]"); an operator token
 * (starting with '[') opens a level that its ']' closes. */
void rf_sample_figure_set_tokens(rf_sample_figure *f, const char *const *tokens, int n);

/* A text as byte tokens: n ids (byte + 1, as text_folder gives them),
 * each drawn as its character (␣ a space, ↵ a line break, \xHH a byte that
 * is not printable ASCII) and coloured by its class (letter, digit,
 * punctuation, space, other), above the ids along the sequence. Hover reads
 * out the character, the byte and the id. */
void rf_sample_figure_set_bytes(rf_sample_figure *f, const float *ids, int n);

/* Any other sequence: len positions of feat_dim floats (0: one token id per
 * position, drawn as points; 1: a series, drawn as a line; more: a heat
 * strip of the features). */
void rf_sample_figure_set_sequence(rf_sample_figure *f, const float *x, int len, int feat_dim);

/* An attribution over the sample: len values, one per position, coloured
 * by `scale` (its quantity, the method's name, a string that outlives the
 * figure): a strip under each token beside the scale's colour bar, a
 * heatmap blended over the picture's patch grid or the spectrogram's
 * frames (sequences draw none). NULL clears it; a new sample does too. */
void rf_sample_figure_set_attribution(rf_sample_figure *f, const float *values, int len, const rf_map_scale *scale);
/* Where the strip under token i is drawn in a figure of width x height at
 * zoom `z` (false when it is not drawn: no attribution, not tokens, or the
 * token is not shown). */
bool rf_sample_figure_attribution_strip(const rf_sample_figure *f, double width, double height, const rf_zoom *z, int i,
                                        rf_rect *strip);
/* The attribution drawn over the sample, or NULL. */
const float *rf_sample_figure_get_attribution(const rf_sample_figure *f, int *len);

/* The picture's pixel under widget point (x, y) of a figure drawn
 * width x height at zoom z: false when no picture is shown, or (unless
 * `clamp`, which takes the nearest pixel) when the point is off it. */
bool rf_sample_figure_picture_pixel(const rf_sample_figure *f, double width, double height, const rf_zoom *z,
                                    double x, double y, bool clamp, int *row, int *col);
/* A rectangle marked over the picture: rows [r0, r1) and columns [c0, c1)
 * of pixels; r1 <= r0 clears it (so does a new sample). */
void rf_sample_figure_set_mark(rf_sample_figure *f, int r0, int c0, int r1, int c1);

/* The deepest level of the tokens set last (a lone digit is 1, "[MAX 2 3 ]"
 * is 2), or 0 for other kinds. */
int rf_sample_figure_tree_depth(const rf_sample_figure *f);

#endif
