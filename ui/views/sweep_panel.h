/* The Runs view's Sweep panel: the parallel coordinates of one sweep
 * folder of the runs folder (ui/figures/parallel_sweep.h), chosen from a
 * list of them, read again whenever its sweep.csv changes (while
 * `rangefinder sweep` runs elsewhere; the panel only reads). Hovering a
 * line names the trial and its values; a click on a line hands the trial's
 * folder to the view; the view names the trial to highlight. */
#ifndef RF_SWEEP_PANEL_H
#define RF_SWEEP_PANEL_H

#include <gtk/gtk.h>

#include "../figures/parallel_figure.h"
#include "../plot_view.h"

/* A click on trial `dir` (its run folder) of the shown sweep. */
typedef void (*rf_sweep_clicked)(const char *dir, gpointer data);

GtkWidget *rf_sweep_panel_new(rf_sweep_clicked clicked, gpointer data);
/* The sweep folders to choose from (by name; the shown one is kept while
 * it is among them); rereads the shown one if its files changed. */
void rf_sweep_panel_update(GtkWidget *panel, GPtrArray *sweep_dirs);
/* Show sweep folder `sweep_dir` (when it is one of the list) with trial
 * folder `trial` highlighted (NULL: none). */
void rf_sweep_panel_highlight(GtkWidget *panel, const char *sweep_dir, const char *trial);
/* The shown sweep's folder (NULL: none), its figure (NULL: none or
 * unreadable) and the plot that draws it. */
const char *rf_sweep_panel_sweep(GtkWidget *panel);
rf_parallel_figure *rf_sweep_panel_figure(GtkWidget *panel);
RfPlotView *rf_sweep_panel_plot(GtkWidget *panel);

#endif
