/* Kernelised linear attention (core/ops/linear_attention.h, core/cpu/
 * linear_attention.c): per head, with Fq = phi(s q), Fk = phi(s k) (zero
 * rows at padded keys) and t = 1/sqrt(valid keys),
 *     KV = t Fk^T V [dk, dk],  Ksum = t Fk^T 1 [dk],
 *     den = Fq . Ksum,  O = (Fq KV) / den (zeros where den is not > 0).
 * aux holds what the CPU op keeps, in its layout (rf_linear_attention_aux_
 * layout): Fq, Fk, KV (the "kv" probe reads it), Ksum, den, t.
 *
 * KV and Ksum, and in backward dKV = Fq^T (dO / den) and dKsum = Fq^T dden
 * (dden = -(dO . O) / den), are sums over the sequence: blocks take CHUNK
 * rows each and add their partial sums with atomics into zeroed buffers.
 * Everything else is one warp per (row, head), lanes over the head's
 * columns. Backward's only temporary is dKV and dKsum: `work`, b heads
 * (dk dk + dk) floats, where the CPU needs O(n d). */
#include "common.cuh"
#include "kernels.h"

namespace {

constexpr int ROWS = 4;          /* warps per block in the row kernels */
constexpr int CHUNK = 64;        /* sequence rows per block in the sums */
constexpr unsigned SUM_THREADS = 128;

enum { MAP_ELU1, MAP_RELU, MAP_SOFTPLUS };   /* rf_kernel_map */

/* Where each saved tensor starts in aux (rf_linear_attention_aux_layout). */
struct layout {
    int64_t phi_q, phi_k, kv, ksum, den, inv_tau;
    explicit layout(const rf_cuda_heads &a)
    {
        int64_t dk = a.d / a.heads;
        phi_q = 0;
        phi_k = phi_q + a.b * a.n * a.d;
        kv = phi_k + a.b * a.m * a.d;
        ksum = kv + a.b * a.heads * dk * dk;
        den = ksum + a.b * a.heads * dk;
        inv_tau = den + a.b * a.heads * a.n;
    }
};

__device__ float phi(int map, float v)
{
    switch (map) {
    case MAP_ELU1: return v > 0.0f ? v + 1.0f : expf(v);
    case MAP_RELU: return v > 0.0f ? v : 0.0f;
    default: return fmaxf(v, 0.0f) + log1pf(expf(-fabsf(v)));
    }
}

/* s phi'(v) d, with phi'(v) recovered from f = phi(v) as the CPU does:
 * elu+1: 1 above 0, else e^v = f; ReLU: 1 where f > 0; softplus: 1 - e^-f. */
__device__ float dphi(int map, float s, float f, float d)
{
    switch (map) {
    case MAP_ELU1: return s * (f > 1.0f ? 1.0f : f) * d;
    case MAP_RELU: return f > 0.0f ? s * d : 0.0f;
    default: return -(s * expm1f(-f) * d);
    }
}

/* Row r of (b, len, heads) rows: batch item, position, head. */
struct head_row {
    int64_t bi, i, h, bh, dk;
    __device__ head_row(const rf_cuda_heads &a, int64_t len, int64_t r)
        : bi(r / a.heads / len), i(r / a.heads % len), h(r % a.heads), bh(bi * a.heads + h), dk(a.d / a.heads)
    {
    }
    template <class T> __device__ T *at(T *x, const rf_cuda_heads &a, int64_t len) const
    {
        return x + (bi * len + i) * a.d + h * dk;
    }
};

/* inv_tau[b] = 1/sqrt(valid keys), 1 for none; one block per batch item. */
__global__ void la_tau_kernel(const float *mask, float *inv_tau, int64_t m)
{
    int valid = 0;
    for (int64_t j = threadIdx.x; j < m; j += blockDim.x)
        valid += mask == nullptr || mask[blockIdx.x * m + j] != 0.0f;
    valid = rf_block_sum(valid);
    if (threadIdx.x == 0)
        inv_tau[blockIdx.x] = valid > 0 ? 1.0f / sqrtf((float)valid) : 1.0f;
}

/* f = phi(s x) over rows of d; rows with mask 0 become zeros. */
__global__ void la_phi_kernel(const float *x, const float *mask, float *f, int64_t rows, int64_t d, int map, float s)
{
    RF_FOR_EACH(e, rows * d) {
        f[e] = mask != nullptr && mask[e / d] == 0.0f ? 0.0f : phi(map, s * x[e]);
    }
}

/* KV += t sum Fk^T V and Ksum += t sum Fk over CHUNK key rows of head
 * blockIdx.x; blockIdx.y picks the chunk. */
__global__ void la_kv_kernel(const float *fk, const float *v, const float *inv_tau, float *kv, float *ksum,
                             rf_cuda_heads a)
{
    const int64_t bh = blockIdx.x, bi = bh / a.heads, dk = a.d / a.heads, col0 = bh % a.heads * dk;
    const int64_t m0 = (int64_t)blockIdx.y * CHUNK, m1 = m0 + CHUNK < a.m ? m0 + CHUNK : a.m;
    const float t = inv_tau[bi];
    for (int64_t o = threadIdx.x; o < dk * dk + dk; o += blockDim.x) {
        int64_t row = o / dk, c = o % dk;   /* row dk is Ksum */
        float s = 0.0f;
        for (int64_t j = m0; j < m1; j++) {
            const float *f = fk + (bi * a.m + j) * a.d + col0;
            s += row < dk ? f[row] * v[(bi * a.m + j) * a.d + col0 + c] : f[c];
        }
        atomicAdd(row < dk ? kv + bh * dk * dk + o : ksum + bh * dk + c, t * s);
    }
}

/* den = Fq . Ksum and O = (Fq KV) / den for one (query, head) per warp. */
__global__ void la_out_kernel(float *aux, float *out, rf_cuda_heads a, layout l)
{
    int64_t r = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    if (r >= a.b * a.n * a.heads)
        return;   /* the whole warp */
    const head_row w(a, a.n, r);
    const float *fq = w.at(aux + l.phi_q, a, a.n), *kv = aux + l.kv + w.bh * w.dk * w.dk;
    const float *ks = aux + l.ksum + w.bh * w.dk;
    float den = 0.0f;
    for (int64_t j = threadIdx.x; j < w.dk; j += 32)
        den += fq[j] * ks[j];
    den = rf_warp_sum(den);
    if (threadIdx.x == 0)
        aux[l.den + w.bh * a.n + w.i] = den;
    float inv = den > 0.0f ? 1.0f / den : 0.0f;
    for (int64_t c = threadIdx.x; c < w.dk; c += 32) {
        float u = 0.0f;
        for (int64_t j = 0; j < w.dk; j++)
            u += fq[j] * kv[j * w.dk + c];
        w.at(out, a, a.n)[c] = u * inv;
    }
}

/* dKV += Fq^T dU and (with dksum) dKsum += Fq^T dden over CHUNK query rows,
 * dU = dO / den, dden = -(dO . O) / den, both 0 where den is not > 0. */
__global__ void la_dkv_kernel(const float *aux, const float *out, const float *dout, float *dkv, float *dksum,
                              rf_cuda_heads a, layout l)
{
    __shared__ float inv_s[CHUNK], dden_s[CHUNK];
    const int64_t bh = blockIdx.x, bi = bh / a.heads, dk = a.d / a.heads, col0 = bh % a.heads * dk;
    const int64_t i0 = (int64_t)blockIdx.y * CHUNK, rows = i0 + CHUNK < a.n ? CHUNK : a.n - i0;
    for (int64_t t = threadIdx.x; t < rows; t += blockDim.x) {
        const float *g = dout + (bi * a.n + i0 + t) * a.d + col0, *o = out + (bi * a.n + i0 + t) * a.d + col0;
        float den = aux[l.den + bh * a.n + i0 + t], inv = den > 0.0f ? 1.0f / den : 0.0f, go = 0.0f;
        for (int64_t c = 0; c < dk; c++)
            go += g[c] * o[c];
        inv_s[t] = inv;
        dden_s[t] = -go * inv;
    }
    __syncthreads();
    for (int64_t e = threadIdx.x; e < dk * dk + (dksum != nullptr ? dk : 0); e += blockDim.x) {
        int64_t row = e / dk, c = e % dk;   /* row dk is dKsum */
        float s = 0.0f;
        for (int64_t t = 0; t < rows; t++) {
            const float *fq = aux + l.phi_q + (bi * a.n + i0 + t) * a.d + col0;
            s += row < dk ? fq[row] * (dout[(bi * a.n + i0 + t) * a.d + col0 + c] * inv_s[t]) : fq[c] * dden_s[t];
        }
        atomicAdd(row < dk ? dkv + bh * dk * dk + e : dksum + bh * dk + c, s);
    }
}

/* dq += s phi'(Fq) (dU KV^T + dden Ksum) for one (query, head) per warp. */
__global__ void la_dq_kernel(const float *aux, const float *out, const float *dout, float *gq, int map,
                             rf_cuda_heads a, layout l)
{
    int64_t r = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    if (r >= a.b * a.n * a.heads)
        return;
    const head_row w(a, a.n, r);
    const float *fq = w.at(aux + l.phi_q, a, a.n), *kv = aux + l.kv + w.bh * w.dk * w.dk;
    const float *ks = aux + l.ksum + w.bh * w.dk, *g = w.at(dout, a, a.n), *o = w.at(out, a, a.n);
    float den = aux[l.den + w.bh * a.n + w.i], inv = den > 0.0f ? 1.0f / den : 0.0f, go = 0.0f;
    for (int64_t c = threadIdx.x; c < w.dk; c += 32)
        go += g[c] * o[c];
    float dden = -rf_warp_sum(go) * inv;
    for (int64_t j = threadIdx.x; j < w.dk; j += 32) {
        float p = 0.0f;
        for (int64_t c = 0; c < w.dk; c++)
            p += g[c] * inv * kv[j * w.dk + c];
        w.at(gq, a, a.n)[j] += dphi(map, a.scale, fq[j], p + dden * ks[j]);
    }
}

/* dv += t Fk dKV, and for a valid key dk += s phi'(Fk) t (V dKV^T + dKsum),
 * for one (key, head) per warp. */
__global__ void la_key_grad_kernel(const float *v, const float *mask, const float *aux, const float *dkv,
                                   const float *dksum, float *gk, float *gv, int map, rf_cuda_heads a, layout l)
{
    int64_t r = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    if (r >= a.b * a.m * a.heads)
        return;
    const head_row w(a, a.m, r);
    const float *fk = w.at(aux + l.phi_k, a, a.m), *vr = w.at(v, a, a.m), *D = dkv + w.bh * w.dk * w.dk;
    const float t = aux[l.inv_tau + w.bi];
    for (int64_t c = threadIdx.x; gv != nullptr && c < w.dk; c += 32) {
        float s = 0.0f;
        for (int64_t j = 0; j < w.dk; j++)
            s += fk[j] * D[j * w.dk + c];
        w.at(gv, a, a.m)[c] += t * s;
    }
    if (gk == nullptr || (mask != nullptr && mask[w.bi * a.m + w.i] == 0.0f))
        return;   /* a padded key gets nothing */
    for (int64_t j = threadIdx.x; j < w.dk; j += 32) {
        float s = 0.0f;
        for (int64_t c = 0; c < w.dk; c++)
            s += vr[c] * D[j * w.dk + c];
        w.at(gk, a, a.m)[j] += dphi(map, a.scale, fk[j], t * s + t * dksum[w.bh * w.dk + j]);
    }
}

unsigned row_blocks(int64_t rows) { return (unsigned)((rows + ROWS - 1) / ROWS); }
unsigned chunks(int64_t len) { return (unsigned)((len + CHUNK - 1) / CHUNK); }

}   // namespace

extern "C" void rf_cuda_linear_attention_forward(const float *q, const float *k, const float *v, const float *mask,
                                                 float *out, float *aux, rf_cuda_heads a, int map, cudaStream_t s)
{
    if (a.b * a.n * a.m * a.d == 0)
        return;
    const layout l(a);
    const int64_t dk = a.d / a.heads;
    RF_LAUNCH(la_tau_kernel, (unsigned)a.b, SUM_THREADS, 0, s, mask, aux + l.inv_tau, a.m);
    RF_LAUNCH(la_phi_kernel, rf_blocks(a.b * a.n * a.d, 256), 256, 0, s, q, (const float *)nullptr, aux + l.phi_q,
              a.b * a.n, a.d, map, a.scale);
    RF_LAUNCH(la_phi_kernel, rf_blocks(a.b * a.m * a.d, 256), 256, 0, s, k, mask, aux + l.phi_k, a.b * a.m, a.d, map,
              a.scale);
    cudaMemsetAsync(aux + l.kv, 0, sizeof(float) * (size_t)(a.b * a.heads * (dk * dk + dk)), s);   /* KV, Ksum */
    RF_LAUNCH(la_kv_kernel, dim3((unsigned)(a.b * a.heads), chunks(a.m)), SUM_THREADS, 0, s, aux + l.phi_k, v,
              aux + l.inv_tau, aux + l.kv, aux + l.ksum, a);
    RF_LAUNCH(la_out_kernel, row_blocks(a.b * a.n * a.heads), dim3(32, ROWS), 0, s, aux, out, a, l);
}

extern "C" void rf_cuda_linear_attention_backward(const float *v, const float *mask, const float *aux,
                                                  const float *out, const float *dout, float *dq, float *dk, float *dv,
                                                  float *work, rf_cuda_heads a, int map, cudaStream_t s)
{
    if (a.b * a.n * a.m * a.d == 0)
        return;
    const layout l(a);
    const int64_t dkw = a.d / a.heads;
    if (dq != nullptr)
        RF_LAUNCH(la_dq_kernel, row_blocks(a.b * a.n * a.heads), dim3(32, ROWS), 0, s, aux, out, dout, dq, map, a, l);
    if (dk == nullptr && dv == nullptr)
        return;
    float *dkv = work, *dksum = work + a.b * a.heads * dkw * dkw;
    cudaMemsetAsync(work, 0, sizeof(float) * (size_t)(a.b * a.heads * (dkw * dkw + dkw)), s);
    RF_LAUNCH(la_dkv_kernel, dim3((unsigned)(a.b * a.heads), chunks(a.n)), SUM_THREADS, 0, s, aux, out, dout, dkv,
              dk != nullptr ? dksum : nullptr, a, l);
    RF_LAUNCH(la_key_grad_kernel, row_blocks(a.b * a.m * a.heads), dim3(32, ROWS), 0, s, v, mask, aux, dkv, dksum, dk,
              dv, map, a, l);
}
