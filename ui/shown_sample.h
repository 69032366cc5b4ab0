/* The sample the Data view shows, and the last attribution computed for
 * it, shared between the Data view (which sets the sample and draws the
 * attribution over it when asked) and the Attribution view (which explains
 * that sample and leaves its result here). Kept on the session object, so
 * neither view needs the other. */
#ifndef RF_SHOWN_SAMPLE_H
#define RF_SHOWN_SAMPLE_H

#include "../core/attribution.h"
#include "session.h"

/* The Data view shows sample `index` of `split`, or the inspected input
 * `in` (not NULL: split and index are ignored), or nothing (index < 0). */
void rf_shown_sample_set(RfSession *s, rf_split split, int64_t index, const rf_inspected *in);
/* What it shows: FALSE when nothing. *in is NULL for a data set sample. */
gboolean rf_shown_sample_get(RfSession *s, rf_split *split, int64_t *index, const rf_inspected **in);

/* The attribution computed for a sample (as rf_shown_sample_get names it);
 * values copied. Replaces any other. */
void rf_shown_attribution_set(RfSession *s, rf_split split, int64_t index, const rf_inspected *in,
                              const rf_attribution *a, rf_attr_method method);
/* The last attribution if it is of that sample (NULL otherwise): len
 * values, by `method`. Borrowed until the next set. */
const float *rf_shown_attribution_get(RfSession *s, rf_split split, int64_t index, const rf_inspected *in, int *len,
                                      rf_attr_method *method);

#endif
