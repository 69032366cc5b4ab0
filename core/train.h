/* Training and evaluation of one model on one data set: the loop the CLI
 * and the GUI's worker thread both run.
 *
 * A step: batch from the prefetcher -> forward -> loss -> backward ->
 * NaN/Inf check -> global-norm clip -> AdamW with the scheduled learning
 * rate. After the first step nothing is allocated.
 */
#ifndef RF_TRAIN_H
#define RF_TRAIN_H

#include "batcher.h"
#include "collective.h"
#include "config.h"
#include "grad_sync.h"
#include "model.h"
#include "probe.h"

typedef struct rf_memory_plan {
    size_t params;        /* parameter values */
    size_t grads;         /* parameter gradients */
    size_t optimizer;     /* AdamW moments */
    size_t activations;   /* the activation arena (values, their grads, saved tensors) */
    size_t workspace;     /* kernel scratch + batch staging */
    size_t total;
    /* Outside the total: the graph's own bookkeeping (rf_graph_own_bytes),
     * in ordinary memory, not the engine's allocator. */
    size_t graph;
    int64_t param_count;
} rf_memory_plan;

/* Plan a training run's memory for `cfg` at sequence length seq_len without
 * allocating anything (feat_dim, vocab, classes as the data set gives them). */
bool rf_memory_plan_compute(const rf_config *cfg, int seq_len, int feat_dim, int vocab, int classes,
                            rf_memory_plan *out, rf_status *st);

/* The same for inference (rf_trainer_new_forward's build): parameters,
 * the forward-only activation arena and workspace; grads and optimizer are
 * 0. A grid (grid_h x grid_w == seq_len) or 0, 0. */
bool rf_memory_plan_inference(const rf_config *cfg, int seq_len, int feat_dim, int vocab, int classes, int grid_h,
                              int grid_w, rf_memory_plan *out, rf_status *st);

/* The plan of model m, built on `p` (allocated or not): what
 * rf_memory_plan_compute (forward_only false) or _inference (true) gives
 * for it, without building it again. */
void rf_memory_plan_of(const rf_model *m, const rf_params *p, bool forward_only, rf_memory_plan *out);

typedef struct rf_metrics {
    int64_t step;          /* steps finished */
    rf_split split;        /* train: last step's batch; val/test: a full evaluation */
    double loss;
    double accuracy;
    double lr;
    double grad_norm;      /* train only, before clipping */
    double seconds;        /* since the run (or resume) started */
    double step_seconds;   /* train only */
    double data_wait;      /* train only: seconds the step waited for data */
    bool unread;           /* train only: a device step whose loss, accuracy and norm were not read
                              (the host waits for the device only every train.log_every steps) */
    int64_t samples;       /* val/test: samples evaluated */
} rf_metrics;

typedef struct rf_trainer rf_trainer;

rf_trainer *rf_trainer_new(const rf_config *cfg, const rf_dataset *ds, rf_status *st);
/* One rank of a data-parallel run over `c` (core/collective.h; NULL or one
 * rank: rf_trainer_new). data.batch is the global batch: it must divide by
 * the rank count, and each rank trains on its slice of every global batch
 * (the same samples whatever the rank count), averages gradients with the
 * others during backward, and takes the same update. Evaluation batches are
 * shared out and the sums reduced, so every rank gets the same metrics;
 * saving is the caller's job (on one rank). */
rf_trainer *rf_trainer_new_parallel(const rf_config *cfg, const rf_dataset *ds, rf_collective *c, rf_status *st);
/* The same for inference only (rf_model_new_forward: no backward planned,
 * a smaller activation arena, and a parameter store of values only: no
 * gradients, no AdamW moments; rf_trainer_plan says how much, and it
 * cannot be saved): evaluation,
 * value probes and prediction work, a step and gradient probes fail. */
rf_trainer *rf_trainer_new_forward(const rf_config *cfg, const rf_dataset *ds, rf_status *st);
void rf_trainer_free(rf_trainer *t);

const rf_config *rf_trainer_config(const rf_trainer *t);
rf_model *rf_trainer_model(rf_trainer *t);
int64_t rf_trainer_step_count(const rf_trainer *t);
const rf_memory_plan *rf_trainer_plan(const rf_trainer *t);

/* Optimiser settings (lr, clip, weight decay, schedule, steps) may change
 * between steps; the architecture may not. */
void rf_trainer_set_optim(rf_trainer *t, const rf_config *cfg);

/* One training step. Fails (and changes nothing) on a non-finite loss or
 * gradient, with a message naming the step. */
bool rf_trainer_step(rf_trainer *t, rf_metrics *out, rf_status *st);

/* Loss and accuracy over a split (max_batches 0 = all of it, otherwise
 * its first max_batches batches). On token sequences on the CPU (one
 * process; training and forward-only builds alike) each batch runs on a
 * forward-only graph only as long as the batch's longest sample, in up to
 * RF_LENGTH_BUCKETS lengths inside the model's own arena, and a whole split
 * is walked from its shortest samples to its longest so that a batch's
 * lengths are alike. The results equal a padded pass's within rounding;
 * the next training step puts the model's constants back. */
#define RF_LENGTH_BUCKETS 8
bool rf_trainer_evaluate(rf_trainer *t, rf_split split, int64_t max_batches, rf_metrics *out, rf_status *st);

/* The same over `batches` batches spread evenly over the split (taken by
 * length where rf_trainer_evaluate would walk it so), for timing inference
 * on a fair sample of the lengths: `rangefinder bench --inference`. */
bool rf_trainer_evaluate_spread(rf_trainer *t, rf_split split, int64_t batches, rf_metrics *out, rf_status *st);

/* The length buckets a trainer may use (their lengths into len[], up to
 * RF_LENGTH_BUCKETS; 0 for inputs that do not bucket, a GPU or MPI ranks)
 * and how many of them a batch has used so far. */
int rf_trainer_length_buckets(const rf_trainer *t, int *len, int *built);
/* Turn length buckets off (every batch padded to the full length, as a
 * training step runs it) or back on, where the build has them. */
void rf_trainer_use_length_buckets(rf_trainer *t, bool on);

/* What the model made of one sample. */
typedef struct rf_inspection {
    int label, predicted;
    double loss;             /* cross-entropy of this sample alone */
    int64_t batch_index;     /* the evaluation batch that holds it */
    int row;                 /* its row in that batch */
} rf_inspection;

/* Look inside the model: run evaluation batch sample / batch of `split`
 * forward (no dropout) with `ps` attached to row sample % batch (ps->sample
 * is set to it), and backward with the real labels when `ps` has a gradient
 * tap (the gradient of the batch's mean loss). Parameter gradients are
 * zeroed and nothing is updated, so training continues unchanged. Fails
 * when the sample is out of range or a tap was not filled. */
bool rf_trainer_inspect(rf_trainer *t, rf_split split, int64_t sample, rf_probe_set *ps, rf_inspection *out,
                        rf_status *st);

/* An input from outside the data set, featurised by its featurise hook:
 * len positions (1..seq_len) of max(1, feat_dim) floats each. */
typedef struct rf_outside_input {
    const float *x;
    int len;
} rf_outside_input;

/* rf_trainer_inspect for an outside input: it runs alone on a batch-1
 * forward-only model sharing the trainer's parameters (built at the first
 * call; the same results as row 0 of a batch). It has no label, so
 * out->label is -1 and out->loss 0, and gradient taps are refused. probs
 * (NULL, or classes floats) gets its class probabilities. */
bool rf_trainer_inspect_input(rf_trainer *t, const rf_outside_input *in, rf_probe_set *ps, rf_inspection *out,
                              float *probs, rf_status *st);

/* Class probabilities of up to `batch` outside inputs at once, forward
 * only (no dropout, no backward, nothing updated): probs gets count x
 * classes floats. On a trainer from rf_trainer_new_forward nothing for
 * backward exists at all. Fails when count is not 1..batch or an input
 * does not fit seq_len. */
bool rf_trainer_predict(rf_trainer *t, const rf_outside_input *in, int count, float *probs, rf_status *st);
/* rf_trainer_predict with `ps` (NULL, or a set from the model in use)
 * attached during the forward pass: with RF_PROBE_ALL_ROWS it gets every
 * row's values (rows past count hold padding). */
bool rf_trainer_predict_probed(rf_trainer *t, const rf_outside_input *in, int count, float *probs,
                               rf_probe_set *ps, rf_status *st);

/* rf_trainer_predict for any number of inputs: batches filled shortest
 * first (so each runs on the shortest length bucket that holds it), probs
 * in the inputs' order, rows x classes floats. `rangefinder predict`,
 * `eval --slices` and the workbench's Evaluation view all classify this
 * way, so they give the same answers. */
bool rf_trainer_predict_all(rf_trainer *t, const rf_outside_input *in, int rows, float *probs, rf_status *st);

/* A data-parallel trainer's gradient averaging (NULL alone). */
const rf_grad_sync *rf_trainer_grad_sync(const rf_trainer *t);
/* Time one exposed averaging of the gradients (bench); 0 alone. */
double rf_trainer_time_grad_sync(rf_trainer *t);

/* train.cuda_graph = auto on a device (core/train_graph.h): how often this
 * trainer captured its step as a graph and replayed a capture, and why
 * it gave graphs up ("" if it did not). All zero where graphs are off. */
typedef struct rf_graph_stats {
    int64_t captures, replays;
    char given_up[RF_STATUS_MSG];
} rf_graph_stats;
void rf_trainer_graph_stats(const rf_trainer *t, rf_graph_stats *out);

bool rf_trainer_save(rf_trainer *t, const char *path, rf_status *st);
/* The parameters' values alone (rf_checkpoint_save_weights), as the
 * run's kept weights (core/kept_weights.h); a forward-only trainer can. */
bool rf_trainer_save_weights(rf_trainer *t, const char *path, rf_status *st);
/* Load parameters, optimizer state and step from a checkpoint made with the
 * same architecture (from a kept weights file: its parameters and step,
 * the AdamW moments zeroed). */
bool rf_trainer_load(rf_trainer *t, const char *path, rf_status *st);
/* A new run from a checkpoint's weights (`train --init`): its parameters,
 * checked as rf_trainer_load checks them (same architecture), with the
 * AdamW moments zeroed and the step back at 0, so only the weights carry
 * over (e.g. a curriculum: train on short sequences, then on long ones). */
bool rf_trainer_init_weights(rf_trainer *t, const char *path, rf_status *st);
/* A host copy of the trainer's weights (a values-only store that outlives
 * the trainer; free with rf_params_free), and a new run from such a copy,
 * as rf_trainer_init_weights from a file: a curriculum's next stage starts
 * from the weights its last stage ended with. The copy must have every
 * parameter of `t` with the same shape, and no other; errors name the
 * first that differs. */
rf_params *rf_trainer_copy_weights(rf_trainer *t, rf_status *st);
bool rf_trainer_init_weights_from(rf_trainer *t, const rf_params *weights, rf_status *st);
/* The config rf_trainer_save writes into checkpoints instead of the
 * trainer's own: a curriculum stage trains on its stage's config and
 * records its run's, with train.stage saying which stage it is in. */
void rf_trainer_record_config(rf_trainer *t, const rf_config *cfg);
/* The trainer's parameters (values, gradients, moments), for tests. */
const rf_params *rf_trainer_params(const rf_trainer *t);

typedef struct rf_train_callbacks {
    void (*on_metrics)(void *ctx, const rf_metrics *m);
    /* Before each checkpoint is written: make every metric received so far
     * durable, so that a crash never leaves a checkpoint ahead of its
     * records. False (with st filled) stops the run with that error. NULL:
     * nothing to do. */
    bool (*before_checkpoint)(void *ctx, rf_status *st);
    void (*on_checkpoint)(void *ctx, const char *path, int64_t step);
    bool (*should_stop)(void *ctx);   /* polled before every step; NULL: never */
    void *ctx;
} rf_train_callbacks;

/* Run from the current step to train.steps: evaluation on val every
 * eval_every steps and at the end, test evaluation after the last step, a
 * checkpoint at `checkpoint_path` every checkpoint_every steps and at the
 * end (NULL path: none). Every metric of a step is reported before that
 * step's checkpoint (the last checkpoint comes after the test evaluation).
 * Stops with an error (keeping the last good checkpoint) on a non-finite
 * loss. Returns true when it finished or was asked to stop. */
bool rf_train_run(rf_trainer *t, const char *checkpoint_path, const rf_train_callbacks *cb, rf_status *st);

#endif
