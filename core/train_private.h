/* What the trainer's files share (core/train.c, core/train_inspect.c):
 * the trainer itself and three of its steps. Not for other files: they use
 * core/train.h. */
#ifndef RF_TRAIN_PRIVATE_H
#define RF_TRAIN_PRIVATE_H

#include "train.h"
#include "train_graph.h"

struct rf_trainer {
    rf_config cfg;
    const rf_dataset *ds;
    rf_params *params;
    rf_model *model;
    rf_batcher *batcher;
    rf_pool *pool;
    int64_t step;             /* steps finished */
    rf_memory_plan plan;
    double started;
    /* A device that queues whole steps (rf_backend.queue_step): its guard's
     * report, in device memory; NULL on the CPU. */
    const rf_backend *device;
    rf_step_report *report;
    rf_step_graph graph;      /* its steps as a graph (train.cuda_graph; zero: off) */
    bool forward_only;        /* built by rf_trainer_new_forward: cannot step */
    /* Outside inputs are inspected alone: batch 1, forward only, on the
     * same parameters (built at the first inspection), so an input costs one
     * sample's pass, not a whole batch's. */
    rf_model *single;
    /* Attribution (core/attribution.h): the model again with a gradient at
     * its input, backward from the logits; built at the first call: attr
     * of a batch plus two rows (ig, occlusion), attr_one of one row (grad,
     * grad-input). */
    rf_model *attr, *attr_one;
    /* Length buckets of a build of token sequences on the CPU: the model
     * again, forward-only, for inputs of at most bucket_len[i] positions
     * (ascending, all shorter than the model's), inside the model's arena,
     * each built when a batch first needs it (NULL until then). A batch
     * runs on the shortest that holds its longest input, so inference does
     * not compute on padding past it. in_arena: the model whose constants
     * the shared arena holds now. */
    rf_model *bucket[RF_LENGTH_BUCKETS];
    int bucket_len[RF_LENGTH_BUCKETS];
    int buckets;
    bool bucketable;          /* token sequences on the CPU, one process */
    rf_model *in_arena;
    /* A data-parallel run: the ranks (NULL alone) and the gradient
     * averaging of a CPU run. */
    rf_collective *coll;
    rf_grad_sync *sync;
    /* What checkpoints record when it is not cfg (rf_trainer_record_config). */
    rf_config record;
    bool has_record;
};

/* Wait for a device that queues steps; fails, naming the step, when its
 * guard found a loss or gradient norm that is not finite. */
bool rf_trainer_settle(rf_trainer *t, rf_status *st);

/* The model for inputs of at most `longest` positions: a length bucket's,
 * built when first needed, else the trainer's own (core/train.c). */
rf_model *rf_trainer_model_for(rf_trainer *t, int longest);

/* The batch into the model's inputs (a length bucket takes each row's
 * first positions). */
bool rf_model_load_batch(rf_model *m, const rf_batch *b, rf_status *st);

#endif
