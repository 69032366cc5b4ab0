/* CPU kernels for the element-wise ops.
 *
 * Broadcasting works on a collapsed view: size-1 output dims are dropped and
 * neighbouring dims merge while every operand broadcasts them alike, so
 * [B, N, D] + [D] becomes [B*N, D] with b's strides (0, 1), and equal shapes
 * become one flat run. Gradients of a broadcast operand are reduced by tasks
 * that each own a disjoint part of the operand and sum in a fixed order, so
 * results do not depend on the thread count.
 */
#include <math.h>
#include <string.h>

#include "../op.h"
#include "bf16_out.h"
#include "vecmath.h"

#define GRAIN 16384        /* floats worth one task */
#define COL_BLOCK 64       /* columns summed together in a reduction */

enum { OP_ADD, OP_SUB, OP_MUL, OP_MUL_ACC };

/* ---- broadcasting view ---- */

typedef struct {
    int nd;                          /* collapsed dims, 1..4 */
    int64_t dim[RF_MAX_DIMS];
    int64_t st[2][RF_MAX_DIMS];      /* operand element strides; 0 where broadcast */
} bcast;

/* The view of out = f(in[0], in[1]) (n_in = 1 or 2), operands right-aligned. */
static bcast bcast_make(rf_shape out, const rf_shape *in, int n_in)
{
    int64_t dim[RF_MAX_DIMS], st[2][RF_MAX_DIMS] = {{0}}, stride[2] = {1, 1};
    int cnt = 0;
    for (int i = out.ndim - 1; i >= 0; i--) {    /* innermost first */
        int64_t d = out.dim[i], s[2] = {0, 0};
        if (d == 1)
            continue;
        for (int k = 0; k < n_in; k++) {
            int j = i - (out.ndim - in[k].ndim);
            int64_t dk = j >= 0 ? in[k].dim[j] : 1;
            s[k] = dk == 1 ? 0 : stride[k];
            stride[k] *= dk;
        }
        bool alike = cnt > 0;
        for (int k = 0; k < n_in && alike; k++)
            alike = (s[k] == 0) == (st[k][cnt - 1] == 0);
        if (alike) {
            dim[cnt - 1] *= d;   /* strides stay those of the inner dim */
        } else {
            dim[cnt] = d;
            for (int k = 0; k < n_in; k++)
                st[k][cnt] = s[k];
            cnt++;
        }
    }
    bcast bc = {.nd = cnt > 0 ? cnt : 1, .dim = {1, 1, 1, 1}};
    for (int c = 0; c < cnt; c++) {
        bc.dim[cnt - 1 - c] = dim[c];
        for (int k = 0; k < n_in; k++)
            bc.st[k][cnt - 1 - c] = st[k][c];
    }
    return bc;
}

/* Offsets of row r (a row = one run of the innermost dim) in each operand. */
static void row_offsets(const bcast *bc, int64_t r, int64_t off[2])
{
    off[0] = off[1] = 0;
    for (int d = bc->nd - 2; d >= 0; d--) {
        int64_t i = r % bc->dim[d];
        r /= bc->dim[d];
        off[0] += i * bc->st[0][d];
        off[1] += i * bc->st[1][d];
    }
}

/* ---- binary forward: out = a op b over the broadcast view ---- */

/* One run of n outputs; sa, sb are 0 or 1. Each case is its own loop so the
 * compiler sees unit strides or a hoisted scalar. */
#define SPAN_LOOPS(EXPR)                                                                                 \
    do {                                                                                                 \
        if (sa && sb) {                                                                                  \
            for (int64_t i = 0; i < n; i++) {                                                            \
                float x = a[i], y = b[i];                                                                \
                EXPR;                                                                                    \
            }                                                                                            \
        } else if (sa) {                                                                                 \
            float y = b[0];                                                                              \
            for (int64_t i = 0; i < n; i++) {                                                            \
                float x = a[i];                                                                          \
                EXPR;                                                                                    \
            }                                                                                            \
        } else if (sb) {                                                                                 \
            float x = a[0];                                                                              \
            for (int64_t i = 0; i < n; i++) {                                                            \
                float y = b[i];                                                                          \
                EXPR;                                                                                    \
            }                                                                                            \
        } else {                                                                                         \
            float x = a[0], y = b[0];                                                                    \
            for (int64_t i = 0; i < n; i++)                                                              \
                EXPR;                                                                                    \
        }                                                                                                \
    } while (0)

static void span(int op, const float *a, int64_t sa, const float *b, int64_t sb, float *o, int64_t n)
{
    switch (op) {
    case OP_ADD: SPAN_LOOPS(o[i] = x + y); break;
    case OP_SUB: SPAN_LOOPS(o[i] = x - y); break;
    case OP_MUL: SPAN_LOOPS(o[i] = x * y); break;
    default: SPAN_LOOPS(o[i] += x * y); break;
    }
}

typedef struct {
    bcast bc;
    int op;
    const float *a, *b;
    float *out;
} binary_ctx;

/* Items are output elements; a task's range may start and end mid-row. */
static void binary_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const binary_ctx *c = ctx;
    int last = c->bc.nd - 1;
    int64_t inner = c->bc.dim[last], sa = c->bc.st[0][last], sb = c->bc.st[1][last];
    for (int64_t p = begin; p < end;) {
        int64_t j = p % inner, len = inner - j < end - p ? inner - j : end - p, off[2];
        row_offsets(&c->bc, p / inner, off);
        span(c->op, c->a + off[0] + j * sa, sa, c->b + off[1] + j * sb, sb, c->out + p, len);
        p += len;
    }
}

/* out [shape] (= or += for OP_MUL_ACC) a [sa] op b [sb], broadcast to shape */
static void binary_run(rf_exec *x, int op, rf_shape shape, const float *a, rf_shape sa, const float *b,
                       rf_shape sb, float *out)
{
    rf_shape in[2] = {sa, sb};
    binary_ctx c = {bcast_make(shape, in, 2), op, a, b, out};
    rf_pool_run(x->pool, rf_shape_numel(shape), GRAIN, binary_task, &c);
}

/* ---- reduction of a gradient onto a broadcast operand ---- */

/* A set of collapsed dims: their sizes and strides in the output. */
typedef struct {
    int n;
    int64_t size[RF_MAX_DIMS], ostride[RF_MAX_DIMS];
    int64_t count;
} dim_group;

static int64_t group_offset(const dim_group *gr, int64_t i)
{
    int64_t off = 0;
    for (int d = gr->n - 1; d >= 0; d--) {
        off += (i % gr->size[d]) * gr->ostride[d];
        i /= gr->size[d];
    }
    return off;
}

typedef struct {
    float *dx;
    const float *t;
    float sign;
    bool fresh;              /* dx not written yet: write, do not add (same shape only) */
    dim_group kept, red;     /* the operand's dims and the summed dims, both without the innermost */
    int64_t inner;           /* innermost dim, contiguous in t */
    int64_t blocks;          /* column blocks of the innermost dim (kept innermost only) */
} reduce_ctx;

/* Innermost dim kept: item = (operand row, column block); sum the block over
 * every combination of summed dims. */
static void reduce_cols_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const reduce_ctx *c = ctx;
    for (int64_t item = begin; item < end; item++) {
        int64_t row = item / c->blocks, j0 = (item % c->blocks) * COL_BLOCK;
        int64_t w = c->inner - j0 < COL_BLOCK ? c->inner - j0 : COL_BLOCK;
        const float *base = c->t + group_offset(&c->kept, row) + j0;
        double acc[COL_BLOCK] = {0};
        for (int64_t r = 0; r < c->red.count; r++) {
            const float *src = base + group_offset(&c->red, r);
            for (int64_t j = 0; j < w; j++)
                acc[j] += src[j];
        }
        float *dst = c->dx + row * c->inner + j0;
        for (int64_t j = 0; j < w; j++)
            dst[j] += c->sign * (float)acc[j];
    }
}

/* Innermost dim summed: item = one operand element; sum contiguous runs. */
static void reduce_rows_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const reduce_ctx *c = ctx;
    for (int64_t e = begin; e < end; e++) {
        const float *base = c->t + group_offset(&c->kept, e);
        double acc = 0;
        for (int64_t r = 0; r < c->red.count; r++) {
            const float *src = base + group_offset(&c->red, r);
            for (int64_t j = 0; j < c->inner; j++)
                acc += src[j];
        }
        c->dx[e] += c->sign * (float)acc;
    }
}

static void add_scaled_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const reduce_ctx *c = ctx;
    if (c->fresh)
        for (int64_t i = begin; i < end; i++)
            c->dx[i] = c->sign * c->t[i];
    else
        for (int64_t i = begin; i < end; i++)
            c->dx[i] += c->sign * c->t[i];
}

/* dx [xs] += sign * t [shape] summed over the dims where xs is broadcast;
 * with `fresh`, dx holds nothing yet: written, not added to. */
static void reduce_into(rf_exec *x, float *dx, const float *t, rf_shape shape, rf_shape xs, float sign, bool fresh)
{
    bcast bc = bcast_make(shape, &xs, 1);
    int last = bc.nd - 1;
    reduce_ctx c = {.dx = dx, .t = t, .sign = sign, .fresh = fresh, .inner = bc.dim[last]};
    c.kept.count = c.red.count = 1;
    int64_t ostride = bc.dim[last];
    for (int d = last - 1; d >= 0; d--)
        ostride *= bc.dim[d];
    for (int d = 0; d < last; d++) {
        ostride /= bc.dim[d];
        dim_group *gr = bc.st[0][d] != 0 ? &c.kept : &c.red;
        gr->size[gr->n] = bc.dim[d];
        gr->ostride[gr->n++] = ostride;
        gr->count *= bc.dim[d];
    }
    bool inner_kept = bc.st[0][last] != 0 || bc.dim[last] == 1;
    if (fresh && !(inner_kept && c.red.count == 1)) {   /* the reductions add: start them from 0 */
        memset(dx, 0, (size_t)rf_shape_numel(xs) * sizeof *dx);
        c.fresh = false;
    }
    if (inner_kept && c.red.count == 1) {
        rf_pool_run(x->pool, rf_shape_numel(shape), GRAIN, add_scaled_task, &c);
    } else if (inner_kept) {
        c.blocks = (c.inner + COL_BLOCK - 1) / COL_BLOCK;
        rf_pool_run(x->pool, c.kept.count * c.blocks, GRAIN / (c.red.count * COL_BLOCK) + 1, reduce_cols_task,
                    &c);
    } else {
        rf_pool_run(x->pool, c.kept.count, GRAIN / (c.red.count * c.inner) + 1, reduce_rows_task, &c);
    }
}

/* ---- add, sub, mul ---- */

static void binary_forward(rf_exec *x, rf_node *n, int op)
{
    rf_node *a = rf_in(x, n, 0), *b = rf_in(x, n, 1);
    binary_run(x, op, n->shape, a->value, a->shape, b->value, b->shape, n->value);
}

/* a [...], b [...] broadcast -> out [...] */
void rf_cpu_add_forward(rf_exec *x, rf_node *n) { binary_forward(x, n, OP_ADD); }
void rf_cpu_sub_forward(rf_exec *x, rf_node *n) { binary_forward(x, n, OP_SUB); }
void rf_cpu_mul_forward(rf_exec *x, rf_node *n) { binary_forward(x, n, OP_MUL); }

/* da += g, db += ±g, each summed over its broadcast dims (= when fresh) */
static void add_sub_backward(rf_exec *x, rf_node *n, float b_sign)
{
    for (int k = 0; k < 2; k++) {
        rf_node *in = rf_in(x, n, k);
        if (in->grad != NULL)
            reduce_into(x, in->grad, n->grad, n->shape, in->shape, k == 0 ? 1.0f : b_sign, x->fresh[k]);
    }
}

void rf_cpu_add_backward(rf_exec *x, rf_node *n) { add_sub_backward(x, n, 1.0f); }
void rf_cpu_sub_backward(rf_exec *x, rf_node *n) { add_sub_backward(x, n, -1.0f); }

/* da += g * b, db += g * a; a broadcast operand forms the product at the
 * output's shape in scratch and sums it down. */
void rf_cpu_mul_backward(rf_exec *x, rf_node *n)
{
    for (int k = 0; k < 2; k++) {
        rf_node *in = rf_in(x, n, k), *other = rf_in(x, n, 1 - k);
        if (in->grad == NULL)
            continue;
        if (rf_shape_equal(in->shape, n->shape)) {
            binary_run(x, OP_MUL_ACC, n->shape, n->grad, n->shape, other->value, other->shape, in->grad);
        } else {
            binary_run(x, OP_MUL, n->shape, n->grad, n->shape, other->value, other->shape, x->scratch);
            reduce_into(x, in->grad, x->scratch, n->shape, in->shape, 1.0f, false);
        }
    }
}

/* ---- scale ---- */

typedef struct {
    const float *src;
    float *dst;
    float s;
    bool acc;
} scale_ctx;

static void scale_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const scale_ctx *c = ctx;
    if (c->acc)
        for (int64_t i = begin; i < end; i++)
            c->dst[i] += c->s * c->src[i];
    else
        for (int64_t i = begin; i < end; i++)
            c->dst[i] = c->s * c->src[i];
}

/* x [...] -> out [...] = s * x */
void rf_cpu_scale_forward(rf_exec *x, rf_node *n)
{
    scale_ctx c = {rf_in(x, n, 0)->value, n->value, n->fa[0], false};
    rf_pool_run(x->pool, rf_shape_numel(n->shape), GRAIN, scale_task, &c);
}

void rf_cpu_scale_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad == NULL)
        return;
    scale_ctx c = {n->grad, in->grad, n->fa[0], true};
    rf_pool_run(x->pool, rf_shape_numel(n->shape), GRAIN, scale_task, &c);
}

/* ---- unary activations ----
 *
 * One loop per kind, each branch-free where it matters: GELU (every encoder's
 * MLP) and sigmoid use rf_erff / rf_expf, so their loops vectorise; the task
 * functions are compiled for AVX-512 / AVX2 / baseline (vecmath.h). ELU and
 * softplus keep libm's expm1f / log1pf. */

#define INV_SQRT2 0.70710678118654752440f
#define INV_SQRT2PI 0.39894228040143267794f

/* sigmoid from e = e^-|v|: 1 / (1 + e) for v >= 0, e / (1 + e) below; both
 * formed and one selected (vectorisable, never overflows) */
RF_VEC_INLINE float sigmoid_fast(float v)
{
    float e = rf_expf(-fabsf(v));
    float r = 1.0f / (1.0f + e);
    return rf_select(v >= 0.0f, r, e * r);
}

RF_VEC_INLINE float gelu(float v)
{
    float cdf = 1.0f + rf_erff(v * INV_SQRT2);
    return 0.5f * v * cdf;
}

/* d gelu / dv = Phi(v) + v phi(v) */
RF_VEC_INLINE float gelu_derivative(float v)
{
    float cdf = 0.5f * (1.0f + rf_erff(v * INV_SQRT2));
    float pdf = INV_SQRT2PI * rf_expf(-0.5f * v * v);
    return cdf + v * pdf;
}

/* GELU over blocks of GELU_BLOCK elements, the last one padded: every
 * element takes the same instructions wherever a task's range starts or
 * ends, so the result does not depend on how a pool cuts the range,
 * although the spans below let their multiplies and adds fuse into FMAs
 * (GELU's erf and exponential are polynomials, and fused they take about
 * a third less time, Zen 4). The clone for AVX-512, which has FMA, and
 * those for AVX2 and the baseline, which do not, differ in the last bits
 * (vecmath.h). */
#define GELU_BLOCK 16

RF_VEC_INLINE void gelu_block(const float *restrict x, float *restrict out)
{
    for (int l = 0; l < GELU_BLOCK; l++)
        out[l] = gelu(x[l]);
}

/* dx = g gelu'(x), or dx += it (acc) */
RF_VEC_INLINE void gelu_grad_block(const float *restrict x, const float *restrict g, float *restrict dx, bool acc)
{
    if (acc)
        for (int l = 0; l < GELU_BLOCK; l++)
            dx[l] += g[l] * gelu_derivative(x[l]);
    else
        for (int l = 0; l < GELU_BLOCK; l++)
            dx[l] = g[l] * gelu_derivative(x[l]);
}

static RF_VEC_CLONES RF_VEC_FUSED void gelu_span(const float *restrict x, float *restrict out, int64_t n)
{
    int64_t i = 0;
    for (; i + GELU_BLOCK <= n; i += GELU_BLOCK)
        gelu_block(x + i, out + i);
    if (i < n) {
        float xb[GELU_BLOCK] = {0}, ob[GELU_BLOCK];
        memcpy(xb, x + i, (size_t)(n - i) * sizeof *xb);
        gelu_block(xb, ob);
        memcpy(out + i, ob, (size_t)(n - i) * sizeof *ob);
    }
}

static RF_VEC_CLONES RF_VEC_FUSED void gelu_grad_span(const float *restrict x, const float *restrict g,
                                                      float *restrict dx, int64_t n, bool acc)
{
    int64_t i = 0;
    for (; i + GELU_BLOCK <= n; i += GELU_BLOCK)
        gelu_grad_block(x + i, g + i, dx + i, acc);
    if (i < n) {
        float xb[GELU_BLOCK] = {0}, gb[GELU_BLOCK] = {0}, db[GELU_BLOCK] = {0};
        memcpy(xb, x + i, (size_t)(n - i) * sizeof *xb);
        memcpy(gb, g + i, (size_t)(n - i) * sizeof *gb);
        memcpy(db, dx + i, (size_t)(n - i) * sizeof *db);
        gelu_grad_block(xb, gb, db, acc);
        memcpy(dx + i, db, (size_t)(n - i) * sizeof *db);
    }
}

typedef struct {
    int kind;
    const float *x, *g;
    float *out;     /* forward: the output; backward: dx */
    bool fresh;     /* backward: dx not written yet, so written, not added to */
    uint16_t *out16;   /* forward into a bf16 value: the output instead of out */
} unary_ctx;

/* out[i] = f(x[i]) for i < n */
RF_VEC_INLINE void unary_span(int kind, const float *restrict x, float *restrict out, int64_t n)
{
    switch (kind) {
    case RF_UNARY_GELU:
        gelu_span(x, out, n);
        break;
    case RF_UNARY_RELU:
        for (int64_t i = 0; i < n; i++)
            out[i] = x[i] > 0.0f ? x[i] : 0.0f;
        break;
    case RF_UNARY_ELU:
        for (int64_t i = 0; i < n; i++)
            out[i] = x[i] > 0.0f ? x[i] : expm1f(x[i]);
        break;
    case RF_UNARY_SOFTPLUS:
        for (int64_t i = 0; i < n; i++)
            out[i] = fmaxf(x[i], 0.0f) + log1pf(expf(-fabsf(x[i])));
        break;
    default:
        for (int64_t i = 0; i < n; i++)
            out[i] = sigmoid_fast(x[i]);
        break;
    }
}

static RF_VEC_CLONES void unary_forward_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const unary_ctx *c = ctx;
    if (c->out16 == NULL) {
        unary_span(c->kind, c->x + begin, c->out + begin, end - begin);
        return;
    }
    for (int64_t at = begin; at < end; at += RF_BF16_CHUNK) {
        float chunk[RF_BF16_CHUNK];
        int64_t len = rf_bf16_chunk(at, end);
        unary_span(c->kind, c->x + at, chunk, len);
        rf_bf16_round(chunk, c->out16 + at, (size_t)len);
    }
}

RF_VEC_INLINE float sigmoid_derivative(float v)
{
    float s = sigmoid_fast(v);
    return s * (1.0f - s);
}

/* dx[i] += expr over the task's range, or dx[i] = expr when dx is fresh */
#define UNARY_GRAD(expr)                         \
    do {                                         \
        if (c->fresh)                            \
            for (int64_t i = 0; i < n; i++)      \
                dx[i] = (expr);                  \
        else                                     \
            for (int64_t i = 0; i < n; i++)      \
                dx[i] += (expr);                 \
    } while (0)

/* dx += g * f'(x) */
static RF_VEC_CLONES void unary_backward_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const unary_ctx *c = ctx;
    const float *restrict x = c->x + begin, *restrict g = c->g + begin;
    float *restrict dx = c->out + begin;
    int64_t n = end - begin;
    switch (c->kind) {
    case RF_UNARY_GELU: gelu_grad_span(x, g, dx, n, !c->fresh); break;
    case RF_UNARY_RELU: UNARY_GRAD(x[i] > 0.0f ? g[i] : 0.0f); break;
    case RF_UNARY_ELU: UNARY_GRAD(g[i] * (x[i] > 0.0f ? 1.0f : expf(x[i]))); break;
    case RF_UNARY_SOFTPLUS: UNARY_GRAD(g[i] * sigmoid_fast(x[i])); break;
    default: UNARY_GRAD(g[i] * sigmoid_derivative(x[i])); break;
    }
}
#undef UNARY_GRAD

/* ---- GLU: out = a * sigmoid(b), [a | b] the halves of each row ---- */

typedef struct {
    const float *x, *g;
    float *out;        /* forward: the output; backward: dx */
    int64_t half;      /* d: the output's row */
    uint16_t *out16;   /* forward into a bf16 value: the output instead of out */
    bool fresh;        /* backward: dx written (=), not added to */
} glu_ctx;

/* rows [begin, end) */
static RF_VEC_CLONES void glu_forward_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const glu_ctx *c = ctx;
    int64_t d = c->half;
    for (int64_t r = begin; r < end; r++) {
        const float *restrict a = c->x + r * 2 * d, *restrict b = a + d;
        if (c->out16 == NULL) {
            float *restrict out = c->out + r * d;
            for (int64_t i = 0; i < d; i++)
                out[i] = a[i] * sigmoid_fast(b[i]);
            continue;
        }
        for (int64_t at = 0; at < d; at += RF_BF16_CHUNK) {
            float chunk[RF_BF16_CHUNK];
            int64_t len = rf_bf16_chunk(at, d);
            for (int64_t i = 0; i < len; i++)
                chunk[i] = a[at + i] * sigmoid_fast(b[at + i]);
            rf_bf16_round(chunk, c->out16 + r * d + at, (size_t)len);
        }
    }
}

/* da += g s, db += (g a) s (1 - s) (= when fresh): the products in the
 * order the unfused mul and sigmoid formed them, so the two give the same
 * bits */
static RF_VEC_CLONES void glu_backward_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const glu_ctx *c = ctx;
    int64_t d = c->half;
    for (int64_t r = begin; r < end; r++) {
        const float *restrict a = c->x + r * 2 * d, *restrict b = a + d, *restrict g = c->g + r * d;
        float *restrict da = c->out + r * 2 * d, *restrict db = da + d;
        if (c->fresh)
            for (int64_t i = 0; i < d; i++) {
                da[i] = g[i] * sigmoid_fast(b[i]);
                db[i] = (g[i] * a[i]) * sigmoid_derivative(b[i]);
            }
        else
            for (int64_t i = 0; i < d; i++) {
                da[i] += g[i] * sigmoid_fast(b[i]);
                db[i] += (g[i] * a[i]) * sigmoid_derivative(b[i]);
            }
    }
}

void rf_cpu_glu_forward(rf_exec *x, rf_node *n)
{
    int64_t d = n->shape.dim[n->shape.ndim - 1], rows = d > 0 ? rf_shape_numel(n->shape) / d : 0;
    glu_ctx c = {rf_in(x, n, 0)->value, NULL, n->value, d, n->dtype == RF_BF16 ? rf_value16(n) : NULL, false};
    rf_pool_run(x->pool, rows, GRAIN / 4 / (d > 0 ? d : 1) + 1, glu_forward_task, &c);
}

void rf_cpu_glu_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad == NULL)
        return;
    int64_t d = n->shape.dim[n->shape.ndim - 1], rows = d > 0 ? rf_shape_numel(n->shape) / d : 0;
    glu_ctx c = {in->value, n->grad, in->grad, d, NULL, x->fresh[0]};
    rf_pool_run(x->pool, rows, GRAIN / 4 / (d > 0 ? d : 1) + 1, glu_backward_task, &c);
}

/* x [...] -> out [...] = f(x); transcendental, so smaller tasks than plain copies */
void rf_cpu_unary_forward(rf_exec *x, rf_node *n)
{
    unary_ctx c = {(int)n->ia[0], rf_in(x, n, 0)->value, NULL, n->value, false,
                   n->dtype == RF_BF16 ? rf_value16(n) : NULL};
    rf_pool_run(x->pool, rf_shape_numel(n->shape), GRAIN / 4, unary_forward_task, &c);
}

void rf_cpu_unary_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad == NULL)
        return;
    unary_ctx c = {(int)n->ia[0], in->value, n->grad, in->grad, x->fresh[0], NULL};
    rf_pool_run(x->pool, rf_shape_numel(n->shape), GRAIN / 4, unary_backward_task, &c);
}
