/* Transformer-LS long-short attention (core/ops/ls_attention.h, core/cpu/
 * ls_attention.c): each query attends, in one softmax, to the L = w + 2e
 * keys of its segment's band and to the G global keys (rows [n, n + G) of
 * k and v). The probabilities go to aux in the CPU's layout, P_l [b, heads,
 * n, L] then P_g [b, heads, n, G]: backward reads them, and so do the
 * "local" and "global" probes. Memory O(n (L + G)), as on the CPU.
 *
 * Forward and dQ: one warp per query row, its lanes over the row's L + G
 * columns, then over the head's dk columns. dK and dV of a band key: one
 * warp per key row, gathering over the queries of the at most three
 * segments that see it, so no two warps add into the same gradient row.
 * dK and dV of the G global keys, which every query sees, are products
 * over the whole sequence (dS_g^T Q and P_g^T dO per head) and go to
 * cuBLAS: a warp per global key would walk all n queries alone, which at
 * a million tokens left the GPU nearly idle. */
#include "common.cuh"
#include "cublas_compat.h"
#include "kernels.h"

namespace {

constexpr int ROWS = 4;   /* warps per block, one row each */

/* The band of a window w: e = max(w/2, 1) keys each side, L = w + 2e. */
struct band {
    int64_t w, e, L;
    __host__ __device__ explicit band(int window) : w(window), e(window / 2 > 1 ? window / 2 : 1), L(w + 2 * e) {}
};

/* Query row r of [b, heads, n]: its columns, band column c < L for key
 * p0 + c, column L + g for global key n + g. */
struct ls_row {
    int64_t bi, h, dk, t, n, G, L, p0;
    __device__ ls_row(const rf_cuda_heads &a, const band &bd, int64_t r)
        : bi(r / a.n / a.heads), h(r / a.n % a.heads), dk(a.d / a.heads), t(r % a.n), n(a.n), G(a.m - a.n),
          L(bd.L), p0(t / bd.w * bd.w - bd.e)
    {
    }
    __device__ int64_t key(int64_t c) const { return c < L ? p0 + c : n + (c - L); }
    /* the column has a key: a global one, or a band position inside [0, n) */
    __device__ bool present(int64_t c) const { return c >= L || (p0 + c >= 0 && p0 + c < n); }
    /* row `len`-long tensor x [b, len, d]: the head's columns of row j */
    template <class T> __device__ T *at(T *x, const rf_cuda_heads &a, int64_t len, int64_t j) const
    {
        return x + (bi * len + j) * a.d + h * dk;
    }
};

/* The row's probabilities (or dS in work), band block then global block. */
template <class T> struct prob_row {
    T *pl, *pg;
    int64_t L;
    __device__ prob_row(T *base, const rf_cuda_heads &a, const ls_row &w, int64_t r)
        : pl(base + r * w.L), pg(base + a.b * a.heads * a.n * w.L + r * w.G), L(w.L)
    {
    }
    __device__ T &operator[](int64_t c) const { return c < L ? pl[c] : pg[c - L]; }
};

__device__ float dot(const float *x, const float *y, int64_t n)
{
    float s = 0.0f;
    for (int64_t c = 0; c < n; c++)
        s += x[c] * y[c];
    return s;
}

/* Scores, the joint softmax (into aux) and the output of one query row per
 * warp. A padded query, or one with no valid key, gets zeros. */
__global__ void ls_fwd_kernel(const float *q, const float *k, const float *v, const float *mask, float *out,
                              float *aux, rf_cuda_heads a, int window)
{
    int64_t r = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    if (r >= a.b * a.heads * a.n)
        return;   /* the whole warp */
    const ls_row w(a, band(window), r);
    const prob_row P(aux, a, w, r);
    const float *qr = w.at(q, a, a.n, w.t), *mb = mask != nullptr ? mask + w.bi * a.n : nullptr;
    const bool query = mb == nullptr || mb[w.t] != 0.0f;
    auto valid = [&](int64_t c) {
        return query && w.present(c) && (c >= w.L || mb == nullptr || mb[w.key(c)] != 0.0f);
    };
    float mx = -INFINITY;
    for (int64_t c = threadIdx.x; c < w.L + w.G; c += 32) {
        float s = valid(c) ? a.scale * dot(qr, w.at(k, a, a.m, w.key(c)), w.dk) : -INFINITY;
        P[c] = s;
        mx = fmaxf(mx, s);
    }
    mx = rf_warp_max(mx);
    float sum = 0.0f;
    for (int64_t c = threadIdx.x; c < w.L + w.G; c += 32) {
        float p = valid(c) ? expf(P[c] - mx) : 0.0f;
        P[c] = p;
        sum += p;
    }
    sum = rf_warp_sum(sum);
    float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
    for (int64_t c = threadIdx.x; c < w.L + w.G; c += 32)
        P[c] *= inv;
    __syncwarp();   /* the row is written; every lane reads all of it */
    for (int64_t d = threadIdx.x; d < w.dk; d += 32) {
        float acc = 0.0f;
        for (int64_t c = 0; c < w.L + w.G; c++)
            if (w.present(c))
                acc += P[c] * w.at(v, a, a.m, w.key(c))[d];
        w.at(out, a, a.n, w.t)[d] = acc;
    }
}

/* dS = P (dP - rowsum(dP P)), dP = dO . v over the row's columns, into ds
 * (aux's layout); then dQ += scale sum_c dS_c k_c when gq is given. */
__global__ void ls_ds_kernel(const float *k, const float *v, const float *aux, const float *dout, float *ds,
                             float *gq, rf_cuda_heads a, int window)
{
    int64_t r = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    if (r >= a.b * a.heads * a.n)
        return;
    const ls_row w(a, band(window), r);
    const prob_row P(aux, a, w, r);
    const prob_row S(ds, a, w, r);
    const float *g = w.at(dout, a, a.n, w.t);
    float rowdot = 0.0f;
    for (int64_t c = threadIdx.x; c < w.L + w.G; c += 32) {
        float dp = w.present(c) ? dot(g, w.at(v, a, a.m, w.key(c)), w.dk) : 0.0f;
        S[c] = dp;
        rowdot += dp * P[c];
    }
    rowdot = rf_warp_sum(rowdot);
    for (int64_t c = threadIdx.x; c < w.L + w.G; c += 32)
        S[c] = P[c] * (S[c] - rowdot);
    if (gq == nullptr)
        return;
    __syncwarp();
    for (int64_t d = threadIdx.x; d < w.dk; d += 32) {
        float acc = 0.0f;
        for (int64_t c = 0; c < w.L + w.G; c++)
            if (w.present(c))
                acc += S[c] * w.at(k, a, a.m, w.key(c))[d];
        w.at(gq, a, a.n, w.t)[d] += a.scale * acc;
    }
}

/* dK += scale sum_t dS[t][c] q_t and dV += sum_t P[t][c] dO_t for one band
 * key row (of b heads n) per warp, over the queries t whose column c is it. */
__global__ void ls_dkv_kernel(const float *q, const float *aux, const float *dout, const float *ds, float *gk,
                              float *gv, rf_cuda_heads a, int window)
{
    int64_t r = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    if (r >= a.b * a.heads * a.n)
        return;
    const band bd(window);
    const int64_t bh = r / a.n, key = r % a.n, rows0 = bh * a.n;
    const ls_row w0(a, bd, rows0);   /* batch item and head */
    /* the segments whose band holds the key: s w - e <= key < s w - e + L */
    int64_t s_hi = (key + bd.e) / bd.w;
    s_hi = s_hi < a.n / bd.w - 1 ? s_hi : a.n / bd.w - 1;
    for (int64_t d = threadIdx.x; d < w0.dk; d += 32) {
        float ak = 0.0f, av = 0.0f;
        auto add = [&](int64_t t, int64_t c) {
            const ls_row w(a, bd, rows0 + t);
            if (gk != nullptr)
                ak += prob_row(ds, a, w, rows0 + t)[c] * w.at(q, a, a.n, t)[d];
            if (gv != nullptr)
                av += prob_row(aux, a, w, rows0 + t)[c] * w.at(dout, a, a.n, t)[d];
        };
        for (int64_t s = s_hi; s >= 0 && s * bd.w - bd.e + bd.L > key; s--)
            for (int64_t t = s * bd.w; t < (s + 1) * bd.w; t++)
                add(t, key - (s * bd.w - bd.e));
        if (gk != nullptr)
            w0.at(gk, a, a.m, key)[d] += a.scale * ak;
        if (gv != nullptr)
            w0.at(gv, a, a.m, key)[d] += av;
    }
}

unsigned row_blocks(int64_t rows) { return (unsigned)((rows + ROWS - 1) / ROWS); }

/* g[n + c] (head h's dk columns) += alpha sum_t p[t][c] x_t for the G
 * global keys c of head h, every batch item at once: p the head's [n, G]
 * blocks of P_g or dS_g, x a [b, n, d] tensor. Column-major for cuBLAS: C
 * (dk x G, ld d) += alpha X_h (dk x n, ld d) p^T (n x G, stored G x n, ld
 * G). Batched over the batch items, whose C blocks lie apart (the heads'
 * interleave, which a strided batch may not). */
cublasStatus_t global_keys_grad(const float *p, const float *x, float *g, float alpha, const rf_cuda_heads &a,
                                int64_t L, int64_t h, cublasHandle_t blas)
{
    const int64_t G = a.m - a.n, dk = a.d / a.heads;
    const float one = 1.0f;
    const float *ph = p + a.b * a.heads * a.n * L + h * a.n * G;
    return cublasSgemmStridedBatched(blas, CUBLAS_OP_N, CUBLAS_OP_T, (int)dk, (int)G, (int)a.n, &alpha, x + h * dk,
                                     (int)a.d, a.n * a.d, ph, (int)G, a.heads * a.n * G, &one, g + a.n * a.d + h * dk,
                                     (int)a.d, a.m * a.d, (int)a.b);
}

}   // namespace

extern "C" void rf_cuda_ls_attention_forward(const float *q, const float *k, const float *v, const float *mask,
                                             float *out, float *aux, rf_cuda_heads a, int window, cudaStream_t s)
{
    if (a.b * a.n * a.d > 0)
        RF_LAUNCH(ls_fwd_kernel, row_blocks(a.b * a.heads * a.n), dim3(32, ROWS), 0, s, q, k, v, mask, out, aux, a,
                  window);
}

extern "C" int rf_cuda_ls_attention_backward(const float *q, const float *k, const float *v, const float *aux,
                                             const float *dout, float *dq, float *dk, float *dv, float *work,
                                             rf_cuda_heads a, int window, cublasHandle_t blas, cudaStream_t s)
{
    if (a.b * a.n * a.d == 0 || (dq == nullptr && dk == nullptr && dv == nullptr))
        return CUBLAS_STATUS_SUCCESS;
    if (dq != nullptr || dk != nullptr)
        RF_LAUNCH(ls_ds_kernel, row_blocks(a.b * a.heads * a.n), dim3(32, ROWS), 0, s, k, v, aux, dout, work, dq, a,
                  window);
    if (dk == nullptr && dv == nullptr)
        return CUBLAS_STATUS_SUCCESS;
    RF_LAUNCH(ls_dkv_kernel, row_blocks(a.b * a.heads * a.n), dim3(32, ROWS), 0, s, q, aux, dout, work, dk, dv, a,
              window);
    if (a.m == a.n)
        return CUBLAS_STATUS_SUCCESS;
    cublasStatus_t st = cublasSetStream(blas, s);
    const int64_t L = band(window).L;
    for (int64_t h = 0; h < a.heads && st == CUBLAS_STATUS_SUCCESS; h++) {
        if (dk != nullptr)
            st = global_keys_grad(work, q, dk, a.scale, a, L, h, blas);
        if (dv != nullptr && st == CUBLAS_STATUS_SUCCESS)
            st = global_keys_grad(aux, dout, dv, 1.0f, a, L, h, blas);
    }
    return st;
}
