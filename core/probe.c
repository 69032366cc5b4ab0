#include "probe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/attention_pool.h"
#include "exec.h"
#include "graph_private.h"

static size_t buffer_floats(const rf_graph *g, const rf_node *n, rf_tap_what what)
{
    if (what == RF_TAP_AUX) {
        const rf_op_info *info = rf_op_infos[n->op];
        if (info->probe_aux_floats != NULL)
            return info->probe_aux_floats(g, n);
        return info->aux_floats ? info->aux_floats(g, n) : 0;
    }
    return (size_t)rf_shape_numel(n->shape);
}

/* Room for one more tap. */
static bool grow_taps(rf_graph *g)
{
    if (g->tap_count < g->tap_capacity)
        return true;
    int cap = g->tap_capacity ? 2 * g->tap_capacity : 32;
    rf_tap *taps = realloc(g->taps, (size_t)cap * sizeof *taps);
    if (taps == NULL)
        return false;
    g->taps = taps;
    g->tap_capacity = cap;
    return true;
}

bool rf_tap_add(rf_graph *g, const char *name, rf_id node, rf_tap_what what, rf_shape shape, int64_t offset)
{
    if (node < 0 || node >= g->count || strlen(name) >= RF_NAME_LEN || shape.ndim < 1)
        return false;
    rf_node *n = &g->nodes[node];
    if (offset < 0 || (size_t)(offset + rf_shape_numel(shape)) > buffer_floats(g, n, what) || !grow_taps(g))
        return false;
    rf_tap *t = &g->taps[g->tap_count++];
    *t = (rf_tap){.node = node, .what = what, .shape = shape, .offset = offset, .series = -1};
    snprintf(t->name, sizeof t->name, "%s", name);
    if (n->name[0] == '\0')
        rf_set_name(g, node, "%s", name);
    return true;
}

int rf_tap_series_add(rf_graph *g, const char *name, rf_tap_what what, int64_t batch, int64_t count)
{
    if (what == RF_TAP_AUX || batch < 1 || count < 1 || strlen(name) >= RF_NAME_LEN || !grow_taps(g))
        return -1;
    rf_tap *t = &g->taps[g->tap_count];
    *t = (rf_tap){.node = RF_NONE, .what = what, .shape = rf_shape3(batch, count, 1), .series = -1};
    snprintf(t->name, sizeof t->name, "%s", name);
    return g->tap_count++;
}

bool rf_tap_series_join(rf_graph *g, int series, int64_t row)
{
    if (series < 0 || series >= g->tap_count - 1)
        return false;
    const rf_tap *s = &g->taps[series];
    rf_tap *t = &g->taps[g->tap_count - 1];
    if (s->node != RF_NONE || t->node == RF_NONE || t->what != s->what || t->shape.dim[0] != s->shape.dim[0] ||
        row < 0 || row >= s->shape.dim[1])
        return false;
    t->series = series;
    t->row = row;
    return true;
}

int rf_tap_count(const rf_graph *g) { return g->tap_count; }

int64_t rf_tap_rows_per_sample(const rf_graph *g, rf_id node, int64_t rows)
{
    for (int i = 0; i < g->tap_count; i++)
        if (g->taps[i].node == node && g->taps[i].what == RF_TAP_AUX && g->taps[i].shape.dim[0] > 0)
            return rows / g->taps[i].shape.dim[0];
    return 1;
}
const rf_tap *rf_tap_get(const rf_graph *g, int i) { return &g->taps[i]; }

const rf_tap *rf_tap_find(const rf_graph *g, const char *name)
{
    for (int i = 0; i < g->tap_count; i++)
        if (strcmp(g->taps[i].name, name) == 0)
            return &g->taps[i];
    return NULL;
}

static rf_shape without_batch(rf_shape s)
{
    rf_shape r = {s.ndim - 1, {1, 1, 1, 1}};
    for (int i = 1; i < s.ndim; i++)
        r.dim[i - 1] = s.dim[i];
    return r;
}

void rf_probe_window_cells(const rf_probe_window *w, int64_t *rows, int64_t *cols)
{
    *rows = w->rows < w->r1 - w->r0 ? w->rows : w->r1 - w->r0;
    *cols = w->cols < w->c1 - w->c0 ? w->cols : w->c1 - w->c0;
}

/* The kernel that computes node n's pooled RF_TAP_AUX view on demand, from
 * what its forward keeps (full attention's probabilities from q, k and the
 * row log-sum-exps): plane p of out is batch row b0 + p / heads, head
 * p % heads. NULL: a pooled tap of it reads the buffer. */
typedef void (*pool_fn)(const rf_graph *g, const rf_node *n, int64_t b0, int64_t planes, const rf_probe_window *w,
                        float *out);
static pool_fn on_demand_pool(const rf_node *n)
{
    return n->op == RF_OP_ATTENTION ? rf_cpu_attention_pool : NULL;
}

/* A window that fits view `v` (without the batch); false with the reason. */
static bool window_ok(const rf_probe_window *w, rf_shape v, const char *name, rf_status *st)
{
    if (v.ndim < 2) {
        rf_fail(st, "probe '%s' has one dimension per sample: only maps (two or more) are pooled", name);
        return false;
    }
    int64_t n = v.dim[v.ndim - 2], m = v.dim[v.ndim - 1];
    if (w->r0 < 0 || w->r0 >= w->r1 || w->r1 > n || w->c0 < 0 || w->c0 >= w->c1 || w->c1 > m) {
        rf_fail(st, "probe '%s': the window rows [%lld, %lld) x columns [%lld, %lld) is not inside its %lld x %lld map",
                name, (long long)w->r0, (long long)w->r1, (long long)w->c0, (long long)w->c1, (long long)n,
                (long long)m);
        return false;
    }
    if (w->rows < 1 || w->cols < 1) {
        rf_fail(st, "probe '%s': a pooled map needs at least one cell each way (asked %lld x %lld)", name,
                (long long)w->rows, (long long)w->cols);
        return false;
    }
    if (w->reduce == RF_POOL_SPAN && (m % 2 != 0 || w->cols < w->c1 - w->c0)) {
        rf_fail(st, "probe '%s': --pool span needs a map of left then right bounds (an even number of columns, "
                "here %lld) with its columns unpooled (asked %lld cells for %lld columns)", name, (long long)m,
                (long long)w->cols, (long long)(w->c1 - w->c0));
        return false;
    }
    return true;
}

static int by_node(const void *a, const void *b)
{
    rf_id x = ((const rf_series_member *)a)->node, y = ((const rf_series_member *)b)->node;
    return (x > y) - (x < y);
}

/* By node, then by the value's index: a node's values in the set's order. */
static int by_node_then_index(const void *a, const void *b)
{
    const rf_series_member *x = a, *y = b;
    int c = by_node(a, b);
    return c != 0 ? c : (x->tap > y->tap) - (x->tap < y->tap);
}

/* Index series value v's members in graph g (the series is tap `series`):
 * one scan of the taps, then sorted by node for the hook's lookups. */
static bool index_members(const rf_graph *g, rf_probe_value *v, int series)
{
    int64_t n = 0;
    for (int i = 0; i < g->tap_count; i++)
        n += g->taps[i].series == series;
    rf_series_member *m = realloc(v->members, (size_t)(n > 0 ? n : 1) * sizeof *m);
    if (m == NULL)
        return false;
    v->members = m;
    v->n_members = 0;
    for (int i = 0; i < g->tap_count; i++)
        if (g->taps[i].series == series)
            m[v->n_members++] = (rf_series_member){g->taps[i].node, i};
    qsort(m, (size_t)n, sizeof *m, by_node);
    v->seen = 0;
    return true;
}

/* A series' value: its window over the rows (all of them when w is NULL:
 * one cell a row, the exact norms). */
static bool series_value(const rf_graph *g, const rf_tap *t, const rf_probe_window *w, rf_probe_value *v,
                         rf_status *st)
{
    int64_t count = t->shape.dim[1];
    v->window = w != NULL ? *w : (rf_probe_window){0, count, 0, 1, count, 1, RF_POOL_MAX};
    if (v->window.r1 == RF_POOL_END)
        v->window.r1 = count;
    if (v->window.c1 == RF_POOL_END)
        v->window.c1 = 1;
    if (v->window.reduce == RF_POOL_SPAN)
        return rf_fail(st, "probe '%s' is a series of norms: it pools by max or mean, not span", t->name);
    if (!window_ok(&v->window, v->shape, t->name, st))
        return false;
    v->pooled = w != NULL;
    rf_probe_window_cells(&v->window, &v->shape.dim[0], &v->shape.dim[1]);
    if (!index_members(g, v, (int)(t - g->taps)))
        return rf_fail(st, "out of memory for the members of probe '%s'", t->name);
    return true;
}

static rf_probe_set *new_set(const rf_graph *g, const char *const *names, const rf_probe_window *const *windows,
                             int n, int sample, rf_probe_reader read, void *ctx, rf_status *st);
static void index_values(const rf_graph *g, rf_probe_set *ps);

rf_probe_set *rf_probe_set_new(const rf_graph *g, const char *const *names, int n, int sample, rf_status *st)
{
    return new_set(g, names, NULL, n, sample, NULL, NULL, st);
}

rf_probe_set *rf_probe_set_new_pooled(const rf_graph *g, const char *const *names,
                                      const rf_probe_window *const *windows, int n, int sample, rf_status *st)
{
    return new_set(g, names, windows, n, sample, NULL, NULL, st);
}

rf_probe_set *rf_probe_set_new_streamed(const rf_graph *g, const char *const *names, int n, int sample,
                                        rf_probe_reader read, void *ctx, rf_status *st)
{
    if (sample == RF_PROBE_ALL_ROWS) {
        rf_fail(st, "a streamed probe reads one sample, not every row of a batch");
        return NULL;
    }
    return new_set(g, names, NULL, n, sample, read, ctx, st);
}

static rf_probe_set *new_set(const rf_graph *g, const char *const *names, const rf_probe_window *const *windows,
                             int n, int sample, rf_probe_reader read, void *ctx, rf_status *st)
{
    rf_probe_set *ps = calloc(1, sizeof *ps);
    bool all_rows = sample == RF_PROBE_ALL_ROWS;
    ps->sample = sample;
    ps->rows = 1;
    ps->graph = g;
    ps->read = read;
    ps->read_ctx = ctx;
    ps->values = calloc((size_t)(n > 0 ? n : 1), sizeof *ps->values);
    int next = 0;   /* names often come in the taps' order: try the tap after the last one first */
    for (int i = 0; i < n; i++) {
        const rf_tap *t = next < g->tap_count && strcmp(g->taps[next].name, names[i]) == 0 ? &g->taps[next]
                                                                                             : rf_tap_find(g, names[i]);
        if (t != NULL)
            next = (int)(t - g->taps) + 1;
        if (t == NULL) {
            char known[256] = "";
            for (int k = 0; k < g->tap_count && k < 6; k++) {
                strncat(known, k ? ", " : "", sizeof known - strlen(known) - 1);
                strncat(known, g->taps[k].name, sizeof known - strlen(known) - 1);
            }
            rf_fail(st, "no probe named '%s' in this model (known: %s%s; `rangefinder inspect --list`)",
                    names[i], known, g->tap_count > 6 ? ", ..." : "");
            rf_probe_set_free(ps);
            return NULL;
        }
        const rf_probe_window *w = windows != NULL ? windows[i] : NULL;
        if (all_rows && (t->what != RF_TAP_VALUE || w != NULL)) {
            rf_fail(st, "probe '%s' is not a whole value: only values are taken for every row of a batch", names[i]);
            rf_probe_set_free(ps);
            return NULL;
        }
        if (all_rows)
            ps->rows = (int)t->shape.dim[0];
        else if (sample < 0 || sample >= t->shape.dim[0]) {
            rf_fail(st, "sample %d is outside the batch of %lld", sample, (long long)t->shape.dim[0]);
            rf_probe_set_free(ps);
            return NULL;
        }
        rf_probe_value *v = &ps->values[ps->count++];
        snprintf(v->name, sizeof v->name, "%s", t->name);
        v->shape = without_batch(t->shape);
        v->tap = (int)(t - g->taps);
        if (t->node == RF_NONE) {
            if (all_rows || !series_value(g, t, w, v, st)) {
                if (all_rows)
                    rf_fail(st, "probe '%s' is a series: it is read for one sample, not every row", t->name);
                rf_probe_set_free(ps);
                return NULL;
            }
        } else if (w != NULL) {
            v->window = *w;
            if (v->shape.ndim >= 2 && w->r1 == RF_POOL_END)
                v->window.r1 = v->shape.dim[v->shape.ndim - 2];
            if (v->shape.ndim >= 2 && w->c1 == RF_POOL_END)
                v->window.c1 = v->shape.dim[v->shape.ndim - 1];
            if (!window_ok(&v->window, v->shape, t->name, st)) {
                rf_probe_set_free(ps);
                return NULL;
            }
            bool on_demand = t->what == RF_TAP_AUX && on_demand_pool(&g->nodes[t->node]) != NULL;
            if (v->window.reduce == RF_POOL_SPAN && on_demand) {
                rf_fail(st, "probe '%s' is computed on demand: it pools by max or mean, not span", t->name);
                rf_probe_set_free(ps);
                return NULL;
            }
            v->pooled = true;
            rf_probe_window_cells(&v->window, &v->shape.dim[v->shape.ndim - 2], &v->shape.dim[v->shape.ndim - 1]);
        }
        if (read == NULL || t->node == RF_NONE)   /* a streamed set keeps a series' cells only */
            v->data = malloc((size_t)ps->rows * (size_t)rf_shape_numel(v->shape) * sizeof(float));
    }
    index_values(g, ps);
    return ps;
}

size_t rf_probe_set_bytes(const rf_probe_set *ps)
{
    size_t bytes = 0;
    for (int i = 0; i < ps->count; i++)
        bytes += (ps->values[i].data != NULL ? (size_t)ps->rows * (size_t)rf_shape_numel(ps->values[i].shape) *
                                                   sizeof(float)
                                             : 0) +
                 (size_t)ps->values[i].n_members * sizeof(rf_series_member);
    return bytes;
}

/* RF_POOL_SPAN (probe.h): the columns are exact, the rows pooled. */
static void pool_span(const float *src, int64_t ld, const rf_probe_window *w, float *dst)
{
    int64_t rows, cols;
    rf_probe_window_cells(w, &rows, &cols);
    for (int64_t i = 0; i < rows; i++) {
        int64_t a0 = rf_pool_edge(w->r0, w->r1, rows, i), a1 = rf_pool_edge(w->r0, w->r1, rows, i + 1);
        for (int64_t j = 0; j < cols; j++) {
            int64_t b = w->c0 + j;
            bool left = b < ld / 2;
            float best = left ? INFINITY : -INFINITY;
            for (int64_t a = a0; a < a1; a++) {
                float x = src[a * ld + b] - (float)a;
                best = left ? (x < best ? x : best) : (x > best ? x : best);
            }
            dst[i * cols + j] = best;
        }
    }
}

void rf_pool_plane(const float *src, int64_t ld, const rf_probe_window *w, float *dst)
{
    if (w->reduce == RF_POOL_SPAN) {
        pool_span(src, ld, w, dst);
        return;
    }
    int64_t rows, cols;
    rf_probe_window_cells(w, &rows, &cols);
    for (int64_t i = 0; i < rows; i++) {
        int64_t a0 = rf_pool_edge(w->r0, w->r1, rows, i), a1 = rf_pool_edge(w->r0, w->r1, rows, i + 1);
        for (int64_t j = 0; j < cols; j++) {
            int64_t b0 = rf_pool_edge(w->c0, w->c1, cols, j), b1 = rf_pool_edge(w->c0, w->c1, cols, j + 1);
            double sum = 0;
            float mx = -INFINITY;
            for (int64_t a = a0; a < a1; a++)
                for (int64_t b = b0; b < b1; b++) {
                    float x = src[a * ld + b];
                    sum += x;
                    mx = x > mx ? x : mx;
                }
            dst[i * cols + j] = w->reduce == RF_POOL_MAX ? mx : (float)(sum / (double)((a1 - a0) * (b1 - b0)));
        }
    }
}

void rf_probe_set_free(rf_probe_set *ps)
{
    if (ps == NULL)
        return;
    for (int i = 0; i < ps->count; i++) {
        free(ps->values[i].data);
        free(ps->values[i].members);
    }
    free(ps->values);
    free(ps->by_node);
    free(ps->series);
    free(ps);
}

/* A pooled value of tap t from buffer `buf` (the probed sample's view
 * starts at `view`), or computed by its op on demand. */
static void pool_tap(rf_graph *g, const rf_probe_set *ps, rf_probe_value *v, const rf_tap *t, const float *view)
{
    const rf_node *n = &g->nodes[t->node];
    rf_shape full = without_batch(t->shape);
    int64_t m = full.dim[full.ndim - 1], plane = full.dim[full.ndim - 2] * m;
    int64_t cells = v->shape.dim[v->shape.ndim - 2] * v->shape.dim[v->shape.ndim - 1];
    int64_t planes = rf_shape_numel(full) / plane;
    if (t->what == RF_TAP_AUX && on_demand_pool(n) != NULL) {
        int64_t rows = rf_tap_rows_per_sample(g, t->node, n->shape.dim[0]);
        on_demand_pool(n)(g, n, ps->sample * rows, planes, &v->window, v->data);
    } else {
        for (int64_t p = 0; p < planes; p++)
            rf_pool_plane(view + p * plane, m, &v->window, v->data + p * cells);
    }
    v->filled = true;
}

/* Value v's tap in g: by the index it was made with, or by name (a set
 * made on another graph of the same model). */
static const rf_tap *tap_of(const rf_graph *g, const rf_probe_value *v)
{
    if (v->tap < g->tap_count && strcmp(g->taps[v->tap].name, v->name) == 0)
        return &g->taps[v->tap];
    return rf_tap_find(g, v->name);
}

/* Series value v: node `id`'s member, if it has one, adds its norm to the
 * cell of its row. The cells start as NaN (no member read) with the
 * pass's first member; a mean adds each norm over its cell's row count. */
static void add_member(rf_graph *g, const rf_probe_set *ps, rf_probe_value *v, rf_id id)
{
    rf_series_member key = {id, 0};
    const rf_series_member *m = bsearch(&key, v->members, (size_t)v->n_members, sizeof key, by_node);
    if (m == NULL)
        return;
    const rf_tap *t = &g->taps[m->tap];
    const rf_node *n = &g->nodes[id];
    const float *buf = t->what == RF_TAP_GRAD ? n->grad : n->value;
    if (buf == NULL)
        return;
    int64_t cells = v->shape.dim[0];
    if (!v->filled || v->seen >= v->n_members) {
        for (int64_t c = 0; c < cells; c++)
            v->data[c] = NAN;
        v->seen = 0;
        v->filled = true;
    }
    v->seen++;
    const rf_probe_window *w = &v->window;
    if (t->row < w->r0 || t->row >= w->r1)
        return;
    int64_t per_sample = rf_shape_numel(without_batch(t->shape));
    const float *view = buf + t->offset + ps->sample * per_sample;
    double sum = 0;
    for (int64_t e = 0; e < per_sample; e++)
        sum += (double)view[e] * view[e];
    float norm = (float)sqrt(sum);
    /* the cell whose rows [rf_pool_edge(i), rf_pool_edge(i + 1)) hold the row */
    int64_t span = w->r1 - w->r0, c = ((t->row - w->r0 + 1) * cells - 1) / span;
    float *cell = &v->data[c];
    if (w->reduce == RF_POOL_MAX) {
        *cell = isnan(*cell) || norm > *cell ? norm : *cell;
    } else {
        int64_t rows = rf_pool_edge(w->r0, w->r1, cells, c + 1) - rf_pool_edge(w->r0, w->r1, cells, c);
        *cell = (isnan(*cell) ? 0.0f : *cell) + norm / (float)rows;
    }
}

/* The hook's index of ps's values on graph g: each single tap's value
 * under its node (sorted, for bsearch), and the series apart (each of
 * them looks at every node for its members). A value with no tap in g
 * stays out (and unfilled). */
static void index_values(const rf_graph *g, rf_probe_set *ps)
{
    rf_series_member *by_node = realloc(ps->by_node, (size_t)(ps->count + 1) * sizeof *by_node);
    int *series = realloc(ps->series, (size_t)(ps->count + 1) * sizeof *series);
    if (by_node != NULL)
        ps->by_node = by_node;
    if (series != NULL)
        ps->series = series;
    ps->n_by_node = ps->n_series = 0;
    if (by_node == NULL || series == NULL)
        return;   /* out of memory: the set stays unfilled */
    for (int i = 0; i < ps->count; i++) {
        const rf_tap *t = tap_of(g, &ps->values[i]);
        if (t != NULL && t->node == RF_NONE)
            series[ps->n_series++] = i;
        else if (t != NULL)
            by_node[ps->n_by_node++] = (rf_series_member){t->node, i};
    }
    qsort(by_node, (size_t)ps->n_by_node, sizeof *by_node, by_node_then_index);
}

/* Where node id's values start in ps->by_node (n_by_node when it has none). */
static int first_of_node(const rf_probe_set *ps, rf_id id)
{
    int lo = 0, hi = ps->n_by_node;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (ps->by_node[mid].node < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The executor's hook: copy every requested tap of node `id` for the pass,
 * or hand it to a streamed set's reader. */
static void copy_taps(void *ctx, rf_graph *g, rf_id id, bool backward)
{
    rf_probe_set *ps = ctx;
    for (int s = 0; s < ps->n_series; s++) {
        rf_probe_value *v = &ps->values[ps->series[s]];
        if ((tap_of(g, v)->what == RF_TAP_GRAD) == backward)
            add_member(g, ps, v, id);
    }
    for (int e = first_of_node(ps, id); e < ps->n_by_node && ps->by_node[e].node == id; e++) {
        int i = ps->by_node[e].tap;
        rf_probe_value *v = &ps->values[i];
        const rf_tap *t = tap_of(g, v);
        if ((t->what == RF_TAP_GRAD) != backward)
            continue;
        const rf_node *n = &g->nodes[id];
        int64_t per_sample = rf_shape_numel(without_batch(t->shape));
        bool on_demand = t->what == RF_TAP_AUX && rf_op_infos[n->op]->probe_aux_floats != NULL;
        if (v->pooled && on_demand && on_demand_pool(n) != NULL) {
            pool_tap(g, ps, v, t, NULL);
            continue;
        }
        /* probe_aux holds the probed sample's rows only */
        bool own = t->what == RF_TAP_AUX && n->probe_aux != NULL;
        const float *buf = t->what == RF_TAP_VALUE ? n->value : t->what == RF_TAP_GRAD ? n->grad
                           : own                   ? n->probe_aux
                                                   : n->aux;
        if (buf == NULL || (on_demand && !own))
            continue;
        const float *view = buf + t->offset + (own || ps->sample == RF_PROBE_ALL_ROWS ? 0 : ps->sample * per_sample);
        if (v->data == NULL)
            ps->read(ps->read_ctx, i, view, per_sample);
        else if (v->pooled)
            pool_tap(g, ps, v, t, view);
        else if (ps->sample == RF_PROBE_ALL_ROWS)
            memcpy(v->data, view, (size_t)(ps->rows * per_sample) * sizeof(float));
        else
            memcpy(v->data, view, (size_t)per_sample * sizeof(float));
        v->filled = true;
    }
}

bool rf_probe_wants_aux(const rf_graph *g, rf_id id)
{
    if (g->probe != copy_taps)
        return g->probe != NULL;
    const rf_probe_set *ps = g->probe_ctx;
    for (int e = first_of_node(ps, id); e < ps->n_by_node && ps->by_node[e].node == id; e++) {
        const rf_probe_value *v = &ps->values[ps->by_node[e].tap];
        if (tap_of(g, v)->what == RF_TAP_AUX && !(v->pooled && on_demand_pool(&g->nodes[id]) != NULL))
            return true;
    }
    return false;
}

void rf_probe_attach(rf_graph *g, rf_probe_set *ps)
{
    /* another graph of the model (an outside input's): its series' members */
    for (int i = 0; ps != NULL && ps->graph != g && i < ps->count; i++) {
        const rf_tap *t = tap_of(g, &ps->values[i]);
        if (ps->values[i].members != NULL && (t == NULL || !index_members(g, &ps->values[i], (int)(t - g->taps))))
            ps->values[i].n_members = 0;   /* no such series there: it stays unfilled */
    }
    if (ps != NULL) {   /* again even for the same graph: a graph freed and another made where it was */
        index_values(g, ps);
        ps->graph = g;
    }
    rf_graph_set_probe(g, ps != NULL ? copy_taps : NULL, ps, ps != NULL && ps->sample > 0 ? ps->sample : 0);
}
