/* Element-wise ops (core/cpu/elementwise.c): broadcasting add, sub and mul,
 * scale, and the unary activations, forward and backward.
 *
 * Broadcasting: the output's dims (outermost first) with each operand's
 * element strides, 0 along the dims it is broadcast on. A broadcast
 * operand's gradient is a sum over those dims: one thread column per
 * operand element, blockDim.y threads and gridDim.y blocks splitting the
 * summed positions, combined in shared memory and added with atomicAdd. */
#include "common.cuh"
#include "kernels.h"

namespace {

enum { OP_ADD, OP_SUB, OP_MUL, OP_MUL_ACC };

/* out's dims and the element strides of two operands in them */
struct bview {
    int nd;
    int64_t dim[4];
    int64_t st[2][4];
};

/* operand shapes right-aligned onto `os`; a scalar output is one element */
bview make_view(rf_cuda_shape os, const rf_cuda_shape *in, int n_in)
{
    bview v = {os.ndim > 0 ? os.ndim : 1, {1, 1, 1, 1}, {{0}}};
    for (int i = 0; i < os.ndim; i++)
        v.dim[i] = os.dim[i];
    for (int k = 0; k < n_in; k++) {
        int64_t stride = 1;
        for (int i = os.ndim - 1; i >= 0; i--) {
            int j = i - (os.ndim - in[k].ndim);
            int64_t d = j >= 0 ? in[k].dim[j] : 1;
            v.st[k][i] = d == 1 ? 0 : stride;
            stride *= d;
        }
    }
    return v;
}

int64_t numel(rf_cuda_shape s)
{
    int64_t n = 1;
    for (int i = 0; i < s.ndim; i++)
        n *= s.dim[i];
    return n;
}

/* offsets of output element i in both operands */
__device__ void offsets(const bview &v, int64_t i, int64_t *oa, int64_t *ob)
{
    *oa = *ob = 0;
    for (int d = v.nd - 1; d >= 0; d--) {
        int64_t c = i % v.dim[d];
        i /= v.dim[d];
        *oa += c * v.st[0][d];
        *ob += c * v.st[1][d];
    }
}

template <int OP> __global__ void binary_kernel(const float *a, const float *b, float *out, bview v, int64_t n)
{
    RF_FOR_EACH(i, n) {
        int64_t oa, ob;
        offsets(v, i, &oa, &ob);
        float x = a[oa], y = b[ob];
        if constexpr (OP == OP_ADD)
            out[i] = x + y;
        else if constexpr (OP == OP_SUB)
            out[i] = x - y;
        else if constexpr (OP == OP_MUL)
            out[i] = x * y;
        else
            out[i] += x * y;
    }
}

void binary_run(int op, const float *a, const float *b, float *out, const bview &v, int64_t n, cudaStream_t s)
{
    unsigned blocks = rf_blocks(n, 256);
    switch (op) {
    case OP_ADD: RF_LAUNCH(binary_kernel<OP_ADD>, blocks, 256, 0, s, a, b, out, v, n); break;
    case OP_SUB: RF_LAUNCH(binary_kernel<OP_SUB>, blocks, 256, 0, s, a, b, out, v, n); break;
    case OP_MUL: RF_LAUNCH(binary_kernel<OP_MUL>, blocks, 256, 0, s, a, b, out, v, n); break;
    default: RF_LAUNCH(binary_kernel<OP_MUL_ACC>, blocks, 256, 0, s, a, b, out, v, n); break;
    }
}

/* An operand's elements (the kept dims) and the positions summed into each
 * (the dims it is broadcast along), with their strides in the output
 * gradient g and in the other operand m (mul). */
struct rview {
    int nk, nr;
    int64_t kdim[4], kg[4], km[4];
    int64_t rdim[4], rg[4], rm[4];
    int64_t count;   /* positions per element */
};

__device__ void split(int64_t i, int n, const int64_t *dim, const int64_t *sg, const int64_t *sm, int64_t *og,
                      int64_t *om)
{
    *og = *om = 0;
    for (int d = n - 1; d >= 0; d--) {
        int64_t c = i % dim[d];
        i /= dim[d];
        *og += c * sg[d];
        *om += c * sm[d];
    }
}

/* dst[e] += sign * sum over positions r of g[e, r] (* m[e, r]). Block (32,
 * ty): x picks the element, y and gridDim.y split the positions. */
__global__ void reduce_into_kernel(float *dst, const float *g, const float *m, rview v, int64_t n, float sign)
{
    RF_DYNAMIC_SHARED(float, part);   /* [blockDim.y][32] */
    int64_t e = (int64_t)blockIdx.x * 32 + threadIdx.x;
    float s = 0.0f;
    if (e < n) {
        int64_t eg, em;
        split(e, v.nk, v.kdim, v.kg, v.km, &eg, &em);
        for (int64_t r = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; r < v.count;
             r += (int64_t)blockDim.y * gridDim.y) {
            int64_t rg, rm;
            split(r, v.nr, v.rdim, v.rg, v.rm, &rg, &rm);
            s += m != nullptr ? g[eg + rg] * m[em + rm] : g[eg + rg];
        }
    }
    part[threadIdx.y * 32 + threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.y == 0 && e < n) {
        for (unsigned k = 1; k < blockDim.y; k++)
            s += part[k * 32 + threadIdx.x];
        atomicAdd(dst + e, sign * s);
    }
}

/* dx [xs] += sign * sum of g [os] (* m [ms], broadcast) over x's broadcast dims */
void reduce_into(float *dx, rf_cuda_shape xs, const float *g, rf_cuda_shape os, const float *m, rf_cuda_shape ms,
                 float sign, cudaStream_t s)
{
    rf_cuda_shape in[2] = {xs, ms};
    bview b = make_view(os, in, 2);
    rview v = {};
    v.count = 1;
    int64_t ostride = 1;
    for (int d = b.nd - 1; d >= 0; d--) {
        bool kept = b.st[0][d] != 0 || b.dim[d] == 1;
        int *k = kept ? &v.nk : &v.nr;
        int64_t *dim = kept ? v.kdim : v.rdim, *sg = kept ? v.kg : v.rg, *sm = kept ? v.km : v.rm;
        /* innermost first: shift the dims found so far outward later */
        for (int j = *k; j > 0; j--) {
            dim[j] = dim[j - 1];
            sg[j] = sg[j - 1];
            sm[j] = sm[j - 1];
        }
        dim[0] = b.dim[d];
        sg[0] = ostride;
        sm[0] = b.st[1][d];
        (*k)++;
        if (!kept)
            v.count *= b.dim[d];
        ostride *= b.dim[d];
    }
    int64_t n = numel(xs);
    const unsigned ty = 8;
    int64_t chunks = (v.count + 255) / 256;   /* about 32 positions per thread, up to 64 chunks */
    dim3 grid((unsigned)((n + 31) / 32), (unsigned)(chunks < 64 ? chunks : 64));
    RF_LAUNCH(reduce_into_kernel, grid, dim3(32, ty), ty * 32 * sizeof(float), s, dx, g, m, v, n, sign);
}

template <bool ACC> __global__ void scale_kernel(const float *x, float *y, int64_t n, float s)
{
    RF_FOR_EACH(i, n) {
        if constexpr (ACC)
            y[i] += s * x[i];
        else
            y[i] = s * x[i];
    }
}

__global__ void fill_kernel(float *y, int64_t n, float v)
{
    RF_FOR_EACH(i, n) y[i] = v;
}

/* ---- unary activations: the CPU's formulas, with CUDA's libm ---- */

#define INV_SQRT2 0.70710678118654752440f
#define INV_SQRT2PI 0.39894228040143267794f

/* 1 / (1 + e) for v >= 0, e / (1 + e) below, e = e^-|v|: never overflows */
__device__ __forceinline__ float sigmoid(float v)
{
    float e = expf(-fabsf(v));
    float r = 1.0f / (1.0f + e);
    return v >= 0.0f ? r : e * r;
}

__device__ __forceinline__ float unary_f(int kind, float v)
{
    switch (kind) {
    case 0: return 0.5f * v * (1.0f + erff(v * INV_SQRT2));
    case 1: return v > 0.0f ? v : 0.0f;
    case 2: return v > 0.0f ? v : expm1f(v);
    case 3: return fmaxf(v, 0.0f) + log1pf(expf(-fabsf(v)));
    default: return sigmoid(v);
    }
}

/* dy * f'(v); relu passes dy itself */
__device__ __forceinline__ float unary_df(int kind, float v, float dy)
{
    switch (kind) {
    case 0: {
        float cdf = 0.5f * (1.0f + erff(v * INV_SQRT2));
        float pdf = INV_SQRT2PI * expf(-0.5f * v * v);
        return dy * (cdf + v * pdf);
    }
    case 1: return v > 0.0f ? dy : 0.0f;
    case 2: return dy * (v > 0.0f ? 1.0f : expf(v));
    case 3: return dy * sigmoid(v);
    default: {
        float s = sigmoid(v);
        return dy * (s * (1.0f - s));
    }
    }
}

__global__ void unary_fwd_kernel(int kind, const float *x, float *y, int64_t n)
{
    RF_FOR_EACH(i, n) y[i] = unary_f(kind, x[i]);
}

__global__ void unary_bwd_kernel(int kind, const float *x, const float *dy, float *dx, int64_t n)
{
    RF_FOR_EACH(i, n) dx[i] += unary_df(kind, x[i], dy[i]);
}

/* GLU: element i of the output [rows, d] reads a = x[r, j], b = x[r, d + j] */
__global__ void glu_fwd_kernel(const float *x, float *y, int64_t n, int64_t d)
{
    RF_FOR_EACH(i, n)
    {
        int64_t r = i / d, j = i - r * d;
        const float *a = x + r * 2 * d + j;
        y[i] = a[0] * sigmoid(a[d]);
    }
}

/* da += dy s, db += (dy a) s (1 - s), as the CPU */
__global__ void glu_bwd_kernel(const float *x, const float *dy, float *dx, int64_t n, int64_t d)
{
    RF_FOR_EACH(i, n)
    {
        int64_t r = i / d, j = i - r * d, at = r * 2 * d + j;
        float a = x[at], s = sigmoid(x[at + d]);
        dx[at] += dy[i] * s;
        dx[at + d] += (dy[i] * a) * (s * (1.0f - s));
    }
}

}   // namespace

extern "C" void rf_cuda_binary_forward(rf_cuda_binary op, const float *a, rf_cuda_shape as, const float *b,
                                       rf_cuda_shape bs, float *out, rf_cuda_shape os, cudaStream_t s)
{
    rf_cuda_shape in[2] = {as, bs};
    int64_t n = numel(os);
    if (n > 0)
        binary_run(op == RF_CUDA_ADD ? OP_ADD : op == RF_CUDA_SUB ? OP_SUB : OP_MUL, a, b, out, make_view(os, in, 2),
                   n, s);
}

extern "C" void rf_cuda_binary_backward(rf_cuda_binary op, const float *dout, rf_cuda_shape os, const float *a,
                                        rf_cuda_shape as, float *da, const float *b, rf_cuda_shape bs, float *db,
                                        cudaStream_t s)
{
    int64_t n = numel(os);
    if (n == 0)
        return;
    float *dx[2] = {da, db};
    rf_cuda_shape xs[2] = {as, bs};
    const float *val[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        if (dx[k] == nullptr)
            continue;
        float sign = op == RF_CUDA_SUB && k == 1 ? -1.0f : 1.0f;
        const float *other = op == RF_CUDA_MUL ? val[1 - k] : nullptr;
        bool whole = numel(xs[k]) == n;   /* not broadcast: nothing to sum */
        if (whole && other == nullptr) {
            RF_LAUNCH(scale_kernel<true>, rf_blocks(n, 256), 256, 0, s, dout, dx[k], n, sign);
        } else if (whole) {
            rf_cuda_shape in[2] = {os, xs[1 - k]};
            binary_run(OP_MUL_ACC, dout, other, dx[k], make_view(os, in, 2), n, s);
        } else {
            reduce_into(dx[k], xs[k], dout, os, other, other != nullptr ? xs[1 - k] : os, sign, s);
        }
    }
}

extern "C" void rf_cuda_scale_forward(const float *x, float *y, int64_t n, float s, cudaStream_t stream)
{
    if (n > 0)
        RF_LAUNCH(scale_kernel<false>, rf_blocks(n, 256), 256, 0, stream, x, y, n, s);
}

extern "C" void rf_cuda_scale_backward(const float *dy, float *dx, int64_t n, float s, cudaStream_t stream)
{
    if (n > 0)
        RF_LAUNCH(scale_kernel<true>, rf_blocks(n, 256), 256, 0, stream, dy, dx, n, s);
}

extern "C" void rf_cuda_fill(float *y, int64_t n, float v, cudaStream_t stream)
{
    if (n > 0)
        RF_LAUNCH(fill_kernel, rf_blocks(n, 256), 256, 0, stream, y, n, v);
}

extern "C" void rf_cuda_unary_forward(int kind, const float *x, float *y, int64_t n, cudaStream_t stream)
{
    if (n > 0)
        RF_LAUNCH(unary_fwd_kernel, rf_blocks(n, 256), 256, 0, stream, kind, x, y, n);
}

extern "C" void rf_cuda_unary_backward(int kind, const float *x, const float *dy, float *dx, int64_t n,
                                       cudaStream_t stream)
{
    if (n > 0)
        RF_LAUNCH(unary_bwd_kernel, rf_blocks(n, 256), 256, 0, stream, kind, x, dy, dx, n);
}

extern "C" void rf_cuda_glu_forward(const float *x, float *y, int64_t n, int64_t d, cudaStream_t stream)
{
    if (n > 0)
        RF_LAUNCH(glu_fwd_kernel, rf_blocks(n, 256), 256, 0, stream, x, y, n, d);
}

extern "C" void rf_cuda_glu_backward(const float *x, const float *dy, float *dx, int64_t n, int64_t d,
                                     cudaStream_t stream)
{
    if (n > 0)
        RF_LAUNCH(glu_bwd_kernel, rf_blocks(n, 256), 256, 0, stream, x, dy, dx, n, d);
}
