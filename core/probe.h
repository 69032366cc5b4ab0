/* Probes: named taps on a model's tensors, read for one sample of a batch.
 *
 * While a model is built, mechanisms declare what is worth looking at with
 * rf_tap: a name ("layer0.attn.probs", "blrp.latent.fwd.3",
 * "talk.layer1.bounds"), the node, which of its buffers (value, saved aux,
 * gradient) and how to view it (a shape whose first dim is the batch).
 * A caller (the GUI, `rangefinder inspect`) makes an rf_probe_set with the
 * names it wants and attaches it to the graph; during the next forward and
 * backward the executor's probe hook copies those tensors for the chosen
 * sample. With no set attached, a step costs one pointer test per named node.
 */
#ifndef RF_PROBE_H
#define RF_PROBE_H

#include "graph.h"

typedef enum rf_tap_what { RF_TAP_VALUE, RF_TAP_AUX, RF_TAP_GRAD } rf_tap_what;

typedef struct rf_tap {
    char name[RF_NAME_LEN];
    rf_id node;            /* RF_NONE for a series */
    rf_tap_what what;
    rf_shape shape;        /* view of the buffer; dim[0] is the batch */
    int64_t offset;        /* floats into the buffer where the view starts */
    int series;            /* a series' member: the series' tap index; -1 otherwise */
    int64_t row;           /* a series' member: its row of the series */
} rf_tap;

/* Declare a tap (the node gets a name if it has none, so the executor's hook
 * sees it). `shape.dim[0]` must be the batch; numel(shape) floats from
 * `offset` must lie inside the buffer. Returns false on a bad view. */
bool rf_tap_add(rf_graph *g, const char *name, rf_id node, rf_tap_what what, rf_shape shape, int64_t offset);

/* A series: one tap spanning many nodes, one row each (BLRP's latent of
 * every segment, blrp.latent.<pass>.norms), viewed per sample as
 * [count, 1]: row r is the L2 norm of member r's view for the probed
 * sample. A probe of it never keeps a member whole: each member's norm goes
 * into its row (or, pooled, into the cell of its row, max or mean) as the
 * pass computes it, so a series of 10,000 members costs its cells and an
 * index of its members. Members are ordinary taps (RF_TAP_VALUE or
 * RF_TAP_GRAD, as the series) that stay readable by their own names.
 * rf_tap_series_add returns the series' index (for rf_tap_series_join), or
 * -1 on a bad shape. */
int rf_tap_series_add(rf_graph *g, const char *name, rf_tap_what what, int64_t batch, int64_t count);
/* The tap added last becomes row `row` of series `series`; false when it
 * does not fit (another batch or kind, a row outside the series). */
bool rf_tap_series_join(rf_graph *g, int series, int64_t row);

int rf_tap_count(const rf_graph *g);
/* How many rows of node `node`'s own batch (`rows`, its dim 0) one sample
 * of its RF_TAP_AUX taps spans (BLRP's segment attention: a sample's T
 * segments); 1 when it has none. A kernel that computes a tap's view on
 * demand (rf_op_info.probe_aux_floats) computes the probed sample's. */
int64_t rf_tap_rows_per_sample(const rf_graph *g, rf_id node, int64_t rows);
const rf_tap *rf_tap_get(const rf_graph *g, int i);
const rf_tap *rf_tap_find(const rf_graph *g, const char *name);

/* A pooled view of a tap: the window [r0, r1) x [c0, c1) of the last two
 * dims of its view (per sample: an attention map's queries and keys, TaLK's
 * tokens and bounds), reduced to at most rows x cols cells, each the max or
 * the mean of the values it covers. Cell i of n over [lo, hi) covers
 * [rf_pool_edge(lo, hi, n, i), rf_pool_edge(lo, hi, n, i + 1)): with
 * n = hi - lo every cell is one value, the exact map.
 *
 * RF_POOL_SPAN is for maps whose rows are tokens and whose columns are the
 * left bounds of windows, then as many right bounds, as absolute positions
 * (TaLK's [a^l, a^r] per head): each value is taken relative to its row
 * (x - row) and a cell is the smallest left offset or the largest right
 * offset of its rows, so a pooled column still shows the widest window of
 * its tokens. Its columns are never pooled (the window's cols must cover
 * c1 - c0) and the map must have an even number of columns. */
typedef enum rf_pool_reduce { RF_POOL_MAX, RF_POOL_MEAN, RF_POOL_SPAN } rf_pool_reduce;

/* r1 or c1: the map's own end */
#define RF_POOL_END (-1)

typedef struct rf_probe_window {
    int64_t r0, r1, c0, c1;    /* r1, c1 may be RF_POOL_END */
    int64_t rows, cols;    /* at most this many cells (fewer when the window is smaller) */
    rf_pool_reduce reduce;
} rf_probe_window;

static inline int64_t rf_pool_edge(int64_t lo, int64_t hi, int64_t n, int64_t i)
{
    return lo + i * (hi - lo) / n;
}

/* A snapshot of chosen taps for one sample. */
/* A series' member as a probe finds it (sorted by node). */
typedef struct rf_series_member {
    rf_id node;
    int32_t tap;
} rf_series_member;

typedef struct rf_probe_value {
    char name[RF_NAME_LEN];
    rf_shape shape;        /* the tap's shape without the batch dim; pooled: its
                              last two dims are the window's cells */
    float *data;           /* numel(shape) floats, malloc'd; NULL in a streamed set (but a series') */
    bool filled;           /* set once the pass that produces it ran */
    bool pooled;           /* `window` says what data holds */
    rf_probe_window window;
    int tap;               /* the tap's index when the set was made (checked by name before use) */
    rf_series_member *members;   /* a series: its members, sorted by node; NULL otherwise */
    int64_t n_members, seen;     /* a series: members, and those read since its cells were reset */
} rf_probe_value;

/* rf_probe_set.sample for a set that copies every row of the batch
 * (value taps only): each value then holds batch x numel(shape) floats. */
#define RF_PROBE_ALL_ROWS (-1)

/* A streamed set's reader: value `value`'s view for the probed sample, n
 * floats, while the pass that produced it still holds it (see
 * rf_probe_set_new_streamed). */
typedef void (*rf_probe_reader)(void *ctx, int value, const float *view, int64_t n);

typedef struct rf_probe_set {
    int sample;            /* batch row to copy, or RF_PROBE_ALL_ROWS */
    int rows;              /* rows each value holds: 1, or the batch */
    int count;
    rf_probe_value *values;
    const rf_graph *graph;    /* the graph its series' member indexes are for (rf_probe_attach redoes them) */
    rf_probe_reader read;     /* a streamed set's reader; NULL: values are copied */
    void *read_ctx;
    /* For the hook, on `graph`: the values of single taps as (node, value
     * index) sorted by node, and the values that are series. */
    rf_series_member *by_node;
    int n_by_node;
    int *series;
    int n_series;
} rf_probe_set;

/* Make a set for the named taps (fails naming the first unknown tap and
 * listing a few known ones). With sample RF_PROBE_ALL_ROWS it takes the
 * whole batch of each value tap (a projector's pooled vectors). */
rf_probe_set *rf_probe_set_new(const rf_graph *g, const char *const *names, int n, int sample, rf_status *st);
/* The same with a window per tap (windows[i] NULL, or windows NULL: the
 * whole view; a series' window is over its rows, the members, and its one
 * column). A pooled tap of full attention's probabilities is computed
 * block by block from the probed sample's queries, keys and row
 * log-sum-exps (core/cpu/attention_pool.h): nothing N x M is allocated, only
 * the cells. Fails naming the tap on a window outside its view, or on a
 * view with fewer than two dims per sample. */
rf_probe_set *rf_probe_set_new_pooled(const rf_graph *g, const char *const *names,
                                      const rf_probe_window *const *windows, int n, int sample, rf_status *st);
/* A set that keeps no copies: as the pass produces each requested tap,
 * the hook hands the probed sample's view to `read` (a summary taken in
 * place), and the value's data stays NULL; only a series keeps its cells,
 * one norm a member, as in any set. So a set of every tap of a long model
 * adds its series' cells to the run's memory, not a copy of each tensor
 * (which at a million tokens would be several times the plan). A tap
 * computed on demand (rf_op_info.probe_aux_floats) still takes the probe
 * space of its view for the sample. */
rf_probe_set *rf_probe_set_new_streamed(const rf_graph *g, const char *const *names, int n, int sample,
                                        rf_probe_reader read, void *ctx, rf_status *st);
/* Bytes the set's values hold, a series' index of its members included
 * (what a probe adds to a run, with the probe space of
 * rf_graph_probe_space). */
size_t rf_probe_set_bytes(const rf_probe_set *ps);
/* Pool one plane: src [.., ld] read at rows w->r0.. and columns w->c0..,
 * into dst [cells rows, cells cols] (rf_probe_window_cells). */
void rf_pool_plane(const float *src, int64_t ld, const rf_probe_window *w, float *dst);
/* The cells a window gives: min(rows, r1 - r0) x min(cols, c1 - c0). */
void rf_probe_window_cells(const rf_probe_window *w, int64_t *rows, int64_t *cols);
/* Whether the attached probe wants node `id`'s whole probe_aux layout
 * (rf_op_info.probe_aux_floats): false when no tap of it is asked for, or
 * only pooled ones, which the hook computes on demand instead. */
bool rf_probe_wants_aux(const rf_graph *g, rf_id id);
void rf_probe_set_free(rf_probe_set *ps);

/* Attach (or detach with NULL) a set: subsequent forward/backward passes fill it. */
void rf_probe_attach(rf_graph *g, rf_probe_set *ps);

#endif
