/* Shared probe snapshots and the per-evaluation probe history (see
 * probe_history.h). */
#include "probe_history.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "plot/plot.h"

/* --- snapshots shared by reference --- */

struct _RfProbeHold {
    rf_probe_set *set;
};

RfProbeHold *rf_probe_hold_new(rf_probe_set *set)
{
    RfProbeHold *h = g_atomic_rc_box_new0(RfProbeHold);
    h->set = set;
    return h;
}

RfProbeHold *rf_probe_hold_acquire(RfProbeHold *h)
{
    return h != NULL ? g_atomic_rc_box_acquire(h) : NULL;
}

static void probe_hold_clear(gpointer data)
{
    rf_probe_set_free(((RfProbeHold *)data)->set);
}

void rf_probe_hold_release(RfProbeHold *h)
{
    if (h != NULL)
        g_atomic_rc_box_release_full(h, probe_hold_clear);
}

const rf_probe_set *rf_probe_hold_get(const RfProbeHold *h)
{
    return h != NULL ? h->set : NULL;
}

const rf_probe_value *rf_probe_set_find(const rf_probe_set *ps, const char *name)
{
    for (int i = 0; ps != NULL && i < ps->count; i++)
        if (strcmp(ps->values[i].name, name) == 0)
            return &ps->values[i];
    return NULL;
}

/* --- the history --- */

struct rf_probe_history {
    size_t cap, bytes;
    GArray *entries;   /* of rf_probe_history_entry, oldest first */
};

static void entry_clear(gpointer data)
{
    rf_probe_history_entry *e = data;
    rf_probe_hold_release(e->hold);
    g_free(e->full);
}

rf_probe_history *rf_probe_history_new(size_t cap_bytes)
{
    rf_probe_history *h = g_new0(rf_probe_history, 1);
    h->cap = cap_bytes;
    h->entries = g_array_new(FALSE, TRUE, sizeof(rf_probe_history_entry));
    g_array_set_clear_func(h->entries, entry_clear);
    return h;
}

void rf_probe_history_free(rf_probe_history *h)
{
    if (h == NULL)
        return;
    g_array_unref(h->entries);
    g_free(h);
}

void rf_probe_history_clear(rf_probe_history *h)
{
    g_array_set_size(h->entries, 0);
    h->bytes = 0;
}

/* The stored form of one value: map planes pooled to the side bound. */
static rf_shape reduced_shape(rf_shape s)
{
    if (s.ndim == 3 && s.dim[1] > RF_PROBE_HISTORY_SIDE && s.dim[2] > RF_PROBE_HISTORY_SIDE)
        s.dim[1] = s.dim[2] = RF_PROBE_HISTORY_SIDE;
    return s;
}

static void reduce_value(const rf_probe_value *src, rf_probe_value *dst)
{
    int64_t planes = src->shape.dim[0], rows = src->shape.dim[1], cols = src->shape.dim[2];
    int64_t to_rows = dst->shape.dim[1], to_cols = dst->shape.dim[2];
    if (rf_shape_numel(dst->shape) == rf_shape_numel(src->shape)) {
        memcpy(dst->data, src->data, (size_t)rf_shape_numel(src->shape) * sizeof(float));
        return;
    }
    for (int64_t p = 0; p < planes; p++)
        rf_heatmap_pool(src->data + p * rows * cols, (int)rows, (int)cols, dst->data + p * to_rows * to_cols,
                        (int)to_rows, (int)to_cols);
}

/* A reduced copy of the filled values of ps (NULL when none is left). */
static rf_probe_set *reduce(const rf_probe_set *ps, rf_shape **full, size_t *bytes)
{
    rf_probe_set *out = calloc(1, sizeof *out);
    out->sample = ps->sample;
    out->values = calloc((size_t)(ps->count > 0 ? ps->count : 1), sizeof *out->values);
    *full = g_new0(rf_shape, ps->count > 0 ? ps->count : 1);
    *bytes = 0;
    for (int i = 0; i < ps->count; i++) {
        const rf_probe_value *v = &ps->values[i];
        rf_shape s = reduced_shape(v->shape);
        size_t n = (size_t)rf_shape_numel(s);
        if (!v->filled || n > RF_PROBE_HISTORY_TENSOR)
            continue;
        rf_probe_value *d = &out->values[out->count];
        memcpy(d->name, v->name, sizeof d->name);
        d->shape = s;
        d->data = malloc(n * sizeof(float));
        d->filled = true;
        reduce_value(v, d);
        if (rf_shape_numel(s) == rf_shape_numel(v->shape)) {   /* kept whole: a pooled value keeps its window */
            d->pooled = v->pooled;
            d->window = v->window;
        }
        (*full)[out->count++] = v->shape;
        *bytes += n * sizeof(float);
    }
    if (out->count == 0) {
        rf_probe_set_free(out);
        g_clear_pointer(full, g_free);
        return NULL;
    }
    return out;
}

static void drop(rf_probe_history *h, guint i)
{
    h->bytes -= g_array_index(h->entries, rf_probe_history_entry, i).bytes;
    g_array_remove_index(h->entries, i);
}

/* Over the bound: drop every other stored step (the 2nd, 4th, ... counted
 * from the oldest; never the newest), pass after pass, until it fits. Each
 * pass halves the resolution of the whole run's history rather than
 * cutting a hole in it. */
static void thin(rf_probe_history *h)
{
    while (h->bytes > h->cap && h->entries->len > 1) {
        int len = (int)h->entries->len;
        if (len == 2)
            drop(h, 0);
        /* the odd indices below the newest, from the top so the lower ones stay put */
        for (int i = len - 2 - (len % 2 == 0); len > 2 && i >= 1; i -= 2)
            drop(h, (guint)i);
    }
}

bool rf_probe_history_entry_make(rf_probe_history_entry *e, int64_t eval_step, int64_t step, rf_split split,
                                 int64_t sample, const rf_probe_set *ps)
{
    *e = (rf_probe_history_entry){.eval_step = eval_step, .step = step, .split = split, .sample = sample};
    if (eval_step < 0 || step < eval_step || ps == NULL)
        return false;
    rf_probe_set *reduced = reduce(ps, &e->full, &e->bytes);
    if (reduced == NULL)
        return false;
    e->hold = rf_probe_hold_new(reduced);
    return true;
}

void rf_probe_history_entry_clear(rf_probe_history_entry *e)
{
    entry_clear(e);
    *e = (rf_probe_history_entry){0};
}

bool rf_probe_history_add(rf_probe_history *h, rf_probe_history_entry *e)
{
    int n = (int)h->entries->len;
    bool later = n == 0 || g_array_index(h->entries, rf_probe_history_entry, n - 1).eval_step < e->eval_step;
    if (e->hold == NULL || !later || e->bytes > h->cap) {
        rf_probe_history_entry_clear(e);
        return false;
    }
    g_array_append_val(h->entries, *e);
    h->bytes += e->bytes;
    *e = (rf_probe_history_entry){0};
    thin(h);
    return true;
}

bool rf_probe_history_offer(rf_probe_history *h, int64_t eval_step, int64_t step, rf_split split, int64_t sample,
                            const rf_probe_set *ps)
{
    rf_probe_history_entry e;
    return rf_probe_history_entry_make(&e, eval_step, step, split, sample, ps) && rf_probe_history_add(h, &e);
}

int rf_probe_history_count(const rf_probe_history *h)
{
    return (int)h->entries->len;
}

const rf_probe_history_entry *rf_probe_history_get(const rf_probe_history *h, int i)
{
    return i >= 0 && i < (int)h->entries->len ? &g_array_index(h->entries, rf_probe_history_entry, i) : NULL;
}

int rf_probe_history_nearest(const rf_probe_history *h, int64_t eval_step)
{
    int best = -1;
    int64_t best_d = 0;
    for (int i = 0; i < (int)h->entries->len; i++) {
        int64_t d = llabs(g_array_index(h->entries, rf_probe_history_entry, i).eval_step - eval_step);
        if (best < 0 || d < best_d) {
            best = i;
            best_d = d;
        }
    }
    return best;
}

size_t rf_probe_history_bytes(const rf_probe_history *h)
{
    return h->bytes;
}

bool rf_probe_history_entry_pooled(const rf_probe_history_entry *e, int i)
{
    const rf_probe_set *ps = rf_probe_hold_get(e->hold);
    return i >= 0 && i < ps->count && rf_shape_numel(ps->values[i].shape) != rf_shape_numel(e->full[i]);
}
