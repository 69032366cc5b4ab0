/* Distributions over training (TensorBoard's Distributions tab): one
 * tensor's percentiles at each evaluation as nested bands over steps
 * (min-max lightest, then 7-93, 16-84, 31-69, the median a line), one hue
 * per run, the runs overlaid; rows from distributions.csv
 * (config/distributions_csv.h). */
#ifndef RF_DISTRIBUTION_FIGURE_H
#define RF_DISTRIBUTION_FIGURE_H

#include "../../config/distributions_csv.h"
#include "../plot/figure.h"

typedef struct rf_distribution_figure {
    char name[RF_NAME_LEN];
    rf_dist_kind kind;
    GPtrArray *labels;   /* one per run (char *) */
    GPtrArray *runs;     /* one GArray of rf_distribution_row per run: the tensor's rows, by step */
    GArray *colors;      /* one rf_series_color index per run (int) */
    bool log_y;          /* the values on a log scale (values <= 0 are not drawn) */
} rf_distribution_figure;

void rf_distribution_figure_init(rf_distribution_figure *f, const char *name, rf_dist_kind kind);
void rf_distribution_figure_clear(rf_distribution_figure *f);
/* A run's rows (all of a distributions.csv): those of the figure's tensor
 * are kept. Returns how many. */
guint rf_distribution_figure_add_run(rf_distribution_figure *f, const char *label, const GArray *rows);
/* The same drawn in rf_series_color(color) (the run's colour in every
 * figure; -1: by the run's position). */
guint rf_distribution_figure_add_run_colored(rf_distribution_figure *f, const char *label, int color,
                                             const GArray *rows);
rf_figure rf_distribution_figure_figure(rf_distribution_figure *f);
/* What the bands of run `run` draw at step `step` (the row of the nearest
 * evaluation); false when the run has none. */
bool rf_distribution_figure_at(const rf_distribution_figure *f, guint run, int64_t step, rf_distribution_row *out);
/* Where (step, value) lands in the figure drawn at width x height and
 * `zoom` (for tests); false outside the plot area. */
bool rf_distribution_figure_place(const rf_distribution_figure *f, double width, double height, const rf_zoom *zoom,
                                  double step, double value, double *px, double *py);

#endif
