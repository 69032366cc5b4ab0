/* Layer normalisation over the last axis (core/cpu/norm.c): one warp per
 * row for y and dx; dgamma and dbeta are column sums over the rows, one
 * thread column per feature and row chunks combined with atomicAdd. */
#include "common.cuh"
#include "kernels.h"

namespace {

constexpr unsigned ROWS = 4;        /* warps (rows) per block */
constexpr unsigned CHUNK_ROWS = 8;  /* threads per column in the parameter kernel */

/* mean, then 1 / sqrt(var + eps) with the variance in a second pass (no
 * cancellation); aux = means [rows], then the 1/std [rows] */
__global__ void ln_fwd_kernel(const float *x, const float *gamma, const float *beta, float *y, float *aux,
                              int64_t rows, int64_t d, float eps)
{
    int64_t r = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    if (r >= rows)
        return;   /* the whole warp */
    const float *xr = x + r * d;
    float *yr = y + r * d;
    float sum = 0.0f;
    for (int64_t j = threadIdx.x; j < d; j += 32)
        sum += xr[j];
    float mean = rf_warp_sum(sum) / (float)d;
    float var = 0.0f;
    for (int64_t j = threadIdx.x; j < d; j += 32) {
        float c = xr[j] - mean;
        var += c * c;
    }
    float s = 1.0f / sqrtf(rf_warp_sum(var) / (float)d + eps);
    for (int64_t j = threadIdx.x; j < d; j += 32) {
        float v = (xr[j] - mean) * s;
        if (gamma != nullptr)
            v *= gamma[j];
        if (beta != nullptr)
            v += beta[j];
        yr[j] = v;
    }
    if (threadIdx.x == 0) {
        aux[r] = mean;
        aux[rows + r] = s;
    }
}

/* dx += s * (dn - mean(dn) - xhat * mean(dn * xhat)), dn = dy * gamma */
__global__ void ln_dx_kernel(const float *x, const float *gamma, const float *aux, const float *dy, float *dx,
                             int64_t rows, int64_t d)
{
    int64_t r = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    if (r >= rows)
        return;
    const float *xr = x + r * d, *dyr = dy + r * d;
    float *dxr = dx + r * d;
    float mean = aux[r], s = aux[rows + r];
    float dn_sum = 0.0f, dnx_sum = 0.0f;
    for (int64_t j = threadIdx.x; j < d; j += 32) {
        float dn = gamma != nullptr ? dyr[j] * gamma[j] : dyr[j];
        dn_sum += dn;
        dnx_sum += dn * ((xr[j] - mean) * s);
    }
    float dn_mean = rf_warp_sum(dn_sum) / (float)d, dnx_mean = rf_warp_sum(dnx_sum) / (float)d;
    for (int64_t j = threadIdx.x; j < d; j += 32) {
        float dn = gamma != nullptr ? dyr[j] * gamma[j] : dyr[j];
        float xhat = (xr[j] - mean) * s;
        dxr[j] += s * (dn - dn_mean - xhat * dnx_mean);
    }
}

/* dgamma[j] += sum_r dy[r, j] xhat[r, j], dbeta[j] += sum_r dy[r, j]. Block
 * (32, CHUNK_ROWS): x picks the column (reads along a row coalesce), y and
 * gridDim.y split the rows. */
__global__ void ln_param_kernel(const float *x, const float *aux, const float *dy, float *dgamma, float *dbeta,
                                int64_t rows, int64_t d)
{
    __shared__ float part[2][CHUNK_ROWS][32];
    int64_t j = (int64_t)blockIdx.x * 32 + threadIdx.x;
    float g = 0.0f, b = 0.0f;
    if (j < d)
        for (int64_t r = (int64_t)blockIdx.y * CHUNK_ROWS + threadIdx.y; r < rows;
             r += (int64_t)CHUNK_ROWS * gridDim.y) {
            float v = dy[r * d + j];
            g += v * ((x[r * d + j] - aux[r]) * aux[rows + r]);
            b += v;
        }
    part[0][threadIdx.y][threadIdx.x] = g;
    part[1][threadIdx.y][threadIdx.x] = b;
    __syncthreads();
    if (threadIdx.y != 0 || j >= d)
        return;
    for (unsigned k = 1; k < CHUNK_ROWS; k++) {
        g += part[0][k][threadIdx.x];
        b += part[1][k][threadIdx.x];
    }
    if (dgamma != nullptr)
        atomicAdd(dgamma + j, g);
    if (dbeta != nullptr)
        atomicAdd(dbeta + j, b);
}

unsigned row_blocks(int64_t rows) { return (unsigned)((rows + ROWS - 1) / ROWS); }

}   // namespace

extern "C" void rf_cuda_layernorm_forward(const float *x, const float *gamma, const float *beta, float *y,
                                          float *aux, int64_t rows, int64_t d, float eps, cudaStream_t s)
{
    if (rows > 0 && d > 0)
        RF_LAUNCH(ln_fwd_kernel, row_blocks(rows), dim3(32, ROWS), 0, s, x, gamma, beta, y, aux, rows, d, eps);
}

extern "C" void rf_cuda_layernorm_backward(const float *x, const float *gamma, const float *aux, const float *dy,
                                           float *dx, float *dgamma, float *dbeta, int64_t rows, int64_t d,
                                           cudaStream_t s)
{
    if (rows == 0 || d == 0)
        return;
    if (dx != nullptr)
        RF_LAUNCH(ln_dx_kernel, row_blocks(rows), dim3(32, ROWS), 0, s, x, gamma, aux, dy, dx, rows, d);
    if (dgamma != nullptr || dbeta != nullptr) {
        int64_t chunks = (rows + 255) / 256;   /* about 32 rows per thread, up to 64 chunks */
        dim3 grid((unsigned)((d + 31) / 32), (unsigned)(chunks < 64 ? chunks : 64));
        RF_LAUNCH(ln_param_kernel, grid, dim3(32, CHUNK_ROWS), 0, s, x, aux, dy, dgamma, dbeta, rows, d);
    }
}
