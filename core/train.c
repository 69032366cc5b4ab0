#include "train.h"
#include "train_private.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checkpoint.h"
#include "device.h"
#include "gemm.h"
#include "gemm_bf16.h"
#include "optim.h"
#include "pool.h"

/* Gradient buckets of about 256 KiB: a ListOps model's backward starts its
 * first sums after the head and the last layer. */
enum { GRAD_BUCKET_FLOATS = 1 << 16 };

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int thread_count(const rf_config *cfg)
{
    return cfg->train.threads > 0 ? cfg->train.threads : rf_cpu_count();
}

/* A forward-only model has no gradients and no AdamW moments. */
void rf_memory_plan_of(const rf_model *m, const rf_params *p, bool forward_only, rf_memory_plan *out)
{
    size_t block = rf_params_bytes(p);
    *out = (rf_memory_plan){
        .params = block,
        .grads = forward_only ? 0 : block,
        .optimizer = forward_only ? 0 : 2 * block,
        .activations = m->plan.arena_bytes,
        .workspace = m->plan.scratch_bytes + rf_batcher_bytes(m->batch, m->seq_len, m->feat_dim),
        .param_count = rf_model_param_count(m),
        .graph = rf_graph_own_bytes(m->graph),
    };
    out->total = out->params + out->grads + out->optimizer + out->activations + out->workspace;
}

bool rf_memory_plan_compute(const rf_config *cfg, int seq_len, int feat_dim, int vocab, int classes,
                            rf_memory_plan *out, rf_status *st)
{
    rf_params *p = rf_params_new(cfg->train.seed);
    rf_model *m = rf_model_new(cfg, cfg->data.batch, seq_len, feat_dim, vocab, classes, p, false, st);
    if (m != NULL)
        rf_memory_plan_of(m, p, false, out);
    rf_model_free(m);
    rf_params_free(p);
    return m != NULL;
}

bool rf_memory_plan_inference(const rf_config *cfg, int seq_len, int feat_dim, int vocab, int classes, int grid_h,
                              int grid_w, rf_memory_plan *out, rf_status *st)
{
    rf_params *p = rf_params_new(cfg->train.seed);
    rf_model *m = rf_model_plan_forward(cfg, cfg->data.batch, seq_len, feat_dim, vocab, classes, grid_h, grid_w, p,
                                        st);
    if (m != NULL)
        rf_memory_plan_of(m, p, true, out);
    rf_model_free(m);
    rf_params_free(p);
    return m != NULL;
}

/* Bucket lengths for a forward-only model of seq_len positions: eighths of
 * it rounded up to 16 positions, those whose graph gives the same outputs
 * as the full one (rf_model_length_invariant). Returns how many. */
static int bucket_lengths(const rf_config *cfg, int seq_len, int *len)
{
    int n = 0;
    for (int k = 1; k < RF_LENGTH_BUCKETS + 1; k++) {
        int l = (int)(((int64_t)seq_len * k + RF_LENGTH_BUCKETS - 1) / RF_LENGTH_BUCKETS);
        l = (l + 15) / 16 * 16;
        if (l < seq_len && (n == 0 || l > len[n - 1]) && rf_model_length_invariant(cfg, l, seq_len))
            len[n++] = l;
    }
    return n;
}

/* The model to run inputs of at most `longest` positions on: the
 * shortest bucket that holds them (built now if need be), else the model
 * itself; its constants are put back in the shared arena if another model
 * ran there since. A bucket that cannot be built is dropped, and the next
 * longer one or the model itself serves. */
rf_model *rf_trainer_model_for(rf_trainer *t, int longest)
{
    rf_model *m = t->model;
    for (int i = 0; i < t->buckets; i++) {
        if (longest > t->bucket_len[i])
            continue;
        if (t->bucket[i] == NULL) {
            rf_status why = {0};
            t->bucket[i] = rf_model_new_forward_inside(t->model, t->bucket_len[i], t->ds->vocab, t->ds->classes,
                                                       &why);
            if (t->bucket[i] == NULL) {
                t->bucket_len[i] = 0;
                continue;
            }
        }
        m = t->bucket[i];
        break;
    }
    if (t->in_arena != m) {
        rf_model_refill_constants(m);
        t->in_arena = m;
    }
    return m;
}

static rf_trainer *trainer_new(const rf_config *cfg, const rf_dataset *ds, bool forward_only, rf_collective *coll,
                               rf_status *st)
{
    int ranks = coll != NULL ? coll->ranks : 1;
    if (cfg->data.batch % ranks != 0) {
        rf_fail(st, "data.batch = %d does not split over %d ranks: it is the global batch, each rank takes "
                "data.batch / ranks; make data.batch a multiple of %d or change the rank count (mpirun -np)",
                cfg->data.batch, ranks, ranks);
        return NULL;
    }
    int batch = cfg->data.batch / ranks;
    /* bf16 products are the CPU's. A bf16 run's checkpoint is evaluated in
     * f32 on a GPU or on a CPU without bf16: only training refuses. */
    const char *precision = cfg->train.precision;
    bool on_cpu = strcmp(cfg->train.device, "cpu") == 0;
    if (strcmp(precision, "bf16") == 0 && !on_cpu && !forward_only) {
        rf_fail(st, "train.precision = bf16 is for train.device = cpu: the CUDA backend computes in f32");
        return NULL;
    }
    if (strcmp(precision, "bf16") == 0 && (!on_cpu || (forward_only && !rf_bf16_supported())))
        precision = "f32";
    if (!rf_gemm_set_precision(precision, st))
        return NULL;
    rf_device_set_tf32(strcmp(cfg->train.tf32, "on") == 0);
    rf_trainer *t = calloc(1, sizeof *t);
    t->cfg = *cfg;
    t->ds = ds;
    t->forward_only = forward_only;
    t->coll = ranks > 1 ? coll : NULL;
    int threads = thread_count(cfg);
    rf_gemm_set_mode(cfg->train.gemm, NULL);   /* validated with the config */
    t->pool = rf_pool_new(threads);
    t->params = rf_params_new(cfg->train.seed);
    /* On several ranks, train.device = cuda means this machine's GPU for
     * this rank: cuda:<rank among the ranks on this machine>. */
    rf_config on = *cfg;
    if (t->coll != NULL && strcmp(on.train.device, "cuda") == 0)
        snprintf(on.train.device, sizeof on.train.device, "cuda:%d", coll->local_rank);
    if (forward_only) {
        rf_params_set_values_only(t->params);
        t->model = rf_model_new_forward(&on, batch, ds->seq_len, ds->feat_dim, ds->vocab, ds->classes, ds->grid_h,
                                        ds->grid_w, t->params, st);
    } else {
        t->model = rf_model_new_grid(&on, batch, ds->seq_len, ds->feat_dim, ds->vocab, ds->classes, ds->grid_h,
                                     ds->grid_w, t->params, true, st);
    }
    if (t->model == NULL) {
        rf_trainer_free(t);
        return NULL;
    }
    t->batcher = rf_batcher_new(ds, batch, cfg->train.seed, st);
    if (t->batcher == NULL) {
        rf_trainer_free(t);
        return NULL;
    }
    if (t->coll != NULL) {
        const rf_backend *b = t->params->backend;
        char why[RF_STATUS_MSG] = "";
        if (b != NULL && (b->join_ranks == NULL || !b->join_ranks(coll, why, sizeof why))) {
            if (b->join_ranks == NULL)
                rf_fail(st, "train.device = %s on %d ranks: this build averages gradients between GPUs with "
                        "NCCL, which it was built without; train on several ranks with train.device = cpu",
                        on.train.device, ranks);
            else
                rf_fail(st, "train.device = %s on %d ranks: %s", on.train.device, ranks, why);
            rf_trainer_free(t);
            return NULL;
        }
        rf_batcher_set_shard(t->batcher, coll->rank, ranks);
        if (!forward_only && b == NULL)
            t->sync = rf_grad_sync_new(t->model->graph, t->params, coll, GRAD_BUCKET_FLOATS);
    }
    rf_memory_plan_of(t->model, t->params, forward_only, &t->plan);
    t->in_arena = t->model;
    t->bucketable = on_cpu && t->coll == NULL && ds->feat_dim == 0 && ds->grid_h == 0;
    rf_trainer_use_length_buckets(t, true);
    const rf_backend *b = t->params->backend;
    if (b != NULL && b->queue_step != NULL) {
        t->report = b->alloc(sizeof *t->report);
        if (t->report == NULL) {
            rf_fail(st, "out of device memory for the step report");
            rf_trainer_free(t);
            return NULL;
        }
        t->device = b;
        /* several ranks run eagerly: their NCCL average between backward
         * and the step is untested under capture (the emulator's waits for
         * the stream, which a capture forbids) */
        rf_step_graph_init(&t->graph, t->coll == NULL ? b : NULL, cfg->train.cuda_graph);
    }
    t->started = now_s();
    return t;
}

rf_trainer *rf_trainer_new(const rf_config *cfg, const rf_dataset *ds, rf_status *st)
{
    return trainer_new(cfg, ds, false, NULL, st);
}

rf_trainer *rf_trainer_new_parallel(const rf_config *cfg, const rf_dataset *ds, rf_collective *c, rf_status *st)
{
    return trainer_new(cfg, ds, false, c, st);
}

rf_trainer *rf_trainer_new_forward(const rf_config *cfg, const rf_dataset *ds, rf_status *st)
{
    return trainer_new(cfg, ds, true, NULL, st);
}

void rf_trainer_free(rf_trainer *t)
{
    if (t == NULL)
        return;
    if (t->report != NULL) {
        t->device->sync();
        rf_step_graph_free(&t->graph);
        t->device->free(t->report);
    }
    rf_grad_sync_free(t->sync);
    rf_batcher_free(t->batcher);
    for (int i = 0; i < t->buckets; i++)
        rf_model_free(t->bucket[i]);
    rf_model_free(t->single);
    rf_model_free(t->attr);
    rf_model_free(t->attr_one);
    rf_model_free(t->model);
    rf_params_free(t->params);
    rf_pool_free(t->pool);
    free(t);
}

const rf_config *rf_trainer_config(const rf_trainer *t) { return &t->cfg; }
rf_model *rf_trainer_model(rf_trainer *t) { return t->model; }
int64_t rf_trainer_step_count(const rf_trainer *t) { return t->step; }
const rf_memory_plan *rf_trainer_plan(const rf_trainer *t) { return &t->plan; }
const rf_grad_sync *rf_trainer_grad_sync(const rf_trainer *t) { return t->sync; }

void rf_trainer_graph_stats(const rf_trainer *t, rf_graph_stats *out)
{
    *out = (rf_graph_stats){.captures = t->graph.captures, .replays = t->graph.replays};
    snprintf(out->given_up, sizeof out->given_up, "%s", t->graph.given_up);
}

double rf_trainer_time_grad_sync(rf_trainer *t)
{
    return t->sync != NULL ? rf_grad_sync_time_alone(t->sync) : 0.0;
}

void rf_trainer_set_optim(rf_trainer *t, const rf_config *cfg)
{
    t->cfg.train.lr = cfg->train.lr;
    t->cfg.train.clip = cfg->train.clip;
    t->cfg.train.weight_decay = cfg->train.weight_decay;
    t->cfg.train.warmup = cfg->train.warmup;
    t->cfg.train.steps = cfg->train.steps;
    memcpy(t->cfg.train.schedule, cfg->train.schedule, sizeof t->cfg.train.schedule);
    t->cfg.train.gamma = cfg->train.gamma;
    t->cfg.train.decay_every = cfg->train.decay_every;
}

/* The batch into the model's inputs: on a device that uploads, in stream
 * order through its pinned staging (the previous step may still run). */
bool rf_model_load_batch(rf_model *m, const rf_batch *b, rf_status *st)
{
    rf_graph *g = m->graph;
    size_t fd = m->feat_dim > 0 ? (size_t)m->feat_dim : 1;
    float *const dst[3] = {rf_value(g, m->x), rf_value(g, m->mask), rf_value(g, m->labels)};
    const float *const src[3] = {b->x, b->mask, b->labels};
    const size_t bytes[3] = {(size_t)m->batch * m->seq_len * fd * sizeof(float),
                             (size_t)m->batch * m->seq_len * sizeof(float), (size_t)m->batch * sizeof(float)};
    const rf_backend *dev = rf_graph_backend(g);
    if (dev->upload != NULL)
        return dev->upload(3, dst, src, bytes) || rf_fail(st, "the %s device could not take the batch", dev->name);
    if (m->seq_len < b->seq_len) {   /* a length bucket: the first m->seq_len positions of each row */
        for (int r = 0; r < m->batch; r++) {
            memcpy(dst[0] + r * m->seq_len * fd, src[0] + r * b->seq_len * fd, m->seq_len * fd * sizeof(float));
            memcpy(dst[1] + (size_t)r * m->seq_len, src[1] + (size_t)r * b->seq_len, m->seq_len * sizeof(float));
        }
        memcpy(dst[2], src[2], bytes[2]);
        return true;
    }
    for (int i = 0; i < 3; i++)
        memcpy(dst[i], src[i], bytes[i]);
    return true;
}

/* Summed loss and correct count over the first `count` rows, from the logits
 * (the loss node averages over the whole batch, padding rows included). */
static void score(const rf_model *m, int count, double *loss_sum, int64_t *correct)
{
    rf_graph *g = m->graph;
    const float *logits = rf_value(g, m->logits), *labels = rf_value(g, m->labels);
    int c = (int)rf_node_shape(g, m->logits).dim[1];
    for (int b = 0; b < count; b++) {
        const float *z = logits + (size_t)b * c;
        int best = 0;
        for (int k = 1; k < c; k++)
            if (z[k] > z[best])
                best = k;
        double mx = z[best];
        double se = 0;
        for (int k = 0; k < c; k++)
            se += exp(z[k] - mx);
        int y = (int)labels[b];
        *loss_sum += mx + log(se) - z[y];
        *correct += best == y;
    }
}

static bool due(int64_t step, int every, int64_t last)
{
    return step == last || (every > 0 && step % every == 0);
}

/* A failure every rank reached together: rank 0 alone needs to say it. */
__attribute__((format(printf, 2, 3))) static bool fail_agreed(rf_status *st, const char *fmt, ...)
{
    char msg[RF_STATUS_MSG];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rf_fail(st, "%s", msg);
    if (st != NULL)
        st->agreed = true;
    return false;
}

/* Wait for a device that queues steps, and stop at the first step its
 * guard found not finite, as the CPU's checks would have (with the same
 * words); the update of that step and of the steps queued after it were
 * skipped, so the weights are the last good ones. On several ranks every
 * rank's guard saw the same averaged gradients, so all stop at the same
 * step; `together` (every rank calls it at this point) lets them agree on
 * the words and name a rank whose own loss was not finite. */
static bool settle_ranks(rf_trainer *t, bool together, rf_status *st)
{
    if (t->report == NULL)
        return true;
    t->device->sync();
    const rf_step_report *r = t->report;
    bool ranks = together && t->coll != NULL;
    if (ranks ? rf_collective_first(t->coll, r->first_bad != 0) < 0 : r->first_bad == 0)
        return true;
    t->step = r->first_bad - 1;   /* as the CPU stops: before the bad step */
    if (ranks) {
        int bad = rf_collective_first(t->coll, !isfinite(r->bad_loss));
        if (bad >= 0)
            return fail_agreed(st, "rank %d, step %lld: the loss is not finite; stopping (lower train.lr or set "
                               "train.clip)", bad, (long long)r->first_bad);
        return fail_agreed(st, "step %lld: the gradient norm averaged over the ranks is not finite; stopping "
                           "(lower train.lr or set train.clip)", (long long)r->first_bad);
    }
    if (!isfinite(r->bad_loss))
        return rf_fail(st, "step %lld: the loss is %s; stopping (lower train.lr or set train.clip)",
                       (long long)r->first_bad, isnan(r->bad_loss) ? "NaN" : "infinite");
    return rf_fail(st, "step %lld: the gradient norm is %s; stopping (lower train.lr or set train.clip)",
                   (long long)r->first_bad, isnan(r->bad_norm) ? "NaN" : "infinite");
}

bool rf_trainer_settle(rf_trainer *t, rf_status *st)
{
    return settle_ranks(t, false, st);
}

typedef struct queued_step {
    rf_trainer *t;
    rf_model *m;
    rf_exec *x;
} queued_step;

/* The work of a queued step, from the forward pass to AdamW: what a step
 * captured as a graph holds (core/train_graph.h). */
static void queue_work(void *ctx)
{
    queued_step *q = ctx;
    rf_trainer *t = q->t;
    rf_graph *g = q->m->graph;
    rf_graph_forward(g, q->x);
    rf_params_zero_grads(t->params);
    rf_graph_backward(g, q->x, NULL);
    if (t->coll != NULL)
        t->device->average_ranks(t->params->grad, (int64_t)t->params->total);
    t->device->queue_step(t->params, rf_value(g, q->m->loss), t->report);
}

/* A step on a device that queues it whole: the host waits only when the
 * metrics are due (every train.log_every steps and the last); between
 * them the step reports `unread`. */
static bool step_queued(rf_trainer *t, const rf_batch *b, rf_exec *x, rf_metrics *out, rf_status *st)
{
    rf_model *m = t->model;
    x->queued = true;
    double lr = rf_schedule_lr(&t->cfg, t->step);
    rf_adamw_args a = rf_adamw_args_for(&t->cfg, lr, t->step + 1);
    if (!t->device->step_scalars(x->step, t->cfg.train.clip, &a))
        return rf_fail(st, "the %s device could not take the step's scalars", t->device->name);
    queued_step q = {t, m, x};
    rf_step_graph_run(&t->graph, m->graph, queue_work, &q);
    t->step++;
    *out = (rf_metrics){.step = t->step, .split = RF_SPLIT_TRAIN, .loss = NAN, .accuracy = NAN, .lr = lr,
                        .grad_norm = NAN, .unread = true};
    if (!due(t->step, t->cfg.train.log_every, t->cfg.train.steps))
        return true;
    if (!settle_ranks(t, true, st))
        return false;
    double loss_sum = 0;
    int64_t correct = 0;
    score(m, b->count, &loss_sum, &correct);
    double sums[3] = {t->report->loss, (double)correct, (double)b->count};
    if (t->coll != NULL)
        t->coll->sum_doubles(t->coll, sums, 3);
    out->loss = sums[0] / (t->coll != NULL ? t->coll->ranks : 1);
    out->grad_norm = t->report->norm;
    out->accuracy = sums[1] / sums[2];
    out->unread = false;
    return true;
}

/* A step of one rank of a data-parallel run on the CPU: backward hands
 * finished gradient buckets to the other ranks as it goes, and every rank
 * decides on the same averaged gradients and the same summed metrics, so a
 * rank's non-finite loss stops them all at the same step, naming it. */
static bool step_parallel(rf_trainer *t, const rf_batch *b, rf_exec *x, rf_metrics *out, rf_status *st)
{
    rf_model *m = t->model;
    rf_graph_forward(m->graph, x);
    double loss = rf_value(m->graph, m->loss)[0];
    rf_params_zero_grads(t->params);
    rf_grad_sync_begin(t->sync);
    rf_graph_backward(m->graph, x, NULL);
    rf_grad_sync_end(t->sync);
    double loss_sum = 0;
    int64_t correct = 0;
    score(m, b->count, &loss_sum, &correct);
    double sums[3] = {loss, (double)correct, (double)b->count};
    t->coll->sum_doubles(t->coll, sums, 3);
    int bad = rf_collective_first(t->coll, !isfinite(loss));
    if (bad >= 0)
        return fail_agreed(st, "rank %d, step %lld: the loss is not finite; stopping (lower train.lr or set "
                           "train.clip)", bad, (long long)t->step + 1);
    double norm = rf_grad_norm(t->params);
    if (!isfinite(norm))
        return fail_agreed(st, "step %lld: the gradient norm averaged over the ranks is %s; stopping (lower "
                           "train.lr or set train.clip)", (long long)t->step + 1, isnan(norm) ? "NaN" : "infinite");
    rf_clip_grads(t->params, norm, t->cfg.train.clip);
    double lr = rf_schedule_lr(&t->cfg, t->step);
    rf_adamw_step(t->params, &t->cfg, lr, t->step + 1, t->pool);
    t->step++;
    *out = (rf_metrics){
        .step = t->step,
        .split = RF_SPLIT_TRAIN,
        .loss = sums[0] / t->coll->ranks,
        .accuracy = sums[1] / sums[2],
        .lr = lr,
        .grad_norm = norm,
    };
    return true;
}

bool rf_trainer_step(rf_trainer *t, rf_metrics *out, rf_status *st)
{
    if (t->forward_only)
        return rf_fail(st, "this model was built for inference only (rf_trainer_new_forward): it cannot train");
    double t0 = now_s(), wait = 0;
    const rf_batch *b = rf_batcher_train(t->batcher, t->step, &wait, st);
    if (b == NULL)
        return false;
    rf_model *m = rf_trainer_model_for(t, t->model->seq_len);   /* its constants back after a bucketed evaluation */
    if (!rf_model_load_batch(m, b, st))
        return false;
    rf_exec x;
    rf_exec_init(&x, m->graph, t->pool, t->cfg.train.seed, (uint64_t)t->step, true);
    if (t->coll != NULL)
        x.shard = t->coll->rank;
    if (t->report != NULL) {
        bool ok = step_queued(t, b, &x, out, st);
        out->seconds = now_s() - t->started;
        out->step_seconds = now_s() - t0;
        out->data_wait = wait;
        return ok;
    }
    if (t->sync != NULL) {
        bool ok = step_parallel(t, b, &x, out, st);
        out->seconds = now_s() - t->started;
        out->step_seconds = now_s() - t0;
        out->data_wait = wait;
        return ok;
    }
    rf_graph_forward(m->graph, &x);
    double loss = rf_value(m->graph, m->loss)[0];
    if (!isfinite(loss))
        return rf_fail(st, "step %lld: the loss is %s; stopping (lower train.lr or set train.clip)",
                       (long long)t->step + 1, isnan(loss) ? "NaN" : "infinite");
    rf_params_zero_grads(t->params);
    rf_graph_backward(m->graph, &x, NULL);
    double norm = rf_grad_norm(t->params);
    if (!isfinite(norm))
        return rf_fail(st, "step %lld: the gradient norm is %s; stopping (lower train.lr or set train.clip)",
                       (long long)t->step + 1, isnan(norm) ? "NaN" : "infinite");
    rf_clip_grads(t->params, norm, t->cfg.train.clip);
    double lr = rf_schedule_lr(&t->cfg, t->step);
    rf_adamw_step(t->params, &t->cfg, lr, t->step + 1, t->pool);
    t->step++;

    double loss_sum = 0;
    int64_t correct = 0;
    score(m, b->count, &loss_sum, &correct);
    *out = (rf_metrics){
        .step = t->step,
        .split = RF_SPLIT_TRAIN,
        .loss = loss,
        .accuracy = (double)correct / b->count,
        .lr = lr,
        .grad_norm = norm,
        .seconds = now_s() - t->started,
        .step_seconds = now_s() - t0,
        .data_wait = wait,
    };
    return true;
}

/* Loss and accuracy over `count` batches of `split`: batch first + i *
 * stride for i < count, taken by length (rf_batcher_eval_by_length) or in
 * the split's order; each runs on the model that holds its longest input
 * (model_for). The ranks share the batches out and add up what they saw. */
static bool evaluate(rf_trainer *t, rf_split split, int64_t first, int64_t stride, int64_t count, bool by_length,
                     rf_metrics *out, rf_status *st)
{
    if (!settle_ranks(t, true, st))
        return false;
    if (count <= 0)
        return rf_fail(st, "the %s split is empty", rf_split_name(split));
    double loss_sum = 0;
    int64_t correct = 0, seen = 0;
    rf_exec x;
    int rank = t->coll != NULL ? t->coll->rank : 0, ranks = t->coll != NULL ? t->coll->ranks : 1;
    for (int64_t i = rank; i < count; i += ranks) {
        int64_t index = first + i * stride;
        const rf_batch *b = by_length ? rf_batcher_eval_by_length(t->batcher, split, index, st)
                                      : rf_batcher_eval(t->batcher, split, index, st);
        if (b == NULL)
            return false;
        rf_model *m = rf_trainer_model_for(t, b->longest);
        if (!rf_model_load_batch(m, b, st))
            return false;
        rf_exec_init(&x, m->graph, t->pool, t->cfg.train.seed, 0, false);
        rf_graph_forward(m->graph, &x);
        score(m, b->count, &loss_sum, &correct);
        seen += b->count;
    }
    double sums[3] = {loss_sum, (double)correct, (double)seen};
    if (t->coll != NULL)
        t->coll->sum_doubles(t->coll, sums, 3);
    *out = (rf_metrics){
        .step = t->step,
        .split = split,
        .loss = sums[0] / sums[2],
        .accuracy = sums[1] / sums[2],
        .lr = rf_schedule_lr(&t->cfg, t->step > 0 ? t->step - 1 : 0),
        .seconds = now_s() - t->started,
        .samples = (int64_t)sums[2],
    };
    if (!isfinite(out->loss))
        return fail_agreed(st, "step %lld: the %s loss is not finite", (long long)t->step, rf_split_name(split));
    return true;
}

bool rf_trainer_evaluate(rf_trainer *t, rf_split split, int64_t max_batches, rf_metrics *out, rf_status *st)
{
    int64_t n = rf_batcher_eval_batches(t->batcher, split);
    bool whole = max_batches <= 0 || max_batches >= n;
    /* a whole pass goes by length where there are buckets to use; a part
     * keeps the split's order, so it stays a fair sample of it */
    return evaluate(t, split, 0, 1, whole ? n : max_batches, whole && t->buckets > 0, out, st);
}

void rf_trainer_use_length_buckets(rf_trainer *t, bool on)
{
    bool ran = false;
    for (int i = 0; i < t->buckets; i++) {
        ran |= t->bucket[i] != NULL;
        rf_model_free(t->bucket[i]);
        t->bucket[i] = NULL;
    }
    t->buckets = on && t->bucketable ? bucket_lengths(&t->cfg, t->model->seq_len, t->bucket_len) : 0;
    if (ran)
        t->in_arena = NULL;   /* a bucket wrote over the model's constants: refill them before it runs */
}

int rf_trainer_length_buckets(const rf_trainer *t, int *len, int *built)
{
    int n = 0, made = 0;
    for (int i = 0; i < t->buckets; i++) {
        if (t->bucket_len[i] == 0)   /* dropped: could not be built */
            continue;
        if (len != NULL)
            len[n] = t->bucket_len[i];
        n++;
        made += t->bucket[i] != NULL;
    }
    if (built != NULL)
        *built = made;
    return n;
}

bool rf_trainer_evaluate_spread(rf_trainer *t, rf_split split, int64_t batches, rf_metrics *out, rf_status *st)
{
    int64_t n = rf_batcher_eval_batches(t->batcher, split);
    if (batches <= 0 || batches > n)
        batches = n;
    /* every (n / batches)-th batch, centred in its stretch of the order */
    int64_t stride = n / (batches > 0 ? batches : 1);
    return evaluate(t, split, stride / 2, stride, batches, t->buckets > 0, out, st);
}

bool rf_trainer_save(rf_trainer *t, const char *path, rf_status *st)
{
    return rf_trainer_settle(t, st) && rf_checkpoint_save(path, t->has_record ? &t->record : &t->cfg, t->params, t->step, st);
}

bool rf_trainer_save_weights(rf_trainer *t, const char *path, rf_status *st)
{
    return rf_trainer_settle(t, st) &&
           rf_checkpoint_save_weights(path, t->has_record ? &t->record : &t->cfg, t->params, t->step, st);
}

bool rf_trainer_load(rf_trainer *t, const char *path, rf_status *st)
{
    if (t->report != NULL) {   /* a fresh start: no step of the old weights is bad */
        t->device->sync();
        *t->report = (rf_step_report){0};
    }
    int64_t step = 0;
    if (!rf_checkpoint_load(path, t->params, &step, st))
        return false;
    t->step = step;
    return true;
}

/* Only the weights carry over: the AdamW moments and the step start afresh. */
static void restart_optimiser(rf_trainer *t)
{
    rf_params *p = t->params;
    if (p->backend != NULL && p->backend->zero != NULL) {
        p->backend->zero(p->m, (int64_t)p->total);
        p->backend->zero(p->v, (int64_t)p->total);
    } else {
        memset(p->m, 0, p->total * sizeof *p->m);
        memset(p->v, 0, p->total * sizeof *p->v);
    }
    t->step = 0;
}

bool rf_trainer_init_weights(rf_trainer *t, const char *path, rf_status *st)
{
    if (!rf_trainer_load(t, path, st))
        return false;
    restart_optimiser(t);
    return true;
}

rf_params *rf_trainer_copy_weights(rf_trainer *t, rf_status *st)
{
    if (!rf_trainer_settle(t, st))
        return NULL;
    const rf_params *p = t->params;
    rf_params *w = rf_params_new(p->seed);
    if (w == NULL) {
        rf_fail(st, "out of memory copying the weights");
        return NULL;
    }
    bool ok = true;
    for (int i = 0; ok && i < p->count; i++)
        ok = rf_params_register(w, p->entries[i].name, p->entries[i].shape, p->entries[i].init,
                                p->entries[i].scale, st) >= 0;
    rf_params_set_values_only(w);
    if (ok && rf_params_allocate(w, st)) {
        memcpy(w->value, p->value, p->total * sizeof *p->value);
        return w;
    }
    rf_params_free(w);
    return NULL;
}

bool rf_trainer_init_weights_from(rf_trainer *t, const rf_params *weights, rf_status *st)
{
    if (!rf_trainer_settle(t, st))
        return false;
    rf_params *p = t->params;
    for (int i = 0; i < p->count; i++) {
        const rf_param_entry *e = &p->entries[i];
        int j = rf_params_find(weights, e->name);
        if (j < 0)
            return rf_fail(st, "the weights carried over have no parameter %s, which this model has", e->name);
        if (!rf_shape_equal(weights->entries[j].shape, e->shape))
            return rf_fail(st, "parameter %s has %lld numbers in the weights carried over and %lld in this model",
                           e->name, (long long)weights->entries[j].numel, (long long)e->numel);
    }
    if (weights->count != p->count)
        return rf_fail(st, "the weights carried over have %d parameters and this model %d", weights->count, p->count);
    for (int i = 0; i < p->count; i++) {
        const rf_param_entry *e = &p->entries[i];
        const rf_param_entry *from = &weights->entries[rf_params_find(weights, e->name)];
        memcpy(p->value + e->offset, weights->value + from->offset, (size_t)e->numel * sizeof *p->value);
    }
    if (t->report != NULL)   /* a fresh start: no step of the old weights is bad */
        *t->report = (rf_step_report){0};
    restart_optimiser(t);
    return true;
}

void rf_trainer_record_config(rf_trainer *t, const rf_config *cfg)
{
    t->record = *cfg;
    t->has_record = true;
}

const rf_params *rf_trainer_params(const rf_trainer *t) { return t->params; }

static void report(const rf_train_callbacks *cb, const rf_metrics *m)
{
    if (cb != NULL && cb->on_metrics != NULL)
        cb->on_metrics(cb->ctx, m);
}

static bool checkpoint(rf_trainer *t, const char *path, const rf_train_callbacks *cb, rf_status *st)
{
    if (cb != NULL && cb->before_checkpoint != NULL && !cb->before_checkpoint(cb->ctx, st))
        return false;
    if (!rf_trainer_save(t, path, st))
        return false;
    if (cb != NULL && cb->on_checkpoint != NULL)
        cb->on_checkpoint(cb->ctx, path, t->step);
    return true;
}

bool rf_train_run(rf_trainer *t, const char *checkpoint_path, const rf_train_callbacks *cb, rf_status *st)
{
    rf_metrics m;
    t->started = now_s();
    int64_t last = t->cfg.train.steps;
    while (t->step < last) {
        bool stop = cb != NULL && cb->should_stop != NULL && cb->should_stop(cb->ctx);
        if (t->coll != NULL)   /* one rank asked: all stop at this step */
            stop = rf_collective_first(t->coll, stop) >= 0;
        if (stop)
            return true;
        if (!rf_trainer_step(t, &m, st))
            return false;
        if (due(t->step, t->cfg.train.log_every, last))
            report(cb, &m);
        if (due(t->step, t->cfg.train.eval_every, last)) {
            if (!rf_trainer_evaluate(t, RF_SPLIT_VAL, t->cfg.train.eval_batches, &m, st))
                return false;
            report(cb, &m);
        }
        if (t->step == last) {
            if (!rf_trainer_evaluate(t, RF_SPLIT_TEST, t->cfg.train.eval_batches, &m, st))
                return false;
            report(cb, &m);
        }
        if (!due(t->step, t->cfg.train.checkpoint_every, last))
            continue;
        /* every rank learns of a bad step queued since the last read, so
         * the one that saves does not stop alone */
        if (!settle_ranks(t, true, st))
            return false;
        if (checkpoint_path != NULL && !checkpoint(t, checkpoint_path, cb, st))
            return false;
    }
    return true;
}
