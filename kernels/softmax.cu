/* Softmax (with a broadcast key mask) and log-softmax over the last axis
 * (core/cpu/softmax.c). One warp per row, blocks of ROWS warps; the row's
 * max and sums are warp-shuffle reductions. */
#include "common.cuh"
#include "kernels.h"

namespace {

constexpr unsigned ROWS = 4;   /* warps (rows) per block */

/* Where row r's mask entries start: the mask's strides along x's leading
 * axes (0 where it is broadcast) and along the row (0 or 1). */
struct mask_view {
    int lead;
    int64_t dim[3], stride[3];
    int64_t step;
};

__device__ int64_t mask_offset(const mask_view &v, int64_t r)
{
    int64_t off = 0;
    for (int i = v.lead - 1; i >= 0; i--) {
        off += r % v.dim[i] * v.stride[i];
        r /= v.dim[i];
    }
    return off;
}

/* y = softmax of the entries with a non-zero mask (all when mask is NULL);
 * masked entries and rows with no valid entry give zeros. */
__global__ void softmax_fwd_kernel(const float *x, const float *mask, mask_view mv, float *y, int64_t rows,
                                   int64_t m)
{
    int64_t r = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    if (r >= rows)
        return;   /* the whole warp */
    const float *xr = x + r * m;
    const float *mr = mask != nullptr ? mask + mask_offset(mv, r) : nullptr;
    float *yr = y + r * m;
    float mx = -INFINITY;
    for (int64_t j = threadIdx.x; j < m; j += 32)
        if (mr == nullptr || mr[j * mv.step] != 0.0f)
            mx = fmaxf(mx, xr[j]);
    mx = rf_warp_max(mx);
    if (mx == -INFINITY) {
        for (int64_t j = threadIdx.x; j < m; j += 32)
            yr[j] = 0.0f;
        return;
    }
    float sum = 0.0f;
    for (int64_t j = threadIdx.x; j < m; j += 32) {
        float e = mr == nullptr || mr[j * mv.step] != 0.0f ? expf(xr[j] - mx) : 0.0f;
        yr[j] = e;
        sum += e;
    }
    float inv = 1.0f / rf_warp_sum(sum);
    for (int64_t j = threadIdx.x; j < m; j += 32)   /* each lane rescales what it wrote */
        yr[j] *= inv;
}

/* dx += y * (dy - sum(y * dy)) */
__global__ void softmax_bwd_kernel(const float *y, const float *dy, float *dx, int64_t rows, int64_t m)
{
    int64_t r = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    if (r >= rows)
        return;
    const float *yr = y + r * m, *dyr = dy + r * m;
    float *dxr = dx + r * m;
    float dot = 0.0f;
    for (int64_t j = threadIdx.x; j < m; j += 32)
        dot += yr[j] * dyr[j];
    dot = rf_warp_sum(dot);
    for (int64_t j = threadIdx.x; j < m; j += 32)
        dxr[j] += yr[j] * (dyr[j] - dot);
}

/* y = (x - max) - log(sum(exp(x - max))) */
__global__ void log_softmax_fwd_kernel(const float *x, float *y, int64_t rows, int64_t m)
{
    int64_t r = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    if (r >= rows)
        return;
    const float *xr = x + r * m;
    float *yr = y + r * m;
    float mx = -INFINITY;
    for (int64_t j = threadIdx.x; j < m; j += 32)
        mx = fmaxf(mx, xr[j]);
    mx = rf_warp_max(mx);
    float sum = 0.0f;
    for (int64_t j = threadIdx.x; j < m; j += 32)
        sum += expf(xr[j] - mx);
    float log_sum = logf(rf_warp_sum(sum));
    for (int64_t j = threadIdx.x; j < m; j += 32)
        yr[j] = (xr[j] - mx) - log_sum;
}

/* dx += dy - exp(y) * sum(dy) */
__global__ void log_softmax_bwd_kernel(const float *y, const float *dy, float *dx, int64_t rows, int64_t m)
{
    int64_t r = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    if (r >= rows)
        return;
    const float *yr = y + r * m, *dyr = dy + r * m;
    float *dxr = dx + r * m;
    float sum = 0.0f;
    for (int64_t j = threadIdx.x; j < m; j += 32)
        sum += dyr[j];
    sum = rf_warp_sum(sum);
    for (int64_t j = threadIdx.x; j < m; j += 32)
        dxr[j] += dyr[j] - expf(yr[j]) * sum;
}

unsigned row_blocks(int64_t rows) { return (unsigned)((rows + ROWS - 1) / ROWS); }

}   // namespace

extern "C" void rf_cuda_softmax_forward(const float *x, rf_cuda_shape xs, const float *mask, rf_cuda_shape ms,
                                        float *y, cudaStream_t s)
{
    mask_view mv = {xs.ndim - 1, {1, 1, 1}, {0, 0, 0}, 0};
    int64_t m = xs.dim[xs.ndim - 1], rows = 1, stride = 1;
    for (int i = 0; i < mv.lead; i++) {
        mv.dim[i] = xs.dim[i];
        rows *= xs.dim[i];
    }
    /* right-aligned: a mask axis of size 1, or none, has stride 0 */
    for (int i = xs.ndim - 1; mask != nullptr && i >= 0; i--) {
        int j = i - (xs.ndim - ms.ndim);
        int64_t d = j >= 0 ? ms.dim[j] : 1;
        int64_t st = d == 1 ? 0 : stride;
        stride *= d;
        if (i == xs.ndim - 1)
            mv.step = st;
        else
            mv.stride[i] = st;
    }
    if (rows > 0 && m > 0)
        RF_LAUNCH(softmax_fwd_kernel, row_blocks(rows), dim3(32, ROWS), 0, s, x, mask, mv, y, rows, m);
}

extern "C" void rf_cuda_softmax_backward(const float *y, const float *dy, float *dx, int64_t rows, int64_t m,
                                         cudaStream_t s)
{
    if (rows > 0 && m > 0)
        RF_LAUNCH(softmax_bwd_kernel, row_blocks(rows), dim3(32, ROWS), 0, s, y, dy, dx, rows, m);
}

extern "C" void rf_cuda_log_softmax_forward(const float *x, float *y, int64_t rows, int64_t m, cudaStream_t s)
{
    if (rows > 0 && m > 0)
        RF_LAUNCH(log_softmax_fwd_kernel, row_blocks(rows), dim3(32, ROWS), 0, s, x, y, rows, m);
}

extern "C" void rf_cuda_log_softmax_backward(const float *y, const float *dy, float *dx, int64_t rows, int64_t m,
                                             cudaStream_t s)
{
    if (rows > 0 && m > 0)
        RF_LAUNCH(log_softmax_bwd_kernel, row_blocks(rows), dim3(32, ROWS), 0, s, y, dy, dx, rows, m);
}
