/* The naive BLRP reference of tests/test_mech_blrp.c, in double: SPEC §3's
 * recurrences unrolled by hand on one sample's own (unpadded) segments,
 * reading the parameters by name from a store. Every option of the encoder
 * (direction, latent_init, phi, share_directions, blrp_scale, latent_norm,
 * latent_pos) is followed from the config; the attention scale is SPEC's
 * (1/sqrt(d/h) per head; 1/sqrt(d) for blrp_scale = model). */
#ifndef RF_TESTS_BLRP_REFERENCE_H
#define RF_TESTS_BLRP_REFERENCE_H

#include <stdint.h>

#include "../core/config.h"
#include "../core/params.h"

/* The store the reference reads its parameters from, and one element it
 * may perturb by ref_perturb_delta (finite differences of the reference
 * with respect to a parameter; entry -1: none). */
extern const rf_params *ref_store;
extern int ref_perturb_entry;
extern int64_t ref_perturb_index;
extern double ref_perturb_delta;

/* Where ref_sample leaves its intermediates when set (the state taps'
 * check): S after each Θ_SELF layer and X̃ of each pass (0 forward, 1
 * backward), [T·t, d] each with segment i at rows (i-1)·t, valid rows only. */
typedef struct ref_trace {
    double *self[2];
    double *seg[2];
} ref_trace;
extern ref_trace *ref_record;

/* One sample's BLRP output L_FINAL [l, d] from its len valid tokens x [len, d]. */
void ref_sample(const rf_config *cfg, const double *x, int len, double *out);

#endif
