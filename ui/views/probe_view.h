/* The glue every probe view (Attention, Latent, TaLK) shares: a view is its
 * state, a figure in an RfPlotView and the sample toolbar (probe_picker.h);
 * this wires them to the session once:
 *
 *   a new run, data set or inspected input   collect (the model's taps), then choose
 *   the view comes on screen                 choose (watch the taps, refresh)
 *   the view leaves the screen               stop the watch if it is this view's, then hidden
 *   a new probe snapshot, while on screen    refresh (the step slider follows the history)
 *   another step on the slider               refresh
 *   the plot is destroyed                    stop the watch, then free
 *
 * so a fourth mechanism view is a figure, its hooks and a few lines. */
#ifndef RF_PROBE_VIEW_H
#define RF_PROBE_VIEW_H

#include "../plot_view.h"
#include "probe_picker.h"

typedef struct rf_probe_view_hooks {
    void (*collect)(gpointer data);   /* read the model's taps anew */
    void (*choose)(gpointer data);    /* what the picker's `changed` does too: watch, refresh */
    void (*refresh)(gpointer data);   /* draw the latest snapshot */
    void (*hidden)(gpointer data);    /* may be NULL: let go of what only the screen needs */
    void (*free)(gpointer data);      /* the view's state */
} rf_probe_view_hooks;

/* The view: the picker's toolbar above `plot` (which exports), wired to
 * `s` as above for `data`, the view's state (owned from here on: `free`
 * runs when the plot goes). Runs collect and choose once. `picker` lives
 * in `data`. */
GtkWidget *rf_probe_view_new(RfSession *s, rf_probe_picker *picker, RfPlotView *plot,
                             const rf_probe_view_hooks *hooks, gpointer data);
/* The state `data` of the view that `plot` belongs to; NULL once freed. */
gpointer rf_probe_view_get_data(RfPlotView *plot);

#endif
