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

/* The two rules themselves, to answer sample by sample (the accuracy of a
 * slice without a model: datasets/eval_slices.h). */
typedef struct rf_baseline_rules {
    int vocab, classes;
    int majority;         /* the training split's most common class */
    int *by_first;        /* [vocab]: each first token's class, the majority where it began no training sample */
} rf_baseline_rules;

/* Fit both on the training split; false (and nothing to clear) as
 * rf_baselines_measure refuses. */
bool rf_baseline_rules_fit(const rf_dataset *ds, rf_baseline_rules *out, rf_status *st);
/* The first-token rule's answer for a sample beginning with token `first`
 * (out of the vocabulary, or -1 for an empty sample: the majority). */
int rf_baseline_rules_first_token(const rf_baseline_rules *r, int first);
void rf_baseline_rules_clear(rf_baseline_rules *r);

#endif
