/* The losses on logits (core/cpu/loss.c). Softmax cross-entropy: one warp
 * per row writes the row's probabilities and loss, one warp then averages
 * the losses in double, as the CPU does. Binary cross-entropy: one block
 * sums every element's loss in double (the op's inputs are small: a
 * batch's multi-label logits), element-wise backward. */
#include "common.cuh"
#include "kernels.h"

namespace {

constexpr unsigned ROWS = 4;   /* warps (rows) per block */

/* p[r] = softmax(z[r]) into aux, the labels after them; work[r] =
 * logsumexp(z[r]) - z[r, label] */
__global__ void ce_rows_kernel(const float *logits, const float *labels, float *aux, float *work, int64_t b,
                               int64_t c)
{
    int64_t r = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    if (r >= b)
        return;   /* the whole warp */
    const float *z = logits + r * c;
    float *p = aux + r * c;
    float mx = -INFINITY;
    for (int64_t j = threadIdx.x; j < c; j += 32)
        mx = fmaxf(mx, z[j]);
    mx = rf_warp_max(mx);
    float sum = 0.0f;
    for (int64_t j = threadIdx.x; j < c; j += 32) {
        p[j] = expf(z[j] - mx);
        sum += p[j];
    }
    sum = rf_warp_sum(sum);
    float inv = 1.0f / sum;
    for (int64_t j = threadIdx.x; j < c; j += 32)   /* each lane rescales what it wrote */
        p[j] *= inv;
    if (threadIdx.x == 0) {
        float label = labels[r];
        work[r] = mx + logf(sum) - z[(int64_t)label];
        aux[b * c + r] = label;
    }
}

/* *loss = the mean of the rows' losses, summed in double by one warp */
__global__ void ce_mean_kernel(const float *work, float *loss, int64_t b)
{
    double s = 0.0;
    for (int64_t r = threadIdx.x; r < b; r += 32)
        s += work[r];
    s = rf_warp_sum(s);
    if (threadIdx.x == 0)
        loss[0] = (float)(s / (double)b);
}

/* dz[r, j] += g p[r, j], then -= g at the label; g = dloss / b */
__global__ void ce_bwd_kernel(const float *aux, const float *dloss, float *dlogits, int64_t b, int64_t c)
{
    float g = dloss[0] / (float)b;
    RF_FOR_EACH(e, b * c) {
        int64_t r = e / c;
        float v = dlogits[e] + g * aux[e];
        if (e - r * c == (int64_t)aux[b * c + r])
            v -= g;
        dlogits[e] = v;
    }
}

constexpr unsigned BCE_THREADS = 256;

/* *loss = mean of max(z, 0) - z t + log(1 + e^-|z|), in one block */
__global__ void bce_fwd_kernel(const float *z, const float *t, float *loss, int64_t n)
{
    double s = 0.0;
    for (int64_t e = threadIdx.x; e < n; e += BCE_THREADS)
        s += fmaxf(z[e], 0.0f) - z[e] * t[e] + log1pf(expf(-fabsf(z[e])));
    s = rf_block_sum(s);
    if (threadIdx.x == 0)
        loss[0] = (float)(s / (double)n);
}

/* dz += g (sigmoid(z) - t), dt -= g z; g = dloss / n */
__global__ void bce_bwd_kernel(const float *z, const float *t, const float *dloss, float *dz, float *dt, int64_t n)
{
    float g = dloss[0] / (float)n;
    RF_FOR_EACH(e, n) {
        if (dz != NULL) {
            float ez = expf(-fabsf(z[e])), r = 1.0f / (1.0f + ez);
            dz[e] += g * ((z[e] >= 0.0f ? r : ez * r) - t[e]);
        }
        if (dt != NULL)
            dt[e] -= g * z[e];
    }
}

}   // namespace

extern "C" void rf_cuda_bce_logits_forward(const float *z, const float *t, float *loss, int64_t n, cudaStream_t s)
{
    if (n > 0)
        RF_LAUNCH(bce_fwd_kernel, 1, BCE_THREADS, 0, s, z, t, loss, n);
}

extern "C" void rf_cuda_bce_logits_backward(const float *z, const float *t, const float *dloss, float *dz, float *dt,
                                            int64_t n, cudaStream_t s)
{
    if (n > 0 && (dz != NULL || dt != NULL))
        RF_LAUNCH(bce_bwd_kernel, rf_blocks(n, 256), 256, 0, s, z, t, dloss, dz, dt, n);
}

extern "C" void rf_cuda_cross_entropy_forward(const float *logits, const float *labels, float *loss, float *aux,
                                              float *work, int64_t b, int64_t c, cudaStream_t s)
{
    if (b == 0 || c == 0)
        return;
    RF_LAUNCH(ce_rows_kernel, (unsigned)((b + ROWS - 1) / ROWS), dim3(32, ROWS), 0, s, logits, labels, aux, work, b,
              c);
    RF_LAUNCH(ce_mean_kernel, 1, 32, 0, s, work, loss, b);
}

extern "C" void rf_cuda_cross_entropy_backward(const float *aux, const float *dloss, float *dlogits, int64_t b,
                                               int64_t c, cudaStream_t s)
{
    if (b * c > 0)
        RF_LAUNCH(ce_bwd_kernel, rf_blocks(b * c, 256), 256, 0, s, aux, dloss, dlogits, b, c);
}
