/* Shape ops (core/cpu/shape.c): reshape, permute, concat, slice, pad and
 * sort_rows, forward and backward. Every one copies (reshape too, as the CPU's: no
 * aliasing), and every backward gathers the gradient back to its source
 * and adds, so each destination element is written by one thread and
 * results are exact.
 *
 * Concat, slice, pad and reshape view each tensor as [outer, axis * inner]
 * rows and move row pieces (rows_kernel). Permute gathers through the
 * source's strides. Where the destination's innermost axis is not the
 * source's, neighbouring threads would read floats far apart, so, when both
 * innermost axes are at least half a tile long (shorter runs gain little
 * from the round trip), a 32 x 32 tile goes through shared memory: read
 * along the source's innermost axis, written along the destination's. */
#include "common.cuh"
#include "kernels.h"

namespace {

constexpr unsigned THREADS = 256;
constexpr int TILE = 32;
constexpr unsigned TILE_ROWS = 8;   /* a tile block is (TILE, TILE_ROWS) threads */

int64_t numel(rf_cuda_shape s)
{
    int64_t n = 1;
    for (int i = 0; i < s.ndim; i++)
        n *= s.dim[i];
    return n;
}

/* Product of the dims before / after `axis`. */
int64_t outer_of(rf_cuda_shape s, int axis)
{
    int64_t n = 1;
    for (int i = 0; i < axis; i++)
        n *= s.dim[i];
    return n;
}

int64_t inner_of(rf_cuda_shape s, int axis)
{
    int64_t n = 1;
    for (int i = axis + 1; i < s.ndim; i++)
        n *= s.dim[i];
    return n;
}

/* dst[o * dst_row + j] (= or +=) src[o * src_row + j] for o * width + j < total */
template <bool ACC>
__global__ void rows_kernel(float *dst, int64_t dst_row, const float *src, int64_t src_row, int64_t width,
                            int64_t total)
{
    RF_FOR_EACH(e, total) {
        int64_t o = e / width, j = e - o * width;
        float v = src[o * src_row + j];
        if constexpr (ACC)
            dst[o * dst_row + j] += v;
        else
            dst[o * dst_row + j] = v;
    }
}

template <bool ACC>
void rows(float *dst, int64_t dst_row, const float *src, int64_t src_row, int64_t outer, int64_t width, cudaStream_t s)
{
    int64_t total = outer * width;
    if (total > 0)
        RF_LAUNCH(rows_kernel<ACC>, rf_blocks(total, THREADS), THREADS, 0, s, dst, dst_row, src, src_row, width, total);
}

/* out rows of `row` floats: x's row of `width` floats at [lo, lo + width), `value` around it */
__global__ void pad_kernel(const float *x, float *out, int64_t row, int64_t lo, int64_t width, float value,
                           int64_t total)
{
    RF_FOR_EACH(e, total) {
        int64_t o = e / row, j = e - o * row - lo;
        out[e] = j >= 0 && j < width ? x[o * width + j] : value;
    }
}

/* A gather: the destination's dims (left-padded with 1s to 4) and, for each
 * destination axis, its stride in the source and in the destination. */
struct gview {
    int64_t dim[4], src[4], dst[4];
};

/* dst[d] (= or +=) src[offset of d], one thread per destination element */
template <bool ACC> __global__ void gather_kernel(float *dst, const float *src, gview v, int64_t total)
{
    RF_FOR_EACH(e, total) {
        int64_t r = e, off = 0;
        for (int d = 3; d >= 0; d--) {
            int64_t c = r % v.dim[d];
            r /= v.dim[d];
            off += c * v.src[d];
        }
        if constexpr (ACC)
            dst[e] += src[off];
        else
            dst[e] = src[off];
    }
}

/* The tiled gather: q is the destination axis that is the source's
 * innermost, a and b the two other axes besides 3. blockIdx.x picks a tile
 * of (destination axis 3, axis q); blockIdx.y and gridDim.y walk a x b. */
struct tview {
    gview g;
    int q, a, b;
    int64_t tiles3;   /* tiles along axis 3 */
};

template <bool ACC> __global__ void tile_kernel(float *dst, const float *src, tview t)
{
    __shared__ float tile[TILE][TILE + 1];   /* [axis 3][axis q]; + 1: no bank conflicts on the column reads */
    const gview &v = t.g;
    int64_t i3 = (int64_t)(blockIdx.x % t.tiles3) * TILE, iq = (int64_t)(blockIdx.x / t.tiles3) * TILE;
    for (int64_t z = blockIdx.y; z < v.dim[t.a] * v.dim[t.b]; z += gridDim.y) {
        int64_t za = z / v.dim[t.b], zb = z - za * v.dim[t.b];
        const float *s = src + za * v.src[t.a] + zb * v.src[t.b];
        float *d = dst + za * v.dst[t.a] + zb * v.dst[t.b];
        /* read: x runs along axis q, the source's innermost */
        for (unsigned r = threadIdx.y; r < TILE; r += TILE_ROWS)
            if (i3 + r < v.dim[3] && iq + threadIdx.x < v.dim[t.q])
                tile[r][threadIdx.x] = s[(i3 + r) * v.src[3] + (iq + threadIdx.x) * v.src[t.q]];
        __syncthreads();
        /* write: x runs along axis 3, the destination's innermost */
        for (unsigned r = threadIdx.y; r < TILE; r += TILE_ROWS)
            if (iq + r < v.dim[t.q] && i3 + threadIdx.x < v.dim[3]) {
                float *p = d + (iq + r) * v.dst[t.q] + i3 + threadIdx.x;
                if constexpr (ACC)
                    *p += tile[threadIdx.x][r];
                else
                    *p = tile[threadIdx.x][r];
            }
        __syncthreads();   /* the next z overwrites the tile */
    }
}

/* dst [ds] (= or +=) src [ss] where destination axis i is source axis from[i] */
template <bool ACC> void gather(float *dst, rf_cuda_shape ds, const float *src, rf_cuda_shape ss, const int *from,
                               cudaStream_t s)
{
    int64_t total = numel(ds);
    if (total == 0)
        return;
    int pad = 4 - ds.ndim;
    int64_t src_stride[4], st = 1;
    for (int j = ss.ndim - 1; j >= 0; j--) {
        src_stride[j] = st;
        st *= ss.dim[j];
    }
    tview t = {{{1, 1, 1, 1}, {0, 0, 0, 0}, {0, 0, 0, 0}}, 3, 0, 0, 0};
    gview &v = t.g;
    for (int i = 0; i < ds.ndim; i++) {
        v.dim[pad + i] = ds.dim[i];
        v.src[pad + i] = src_stride[from[i]];
        if (from[i] == ss.ndim - 1)
            t.q = pad + i;
    }
    st = 1;
    for (int i = 3; i >= 0; i--) {
        v.dst[i] = st;
        st *= v.dim[i];
    }
    if (t.q == 3 || v.dim[3] < TILE / 2 || v.dim[t.q] < TILE / 2) {
        RF_LAUNCH(gather_kernel<ACC>, rf_blocks(total, THREADS), THREADS, 0, s, dst, src, v, total);
        return;
    }
    t.a = t.q == 0 ? 1 : 0;
    t.b = t.q == 2 ? 1 : 2;
    t.tiles3 = (v.dim[3] + TILE - 1) / TILE;
    int64_t tiles = t.tiles3 * ((v.dim[t.q] + TILE - 1) / TILE), outer = v.dim[t.a] * v.dim[t.b];
    dim3 grid((unsigned)tiles, (unsigned)(outer < 65535 ? outer : 65535));
    RF_LAUNCH(tile_kernel<ACC>, grid, dim3(TILE, TILE_ROWS), 0, s, dst, src, t);
}


/* sort_rows: each row's valid count, then (one thread: a batch's rows) the
 * order, most first, ties in row order, as the CPU's insertion sort. */
__global__ void row_count_kernel(const float *mask, int64_t rows, int64_t m, float *count)
{
    RF_FOR_EACH(r, rows) {
        float c = 0;
        for (int64_t j = 0; j < m; j++)
            c += mask[r * m + j] != 0.0f;
        count[r] = c;
    }
}

__global__ void row_order_kernel(const float *count, int64_t rows, bool identity, float *order)
{
    if (blockIdx.x != 0 || threadIdx.x != 0)
        return;
    for (int64_t r = 0; r < rows; r++)
        order[r] = (float)r;
    for (int64_t i = 1; i < rows && !identity; i++) {
        float r = order[i];
        int64_t j = i;
        for (; j > 0 && count[(int64_t)order[j - 1]] < count[(int64_t)r]; j--)
            order[j] = order[j - 1];
        order[j] = r;
    }
}

/* Row i of the sorted side is row order[i] of the other: forward (ACC
 * false) out[to] = x[from], backward dx[from] += dout[to], with (to, from)
 * = (i, order[i]), or (order[i], i) for the inverse. A permutation: each
 * destination element has one thread. */
template <bool ACC>
__global__ void permute_rows_kernel(float *dst, const float *src, const float *order, int64_t width, bool inverse,
                                    int64_t total)
{
    RF_FOR_EACH(e, total) {
        int64_t i = e / width, j = e - i * width, p = (int64_t)order[i];
        int64_t to = inverse ? p : i, from = inverse ? i : p;
        if constexpr (ACC)
            dst[from * width + j] += src[to * width + j];
        else
            dst[to * width + j] = src[from * width + j];
    }
}

}   // namespace

extern "C" void rf_cuda_reshape_forward(const float *x, float *out, int64_t n, cudaStream_t s)
{
    if (n > 0)
        cudaMemcpyAsync(out, x, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice, s);
}

extern "C" void rf_cuda_reshape_backward(const float *dout, float *dx, int64_t n, cudaStream_t s)
{
    if (dx != nullptr)
        rows<true>(dx, n, dout, n, 1, n, s);
}

extern "C" void rf_cuda_permute_forward(const float *x, rf_cuda_shape xs, const int *perm, float *out, cudaStream_t s)
{
    rf_cuda_shape os = xs;
    for (int i = 0; i < xs.ndim; i++)
        os.dim[i] = xs.dim[perm[i]];
    gather<false>(out, os, x, xs, perm, s);
}

/* dx += dout permuted back: x's axis perm[i] comes from out's axis i */
extern "C" void rf_cuda_permute_backward(const float *dout, rf_cuda_shape xs, const int *perm, float *dx,
                                         cudaStream_t s)
{
    if (dx == nullptr)
        return;
    rf_cuda_shape os = xs;
    int inverse[4];
    for (int i = 0; i < xs.ndim; i++) {
        os.dim[i] = xs.dim[perm[i]];
        inverse[perm[i]] = i;
    }
    gather<true>(dx, xs, dout, os, inverse, s);
}

extern "C" void rf_cuda_concat_forward(const float *const *xs, const int64_t *lens, int n, rf_cuda_shape os,
                                       int axis, float *out, cudaStream_t s)
{
    int64_t outer = outer_of(os, axis), inner = inner_of(os, axis), row = os.dim[axis] * inner, at = 0;
    for (int k = 0; k < n; k++) {
        rows<false>(out + at, row, xs[k], lens[k] * inner, outer, lens[k] * inner, s);
        at += lens[k] * inner;
    }
}

/* The inputs one after another (stream order), so an input given twice adds twice. */
extern "C" void rf_cuda_concat_backward(const float *dout, const int64_t *lens, int n, rf_cuda_shape os, int axis,
                                        float *const *dxs, cudaStream_t s)
{
    int64_t outer = outer_of(os, axis), inner = inner_of(os, axis), row = os.dim[axis] * inner, at = 0;
    for (int k = 0; k < n; k++) {
        if (dxs[k] != nullptr)
            rows<true>(dxs[k], lens[k] * inner, dout + at, row, outer, lens[k] * inner, s);
        at += lens[k] * inner;
    }
}

extern "C" void rf_cuda_slice_forward(const float *x, rf_cuda_shape xs, int axis, int64_t start, int64_t len,
                                      float *out, cudaStream_t s)
{
    int64_t inner = inner_of(xs, axis);
    rows<false>(out, len * inner, x + start * inner, xs.dim[axis] * inner, outer_of(xs, axis), len * inner, s);
}

extern "C" void rf_cuda_slice_backward(const float *dout, rf_cuda_shape xs, int axis, int64_t start, int64_t len,
                                       float *dx, cudaStream_t s)
{
    int64_t inner = inner_of(xs, axis);
    if (dx != nullptr)
        rows<true>(dx + start * inner, xs.dim[axis] * inner, dout, len * inner, outer_of(xs, axis), len * inner, s);
}

extern "C" void rf_cuda_pad_forward(const float *x, rf_cuda_shape xs, int axis, int64_t before, int64_t after,
                                    float value, float *out, cudaStream_t s)
{
    int64_t inner = inner_of(xs, axis), row = (before + xs.dim[axis] + after) * inner;
    int64_t total = outer_of(xs, axis) * row;
    if (total > 0)
        RF_LAUNCH(pad_kernel, rf_blocks(total, THREADS), THREADS, 0, s, x, out, row, before * inner,
                  xs.dim[axis] * inner, value, total);
}

extern "C" void rf_cuda_pad_backward(const float *dout, rf_cuda_shape xs, int axis, int64_t before, int64_t after,
                                     float *dx, cudaStream_t s)
{
    int64_t inner = inner_of(xs, axis), width = xs.dim[axis] * inner;
    if (dx != nullptr)
        rows<true>(dx, width, dout + before * inner, (before + xs.dim[axis] + after) * inner, outer_of(xs, axis), width,
                   s);
}

extern "C" void rf_cuda_sort_rows_forward(const float *x, const float *mask, rf_cuda_shape xs, int64_t mask_cols,
                                          bool inverse, bool identity, float *order, float *count, float *out,
                                          cudaStream_t s)
{
    int64_t rows = xs.dim[0], width = numel(xs) / rows;
    RF_LAUNCH(row_count_kernel, rf_blocks(rows, THREADS), THREADS, 0, s, mask, rows, mask_cols, count);
    RF_LAUNCH(row_order_kernel, 1, 1, 0, s, count, rows, identity, order);
    RF_LAUNCH(permute_rows_kernel<false>, rf_blocks(rows * width, THREADS), THREADS, 0, s, out, x, order, width,
              inverse, rows * width);
}

extern "C" void rf_cuda_sort_rows_backward(const float *dout, const float *order, rf_cuda_shape xs, bool inverse,
                                           float *dx, cudaStream_t s)
{
    int64_t rows = xs.dim[0], width = numel(xs) / rows;
    if (dx != nullptr)
        RF_LAUNCH(permute_rows_kernel<true>, rf_blocks(rows * width, THREADS), THREADS, 0, s, dx, dout, order,
                  width, inverse, rows * width);
}
