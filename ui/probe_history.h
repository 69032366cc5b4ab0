/* Probe snapshots shared by reference, and the probe history of the run on
 * screen: one snapshot per evaluation, so the Attention, Latent and TaLK
 * views can go back to an earlier step.
 *
 * The session offers every snapshot of a data set sample it receives with
 * the step of the run's latest evaluation; the history keeps the first one
 * taken at or after each evaluation step (when no view watched between two
 * evaluations, that step has none) as a reduced copy:
 *
 *   - every map plane (the last two dims of a 3-dim tensor) whose sides both
 *     exceed RF_PROBE_HISTORY_SIDE is max-pooled (largest magnitude, as the
 *     heatmaps draw) to at most RF_PROBE_HISTORY_SIDE x RF_PROBE_HISTORY_SIDE:
 *     full attention's N x N maps; long-short bands, latent blocks, TaLK
 *     bounds and BLRP's segment maps have a small side and are kept whole;
 *   - a tensor still above RF_PROBE_HISTORY_TENSOR floats is left out;
 *   - the history holds at most RF_PROBE_HISTORY_BYTES (256 MiB) of floats:
 *     past that it drops every other stored step, oldest first, until it
 *     fits (the newest step always stays; a snapshot larger than the whole
 *     bound is not kept).
 *
 * No GTK (GLib only, for the reference counts): tests/test_probe_history.c
 * drives it headless. */
#ifndef RF_PROBE_HISTORY_H
#define RF_PROBE_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/data.h"
#include "../core/probe.h"

/* A snapshot shared by reference: a view that draws from it keeps it alive
 * past the next one. Any thread may acquire and release. */
typedef struct _RfProbeHold RfProbeHold;
RfProbeHold *rf_probe_hold_new(rf_probe_set *set);   /* takes the set over */
RfProbeHold *rf_probe_hold_acquire(RfProbeHold *h);
void rf_probe_hold_release(RfProbeHold *h);
const rf_probe_set *rf_probe_hold_get(const RfProbeHold *h);

/* The value named `name` in `ps` (NULL when absent or ps is NULL). */
const rf_probe_value *rf_probe_set_find(const rf_probe_set *ps, const char *name);

#define RF_PROBE_HISTORY_SIDE 128
#define RF_PROBE_HISTORY_TENSOR ((size_t)1 << 22)
#define RF_PROBE_HISTORY_BYTES ((size_t)256 << 20)

typedef struct rf_probe_history_entry {
    int64_t eval_step;    /* the evaluation it stands for */
    int64_t step;         /* the step it was taken at (>= eval_step) */
    rf_split split;       /* the sample it is of */
    int64_t sample;
    RfProbeHold *hold;    /* the reduced snapshot */
    rf_shape *full;       /* the shapes before pooling, one per value */
    size_t bytes;         /* its floats */
} rf_probe_history_entry;

typedef struct rf_probe_history rf_probe_history;

/* A history holding at most `cap_bytes` of floats (RF_PROBE_HISTORY_BYTES
 * in the workbench; tests use less). */
rf_probe_history *rf_probe_history_new(size_t cap_bytes);
void rf_probe_history_free(rf_probe_history *h);
/* A new run: forget every step. */
void rf_probe_history_clear(rf_probe_history *h);

/* A reduced copy of snapshot `ps` of sample `sample` of `split`, taken at
 * `step` when the run's latest evaluation was at `eval_step`, ready to add
 * (any thread: the worker makes it, so the UI thread never pools). False,
 * leaving *e empty, when nothing of it can be stored. */
bool rf_probe_history_entry_make(rf_probe_history_entry *e, int64_t eval_step, int64_t step, rf_split split,
                                 int64_t sample, const rf_probe_set *ps);
void rf_probe_history_entry_clear(rf_probe_history_entry *e);
/* Keep *e (taken over, left empty) when it is the first snapshot at or
 * after its evaluation and fits the bound, thinning older steps as needed;
 * returns whether it was kept. */
bool rf_probe_history_add(rf_probe_history *h, rf_probe_history_entry *e);
/* Both at once. */
bool rf_probe_history_offer(rf_probe_history *h, int64_t eval_step, int64_t step, rf_split split, int64_t sample,
                            const rf_probe_set *ps);

/* The stored steps, oldest first. */
int rf_probe_history_count(const rf_probe_history *h);
const rf_probe_history_entry *rf_probe_history_get(const rf_probe_history *h, int i);
/* The index of the stored step nearest to `eval_step` (the earlier on a
 * tie); -1 when empty. */
int rf_probe_history_nearest(const rf_probe_history *h, int64_t eval_step);
/* The floats held, in bytes (never above the cap). */
size_t rf_probe_history_bytes(const rf_probe_history *h);

/* Whether value `i` of the entry was pooled (its shape differs from the
 * shape it was taken with). */
bool rf_probe_history_entry_pooled(const rf_probe_history_entry *e, int i);

#endif
