/* Layer normalisation over the last axis (as llm.c layernorm_forward/backward). */
#include <math.h>
#include <stdlib.h>

#include "../op.h"
#include "bf16_out.h"
#include "vecmath.h"

typedef struct {
    const float *x, *gamma, *beta, *dy;
    float *y, *dx, *dgamma, *dbeta;
    uint16_t *y16;               /* forward into a bf16 value: the output instead of y */
    float *mean, *rstd;          /* aux: [R] each */
    int64_t R, D;                /* rows, row length */
    float eps;
    bool fresh;                  /* backward: dx written (=), not added to */
} ln_ctx;

static ln_ctx make_ctx(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    ln_ctx c = {.x = in->value, .dx = in->grad, .y = n->value, .dy = n->grad, .eps = n->fa[0]};
    c.y16 = n->dtype == RF_BF16 ? rf_value16(n) : NULL;
    c.D = n->shape.dim[n->shape.ndim - 1];
    c.R = rf_shape_numel(n->shape) / c.D;
    c.mean = n->aux;
    c.rstd = n->aux + c.R;
    if (n->ia[0] >= 0) {
        rf_node *gn = rf_in(x, n, (int)n->ia[0]);
        c.gamma = gn->value;
        c.dgamma = gn->grad;
    }
    if (n->ia[1] >= 0) {
        rf_node *bn = rf_in(x, n, (int)n->ia[1]);
        c.beta = bn->value;
        c.dbeta = bn->grad;
    }
    return c;
}

/* Items per task: about 16K floats of work each. */
static int64_t grain_for(int64_t work_per_item)
{
    int64_t g = 16384 / (work_per_item > 0 ? work_per_item : 1);
    return g > 0 ? g : 1;
}

/* y = (x - m) s gamma + beta over n elements (gamma, beta may be NULL) */
RF_VEC_INLINE void ln_normalise(const float *restrict xr, const float *restrict gamma, const float *restrict beta,
                                float m, float s, float *restrict y, int64_t n)
{
    if (gamma != NULL && beta != NULL)
        for (int64_t j = 0; j < n; j++)
            y[j] = (xr[j] - m) * s * gamma[j] + beta[j];
    else if (gamma != NULL)
        for (int64_t j = 0; j < n; j++)
            y[j] = (xr[j] - m) * s * gamma[j];
    else if (beta != NULL)
        for (int64_t j = 0; j < n; j++)
            y[j] = (xr[j] - m) * s + beta[j];
    else
        for (int64_t j = 0; j < n; j++)
            y[j] = (xr[j] - m) * s;
}

/* Row sums in 16 fixed lanes (vecmath.h) so the row loops vectorise; the
 * task functions are compiled for AVX-512 / AVX2 / baseline. */
static RF_VEC_CLONES void ln_fwd_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const ln_ctx *c = ctx;
    int64_t D = c->D;
    const float *restrict gamma = c->gamma, *restrict beta = c->beta;
    for (int64_t r = begin; r < end; r++) {
        const float *restrict xr = c->x + r * D;
        float m = rf_vsum(xr, D) / (float)D;
        /* two passes: no cancellation in the variance */
        float lanes[16] = {0};
        int64_t j = 0;
        for (; j + 16 <= D; j += 16)
            for (int l = 0; l < 16; l++) {
                float d = xr[j + l] - m;
                lanes[l] += d * d;
            }
        float v = 0.0f;
        for (; j < D; j++) {
            float d = xr[j] - m;
            v += d * d;
        }
        for (int l = 0; l < 16; l++)
            v += lanes[l];
        v /= (float)D;
        float s = 1.0f / sqrtf(v + c->eps);
        if (c->y16 == NULL) {
            ln_normalise(xr, gamma, beta, m, s, c->y + r * D, D);
        } else {
            /* f32 inside, rounded on the way out */
            for (int64_t at = 0; at < D; at += RF_BF16_CHUNK) {
                float chunk[RF_BF16_CHUNK];
                int64_t len = rf_bf16_chunk(at, D);
                ln_normalise(xr + at, gamma != NULL ? gamma + at : NULL, beta != NULL ? beta + at : NULL, m, s,
                             chunk, len);
                rf_bf16_round(chunk, c->y16 + r * D + at, (size_t)len);
            }
        }
        c->mean[r] = m;
        c->rstd[r] = s;
    }
}

/* x [R, D], gamma [D] or none, beta [D] or none -> y [R, D]; aux mean [R], rstd [R] */
void rf_cpu_layernorm_forward(rf_exec *x, rf_node *n)
{
    ln_ctx c = make_ctx(x, n);
    rf_pool_run(x->pool, c.R, grain_for(c.D), ln_fwd_task, &c);
}

/* dx = rstd * (dnorm - mean(dnorm) - xhat * mean(dnorm * xhat)), dnorm = dy * gamma,
 * for row r (the two means in 16 fixed lanes) */
RF_VEC_INLINE void ln_dx_row(const ln_ctx *c, int64_t r)
{
    int64_t D = c->D;
    const float *restrict gamma = c->gamma;
    const float *restrict xr = c->x + r * D, *restrict dy = c->dy + r * D;
    float *restrict dx = c->dx + r * D;
    float m = c->mean[r], s = c->rstd[r];
    float l_dn[16] = {0}, l_dnx[16] = {0}, dnorm_mean = 0.0f, dnorm_xhat_mean = 0.0f;
    int64_t j = 0;
    if (gamma != NULL) {
        for (; j + 16 <= D; j += 16)
            for (int l = 0; l < 16; l++) {
                float dnorm = dy[j + l] * gamma[j + l];
                l_dn[l] += dnorm;
                l_dnx[l] += dnorm * ((xr[j + l] - m) * s);
            }
        for (; j < D; j++) {
            float dnorm = dy[j] * gamma[j];
            dnorm_mean += dnorm;
            dnorm_xhat_mean += dnorm * ((xr[j] - m) * s);
        }
    } else {
        for (; j + 16 <= D; j += 16)
            for (int l = 0; l < 16; l++) {
                float dnorm = dy[j + l];
                l_dn[l] += dnorm;
                l_dnx[l] += dnorm * ((xr[j + l] - m) * s);
            }
        for (; j < D; j++) {
            dnorm_mean += dy[j];
            dnorm_xhat_mean += dy[j] * ((xr[j] - m) * s);
        }
    }
    for (int l = 0; l < 16; l++) {
        dnorm_mean += l_dn[l];
        dnorm_xhat_mean += l_dnx[l];
    }
    dnorm_mean /= (float)D;
    dnorm_xhat_mean /= (float)D;
    /* the first writer of dx writes it (nothing zeroed before, nothing read) */
    if (c->fresh && gamma != NULL)
        for (j = 0; j < D; j++) {
            float xhat = (xr[j] - m) * s;
            dx[j] = s * (dy[j] * gamma[j] - dnorm_mean - xhat * dnorm_xhat_mean);
        }
    else if (c->fresh)
        for (j = 0; j < D; j++) {
            float xhat = (xr[j] - m) * s;
            dx[j] = s * (dy[j] - dnorm_mean - xhat * dnorm_xhat_mean);
        }
    else if (gamma != NULL)
        for (j = 0; j < D; j++) {
            float xhat = (xr[j] - m) * s;
            dx[j] += s * (dy[j] * gamma[j] - dnorm_mean - xhat * dnorm_xhat_mean);
        }
    else
        for (j = 0; j < D; j++) {
            float xhat = (xr[j] - m) * s;
            dx[j] += s * (dy[j] - dnorm_mean - xhat * dnorm_xhat_mean);
        }
}

static RF_VEC_CLONES void ln_dx_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const ln_ctx *c = ctx;
    for (int64_t r = begin; r < end; r++)
        ln_dx_row(c, r);
}

/* dgamma[j] += sum_r dy[r, j] * xhat[r, j], dbeta[j] += sum_r dy[r, j], with
 * dx in the same pass while a row is in cache: the rows are cut into fixed
 * chunks of LN_CHUNK, each chunk's sums go to its own slot of `part`
 * ([chunks][2 D]: dgamma's, then dbeta's), and the chunks are added in
 * chunk order (in double). The cut depends only on the row count, so the
 * result is the same for every thread count. */
#define LN_CHUNK 256

typedef struct {
    const ln_ctx *c;
    float *part;
    int64_t chunks;
} ln_bwd_ctx;

static RF_VEC_CLONES void ln_bwd_chunk_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const ln_bwd_ctx *b = ctx;
    const ln_ctx *c = b->c;
    int64_t D = c->D;
    for (int64_t ch = begin; ch < end; ch++) {
        float *restrict pg = b->part + ch * 2 * D, *restrict pb = pg + D;
        for (int64_t j = 0; j < D; j++)
            pg[j] = pb[j] = 0.0f;
        int64_t r1 = (ch + 1) * LN_CHUNK < c->R ? (ch + 1) * LN_CHUNK : c->R;
        for (int64_t r = ch * LN_CHUNK; r < r1; r++) {
            if (c->dx != NULL)
                ln_dx_row(c, r);
            const float *restrict xr = c->x + r * D, *restrict dy = c->dy + r * D;
            float m = c->mean[r], s = c->rstd[r];
            for (int64_t j = 0; j < D; j++) {
                pg[j] += dy[j] * ((xr[j] - m) * s);
                pb[j] += dy[j];
            }
        }
    }
}

/* columns [begin, end) of dgamma and dbeta += the chunks' sums, in order */
static void ln_param_sum_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const ln_bwd_ctx *b = ctx;
    const ln_ctx *c = b->c;
    int64_t D = c->D;
    for (int64_t j = begin; j < end; j++) {
        double g = 0.0, be = 0.0;
        for (int64_t ch = 0; ch < b->chunks; ch++) {
            g += b->part[ch * 2 * D + j];
            be += b->part[ch * 2 * D + D + j];
        }
        if (c->dgamma != NULL)
            c->dgamma[j] += (float)g;
        if (c->dbeta != NULL)
            c->dbeta[j] += (float)be;
    }
}

/* Columns per dgamma / dbeta item: one AVX-512 vector of float. */
#define PARAM_COLS 16

/* dgamma[j] += sum_r dy[r, j] * xhat[r, j], dbeta[j] += sum_r dy[r, j].
 * Items are blocks of PARAM_COLS columns, each summed over the rows in row
 * order (in double): deterministic and the same for every thread count. */
static RF_VEC_CLONES void ln_dparam_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const ln_ctx *c = ctx;
    int64_t D = c->D;
    for (int64_t blk = begin; blk < end; blk++) {
        int64_t j0 = blk * PARAM_COLS, w = D - j0 < PARAM_COLS ? D - j0 : PARAM_COLS;
        double ag[PARAM_COLS] = {0}, ab[PARAM_COLS] = {0};
        if (w == PARAM_COLS) {
            for (int64_t r = 0; r < c->R; r++) {
                const float *restrict xr = c->x + r * D + j0, *restrict dy = c->dy + r * D + j0;
                float m = c->mean[r], s = c->rstd[r];
                for (int l = 0; l < PARAM_COLS; l++) {
                    ag[l] += (double)(dy[l] * ((xr[l] - m) * s));
                    ab[l] += (double)dy[l];
                }
            }
        } else {
            for (int64_t r = 0; r < c->R; r++) {
                const float *xr = c->x + r * D + j0, *dy = c->dy + r * D + j0;
                float m = c->mean[r], s = c->rstd[r];
                for (int64_t l = 0; l < w; l++) {
                    ag[l] += (double)(dy[l] * ((xr[l] - m) * s));
                    ab[l] += (double)dy[l];
                }
            }
        }
        if (c->dgamma != NULL)
            for (int64_t l = 0; l < w; l++)
                c->dgamma[j0 + l] += (float)ag[l];
        if (c->dbeta != NULL)
            for (int64_t l = 0; l < w; l++)
                c->dbeta[j0 + l] += (float)ab[l];
    }
}

void rf_cpu_layernorm_backward(rf_exec *x, rf_node *n)
{
    ln_ctx c = make_ctx(x, n);
    c.fresh = x->fresh[0];
    if (c.dgamma != NULL || c.dbeta != NULL) {
        ln_bwd_ctx b = {&c, NULL, (c.R + LN_CHUNK - 1) / LN_CHUNK};
        b.part = malloc((size_t)(b.chunks * 2 * c.D) * sizeof *b.part);
        if (b.part != NULL) {
            rf_pool_run(x->pool, b.chunks, grain_for(LN_CHUNK * c.D), ln_bwd_chunk_task, &b);
            rf_pool_run(x->pool, c.D, grain_for(b.chunks * 2), ln_param_sum_task, &b);
            free(b.part);
            return;
        }
    }
    /* no parameters (or no memory for the chunk sums): dx, then a column pass */
    if (c.dx != NULL)
        rf_pool_run(x->pool, c.R, grain_for(c.D), ln_dx_task, &c);
    if (c.dgamma != NULL || c.dbeta != NULL) {
        int64_t blocks = (c.D + PARAM_COLS - 1) / PARAM_COLS;
        rf_pool_run(x->pool, blocks, grain_for(c.R * PARAM_COLS), ln_dparam_task, &c);
    }
}
