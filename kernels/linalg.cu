/* Matmul and linear (core/cpu/linalg.c) through cuBLAS, and the bias kernels
 * that linear and the convolutions share.
 *
 * cuBLAS is column-major. A row-major C [m, n] is, in the same memory, a
 * column-major C^T [n, m], and C^T = op(Y)^T op(X)^T: so a row-major
 * product is one cuBLAS call with the operands swapped (Y first), m and n
 * exchanged, and the row-major operands' own transpose flags and leading
 * dimensions. */
#include <limits.h>

#include "common.cuh"
#include "cublas_compat.h"
#include "kernels.h"

namespace {

bool fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

int64_t at_least_1(int64_t v) { return v > 1 ? v : 1; }

/* The CPU's plan (mm_plan in core/cpu/linalg.c): `groups` products of
 * `rows` x n outputs, one per batch, except that a shared 2-D b under an
 * untransposed a stacks every batch into one product of batch * m rows. */
struct mm_plan {
    int64_t groups, rows, n, k;
    int64_t a_step, b_step, c_step;   /* floats between consecutive groups' operands (b_step 0: shared) */
};

mm_plan plan_of(rf_cuda_shape as, rf_cuda_shape bs, bool ta, bool tb)
{
    int nd = as.ndim;
    int64_t m = as.dim[nd - (ta ? 1 : 2)], batch = 1;
    for (int i = 0; i < nd - 2; i++)
        batch *= as.dim[i];
    mm_plan p;
    p.k = as.dim[nd - (ta ? 2 : 1)];
    p.n = bs.dim[bs.ndim - (tb ? 2 : 1)];
    bool stacked = bs.ndim == 2 && !ta;
    p.groups = stacked ? 1 : batch;
    p.rows = stacked ? batch * m : m;
    p.a_step = p.rows * p.k;
    p.b_step = bs.ndim == 2 ? 0 : p.k * p.n;
    p.c_step = p.rows * p.n;
    return p;
}

constexpr unsigned THREADS = 256;
constexpr unsigned COL_ROWS = 8;   /* rows of a (32, COL_ROWS) column-sum block */

/* out[o, c, i] += bias[c] over out [outer, channels, inner] (total elements) */
__global__ void bias_add_kernel(const float *bias, float *out, int64_t total, int64_t channels, int64_t inner)
{
    RF_FOR_EACH(e, total) out[e] += bias[e / inner % channels];
}

/* dbias[c] += sum over rows of g [rows, channels]: x picks the column, y and
 * gridDim.y split the rows; the block's partials meet in shared memory, the
 * blocks' in atomicAdd. */
__global__ void column_sum_kernel(const float *g, float *dbias, int64_t rows, int64_t channels)
{
    __shared__ float part[COL_ROWS][32];
    int64_t c = (int64_t)blockIdx.x * 32 + threadIdx.x;
    float s = 0.0f;
    if (c < channels)
        for (int64_t r = (int64_t)blockIdx.y * COL_ROWS + threadIdx.y; r < rows; r += (int64_t)COL_ROWS * gridDim.y)
            s += g[r * channels + c];
    part[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.y == 0 && c < channels) {
        for (unsigned k = 1; k < COL_ROWS; k++)
            s += part[k][threadIdx.x];
        atomicAdd(dbias + c, s);
    }
}

/* dbias[c] += sum over (o, i) of g [outer, channels, inner], inner > 1: one
 * channel per blockIdx.x, its outer * inner positions split by the block's
 * threads and gridDim.y, added with atomicAdd. */
__global__ void channel_sum_kernel(const float *g, float *dbias, int64_t outer, int64_t channels, int64_t inner)
{
    int64_t c = blockIdx.x, count = outer * inner;
    float s = 0.0f;
    for (int64_t p = (int64_t)blockIdx.y * blockDim.x + threadIdx.x; p < count; p += (int64_t)blockDim.x * gridDim.y) {
        int64_t o = p / inner;
        s += g[(o * channels + c) * inner + (p - o * inner)];
    }
    s = rf_block_sum(s);
    if (threadIdx.x == 0)
        atomicAdd(dbias + c, s);
}

/* Blocks along y for `count` summed positions, about 32 per thread, at most 64. */
unsigned chunks(int64_t count, unsigned threads)
{
    int64_t c = (count + 32 * threads - 1) / (32 * threads);
    return (unsigned)(c < 64 ? c : 64);
}

}   // namespace

extern "C" int rf_cuda_gemm(bool tx, bool ty, int64_t m, int64_t n, int64_t k, const float *X, int64_t sx,
                            const float *Y, int64_t sy, float beta, float *C, int64_t sc, int64_t count,
                            cublasHandle_t blas, cudaStream_t stream)
{
    if (m == 0 || n == 0 || count == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (!fits_int(m) || !fits_int(n) || !fits_int(k) || !fits_int(count))
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasStatus_t st = cublasSetStream(blas, stream);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    const float one = 1.0f;
    cublasOperation_t ox = tx ? CUBLAS_OP_T : CUBLAS_OP_N, oy = ty ? CUBLAS_OP_T : CUBLAS_OP_N;
    int ldx = (int)at_least_1(tx ? m : k), ldy = (int)at_least_1(ty ? k : n), ldc = (int)n;
    if (count == 1 || sc == 0) {
        /* a shared C takes the products one after another: in one batched
         * call they would race */
        for (int64_t i = 0; i < count && st == CUBLAS_STATUS_SUCCESS; i++)
            st = cublasSgemm(blas, oy, ox, (int)n, (int)m, (int)k, &one, Y + i * sy, ldy, X + i * sx, ldx, &beta,
                             C, ldc);
        return st;
    }
    return cublasSgemmStridedBatched(blas, oy, ox, (int)n, (int)m, (int)k, &one, Y, ldy, sy, X, ldx, sx, &beta, C,
                                     ldc, sc, (int)count);
}

extern "C" void rf_cuda_bias_add(const float *bias, float *out, int64_t outer, int64_t channels, int64_t inner,
                                 cudaStream_t s)
{
    int64_t total = outer * channels * inner;
    if (total > 0)
        RF_LAUNCH(bias_add_kernel, rf_blocks(total, THREADS), THREADS, 0, s, bias, out, total, channels, inner);
}

extern "C" void rf_cuda_bias_grad(const float *dout, float *dbias, int64_t outer, int64_t channels, int64_t inner,
                                  cudaStream_t s)
{
    if (dbias == nullptr || outer * channels * inner == 0)
        return;
    if (inner == 1) {
        dim3 grid((unsigned)((channels + 31) / 32), chunks(outer, COL_ROWS));
        RF_LAUNCH(column_sum_kernel, grid, dim3(32, COL_ROWS), 0, s, dout, dbias, outer, channels);
    } else {
        dim3 grid((unsigned)channels, chunks(outer * inner, THREADS));
        RF_LAUNCH(channel_sum_kernel, grid, THREADS, 0, s, dout, dbias, outer, channels, inner);
    }
}

extern "C" int rf_cuda_matmul_forward(const float *a, rf_cuda_shape as, const float *b, rf_cuda_shape bs, bool ta,
                                      bool tb, float *out, cublasHandle_t blas, cudaStream_t s)
{
    mm_plan p = plan_of(as, bs, ta, tb);
    return rf_cuda_gemm(ta, tb, p.rows, p.n, p.k, a, p.a_step, b, p.b_step, 0.0f, out, p.c_step, p.groups, blas, s);
}

/* C = op(A) op(B), G = dC: d op(A) = G op(B)^T, d op(B) = op(A)^T G; an A
 * stored transposed gets (d op(A))^T = op(B) G^T, and likewise B gets
 * G^T op(A). A shared b (b_step 0) sums its groups' products in order. */
extern "C" int rf_cuda_matmul_backward(const float *a, rf_cuda_shape as, const float *b, rf_cuda_shape bs, bool ta,
                                       bool tb, const float *dout, float *da, float *db, cublasHandle_t blas,
                                       cudaStream_t s)
{
    mm_plan p = plan_of(as, bs, ta, tb);
    int st = CUBLAS_STATUS_SUCCESS;
    if (da != nullptr && ta)
        st = rf_cuda_gemm(tb, true, p.k, p.rows, p.n, b, p.b_step, dout, p.c_step, 1.0f, da, p.a_step, p.groups,
                          blas, s);
    else if (da != nullptr)
        st = rf_cuda_gemm(false, !tb, p.rows, p.k, p.n, dout, p.c_step, b, p.b_step, 1.0f, da, p.a_step, p.groups,
                          blas, s);
    if (st != CUBLAS_STATUS_SUCCESS || db == nullptr)
        return st;
    if (tb)
        return rf_cuda_gemm(true, ta, p.n, p.k, p.rows, dout, p.c_step, a, p.a_step, 1.0f, db, p.b_step, p.groups,
                            blas, s);
    return rf_cuda_gemm(!ta, false, p.k, p.n, p.rows, a, p.a_step, dout, p.c_step, 1.0f, db, p.b_step, p.groups,
                        blas, s);
}

extern "C" int rf_cuda_linear_forward(const float *x, const float *w, const float *bias, float *out, int64_t rows,
                                      int64_t k, int64_t n, cublasHandle_t blas, cudaStream_t s)
{
    int st = rf_cuda_gemm(false, false, rows, n, k, x, 0, w, 0, 0.0f, out, 0, 1, blas, s);
    if (bias != nullptr)
        rf_cuda_bias_add(bias, out, rows, n, 1, s);
    return st;
}

/* dx [rows, k] += G W^T, dw [k, n] += X^T G, dbias [n] += column sums of G */
extern "C" int rf_cuda_linear_backward(const float *x, const float *w, const float *dout, float *dx, float *dw,
                                       float *dbias, int64_t rows, int64_t k, int64_t n, cublasHandle_t blas,
                                       cudaStream_t s)
{
    int st = CUBLAS_STATUS_SUCCESS;
    if (dx != nullptr)
        st = rf_cuda_gemm(false, true, rows, k, n, dout, 0, w, 0, 1.0f, dx, 0, 1, blas, s);
    if (dw != nullptr && st == CUBLAS_STATUS_SUCCESS)
        st = rf_cuda_gemm(true, false, k, n, rows, x, 0, dout, 0, 1.0f, dw, 0, 1, blas, s);
    rf_cuda_bias_grad(dout, dbias, rows, n, 1, s);
    return st;
}
