/* The Data view's editor of the shown sample's text (a ListOps expression,
 * a text typed in): an edit, once typing pauses, is featurised off the UI
 * thread and takes the place of the inspected input it edits (a data set
 * sample gets an inspected copy, "edited sample 12", the data set is never
 * changed); the session then watches it, so the worker re-reads the
 * prediction and the maps the views show on its batch-1 forward model,
 * and its gradient × input is computed on a kept model of its own.
 * A newer edit cancels the one in flight: a stale result is never shown.
 * An input the data set cannot featurise is said in one sentence under
 * the field, and the last good result stays. */
#ifndef RF_SAMPLE_EDITOR_H
#define RF_SAMPLE_EDITOR_H

#include <gtk/gtk.h>

#include "../edit_attribution.h"
#include "../session.h"

/* Quiet time after the last keystroke before the edit is featurised. */
#define RF_SAMPLE_EDIT_DEBOUNCE_MS 40

/* The editor: a labelled text field and the line for refusals, hidden
 * until a sample with a text form is shown; its edits go to the session
 * attached (once, before any is shown), and each edit's gradient × input
 * (edit_attribution.h) calls `attributed` with `owner` once it is left as
 * the input's attribution. */
GtkWidget *rf_sample_editor_new(void);
void rf_sample_editor_attach(GtkWidget *editor, RfSession *s, rf_edit_attributed attributed, GObject *owner);

/* Show the text of the sample shown: inspected `in`, or sample `index` of
 * `split` (in NULL) of `ds`; hidden when ds is NULL or the sample has no
 * text form. The field keeps its cursor when it already holds that text
 * (the input its own edit made). */
void rf_sample_editor_show(GtkWidget *editor, const rf_dataset *ds, rf_split split, int64_t index,
                           const rf_inspected *in);

#endif
