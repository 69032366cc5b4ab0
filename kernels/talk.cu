/* TaLK convolution (core/ops/talk.h, core/cpu/talk.c): an adaptive window
 * sum per token through prefix sums, O(n d) whatever the window size.
 *
 * aux is the CPU op's: the prefix sums S [b, n, d], the clamped bounds
 * [b, n, 2 heads] (a^l per head, then a^r; the "TaLK window bounds" probe
 * reads them) and a copy of the mask [b, n].
 *   forward:  S down the sequence in chunks (below); then one warp per
 *             token writes its bounds and its output
 *             (1-β) S_⌊a^r⌋ + β S_⌈a^r⌉ - α S_{⌊a^l⌋-1} - (1-α) S_{⌈a^l⌉-1};
 *   backward: one warp per (token, head) adds the four taps' weights times
 *             dO onto the rows of dS (atomics into `work`, b n d floats)
 *             and sums the offsets' gradients over the head's channels;
 *             then dS goes to dx with a suffix sum, in chunks.
 *
 * The prefix and suffix sums run in place in three passes, so that a long
 * sequence at batch 1 (a few dozen columns) still fills the GPU: each
 * (column, chunk of the sequence) thread sums its chunk alone; one thread
 * per column then carries the chunks' end rows across the chunks in order;
 * and each chunk adds the end row it follows to its other rows. */
#include "common.cuh"
#include "kernels.h"

namespace {

constexpr int ROWS = 4;                /* warps per block in the token kernels */
constexpr unsigned THREADS = 128;      /* threads per block in the column kernels */
constexpr int64_t SCAN_THREADS = 32768;   /* (column, chunk) threads a scan aims for */
constexpr int64_t MIN_CHUNK = 16;         /* rows; shorter chunks cost more passes than they save */

struct talk_dims {
    int64_t b, n, d, heads, R;
    float lmax, rmax, inv_k;
};

/* Where the bounds and the mask copy start in aux. */
template <class T> __device__ T *bounds_of(T *aux, const talk_dims &t) { return aux + t.b * t.n * t.d; }
template <class T> __device__ T *mask_of(T *aux, const talk_dims &t)
{
    return bounds_of(aux, t) + t.b * t.n * 2 * t.heads;
}

/* v clamped to [0, hi]; a NaN becomes 0, so the integer casts stay defined. */
__device__ float clamp_bound(float v, float hi) { return fminf(fmaxf(v, 0.0f), hi); }

/* A window [a^l, a^r] as four weighted rows of S (core/cpu/talk.c's
 * taps_of): rows ⌊a^l⌋-1, ⌈a^l⌉-1, ⌊a^r⌋, ⌈a^r⌉ with weights -α, -(1-α),
 * 1-β, β; a row -1 (S_{-1} = 0) becomes row 0 with weight 0, present 0. */
struct taps {
    int64_t row[4];
    float w[4];
    float present[2];
};

__device__ taps taps_of(float al, float ar)
{
    int64_t fl = (int64_t)al, fr = (int64_t)ar;   /* bounds are >= 0: truncation is the floor */
    int64_t cl = fl + ((float)fl < al), cr = fr + ((float)fr < ar);
    float alpha = (float)cl - al, beta = ar - (float)fr;
    taps tp = {{fl - 1, cl - 1, fr, cr}, {-alpha, alpha - 1.0f, 1.0f - beta, beta}, {1.0f, 1.0f}};
    for (int k = 0; k < 2; k++)
        if (tp.row[k] < 0) {
            tp.row[k] = 0;
            tp.w[k] = tp.present[k] = 0.0f;
        }
    return tp;
}

/* the mask copy: the mask, or ones */
__global__ void talk_mask_kernel(const float *mask, float *copy, int64_t count)
{
    RF_FOR_EACH(i, count) {
        copy[i] = mask != nullptr ? mask[i] : 1.0f;
    }
}

/* The sequence cut into chunks of `len` rows for the column scans. */
struct chunks {
    int64_t len, count;
};

chunks chunks_of(int64_t b, int64_t n, int64_t d)
{
    int64_t want = SCAN_THREADS / (b * d) > 1 ? SCAN_THREADS / (b * d) : 1;
    int64_t len = (n + want - 1) / want;
    len = len > MIN_CHUNK ? len : MIN_CHUNK;
    return {len, (n + len - 1) / len};
}

/* Thread e of b x count x d: its batch item, chunk [j0, j1) and channel c. */
struct chunk_column {
    int64_t bi, j0, j1, c;
    __device__ chunk_column(int64_t e, const talk_dims &t, chunks k)
        : bi(e / t.d / k.count), j0(e / t.d % k.count * k.len), j1(j0 + k.len < t.n ? j0 + k.len : t.n), c(e % t.d)
    {
    }
    __device__ int64_t at(const talk_dims &t, int64_t j) const { return (bi * t.n + j) * t.d + c; }
};

/* Pass 1 of S: S_j = S_{j-1} + m_j x_j / K within each chunk. */
__global__ void talk_scan_kernel(const float *x, float *aux, talk_dims t, chunks k)
{
    const float *m = mask_of(aux, t);
    RF_FOR_EACH(e, t.b * k.count * t.d) {
        chunk_column w(e, t, k);
        float s = 0.0f;
        for (int64_t j = w.j0; j < w.j1; j++) {
            if (m[w.bi * t.n + j] != 0.0f)   /* padding adds nothing, whatever it holds */
                s += t.inv_k * x[w.at(t, j)];
            aux[w.at(t, j)] = s;
        }
    }
}

/* Pass 2, one thread per column: each chunk's last row plus the one
 * before it (forward, `step` 1), or each chunk's first row plus the one
 * after it (suffix sums, `step` -1), so those rows hold the whole sums. */
__global__ void talk_carry_kernel(float *v, talk_dims t, chunks k, int step)
{
    RF_FOR_EACH(e, t.b * t.d) {
        int64_t bi = e / t.d, c = e % t.d;
        auto row = [&](int64_t chunk) {   /* the chunk's end row on the carrying side */
            int64_t j = step > 0 ? (chunk + 1) * k.len - 1 : chunk * k.len;
            return (bi * t.n + (j < t.n ? j : t.n - 1)) * t.d + c;
        };
        for (int64_t i = 1; i < k.count; i++) {
            int64_t chunk = step > 0 ? i : k.count - 1 - i;
            v[row(chunk)] += v[row(chunk - step)];
        }
    }
}

/* Pass 3 of S: every row but a chunk's last gets the last row of the chunk
 * before it. */
__global__ void talk_offset_kernel(float *aux, talk_dims t, chunks k)
{
    RF_FOR_EACH(e, t.b * k.count * t.d) {
        chunk_column w(e, t, k);
        if (w.j0 == 0)
            continue;
        const float before = aux[w.at(t, w.j0 - 1)];
        for (int64_t j = w.j0; j < w.j1 - 1; j++)
            aux[w.at(t, j)] += before;
    }
}

/* Bounds and output of one token per warp; grid (ceil(n / ROWS), b). The
 * block first finds the last valid position of its batch item, the clamp. */
__global__ void talk_fwd_kernel(const float *offsets, float *out, float *aux, talk_dims t)
{
    __shared__ int last;
    const int64_t bi = blockIdx.y, i = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    const float *m = mask_of(aux, t) + bi * t.n, *S = aux + bi * t.n * t.d;
    const int tid = threadIdx.y * 32 + threadIdx.x;
    if (tid == 0)
        last = -1;
    __syncthreads();
    int mine = -1;
    for (int64_t j = tid; j < t.n; j += 32 * ROWS)
        if (m[j] != 0.0f)
            mine = (int)j;
    atomicMax(&last, mine);
    __syncthreads();
    if (i >= t.n)
        return;
    float *bd = bounds_of(aux, t) + (bi * t.n + i) * 2 * t.heads, *o = out + (bi * t.n + i) * t.d;
    if (m[i] == 0.0f) {   /* a padded position: zeros, bounds 0 */
        for (int64_t c = threadIdx.x; c < t.d; c += 32)
            o[c] = 0.0f;
        for (int64_t h = threadIdx.x; h < 2 * t.heads; h += 32)
            bd[h] = 0.0f;
        return;
    }
    const float *off = offsets + (bi * t.n + i) * 2 * t.heads;
    auto left = [&](int64_t h) { return clamp_bound((float)i - off[h] * t.lmax, (float)last); };
    auto right = [&](int64_t h) { return clamp_bound((float)i + off[t.heads + h] * t.rmax, (float)last); };
    for (int64_t h = threadIdx.x; h < t.heads; h += 32) {
        bd[h] = left(h);
        bd[t.heads + h] = right(h);
    }
    for (int64_t c = threadIdx.x; c < t.d; c += 32) {
        taps tp = taps_of(left(c / t.R), right(c / t.R));
        float s = 0.0f;
        for (int k = 0; k < 4; k++)
            s += tp.w[k] * S[tp.row[k] * t.d + c];
        o[c] = s;
    }
}

/* One (valid token, head) per warp: dS rows += the taps' weights times dO
 * (when gs is given), and the offsets' gradients lmax (S_{⌈a^l⌉-1} -
 * S_{⌊a^l⌋-1}) . dO and rmax (S_⌈a^r⌉ - S_⌊a^r⌋) . dO (when goff is). */
__global__ void talk_bwd_kernel(const float *aux, const float *dout, float *gs, float *goff, talk_dims t)
{
    int64_t r = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    const int64_t bi = r / (t.n * t.heads), i = r / t.heads % t.n, h = r % t.heads;
    if (r >= t.b * t.n * t.heads || mask_of(aux, t)[bi * t.n + i] == 0.0f)
        return;   /* the whole warp */
    const float *bd = bounds_of(aux, t) + (bi * t.n + i) * 2 * t.heads;
    const taps tp = taps_of(bd[h], bd[t.heads + h]);
    const int64_t col0 = h * t.R, base = bi * t.n * t.d;
    const float *g = dout + base + i * t.d + col0, *S = aux + base + col0;
    float dl = 0.0f, dr = 0.0f;
    for (int64_t c = threadIdx.x; c < t.R; c += 32) {
        if (gs != nullptr)
            for (int k = 0; k < 4; k++)
                atomicAdd(gs + base + tp.row[k] * t.d + col0 + c, tp.w[k] * g[c]);
        dl += g[c] * (tp.present[1] * S[tp.row[1] * t.d + c] - tp.present[0] * S[tp.row[0] * t.d + c]);
        dr += g[c] * (S[tp.row[3] * t.d + c] - S[tp.row[2] * t.d + c]);
    }
    if (goff == nullptr)
        return;
    dl = rf_warp_sum(dl);
    dr = rf_warp_sum(dr);
    if (threadIdx.x == 0) {
        goff[(bi * t.n + i) * 2 * t.heads + h] += t.lmax * dl;
        goff[(bi * t.n + i) * 2 * t.heads + t.heads + h] += t.rmax * dr;
    }
}

/* Pass 1 of the suffix sums, in place in dS: dS_j + dS_{j+1} + ... to the
 * end of each chunk. */
__global__ void talk_suffix_kernel(float *gs, talk_dims t, chunks k)
{
    RF_FOR_EACH(e, t.b * k.count * t.d) {
        chunk_column w(e, t, k);
        float run = 0.0f;
        for (int64_t j = w.j1 - 1; j >= w.j0; j--) {
            run += gs[w.at(t, j)];
            gs[w.at(t, j)] = run;
        }
    }
}

/* Pass 3: dx_j += m_j / K sum_{j' >= j} dS_{j'}, every row but a chunk's
 * first adding the first row of the chunk after it. */
__global__ void talk_dx_kernel(const float *aux, const float *gs, float *gx, talk_dims t, chunks k)
{
    const float *m = mask_of(aux, t);
    RF_FOR_EACH(e, t.b * k.count * t.d) {
        chunk_column w(e, t, k);
        const float after = w.j1 < t.n ? gs[w.at(t, w.j1)] : 0.0f;
        for (int64_t j = w.j0; j < w.j1; j++)
            if (m[w.bi * t.n + j] != 0.0f)
                gx[w.at(t, j)] += t.inv_k * (j == w.j0 ? gs[w.at(t, j)] : gs[w.at(t, j)] + after);
    }
}

talk_dims dims(int64_t b, int64_t n, int64_t d, int heads, int lmax, int rmax)
{
    return {b, n, d, heads, d / heads, (float)lmax, (float)rmax, 1.0f / (float)(lmax + rmax + 1)};
}

}   // namespace

extern "C" void rf_cuda_talk_forward(const float *x, const float *offsets, const float *mask, float *out, float *aux,
                                     int64_t b, int64_t n, int64_t d, int heads, int lmax, int rmax, cudaStream_t s)
{
    if (b * n * d == 0)
        return;
    const talk_dims t = dims(b, n, d, heads, lmax, rmax);
    float *copy = aux + b * n * (d + 2 * heads);
    RF_LAUNCH(talk_mask_kernel, rf_blocks(b * n, THREADS), THREADS, 0, s, mask, copy, b * n);
    const chunks k = chunks_of(b, n, d);
    RF_LAUNCH(talk_scan_kernel, rf_blocks(b * k.count * d, THREADS), THREADS, 0, s, x, aux, t, k);
    if (k.count > 1) {
        RF_LAUNCH(talk_carry_kernel, rf_blocks(b * d, THREADS), THREADS, 0, s, aux, t, k, 1);
        RF_LAUNCH(talk_offset_kernel, rf_blocks(b * k.count * d, THREADS), THREADS, 0, s, aux, t, k);
    }
    RF_LAUNCH(talk_fwd_kernel, dim3((unsigned)((n + ROWS - 1) / ROWS), (unsigned)b), dim3(32, ROWS), 0, s, offsets,
              out, aux, t);
}

extern "C" void rf_cuda_talk_backward(const float *aux, const float *dout, float *dx, float *doffsets, float *work,
                                      int64_t b, int64_t n, int64_t d, int heads, int lmax, int rmax, cudaStream_t s)
{
    if (b * n * d == 0 || (dx == nullptr && doffsets == nullptr))
        return;
    const talk_dims t = dims(b, n, d, heads, lmax, rmax);
    float *gs = dx != nullptr ? work : nullptr;
    if (gs != nullptr)
        cudaMemsetAsync(gs, 0, sizeof(float) * (size_t)(b * n * d), s);
    RF_LAUNCH(talk_bwd_kernel, (unsigned)((b * n * heads + ROWS - 1) / ROWS), dim3(32, ROWS), 0, s, aux, dout, gs,
              doffsets, t);
    if (gs == nullptr)
        return;
    const chunks k = chunks_of(b, n, d);
    RF_LAUNCH(talk_suffix_kernel, rf_blocks(b * k.count * d, THREADS), THREADS, 0, s, gs, t, k);
    if (k.count > 1)
        RF_LAUNCH(talk_carry_kernel, rf_blocks(b * d, THREADS), THREADS, 0, s, gs, t, k, -1);
    RF_LAUNCH(talk_dx_kernel, rf_blocks(b * k.count * d, THREADS), THREADS, 0, s, aux, gs, dx, t, k);
}
