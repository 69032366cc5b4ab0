/* What every workbench view (a page of the main window's stack) offers the
 * window: the plot that "Export plot…" writes, and a title. Views are
 * GtkWidgets created with their session:
 *
 *   GtkWidget *rf_training_view_new(RfSession *s);   ui/views/training_view.c
 *   GtkWidget *rf_memory_view_new(RfSession *s);     ui/views/memory_view.c
 *   GtkWidget *rf_compare_view_new(RfSession *s);    ui/views/compare_view.c
 *   GtkWidget *rf_attention_view_new(RfSession *s);  ui/views/attention_view.c
 *   GtkWidget *rf_latent_view_new(RfSession *s);     ui/views/latent_view.c
 *   GtkWidget *rf_talk_view_new(RfSession *s);       ui/views/talk_view.c
 *   GtkWidget *rf_data_view_new(RfSession *s);       ui/views/data_view.c
 *   GtkWidget *rf_runs_view_new(RfSession *s);       ui/views/runs_view.c
 *   GtkWidget *rf_evaluation_view_new(RfSession *s); ui/views/evaluation_view.c
 *   GtkWidget *rf_attribution_view_new(RfSession *s); ui/views/attribution_view.c
 *   GtkWidget *rf_projector_view_new(RfSession *s);  ui/views/projector_view.c
 *   GtkWidget *rf_distributions_view_new(RfSession *s); ui/views/distributions_view.c
 *
 * and register their export plot with rf_view_set_plot (the window reads it
 * with rf_view_get_plot). A view updates itself from the session's signals
 * and redraws only when what it shows changed.
 */
#ifndef RF_VIEW_H
#define RF_VIEW_H

#include "plot_view.h"
#include "session.h"

/* Attach the plot that exports for `view` (NULL: none). */
void rf_view_set_plot(GtkWidget *view, RfPlotView *plot);
RfPlotView *rf_view_get_plot(GtkWidget *view);

/* `bar` (a view's row of controls) in a scrolled window that scrolls it
 * sideways when the view is narrower than the row, so that no toolbar
 * widens the window. */
GtkWidget *rf_view_scroll_sideways(GtkWidget *bar);

/* A view of a toolbar row (scrolled sideways as above) over `body`, with
 * the views' margins, exporting `plot`. */
GtkWidget *rf_view_new_with_toolbar(GtkWidget *bar, GtkWidget *body, RfPlotView *plot);

GtkWidget *rf_training_view_new(RfSession *s);
GtkWidget *rf_memory_view_new(RfSession *s);
GtkWidget *rf_compare_view_new(RfSession *s);
GtkWidget *rf_attention_view_new(RfSession *s);
GtkWidget *rf_latent_view_new(RfSession *s);
GtkWidget *rf_talk_view_new(RfSession *s);
GtkWidget *rf_data_view_new(RfSession *s);
GtkWidget *rf_runs_view_new(RfSession *s);
GtkWidget *rf_evaluation_view_new(RfSession *s);
GtkWidget *rf_attribution_view_new(RfSession *s);
/* The values the Attribution view draws (NULL before any), for tests. */
const float *rf_attribution_view_values(GtkWidget *attribution_view, int *len);
/* Compare the next Compute with the checkpoint file `checkpoint` (NULL:
 * no comparison), as choosing it under "Compare with" does. */
void rf_attribution_view_compare_with(GtkWidget *attribution_view, const char *checkpoint);
GtkWidget *rf_projector_view_new(RfSession *s);
GtkWidget *rf_distributions_view_new(RfSession *s);
/* The figure the Distributions view draws (NULL while it says what to do
 * first), for tests. */
typedef struct rf_distribution_figure rf_distribution_figure;
const rf_distribution_figure *rf_distributions_view_figure(GtkWidget *distributions_view);

/* Show sample `index` of `split` in the Data view `data_view` (its split
 * chosen, the sample selected and scrolled to; nothing for an index past
 * the split's end). The window's action win.show-sample "(ix)" does this
 * and brings the Data view forward. */
void rf_data_view_show_sample(GtkWidget *data_view, rf_split split, int64_t index);
/* The attribution the Data view draws over its sample (NULL: none), for tests. */
const float *rf_data_view_attribution(GtkWidget *data_view, int *len);

#endif
