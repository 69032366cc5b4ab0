#include "params.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "op.h"
#include "rng.h"

rf_params *rf_params_new(uint64_t seed)
{
    rf_params *p = calloc(1, sizeof *p);
    if (p != NULL)
        p->seed = seed;
    return p;
}

void rf_params_set_backend(rf_params *p, const rf_backend *b)
{
    assert(p->value == NULL && "the store is already allocated");
    p->backend = b != NULL && b->alloc != NULL ? b : NULL;
}

void rf_params_set_values_only(rf_params *p)
{
    assert(p->value == NULL && "the store is already allocated");
    p->values_only = true;
}

static void *block_alloc(const rf_params *p, size_t bytes)
{
    return p->backend != NULL ? p->backend->alloc(bytes) : rf_alloc(bytes);
}

static void block_free(const rf_params *p, void *block)
{
    if (p->backend != NULL)
        p->backend->free(block);
    else
        rf_free(block);
}

static void free_blocks(rf_params *p)
{
    block_free(p, p->value);
    block_free(p, p->grad);
    block_free(p, p->m);
    block_free(p, p->v);
    p->value = p->grad = p->m = p->v = NULL;
}

void rf_params_free(rf_params *p)
{
    if (p == NULL)
        return;
    free_blocks(p);
    free(p->entries);
    free(p);
}

int rf_params_find(const rf_params *p, const char *name)
{
    for (int i = 0; i < p->count; i++)
        if (strcmp(p->entries[i].name, name) == 0)
            return i;
    return -1;
}

/* Biases and normalisation gains are not decayed (the usual AdamW practice). */
static bool wants_decay(const char *name, rf_shape shape)
{
    if (shape.ndim < 2)
        return false;
    return strstr(name, "norm") == NULL && strstr(name, ".ln") == NULL;
}

int rf_params_register(rf_params *p, const char *name, rf_shape shape, rf_init init, float scale,
                       rf_status *st)
{
    int i = rf_params_find(p, name);
    if (i >= 0) {
        if (!rf_shape_equal(p->entries[i].shape, shape)) {
            rf_fail(st, "parameter %s registered twice with different shapes", name);
            return -1;
        }
        return i;
    }
    if (p->value != NULL) {
        rf_fail(st, "parameter %s is new but the store is already allocated "
                    "(the architecture changed: build a new model)", name);
        return -1;
    }
    if (strlen(name) >= RF_NAME_LEN) {
        rf_fail(st, "parameter name too long: %s", name);
        return -1;
    }
    if (p->count == p->capacity) {
        int cap = p->capacity ? 2 * p->capacity : 64;
        rf_param_entry *e = realloc(p->entries, (size_t)cap * sizeof *e);
        if (e == NULL) {
            rf_fail(st, "out of memory registering parameter %s", name);
            return -1;
        }
        p->entries = e;
        p->capacity = cap;
    }
    rf_param_entry *e = &p->entries[p->count];
    memset(e, 0, sizeof *e);
    strcpy(e->name, name);
    e->shape = shape;
    e->init = init;
    e->scale = scale;
    e->numel = rf_shape_numel(shape);
    e->offset = p->total;
    e->decay = wants_decay(name, shape);
    /* keep every tensor 64-byte aligned inside the blocks */
    p->total += ((size_t)e->numel + 15) / 16 * 16;
    return p->count++;
}

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Element i of a sinusoidal [rows, cols] table (the classifier's
 * model.pos = sinusoidal uses the same formula). */
static float sinusoid(const rf_param_entry *e, int64_t i)
{
    int64_t cols = e->shape.ndim > 1 ? e->shape.dim[e->shape.ndim - 1] : 1, r = i / cols, c = i % cols;
    double freq = pow(10000.0, -(double)(c / 2 * 2) / (double)cols);
    return (float)(c % 2 == 0 ? sin((double)r * freq) : cos((double)r * freq));
}

static void init_entry(const rf_params *p, const rf_param_entry *e)
{
    float *w = p->value + e->offset;
    rf_rng rng = {rf_hash3(p->seed, name_hash(e->name), 0)};
    for (int64_t i = 0; i < e->numel; i++) {
        switch (e->init) {
        case RF_INIT_ZEROS: w[i] = 0.0f; break;
        case RF_INIT_ONES: w[i] = 1.0f; break;
        case RF_INIT_NORMAL: w[i] = (float)(e->scale * rf_rng_normal(&rng)); break;
        case RF_INIT_UNIFORM: w[i] = (float)(e->scale * (2.0 * rf_rng_uniform(&rng) - 1.0)); break;
        case RF_INIT_SINUSOIDAL: w[i] = sinusoid(e, i); break;
        }
    }
}

bool rf_params_allocate(rf_params *p, rf_status *st)
{
    if (p->value != NULL)
        return true;
    size_t bytes = (p->total ? p->total : 16) * sizeof(float);
    int blocks = p->values_only ? 1 : 4;
    p->value = block_alloc(p, bytes);
    if (!p->values_only) {
        p->grad = block_alloc(p, bytes);
        p->m = block_alloc(p, bytes);
        p->v = block_alloc(p, bytes);
    }
    if (!p->value || (!p->values_only && (!p->grad || !p->m || !p->v))) {
        free_blocks(p);
        return rf_fail(st, "out of memory allocating %zu parameter bytes", blocks * bytes);
    }
    for (int i = 0; i < p->count; i++)
        init_entry(p, &p->entries[i]);
    return true;
}

bool rf_params_allocated(const rf_params *p) { return p->value != NULL; }
size_t rf_params_bytes(const rf_params *p) { return p->total * sizeof(float); }

void rf_params_zero_grads(rf_params *p)
{
    if (p->grad == NULL)
        return;
    if (p->backend != NULL)
        p->backend->zero(p->grad, (int64_t)p->total);
    else
        memset(p->grad, 0, p->total * sizeof(float));
}
