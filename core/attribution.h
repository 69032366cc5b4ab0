/* Attribution: how much each input position contributes to one class's
 * logit (the target: a chosen class, or the predicted one).
 *
 * Gradients are taken at the model's input: the features of a feature
 * model, the embeddings (table rows, before positions are added) of a
 * token model, since token ids are discrete. A position's attribution sums
 * over its features or embedding width:
 *   grad        the L2 norm of the target logit's gradient (unsigned);
 *   grad-input  gradient . (input - baseline);
 *   ig          integrated gradients (Sundararajan et al. 2017): the
 *               average gradient along the straight path from the baseline
 *               to the input, by the midpoint rule over `steps` points
 *               (alpha = (k + 1/2) / steps), dotted with (input - baseline);
 *               its completeness error |sum - (F(x) - F(baseline))|, as
 *               Captum reports it, shrinks as steps grow;
 *   occlusion   the drop of the target logit, F(x) - F(x occluded), when
 *               a window of positions is replaced by the baseline (tokens:
 *               the padding id 0), averaged over the windows that cover a
 *               position. Windows are `window` positions every `stride`,
 *               or window x window patches on an image's grid.
 * Baselines: tokens get the padding token's (id 0) embedding at every
 * position, under the input's own mask; features get the caller's
 * baseline (black, a mean image, silence) or zeros.
 *
 * Rows of one batch carry the interpolation points or occluded copies, so
 * the work runs batched on a graph planned once per trainer (the trainer's
 * batch size plus the input and its baseline); each batch's gradient lives
 * for that pass only. grad and grad-input take the input alone through a
 * one-row graph, also planned once. The graph's parameters are frozen:
 * its backward pass computes no weight gradient and leaves the store's
 * (and the parameters) as they were. CPU builds only.
 */
#ifndef RF_ATTRIBUTION_H
#define RF_ATTRIBUTION_H

#include "train.h"

typedef enum rf_attr_method { RF_ATTR_GRAD, RF_ATTR_GRAD_INPUT, RF_ATTR_IG, RF_ATTR_OCCLUSION, RF_ATTR_METHODS } rf_attr_method;

/* "grad", "grad-input", "ig", "occlusion" */
const char *rf_attr_method_name(rf_attr_method m);
bool rf_attr_method_parse(const char *name, rf_attr_method *out);

typedef struct rf_attr_request {
    rf_attr_method method;
    int target;              /* the class whose logit is explained; -1: the predicted class */
    int steps;               /* ig: interpolation points, >= 1 */
    int window, stride;      /* occlusion: >= 1 each */
    const float *baseline;   /* feature models: seq_len x feat_dim floats, or NULL for zeros */
} rf_attr_request;

typedef struct rf_attribution {
    float *values;           /* len floats, one per position (rf_attribution_clear frees them) */
    int len;
    int target, predicted;
    double fx;               /* the target logit at the input */
    double fbase;            /* ... at the baseline (ig, occlusion); NAN for grad and grad-input,
                                whose pass takes the input alone */
    double sum;              /* of values */
    double completeness;     /* ig: |sum - (fx - fbase)|; NAN for the other methods */
} rf_attribution;

/* Attribution for one input (a split's sample read through ds->get, or an
 * outside input featurised by the data set). Fails on a bad request (a
 * class out of range, steps or window < 1) or a device build. */
bool rf_trainer_attribute(rf_trainer *t, const rf_outside_input *in, const rf_attr_request *r, rf_attribution *out,
                          rf_status *st);
void rf_attribution_clear(rf_attribution *a);

/* The lower level, for tests and drawing. Floats per position of the
 * attribution input: feat_dim, or model.dim for tokens. */
int rf_trainer_attribution_width(const rf_trainer *t);
/* The input and the baseline as the attribution graph takes them:
 * seq_len x width floats each (positions past in->len as a batch pads them). */
bool rf_trainer_attribution_input(rf_trainer *t, const rf_outside_input *in, const float *baseline, float *x,
                                  float *base, rf_status *st);
/* Logits (count x classes) of `count` inputs given in that form, all of
 * `len` valid positions, forward only. */
bool rf_trainer_attribution_logits(rf_trainer *t, const float *x, int count, int len, float *logits, rf_status *st);

#endif
