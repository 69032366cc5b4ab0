/* Median-rule early stopping, as W&B's and Optuna's median stopping: a
 * trial whose best validation metric so far is worse than the median of
 * the other trials' metric at the same step is stopped. A pure function,
 * so it can be checked against hand-computed cases (tests/test_median_rule.c);
 * `rangefinder sweep` (app/cmd_sweep.c) gathers the numbers. */
#ifndef RF_MEDIAN_RULE_H
#define RF_MEDIAN_RULE_H

#include <stdbool.h>

/* The median of the finite values among v[0, n) (NaNs are left out), into
 * *median; false when none is finite. v is not changed. */
bool rf_median_of(const double *v, int n, double *median);

/* Whether to stop a trial at its `evaluations`-th evaluation, its best
 * metric so far `best`, the other trials' metric at the same step in
 * others[0, n) (NaN: a trial with no evaluation there, left out). Never
 * before `min_evaluations` evaluations, nor without another trial to
 * compare with; higher_better says the metric's direction (accuracy: true,
 * loss: false); a tie with the median goes on. *median (may be NULL)
 * receives the median compared with (NaN when there was none) and *compared
 * (may be NULL) how many trials it was taken over. */
bool rf_median_rule_stop(double best, int evaluations, int min_evaluations, const double *others, int n,
                         bool higher_better, double *median, int *compared);

#endif
