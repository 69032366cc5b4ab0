/* Turning a data set into batches, with a background prefetch thread.
 *
 * Training batches: the order is a permutation of the train split per epoch,
 * drawn from (seed, epoch), so batch k of a run is the same whether the run
 * was interrupted or not (resume needs only the step number). Evaluation
 * batches walk a split in order.
 */
#ifndef RF_BATCHER_H
#define RF_BATCHER_H

#include "data.h"

typedef struct rf_batcher rf_batcher;

rf_batcher *rf_batcher_new(const rf_dataset *ds, int batch, uint64_t seed, rf_status *st);
void rf_batcher_free(rf_batcher *b);

/* Make this batcher rank `rank` of `ranks` (before the first batch): its
 * training batch for a step is rows rank*batch .. of the global batch of
 * ranks*batch samples, the same samples whatever the rank count. */
void rf_batcher_set_shard(rf_batcher *b, int rank, int ranks);

/* Bytes this batcher holds (staging buffers), for the memory plan. */
size_t rf_batcher_bytes(int batch, int seq_len, int feat_dim);

/* The training batch for `step` (0-based). The batch for step+1 is prepared
 * in the background meanwhile. The returned batch stays valid until the next
 * call. NULL with a message if the data set failed. `wait_s` (may be NULL)
 * receives the seconds spent waiting for data. */
const rf_batch *rf_batcher_train(rf_batcher *b, int64_t step, double *wait_s, rf_status *st);

/* Evaluation batch `index` of `split` (in order; the last may be short). */
const rf_batch *rf_batcher_eval(rf_batcher *b, rf_split split, int64_t index, rf_status *st);
int64_t rf_batcher_eval_batches(const rf_batcher *b, rf_split split);

/* Evaluation batch `index` of `split` walked from its shortest sample to
 * its longest (ties in index order), so that a batch's samples have
 * similar lengths and inference can skip the padding past the longest
 * (length buckets, core/train.c). Together the batches hold the split's
 * samples, each once. The first call for a split reads all its samples
 * once to learn their lengths. */
const rf_batch *rf_batcher_eval_by_length(rf_batcher *b, rf_split split, int64_t index, rf_status *st);

#endif
