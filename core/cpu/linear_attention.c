/* Kernelised linear attention kernels (SPEC 4, MAELRE eq. 2).
 *
 * Head h of batch row b reads the column block [h*dk, (h+1)*dk) of its
 * [B, len, D] tensors. With Fq = phi(s q), Fk = phi(s k) * mask (both kept
 * in aux) and t = 1/tau:
 *     KV   = t Fk_h^T V_h     [dk, dk]
 *     Ksum = t Fk_h^T 1       [dk]
 *     den  = Fq_h Ksum        [N]
 *     O_h  = Fq_h KV / den    (0 where den == 0)
 * Backward, with G = dO_h:
 *     dU = G / den,  dden = -(G . O_h) / den
 *     dKV = Fq_h^T dU,  dKsum = Fq_h^T dden
 *     dFq = dU KV^T + dden Ksum^T,  dq += s phi'(s q) dFq
 *     dV_h += t Fk_h dKV
 *     dFk = t (V_h dKV^T + 1 dKsum^T),  dk += mask s phi'(s k) dFk
 * phi' is recovered from the saved phi values, so q and k are not re-read.
 *
 * For heads up to RF_LINEAR_ATTENTION_ROW_HEADS wide (8 in the shipped
 * configs) the products' inner size dk is far too small for BLAS, and the
 * op is bound by the bytes it moves: so every
 * pass reads a row of every head once, row after row, and does all of that
 * row's work (features, its share of KV or dKV, its output or gradient)
 * while the row is in L1. Sums over rows (KV, Ksum, dKV, dKsum) are formed
 * per chunk of CHUNK_ROWS rows and then added chunk after chunk, so every
 * float is the same for any thread count (chunks do not depend on it).
 * Forward: a key pass (Fk, KV and Ksum partials), a reduction, a query
 * pass (Fq, den, O). Backward: a query pass (dq, dKV and dKsum partials),
 * a reduction, a key pass (dk, dv). Wider heads: linear_attention_wide.c.
 */
#include "linear_attention_kernels.h"

/* Heads whose width is a multiple of 8 run on vectors of 8 floats (GCC's
 * vector extension: AVX registers in the AVX clones, two SSE ones in the
 * default clone); GCC leaves the fully unrolled loops of a constant 8 or
 * 16 scalar. memcpy: loads and stores that need no alignment. */
typedef float v8f __attribute__((vector_size(32)));
#define MAX_VECTORS 8   /* heads up to 64 wide on the vector path */

static inline bool on_vectors(int64_t n)
{
    return n % 8 == 0 && n <= 8 * MAX_VECTORS;
}

/* y += alpha x (restrict: the loop vectorises without overlap checks) */
RF_VEC_INLINE void axpy(float *restrict y, float alpha, const float *restrict x, int64_t n)
{
    if (on_vectors(n)) {
        for (int64_t v = 0; v < n; v += 8) {
            v8f vy, vx;
            memcpy(&vy, y + v, sizeof vy);
            memcpy(&vx, x + v, sizeof vx);
            vy += alpha * vx;
            memcpy(y + v, &vy, sizeof vy);
        }
        return;
    }
    for (int64_t j = 0; j < n; j++)
        y[j] += alpha * x[j];
}

RF_VEC_INLINE float dot(const float *restrict x, const float *restrict y, int64_t n)
{
    if (on_vectors(n)) {
        v8f p = {0};
        for (int64_t v = 0; v < n; v += 8) {
            v8f vx, vy;
            memcpy(&vx, x + v, sizeof vx);
            memcpy(&vy, y + v, sizeof vy);
            p += vx * vy;
        }
        return ((p[0] + p[4]) + (p[1] + p[5])) + ((p[2] + p[6]) + (p[3] + p[7]));
    }
    float s = 0.0f;
    for (int64_t j = 0; j < n; j++)
        s += x[j] * y[j];
    return s;
}

/* y = c0 init + scale sum_j w[j] m[j] over the dk rows m[j] of a [dk, dk]
 * block (init may be y itself, or NULL for none). Summed in registers, in
 * two chains (even and odd j): adding into y row after row would chain
 * every step through memory. */
RF_VEC_INLINE void combine_rows(float *y, float c0, const float *init, const float *restrict w, float scale,
                                const float *restrict m, int64_t dk)
{
    if (on_vectors(dk)) {
        int64_t nv = dk / 8;
        v8f even[MAX_VECTORS], odd[MAX_VECTORS], r;
        for (int64_t v = 0; v < nv; v++)
            even[v] = odd[v] = (v8f){0};
        for (int64_t j = 0; j < dk; j += 2)
            for (int64_t v = 0; v < nv; v++) {
                memcpy(&r, m + j * dk + 8 * v, sizeof r);
                even[v] += (scale * w[j]) * r;
                memcpy(&r, m + (j + 1) * dk + 8 * v, sizeof r);
                odd[v] += (scale * w[j + 1]) * r;
            }
        for (int64_t v = 0; v < nv; v++) {
            even[v] += odd[v];
            if (init != NULL) {
                memcpy(&r, init + 8 * v, sizeof r);
                even[v] += c0 * r;
            }
            memcpy(y + 8 * v, &even[v], sizeof r);
        }
        return;
    }
    for (int64_t l = 0; l < dk; l++) {
        float acc = 0.0f;
        for (int64_t j = 0; j < dk; j++)
            acc += w[j] * m[j * dk + l];
        y[l] = (init != NULL ? c0 * init[l] : 0.0f) + scale * acc;
    }
}

/* ---- chunks and their sums ---- */

#define CHUNK_ROWS RF_LINEAR_ATTENTION_CHUNK

static int64_t chunk_count(int64_t len)
{
    return (len + CHUNK_ROWS - 1) / CHUNK_ROWS;
}

/* The sums over rows of one batch row, per head [dk, dk] (KV or dKV) then
 * per head [dk] (Ksum or dKsum): the layout of aux's kv and ksum for row b */
static int64_t sums_floats(const la_geom *a)
{
    return a->H * a->dk * a->dk + a->D;
}

/* Scratch (sized by core/ops/linear_attention.c): per (batch row, chunk)
 * partial sums; per batch row the backward's dKV and dKsum, then dKV's
 * per-head transposes; per thread one row of D and one transposed KV. */
typedef struct {
    float *part;            /* [B, chunks, sums_floats] */
    float *sums;            /* [B, sums_floats + H dk dk] */
    float *rows;            /* [threads, D + H dk dk] */
} la_scratch;

static la_scratch scratch_layout(const la_geom *a, float *s)
{
    int64_t cn = chunk_count(a->N), cm = chunk_count(a->M), hkk = a->H * a->dk * a->dk;
    la_scratch p;
    p.part = s;
    p.sums = p.part + a->B * (cn > cm ? cn : cm) * sums_floats(a);
    p.rows = p.sums + a->B * (sums_floats(a) + hkk);
    return p;
}

typedef struct {
    const la_geom *a;
    const float *q, *k, *v, *mask, *out, *dout;
    float *aux, *dst;       /* dst: out (forward) */
    float *gq, *gk, *gv;
    la_scratch s;
    bool want_kv;           /* backward: dKV needed (k or v gets a gradient) */
    bool fresh[3];          /* backward: gq, gk, gv written (=), not added to */
} la_ctx;

/* out = the chunks' sums, chunk after chunk */
static void add_chunks(const float *part, int64_t chunks, int64_t stride, int64_t n, float *out)
{
    memset(out, 0, (size_t)n * sizeof *out);
    for (int64_t c = 0; c < chunks; c++)
        axpy(out, 1.0f, part + c * stride, n);
}

/* Per head h: t[h][l][j] = m[h][j][l] for [dk, dk] blocks */
static void transpose_heads(const float *m, int64_t heads, int64_t dk, float *t)
{
    for (int64_t h = 0; h < heads; h++)
        for (int64_t j = 0; j < dk; j++)
            for (int64_t l = 0; l < dk; l++)
                t[(h * dk + l) * dk + j] = m[(h * dk + j) * dk + l];
}

/* The per-row loops below run over dk; with dk a constant (8 and 16, the
 * usual head widths) the compiler unrolls them into whole vectors. */
#define BY_HEAD_WIDTH(fn, c, begin, end, thread)                                                                    \
    do {                                                                                                           \
        if ((c)->a->dk == 8)                                                                                       \
            fn(c, begin, end, thread, 8);                                                                          \
        else if ((c)->a->dk == 16)                                                                                 \
            fn(c, begin, end, thread, 16);                                                                         \
        else                                                                                                       \
            fn(c, begin, end, thread, (c)->a->dk);                                                                 \
    } while (0)

/* ---- forward ---- */

/* Chunk item = (b, c) of the keys: Fk of its rows into aux, and its part
 * of Fk^T V and Fk^T 1 */
RF_VEC_INLINE void key_sums(const la_ctx *c, int64_t begin, int64_t end, int thread, int64_t dk)
{
    (void)thread;
    const la_geom *a = c->a;
    int64_t D = a->D, cm = chunk_count(a->M), S = sums_floats(a);
    for (int64_t item = begin; item < end; item++) {
        int64_t b = item / cm, first = item % cm * CHUNK_ROWS;
        int64_t last = first + CHUNK_ROWS < a->M ? first + CHUNK_ROWS : a->M;
        float *kv = c->s.part + item * S, *ks = kv + a->H * dk * dk;
        memset(kv, 0, (size_t)S * sizeof *kv);
        for (int64_t r = b * a->M + first; r < b * a->M + last; r++) {
            float *f = c->aux + a->l.phi_k + r * D;
            if (c->mask != NULL && c->mask[r] == 0.0f) {
                memset(f, 0, (size_t)D * sizeof *f);
                continue;
            }
            phi_span(a->map, a->scale, c->k + r * D, f, D);
            const float *v = c->v + r * D;
            axpy(ks, 1.0f, f, D);
            for (int64_t h = 0; h < a->H; h++)
                for (int64_t j = 0; j < dk; j++)
                    axpy(kv + (h * dk + j) * dk, f[h * dk + j], v + h * dk, dk);
        }
    }
}

static RF_VEC_CLONES void key_pass_forward(void *ctx, int64_t begin, int64_t end, int thread)
{
    BY_HEAD_WIDTH(key_sums, (const la_ctx *)ctx, begin, end, thread);
}

/* Batch row b: KV and Ksum, t times the chunks' sums, into aux */
static void reduce_forward(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const la_ctx *c = ctx;
    const la_geom *a = c->a;
    int64_t cm = chunk_count(a->M), S = sums_floats(a), hkk = a->H * a->dk * a->dk;
    for (int64_t b = begin; b < end; b++) {
        const float *part = c->s.part + b * cm * S;
        float t = c->aux[a->l.inv_tau + b];
        float *kv = c->aux + a->l.kv + b * hkk, *ks = c->aux + a->l.ksum + b * a->D;
        add_chunks(part, cm, S, hkk, kv);
        add_chunks(part + hkk, cm, S, a->D, ks);
        for (int64_t x = 0; x < hkk; x++)
            kv[x] *= t;
        for (int64_t x = 0; x < a->D; x++)
            ks[x] *= t;
    }
}

/* Query row r: Fq into aux, den = Fq_h . Ksum_h, O_h = Fq_h KV_h / den */
RF_VEC_INLINE void query_outputs(const la_ctx *c, int64_t begin, int64_t end, int thread, int64_t dk)
{
    (void)thread;
    const la_geom *a = c->a;
    int64_t D = a->D;
    for (int64_t r = begin; r < end; r++) {
        int64_t b = r / a->N, i = r % a->N;
        float *f = c->aux + a->l.phi_q + r * D, *o = c->dst + r * D;
        phi_span(a->map, a->scale, c->q + r * D, f, D);
        const float *kv = c->aux + a->l.kv + b * a->H * dk * dk, *ks = c->aux + a->l.ksum + b * D;
        for (int64_t h = 0; h < a->H; h++) {
            float den = dot(f + h * dk, ks + h * dk, dk), inv = den > 0.0f ? 1.0f / den : 0.0f;
            c->aux[a->l.den + (b * a->H + h) * a->N + i] = den;
            combine_rows(o + h * dk, 0.0f, NULL, f + h * dk, inv, kv + h * dk * dk, dk);
        }
    }
}

static RF_VEC_CLONES void query_pass_forward(void *ctx, int64_t begin, int64_t end, int thread)
{
    BY_HEAD_WIDTH(query_outputs, (const la_ctx *)ctx, begin, end, thread);
}

/* q [B, N, D], k, v [B, M, D], key_mask [B, M] -> out [B, N, D] */
void rf_cpu_linear_attention_forward(rf_exec *x, rf_node *n)
{
    la_geom a = la_geometry(x, n);
    if (a.dk > RF_LINEAR_ATTENTION_ROW_HEADS) {
        rf_cpu_linear_attention_wide_forward(x, n, &a);
        return;
    }
    la_ctx c = {.a = &a, .q = rf_in(x, n, 0)->value, .k = rf_in(x, n, 1)->value, .v = rf_in(x, n, 2)->value,
                .mask = n->n_in == 4 ? rf_in(x, n, 3)->value : NULL, .aux = n->aux, .dst = n->value,
                .s = scratch_layout(&a, x->scratch)};
    inverse_tau(&a, c.mask, c.aux + a.l.inv_tau);
    rf_pool_run(x->pool, a.B * chunk_count(a.M), 1, key_pass_forward, &c);
    rf_pool_run(x->pool, a.B, 1, reduce_forward, &c);
    rf_pool_run(x->pool, a.B * a.N, row_grain(a.D * (a.dk + 2)), query_pass_forward, &c);
}

/* ---- backward ---- */

/* Chunk item = (b, c) of the queries: for each row, dU = G / den and
 * dden = -(G . O) / den per head; dq += s phi'(Fq) (dU KV^T + dden Ksum^T);
 * the chunk's part of dKV = Fq^T dU and dKsum = Fq^T dden. */
RF_VEC_INLINE void query_grads(const la_ctx *c, int64_t begin, int64_t end, int thread, int64_t dk)
{
    const la_geom *a = c->a;
    int64_t D = a->D, cn = chunk_count(a->N), S = sums_floats(a), hkk = a->H * dk * dk;
    float *dfq = c->s.rows + (int64_t)thread * (D + hkk), *kvt = dfq + D;
    for (int64_t item = begin; item < end; item++) {
        int64_t b = item / cn, first = item % cn * CHUNK_ROWS;
        int64_t last = first + CHUNK_ROWS < a->N ? first + CHUNK_ROWS : a->N;
        float *dkv = c->s.part + item * S, *dks = dkv + hkk;
        if (c->want_kv)
            memset(dkv, 0, (size_t)S * sizeof *dkv);
        const float *ks = c->aux + a->l.ksum + b * D;
        transpose_heads(c->aux + a->l.kv + b * hkk, a->H, dk, kvt);
        for (int64_t i = first; i < last; i++) {
            int64_t r = b * a->N + i;
            const float *g = c->dout + r * D, *o = c->out + r * D, *f = c->aux + a->l.phi_q + r * D;
            for (int64_t h = 0; h < a->H; h++) {
                const float *gh = g + h * dk, *fh = f + h * dk;
                float den = c->aux[a->l.den + (b * a->H + h) * a->N + i], inv = den > 0.0f ? 1.0f / den : 0.0f;
                float dden = -dot(gh, o + h * dk, dk) * inv;
                if (c->want_kv)
                    for (int64_t j = 0; j < dk; j++) {
                        axpy(dkv + (h * dk + j) * dk, fh[j] * inv, gh, dk);
                        dks[h * dk + j] += fh[j] * dden;
                    }
                /* dFq_h = inv KV_h G_h + dden Ksum_h, as rows of KV_h^T */
                if (c->gq != NULL)
                    combine_rows(dfq + h * dk, dden, ks + h * dk, gh, inv, kvt + h * dk * dk, dk);
            }
            if (c->gq != NULL)
                dphi_span(a->map, a->scale, f, dfq, c->gq + r * D, D, c->fresh[0]);
        }
    }
}

static RF_VEC_CLONES void query_pass_backward(void *ctx, int64_t begin, int64_t end, int thread)
{
    BY_HEAD_WIDTH(query_grads, (const la_ctx *)ctx, begin, end, thread);
}

/* Batch row b: dKV and dKsum, the chunks' sums, and dKV's transposes */
static void reduce_backward(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const la_ctx *c = ctx;
    const la_geom *a = c->a;
    int64_t cn = chunk_count(a->N), S = sums_floats(a), hkk = a->H * a->dk * a->dk;
    for (int64_t b = begin; b < end; b++) {
        float *sums = c->s.sums + b * (S + hkk);
        add_chunks(c->s.part + b * cn * S, cn, S, S, sums);
        transpose_heads(sums, a->H, a->dk, sums + S);
    }
}

/* Key row r (padded keys get nothing: their Fk is zero):
 * dv_h += t Fk_h dKV_h, dk += s phi'(Fk) t (V_h dKV_h^T + dKsum_h) */
RF_VEC_INLINE void key_grads(const la_ctx *c, int64_t begin, int64_t end, int thread, int64_t dk)
{
    const la_geom *a = c->a;
    int64_t D = a->D, S = sums_floats(a), hkk = a->H * dk * dk;
    float *dfk = c->s.rows + (int64_t)thread * (D + hkk);
    for (int64_t r = begin; r < end; r++) {
        if (c->mask != NULL && c->mask[r] == 0.0f) {
            for (int k = 1; k < 3; k++) {
                float *grad = k == 1 ? c->gk : c->gv;
                if (c->fresh[k] && grad != NULL)
                    memset(grad + r * D, 0, (size_t)D * sizeof *grad);
            }
            continue;
        }
        int64_t b = r / a->M;
        float t = c->aux[a->l.inv_tau + b];
        const float *f = c->aux + a->l.phi_k + r * D, *v = c->v + r * D;
        const float *dkv = c->s.sums + b * (S + hkk), *dks = dkv + hkk, *dkvt = dkv + S;
        for (int64_t h = 0; h < a->H; h++) {
            float *gv = c->gv + r * D + h * dk;
            if (c->gv != NULL)
                combine_rows(gv, c->fresh[2] ? 0.0f : 1.0f, c->fresh[2] ? NULL : gv, f + h * dk, t,
                             dkv + h * dk * dk, dk);
            /* dFk_h = t (dKV_h V_h + dKsum_h), as rows of dKV_h^T */
            if (c->gk != NULL)
                combine_rows(dfk + h * dk, t, dks + h * dk, v + h * dk, t, dkvt + h * dk * dk, dk);
        }
        if (c->gk != NULL)
            dphi_span(a->map, a->scale, f, dfk, c->gk + r * D, D, c->fresh[1]);
    }
}

static RF_VEC_CLONES void key_pass_backward(void *ctx, int64_t begin, int64_t end, int thread)
{
    BY_HEAD_WIDTH(key_grads, (const la_ctx *)ctx, begin, end, thread);
}

/* dout [B, N, D] -> dq [B, N, D], dk, dv [B, M, D] (+=); the mask gets none */
void rf_cpu_linear_attention_backward(rf_exec *x, rf_node *n)
{
    la_geom a = la_geometry(x, n);
    if (a.dk > RF_LINEAR_ATTENTION_ROW_HEADS) {
        rf_cpu_linear_attention_wide_backward(x, n, &a);
        return;
    }
    la_ctx c = {.a = &a, .v = rf_in(x, n, 2)->value, .mask = n->n_in == 4 ? rf_in(x, n, 3)->value : NULL,
                .out = n->value, .dout = n->grad, .aux = n->aux, .gq = rf_in(x, n, 0)->grad,
                .gk = rf_in(x, n, 1)->grad, .gv = rf_in(x, n, 2)->grad, .s = scratch_layout(&a, x->scratch)};
    c.want_kv = c.gk != NULL || c.gv != NULL;
    for (int k = 0; k < 3; k++)
        c.fresh[k] = x->fresh[k];
    if (c.gq != NULL || c.want_kv)
        rf_pool_run(x->pool, a.B * chunk_count(a.N), 1, query_pass_backward, &c);
    if (c.want_kv) {
        rf_pool_run(x->pool, a.B, 1, reduce_backward, &c);
        rf_pool_run(x->pool, a.B * a.M, row_grain(a.D * (a.dk + 2)), key_pass_backward, &c);
    }
}
