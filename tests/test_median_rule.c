/* Median-rule early stopping (core/median_rule.h) against hand-computed
 * cases: odd and even counts, NaNs left out, both directions, ties, the
 * minimum number of evaluations, no other trial. */
#include <math.h>

#include "../core/median_rule.h"
#include "tap.h"

int main(void)
{
    double median = 0;
    int compared = 0;

    double odd[] = {0.42, 0.10, 0.55};
    bool found = rf_median_of(odd, 3, &median);
    tap_ok(found && median == 0.42, "median of 0.42, 0.10, 0.55 is 0.42 (got %g)", median);
    double even[] = {0.4, 0.1, 0.3, 0.6};
    found = rf_median_of(even, 4, &median);
    tap_ok(found && fabs(median - 0.35) < 1e-12,
           "median of 0.4, 0.1, 0.3, 0.6 is (0.3 + 0.4) / 2 = 0.35 (got %g)", median);
    double gaps[] = {NAN, 0.2, NAN, 0.8, 0.5};
    tap_ok(rf_median_of(gaps, 5, &median) && median == 0.5, "NaNs are left out: median of 0.2, 0.8, 0.5 is 0.5");
    double none[] = {NAN, NAN};
    tap_ok(!rf_median_of(none, 2, &median), "no finite value: no median");

    /* accuracy, higher is better: 0.31 against the median 0.42 of three trials */
    double others[] = {0.42, 0.10, 0.55};
    bool stop = rf_median_rule_stop(0.31, 3, 2, others, 3, true, &median, &compared);
    tap_ok(stop && median == 0.42 && compared == 3,
           "accuracy 0.31 below the median 0.42 of 3 trials: stopped (stop %d, median %g, %d trials)", stop, median,
           compared);
    tap_ok(!rf_median_rule_stop(0.50, 3, 2, others, 3, true, NULL, NULL), "accuracy 0.50 above the median 0.42: goes on");
    tap_ok(!rf_median_rule_stop(0.42, 3, 2, others, 3, true, NULL, NULL), "a tie with the median goes on");
    tap_ok(!rf_median_rule_stop(0.31, 1, 2, others, 3, true, NULL, NULL),
           "before min_evaluations (1 of 2) it never stops, however far below");
    tap_ok(rf_median_rule_stop(0.31, 2, 2, others, 3, true, NULL, NULL), "at the min_evaluations-th evaluation it may");

    /* loss, lower is better: median of 2.0, 2.4 (and a trial not evaluated at this step) is 2.2 */
    double losses[] = {2.0, NAN, 2.4};
    stop = rf_median_rule_stop(2.3, 4, 1, losses, 3, false, &median, &compared);
    tap_ok(stop && fabs(median - 2.2) < 1e-12 && compared == 2,
           "loss 2.3 above the median 2.2 of 2 evaluated trials: stopped (median %g, %d trials)", median, compared);
    tap_ok(!rf_median_rule_stop(2.1, 4, 1, losses, 3, false, NULL, NULL), "loss 2.1 below the median 2.2: goes on");

    tap_ok(!rf_median_rule_stop(0.01, 5, 1, NULL, 0, true, &median, &compared) && isnan(median) && compared == 0,
           "no other trial: nothing to compare with, goes on");
    tap_ok(!rf_median_rule_stop(NAN, 5, 1, others, 3, true, NULL, NULL), "no metric of its own yet: goes on");
    return tap_done();
}
