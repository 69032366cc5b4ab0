/* baselines.ini in a run folder: what the labels of the run's data give
 * without a model (datasets/baselines.h), measured on the validation split
 * when the run starts, so the Training view and `rangefinder plot` can draw
 * them under the validation accuracy:
 *
 *   [baselines]
 *   split = val
 *   majority = 0.1685
 *   first_token = 0.359
 *
 * Written for token data only; a run folder without the file draws no
 * baselines.
 */
#ifndef RF_CONFIG_BASELINES_FILE_H
#define RF_CONFIG_BASELINES_FILE_H

#include <glib.h>

#define RF_BASELINES_FILE "baselines.ini"

/* Write DIR/baselines.ini atomically (a temporary file renamed). */
gboolean rf_baselines_file_write(const char *dir, double majority, double first_token, GError **error);

/* Read DIR/baselines.ini: TRUE with both NaN when there is none; FALSE with
 * an error naming the file and the key when it is there but unreadable, or
 * a value is not a fraction in [0, 1]. */
gboolean rf_baselines_file_read(const char *dir, double *majority, double *first_token, GError **error);

#endif
