/* Layer normalisation over the last axis (as llm.c layernorm_forward/backward). */
#include <math.h>

#include "../op.h"

typedef struct {
    const float *x, *gamma, *beta, *dy;
    float *y, *dx, *dgamma, *dbeta;
    float *mean, *rstd;          /* aux: [R] each */
    int64_t R, D;                /* rows, row length */
    float eps;
} ln_ctx;

static ln_ctx make_ctx(rf_exec *x, rf_node *n)
{
    rf_node *in = rf_in(x, n, 0);
    ln_ctx c = {.x = in->value, .dx = in->grad, .y = n->value, .dy = n->grad, .eps = n->fa[0]};
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

static void ln_fwd_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const ln_ctx *c = ctx;
    int64_t D = c->D;
    for (int64_t r = begin; r < end; r++) {
        const float *xr = c->x + r * D;
        float *y = c->y + r * D;
        float m = 0.0f;
        for (int64_t j = 0; j < D; j++)
            m += xr[j];
        m /= (float)D;
        float v = 0.0f;   /* two passes: no cancellation in the variance */
        for (int64_t j = 0; j < D; j++) {
            float d = xr[j] - m;
            v += d * d;
        }
        v /= (float)D;
        float s = 1.0f / sqrtf(v + c->eps);
        for (int64_t j = 0; j < D; j++) {
            float o = (xr[j] - m) * s;
            if (c->gamma != NULL)
                o *= c->gamma[j];
            if (c->beta != NULL)
                o += c->beta[j];
            y[j] = o;
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

/* dx = rstd * (dnorm - mean(dnorm) - xhat * mean(dnorm * xhat)), dnorm = dy * gamma */
static void ln_dx_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const ln_ctx *c = ctx;
    int64_t D = c->D;
    for (int64_t r = begin; r < end; r++) {
        const float *xr = c->x + r * D, *dy = c->dy + r * D;
        float *dx = c->dx + r * D;
        float m = c->mean[r], s = c->rstd[r];
        float dnorm_mean = 0.0f, dnorm_xhat_mean = 0.0f;
        for (int64_t j = 0; j < D; j++) {
            float dnorm = c->gamma != NULL ? dy[j] * c->gamma[j] : dy[j];
            dnorm_mean += dnorm;
            dnorm_xhat_mean += dnorm * (xr[j] - m) * s;
        }
        dnorm_mean /= (float)D;
        dnorm_xhat_mean /= (float)D;
        for (int64_t j = 0; j < D; j++) {
            float dnorm = c->gamma != NULL ? dy[j] * c->gamma[j] : dy[j];
            float xhat = (xr[j] - m) * s;
            dx[j] += s * (dnorm - dnorm_mean - xhat * dnorm_xhat_mean);
        }
    }
}

/* dgamma[j] += sum_r dy[r, j] * xhat[r, j], dbeta[j] += sum_r dy[r, j].
 * Split by columns, each summed over rows in order: deterministic and the
 * same for every thread count. */
static void ln_dparam_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const ln_ctx *c = ctx;
    int64_t D = c->D;
    for (int64_t r = 0; r < c->R; r++) {
        const float *xr = c->x + r * D, *dy = c->dy + r * D;
        float m = c->mean[r], s = c->rstd[r];
        if (c->dgamma != NULL)
            for (int64_t j = begin; j < end; j++)
                c->dgamma[j] += dy[j] * (xr[j] - m) * s;
        if (c->dbeta != NULL)
            for (int64_t j = begin; j < end; j++)
                c->dbeta[j] += dy[j];
    }
}

void rf_cpu_layernorm_backward(rf_exec *x, rf_node *n)
{
    ln_ctx c = make_ctx(x, n);
    if (c.dx != NULL)
        rf_pool_run(x->pool, c.R, grain_for(c.D), ln_dx_task, &c);
    if (c.dgamma != NULL || c.dbeta != NULL)
        rf_pool_run(x->pool, c.D, grain_for(c.R), ln_dparam_task, &c);
}
