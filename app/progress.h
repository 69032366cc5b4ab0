/* Training progress on stdout. On a terminal: one line redrawn in place
 * (step/total, bar, loss, accuracy, speed, ETA), with evaluations printed
 * above it. Otherwise (a pipe, a log file): one plain line per report,
 *   step 10/500 loss 2.301 acc 0.125 lr 4.0e-04 2.1 steps/s ETA 03:53
 * The speed is in seconds a step when a step takes more than about one
 * ("42.6 s/step").
 */
#ifndef RF_APP_PROGRESS_H
#define RF_APP_PROGRESS_H

#include <glib.h>
#include <stdio.h>

#include "../core/train.h"

typedef struct rf_progress rf_progress;

/* `first_step`: the step the run starts (or resumes) from; `total`: train.steps. */
rf_progress *rf_progress_new(FILE *out, int64_t first_step, int64_t total);
void rf_progress_free(rf_progress *p);

void rf_progress_metrics(rf_progress *p, const rf_metrics *m);

/* A line of text that must not be overdrawn by the bar. */
void rf_progress_note(rf_progress *p, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

/* Leave the bar's line, so what follows starts on a fresh one. */
void rf_progress_end(rf_progress *p);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(rf_progress, rf_progress_free)

#endif
