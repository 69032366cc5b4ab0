/* `eval --slices`: the confusion matrix, precision, recall and F1 per class
 * and the accuracy by slice (datasets/eval_slices.h) of a checkpoint on one
 * split, as text, as JSON keys and as a CSV file. */
#ifndef RF_APP_EVAL_SLICES_REPORT_H
#define RF_APP_EVAL_SLICES_REPORT_H

#include "../datasets/eval_slices.h"
#include "json_line.h"
#include "saved_model.h"

/* Classify every sample of `split` with the checkpoint's model (forward
 * only, batched by length) into `out`. */
gboolean rf_eval_slices_run(rf_saved_model *sm, rf_split split, rf_eval_slices *out, GError **error);

/* The matrix (rows the label, columns the answer), one line per class and
 * one block per slice that applies. */
void rf_eval_slices_print(const rf_eval_slices *s);

/* "confusion": [[row of label 0], ...], "per_class": [{"class", "samples",
 * "precision", "recall", "f1"}, ...], "slices": {"length": [{"group",
 * "samples", "right", "accuracy"[, "baseline_majority",
 * "baseline_first_token"]}, ...], ...} (only the slices that apply; the
 * baselines for token data). */
void rf_eval_slices_json(const rf_eval_slices *s, rf_json_line *j);

/* rf_eval_slices_csv written atomically; an error names the path. */
gboolean rf_eval_slices_write_csv(const rf_eval_slices *s, const char *path, GError **error);

#endif
