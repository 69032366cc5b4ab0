/* Softmax cross-entropy and binary cross-entropy on logits. */
#include <assert.h>
#include <math.h>

#include "../op.h"
#include "vecmath.h"

/* BCE sums fixed blocks in parallel, then the block sums in order: the
 * result does not depend on the thread count. */
#define BCE_BLOCKS 64

/* Items per task: about 16K floats of work each. */
static int64_t grain_for(int64_t work_per_item)
{
    int64_t g = 16384 / (work_per_item > 0 ? work_per_item : 1);
    return g > 0 ? g : 1;
}

typedef struct {
    const float *logits, *labels;
    float *dlogits;
    float *probs, *saved_labels;   /* aux: [B, C], then [B] */
    float *row_loss;               /* scratch [B] */
    float dy;                      /* output gradient */
    int64_t B, C;
} ce_ctx;

static ce_ctx make_ce_ctx(rf_exec *x, rf_node *n)
{
    rf_node *lg = rf_in(x, n, 0);
    ce_ctx c = {.logits = lg->value, .dlogits = lg->grad, .labels = rf_in(x, n, 1)->value,
                .probs = n->aux, .row_loss = x->scratch};
    c.B = lg->shape.dim[0];
    c.C = lg->shape.dim[1];
    c.saved_labels = n->aux + c.B * c.C;
    return c;
}

/* probs[b] = softmax(z[b]); loss[b] = logsumexp(z[b]) - z[b, label] */
static void ce_fwd_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const ce_ctx *c = ctx;
    int64_t C = c->C;
    for (int64_t b = begin; b < end; b++) {
        const float *z = c->logits + b * C;
        float *p = c->probs + b * C;
        float label = c->labels[b];
        assert(label >= 0.0f && label < (float)C && "cross_entropy: label out of range");
        float mx = z[0];
        for (int64_t j = 1; j < C; j++)
            mx = fmaxf(mx, z[j]);
        float sum = 0.0f;
        for (int64_t j = 0; j < C; j++) {
            p[j] = rf_expf(z[j] - mx);
            sum += p[j];
        }
        float inv = 1.0f / sum;
        for (int64_t j = 0; j < C; j++)
            p[j] *= inv;
        c->row_loss[b] = mx + logf(sum) - z[(int64_t)label];
        c->saved_labels[b] = label;
    }
}

/* logits [B, C], labels [B] -> scalar mean loss; aux probs [B, C], labels [B] */
void rf_cpu_cross_entropy_forward(rf_exec *x, rf_node *n)
{
    ce_ctx c = make_ce_ctx(x, n);
    rf_pool_run(x->pool, c.B, grain_for(c.C), ce_fwd_task, &c);
    double s = 0.0;
    for (int64_t b = 0; b < c.B; b++)
        s += c.row_loss[b];
    n->value[0] = (float)(s / (double)c.B);
}

/* dz[b, j] += dy / B * (p[b, j] - [j == label]) */
static void ce_bwd_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const ce_ctx *c = ctx;
    int64_t C = c->C;
    float g = c->dy / (float)c->B;
    for (int64_t b = begin; b < end; b++) {
        const float *p = c->probs + b * C;
        float *dz = c->dlogits + b * C;
        for (int64_t j = 0; j < C; j++)
            dz[j] += g * p[j];
        dz[(int64_t)c->saved_labels[b]] -= g;
    }
}

void rf_cpu_cross_entropy_backward(rf_exec *x, rf_node *n)
{
    ce_ctx c = make_ce_ctx(x, n);
    if (c.dlogits == NULL)
        return;
    c.dy = n->grad[0];
    rf_pool_run(x->pool, c.B, grain_for(c.C), ce_bwd_task, &c);
}

typedef struct {
    const float *z, *t;
    float *dz, *dt;
    float g;                       /* output gradient / numel */
    int64_t numel, blocks;
    double partial[BCE_BLOCKS];
} bce_ctx;

static bce_ctx make_bce_ctx(rf_exec *x, rf_node *n)
{
    rf_node *zn = rf_in(x, n, 0), *tn = rf_in(x, n, 1);
    bce_ctx c = {.z = zn->value, .dz = zn->grad, .t = tn->value, .dt = tn->grad};
    c.numel = rf_shape_numel(zn->shape);
    c.blocks = c.numel < BCE_BLOCKS ? c.numel : BCE_BLOCKS;
    return c;
}

/* partial[k] = sum over block k of max(z, 0) - z t + log(1 + exp(-|z|)) */
static void bce_fwd_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    bce_ctx *c = ctx;
    for (int64_t k = begin; k < end; k++) {
        int64_t lo = c->numel * k / c->blocks, hi = c->numel * (k + 1) / c->blocks;
        double s = 0.0;
        for (int64_t e = lo; e < hi; e++) {
            float z = c->z[e];
            s += fmaxf(z, 0.0f) - z * c->t[e] + log1pf(expf(-fabsf(z)));
        }
        c->partial[k] = s;
    }
}

/* logits [...], targets [...] -> scalar mean loss */
void rf_cpu_bce_logits_forward(rf_exec *x, rf_node *n)
{
    bce_ctx c = make_bce_ctx(x, n);
    rf_pool_run(x->pool, c.blocks, grain_for(c.numel / c.blocks), bce_fwd_task, &c);
    double s = 0.0;
    for (int64_t k = 0; k < c.blocks; k++)
        s += c.partial[k];
    n->value[0] = (float)(s / (double)c.numel);
}

/* 1 / (1 + e) for z >= 0, e / (1 + e) below, e = e^-|z|: both formed and
 * one selected, so the loop vectorises */
RF_VEC_INLINE float sigmoid(float z)
{
    float e = rf_expf(-fabsf(z));
    float r = 1.0f / (1.0f + e);
    return rf_select(z >= 0.0f, r, e * r);
}

/* dz += g * (sigmoid(z) - t), dt += g * (-z) */
static void bce_bwd_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const bce_ctx *c = ctx;
    if (c->dz != NULL)
        for (int64_t e = begin; e < end; e++)
            c->dz[e] += c->g * (sigmoid(c->z[e]) - c->t[e]);
    if (c->dt != NULL)
        for (int64_t e = begin; e < end; e++)
            c->dt[e] -= c->g * c->z[e];
}

void rf_cpu_bce_logits_backward(rf_exec *x, rf_node *n)
{
    bce_ctx c = make_bce_ctx(x, n);
    c.g = n->grad[0] / (float)c.numel;
    rf_pool_run(x->pool, c.numel, grain_for(1), bce_bwd_task, &c);
}
