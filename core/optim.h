/* AdamW with decoupled weight decay, learning-rate schedules and global-norm
 * gradient clipping, over the parameter store's flat blocks. */
#ifndef RF_OPTIM_H
#define RF_OPTIM_H

#include "config.h"
#include "op.h"
#include "params.h"
#include "pool.h"

/* Learning rate for 0-based `step`: linear warm-up over train.warmup steps
 * to train.lr, then linear decay to 0 at train.steps, cosine decay to 0, or
 * constant (train.schedule). */
double rf_schedule_lr(const rf_config *cfg, int64_t step);

/* sqrt(sum of squared gradients), accumulated in double in a fixed order. */
double rf_grad_norm(const rf_params *p);

/* If norm > max_norm > 0, scale every gradient by max_norm / norm. */
void rf_clip_grads(rf_params *p, double norm, double max_norm);

/* One AdamW update; t is the 1-based update count (bias correction). */
void rf_adamw_step(rf_params *p, const rf_config *cfg, double lr, int64_t t, rf_pool *pool);
/* AdamW's scalars for step t (1-based) at learning rate lr. */
rf_adamw_args rf_adamw_args_for(const rf_config *cfg, double lr, int64_t t);

#endif
