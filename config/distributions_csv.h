/* A run's distributions.csv: the distributions of every parameter tensor,
 * its gradient and every probe tap at each evaluation (core/distribution.h),
 * in long form, one row per tensor and evaluation:
 *
 *   step,name,kind,count,min,p7,p16,p31,p50,p69,p84,p93,max,mean
 *
 * Written as metrics.csv is (metrics_csv.h): flushed row by row, fsync'd
 * before each checkpoint, and a resumed run cuts the rows after the step
 * it resumes from. */
#ifndef RF_CONFIG_DISTRIBUTIONS_CSV_H
#define RF_CONFIG_DISTRIBUTIONS_CSV_H

#include <glib.h>

#include "../core/distribution.h"

typedef struct rf_distributions_csv rf_distributions_csv;

/* A new file with just the header, replacing any old one. */
rf_distributions_csv *rf_distributions_csv_create(const char *path, GError **error);
/* Continue the file of a run resumed at `step`: rows after `step` and a
 * row cut short are cut off first. A missing file starts afresh. */
rf_distributions_csv *rf_distributions_csv_resume(const char *path, int64_t step, GError **error);
gboolean rf_distributions_csv_write(rf_distributions_csv *c, int64_t step, const rf_distribution *d, int n,
                                    GError **error);
gboolean rf_distributions_csv_sync(rf_distributions_csv *c, GError **error);
void rf_distributions_csv_close(rf_distributions_csv *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(rf_distributions_csv, rf_distributions_csv_close)

/* One row read back. */
typedef struct rf_distribution_row {
    int64_t step;
    rf_distribution d;
} rf_distribution_row;

/* Every row of a distributions.csv, checked: a bad row fails naming the
 * file, its line and the problem (a missing or extra field, a number that
 * is not one, an unknown kind, percentiles out of order, steps going
 * back). A GArray of rf_distribution_row. */
GArray *rf_distributions_csv_read(const char *path, GError **error);
/* The same for a file a run may be writing: its complete rows, a last
 * row not yet ended (and a header not yet whole) left unread. */
GArray *rf_distributions_csv_read_written(const char *path, GError **error);

#endif
