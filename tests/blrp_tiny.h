/* A tiny BLRP classifier for the encoder's tests (test_mech_blrp.c,
 * test_blrp_probes.c): dims 8, 2 heads, 2 layers, segments of t = 3, a
 * latent of l = 2, 11 tokens, 5 classes. */
#ifndef RF_TESTS_BLRP_TINY_H
#define RF_TESTS_BLRP_TINY_H

#include <stdint.h>

#include "../core/exec.h"
#include "../core/model.h"
#include "../core/params.h"
#include "../core/probe.h"

/* The configuration: model.direction, latent_init, phi, share_directions. */
rf_config blrp_tiny_config(const char *direction, const char *init, const char *phi, const char *share);
/* The classifier at batch B and N tokens (NULL, the reason as a TAP diagnostic). */
rf_model *blrp_tiny_model(const rf_config *cfg, int B, int N, rf_params *p);
/* Random tokens from `seed`, rows of lengths N, N-2, N-4, ... (at least 1). */
void blrp_tiny_tokens(rf_model *m, uint64_t seed);
/* A forward pass: the loss. */
double blrp_tiny_loss(rf_model *m, rf_exec *x);
/* One forward and backward pass of tokens from `seed` with `ps` attached. */
void blrp_tiny_probe_step(rf_model *m, rf_params *p, rf_probe_set *ps, uint64_t seed);

#endif
