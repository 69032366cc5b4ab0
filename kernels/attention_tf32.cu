/* Multi-head softmax attention with a key mask on tensor cores, TF32
 * operands and f32 accumulation (train.tf32 = on): the op, outputs and aux
 * of attention.cu, whose scalar kernels stay the exact f32 path.
 *
 * Every kernel gives each of a block's WARPS warps 16 rows of its own side
 * (queries; keys in dK/dV) and walks the other side in tiles of TILE rows
 * that the block copies into shared memory (cp.async), zero-filled past the
 * sequence and past dk up to DKP, the head width rounded up to the
 * instruction's k-step of 8 (kernels/mma.cuh). A warp's own rows stay in
 * registers as A fragments, read once through the first tile buffers.
 *
 * Forward (FlashAttention-2): per key tile S = Q K^T on the tensor cores,
 * then, on the result fragments in registers, the scale, the mask, the
 * online softmax (each row's running max and sum; a lane holds 8 of a
 * row's 32 scores and its group of 4 lanes holds the row) and the rescaling
 * of the output accumulator, then O += P V with P taken straight from the
 * score fragments (mma.cuh's paired k order). lse = max + log(sum) per row,
 * as the scalar kernel saves it.
 *
 * Backward: D = rowsum(dO * O) (attention.cu's kernel), then
 *     dQ kernel, per key tile:    S = Q K^T, dP = dO V^T, dS = P (dP - D), dQ += dS K
 *     dK/dV kernel, per query tile: S^T = K Q^T, dP^T = V dO^T, P^T, dS^T,
 *                                   dV += P^T dO, dK += dS^T Q
 * with P = exp(scale S - lse) recomputed, so no two blocks add into the
 * same gradient row and no n x m matrix exists. */
#include "attention_heads.cuh"
#include "mma.cuh"

namespace {

constexpr int WARPS = 4;            /* per block */
constexpr int ROWS = 16 * WARPS;    /* a block's rows of its own side: 16 per warp (the instruction's m) */
constexpr int TILE = 32;            /* rows of the other side per shared-memory tile */
constexpr int NT = TILE / 8;        /* a tile's 8-wide result blocks (the instruction's n and k) */
static_assert(2 * TILE == ROWS, "a block's own rows pass through the two tile buffers");

typedef rf_attention_head head;

/* A tile's row pitch: DKP + 4 floats puts the 32 lanes of a fragment load
 * (rows g, columns t; or rows 2t, 2t+1, columns g) in 32 different banks
 * when DKP is a multiple of 32, and in few shared ones otherwise. */
template <int DKP> RF_HD constexpr int pitch() { return DKP + 4; }

template <int DKP> RF_HD constexpr size_t tile_floats() { return (size_t)TILE * pitch<DKP>(); }

/* dst [rows][pitch] = rows r0.. of the head's block of x [b, len, d],
 * asynchronously; rows past len and columns past dk are zeros (never NaN:
 * a zero weight or a padded column must give a zero term). */
template <int DKP>
__device__ void load_rows(const float *x, const rf_cuda_heads &a, const head &hd, int64_t len, int64_t r0, int rows,
                          float *dst)
{
    for (int e = threadIdx.y * 32 + threadIdx.x; e < rows * DKP; e += 32 * WARPS) {
        int r = e / DKP, c = e % DKP;
        bool in = r0 + r < len && c < hd.dk;
        rf_cp_async4(dst + r * pitch<DKP>() + c, in ? hd.row(x, a, len, r0 + r) + c : x, in);
    }
}

/* The warp's A fragments of its 16 rows of x (the block's rows from r0),
 * through `buf` (two tiles); ends with the buffer free again. */
template <int DKP>
__device__ void own_rows(uint32_t f[DKP / 8][4], const float *x, const rf_cuda_heads &a, const head &hd, int64_t len,
                         int64_t r0, float *buf)
{
    __syncthreads();   /* every warp is done with buf */
    load_rows<DKP>(x, a, hd, len, r0, ROWS, buf);
    rf_cp_async_wait_all();
    __syncthreads();
    for (int j = 0; j < DKP / 8; j++)
        rf_mma_load_a(f[j], buf + threadIdx.y * 16 * pitch<DKP>() + 8 * j, pitch<DKP>());
}

/* r[c] = A Xᵀ for the tile x's rows 8c..8c+7, A the warp's 16 rows: a
 * 16 x TILE result, NT fragments. */
template <int DKP> __device__ void times_tile_t(float r[NT][4], const uint32_t A[DKP / 8][4], const float *x)
{
    for (int c = 0; c < NT; c++) {
        r[c][0] = r[c][1] = r[c][2] = r[c][3] = 0.0f;
        for (int j = 0; j < DKP / 8; j++) {
            uint32_t b[2];
            rf_mma_load_bt(b, x + 8 * c * pitch<DKP>() + 8 * j, pitch<DKP>());
            rf_mma_tf32(r[c], A[j], b, r[c]);
        }
    }
}

/* acc += W x for the 16 x TILE weights W (result fragments) and the tile x
 * (TILE x DKP). */
template <int DKP> __device__ void add_weighted_tile(float acc[DKP / 8][4], const float W[NT][4], const float *x)
{
    for (int j = 0; j < NT; j++) {
        uint32_t w[4];
        rf_mma_a_from_result(w, W[j]);
        for (int o = 0; o < DKP / 8; o++) {
            uint32_t b[2];
            rf_mma_load_b_paired(b, x + 8 * j * pitch<DKP>() + 8 * o, pitch<DKP>());
            rf_mma_tf32(acc[o], w, b, acc[o]);
        }
    }
}

/* Over the 4 lanes of a group (one row of a result fragment). */
__device__ float group_max(float v)
{
    v = fmaxf(v, __shfl_xor_sync(RF_FULL_MASK, v, 1));
    return fmaxf(v, __shfl_xor_sync(RF_FULL_MASK, v, 2));
}

__device__ float group_sum(float v)
{
    v += __shfl_xor_sync(RF_FULL_MASK, v, 1);
    return v + __shfl_xor_sync(RF_FULL_MASK, v, 2);
}

/* Where element i of a result fragment lies: row g + 8 (i / 2) of the
 * warp's 16, column 8 c + 2 t + i % 2 of block c. */
__device__ int frag_row(int i) { return (int)(threadIdx.x % 32) / 4 + 8 * (i / 2); }
__device__ int frag_col(int c, int i) { return 8 * c + 2 * ((int)threadIdx.x % 4) + i % 2; }

/* Block (32, WARPS) per ROWS queries of one (b, h): grid (ceil(n / ROWS), b heads). */
template <int DKP>
__global__ void attn_tf32_fwd_kernel(const float *q, const float *k, const float *v, const float *mask, float *out,
                                     float *lse, rf_cuda_heads a)
{
    RF_DYNAMIC_SHARED(float, sh);
    float *ks = sh, *vs = sh + tile_floats<DKP>();
    const head hd(a, blockIdx.y);
    const int64_t b0 = (int64_t)blockIdx.x * ROWS, r0 = b0 + threadIdx.y * 16;
    uint32_t qa[DKP / 8][4];
    own_rows<DKP>(qa, q, a, hd, a.n, b0, sh);
    float acc[DKP / 8][4] = {};
    float mx[2] = {-INFINITY, -INFINITY}, sum[2] = {0.0f, 0.0f};   /* rows g and g + 8 */
    for (int64_t j0 = 0; j0 < a.m; j0 += TILE) {
        __syncthreads();   /* every warp is done with the previous tile */
        load_rows<DKP>(k, a, hd, a.m, j0, TILE, ks);
        load_rows<DKP>(v, a, hd, a.m, j0, TILE, vs);
        rf_cp_async_wait_all();
        __syncthreads();
        float s[NT][4];
        times_tile_t<DKP>(s, qa, ks);
        float tile_mx[2] = {-INFINITY, -INFINITY};
        for (int c = 0; c < NT; c++)
            for (int i = 0; i < 4; i++) {
                bool valid = rf_attention_key_valid(mask, a, hd.bi, j0 + frag_col(c, i));
                s[c][i] = valid ? a.scale * s[c][i] : -INFINITY;
                tile_mx[i / 2] = fmaxf(tile_mx[i / 2], s[c][i]);
            }
        float keep[2], part[2] = {0.0f, 0.0f};
        for (int h = 0; h < 2; h++) {
            float next = fmaxf(mx[h], group_max(tile_mx[h]));
            keep[h] = next == -INFINITY ? 1.0f : expf(mx[h] - next);   /* no valid key yet: nothing to rescale */
            mx[h] = next;
        }
        for (int c = 0; c < NT; c++)
            for (int i = 0; i < 4; i++) {
                s[c][i] = s[c][i] == -INFINITY ? 0.0f : expf(s[c][i] - mx[i / 2]);
                part[i / 2] += s[c][i];
            }
        for (int h = 0; h < 2; h++)
            sum[h] = sum[h] * keep[h] + group_sum(part[h]);
        for (int o = 0; o < DKP / 8; o++)
            for (int i = 0; i < 4; i++)
                acc[o][i] *= keep[i / 2];
        add_weighted_tile<DKP>(acc, s, vs);
    }
    for (int o = 0; o < DKP / 8; o++)
        for (int i = 0; i < 4; i++) {
            int64_t row = r0 + frag_row(i), col = frag_col(o, i);
            float inv = sum[i / 2] > 0.0f ? 1.0f / sum[i / 2] : 0.0f;   /* a row with no valid key: zeros */
            if (row < a.n && col < hd.dk)
                hd.row(out, a, a.n, row)[col] = acc[o][i] * inv;
        }
    for (int h = 0; h < 2 && threadIdx.x % 4 == 0; h++) {
        int64_t row = r0 + frag_row(2 * h);
        if (row < a.n)
            lse[blockIdx.y * a.n + row] = sum[h] > 0.0f ? mx[h] + logf(sum[h]) : -INFINITY;
    }
}

/* dQ: block (32, WARPS) per ROWS queries, as the forward kernel. */
template <int DKP>
__global__ void attn_tf32_dq_kernel(const float *q, const float *k, const float *v, const float *mask,
                                    const float *lse, const float *dout, const float *D, float *gq, rf_cuda_heads a)
{
    RF_DYNAMIC_SHARED(float, sh);
    float *ks = sh, *vs = sh + tile_floats<DKP>();
    const head hd(a, blockIdx.y);
    const int64_t b0 = (int64_t)blockIdx.x * ROWS, r0 = b0 + threadIdx.y * 16;
    uint32_t qa[DKP / 8][4], ga[DKP / 8][4];
    own_rows<DKP>(qa, q, a, hd, a.n, b0, sh);
    own_rows<DKP>(ga, dout, a, hd, a.n, b0, sh);
    float l[2], Dr[2];
    for (int h = 0; h < 2; h++) {
        int64_t row = r0 + frag_row(2 * h);
        l[h] = row < a.n ? lse[blockIdx.y * a.n + row] : 0.0f;
        Dr[h] = row < a.n ? D[blockIdx.y * a.n + row] : 0.0f;
    }
    float acc[DKP / 8][4] = {};
    for (int64_t j0 = 0; j0 < a.m; j0 += TILE) {
        __syncthreads();
        load_rows<DKP>(k, a, hd, a.m, j0, TILE, ks);
        load_rows<DKP>(v, a, hd, a.m, j0, TILE, vs);
        rf_cp_async_wait_all();
        __syncthreads();
        float s[NT][4], dp[NT][4];
        times_tile_t<DKP>(s, qa, ks);
        times_tile_t<DKP>(dp, ga, vs);
        for (int c = 0; c < NT; c++)
            for (int i = 0; i < 4; i++) {
                bool valid = rf_attention_key_valid(mask, a, hd.bi, j0 + frag_col(c, i));
                float p = valid ? expf(a.scale * s[c][i] - l[i / 2]) : 0.0f;
                s[c][i] = p * (dp[c][i] - Dr[i / 2]);   /* dS */
            }
        add_weighted_tile<DKP>(acc, s, ks);
    }
    for (int o = 0; o < DKP / 8; o++)
        for (int i = 0; i < 4; i++) {
            int64_t row = r0 + frag_row(i), col = frag_col(o, i);
            if (row < a.n && col < hd.dk)
                hd.row(gq, a, a.n, row)[col] += a.scale * acc[o][i];
        }
}

/* dK and dV: block (32, WARPS) per ROWS keys, tiles of TILE queries (q,
 * dO, and the tile's lse and D in shared memory). A masked key gets no
 * gradient. */
template <int DKP>
__global__ void attn_tf32_dkv_kernel(const float *q, const float *k, const float *v, const float *mask,
                                     const float *lse, const float *dout, const float *D, float *gk, float *gv,
                                     rf_cuda_heads a)
{
    RF_DYNAMIC_SHARED(float, sh);
    float *qs = sh, *gs = sh + tile_floats<DKP>(), *ls = gs + tile_floats<DKP>(), *Ds = ls + TILE;
    const head hd(a, blockIdx.y);
    const int64_t b0 = (int64_t)blockIdx.x * ROWS, r0 = b0 + threadIdx.y * 16;
    uint32_t ka[DKP / 8][4], va[DKP / 8][4];
    own_rows<DKP>(ka, k, a, hd, a.m, b0, sh);
    own_rows<DKP>(va, v, a, hd, a.m, b0, sh);
    bool valid[2];
    for (int h = 0; h < 2; h++)
        valid[h] = rf_attention_key_valid(mask, a, hd.bi, r0 + frag_row(2 * h));
    float acck[DKP / 8][4] = {}, accv[DKP / 8][4] = {};
    for (int64_t i0 = 0; i0 < a.n; i0 += TILE) {
        __syncthreads();
        load_rows<DKP>(q, a, hd, a.n, i0, TILE, qs);
        load_rows<DKP>(dout, a, hd, a.n, i0, TILE, gs);
        int t = threadIdx.y * 32 + threadIdx.x;
        if (t < TILE) {
            ls[t] = i0 + t < a.n ? lse[blockIdx.y * a.n + i0 + t] : 0.0f;
            Ds[t] = i0 + t < a.n ? D[blockIdx.y * a.n + i0 + t] : 0.0f;
        }
        rf_cp_async_wait_all();
        __syncthreads();
        float p[NT][4], ds[NT][4];
        times_tile_t<DKP>(p, ka, qs);    /* S^T */
        times_tile_t<DKP>(ds, va, gs);   /* dP^T */
        for (int c = 0; c < NT; c++)
            for (int i = 0; i < 4; i++) {
                int col = frag_col(c, i);
                bool live = valid[i / 2] && i0 + col < a.n;
                p[c][i] = live ? expf(a.scale * p[c][i] - ls[col]) : 0.0f;
                ds[c][i] = p[c][i] * (ds[c][i] - Ds[col]);
            }
        add_weighted_tile<DKP>(accv, p, gs);
        add_weighted_tile<DKP>(acck, ds, qs);
    }
    for (int o = 0; o < DKP / 8; o++)
        for (int i = 0; i < 4; i++) {
            int64_t row = r0 + frag_row(i), col = frag_col(o, i);
            if (!valid[i / 2] || col >= hd.dk)
                continue;
            if (gk != nullptr)
                hd.row(gk, a, a.m, row)[col] += a.scale * acck[o][i];
            if (gv != nullptr)
                hd.row(gv, a, a.m, row)[col] += accv[o][i];
        }
}

/* Dynamic shared memory: two tiles (the forward's and dQ's K and V; dK/dV's
 * q and dO, then their lse and D). */
template <int DKP> constexpr size_t tiles_bytes() { return sizeof(float) * 2 * tile_floats<DKP>(); }
template <int DKP> constexpr size_t dkv_bytes() { return tiles_bytes<DKP>() + sizeof(float) * 2 * TILE; }
static_assert(dkv_bytes<RF_CUDA_ATTENTION_TF32_MAX_DK>() <= 48 * 1024,
              "the widest head's tiles fit the 48 KiB of dynamic shared memory a launch gets");

/* The kernels' widths: the powers of two from 8 to the widest. A head is
 * padded with zero columns to the next one (a head of 72 computes as 128).
 * Every multiple of 8 was 16 widths x 3 kernels x 2 architectures: over
 * two minutes of nvcc on the build's critical path, in each of CI's two
 * builds. */
#define RF_TF32_WIDTHS(X) X(8) X(16) X(32) X(64) X(128)
static_assert(RF_CUDA_ATTENTION_TF32_MAX_DK == 128, "RF_TF32_WIDTHS lists the powers of two up to it");

int padded_width(const rf_cuda_heads &a)
{
    int dk = (int)(a.d / a.heads), w = 8;
    while (w < dk)
        w *= 2;
    return w;
}

dim3 grid(const rf_cuda_heads &a, int64_t rows)
{
    return dim3((unsigned)((rows + ROWS - 1) / ROWS), (unsigned)(a.b * a.heads));
}

bool empty(const rf_cuda_heads &a) { return a.b == 0 || a.n == 0 || a.m == 0 || a.d == 0; }

}   // namespace

extern "C" void rf_cuda_attention_forward_tf32(const float *q, const float *k, const float *v, const float *mask,
                                               float *out, float *lse, rf_cuda_heads a, cudaStream_t s)
{
    if (empty(a))
        return;
    switch (padded_width(a)) {
#define FWD(W)                                                                                                  \
    case W:                                                                                                     \
        RF_LAUNCH(attn_tf32_fwd_kernel<W>, grid(a, a.n), dim3(32, WARPS), tiles_bytes<W>(), s, q, k, v, mask, \
                  out, lse, a);                                                                                 \
        break;
        RF_TF32_WIDTHS(FWD)
#undef FWD
    default:   /* wider than RF_CUDA_ATTENTION_TF32_MAX_DK: the f32 kernels */
        rf_cuda_attention_forward(q, k, v, mask, out, lse, a, s);
    }
}

extern "C" void rf_cuda_attention_backward_tf32(const float *q, const float *k, const float *v, const float *mask,
                                                const float *out, const float *lse, const float *dout, float *dq,
                                                float *dk, float *dv, float *work, rf_cuda_heads a, cudaStream_t s)
{
    if (empty(a) || (dq == nullptr && dk == nullptr && dv == nullptr))
        return;
    if (padded_width(a) > RF_CUDA_ATTENTION_TF32_MAX_DK) {
        rf_cuda_attention_backward(q, k, v, mask, out, lse, dout, dq, dk, dv, work, a, s);
        return;
    }
    rf_attention_rowdot(out, dout, work, a, s);
    switch (padded_width(a)) {
#define BWD(W)                                                                                                  \
    case W:                                                                                                     \
        if (dq != nullptr)                                                                                      \
            RF_LAUNCH(attn_tf32_dq_kernel<W>, grid(a, a.n), dim3(32, WARPS), tiles_bytes<W>(), s, q, k, v, mask, \
                      lse, dout, work, dq, a);                                                                  \
        if (dk != nullptr || dv != nullptr)                                                                     \
            RF_LAUNCH(attn_tf32_dkv_kernel<W>, grid(a, a.m), dim3(32, WARPS), dkv_bytes<W>(), s, q, k, v, mask, \
                      lse, dout, work, dk, dv, a);                                                              \
        break;
        RF_TF32_WIDTHS(BWD)
#undef BWD
    }
}
