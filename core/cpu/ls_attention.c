/* Long-short attention kernels (SPEC §2); the op is described in
 * core/ops/ls_attention.h.
 *
 * Head h of batch item b reads the column block [h*dk, (h+1)*dk) of q, k, v
 * in place (leading dimension D); its local keys are rows [0, N) of k, its
 * global keys rows [N, N + G). Per (b, h), with P_l [N, L] and P_g [N, G] the
 * two blocks of aux:
 *     P_g = scale * Q K_g^T                       one sgemm
 *     P_l[segment s] = scale * Q_s K_band(s)^T    one sgemm per segment, on the
 *                                                 band columns inside [0, N)
 *     joint softmax of each row [P_l | P_g]       pool, all rows at once
 *     O = P_g V_g + P_l[s] V_band(s)              one sgemm + one per segment
 * Backward per (b, h), dP then dS in scratch:
 *     dV_g += P_g^T dO,   dV_band(s) += P_l[s]^T dO_s,
 *     dP = dO [V_band; V_g]^T,   dS = P * (dP - rowsum(dP * P)) over the joint row,
 *     dQ += scale * (dS_g K_g + dS_l[s] K_band(s)),
 *     dK_g += scale * dS_g^T Q,   dK_band(s) += scale * dS_l[s]^T Q_s.
 * The products over all N rows (the globals') are sgemms; a segment's
 * products are far too small for a BLAS call's fixed cost, and run on
 * rf_band_product (band_product.h) where the CPU has AVX-512, its scores
 * and dP against K^T and V^T of the head, transposed once per head into
 * the thread's scratch; with it, the joint softmax and its gradient run a
 * segment at a time on rf_band_softmax (band_softmax.h). All run on the
 * calling thread (the bands of
 * neighbouring segments overlap, so their accumulations run in order); the
 * pool runs (batch, head) pairs. A band column outside [0, N) is never
 * computed nor read: the softmax gives it probability 0.
 */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "../op.h"
#include "band_product.h"
#include "band_softmax.h"
#include "cpu_features.h"
#include "small_head.h"
#include "vecmath.h"
#include "../ops/ls_attention.h"


typedef struct {
    int64_t B, N, G, D, H, dk, w, e, L;
    float scale;
    bool band_kernel;   /* segment products on rf_band_product */
} ls_geom;

static ls_geom ls_geometry(rf_exec *x, const rf_node *n)
{
    ls_geom a = {.B = n->shape.dim[0], .N = n->shape.dim[1], .D = n->shape.dim[2], .H = n->ia[0],
                 .w = n->ia[1], .scale = n->fa[0]};
    a.G = rf_in(x, n, 1)->shape.dim[1] - a.N;
    a.dk = a.D / a.H;
    a.e = rf_ls_extent((int)a.w);
    a.L = rf_ls_band((int)a.w);
    a.band_kernel = a.L <= RF_BAND_N && a.dk <= RF_BAND_N && rf_cpu_avx512();
    return a;
}

/* The band of segment s: key position p0 + j for band column j; columns
 * [jlo, jhi) lie inside [0, N). */
typedef struct {
    int64_t p0, jlo, jhi;
} ls_band;

static ls_band band_of(const ls_geom *a, int64_t s)
{
    ls_band bd = {.p0 = s * a->w - a->e};
    bd.jlo = bd.p0 < 0 ? -bd.p0 : 0;
    bd.jhi = a->N - bd.p0 < a->L ? a->N - bd.p0 : a->L;
    return bd;
}

/* Head h of batch item b: q/out rows, and k/v rows (locals then globals). */
static size_t q_offset(const ls_geom *a, int64_t b, int64_t h) { return (size_t)(b * a->N * a->D + h * a->dk); }
static size_t kv_offset(const ls_geom *a, int64_t b, int64_t h)
{
    return (size_t)(b * (a->N + a->G) * a->D + h * a->dk);
}

static float *local_probs(const ls_geom *a, float *aux, int64_t b, int64_t h)
{
    return aux + (b * a->H + h) * a->N * a->L;
}

static float *global_probs(const ls_geom *a, float *aux, int64_t b, int64_t h)
{
    return aux + a->B * a->H * a->N * a->L + (b * a->H + h) * a->N * a->G;
}

/* C [m, n] (ldc) = alpha * A B^T + beta * C, A [m, k], B [n, k]: scores
 * (with beta = 0 and a head of up to 16 floats, on the short-head kernel). */
static void gemm_nt(int m, int n, int k, float alpha, const float *A, int lda, const float *B, int ldb,
                    float beta, float *C, int ldc)
{
    if (beta == 0.0f && rf_small_head_nt(m, n, k, alpha, A, lda, B, ldb, C, ldc))
        return;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

/* The globals' products whose output is one head wide: C [m, dk] = beta C +
 * alpha op(A) B (beta 0 or 1), op(A) = A [m, k] or, with ta, A^T for A
 * [k, m]; B [k, dk]. On the band kernel where it runs (a BLAS packs far
 * more than it multiplies at dk = 8), else a BLAS. */
static void gemm_head(const ls_geom *a, bool ta, int m, int k, float alpha, const float *A, int lda, const float *B,
                      int ldb, float beta, float *C, int ldc)
{
    int dk = (int)a->dk;
    if (a->band_kernel && rf_band_product(ta, m, dk, k, alpha, A, lda, B, ldb, beta, C, ldc))
        return;
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, CblasNoTrans, m, dk, k, alpha, A, lda, B, ldb, beta,
                C, ldc);
}

/* A run of segments: s .. s + count - 1, their bands clipped alike (bd:
 * the first one's), so each product's operands move by fixed steps from one
 * segment to the next. Every interior segment is one run; the edge ones are
 * runs of their own. */
typedef struct {
    int64_t s, count;
    ls_band bd;
} ls_run;

static ls_run run_at(const ls_geom *a, int64_t s)
{
    ls_run r = {s, 0, band_of(a, s)};   /* s = N / w: none left, count 0 */
    for (int64_t next = s; next < a->N / a->w; next++, r.count++) {
        ls_band nb = band_of(a, next);
        if (nb.jlo != r.bd.jlo || nb.jhi != r.bd.jhi)
            break;
    }
    return r;
}

/* The run's C [m, n] = beta C + alpha op(A) B (beta 0 or 1) per segment, the
 * operands moving by the steps (floats): on the band kernel when the
 * geometry allows it, else a BLAS call per segment. */
static void run_products(const ls_geom *a, const ls_run *r, long a_step, long b_step, long c_step, bool ta, int m,
                         int n, int inner, float alpha, const float *A, int lda, const float *B, int ldb, float beta,
                         float *C, int ldc)
{
    if (a->band_kernel && rf_band_products((int)r->count, a_step, b_step, c_step, ta, m, n, inner, alpha, A, lda,
                                           B, ldb, beta, C, ldc))
        return;
    for (int64_t i = 0; i < r->count; i++)
        cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, CblasNoTrans, m, n, inner, alpha,
                    A + i * a_step, lda, B + i * b_step, ldb, beta, C + i * c_step, ldc);
}

/* The run's C_s [w, nv] = alpha X_s Y_band^T, X_s [w, dk] (ld D): from the
 * head's Y^T [dk, N] (yt) on the band kernel, or from Y [N, dk] (y, ld D). */
static void run_scores(const ls_geom *a, const ls_run *r, float alpha, const float *x, const float *y,
                       const float *yt, float *c)
{
    int w = (int)a->w, nv = (int)(r->bd.jhi - r->bd.jlo), dk = (int)a->dk, D = (int)a->D, L = (int)a->L;
    const float *xs = x + r->s * a->w * a->D;
    float *cs = c + r->s * a->w * a->L + r->bd.jlo;
    if (yt != NULL) {
        run_products(a, r, w * D, w, w * L, false, w, nv, dk, alpha, xs, D, yt + r->bd.p0 + r->bd.jlo, (int)a->N,
                     0.0f, cs, L);
        return;
    }
    for (int64_t i = 0; i < r->count; i++)
        gemm_nt(w, nv, dk, alpha, xs + i * w * D, D, y + (r->bd.p0 + r->bd.jlo + i * w) * a->D, D, 0.0f,
                cs + i * w * L, L);
}

/* yt [dk, N] = the head's local rows Y [N, dk] (ld D) transposed, for
 * run_scores; NULL without the band kernel. */
static const float *head_transposed(const ls_geom *a, const float *y, float *yt)
{
    if (!a->band_kernel)
        return NULL;
    cblas_somatcopy(CblasRowMajor, CblasTrans, (int)a->N, (int)a->dk, 1.0f, y, (int)a->D, yt, (int)a->N);
    return yt;
}

/* ---- forward ---- */

/* One query row t: a padded query, or a row without any valid key, gets all
 * zeros; otherwise one softmax over the valid band columns and the globals. */
static void softmax_row(const ls_geom *a, float *pl, float *pg, const float *mask, int64_t t)
{
    ls_band bd = band_of(a, t / a->w);
    float *band = pl + bd.jlo;
    int64_t nb = bd.jhi - bd.jlo;
    float mx = -INFINITY;
    if (mask == NULL || mask[t] != 0.0f) {
        if (mask != NULL)
            for (int64_t j = 0; j < nb; j++)
                if (mask[bd.p0 + bd.jlo + j] == 0.0f)
                    band[j] = -INFINITY;
        mx = fmaxf(rf_row_max(band, nb), rf_row_max(pg, a->G));
    }
    if (mx == -INFINITY) {
        memset(pl, 0, (size_t)a->L * sizeof *pl);
        memset(pg, 0, (size_t)a->G * sizeof *pg);
        return;
    }
    float inv = 1.0f / (rf_exp_row(band, nb, mx) + rf_exp_row(pg, a->G, mx));
    for (int64_t j = 0; j < a->L; j++)
        pl[j] = j >= bd.jlo && j < bd.jhi ? pl[j] * inv : 0.0f;
    for (int64_t i = 0; i < a->G; i++)
        pg[i] *= inv;
}

/* Every row of one (b, h), a segment at a time on rf_band_softmax; false
 * (at the first segment, nothing written) where it does not run. */
static bool head_softmax_banded(const ls_geom *a, float *pl, float *pg, const float *mask)
{
    for (int64_t s = 0; s < a->N / a->w; s++) {
        ls_band bd = band_of(a, s);
        rf_band_cols cols = {(int)a->L, (int)bd.jlo, (int)bd.jhi, mask != NULL ? mask + bd.p0 + bd.jlo : NULL};
        int64_t t = s * a->w;
        if (!rf_band_softmax(&cols, (int)a->w, mask != NULL ? mask + t : NULL, pl + t * a->L, pg + t * a->G,
                             (int)a->G))
            return false;
    }
    return true;
}

static void head_softmax(const ls_geom *a, float *pl, float *pg, const float *mask)
{
    if (a->band_kernel && head_softmax_banded(a, pl, pg, mask))
        return;
    for (int64_t t = 0; t < a->N; t++)
        softmax_row(a, pl + t * a->L, pg + t * a->G, mask, t);
}

/* Scores of one (b, h) into its two probability blocks; kt: scratch for
 * K^T [dk, N]. */
static void head_scores(const ls_geom *a, const float *q, const float *k, float *pl, float *pg, float *kt)
{
    int D = (int)a->D, dk = (int)a->dk, G = (int)a->G;
    /* P_g [N, G] = scale * Q [N, dk] @ K_g^T [dk, G] */
    if (G > 0)
        gemm_nt((int)a->N, G, dk, a->scale, q, D, k + a->N * a->D, D, 0.0f, pg, G);
    /* P_l[s] [w, nv] = scale * Q_s [w, dk] @ K_band^T [dk, nv] */
    const float *kt_head = head_transposed(a, k, kt);
    for (ls_run r = run_at(a, 0); r.count > 0; r = run_at(a, r.s + r.count))
        run_scores(a, &r, a->scale, q, k, kt_head, pl);
}

/* O [N, dk] = P_g [N, G] @ V_g [G, dk] + P_l[s] [w, nv] @ V_band [nv, dk]. */
static void head_output(const ls_geom *a, const float *pl, const float *pg, const float *v, float *out)
{
    int D = (int)a->D, dk = (int)a->dk, L = (int)a->L, G = (int)a->G, w = (int)a->w;
    if (G > 0)
        gemm_head(a, false, (int)a->N, G, 1.0f, pg, G, v + a->N * a->D, D, 0.0f, out, D);
    for (ls_run r = run_at(a, 0); r.count > 0; r = run_at(a, r.s + r.count))
        run_products(a, &r, w * L, w * D, w * D, false, w, dk, (int)(r.bd.jhi - r.bd.jlo), 1.0f,
                     pl + r.s * a->w * a->L + r.bd.jlo, L, v + (r.bd.p0 + r.bd.jlo) * a->D, D, G > 0 ? 1.0f : 0.0f,
                     out + r.s * a->w * a->D, D);
}

typedef struct {
    const ls_geom *a;
    const float *q, *k, *v, *mask;
    float *aux, *out, *scratch;   /* scratch: dk x N floats per thread */
} forward_ctx;

/* Items: (b, h) pairs; each is scores, softmax and output of one head, with
 * single-threaded products (the pool supplies the parallelism). */
static void forward_heads(void *ctx, int64_t begin, int64_t end, int thread)
{
    const forward_ctx *c = ctx;
    const ls_geom *a = c->a;
    float *kt = c->scratch + thread * a->dk * a->N;
    for (int64_t bh = begin; bh < end; bh++) {
        int64_t b = bh / a->H, h = bh % a->H;
        float *pl = local_probs(a, c->aux, b, h), *pg = global_probs(a, c->aux, b, h);
        const float *mask = c->mask != NULL ? c->mask + b * a->N : NULL;
        head_scores(a, c->q + q_offset(a, b, h), c->k + kv_offset(a, b, h), pl, pg, kt);
        head_softmax(a, pl, pg, mask);
        head_output(a, pl, pg, c->v + kv_offset(a, b, h), c->out + q_offset(a, b, h));
    }
}

/* q [B, N, D], k, v [B, N + G, D], key_mask [B, N] -> out [B, N, D];
 * aux: P_l [B, H, N, L], then P_g [B, H, N, G] */
void rf_cpu_ls_attention_forward(rf_exec *x, rf_node *n)
{
    ls_geom a = ls_geometry(x, n);
    forward_ctx c = {&a, rf_in(x, n, 0)->value, rf_in(x, n, 1)->value, rf_in(x, n, 2)->value,
                     n->n_in == 4 ? rf_in(x, n, 3)->value : NULL, n->aux, n->value, x->scratch};
    rf_pool_run(x->pool, a.B * a.H, 1, forward_heads, &c);
}

/* ---- backward ---- */

/* d[j] = p[j] (d[j] - dot) */
static RF_VEC_CLONES void softmax_grad_in_place(float *d, const float *p, float dot, int64_t n)
{
    for (int64_t j = 0; j < n; j++)
        d[j] = p[j] * (d[j] - dot);
}

/* dS = P * (dP - sum(dP * P)) over the valid columns of each joint row (the
 * band columns outside [0, N) hold no dP and are never read). */
static RF_VEC_CLONES void softmax_grad_rows(const ls_geom *a, const float *pl_all, const float *pg_all,
                                            float *dl_all, float *dg_all)
{
    for (int64_t t = 0; t < a->N; t++) {
        ls_band bd = band_of(a, t / a->w);
        int64_t nb = bd.jhi - bd.jlo;
        const float *pl = pl_all + t * a->L + bd.jlo, *pg = pg_all + t * a->G;
        float *dl = dl_all + t * a->L + bd.jlo, *dg = dg_all + t * a->G;
        float dot = rf_dot(dl, pl, nb) + rf_dot(dg, pg, a->G);
        softmax_grad_in_place(dl, pl, dot, nb);
        softmax_grad_in_place(dg, pg, dot, a->G);
    }
}

/* Pointers of one (b, h): inputs, their grads (NULL when not wanted), the
 * output grad, the probabilities and the dP/dS scratch. */
typedef struct {
    const float *q, *k, *v, *dout, *pl, *pg;
    float *gq, *gk, *gv, *dl, *dg, *vt;   /* vt: scratch for V^T [dk, N] */
} ls_head;

/* dS from dP in place for every row of one (b, h), a segment at a time on
 * rf_band_softmax_grad; false (at the first segment, nothing written)
 * where it does not run. */
static bool head_softmax_grad_banded(const ls_geom *a, const ls_head *p)
{
    for (int64_t s = 0; s < a->N / a->w; s++) {
        ls_band bd = band_of(a, s);
        rf_band_cols cols = {(int)a->L, (int)bd.jlo, (int)bd.jhi, NULL};
        size_t l = (size_t)(s * a->w * a->L), g = (size_t)(s * a->w * a->G);
        if (!rf_band_softmax_grad(&cols, (int)a->w, p->pl + l, p->pg + g, p->dl + l, p->dg + g, (int)a->G))
            return false;
    }
    return true;
}

static void head_softmax_grad(const ls_geom *a, const ls_head *p)
{
    if (a->band_kernel && head_softmax_grad_banded(a, p))
        return;
    softmax_grad_rows(a, p->pl, p->pg, p->dl, p->dg);
}

/* dV_g [G, dk] += P_g^T dO,  dV_band [nv, dk] += P_l[s]^T dO_s */
static void head_grad_v(const ls_geom *a, const ls_head *p)
{
    int D = (int)a->D, dk = (int)a->dk, L = (int)a->L, G = (int)a->G, w = (int)a->w;
    if (G > 0)
        gemm_head(a, true, G, (int)a->N, 1.0f, p->pg, G, p->dout, D, 1.0f, p->gv + a->N * a->D, D);
    for (ls_run r = run_at(a, 0); r.count > 0; r = run_at(a, r.s + r.count))
        run_products(a, &r, w * L, w * D, w * D, true, (int)(r.bd.jhi - r.bd.jlo), dk, w, 1.0f,
                     p->pl + r.s * a->w * a->L + r.bd.jlo, L, p->dout + r.s * a->w * a->D, D, 1.0f,
                     p->gv + (r.bd.p0 + r.bd.jlo) * a->D, D);
}

/* dP_g [N, G] = dO V_g^T,  dP_l[s] [w, nv] = dO_s V_band^T, into scratch */
static void head_grad_p(const ls_geom *a, const ls_head *p)
{
    int D = (int)a->D, dk = (int)a->dk, G = (int)a->G;
    if (G > 0)
        gemm_nt((int)a->N, G, dk, 1.0f, p->dout, D, p->v + a->N * a->D, D, 0.0f, p->dg, G);
    const float *vt = head_transposed(a, p->v, p->vt);
    for (ls_run r = run_at(a, 0); r.count > 0; r = run_at(a, r.s + r.count))
        run_scores(a, &r, 1.0f, p->dout, p->v, vt, p->dl);
}

/* dQ += scale * (dS_g K_g + dS_l[s] K_band),  dK_g += scale * dS_g^T Q,
 * dK_band += scale * dS_l[s]^T Q_s */
static void head_grad_qk(const ls_geom *a, const ls_head *p)
{
    int D = (int)a->D, dk = (int)a->dk, L = (int)a->L, G = (int)a->G, w = (int)a->w, N = (int)a->N;
    if (G > 0 && p->gq != NULL)
        gemm_head(a, false, N, G, a->scale, p->dg, G, p->k + a->N * a->D, D, 1.0f, p->gq, D);
    if (G > 0 && p->gk != NULL)
        gemm_head(a, true, G, N, a->scale, p->dg, G, p->q, D, 1.0f, p->gk + a->N * a->D, D);
    for (ls_run r = run_at(a, 0); r.count > 0; r = run_at(a, r.s + r.count)) {
        int nv = (int)(r.bd.jhi - r.bd.jlo);
        const float *ds = p->dl + r.s * a->w * a->L + r.bd.jlo;
        size_t rows = (size_t)(r.s * a->w * a->D), band = (size_t)((r.bd.p0 + r.bd.jlo) * a->D);
        if (p->gq != NULL)
            run_products(a, &r, w * L, w * D, w * D, false, w, dk, nv, a->scale, ds, L, p->k + band, D, 1.0f,
                         p->gq + rows, D);
        if (p->gk != NULL)
            run_products(a, &r, w * L, w * D, w * D, true, nv, dk, w, a->scale, ds, L, p->q + rows, D, 1.0f,
                         p->gk + band, D);
    }
}

static void head_backward(const ls_geom *a, const ls_head *p)
{
    if (p->gv != NULL)
        head_grad_v(a, p);
    if (p->gq == NULL && p->gk == NULL)
        return;
    head_grad_p(a, p);
    head_softmax_grad(a, p);
    head_grad_qk(a, p);
}

typedef struct {
    const ls_geom *a;
    const rf_node *n;
    const float *q, *k, *v;
    float *gq, *gk, *gv, *scratch;
} backward_ctx;

/* Items: (b, h) pairs. Heads write disjoint column blocks of the grads, so
 * tasks never touch the same element; each thread has its own dP/dS. */
static void backward_heads(void *ctx, int64_t begin, int64_t end, int thread)
{
    const backward_ctx *c = ctx;
    const ls_geom *a = c->a;
    float *dl = c->scratch + thread * a->N * (a->L + a->G + a->dk);
    for (int64_t bh = begin; bh < end; bh++) {
        int64_t b = bh / a->H, h = bh % a->H;
        size_t oq = q_offset(a, b, h), okv = kv_offset(a, b, h);
        ls_head p = {.q = c->q + oq,
                     .k = c->k + okv,
                     .v = c->v + okv,
                     .dout = c->n->grad + oq,
                     .pl = local_probs(a, c->n->aux, b, h),
                     .pg = global_probs(a, c->n->aux, b, h),
                     .gq = c->gq != NULL ? c->gq + oq : NULL,
                     .gk = c->gk != NULL ? c->gk + okv : NULL,
                     .gv = c->gv != NULL ? c->gv + okv : NULL,
                     .dl = dl,
                     .dg = dl + a->N * a->L,
                     .vt = dl + a->N * (a->L + a->G)};
        head_backward(a, &p);
    }
}

/* dout [B, N, D] -> dq [B, N, D], dk, dv [B, N + G, D] (+=); the mask gets none */
void rf_cpu_ls_attention_backward(rf_exec *x, rf_node *n)
{
    ls_geom a = ls_geometry(x, n);
    backward_ctx c = {&a, n, rf_in(x, n, 0)->value, rf_in(x, n, 1)->value, rf_in(x, n, 2)->value,
                      rf_in(x, n, 0)->grad, rf_in(x, n, 1)->grad, rf_in(x, n, 2)->grad, x->scratch};
    rf_pool_run(x->pool, a.B * a.H, 1, backward_heads, &c);
}
