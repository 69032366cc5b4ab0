/* Model-level checks shared by the model test and the mechanism tests: a
 * whole model's parameter gradients against finite differences, padding
 * invariance, and how planned memory grows with the length. */
#ifndef RF_TESTS_MODELCHECK_H
#define RF_TESTS_MODELCHECK_H

#include <stdbool.h>

#include "../core/config.h"
#include "../core/exec.h"
#include "../core/params.h"

/* With g's inputs filled by the caller and x an initialised exec of g: run
 * forward and backward once, then compare the gradient of every element of
 * every parameter in p (of a parameter over 256 elements, a fixed sample of
 * 256) with central differences of the scalar `loss` in f32, step h.
 * An element matches within atol + 1% of the difference, atol being the
 * differences' rounding error bound derived from the loss's conditioning
 * (see modelcheck.c); where the loss is curved or kinked within h, a
 * Richardson extrapolation or a one-sided difference may match instead. One
 * TAP line, "WHAT: N gradients of P parameters match finite differences",
 * with the worst mismatch as a diagnostic. Returns whether all matched. */
bool modelcheck_param_grads(const char *what, rf_params *p, rf_graph *g, rf_id loss, rf_exec *x, float h);

/* The check's own test: as modelcheck_param_grads, but with the gradient of
 * the parameter `name` replaced by zeros before comparing that parameter
 * alone. The TAP line passes when the comparison fails. */
bool modelcheck_zeroed_grad_fails(const char *what, rf_params *p, rf_graph *g, rf_id loss, rf_exec *x, float h,
                                  const char *name);

/* One sample of `len` tokens (ids, vocabulary 11, 5 classes) through the
 * classifier of cfg built at length len and at `padded` over one parameter
 * store: the logits must agree within 1e-5 (padding never changes valid
 * tokens' results). One TAP line for the builds, one for the logits. */
bool modelcheck_padding(const char *what, const rf_config *cfg, const float *ids, int len, int padded);

/* cfg's classifier planned (not allocated) for `batch` samples of `small`
 * and of `large` tokens: one TAP line per plan that it was built, and one
 * that the larger plan's bytes are at most max_ratio times the smaller's
 * (it fails if either plan was not built). */
bool modelcheck_memory_growth(const char *what, const rf_config *cfg, int batch, int small, int large,
                              double max_ratio);

#endif
