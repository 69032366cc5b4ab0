/* Multi-head softmax attention with a key mask (core/cpu/attention.c),
 * flash-style: no [n, m] matrix exists in memory.
 *
 * Every kernel gives each warp one row of its own side (a query, or in
 * dK/dV a key) and walks the other side in tiles of TILE rows that the
 * block's ROWS warps load into shared memory together; lane j handles row j
 * of the tile. Forward keeps, per query, a running max and sum of the
 * exponentials (the online softmax) and rescales its output accumulator
 * when the max grows; it saves lse = max + log(sum) per row. Backward
 * (FlashAttention-2) recomputes p = exp(scale q.k - lse) tile by tile, with
 * D = rowsum(dO * O) computed once per row into `work`:
 *     dS = p (dO.v - D),  dQ += scale dS K,  dK += scale dS^T Q,  dV += p^T dO,
 * dQ in one kernel over query rows and dK, dV in one over key rows, so no
 * two blocks ever add into the same gradient row. */
#include "attention_heads.cuh"

namespace {

constexpr int ROWS = 4;    /* warps per block, one row each */
constexpr int TILE = 32;   /* rows per shared-memory tile: one per lane */

typedef rf_attention_head head;

/* dst [TILE][pitch] = rows r0.. of the head's block of x [b, len, d]; rows
 * past len become zeros (never NaN: a zero weight must give a zero term).
 * The pitch dk + 1 keeps lanes that read one column of different rows in
 * different banks. */
__device__ void load_tile(const float *x, const rf_cuda_heads &a, const head &hd, int64_t len, int64_t r0, float *dst)
{
    int64_t pitch = hd.dk + 1;
    for (int64_t e = threadIdx.y * 32 + threadIdx.x; e < TILE * hd.dk; e += 32 * ROWS) {
        int64_t r = e / hd.dk, c = e % hd.dk;
        dst[r * pitch + c] = r0 + r < len ? hd.row(x, a, len, r0 + r)[c] : 0.0f;
    }
}

__device__ float dot(const float *x, const float *y, int64_t n)
{
    float s = 0.0f;
    for (int64_t c = 0; c < n; c++)
        s += x[c] * y[c];
    return s;
}

/* acc[c] (lane-owned columns) = acc[c] * keep + sum_j w[j] tile[j][c] */
__device__ void accumulate(float *acc, float keep, const float *w, const float *tile, int64_t rows, int64_t dk)
{
    for (int64_t c = threadIdx.x; c < dk; c += 32) {
        float s = 0.0f;
        for (int64_t j = 0; j < rows; j++)
            s += w[j] * tile[j * (dk + 1) + c];
        acc[c] = acc[c] * keep + s;
    }
}

RF_HD constexpr size_t tile_floats(int64_t dk) { return (size_t)(TILE * (dk + 1)); }

/* Block (32, ROWS) per ROWS queries of one (b, h): grid (ceil(n / ROWS), b heads).
 * Shared: K and V tiles, then per warp its q row, output accumulator and p. */
__global__ void attn_fwd_kernel(const float *q, const float *k, const float *v, const float *mask, float *out,
                                float *lse, rf_cuda_heads a)
{
    RF_DYNAMIC_SHARED(float, sh);
    const head hd(a, blockIdx.y);
    const int64_t dk = hd.dk, i = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    float *ks = sh, *vs = ks + tile_floats(dk), *qs = vs + tile_floats(dk) + threadIdx.y * dk;
    float *os = qs + ROWS * dk, *ps = sh + 2 * tile_floats(dk) + 2 * ROWS * dk + threadIdx.y * TILE;
    for (int64_t c = threadIdx.x; c < dk; c += 32) {
        qs[c] = i < a.n ? hd.row(q, a, a.n, i)[c] : 0.0f;
        os[c] = 0.0f;
    }
    float mx = -INFINITY, sum = 0.0f;
    for (int64_t j0 = 0; j0 < a.m; j0 += TILE) {
        __syncthreads();   /* every warp is done with the previous tile (and q is in place) */
        load_tile(k, a, hd, a.m, j0, ks);
        load_tile(v, a, hd, a.m, j0, vs);
        __syncthreads();
        bool valid = rf_attention_key_valid(mask, a, hd.bi, j0 + threadIdx.x);
        float s = valid ? a.scale * dot(qs, ks + threadIdx.x * (dk + 1), dk) : -INFINITY;
        float next = fmaxf(mx, rf_warp_max(s));
        if (next == -INFINITY)
            continue;   /* no valid key yet (the same in every lane) */
        float keep = expf(mx - next), p = valid ? expf(s - next) : 0.0f;
        sum = sum * keep + rf_warp_sum(p);
        mx = next;
        ps[threadIdx.x] = p;
        __syncwarp();
        accumulate(os, keep, ps, vs, a.m - j0 < TILE ? a.m - j0 : TILE, dk);
    }
    if (i >= a.n)
        return;
    float inv = sum > 0.0f ? 1.0f / sum : 0.0f;   /* a row with no valid key: zeros */
    for (int64_t c = threadIdx.x; c < dk; c += 32)
        hd.row(out, a, a.n, i)[c] = os[c] * inv;
    if (threadIdx.x == 0)
        lse[blockIdx.y * a.n + i] = sum > 0.0f ? mx + logf(sum) : -INFINITY;
}

/* One warp per row of b heads n: probs[r][j] = exp(scale q.k_j - lse), 0 at masked keys. */
__global__ void attn_probs_kernel(const float *q, const float *k, const float *mask, const float *lse, float *probs,
                                  rf_cuda_heads a)
{
    int64_t r = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    if (r >= a.b * a.heads * a.n)
        return;   /* the whole warp */
    const head hd(a, r / a.n);
    const float *qr = hd.row(q, a, a.n, r % a.n);
    for (int64_t j = threadIdx.x; j < a.m; j += 32)
        probs[r * a.m + j] = rf_attention_key_valid(mask, a, hd.bi, j)
                                 ? expf(a.scale * dot(qr, hd.row(k, a, a.m, j), hd.dk) - lse[r])
                                 : 0.0f;
}

/* D[r] = dO_r . O_r over the head's columns, one warp per row of b heads n. */
__global__ void attn_rowdot_kernel(const float *out, const float *dout, float *D, rf_cuda_heads a)
{
    int64_t r = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    if (r >= a.b * a.heads * a.n)
        return;
    const head hd(a, r / a.n);
    const float *o = hd.row(out, a, a.n, r % a.n), *g = hd.row(dout, a, a.n, r % a.n);
    float s = 0.0f;
    for (int64_t c = threadIdx.x; c < hd.dk; c += 32)
        s += g[c] * o[c];
    s = rf_warp_sum(s);
    if (threadIdx.x == 0)
        D[r] = s;
}

/* dQ: as the forward kernel, one warp per query; per tile, lane j forms
 * dS_j = p_j (dO.v_j - D), then the warp adds sum_j dS_j k_j.
 * Shared: K and V tiles, then per warp q, dO, the dQ accumulator and dS. */
__global__ void attn_dq_kernel(const float *q, const float *k, const float *v, const float *mask, const float *lse,
                               const float *dout, const float *D, float *gq, rf_cuda_heads a)
{
    RF_DYNAMIC_SHARED(float, sh);
    const head hd(a, blockIdx.y);
    const int64_t dk = hd.dk, i = (int64_t)blockIdx.x * ROWS + threadIdx.y, r = blockIdx.y * a.n + i;
    float *ks = sh, *vs = ks + tile_floats(dk), *qs = vs + tile_floats(dk) + threadIdx.y * dk;
    float *gs = qs + ROWS * dk, *acc = gs + ROWS * dk;
    float *ds = sh + 2 * tile_floats(dk) + 3 * ROWS * dk + threadIdx.y * TILE;
    for (int64_t c = threadIdx.x; c < dk; c += 32) {
        qs[c] = i < a.n ? hd.row(q, a, a.n, i)[c] : 0.0f;
        gs[c] = i < a.n ? hd.row(dout, a, a.n, i)[c] : 0.0f;
        acc[c] = 0.0f;
    }
    float l = i < a.n ? lse[r] : 0.0f, Dr = i < a.n ? D[r] : 0.0f;
    for (int64_t j0 = 0; j0 < a.m; j0 += TILE) {
        __syncthreads();
        load_tile(k, a, hd, a.m, j0, ks);
        load_tile(v, a, hd, a.m, j0, vs);
        __syncthreads();
        const int64_t lane_row = threadIdx.x * (dk + 1);
        bool valid = rf_attention_key_valid(mask, a, hd.bi, j0 + threadIdx.x);
        float p = valid ? expf(a.scale * dot(qs, ks + lane_row, dk) - l) : 0.0f;
        ds[threadIdx.x] = p * (dot(gs, vs + lane_row, dk) - Dr);
        __syncwarp();
        accumulate(acc, 1.0f, ds, ks, a.m - j0 < TILE ? a.m - j0 : TILE, dk);
    }
    if (i >= a.n)
        return;
    for (int64_t c = threadIdx.x; c < dk; c += 32)
        hd.row(gq, a, a.n, i)[c] += a.scale * acc[c];
}

/* dK and dV: one warp per key, tiles of TILE queries (q, dO, lse, D); lane i
 * forms p_i and dS_i, then the warp adds sum_i p_i dO_i and sum_i dS_i q_i.
 * Shared: the q and dO tiles, lse and D of the tile, then per warp its k and
 * v rows, the two accumulators, p and dS. */
__global__ void attn_dkv_kernel(const float *q, const float *k, const float *v, const float *mask, const float *lse,
                                const float *dout, const float *D, float *gk, float *gv, rf_cuda_heads a)
{
    RF_DYNAMIC_SHARED(float, sh);
    const head hd(a, blockIdx.y);
    const int64_t dk = hd.dk, j = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    float *qs = sh, *gs = qs + tile_floats(dk), *ls = gs + tile_floats(dk), *Ds = ls + TILE;
    float *kr = Ds + TILE + threadIdx.y * dk, *vr = kr + ROWS * dk, *acck = vr + ROWS * dk, *accv = acck + ROWS * dk;
    float *ps = Ds + TILE + 4 * ROWS * dk + threadIdx.y * TILE, *ds = ps + ROWS * TILE;
    const bool valid = rf_attention_key_valid(mask, a, hd.bi, j);   /* a masked key gets no gradient */
    for (int64_t c = threadIdx.x; c < dk; c += 32) {
        kr[c] = j < a.m ? hd.row(k, a, a.m, j)[c] : 0.0f;
        vr[c] = j < a.m ? hd.row(v, a, a.m, j)[c] : 0.0f;
        acck[c] = accv[c] = 0.0f;
    }
    for (int64_t i0 = 0; i0 < a.n; i0 += TILE) {
        __syncthreads();
        load_tile(q, a, hd, a.n, i0, qs);
        load_tile(dout, a, hd, a.n, i0, gs);
        int t = threadIdx.y * 32 + threadIdx.x;
        if (t < TILE) {
            ls[t] = i0 + t < a.n ? lse[blockIdx.y * a.n + i0 + t] : 0.0f;
            Ds[t] = i0 + t < a.n ? D[blockIdx.y * a.n + i0 + t] : 0.0f;
        }
        __syncthreads();
        if (!valid)
            continue;   /* the whole warp */
        const int64_t lane_row = threadIdx.x * (dk + 1);
        float p = i0 + threadIdx.x < a.n ? expf(a.scale * dot(qs + lane_row, kr, dk) - ls[threadIdx.x]) : 0.0f;
        ps[threadIdx.x] = p;
        ds[threadIdx.x] = p * (dot(gs + lane_row, vr, dk) - Ds[threadIdx.x]);
        __syncwarp();
        int64_t rows = a.n - i0 < TILE ? a.n - i0 : TILE;
        accumulate(accv, 1.0f, ps, gs, rows, dk);
        accumulate(acck, 1.0f, ds, qs, rows, dk);
    }
    if (!valid)
        return;
    for (int64_t c = threadIdx.x; c < dk; c += 32) {
        if (gk != nullptr)
            hd.row(gk, a, a.m, j)[c] += a.scale * acck[c];
        if (gv != nullptr)
            hd.row(gv, a, a.m, j)[c] += accv[c];
    }
}

constexpr size_t fwd_shared(int64_t dk) { return sizeof(float) * (2 * tile_floats(dk) + 2 * ROWS * dk + ROWS * TILE); }
constexpr size_t dq_shared(int64_t dk) { return sizeof(float) * (2 * tile_floats(dk) + 3 * ROWS * dk + ROWS * TILE); }
constexpr size_t dkv_shared(int64_t dk)
{
    return sizeof(float) * (2 * tile_floats(dk) + 2 * TILE + 4 * ROWS * dk + 2 * ROWS * TILE);
}
/* A launch gets 48 KiB of dynamic shared memory; dK/dV's tiles, the
 * largest, set the head width kernels.h documents. */
constexpr size_t LAUNCH_SHARED = 48 * 1024;
static_assert(fwd_shared(RF_CUDA_ATTENTION_MAX_DK) <= LAUNCH_SHARED &&
                  dq_shared(RF_CUDA_ATTENTION_MAX_DK) <= LAUNCH_SHARED &&
                  dkv_shared(RF_CUDA_ATTENTION_MAX_DK) <= LAUNCH_SHARED &&
                  dkv_shared(RF_CUDA_ATTENTION_MAX_DK + 1) > LAUNCH_SHARED,
              "RF_CUDA_ATTENTION_MAX_DK is the largest head width whose tiles fit 48 KiB");

unsigned row_blocks(int64_t rows) { return (unsigned)((rows + ROWS - 1) / ROWS); }

bool empty(const rf_cuda_heads &a) { return a.b == 0 || a.n == 0 || a.m == 0 || a.d == 0; }

}   // namespace

void rf_attention_rowdot(const float *out, const float *dout, float *D, rf_cuda_heads a, cudaStream_t s)
{
    RF_LAUNCH(attn_rowdot_kernel, row_blocks(a.b * a.heads * a.n), dim3(32, ROWS), 0, s, out, dout, D, a);
}

extern "C" void rf_cuda_attention_forward(const float *q, const float *k, const float *v, const float *mask,
                                          float *out, float *lse, rf_cuda_heads a, cudaStream_t s)
{
    if (empty(a))
        return;
    dim3 grid(row_blocks(a.n), (unsigned)(a.b * a.heads));
    RF_LAUNCH(attn_fwd_kernel, grid, dim3(32, ROWS), fwd_shared(a.d / a.heads), s, q, k, v, mask, out, lse, a);
}

extern "C" void rf_cuda_attention_probs(const float *q, const float *k, const float *mask, const float *lse,
                                        float *probs, rf_cuda_heads a, cudaStream_t s)
{
    if (!empty(a))
        RF_LAUNCH(attn_probs_kernel, row_blocks(a.b * a.heads * a.n), dim3(32, ROWS), 0, s, q, k, mask, lse, probs, a);
}

extern "C" void rf_cuda_attention_backward(const float *q, const float *k, const float *v, const float *mask,
                                           const float *out, const float *lse, const float *dout, float *dq, float *dk,
                                           float *dv, float *work, rf_cuda_heads a, cudaStream_t s)
{
    if (empty(a) || (dq == nullptr && dk == nullptr && dv == nullptr))
        return;
    int64_t dkw = a.d / a.heads;
    rf_attention_rowdot(out, dout, work, a, s);
    if (dq != nullptr)
        RF_LAUNCH(attn_dq_kernel, dim3(row_blocks(a.n), (unsigned)(a.b * a.heads)), dim3(32, ROWS), dq_shared(dkw), s,
                  q, k, v, mask, lse, dout, work, dq, a);
    if (dk != nullptr || dv != nullptr)
        RF_LAUNCH(attn_dkv_kernel, dim3(row_blocks(a.m), (unsigned)(a.b * a.heads)), dim3(32, ROWS), dkv_shared(dkw),
                  s, q, k, v, mask, lse, dout, work, dk, dv, a);
}
