/* Kernelised linear attention kernels (SPEC 4, MAELRE eq. 2).
 *
 * Head h of batch row b reads the column block [h*dk, (h+1)*dk) of its
 * [B, len, D] tensors in place (leading dimension D). With Fq = phi(s q),
 * Fk = phi(s k) * mask (both kept in aux) and t = 1/tau:
 *     KV   = t Fk_h^T V_h     [dk, dk]   (sgemm over the M keys)
 *     Ksum = t Fk_h^T 1       [dk]
 *     U    = Fq_h KV          [N, dk]    (sgemm, into its block of out)
 *     den  = Fq_h Ksum        [N]
 *     O_h  = U / den          (0 where den == 0)
 * Backward, with G = dO_h:
 *     dU = G / den,  dden = -(G . O_h) / den                 (row-wise)
 *     dKV = Fq_h^T dU,  dKsum = Fq_h^T dden                  (BLAS)
 *     dFq = dU KV^T + dden Ksum^T,  dq += s phi'(s q) dFq
 *     dV_h += t Fk_h dKV
 *     dFk = t (V_h dKV^T + 1 dKsum^T),  dk += mask s phi'(s k) dFk
 * phi' is recovered from the saved phi values, so q and k are not re-read.
 * Every product is BLAS from the calling thread; the row-wise work goes to
 * the pool, each task owning its rows (deterministic for any thread count).
 */
#include "../blas.h"
#include <math.h>
#include <string.h>

#include "../op.h"
#include "../ops/linear_attention.h"

#define TASK_FLOATS 16384   /* about this many floats per pool task */

typedef struct {
    int64_t B, N, M, D, H, dk;
    rf_kernel_map map;
    float scale;
    rf_linear_attention_layout l;
} la_geom;

static la_geom la_geometry(rf_exec *x, const rf_node *n)
{
    la_geom a = {.B = n->shape.dim[0], .N = n->shape.dim[1], .M = rf_in(x, n, 1)->shape.dim[1],
                 .D = n->shape.dim[2], .H = n->ia[0], .map = (rf_kernel_map)n->ia[1], .scale = n->fa[0]};
    a.dk = a.D / a.H;
    a.l = rf_linear_attention_aux_layout(a.B, a.N, a.M, a.D, a.H);
    return a;
}

static int64_t row_grain(int64_t row_floats)
{
    return row_floats >= TASK_FLOATS ? 1 : TASK_FLOATS / row_floats;
}

/* f[j] = phi(s x[j]) for j < n; the map is chosen once per span so each
 * loop is branch-free apart from the map's own */
static void phi_span(rf_kernel_map map, float s, const float *x, float *f, int64_t n)
{
    switch (map) {
    case RF_KMAP_ELU1:
        for (int64_t j = 0; j < n; j++) {
            float v = s * x[j];
            f[j] = v > 0 ? v + 1.0f : expf(v);
        }
        break;
    case RF_KMAP_RELU:
        for (int64_t j = 0; j < n; j++) {
            float v = s * x[j];
            f[j] = v > 0 ? v : 0.0f;
        }
        break;
    default:
        for (int64_t j = 0; j < n; j++) {
            float v = s * x[j];
            f[j] = fmaxf(v, 0.0f) + log1pf(expf(-fabsf(v)));
        }
        break;
    }
}

/* gx[j] += s phi'(v_j) d[j], with phi'(v) recovered from f = phi(v): elu+1
 * has phi' = 1 above 0 and e^v = f below; ReLU 1 where f > 0; softplus
 * sigmoid(v) = 1 - e^-f. */
static void dphi_span(rf_kernel_map map, float s, const float *f, const float *d, float *gx, int64_t n)
{
    switch (map) {
    case RF_KMAP_ELU1:
        for (int64_t j = 0; j < n; j++)
            gx[j] += s * (f[j] > 1.0f ? 1.0f : f[j]) * d[j];
        break;
    case RF_KMAP_RELU:
        for (int64_t j = 0; j < n; j++)
            gx[j] += f[j] > 0.0f ? s * d[j] : 0.0f;
        break;
    default:
        for (int64_t j = 0; j < n; j++)
            gx[j] -= s * expm1f(-f[j]) * d[j];
        break;
    }
}

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
static void feature_rows(void *ctx, int64_t begin, int64_t end, int thread)
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

/* 1/tau = 1/sqrt(valid keys) per batch row (1 when none is valid) */
static void inverse_tau(const la_geom *a, const float *mask, float *inv_tau)
{
    for (int64_t b = 0; b < a->B; b++) {
        int64_t valid = a->M;
        if (mask != NULL) {
            valid = 0;
            for (int64_t m = 0; m < a->M; m++)
                valid += mask[b * a->M + m] != 0.0f;
        }
        inv_tau[b] = valid > 0 ? 1.0f / sqrtf((float)valid) : 1.0f;
    }
}

typedef struct {
    const la_geom *a;
    float *aux;
} aux_ctx;

/* Ksum [dk] = t * column sums of Fk_h, one task item per (b, h) */
static void ksum_items(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const aux_ctx *c = ctx;
    const la_geom *a = c->a;
    for (int64_t bh = begin; bh < end; bh++) {
        int64_t b = bh / a->H, h = bh % a->H;
        float *ks = c->aux + a->l.ksum + bh * a->dk;
        const float *fk = c->aux + a->l.phi_k + head_offset(a, b, a->M, h);
        memset(ks, 0, (size_t)a->dk * sizeof *ks);
        for (int64_t m = 0; m < a->M; m++)
            for (int64_t j = 0; j < a->dk; j++)
                ks[j] += fk[m * a->D + j];
        float t = c->aux[a->l.inv_tau + b];
        for (int64_t j = 0; j < a->dk; j++)
            ks[j] *= t;
    }
}

typedef struct {
    const la_geom *a;
    float *aux;
    float *out;             /* [B, N, D]: U in, O out */
} normalise_ctx;

/* den = Fq_h . Ksum per head; O_h = U / den (zeros where den == 0) */
static void normalise_rows(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const normalise_ctx *c = ctx;
    const la_geom *a = c->a;
    for (int64_t r = begin; r < end; r++) {
        int64_t b = r / a->N, i = r % a->N;
        for (int64_t h = 0; h < a->H; h++) {
            const float *fq = c->aux + a->l.phi_q + r * a->D + h * a->dk;
            const float *ks = c->aux + a->l.ksum + (b * a->H + h) * a->dk;
            float *o = c->out + r * a->D + h * a->dk;
            float den = 0.0f;
            for (int64_t j = 0; j < a->dk; j++)
                den += fq[j] * ks[j];
            c->aux[a->l.den + (b * a->H + h) * a->N + i] = den;
            float inv = den > 0.0f ? 1.0f / den : 0.0f;
            for (int64_t j = 0; j < a->dk; j++)
                o[j] *= inv;
        }
    }
}

/* q [B, N, D], k, v [B, M, D], key_mask [B, M] -> out [B, N, D] */
void rf_cpu_linear_attention_forward(rf_exec *x, rf_node *n)
{
    la_geom a = la_geometry(x, n);
    const float *q = rf_in(x, n, 0)->value, *k = rf_in(x, n, 1)->value, *v = rf_in(x, n, 2)->value;
    const float *mask = n->n_in == 4 ? rf_in(x, n, 3)->value : NULL;
    float *aux = n->aux;
    int D = (int)a.D, N = (int)a.N, M = (int)a.M, dk = (int)a.dk;
    inverse_tau(&a, mask, aux + a.l.inv_tau);
    features(x, &a, q, NULL, a.N, aux + a.l.phi_q);
    features(x, &a, k, mask, a.M, aux + a.l.phi_k);
    /* KV [dk, dk] = t * Fk_h^T [dk, M] @ V_h [M, dk] */
    for (int64_t b = 0; b < a.B; b++)
        for (int64_t h = 0; h < a.H; h++)
            rf_sgemm(x->pool, CblasTrans, CblasNoTrans, dk, dk, M, aux[a.l.inv_tau + b],
                        aux + a.l.phi_k + head_offset(&a, b, a.M, h), D, v + head_offset(&a, b, a.M, h), D, 0.0f,
                        aux + a.l.kv + (b * a.H + h) * a.dk * a.dk, dk);
    aux_ctx kc = {&a, aux};
    rf_pool_run(x->pool, a.B * a.H, row_grain(a.M * a.dk), ksum_items, &kc);
    /* U [N, dk] = Fq_h [N, dk] @ KV [dk, dk], into its block of out */
    for (int64_t b = 0; b < a.B; b++)
        for (int64_t h = 0; h < a.H; h++)
            rf_sgemm(x->pool, CblasNoTrans, CblasNoTrans, N, dk, dk, 1.0f,
                        aux + a.l.phi_q + head_offset(&a, b, a.N, h), D, aux + a.l.kv + (b * a.H + h) * a.dk * a.dk,
                        dk, 0.0f, n->value + head_offset(&a, b, a.N, h), D);
    normalise_ctx nc = {&a, aux, n->value};
    rf_pool_run(x->pool, a.B * a.N, row_grain(a.D), normalise_rows, &nc);
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
    float *grad;            /* dq or dk */
} back_ctx;

/* dU = G / den, dden = -(G . O) / den per (row, head); zeros where den == 0 */
static void output_grad_rows(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const back_ctx *c = ctx;
    const la_geom *a = c->a;
    for (int64_t r = begin; r < end; r++) {
        int64_t b = r / a->N, i = r % a->N;
        for (int64_t h = 0; h < a->H; h++) {
            size_t off = (size_t)(r * a->D + h * a->dk);
            const float *g = c->dout + off, *o = c->out + off;
            float *du = c->s.du + off;
            int64_t di = (b * a->H + h) * a->N + i;
            float den = c->aux[a->l.den + di];
            float inv = den > 0.0f ? 1.0f / den : 0.0f, go = 0.0f;
            for (int64_t j = 0; j < a->dk; j++) {
                go += g[j] * o[j];
                du[j] = g[j] * inv;
            }
            c->s.dden[di] = -go * inv;
        }
    }
}

/* dq += s phi'(Fq) dFq per row, dFq = prod + dden Ksum (formed in prod) */
static void query_grad_rows(void *ctx, int64_t begin, int64_t end, int thread)
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
        dphi_span(a->map, a->scale, c->aux + a->l.phi_q + r * a->D, p, c->grad + r * a->D, a->D);
    }
}

/* dk += mask s phi'(Fk) dFk per row, dFk = prod + t dKsum (formed in prod);
 * padded keys get nothing */
static void key_grad_rows(void *ctx, int64_t begin, int64_t end, int thread)
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
        dphi_span(a->map, a->scale, c->aux + a->l.phi_k + r * a->D, p, c->grad + r * a->D, a->D);
    }
}

/* dKV = Fq_h^T dU and (if wanted) dKsum = Fq_h^T dden for every (b, h) */
static void kv_grads(rf_pool *pool, const la_geom *a, const float *aux, const la_scratch *s, bool want_dksum)
{
    int D = (int)a->D, N = (int)a->N, dk = (int)a->dk;
    for (int64_t b = 0; b < a->B; b++)
        for (int64_t h = 0; h < a->H; h++) {
            int64_t bh = b * a->H + h;
            const float *fq = aux + a->l.phi_q + head_offset(a, b, a->N, h);
            rf_sgemm(pool, CblasTrans, CblasNoTrans, dk, dk, N, 1.0f, fq, D,
                     s->du + head_offset(a, b, a->N, h), D, 0.0f, s->dkv + bh * a->dk * a->dk, dk);
            if (want_dksum)
                cblas_sgemv(CblasRowMajor, CblasTrans, N, dk, 1.0f, fq, D, s->dden + bh * a->N, 1, 0.0f,
                            s->dksum + bh * a->dk, 1);
        }
}

/* dout [B, N, D] -> dq [B, N, D], dk, dv [B, M, D] (+=); the mask gets none */
void rf_cpu_linear_attention_backward(rf_exec *x, rf_node *n)
{
    la_geom a = la_geometry(x, n);
    float *gq = rf_in(x, n, 0)->grad, *gk = rf_in(x, n, 1)->grad, *gv = rf_in(x, n, 2)->grad;
    const float *v = rf_in(x, n, 2)->value, *aux = n->aux;
    const float *mask = n->n_in == 4 ? rf_in(x, n, 3)->value : NULL;
    int D = (int)a.D, N = (int)a.N, M = (int)a.M, dk = (int)a.dk;
    back_ctx c = {&a, aux, n->value, n->grad, mask, scratch_layout(&a, x->scratch), NULL};
    rf_pool_run(x->pool, a.B * a.N, row_grain(a.D), output_grad_rows, &c);
    if (gk != NULL || gv != NULL)
        kv_grads(x->pool, &a, aux, &c.s, gk != NULL);
    if (gq != NULL) {
        /* prod_h [N, dk] = dU_h [N, dk] @ KV^T [dk, dk] */
        for (int64_t b = 0; b < a.B; b++)
            for (int64_t h = 0; h < a.H; h++)
                rf_sgemm(x->pool, CblasNoTrans, CblasTrans, N, dk, dk, 1.0f,
                            c.s.du + head_offset(&a, b, a.N, h), D, aux + a.l.kv + (b * a.H + h) * a.dk * a.dk, dk,
                            0.0f, c.s.prod + head_offset(&a, b, a.N, h), D);
        c.grad = gq;
        rf_pool_run(x->pool, a.B * a.N, row_grain(a.D), query_grad_rows, &c);
    }
    /* dV_h [M, dk] += t Fk_h [M, dk] @ dKV [dk, dk] */
    if (gv != NULL)
        for (int64_t b = 0; b < a.B; b++)
            for (int64_t h = 0; h < a.H; h++)
                rf_sgemm(x->pool, CblasNoTrans, CblasNoTrans, M, dk, dk, aux[a.l.inv_tau + b],
                            aux + a.l.phi_k + head_offset(&a, b, a.M, h), D,
                            c.s.dkv + (b * a.H + h) * a.dk * a.dk, dk, 1.0f, gv + head_offset(&a, b, a.M, h), D);
    if (gk != NULL) {
        /* prod_h [M, dk] = t V_h [M, dk] @ dKV^T [dk, dk] */
        for (int64_t b = 0; b < a.B; b++)
            for (int64_t h = 0; h < a.H; h++)
                rf_sgemm(x->pool, CblasNoTrans, CblasTrans, M, dk, dk, aux[a.l.inv_tau + b],
                            v + head_offset(&a, b, a.M, h), D, c.s.dkv + (b * a.H + h) * a.dk * a.dk, dk, 0.0f,
                            c.s.prod + head_offset(&a, b, a.M, h), D);
        c.grad = gk;
        rf_pool_run(x->pool, a.B * a.M, row_grain(a.D), key_grad_rows, &c);
    }
}
