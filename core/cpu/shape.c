/* CPU kernels for the shape ops. Concat, slice and pad view every tensor as
 * [outer, axis * inner] rows and move whole row pieces; permute gathers
 * through the input's strides. Backward kernels route the gradient back the
 * same way, adding. */
#include <string.h>

#include "../op.h"
#include "bf16_out.h"

#define GRAIN 16384   /* floats worth one task */

/* ---- row copies: dst[o, 0:width] (= or +=) src[o, 0:width] for o < outer ---- */

typedef struct {
    float *dst;
    const float *src;
    int64_t dst_row, src_row, width;
    bool acc;
    float value;   /* fill_rows only */
} rows_ctx;

/* Items are elements of the [outer, width] block; a task may start mid-row. */
static void copy_rows_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const rows_ctx *c = ctx;
    for (int64_t p = begin; p < end;) {
        int64_t o = p / c->width, j = p % c->width;
        int64_t len = c->width - j < end - p ? c->width - j : end - p;
        float *dst = c->dst + o * c->dst_row + j;
        const float *src = c->src + o * c->src_row + j;
        if (c->acc)
            for (int64_t i = 0; i < len; i++)
                dst[i] += src[i];
        else
            memcpy(dst, src, (size_t)len * sizeof *dst);
        p += len;
    }
}

static void copy_rows(rf_exec *x, float *dst, int64_t dst_row, const float *src, int64_t src_row, int64_t outer,
                      int64_t width, bool acc)
{
    rows_ctx c = {dst, src, dst_row, src_row, width, acc, 0.0f};
    rf_pool_run(x->pool, outer * width, GRAIN, copy_rows_task, &c);
}

static void fill_rows_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const rows_ctx *c = ctx;
    for (int64_t p = begin; p < end; p++)
        c->dst[p / c->width * c->dst_row + p % c->width] = c->value;
}

static void fill_rows(rf_exec *x, float *dst, int64_t dst_row, int64_t outer, int64_t width, float value)
{
    rows_ctx c = {dst, NULL, dst_row, 0, width, false, value};
    rf_pool_run(x->pool, outer * width, GRAIN, fill_rows_task, &c);
}

/* Product of dims before / after `axis`. */
static int64_t outer_of(rf_shape s, int axis)
{
    int64_t n = 1;
    for (int i = 0; i < axis; i++)
        n *= s.dim[i];
    return n;
}

static int64_t inner_of(rf_shape s, int axis)
{
    int64_t n = 1;
    for (int i = axis + 1; i < s.ndim; i++)
        n *= s.dim[i];
    return n;
}

/* ---- into a bf16 value (core/bf16_storage.h) ---- */

/* Elements [begin, end) of a bf16 value: copied from a bf16 source, rounded
 * from an f32 one. */
typedef struct {
    const float *src;
    const uint16_t *src16;   /* the source when it is bf16 */
    uint16_t *dst;
} store16_ctx;

static void store16_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const store16_ctx *c = ctx;
    if (c->src16 != NULL)
        memcpy(c->dst + begin, c->src16 + begin, (size_t)(end - begin) * sizeof *c->dst);
    else
        rf_bf16_round(c->src + begin, c->dst + begin, (size_t)(end - begin));
}

/* ---- reshape ---- */

/* x [...] -> out [new shape], same elements in the same order */
void rf_cpu_reshape_forward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    int64_t numel = rf_shape_numel(n->shape);
    if (n->dtype == RF_BF16) {
        store16_ctx c = {in->value, in->dtype == RF_BF16 ? rf_value16(in) : NULL, rf_value16(n)};
        rf_pool_run(x->pool, numel, GRAIN, store16_task, &c);
        return;
    }
    copy_rows(x, n->value, numel, in->value, numel, 1, numel, false);
}

void rf_cpu_reshape_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    int64_t numel = rf_shape_numel(n->shape);
    if (in->grad != NULL)
        copy_rows(x, in->grad, numel, n->grad, numel, 1, numel, !x->fresh[0]);
}

/* ---- permute ---- */

typedef struct {
    int64_t dim[RF_MAX_DIMS];      /* destination dims, left-padded with 1s to 4 */
    int64_t stride[RF_MAX_DIMS];   /* source stride of each destination axis */
    const float *src;
    float *dst;
    bool acc;
} gather_ctx;

/* dst[d] (= or +=) src[off(d)], walking the destination contiguously in runs
 * of its innermost axis. Both directions gather: forward out <- x through the
 * permutation, backward dx <- g through its inverse, so writes stay
 * sequential and no two tasks touch the same element. The position is
 * decomposed once per task and then carried from row to row; short unit-
 * stride runs (a head's dk floats) are plain loops, not memcpy calls. */
static void gather_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const gather_ctx *c = ctx;
    int64_t inner = c->dim[3], s = c->stride[3];
    int64_t r = begin / inner, j = begin % inner, idx[3], off = 0;
    for (int d = 2; d >= 0; d--) {
        idx[d] = r % c->dim[d];
        off += idx[d] * c->stride[d];
        r /= c->dim[d];
    }
    for (int64_t p = begin; p < end;) {
        int64_t len = inner - j < end - p ? inner - j : end - p;
        float *restrict dst = c->dst + p;
        const float *restrict src = c->src + off + j * s;
        if (c->acc && s == 1) {   /* innermost axis kept: whole rows */
            for (int64_t i = 0; i < len; i++)
                dst[i] += src[i];
        } else if (c->acc) {
            for (int64_t i = 0; i < len; i++)
                dst[i] += src[i * s];
        } else if (s == 1) {
            if (len >= 64)
                memcpy(dst, src, (size_t)len * sizeof *dst);
            else
                for (int64_t i = 0; i < len; i++)
                    dst[i] = src[i];
        } else {
            for (int64_t i = 0; i < len; i++)
                dst[i] = src[i * s];
        }
        p += len;
        j = 0;
        /* next row: carry through the outer axes */
        for (int d = 2; d >= 0; d--) {
            off += c->stride[d];
            if (++idx[d] < c->dim[d])
                break;
            off -= idx[d] * c->stride[d];
            idx[d] = 0;
        }
    }
}

/* The swap of the last two axes (destination axis 2 is the source's
 * innermost; the destination's innermost is strided in the source): a
 * batch of 2-D transposes, done in TILE x TILE tiles so the source lines a
 * tile reads stay in L1 while the tile's rows are written, and inside a tile
 * in 4 x 4 blocks transposed in registers (GCC vector extensions: shuffles
 * on any target). Items are (outer index, block of TILE destination rows);
 * every element is written by one item, so the result (a copy, or one add
 * per element) does not depend on the thread count. */
#define TILE 16

typedef float v4sf __attribute__((vector_size(16)));
typedef int v4si __attribute__((vector_size(16)));
/* Lanes i, j, k, l of the eight in (a, b): GCC's builtin, or clang's (the
 * fuzz build, tests/fuzz). */
#if defined(__clang__)
#define SHUFFLE(a, b, i, j, k, l) __builtin_shufflevector(a, b, i, j, k, l)
#else
#define SHUFFLE(a, b, i, j, k, l) __builtin_shuffle(a, b, (v4si){i, j, k, l})
#endif

/* d[r * ld_d + c] (= or +=) s[c * ld_s + r] for r, c < 4 */
static inline void transpose4(float *d, int64_t ld_d, const float *s, int64_t ld_s, bool acc)
{
    v4sf r0, r1, r2, r3;
    memcpy(&r0, s, sizeof r0);
    memcpy(&r1, s + ld_s, sizeof r1);
    memcpy(&r2, s + 2 * ld_s, sizeof r2);
    memcpy(&r3, s + 3 * ld_s, sizeof r3);
    v4sf t0 = SHUFFLE(r0, r1, 0, 4, 1, 5), t1 = SHUFFLE(r0, r1, 2, 6, 3, 7);
    v4sf t2 = SHUFFLE(r2, r3, 0, 4, 1, 5), t3 = SHUFFLE(r2, r3, 2, 6, 3, 7);
    v4sf c[4] = {SHUFFLE(t0, t2, 0, 1, 4, 5), SHUFFLE(t0, t2, 2, 3, 6, 7),
                 SHUFFLE(t1, t3, 0, 1, 4, 5), SHUFFLE(t1, t3, 2, 3, 6, 7)};
    for (int r = 0; r < 4; r++) {
        if (acc) {
            v4sf o;
            memcpy(&o, d + r * ld_d, sizeof o);
            c[r] += o;
        }
        memcpy(d + r * ld_d, &c[r], sizeof c[r]);
    }
}

static void transpose_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const gather_ctx *c = ctx;
    int64_t P = c->dim[2], Q = c->dim[3], s = c->stride[3];
    int64_t blocks = (P + TILE - 1) / TILE;
    for (int64_t item = begin; item < end; item++) {
        int64_t o = item / blocks, p0 = (item % blocks) * TILE;
        int64_t p1 = p0 + TILE < P ? p0 + TILE : P;
        const float *src = c->src + (o / c->dim[1]) * c->stride[0] + (o % c->dim[1]) * c->stride[1];
        float *dst = c->dst + o * P * Q;
        for (int64_t q0 = 0; q0 < Q; q0 += TILE) {
            int64_t q1 = q0 + TILE < Q ? q0 + TILE : Q;
            /* 4 x 4 blocks, then the ragged edges element by element */
            int64_t p4 = p0 + (p1 - p0) / 4 * 4, q4 = q0 + (q1 - q0) / 4 * 4;
            for (int64_t p = p0; p < p4; p += 4)
                for (int64_t q = q0; q < q4; q += 4)
                    transpose4(dst + p * Q + q, Q, src + q * s + p, s, c->acc);
            for (int64_t p = p0; p < p1; p++) {
                float *restrict d = dst + p * Q;
                const float *restrict sp = src + p;
                for (int64_t q = p < p4 ? q4 : q0; q < q1; q++) {
                    if (c->acc)
                        d[q] += sp[q * s];
                    else
                        d[q] = sp[q * s];
                }
            }
        }
    }
}

/* The gather of dst [dims of dst_shape] from src [src_shape] where
 * destination axis i is source axis from[i]. */
static gather_ctx gather_of(float *dst, rf_shape dst_shape, const float *src, rf_shape src_shape, const int *from,
                            bool acc)
{
    int nd = dst_shape.ndim, pad = RF_MAX_DIMS - nd;
    int64_t src_stride[RF_MAX_DIMS], s = 1;
    for (int j = nd - 1; j >= 0; j--) {
        src_stride[j] = s;
        s *= src_shape.dim[j];
    }
    gather_ctx c = {.dim = {1, 1, 1, 1}, .src = src, .dst = dst, .acc = acc};
    for (int i = 0; i < nd; i++) {
        c.dim[pad + i] = dst_shape.dim[i];
        c.stride[pad + i] = src_stride[from[i]];
    }
    return c;
}

/* The gather into a bf16 value: of 16-bit elements from a bf16 source, or
 * of floats rounded from an f32 one, RF_BF16_CHUNK at a time. */
typedef struct {
    gather_ctx g;             /* its src and dst unused */
    const float *src;
    const uint16_t *src16;    /* the source when it is bf16 */
    uint16_t *dst;
} gather16_ctx;

static void gather16_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const gather16_ctx *c = ctx;
    const int64_t *dim = c->g.dim, *stride = c->g.stride;
    for (int64_t p = begin; p < end;) {
        int64_t r = p / dim[3], j = p % dim[3], off = j * stride[3];
        for (int d = 2; d >= 0; d--) {
            off += r % dim[d] * stride[d];
            r /= dim[d];
        }
        int64_t len = rf_bf16_chunk(p, end);
        if (len > dim[3] - j)
            len = dim[3] - j;
        if (c->src16 != NULL) {
            for (int64_t i = 0; i < len; i++)
                c->dst[p + i] = c->src16[off + i * stride[3]];
        } else {
            float chunk[RF_BF16_CHUNK];
            for (int64_t i = 0; i < len; i++)
                chunk[i] = c->src[off + i * stride[3]];
            rf_bf16_round(chunk, c->dst + p, (size_t)len);
        }
        p += len;
    }
}

static void gather_run(rf_exec *x, float *dst, rf_shape dst_shape, const float *src, rf_shape src_shape,
                       const int *from, bool acc)
{
    gather_ctx c = gather_of(dst, dst_shape, src, src_shape, from, acc);
    if (c.stride[3] != 1 && c.stride[2] == 1 && c.dim[2] >= TILE && c.dim[3] >= TILE) {
        int64_t items = c.dim[0] * c.dim[1] * ((c.dim[2] + TILE - 1) / TILE);
        rf_pool_run(x->pool, items, GRAIN / (TILE * c.dim[3]) + 1, transpose_task, &c);
    } else {
        rf_pool_run(x->pool, rf_shape_numel(dst_shape), GRAIN, gather_task, &c);
    }
}

/* x [d0, d1, ...] -> out [d_perm[0], d_perm[1], ...] */
void rf_cpu_permute_forward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    int perm[RF_MAX_DIMS];
    for (int i = 0; i < n->shape.ndim; i++)
        perm[i] = (int)n->ia[i];
    if (n->dtype == RF_BF16) {
        gather16_ctx c = {gather_of(NULL, n->shape, NULL, in->shape, perm, false), in->value,
                          in->dtype == RF_BF16 ? rf_value16(in) : NULL, rf_value16(n)};
        rf_pool_run(x->pool, rf_shape_numel(n->shape), GRAIN, gather16_task, &c);
        return;
    }
    gather_run(x, n->value, n->shape, in->value, in->shape, perm, false);
}

/* dx += g permuted back: input axis perm[i] comes from output axis i */
void rf_cpu_permute_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad == NULL)
        return;
    int inverse[RF_MAX_DIMS];
    for (int i = 0; i < n->shape.ndim; i++)
        inverse[n->ia[i]] = i;
    gather_run(x, in->grad, in->shape, n->grad, n->shape, inverse, !x->fresh[0]);
}

/* ---- concat ---- */

/* xs[k] [..., Dk, ...] -> out [..., sum Dk, ...] along ia[0] */
void rf_cpu_concat_forward(rf_exec *x, rf_node *n)
{
    int axis = (int)n->ia[0];
    int64_t outer = outer_of(n->shape, axis), inner = inner_of(n->shape, axis);
    int64_t row = n->shape.dim[axis] * inner, at = 0;
    for (int k = 0; k < n->n_in; k++) {
        rf_node *in = rf_in(x, n, k);
        int64_t width = in->shape.dim[axis] * inner;
        copy_rows(x, n->value + at, row, in->value, width, outer, width, false);
        at += width;
    }
}

/* Inputs are handled one after another, so an input given twice adds twice. */
void rf_cpu_concat_backward(rf_exec *x, rf_node *n)
{
    int axis = (int)n->ia[0];
    int64_t outer = outer_of(n->shape, axis), inner = inner_of(n->shape, axis);
    int64_t row = n->shape.dim[axis] * inner, at = 0;
    for (int k = 0; k < n->n_in; k++) {
        rf_node *in = rf_in(x, n, k);
        int64_t width = in->shape.dim[axis] * inner;
        if (in->grad != NULL)
            copy_rows(x, in->grad, width, n->grad + at, row, outer, width, !x->fresh[k]);
        at += width;
    }
}

/* ---- slice ---- */

/* x [..., D, ...] -> out [..., len, ...] = x[..., start:start+len, ...] */
void rf_cpu_slice_forward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    int axis = (int)n->ia[0];
    int64_t outer = outer_of(n->shape, axis), inner = inner_of(n->shape, axis);
    int64_t width = n->ia[2] * inner;
    copy_rows(x, n->value, width, in->value + n->ia[1] * inner, in->shape.dim[axis] * inner, outer, width, false);
}

void rf_cpu_slice_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad == NULL)
        return;
    int axis = (int)n->ia[0];
    int64_t outer = outer_of(n->shape, axis), inner = inner_of(n->shape, axis);
    int64_t width = n->ia[2] * inner;
    copy_rows(x, in->grad + n->ia[1] * inner, in->shape.dim[axis] * inner, n->grad, width, outer, width, true);
}

/* ---- pad ---- */

/* x [..., D, ...] -> out [..., before + D + after, ...], margins = fa[0] */
void rf_cpu_pad_forward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    int axis = (int)n->ia[0];
    int64_t outer = outer_of(n->shape, axis), inner = inner_of(n->shape, axis);
    int64_t row = n->shape.dim[axis] * inner, width = in->shape.dim[axis] * inner;
    int64_t before = n->ia[1] * inner, after = n->ia[2] * inner;
    if (before > 0)
        fill_rows(x, n->value, row, outer, before, n->fa[0]);
    if (after > 0)
        fill_rows(x, n->value + before + width, row, outer, after, n->fa[0]);
    copy_rows(x, n->value + before, row, in->value, width, outer, width, false);
}

void rf_cpu_pad_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad == NULL)
        return;
    int axis = (int)n->ia[0];
    int64_t outer = outer_of(n->shape, axis), inner = inner_of(n->shape, axis);
    int64_t row = n->shape.dim[axis] * inner, width = in->shape.dim[axis] * inner;
    copy_rows(x, in->grad, width, n->grad + n->ia[1] * inner, row, outer, width, true);
}

/* ---- sort_rows ---- */

/* The row order p into aux (as floats): rows by their mask's valid count,
 * most first, ties in row order (an insertion sort: B is a batch). While
 * probing, the identity. */
static void row_order(rf_exec *x, const rf_node *n)
{
    const rf_node *mask = rf_in(x, n, 1);
    int64_t rows = mask->shape.dim[0], m = mask->shape.dim[1];
    float *order = n->aux, *count = x->scratch;
    for (int64_t r = 0; r < rows; r++) {
        order[r] = (float)r;
        float c = 0;
        for (int64_t j = 0; j < m; j++)
            c += mask->value[r * m + j] != 0.0f;
        count[r] = c;
    }
    if (x->probing)
        return;
    for (int64_t i = 1; i < rows; i++) {
        float r = order[i];
        int64_t j = i;
        for (; j > 0 && count[(int64_t)order[j - 1]] < count[(int64_t)r]; j--)
            order[j] = order[j - 1];
        order[j] = r;
    }
}

void rf_cpu_sort_rows_forward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    row_order(x, n);
    int64_t rows = n->shape.dim[0], width = rf_shape_numel(n->shape) / rows;
    for (int64_t i = 0; i < rows; i++) {
        int64_t p = (int64_t)n->aux[i];
        int64_t to = n->ia[0] ? p : i, from = n->ia[0] ? i : p;
        memcpy(n->value + to * width, in->value + from * width, (size_t)width * sizeof(float));
    }
}

void rf_cpu_sort_rows_backward(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    if (in->grad == NULL)
        return;
    int64_t rows = n->shape.dim[0], width = rf_shape_numel(n->shape) / rows;
    for (int64_t i = 0; i < rows; i++) {
        int64_t p = (int64_t)n->aux[i];
        int64_t to = n->ia[0] ? p : i, from = n->ia[0] ? i : p;
        float *dx = in->grad + from * width;
        const float *dy = n->grad + to * width;
        for (int64_t e = 0; e < width; e++)
            dx[e] += dy[e];
    }
}
