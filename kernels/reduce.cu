/* Sums and means over one axis or everything, the masked mean over tokens
 * (core/cpu/reduce.c), and the sum of squares behind the global gradient
 * norm (core/optim.c).
 *
 * A whole-tensor sum runs in two stages, as the CPU's: blocks sum strided
 * slices in double into `work`, then one block adds those partials. Over
 * one axis: a warp per row when the axis is the last one, else a thread
 * per output summing down a column (neighbouring threads read neighbouring
 * floats). The sum of squares (the gradient norm's square) is the same
 * two-stage sum. */
#include "common.cuh"
#include "kernels.h"

namespace {

constexpr unsigned ROWS = 4;      /* warps (rows) per block */
constexpr unsigned THREADS = 256;

/* work[block] = sum of x[i] (or x[i]^2) over the block's grid-stride slice */
template <bool SQUARE> __global__ void partial_kernel(const float *x, int64_t n, double *work)
{
    double s = 0.0;
    RF_FOR_EACH(i, n) {
        double v = x[i];
        s += SQUARE ? v * v : v;
    }
    s = rf_block_sum(s);
    if (threadIdx.x == 0)
        work[blockIdx.x] = s;
}

/* the partials' sum, in every thread of the one block */
__device__ double sum_partials(const double *work, unsigned parts)
{
    return rf_block_sum(threadIdx.x < parts ? work[threadIdx.x] : 0.0);
}

__global__ void finish_sum_kernel(const double *work, unsigned parts, float scale, float *y)
{
    double s = sum_partials(work, parts);
    if (threadIdx.x == 0)
        y[0] = (float)s * scale;
}

__global__ void finish_squares_kernel(const double *work, unsigned parts, double *out)
{
    double s = sum_partials(work, parts);
    if (threadIdx.x == 0)
        out[0] = s;
}

/* the number of stage-one blocks (each writes one partial) */
unsigned partial_blocks(int64_t n)
{
    unsigned b = rf_blocks(n, THREADS);
    return b < RF_CUDA_PARTIALS ? b : RF_CUDA_PARTIALS;
}

/* y[o] = scale * sum_a x[o, a], one warp per row */
__global__ void row_sum_kernel(const float *x, float *y, int64_t outer, int64_t a, float scale)
{
    int64_t o = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    if (o >= outer)
        return;   /* the whole warp */
    float s = 0.0f;
    for (int64_t k = threadIdx.x; k < a; k += 32)
        s += x[o * a + k];
    s = rf_warp_sum(s);
    if (threadIdx.x == 0)
        y[o] = s * scale;
}

/* y[o, i] = scale * sum_a x[o, a, i], one thread per output */
__global__ void column_sum_kernel(const float *x, float *y, int64_t outer, int64_t a, int64_t inner, float scale)
{
    RF_FOR_EACH(e, outer * inner) {
        int64_t o = e / inner, i = e - o * inner;
        const float *xo = x + o * a * inner + i;
        float s = 0.0f;
        for (int64_t k = 0; k < a; k++)
            s += xo[k * inner];
        y[e] = s * scale;
    }
}

/* dx[o, a, i] += scale * dy[o, i]; a whole-tensor reduction is o = i = 0 */
__global__ void spread_kernel(const float *dy, float *dx, int64_t n, int64_t a, int64_t inner, float scale)
{
    RF_FOR_EACH(e, n) {
        int64_t o = e / (a * inner), i = e % inner;
        dx[e] += scale * dy[o * inner + i];
    }
}

/* x viewed as [outer, a, inner] around `axis` (axis -1: [1, numel, 1]) */
void split_axis(rf_cuda_shape xs, int axis, int64_t *outer, int64_t *a, int64_t *inner)
{
    *outer = *a = *inner = 1;
    for (int i = 0; i < xs.ndim; i++) {
        if (axis < 0 || i == axis)
            *a *= xs.dim[i];
        else if (i < axis)
            *outer *= xs.dim[i];
        else
            *inner *= xs.dim[i];
    }
}

/* w[b, t] = (mask[b, t] != 0) / (valid tokens in row b), one warp per row */
__global__ void mm_weights_kernel(const float *mask, float *w, int64_t b, int64_t n)
{
    int64_t r = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    if (r >= b)
        return;
    const float *m = mask + r * n;
    int count = 0;
    for (int64_t t = threadIdx.x; t < n; t += 32)
        count += m[t] != 0.0f;
    count = rf_warp_sum(count);
    float inv = count > 0 ? 1.0f / (float)count : 0.0f;
    for (int64_t t = threadIdx.x; t < n; t += 32)
        w[r * n + t] = m[t] != 0.0f ? inv : 0.0f;
}

/* y[b, k] = sum_t w[b, t] x[b, t, k] over the valid tokens, one block per
 * output: its threads take every blockDim-th token, then add across the
 * block in a fixed order (the same bits every run). A thread per output
 * walking all n tokens left a long sequence at batch 1 on a few dozen
 * threads. */
__global__ void mm_sum_kernel(const float *x, const float *w, float *y, int64_t n, int64_t d)
{
    const int64_t e = blockIdx.x, r = e / d, k = e - r * d;
    float s = 0.0f;
    for (int64_t t = threadIdx.x; t < n; t += blockDim.x) {
        float wt = w[r * n + t];
        if (wt != 0.0f)
            s += wt * x[(r * n + t) * d + k];
    }
    s = rf_block_sum(s);
    if (threadIdx.x == 0)
        y[e] = s;
}

/* dx[b, t, k] += w[b, t] dy[b, k] for valid tokens */
__global__ void mm_bwd_kernel(const float *w, const float *dy, float *dx, int64_t n, int64_t d, int64_t total)
{
    RF_FOR_EACH(e, total) {
        int64_t bt = e / d;
        float wt = w[bt];
        if (wt != 0.0f)
            dx[e] += wt * dy[bt / n * d + (e - bt * d)];
    }
}

}   // namespace

extern "C" void rf_cuda_reduce_forward(const float *x, rf_cuda_shape xs, int axis, bool mean, float *y,
                                       double *work, cudaStream_t s)
{
    int64_t outer, a, inner;
    split_axis(xs, axis, &outer, &a, &inner);
    float scale = mean ? 1.0f / (float)a : 1.0f;
    if (outer * a * inner == 0)
        return;
    if (axis < 0) {
        unsigned parts = partial_blocks(a);
        RF_LAUNCH(partial_kernel<false>, parts, THREADS, 0, s, x, a, work);
        RF_LAUNCH(finish_sum_kernel, 1, THREADS, 0, s, work, parts, scale, y);
    } else if (inner == 1) {
        RF_LAUNCH(row_sum_kernel, (unsigned)((outer + ROWS - 1) / ROWS), dim3(32, ROWS), 0, s, x, y, outer, a, scale);
    } else {
        RF_LAUNCH(column_sum_kernel, rf_blocks(outer * inner, THREADS), THREADS, 0, s, x, y, outer, a, inner, scale);
    }
}

extern "C" void rf_cuda_reduce_backward(const float *dy, rf_cuda_shape xs, int axis, bool mean, float *dx,
                                        cudaStream_t s)
{
    int64_t outer, a, inner, n;
    split_axis(xs, axis, &outer, &a, &inner);
    n = outer * a * inner;
    if (n > 0)
        RF_LAUNCH(spread_kernel, rf_blocks(n, THREADS), THREADS, 0, s, dy, dx, n, a, inner,
                  mean ? 1.0f / (float)a : 1.0f);
}

extern "C" void rf_cuda_masked_mean_forward(const float *x, const float *mask, float *y, float *w, int64_t b,
                                            int64_t n, int64_t d, cudaStream_t s)
{
    if (b * n > 0)
        RF_LAUNCH(mm_weights_kernel, (unsigned)((b + ROWS - 1) / ROWS), dim3(32, ROWS), 0, s, mask, w, b, n);
    if (b * d > 0)
        RF_LAUNCH(mm_sum_kernel, (unsigned)(b * d), THREADS, 0, s, x, w, y, n, d);
}

extern "C" void rf_cuda_masked_mean_backward(const float *w, const float *dy, float *dx, int64_t b, int64_t n,
                                             int64_t d, cudaStream_t s)
{
    int64_t total = b * n * d;
    if (total > 0)
        RF_LAUNCH(mm_bwd_kernel, rf_blocks(total, THREADS), THREADS, 0, s, w, dy, dx, n, d, total);
}

extern "C" void rf_cuda_sum_squares(const float *x, int64_t n, double *out, double *work, cudaStream_t s)
{
    if (n == 0) {
        cudaMemsetAsync(out, 0, sizeof *out, s);
        return;
    }
    unsigned parts = partial_blocks(n);
    RF_LAUNCH(partial_kernel<true>, parts, THREADS, 0, s, x, n, work);
    RF_LAUNCH(finish_squares_kernel, 1, THREADS, 0, s, work, parts, out);
}
