/* What the labels allow without a model: the accuracy on one split of two
 * rules fitted on the training split, for token data.
 *
 *   majority     the training split's most common class, for every sample;
 *   first token  the most common training class among the samples that
 *                begin with the same token (the majority class where the
 *                first token never began a training sample).
 *
 * For ListOps (listops, lra_tsv) the first token is the outermost operator,
 * and that rule alone scores about 36% on the test split: the accuracy at
 * which the ListOps models plateau, and near the published full-attention
 * and Transformer-LS numbers (docs/reproduction.md, "What 36% means"). A
 * model scores above it only by reading past the first token.
 */
#ifndef RF_DATASETS_BASELINES_H
#define RF_DATASETS_BASELINES_H

#include "../core/data.h"

typedef struct rf_baselines {
    double majority;      /* fraction of `split` answered right, 0..1 */
    double first_token;
} rf_baselines;

/* False with a message when the data set is not token data (feat_dim > 0:
 * images, audio, arrays, where reading every training sample means
 * decoding it), when the training or the scored split is empty, or when
 * reading a sample fails. */
bool rf_baselines_measure(const rf_dataset *ds, rf_split split, rf_baselines *out, rf_status *st);

#endif
