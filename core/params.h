/* The parameter store: every trainable tensor of a model, its gradient and
 * the two AdamW moments, each kind in one contiguous allocation (so the
 * optimizer and gradient clipping are flat loops, and a checkpoint is a
 * table of offsets).
 *
 * Parameters are registered by name while a model graph is built (shapes
 * only, nothing allocated, so the memory planner can run on a model that
 * was never allocated), then rf_params_allocate makes the four blocks and
 * initialises the values from (seed, name): the same seed and name give the
 * same numbers whatever the order of registration.
 */
#ifndef RF_PARAMS_H
#define RF_PARAMS_H

#include "graph.h"

typedef struct rf_param_entry {
    char name[RF_NAME_LEN];
    rf_shape shape;
    rf_init init;
    float scale;
    size_t offset;      /* in floats, into each of the four blocks */
    int64_t numel;
    bool decay;         /* weight decay applies (matrices yes; biases, norms, no) */
} rf_param_entry;

struct rf_params {
    uint64_t seed;
    int count;
    int capacity;
    rf_param_entry *entries;
    size_t total;       /* floats per block */
    float *value;       /* NULL until allocated */
    float *grad;
    float *m;           /* AdamW first moment */
    float *v;           /* AdamW second moment */
    /* Where the four blocks live and the optimiser runs (core/op.h); NULL
     * is the CPU. Set with rf_params_set_backend before allocating. */
    const struct rf_backend *backend;
    /* Values only (rf_params_set_values_only): grad, m and v stay NULL. */
    bool values_only;
};

rf_params *rf_params_new(uint64_t seed);
void rf_params_free(rf_params *p);

/* Index of `name`, registering it if new. Returns -1 and fails `st` if the
 * name exists with another shape, or the store is already allocated and the
 * name is new. */
int rf_params_register(rf_params *p, const char *name, rf_shape shape, rf_init init, float scale,
                       rf_status *st);
int rf_params_find(const rf_params *p, const char *name);

void rf_params_set_backend(rf_params *p, const struct rf_backend *b);
/* For a store that only ever runs forward (inference): rf_params_allocate
 * then makes the values block alone, no gradients and no AdamW moments.
 * Call before allocating. */
void rf_params_set_values_only(rf_params *p);
bool rf_params_allocate(rf_params *p, rf_status *st);
bool rf_params_allocated(const rf_params *p);
size_t rf_params_bytes(const rf_params *p);      /* one block */

void rf_params_zero_grads(rf_params *p);

#endif
