/* Where a model is right and wrong: from each evaluated sample (its label,
 * the model's answer and its input) a confusion matrix, precision, recall
 * and F1 per class, and the accuracy by slice:
 *
 *   operator  ListOps (listops, lra_tsv): the outermost operator, the
 *             sample's first token ("digit" for a sample that is one digit);
 *   depth     ListOps: the deepest bracket nesting, counted over the
 *             sample's tokens (a digit alone is 0, [MAX 1 2 ] is 1);
 *   length    every task: the length in positions, in power-of-two buckets
 *             (2^(b-1), 2^b]: "1", "2", "3-4", "5-8", ..., "1025-2048";
 *   class     images, audio and other float data: the true class (the
 *             accuracy of a class is its recall);
 *   concat    every task: data.concat's K, one group (the whole split has
 *             the same K; evaluate again with another K to compare).
 *
 * Both slices of ListOps read the sample as the model reads it: with
 * data.concat = K > 1 the outermost operator is the outer [MAX and the
 * depth counts it too.
 *
 * Against the data set's baselines (token data, datasets/baselines.h):
 * with the two rules fitted on the training split, each group also counts
 * the samples each rule gets right, so a slice's accuracy can be read
 * against what its own samples give without a model.
 *
 * Precision of class k is C[k][k] over the column sum (the samples answered
 * k), recall C[k][k] over the row sum (the samples labelled k), F1 their
 * harmonic mean; each is 0 where its denominator is 0 (0/0 := 0), as
 * scikit-learn's zero_division=0.
 */
#ifndef RF_DATASETS_EVAL_SLICES_H
#define RF_DATASETS_EVAL_SLICES_H

#include <glib.h>

#include "../core/data.h"
#include "../core/train.h"
#include "baselines.h"

typedef enum rf_slice_kind {
    RF_SLICE_OPERATOR,
    RF_SLICE_DEPTH,
    RF_SLICE_LENGTH,
    RF_SLICE_CLASS,
    RF_SLICE_CONCAT,
    RF_SLICE_KINDS,
} rf_slice_kind;

/* "operator", "depth", "length", "class", "concat" */
const char *rf_slice_kind_name(rf_slice_kind kind);

typedef struct rf_slice_group {
    int key;              /* the operator's token id, the depth, the bucket's top, the class, K */
    char name[40];        /* "[MAX", "depth 3", "65-128", the class's name, "K=2" */
    int64_t samples, right;
    int64_t right_majority, right_first;   /* the baselines' rules (with rules) */
} rf_slice_group;

typedef struct rf_slice_groups {
    int count;            /* groups in order of key; 0 where the slice does not apply */
    rf_slice_group *groups;
} rf_slice_groups;

typedef struct rf_eval_slices {
    int classes;
    bool listops;             /* operator and depth apply */
    bool by_class;            /* the class slice applies (float data) */
    int concat;
    const char *const *class_names;   /* the data set's, may be NULL */
    const rf_baseline_rules *rules;   /* borrowed while adding; NULL: no baselines */
    bool baselines;                   /* the groups count the rules' answers */
    int64_t samples, right;
    int64_t right_majority, right_first;
    int64_t *confusion;       /* [classes * classes]: row the label, column the answer */
    double *precision, *recall, *f1;   /* [classes], set by rf_eval_slices_finish */
    GArray *labels, *answers;          /* int per sample, in the order added */
    rf_slice_groups slices[RF_SLICE_KINDS];
} rf_eval_slices;

/* Empty tables for `ds` (which slices apply, its classes) and K; rules
 * (NULL: none) must outlive the adding. */
void rf_eval_slices_init(rf_eval_slices *s, const rf_dataset *ds, int concat, const rf_baseline_rules *rules);
void rf_eval_slices_clear(rf_eval_slices *s);

/* Count one sample: x its input as ds->get writes it (token ids as floats
 * for token data), len its positions. label and answer must be in
 * 0..classes-1. */
void rf_eval_slices_add(rf_eval_slices *s, const float *x, int len, int label, int answer);

/* Precision, recall and F1 from the matrix; call after the last add. */
void rf_eval_slices_finish(rf_eval_slices *s);

/* The indices (in the order added) of the samples labelled `label` and
 * answered `answer`; *count gets how many. Free with g_free. */
int64_t *rf_eval_slices_cell(const rf_eval_slices *s, int label, int answer, int64_t *count);

/* The name of class k: the data set's, or its number. */
void rf_eval_slices_class_name(const rf_eval_slices *s, int k, char *buf, size_t size);

/* One tidy CSV table, "table,row,column,value": confusion (row the label,
 * column the answer, the count), class (row the class; samples,
 * precision, recall, f1) and slice:KIND (row the group; samples, right,
 * accuracy, and with baselines baseline_majority, baseline_first_token:
 * the rules' accuracy on the group). Free with g_free. */
char *rf_eval_slices_csv(const rf_eval_slices *s);

/* Classify `rows` inputs at once: probs gets rows x classes floats. */
typedef bool (*rf_eval_classify)(void *ctx, const rf_outside_input *in, int rows, float *probs,
                                 rf_status *st);

/* An rf_eval_classify for a trainer (ctx: an rf_eval_trainer), through
 * rf_trainer_predict_all, as `rangefinder predict` classifies, so the CLI
 * and the workbench give the same answers. */
typedef struct rf_eval_trainer {
    rf_trainer *trainer;
} rf_eval_trainer;
bool rf_eval_classify_trainer(void *ctx, const rf_outside_input *in, int rows, float *probs, rf_status *st);

/* Every sample of `split`, read with ds->get and classified `window` at a
 * time through `classify` (the answer is the most probable class, ties to
 * the lowest), counted into s (initialised here, with `rules` as
 * rf_eval_slices_init takes them) and finished. False with a message when
 * a sample or the model fails, or a label is out of range. */
bool rf_eval_slices_measure(const rf_dataset *ds, rf_split split, int concat, const rf_baseline_rules *rules,
                            int window, rf_eval_classify classify, void *ctx, rf_eval_slices *s, rf_status *st);

#endif
