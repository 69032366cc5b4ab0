/* What the Attention view's figure shows and borrows, and the large maps
 * prepared for it in a worker thread: a map of a quarter of a million cells
 * or more gets its colour range and pooled image built off the UI thread,
 * so a new snapshot costs the UI thread a paint; the previous map stays on
 * screen meanwhile. The figure borrows the probe snapshot it shows (or a
 * cropped copy the preparer owns); a later refresh drops a job in flight. */
#ifndef RF_MAP_PREPARER_H
#define RF_MAP_PREPARER_H

#include <gtk/gtk.h>

#include "../figures/attention_figure.h"
#include "../plot_view.h"
#include "../session.h"

typedef struct rf_map_preparer {
    RfPlotView *plot;           /* a probe view's (rf_probe_view_new) */
    rf_attention_figure *figure;
    RfProbeHold *shown;         /* the snapshot the figure borrows from */
    float *crop;                /* or the cropped map it borrows */
    guint generation;           /* of refreshes: a map prepared for an older one is dropped */
    GCancellable *preparing;    /* the job in flight, cancelled when superseded */
} rf_map_preparer;

void rf_map_preparer_init(rf_map_preparer *p, RfPlotView *plot, rf_attention_figure *figure);
void rf_map_preparer_free(rf_map_preparer *p);
/* A map being prepared is no longer wanted (a refresh, the view hidden). */
void rf_map_preparer_forget(rf_map_preparer *p);
/* The figure now borrows from `hold`'s snapshot, or from `crop` when that
 * is not NULL (both taken over; what it borrowed before is released). */
void rf_map_preparer_keep(rf_map_preparer *p, RfProbeHold *hold, float *crop);
/* Show a rows x cols map of `hold`'s snapshot (or `owned`, a buffer holding
 * it that the preparer then frees; both taken over): at once when it is
 * small, else once a worker thread has prepared it. */
void rf_map_preparer_show(rf_map_preparer *p, RfProbeHold *hold, const float *map, int rows, int cols,
                          const char *row_label, const char *col_label, float *owned);
/* A job of the view's own (the overview) starts: the cancellable it runs
 * under, owned by the preparer; p->generation tells whether it is still
 * wanted when it ends, and rf_map_preparer_done that it was shown. */
GCancellable *rf_map_preparer_start(rf_map_preparer *p);
void rf_map_preparer_done(rf_map_preparer *p);

#endif
