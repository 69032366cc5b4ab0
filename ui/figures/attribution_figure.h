/* The Attribution view's figure: one input's attribution (core/attribution.h)
 * drawn in the data's own terms:
 *
 *   tokens    the expression or text, token by token, each over a strip
 *             coloured by its attribution (lines wrap; past what fits, the
 *             strip alone, one cell a position);
 *   picture   the picture with a grid_h x grid_w heatmap blended over it;
 *   audio     the log-mel spectrogram (frames across, mel bins up) with
 *             each frame's attribution blended over its column and as a
 *             strip under it;
 *   other     a strip of cells, one a position.
 *
 * Signed methods get the diverging colours centred at 0, the unsigned
 * gradient norm the sequential ones; the shared map legend gives the range
 * and the method, a caption F(x), F(baseline), the sum and (integrated
 * gradients) the completeness error. Hover names a position in the data's
 * words (rf_position_words) and its value.
 * GTK-free, as every figure. */
#ifndef RF_ATTRIBUTION_FIGURE_H
#define RF_ATTRIBUTION_FIGURE_H

#include "../../core/attribution.h"
#include "../../core/data.h"
#include "../plot/figure.h"
#include "../plot/plot.h"

typedef struct rf_attribution_figure rf_attribution_figure;

rf_attribution_figure *rf_attribution_figure_new(void);
void rf_attribution_figure_free(rf_attribution_figure *f);
rf_figure rf_attribution_figure_get(rf_attribution_figure *f);

/* Show `a` (copied), computed by `method` for input x (len positions, as
 * ds->get or the featurise hook made it) of data set ds, under `title`.
 * Nothing of ds or x is kept. */
void rf_attribution_figure_set(rf_attribution_figure *f, const rf_attribution *a, rf_attr_method method,
                               const rf_dataset *ds, const float *x, int len, const char *title);
/* Compare mode: A (as rf_attribution_figure_set shows it), B (another
 * model's attribution of the same input and target) and A − B in three
 * panels, one above another, named names[0], names[1] and "A − B", all on
 * one diverging colour range (the largest |value| of A and B; the legend
 * names the three as its units), beside both models' class probabilities (ds->classes
 * each) as pairs of bars. Hover names the panel. */
void rf_attribution_figure_set_compare(rf_attribution_figure *f, const rf_attribution *a, const rf_attribution *b,
                                       rf_attr_method method, const rf_dataset *ds, const float *x, int len,
                                       const char *title, const char *const names[2], const float *probs_a,
                                       const float *probs_b);
/* Compare mode: probe map `name` (a tap as `inspect --probe` names it;
 * shape without the batch) of A and B on the same input, drawn right of
 * each panel's attribution (A, B, A − B: attribution_maps.h) on one
 * diverging colour range, max |value| over A and B, with its own legend
 * under the attribution's saying so. Ignored outside compare mode. */
void rf_attribution_figure_set_maps(rf_attribution_figure *f, const char *name, const rf_shape *shape,
                                    const float *a, const float *b);
/* The map's name (NULL: none), panel i's values (A, B, A − B; n floats
 * of `shape`; NULL past them or with no map) and their colour range. */
const char *rf_attribution_figure_map_name(const rf_attribution_figure *f);
const float *rf_attribution_figure_map(const rf_attribution_figure *f, int i, size_t *n, rf_shape *shape);
rf_map_scale rf_attribution_figure_map_scale(const rf_attribution_figure *f);
/* Where panel `panel`'s map cell `index` (flat, into its values) is drawn
 * at width x height; false when it is not. */
bool rf_attribution_figure_map_cell(const rf_attribution_figure *f, double width, double height, int panel,
                                    size_t index, rf_rect *cell);
/* Panels drawn: 0 (nothing computed), 1, or 3 in compare mode; panel i's
 * values (A, B, A − B; NULL past the panels). */
int rf_attribution_figure_panels(const rf_attribution_figure *f);
const float *rf_attribution_figure_panel(const rf_attribution_figure *f, int i, int *len);
/* Nothing computed: `message` in place of the figure. */
void rf_attribution_figure_set_message(rf_attribution_figure *f, const char *message);

/* The values drawn (A's in compare mode; NULL while a message is) and the
 * colour range they are drawn on: [-m, m] for signed methods, [0, max]
 * for the gradient; in compare mode [-m, m] over A and B. */
const float *rf_attribution_figure_values(const rf_attribution_figure *f, int *len);
rf_map_scale rf_attribution_figure_scale(const rf_attribution_figure *f);
/* The colour range of len values by `method` (the figure's, and the Data
 * view's overlay's): diverging on [-m, m], m the largest magnitude, for
 * signed methods; sequential on [0, max] for the gradient. */
rf_map_scale rf_attribution_scale(const float *values, int len, rf_attr_method method);
/* How the values are laid out: 't' tokens, 'p' picture grid (rows x cols
 * the data set's grid), 'a' audio frames, 's' a strip. */
char rf_attribution_figure_layout(const rf_attribution_figure *f, int *rows, int *cols);

#endif
