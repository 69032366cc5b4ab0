/* Sum and mean over one axis or everything; masked mean over tokens. */
#include <string.h>

#include "../op.h"

/* A full reduction sums fixed blocks in parallel, then the block sums in
 * order: the blocks depend only on numel, so the result does not depend on
 * the thread count. */
#define FULL_BLOCKS 64

/* Items per task: about 16K floats of work each. */
static int64_t grain_for(int64_t work_per_item)
{
    int64_t g = 16384 / (work_per_item > 0 ? work_per_item : 1);
    return g > 0 ? g : 1;
}

typedef struct {
    const float *x, *dy;
    float *y, *dx;
    int64_t outer, A, inner;   /* x viewed as [outer, A, inner], y as [outer, inner] */
    float scale;               /* 1 for sum, 1/A for mean */
    double partial[FULL_BLOCKS];
    int64_t blocks;
} reduce_ctx;

static reduce_ctx make_ctx(rf_exec *x, rf_node *n, bool mean)
{
    rf_node *in = rf_in(x, n, 0);
    reduce_ctx c = {.x = in->value, .dx = in->grad, .y = n->value, .dy = n->grad};
    int axis = (int)n->ia[0];
    int64_t numel = rf_shape_numel(in->shape);
    if (axis < 0) {
        c.outer = 1;
        c.A = numel;
        c.inner = 1;
    } else {
        c.outer = c.inner = 1;
        c.A = in->shape.dim[axis];
        for (int i = 0; i < axis; i++)
            c.outer *= in->shape.dim[i];
        for (int i = axis + 1; i < in->shape.ndim; i++)
            c.inner *= in->shape.dim[i];
    }
    c.scale = mean ? 1.0f / (float)c.A : 1.0f;
    c.blocks = numel < FULL_BLOCKS ? numel : FULL_BLOCKS;
    return c;
}

static void full_block_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    reduce_ctx *c = ctx;
    for (int64_t b = begin; b < end; b++) {
        int64_t lo = c->A * b / c->blocks, hi = c->A * (b + 1) / c->blocks;
        double s = 0.0;
        for (int64_t e = lo; e < hi; e++)
            s += c->x[e];
        c->partial[b] = s;
    }
}

/* y[o] = scale * sum_a x[o, a] (inner == 1: contiguous rows) */
static void row_sum_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const reduce_ctx *c = ctx;
    for (int64_t o = begin; o < end; o++) {
        const float *xr = c->x + o * c->A;
        double s = 0.0;
        for (int64_t a = 0; a < c->A; a++)
            s += xr[a];
        c->y[o] = (float)s * c->scale;
    }
}

/* y[o, i] = scale * sum_a x[o, a, i] for flat output items [begin, end),
 * summed a-major so the inner loop runs over contiguous i */
static void strided_sum_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const reduce_ctx *c = ctx;
    int64_t inner = c->inner;
    for (int64_t o = begin / inner; o * inner < end; o++) {
        int64_t i0 = begin > o * inner ? begin - o * inner : 0;
        int64_t i1 = end < (o + 1) * inner ? end - o * inner : inner;
        float *y = c->y + o * inner;
        const float *xo = c->x + o * c->A * inner;
        for (int64_t i = i0; i < i1; i++)
            y[i] = 0.0f;
        for (int64_t a = 0; a < c->A; a++)
            for (int64_t i = i0; i < i1; i++)
                y[i] += xo[a * inner + i];
        for (int64_t i = i0; i < i1; i++)
            y[i] *= c->scale;
    }
}

static void reduce_forward(rf_exec *x, rf_node *n, bool mean)
{
    reduce_ctx c = make_ctx(x, n, mean);
    if (n->ia[0] < 0) {
        rf_pool_run(x->pool, c.blocks, grain_for(c.A / c.blocks), full_block_task, &c);
        double s = 0.0;
        for (int64_t b = 0; b < c.blocks; b++)
            s += c.partial[b];
        n->value[0] = (float)s * c.scale;
    } else if (c.inner == 1) {
        rf_pool_run(x->pool, c.outer, grain_for(c.A), row_sum_task, &c);
    } else {
        rf_pool_run(x->pool, c.outer * c.inner, grain_for(c.A), strided_sum_task, &c);
    }
}

/* dx[o, a, i] += scale * dy[o, i], one (o, a) row of `inner` floats per item */
static void reduce_bwd_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const reduce_ctx *c = ctx;
    int64_t inner = c->inner;
    for (int64_t r = begin; r < end; r++) {
        const float *dy = c->dy + (r / c->A) * inner;
        float *dx = c->dx + r * inner;
        for (int64_t i = 0; i < inner; i++)
            dx[i] += c->scale * dy[i];
    }
}

/* dx[e] += scale * dy (scalar output) */
static void full_bwd_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const reduce_ctx *c = ctx;
    float g = c->scale * c->dy[0];
    for (int64_t e = begin; e < end; e++)
        c->dx[e] += g;
}

static void reduce_backward(rf_exec *x, rf_node *n, bool mean)
{
    reduce_ctx c = make_ctx(x, n, mean);
    if (c.dx == NULL)
        return;
    if (n->ia[0] < 0)
        rf_pool_run(x->pool, c.A, grain_for(1), full_bwd_task, &c);
    else
        rf_pool_run(x->pool, c.outer * c.A, grain_for(c.inner), reduce_bwd_task, &c);
}

/* x [..., A, ...] -> y with axis A removed (or a scalar for axis -1) */
void rf_cpu_sum_forward(rf_exec *x, rf_node *n) { reduce_forward(x, n, false); }
void rf_cpu_sum_backward(rf_exec *x, rf_node *n) { reduce_backward(x, n, false); }
void rf_cpu_mean_forward(rf_exec *x, rf_node *n) { reduce_forward(x, n, true); }
void rf_cpu_mean_backward(rf_exec *x, rf_node *n) { reduce_backward(x, n, true); }

typedef struct {
    const float *x, *mask, *dy;
    float *y, *dx;
    float *w;                  /* aux [B, N]: 1/count for valid tokens, else 0 */
    int64_t B, N, D;
    bool fresh;                /* backward: dx written (=), not added to */
} masked_mean_ctx;

static masked_mean_ctx make_mm_ctx(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    masked_mean_ctx c = {.x = in->value, .dx = in->grad, .mask = rf_in(x, n, 1)->value,
                         .y = n->value, .dy = n->grad, .w = n->aux};
    c.B = in->shape.dim[0];
    c.N = in->shape.dim[1];
    c.D = in->shape.dim[2];
    return c;
}

/* w[b, n] = (mask[b, n] != 0) / (number of valid tokens in row b) */
static void mm_weights_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const masked_mean_ctx *c = ctx;
    for (int64_t b = begin; b < end; b++) {
        const float *m = c->mask + b * c->N;
        float *w = c->w + b * c->N;
        int64_t count = 0;
        for (int64_t t = 0; t < c->N; t++)
            count += m[t] != 0.0f;
        float inv = count > 0 ? 1.0f / (float)count : 0.0f;
        for (int64_t t = 0; t < c->N; t++)
            w[t] = m[t] != 0.0f ? inv : 0.0f;
    }
}

/* y[b, d] = sum_n w[b, n] x[b, n, d] for flat output items [begin, end) */
static void mm_sum_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const masked_mean_ctx *c = ctx;
    int64_t D = c->D;
    for (int64_t b = begin / D; b * D < end; b++) {
        int64_t d0 = begin > b * D ? begin - b * D : 0;
        int64_t d1 = end < (b + 1) * D ? end - b * D : D;
        float *y = c->y + b * D;
        const float *w = c->w + b * c->N;
        for (int64_t d = d0; d < d1; d++)
            y[d] = 0.0f;
        for (int64_t t = 0; t < c->N; t++) {
            if (w[t] == 0.0f)
                continue;
            const float *xr = c->x + (b * c->N + t) * D;
            for (int64_t d = d0; d < d1; d++)
                y[d] += w[t] * xr[d];
        }
    }
}

/* x [B, N, D], mask [B, N] -> y [B, D]; aux w [B, N] */
void rf_cpu_masked_mean_forward(rf_exec *x, rf_node *n)
{
    masked_mean_ctx c = make_mm_ctx(x, n);
    rf_pool_run(x->pool, c.B, grain_for(c.N), mm_weights_task, &c);
    rf_pool_run(x->pool, c.B * c.D, grain_for(c.N), mm_sum_task, &c);
}

/* dx[b, n, :] += w[b, n] * dy[b, :] (= when fresh, 0 at padding), one
 * (b, n) row per item */
static void mm_bwd_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const masked_mean_ctx *c = ctx;
    int64_t D = c->D;
    for (int64_t r = begin; r < end; r++) {
        float w = c->w[r];
        const float *dy = c->dy + (r / c->N) * D;
        float *dx = c->dx + r * D;
        if (c->fresh && w == 0.0f)
            memset(dx, 0, (size_t)D * sizeof *dx);
        else if (c->fresh)
            for (int64_t d = 0; d < D; d++)
                dx[d] = w * dy[d];
        else if (w != 0.0f)
            for (int64_t d = 0; d < D; d++)
                dx[d] += w * dy[d];
    }
}

void rf_cpu_masked_mean_backward(rf_exec *x, rf_node *n)
{
    masked_mean_ctx c = make_mm_ctx(x, n);
    if (c.dx == NULL)
        return;
    c.fresh = x->fresh[0];
    rf_pool_run(x->pool, c.B * c.N, grain_for(c.D), mm_bwd_task, &c);
}
