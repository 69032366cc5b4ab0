/* Linear attention for heads wider than RF_LINEAR_ATTENTION_ROW_HEADS
 * (linear_attention.c has the formulas): per head (b, h), the products
 * over the sequence are BLAS calls, large enough there to beat doing a row
 * at a time. The pool splits the work over (b, h) pairs, each task calling
 * single-threaded BLAS for its heads; row-wise work is split over rows.
 * Every output float is written by one task with the same calls whatever
 * the thread count, so results are deterministic for any thread count. */
#include <cblas.h>

#include "linear_attention_kernels.h"

/* Offset of head h's block in row 0 of batch row b of a [B, len, D] tensor. */
static size_t head_offset(const la_geom *a, int64_t b, int64_t len, int64_t h)
{
    return (size_t)(b * len * a->D + h * a->dk);
}

/* ---- forward ---- */

typedef struct {
    const la_geom *a;
    const float *src;       /* [B, len, D] */
    const float *mask;      /* [B, len] or NULL */
    float *dst;             /* [B, len, D] */
} feature_ctx;

/* dst = phi(s src) per row; rows of padded keys become zeros */
static RF_VEC_CLONES void feature_rows(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const feature_ctx *c = ctx;
    int64_t D = c->a->D;
    for (int64_t r = begin; r < end; r++) {
        float *d = c->dst + r * D;
        if (c->mask != NULL && c->mask[r] == 0.0f) {
            memset(d, 0, (size_t)D * sizeof *d);
            continue;
        }
        phi_span(c->a->map, c->a->scale, c->src + r * D, d, D);
    }
}

static void features(rf_exec *x, const la_geom *a, const float *src, const float *mask, int64_t len, float *dst)
{
    feature_ctx c = {a, src, mask, dst};
    rf_pool_run(x->pool, a->B * len, row_grain(a->D), feature_rows, &c);
}

typedef struct {
    const la_geom *a;
    const float *v;         /* [B, M, D] */
    float *aux;
    float *out;             /* [B, N, D] */
} forward_ctx;

/* Head (b, h), all of it: KV = t Fk_h^T V_h, Ksum = t * column sums of Fk_h,
 * U = Fq_h KV into its block of out, den = Fq_h . Ksum, O_h = U / den
 * (zeros where den == 0). */
static void forward_head(const forward_ctx *c, int64_t b, int64_t h)
{
    const la_geom *a = c->a;
    int D = (int)a->D, N = (int)a->N, M = (int)a->M, dk = (int)a->dk;
    int64_t bh = b * a->H + h;
    float *aux = c->aux, t = aux[a->l.inv_tau + b];
    const float *fk = aux + a->l.phi_k + head_offset(a, b, a->M, h);
    const float *fq = aux + a->l.phi_q + head_offset(a, b, a->N, h);
    float *kv = aux + a->l.kv + bh * a->dk * a->dk, *ks = aux + a->l.ksum + bh * a->dk;
    float *out = c->out + head_offset(a, b, a->N, h), *den = aux + a->l.den + bh * a->N;
    /* KV [dk, dk] = t * Fk_h^T [dk, M] @ V_h [M, dk] */
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, dk, dk, M, t, fk, D, c->v + head_offset(a, b, a->M, h),
                D, 0.0f, kv, dk);
    memset(ks, 0, (size_t)a->dk * sizeof *ks);
    for (int64_t m = 0; m < a->M; m++)
        for (int64_t j = 0; j < a->dk; j++)
            ks[j] += fk[m * a->D + j];
    for (int64_t j = 0; j < a->dk; j++)
        ks[j] *= t;
    /* U [N, dk] = Fq_h [N, dk] @ KV [dk, dk], into its block of out */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, dk, dk, 1.0f, fq, D, kv, dk, 0.0f, out, D);
    for (int64_t i = 0; i < a->N; i++) {
        const float *fqi = fq + i * a->D;
        float *o = out + i * a->D;
        float d = 0.0f;
        for (int64_t j = 0; j < a->dk; j++)
            d += fqi[j] * ks[j];
        den[i] = d;
        float inv = d > 0.0f ? 1.0f / d : 0.0f;
        for (int64_t j = 0; j < a->dk; j++)
            o[j] *= inv;
    }
}

static void forward_heads(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const forward_ctx *c = ctx;
    for (int64_t bh = begin; bh < end; bh++)
        forward_head(c, bh / c->a->H, bh % c->a->H);
}

/* q [B, N, D], k, v [B, M, D], key_mask [B, M] -> out [B, N, D] */
void rf_cpu_linear_attention_wide_forward(rf_exec *x, rf_node *n, const la_geom *geom)
{
    la_geom a = *geom;
    const float *q = rf_in(x, n, 0)->value, *k = rf_in(x, n, 1)->value, *v = rf_in(x, n, 2)->value;
    const float *mask = n->n_in == 4 ? rf_in(x, n, 3)->value : NULL;
    float *aux = n->aux;
    inverse_tau(&a, mask, aux + a.l.inv_tau);
    features(x, &a, q, NULL, a.N, aux + a.l.phi_q);
    features(x, &a, k, mask, a.M, aux + a.l.phi_k);
    forward_ctx c = {&a, v, aux, n->value};
    rf_pool_run(x->pool, a.B * a.H, 1, forward_heads, &c);
}

/* ---- backward ---- */

typedef struct {
    float *du;              /* [B, N, D] dO / den */
    float *prod;            /* [B, max(N, M), D] dU KV^T, then t V dKV^T */
    float *dden;            /* [B, H, N] */
    float *dkv;             /* [B, H, dk, dk] */
    float *dksum;           /* [B, H, dk] */
} la_scratch;

static la_scratch scratch_layout(const la_geom *a, float *s)
{
    int64_t rows = a->N > a->M ? a->N : a->M;
    la_scratch p;
    p.du = s;
    p.prod = p.du + a->B * a->N * a->D;
    p.dden = p.prod + a->B * rows * a->D;
    p.dkv = p.dden + a->B * a->H * a->N;
    p.dksum = p.dkv + a->B * a->H * a->dk * a->dk;
    return p;
}

typedef struct {
    const la_geom *a;
    const float *aux, *out, *dout, *mask;
    la_scratch s;
    float *grad;            /* dq or dk (the row-wise tasks) */
    const float *v;         /* [B, M, D] */
    float *gq, *gk, *gv;
    bool want_kv;           /* dKV needed (k or v gets a gradient) */
} back_ctx;

/* Head (b, h), the part before the row-wise query gradient:
 *   dU = G / den, dden = -(G . O) / den (zeros where den == 0),
 *   dKV = Fq_h^T dU, dKsum = Fq_h^T dden (when k needs a gradient),
 *   prod_h = dU KV^T (when q needs one), dV_h += t Fk_h dKV. */
static void backward_head_a(const back_ctx *c, int64_t b, int64_t h)
{
    const la_geom *a = c->a;
    int D = (int)a->D, N = (int)a->N, M = (int)a->M, dk = (int)a->dk;
    int64_t bh = b * a->H + h;
    size_t oq = head_offset(a, b, a->N, h), ok = head_offset(a, b, a->M, h);
    const float *fq = c->aux + a->l.phi_q + oq, *kv = c->aux + a->l.kv + bh * a->dk * a->dk;
    const float *den = c->aux + a->l.den + bh * a->N;
    float *du = c->s.du + oq, *dden = c->s.dden + bh * a->N, *dkv = c->s.dkv + bh * a->dk * a->dk;
    for (int64_t i = 0; i < a->N; i++) {
        const float *g = c->dout + oq + i * a->D, *o = c->out + oq + i * a->D;
        float *dui = du + i * a->D;
        float inv = den[i] > 0.0f ? 1.0f / den[i] : 0.0f, go = 0.0f;
        for (int64_t j = 0; j < a->dk; j++) {
            go += g[j] * o[j];
            dui[j] = g[j] * inv;
        }
        dden[i] = -go * inv;
    }
    if (c->want_kv) {
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, dk, dk, N, 1.0f, fq, D, du, D, 0.0f, dkv, dk);
        if (c->gk != NULL)
            cblas_sgemv(CblasRowMajor, CblasTrans, N, dk, 1.0f, fq, D, dden, 1, 0.0f, c->s.dksum + bh * a->dk, 1);
    }
    /* prod_h [N, dk] = dU_h [N, dk] @ KV^T [dk, dk] */
    if (c->gq != NULL)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, dk, dk, 1.0f, du, D, kv, dk, 0.0f, c->s.prod + oq, D);
    /* dV_h [M, dk] += t Fk_h [M, dk] @ dKV [dk, dk] */
    if (c->gv != NULL)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, dk, dk, c->aux[a->l.inv_tau + b],
                    c->aux + a->l.phi_k + ok, D, dkv, dk, 1.0f, c->gv + ok, D);
}

static void backward_heads_a(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const back_ctx *c = ctx;
    for (int64_t bh = begin; bh < end; bh++)
        backward_head_a(c, bh / c->a->H, bh % c->a->H);
}

/* prod_h [M, dk] = t V_h [M, dk] @ dKV^T [dk, dk] for head (b, h) */
static void backward_heads_k(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const back_ctx *c = ctx;
    const la_geom *a = c->a;
    int D = (int)a->D, M = (int)a->M, dk = (int)a->dk;
    for (int64_t bh = begin; bh < end; bh++) {
        int64_t b = bh / a->H, h = bh % a->H;
        size_t ok = head_offset(a, b, a->M, h);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, dk, dk, c->aux[a->l.inv_tau + b], c->v + ok, D,
                    c->s.dkv + bh * a->dk * a->dk, dk, 0.0f, c->s.prod + ok, D);
    }
}

/* dq += s phi'(Fq) dFq per row, dFq = prod + dden Ksum (formed in prod) */
static RF_VEC_CLONES void query_grad_rows(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const back_ctx *c = ctx;
    const la_geom *a = c->a;
    for (int64_t r = begin; r < end; r++) {
        int64_t b = r / a->N, i = r % a->N;
        float *p = c->s.prod + r * a->D;
        for (int64_t h = 0; h < a->H; h++) {
            const float *ks = c->aux + a->l.ksum + (b * a->H + h) * a->dk;
            float dd = c->s.dden[(b * a->H + h) * a->N + i];
            for (int64_t j = 0; j < a->dk; j++)
                p[h * a->dk + j] += dd * ks[j];
        }
        dphi_span(a->map, a->scale, c->aux + a->l.phi_q + r * a->D, p, c->grad + r * a->D, a->D, false);
    }
}

/* dk += mask s phi'(Fk) dFk per row, dFk = prod + t dKsum (formed in prod);
 * padded keys get nothing */
static RF_VEC_CLONES void key_grad_rows(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const back_ctx *c = ctx;
    const la_geom *a = c->a;
    for (int64_t r = begin; r < end; r++) {
        if (c->mask != NULL && c->mask[r] == 0.0f)
            continue;
        int64_t b = r / a->M;
        float t = c->aux[a->l.inv_tau + b], *p = c->s.prod + r * a->D;
        const float *dks = c->s.dksum + b * a->H * a->dk;   /* the row's heads, [H * dk] = [D] */
        for (int64_t j = 0; j < a->D; j++)
            p[j] += t * dks[j];
        dphi_span(a->map, a->scale, c->aux + a->l.phi_k + r * a->D, p, c->grad + r * a->D, a->D, false);
    }
}

/* dout [B, N, D] -> dq [B, N, D], dk, dv [B, M, D] (+=); the mask gets none */
void rf_cpu_linear_attention_wide_backward(rf_exec *x, rf_node *n, const la_geom *geom)
{
    la_geom a = *geom;
    float *gq = rf_in(x, n, 0)->grad, *gk = rf_in(x, n, 1)->grad, *gv = rf_in(x, n, 2)->grad;
    const float *mask = n->n_in == 4 ? rf_in(x, n, 3)->value : NULL;
    for (int k = 0; k < 3; k++)   /* its kernels add: a gradient it writes first starts at zero */
        if (x->fresh[k] && rf_in(x, n, k)->grad != NULL)
            memset(rf_in(x, n, k)->grad, 0, (size_t)rf_shape_numel(rf_in(x, n, k)->shape) * sizeof(float));
    back_ctx c = {.a = &a, .aux = n->aux, .out = n->value, .dout = n->grad, .mask = mask,
                  .s = scratch_layout(&a, x->scratch), .v = rf_in(x, n, 2)->value, .gq = gq, .gk = gk, .gv = gv,
                  .want_kv = gk != NULL || gv != NULL};
    rf_pool_run(x->pool, a.B * a.H, 1, backward_heads_a, &c);
    if (gq != NULL) {
        c.grad = gq;
        rf_pool_run(x->pool, a.B * a.N, row_grain(a.D), query_grad_rows, &c);
    }
    if (gk != NULL) {
        rf_pool_run(x->pool, a.B * a.H, 1, backward_heads_k, &c);
        c.grad = gk;
        rf_pool_run(x->pool, a.B * a.M, row_grain(a.D), key_grad_rows, &c);
    }
}
