/* Inverted dropout: kept elements are scaled by 1 / (1 - p), so the
 * expectation is unchanged and evaluation is the identity. */
#include "../op.h"
#include "bf16_out.h"

typedef struct {
    const float *in;
    float *out;
    uint16_t *out16;     /* forward into a bf16 value: the output instead of out */
    bool accumulate;     /* backward adds into out, forward overwrites */
    bool active;         /* training and p > 0; else the identity */
    uint64_t seed, step;
    int64_t base;        /* this shard's first element of the global tensor */
    rf_id node;
    float p, scale;
} dropout_ctx;

/* out[i] (+)= keep(i) ? in[i] * scale : 0 */
static void dropout_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const dropout_ctx *c = ctx;
    if (c->out16 != NULL) {
        for (int64_t at = begin; at < end; at += RF_BF16_CHUNK) {
            float chunk[RF_BF16_CHUNK];
            int64_t len = rf_bf16_chunk(at, end);
            for (int64_t i = 0; i < len; i++) {
                bool keep = !c->active || rf_dropout_keep(c->seed, c->step, c->node, c->base + at + i, c->p);
                chunk[i] = keep ? c->in[at + i] * c->scale : 0.0f;
            }
            rf_bf16_round(chunk, c->out16 + at, (size_t)len);
        }
        return;
    }
    for (int64_t i = begin; i < end; i++) {
        bool keep = !c->active || rf_dropout_keep(c->seed, c->step, c->node, c->base + i, c->p);
        float v = keep ? c->in[i] * c->scale : 0.0f;
        if (c->accumulate)
            c->out[i] += v;
        else
            c->out[i] = v;
    }
}

static void dropout_run(rf_exec *x, rf_node *n, const float *in, float *out, uint16_t *out16, bool accumulate)
{
    float p = n->fa[0];
    bool active = x->training && p > 0.0f;
    int64_t numel = rf_shape_numel(n->shape);
    dropout_ctx c = {in, out, out16, accumulate, active, x->seed, x->step, (int64_t)x->shard * numel,
                     rf_dropout_node(x, n), p, active ? 1.0f / (1.0f - p) : 1.0f};
    rf_pool_run(x->pool, numel, 16384, dropout_task, &c);
}

/* x [...] -> y [...] */
void rf_cpu_dropout_forward(rf_exec *x, rf_node *n)
{
    dropout_run(x, n, rf_in(x, n, 0)->value, n->value, n->dtype == RF_BF16 ? rf_value16(n) : NULL, false);
}

/* dx [...] += keep * dy / (1 - p), the mask recomputed */
void rf_cpu_dropout_backward(rf_exec *x, rf_node *n)
{
    float *dx = rf_in(x, n, 0)->grad;
    if (dx != NULL)
        dropout_run(x, n, n->grad, dx, NULL, true);
}
