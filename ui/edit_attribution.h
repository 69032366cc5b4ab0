/* Live attribution of an edited input: gradient × input (one forward and
 * one backward pass) on a forward-only model of batch 1, planned once for
 * the data set's length and kept across edits while the session's model
 * stays the same (the same run at the same step); a new step or run builds
 * it again from a checkpoint of the model. Integrated gradients and
 * occlusion, which take many passes, stay in the Attribution view.
 *
 * The work runs on a thread, one at a time: an input asked for while one
 * is attributed waits, and a newer one replaces it (a stale input is never
 * attributed). The result is left as the input's attribution for the Data
 * view (shown_sample.h) and `done` is called on the main thread. Nothing
 * happens while the run trains or there is no model. */
#ifndef RF_EDIT_ATTRIBUTION_H
#define RF_EDIT_ATTRIBUTION_H

#include "session.h"

typedef void (*rf_edit_attributed)(GObject *owner);

/* `owner` is held weakly: once it is gone, done is not called. */
void rf_edit_attribute(RfSession *s, const rf_inspected *in, rf_edit_attributed done, GObject *owner);

#endif
