#include "optim.h"

#include <math.h>
#include <string.h>

#include "op.h"

double rf_schedule_lr(const rf_config *cfg, int64_t step)
{
    double peak = cfg->train.lr;
    int64_t warmup = cfg->train.warmup, total = cfg->train.steps;
    if (step < warmup)
        return peak * (double)(step + 1) / (double)warmup;
    if (strcmp(cfg->train.schedule, "constant") == 0)
        return peak;
    if (strcmp(cfg->train.schedule, "step") == 0)   /* PyTorch's StepLR after the warm-up */
        return peak * pow(cfg->train.gamma, (double)((step - warmup) / cfg->train.decay_every));
    if (total <= warmup)
        return peak;
    double progress = (double)(step - warmup) / (double)(total - warmup);
    if (progress > 1.0)
        progress = 1.0;
    if (strcmp(cfg->train.schedule, "cosine") == 0)
        return peak * 0.5 * (1.0 + cos(M_PI * progress));
    return peak * (1.0 - progress);
}

double rf_grad_norm(const rf_params *p)
{
    if (p->backend != NULL)
        return sqrt(p->backend->sum_squares(p->grad, (int64_t)p->total));
    double sum = 0;
    for (size_t i = 0; i < p->total; i++)
        sum += (double)p->grad[i] * p->grad[i];
    return sqrt(sum);
}

void rf_clip_grads(rf_params *p, double norm, double max_norm)
{
    if (max_norm <= 0 || !(norm > max_norm))
        return;
    float s = (float)(max_norm / norm);
    if (p->backend != NULL) {
        p->backend->scale(p->grad, (int64_t)p->total, s);
        return;
    }
    for (size_t i = 0; i < p->total; i++)
        p->grad[i] *= s;
}

typedef struct {
    rf_params *p;
    rf_adamw_args a;
} adamw_job;

/* Tasks are whole parameter tensors, so each element's update is the same
 * whatever the thread count. */
static void adamw_range(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const adamw_job *j = ctx;
    const rf_adamw_args *a = &j->a;
    rf_params *p = j->p;
    for (int64_t e = begin; e < end; e++) {
        const rf_param_entry *pe = &p->entries[e];
        float decay = pe->decay ? a->lr * a->decay : 0.0f;
        float *w = p->value + pe->offset, *g = p->grad + pe->offset;
        float *m = p->m + pe->offset, *v = p->v + pe->offset;
        for (int64_t i = 0; i < pe->numel; i++) {
            m[i] = a->beta1 * m[i] + (1 - a->beta1) * g[i];
            v[i] = a->beta2 * v[i] + (1 - a->beta2) * g[i] * g[i];
            float mhat = m[i] / a->c1, vhat = v[i] / a->c2;
            w[i] -= a->lr * mhat / (sqrtf(vhat) + a->eps) + decay * w[i];
        }
    }
}

rf_adamw_args rf_adamw_args_for(const rf_config *cfg, double lr, int64_t t)
{
    return (rf_adamw_args){
        .lr = (float)lr,
        .beta1 = cfg->train.beta1,
        .beta2 = cfg->train.beta2,
        .eps = cfg->train.eps,
        .decay = cfg->train.weight_decay,
        .c1 = (float)(1.0 - pow(cfg->train.beta1, (double)t)),
        .c2 = (float)(1.0 - pow(cfg->train.beta2, (double)t)),
    };
}

void rf_adamw_step(rf_params *p, const rf_config *cfg, double lr, int64_t t, rf_pool *pool)
{
    adamw_job j = {.p = p, .a = rf_adamw_args_for(cfg, lr, t)};
    if (p->backend != NULL)
        p->backend->adamw(p, &j.a);
    else
        rf_pool_run(pool, p->count, 1, adamw_range, &j);
}
