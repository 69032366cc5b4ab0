/* A whole model's parameter gradients against finite differences, shared by
 * the model test and the mechanism tests. */
#ifndef RF_TESTS_MODELCHECK_H
#define RF_TESTS_MODELCHECK_H

#include <stdbool.h>

#include "../core/config.h"
#include "../core/exec.h"
#include "../core/params.h"

/* With g's inputs filled by the caller and x an initialised exec of g: run
 * forward and backward once, then for about six elements of every parameter
 * in p compare the gradient with central differences of the scalar `loss`
 * (f32, step h; within 2e-3 + 5e-2 |numeric|). One TAP line, "WHAT: N
 * gradients of P parameters match finite differences", with the worst
 * mismatch as a diagnostic. Returns whether all matched. */
bool modelcheck_param_grads(const char *what, rf_params *p, rf_graph *g, rf_id loss, rf_exec *x, float h);

/* One sample of `len` tokens (ids, vocabulary 11, 5 classes) through the
 * classifier of cfg built at length len and at `padded` over one parameter
 * store: the logits must agree within 1e-5 (padding never changes valid
 * tokens' results). One TAP line for the builds, one for the logits. */
bool modelcheck_padding(const char *what, const rf_config *cfg, const float *ids, int len, int padded);

#endif
