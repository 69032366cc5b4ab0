/* TaLK convolution kernels (SPEC §5; the op's contract is in
 * core/ops/talk.h).
 *
 * One pool task per (batch item b, group of G heads) owns the W = G*R
 * channels of those heads in that item (read in place with stride D) and
 * their offsets, so tasks never write the same float (G: see rf_talk).
 *   forward:  S_j = S_{j-1} + m_j x_j / K over j (into aux), then per token
 *             and head the clamped bounds and
 *             out_i = (1-β) S_⌊a^r⌋ + β S_⌈a^r⌉ - α S_{⌊a^l⌋-1} - (1-α) S_{⌈a^l⌉-1};
 *   backward: the same four taps scatter the upstream gradient onto S (the
 *             thread's scratch, [N, W]), and a suffix sum over j carries it
 *             to x; the offsets get lmax (S_{⌈a^l⌉-1} - S_{⌊a^l⌋-1}) . g and
 *             rmax (S_{⌈a^r⌉} - S_{⌊a^r⌋}) . g.
 * There is no matrix product, so everything runs on the pool.
 */
#include <math.h>
#include <string.h>

#include "../op.h"
#include "vecmath.h"

#define TASK_FLOATS 16384   /* about this many floats per pool task */

typedef struct {
    int64_t B, N, D, H, R;
    int64_t G, W;           /* heads per task, channels per task (G * R) */
    float lmax, rmax, inv_k;
    float *S;               /* aux: [B, N, D] prefix sums */
    float *bounds;          /* aux: [B, N, 2H] a^l per head, then a^r per head */
    float *mask;            /* aux: [B, N] copy of the key mask (ones without one) */
} talk_geom;

static talk_geom talk_geometry(const rf_node *n)
{
    talk_geom t = {.B = n->shape.dim[0], .N = n->shape.dim[1], .D = n->shape.dim[2], .H = n->ia[0]};
    t.R = t.D / t.H;
    t.G = n->ia[3];
    t.W = t.G * t.R;
    t.lmax = (float)n->ia[1];
    t.rmax = (float)n->ia[2];
    t.inv_k = 1.0f / (float)(n->ia[1] + n->ia[2] + 1);
    t.S = n->aux;
    t.bounds = t.S + t.B * t.N * t.D;
    t.mask = t.bounds + t.B * t.N * 2 * t.H;
    return t;
}

static int64_t task_count(const talk_geom *t) { return t->B * (t->H / t->G); }

static int64_t task_grain(const talk_geom *t)
{
    int64_t per = t->N * t->W;
    return per >= TASK_FLOATS ? 1 : TASK_FLOATS / per;
}

/* One past the last valid position of a mask row (0 when none is valid). */
static int64_t valid_length(const float *mask, int64_t N)
{
    int64_t L = N;
    while (L > 0 && mask[L - 1] == 0.0f)
        L--;
    return L;
}

/* v clamped to [0, hi]; a NaN becomes 0, so the integer casts stay defined. */
static float clamp_bound(float v, float hi)
{
    return fminf(fmaxf(v, 0.0f), hi);
}

/* A window [a^l, a^r] as four weighted rows of S:
 * out = sum_t w[t] S_{row[t]}, rows ⌊a^l⌋-1, ⌈a^l⌉-1, ⌊a^r⌋, ⌈a^r⌉ with
 * weights -α, -(1-α), 1-β, β. A row -1 (S_{-1} = 0) becomes row 0 with
 * weight 0 and present = 0, so no loop needs a branch. */
typedef struct {
    int64_t row[4];
    float w[4];
    float present[2];   /* rows ⌊a^l⌋-1 and ⌈a^l⌉-1 exist */
} talk_taps;

static talk_taps taps_of(float al, float ar)
{
    /* bounds are clamped to >= 0, so truncation is the floor */
    int64_t fl = (int64_t)al, fr = (int64_t)ar;
    int64_t cl = fl + ((float)fl < al), cr = fr + ((float)fr < ar);
    float alpha = (float)cl - al, beta = ar - (float)fr;
    talk_taps t = {{fl - 1, cl - 1, fr, cr}, {-alpha, alpha - 1.0f, 1.0f - beta, beta}, {1.0f, 1.0f}};
    for (int k = 0; k < 2; k++)
        if (t.row[k] < 0) {
            t.row[k] = 0;
            t.w[k] = t.present[k] = 0.0f;
        }
    return t;
}

/* y[c] += a * x[c] for c < n. The blocks of 8 have a fixed trip count,
 * which GCC vectorises at -O2. */
static inline void axpy(float *restrict y, float a, const float *restrict x, int64_t n)
{
    int64_t c = 0;
    for (; c + 8 <= n; c += 8)
        for (int64_t l = 0; l < 8; l++)
            y[c + l] += a * x[c + l];
    for (; c < n; c++)
        y[c] += a * x[c];
}

typedef struct {
    const talk_geom *t;
    const float *x;         /* [B, N, D] */
    const float *offsets;   /* [B, N, 2H] */
    float *out;             /* [B, N, D] */
    const float *dout;      /* [B, N, D] (backward) */
    float *gx;              /* [B, N, D] or NULL (backward) */
    float *goff;            /* [B, N, 2H] or NULL (backward) */
    float *scratch;         /* [threads, N, W] (backward) */
    bool fresh;             /* backward: gx written (=), not added to */
} talk_ctx;

/* Rows [N, W] of a task's channels (stride D): S_j = S_{j-1} + m_j x_j / K. */
static void prefix_sums(const talk_geom *t, const float *x, const float *mask, float *S)
{
    for (int64_t j = 0; j < t->N; j++) {
        float *sj = S + j * t->D;
        const float *prev = sj - t->D, *xj = x + j * t->D;
        if (j == 0) {
            memset(sj, 0, (size_t)t->W * sizeof *sj);
            if (mask[j] != 0.0f)
                axpy(sj, t->inv_k, xj, t->W);
        } else if (mask[j] == 0.0f) {   /* padding adds nothing, whatever it holds */
            memcpy(sj, prev, (size_t)t->W * sizeof *sj);
        } else {   /* one pass: the previous row plus this one's input */
            for (int64_t c = 0; c < t->W; c++)
                sj[c] = prev[c] + t->inv_k * xj[c];
        }
    }
}

/* out [R] = sum of the four weighted rows of S (channels of one head), in
 * one pass over out (the sum in tap order, as four passes of axpy onto
 * zeros would round it). */
static void window_sum(const talk_geom *t, const talk_taps *tp, const float *S, float *out)
{
    const float *s0 = S + tp->row[0] * t->D, *s1 = S + tp->row[1] * t->D;
    const float *s2 = S + tp->row[2] * t->D, *s3 = S + tp->row[3] * t->D;
    for (int64_t c = 0; c < t->R; c++)
        out[c] = ((tp->w[0] * s0[c] + tp->w[1] * s1[c]) + tp->w[2] * s2[c]) + tp->w[3] * s3[c];
}

/* Token i of a task (heads h0..h0+G-1 of item b): its bounds and output. */
static void forward_token(const talk_ctx *k, int64_t b, int64_t h0, int64_t i, float last)
{
    const talk_geom *t = k->t;
    int64_t H = t->H, base = b * t->N * t->D + h0 * t->R;
    float *o = k->out + base + i * t->D;
    float *bd = t->bounds + (b * t->N + i) * 2 * H;
    if (t->mask[b * t->N + i] == 0.0f) {
        memset(o, 0, (size_t)t->W * sizeof *o);
        for (int64_t h = h0; h < h0 + t->G; h++)
            bd[h] = bd[H + h] = 0.0f;
        return;
    }
    const float *off = k->offsets + (b * t->N + i) * 2 * H;
    for (int64_t g = 0; g < t->G; g++) {
        int64_t h = h0 + g;
        bd[h] = clamp_bound((float)i - off[h] * t->lmax, last);
        bd[H + h] = clamp_bound((float)i + off[H + h] * t->rmax, last);
        talk_taps tp = taps_of(bd[h], bd[H + h]);
        window_sum(t, &tp, t->S + base + g * t->R, o + g * t->R);
    }
}

static void forward_task(const talk_ctx *k, int64_t b, int64_t grp)
{
    const talk_geom *t = k->t;
    int64_t h0 = grp * t->G, base = b * t->N * t->D + h0 * t->R;
    const float *mask = t->mask + b * t->N;
    prefix_sums(t, k->x + base, mask, t->S + base);
    float last = (float)(valid_length(mask, t->N) - 1);
    for (int64_t i = 0; i < t->N; i++)
        forward_token(k, b, h0, i, last);
}

/* flatten: the helpers are inlined into each clone, so they get its ISA */
static RF_VEC_CLONES __attribute__((flatten)) void forward_tasks(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const talk_ctx *k = ctx;
    int64_t groups = k->t->H / k->t->G;
    for (int64_t r = begin; r < end; r++)
        forward_task(k, r / groups, r % groups);
}

/* x [B, N, D], offsets [B, N, 2H], key_mask [B, N] -> out [B, N, D];
 * aux: S [B, N, D], bounds [B, N, 2H], mask [B, N] */
void rf_cpu_talk_forward(rf_exec *x, rf_node *n)
{
    talk_geom t = talk_geometry(n);
    if (n->n_in == 3)
        memcpy(t.mask, rf_in(x, n, 2)->value, (size_t)(t.B * t.N) * sizeof *t.mask);
    else
        for (int64_t i = 0; i < t.B * t.N; i++)
            t.mask[i] = 1.0f;
    talk_ctx k = {.t = &t, .x = rf_in(x, n, 0)->value, .offsets = rf_in(x, n, 1)->value, .out = n->value};
    rf_pool_run(x->pool, task_count(&t), task_grain(&t), forward_tasks, &k);
}

/* gs rows [N, W] (from the head's first channel) += the taps' weights * g [R]. */
static void scatter_window(const talk_geom *t, const talk_taps *tp, const float *g, float *gs)
{
    for (int k = 0; k < 4; k++)
        axpy(gs + tp->row[k] * t->W, tp->w[k], g, t->R);
}

/* d out_i / d ã^l and d ã^r, dotted with g over the head's channels. */
static void offset_grads(const talk_geom *t, const talk_taps *tp, const float *S, const float *g, float *gl,
                         float *gr)
{
    const float *sfl = S + tp->row[0] * t->D, *scl = S + tp->row[1] * t->D;
    const float *sfr = S + tp->row[2] * t->D, *scr = S + tp->row[3] * t->D;
    float dl = 0.0f, dr = 0.0f;
    for (int64_t c = 0; c < t->R; c++) {
        dl += g[c] * (tp->present[1] * scl[c] - tp->present[0] * sfl[c]);
        dr += g[c] * (scr[c] - sfr[c]);
    }
    *gl += t->lmax * dl;
    *gr += t->rmax * dr;
}

/* gx_j += m_j / K * sum_{j' >= j} gs_{j'}, the suffix sum taken in place
 * (gx_j = that when fresh: 0 at padding). */
static void suffix_to_x(const talk_geom *t, const float *mask, float *gs, float *gx, bool fresh)
{
    for (int64_t j = t->N - 1; j >= 0; j--) {
        float *row = gs + j * t->W, *gxj = gx + j * t->D;
        if (j + 1 < t->N)
            axpy(row, 1.0f, row + t->W, t->W);
        if (fresh && mask[j] != 0.0f)
            for (int64_t c = 0; c < t->W; c++)
                gxj[c] = t->inv_k * row[c];
        else if (fresh)
            memset(gxj, 0, (size_t)t->W * sizeof *gxj);
        else if (mask[j] != 0.0f)
            axpy(gxj, t->inv_k, row, t->W);
    }
}

/* Token i of a task: its window gradient onto gs and its offsets' gradients. */
static void backward_token(const talk_ctx *k, int64_t b, int64_t h0, int64_t i, float *gs)
{
    const talk_geom *t = k->t;
    int64_t H = t->H, base = b * t->N * t->D + h0 * t->R;
    const float *bd = t->bounds + (b * t->N + i) * 2 * H;
    for (int64_t g = 0; g < t->G; g++) {
        int64_t h = h0 + g;
        const float *dout = k->dout + base + i * t->D + g * t->R;
        talk_taps tp = taps_of(bd[h], bd[H + h]);
        if (k->gx != NULL)
            scatter_window(t, &tp, dout, gs + g * t->R);
        if (k->goff != NULL) {
            float *go = k->goff + (b * t->N + i) * 2 * H;
            offset_grads(t, &tp, t->S + base + g * t->R, dout, &go[h], &go[H + h]);
        }
    }
}

/* The task's channels of S row j, into the cache. Backward reads S long
 * after forward wrote it (from memory, not the cache), at rows a window
 * away from the token in an order the hardware prefetcher does not follow:
 * without this, most of backward waits on those loads. */
static inline void prefetch_row(const talk_geom *t, const float *S, int64_t j)
{
    for (int64_t c = 0; c < t->W; c += 16)
        __builtin_prefetch(S + j * t->D + c);
}

/* Rows ahead of the furthest tap (token + rmax) that backward prefetches. */
#define PREFETCH_AHEAD 8

static void backward_task(const talk_ctx *k, int64_t b, int64_t grp, float *gs)
{
    const talk_geom *t = k->t;
    int64_t h0 = grp * t->G, base = b * t->N * t->D + h0 * t->R;
    const float *mask = t->mask + b * t->N;
    int64_t ahead = (int64_t)t->rmax + PREFETCH_AHEAD;
    if (k->gx != NULL)
        memset(gs, 0, (size_t)(t->N * t->W) * sizeof *gs);
    for (int64_t j = 0; j < ahead && j < t->N; j++)
        prefetch_row(t, t->S + base, j);
    for (int64_t i = 0; i < t->N; i++) {
        if (i + ahead < t->N)
            prefetch_row(t, t->S + base, i + ahead);
        if (mask[i] != 0.0f)
            backward_token(k, b, h0, i, gs);
    }
    if (k->gx != NULL)
        suffix_to_x(t, mask, gs, k->gx + base, k->fresh);
}

static RF_VEC_CLONES __attribute__((flatten)) void backward_tasks(void *ctx, int64_t begin, int64_t end, int thread)
{
    const talk_ctx *k = ctx;
    int64_t groups = k->t->H / k->t->G;
    float *gs = k->scratch + thread * k->t->N * k->t->W;
    for (int64_t r = begin; r < end; r++)
        backward_task(k, r / groups, r % groups, gs);
}

/* dout [B, N, D] -> dx [B, N, D], doffsets [B, N, 2H] (+=); the mask gets none */
void rf_cpu_talk_backward(rf_exec *x, rf_node *n)
{
    talk_geom t = talk_geometry(n);
    talk_ctx k = {.t = &t, .dout = n->grad, .gx = rf_in(x, n, 0)->grad, .goff = rf_in(x, n, 1)->grad,
                  .scratch = x->scratch, .fresh = x->fresh[0]};
    if (k.gx == NULL && k.goff == NULL)
        return;
    rf_pool_run(x->pool, task_count(&t), task_grain(&t), backward_tasks, &k);
}
