/* Softmax and log-softmax over the last axis, one row per task item. */
#include <math.h>
#include <string.h>

#include "../op.h"
#include "vecmath.h"

/* Rows per task: about 16K floats of work each. */
static int64_t row_grain(int64_t row_len)
{
    int64_t g = 16384 / (row_len > 0 ? row_len : 1);
    return g > 0 ? g : 1;
}

typedef struct {
    const float *x, *mask, *dy;
    float *y, *dx;
    int64_t M;                   /* row length (last dim of x) */
    int lead;                    /* number of leading (row) axes of x */
    int64_t dim[RF_MAX_DIMS];    /* x's leading dims */
    int64_t mstride[RF_MAX_DIMS];/* mask stride per leading axis (0: broadcast) */
    int64_t mstep;               /* mask stride along the last axis: 0 or 1 */
    bool fresh;                  /* backward: dx written (=), not added to */
} softmax_ctx;

/* Strides of a mask broadcast (right-aligned) onto x: 0 along every axis
 * where the mask has size 1 or no axis at all. */
static void mask_strides(softmax_ctx *c, rf_shape xs, rf_shape ms)
{
    int64_t stride = 1;
    for (int i = xs.ndim - 1; i >= 0; i--) {
        int mi = i - (xs.ndim - ms.ndim);
        int64_t md = mi >= 0 ? ms.dim[mi] : 1;
        int64_t s = md == 1 ? 0 : stride;
        stride *= md;
        if (i == xs.ndim - 1)
            c->mstep = s;
        else
            c->mstride[i] = s;
    }
}

static softmax_ctx make_ctx(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    softmax_ctx c = {.x = in->value, .y = n->value, .dy = n->grad, .dx = in->grad};
    c.M = n->shape.dim[n->shape.ndim - 1];
    c.lead = n->shape.ndim - 1;
    for (int i = 0; i < c.lead; i++)
        c.dim[i] = n->shape.dim[i];
    if (n->n_in > 1) {
        rf_node *m = rf_in(x, n, 1);
        c.mask = m->value;
        mask_strides(&c, n->shape, m->shape);
    }
    return c;
}

/* Offset of row r's mask entries. */
static int64_t mask_offset(const softmax_ctx *c, int64_t r)
{
    int64_t off = 0;
    for (int i = c->lead - 1; i >= 0; i--) {
        off += (r % c->dim[i]) * c->mstride[i];
        r /= c->dim[i];
    }
    return off;
}

/* y = softmax(x) over entries with m != 0 (all when m == NULL); zeros if none.
 * Masked entries become -inf in y, then one vectorised softmax in place. */
static void softmax_row(const float *restrict x, const float *restrict m, int64_t mstep, float *restrict y,
                        int64_t M)
{
    if (m == NULL || (mstep == 0 && m[0] != 0.0f)) {
        memcpy(y, x, (size_t)M * sizeof *y);
    } else if (mstep == 0) {
        memset(y, 0, (size_t)M * sizeof *y);
        return;
    } else {
        for (int64_t j = 0; j < M; j++) {
            float v = x[j];
            y[j] = m[j] != 0.0f ? v : -INFINITY;
        }
    }
    rf_softmax_row_inplace(y, M);
}

static void softmax_fwd_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const softmax_ctx *c = ctx;
    for (int64_t r = begin; r < end; r++) {
        const float *m = c->mask != NULL ? c->mask + mask_offset(c, r) : NULL;
        softmax_row(c->x + r * c->M, m, c->mstep, c->y + r * c->M, c->M);
    }
}

/* x [..., M], mask broadcastable to x or none -> y [..., M] */
void rf_cpu_softmax_forward(rf_exec *x, rf_node *n)
{
    softmax_ctx c = make_ctx(x, n);
    rf_pool_run(x->pool, rf_shape_numel(n->shape) / c.M, row_grain(c.M), softmax_fwd_task, &c);
}

/* dx = y * (dy - sum(y * dy)); masked entries have y = 0 and get nothing. */
static RF_VEC_CLONES void softmax_bwd_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const softmax_ctx *c = ctx;
    int64_t M = c->M;
    for (int64_t r = begin; r < end; r++) {
        const float *restrict y = c->y + r * M, *restrict dy = c->dy + r * M;
        float *restrict dx = c->dx + r * M;
        float dot = rf_dot(y, dy, M);
        if (c->fresh)
            for (int64_t j = 0; j < M; j++)
                dx[j] = y[j] * (dy[j] - dot);
        else
            for (int64_t j = 0; j < M; j++)
                dx[j] += y[j] * (dy[j] - dot);
    }
}

void rf_cpu_softmax_backward(rf_exec *x, rf_node *n)
{
    softmax_ctx c = make_ctx(x, n);
    if (c.dx == NULL)
        return;
    c.fresh = x->fresh[0];
    rf_pool_run(x->pool, rf_shape_numel(n->shape) / c.M, row_grain(c.M), softmax_bwd_task, &c);
}

/* y = (x - max) - log(sum(exp(x - max))) */
static RF_VEC_CLONES void log_softmax_fwd_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const softmax_ctx *c = ctx;
    int64_t M = c->M;
    for (int64_t r = begin; r < end; r++) {
        const float *restrict xr = c->x + r * M;
        float *restrict y = c->y + r * M;
        float mx = rf_row_max(xr, M);
        float lanes[16] = {0}, sum = 0.0f;
        int64_t j = 0;
        for (; j + 16 <= M; j += 16)
            for (int l = 0; l < 16; l++)
                lanes[l] += rf_expf(xr[j + l] - mx);
        for (; j < M; j++)
            sum += rf_expf(xr[j] - mx);
        for (int l = 0; l < 16; l++)
            sum += lanes[l];
        /* (x - max) first: exact near the max even for large logits */
        float log_sum = logf(sum);
        for (j = 0; j < M; j++)
            y[j] = (xr[j] - mx) - log_sum;
    }
}

/* x [..., M] -> y [..., M] */
void rf_cpu_log_softmax_forward(rf_exec *x, rf_node *n)
{
    softmax_ctx c = make_ctx(x, n);
    rf_pool_run(x->pool, rf_shape_numel(n->shape) / c.M, row_grain(c.M), log_softmax_fwd_task, &c);
}

/* dx = dy - exp(y) * sum(dy) */
static RF_VEC_CLONES void log_softmax_bwd_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const softmax_ctx *c = ctx;
    int64_t M = c->M;
    for (int64_t r = begin; r < end; r++) {
        const float *restrict y = c->y + r * M, *restrict dy = c->dy + r * M;
        float *restrict dx = c->dx + r * M;
        float sum = rf_vsum(dy, M);
        for (int64_t j = 0; j < M; j++)
            dx[j] += dy[j] - rf_expf(y[j]) * sum;
    }
}

void rf_cpu_log_softmax_backward(rf_exec *x, rf_node *n)
{
    softmax_ctx c = make_ctx(x, n);
    if (c.dx == NULL)
        return;
    rf_pool_run(x->pool, rf_shape_numel(n->shape) / c.M, row_grain(c.M), log_softmax_bwd_task, &c);
}
