#include "probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

bool rf_tap_add(rf_graph *g, const char *name, rf_id node, rf_tap_what what, rf_shape shape, int64_t offset)
{
    if (node < 0 || node >= g->count || strlen(name) >= RF_NAME_LEN || shape.ndim < 1)
        return false;
    rf_node *n = &g->nodes[node];
    if (offset < 0 || (size_t)(offset + rf_shape_numel(shape)) > buffer_floats(g, n, what))
        return false;
    if (g->tap_count == g->tap_capacity) {
        int cap = g->tap_capacity ? 2 * g->tap_capacity : 32;
        rf_tap *taps = realloc(g->taps, (size_t)cap * sizeof *taps);
        if (taps == NULL)
            return false;
        g->taps = taps;
        g->tap_capacity = cap;
    }
    rf_tap *t = &g->taps[g->tap_count++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->node = node;
    t->what = what;
    t->shape = shape;
    t->offset = offset;
    if (n->name[0] == '\0')
        snprintf(n->name, RF_NAME_LEN, "%s", name);
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

rf_probe_set *rf_probe_set_new(const rf_graph *g, const char *const *names, int n, int sample, rf_status *st)
{
    rf_probe_set *ps = calloc(1, sizeof *ps);
    bool all_rows = sample == RF_PROBE_ALL_ROWS;
    ps->sample = sample;
    ps->rows = 1;
    ps->values = calloc((size_t)(n > 0 ? n : 1), sizeof *ps->values);
    for (int i = 0; i < n; i++) {
        const rf_tap *t = rf_tap_find(g, names[i]);
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
        if (all_rows && t->what != RF_TAP_VALUE) {
            rf_fail(st, "probe '%s' is not a value: only values are taken for every row of a batch", names[i]);
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
        v->data = malloc((size_t)ps->rows * (size_t)rf_shape_numel(v->shape) * sizeof(float));
    }
    return ps;
}

void rf_probe_set_free(rf_probe_set *ps)
{
    if (ps == NULL)
        return;
    for (int i = 0; i < ps->count; i++)
        free(ps->values[i].data);
    free(ps->values);
    free(ps);
}

/* The executor's hook: copy every requested tap of node `id` for the pass. */
static void copy_taps(void *ctx, rf_graph *g, rf_id id, bool backward)
{
    rf_probe_set *ps = ctx;
    for (int i = 0; i < ps->count; i++) {
        rf_probe_value *v = &ps->values[i];
        const rf_tap *t = rf_tap_find(g, v->name);
        if (t->node != id || (t->what == RF_TAP_GRAD) != backward)
            continue;
        const rf_node *n = &g->nodes[id];
        int64_t per_sample = rf_shape_numel(v->shape);
        /* probe_aux holds the probed sample's rows only */
        bool own = t->what == RF_TAP_AUX && n->probe_aux != NULL;
        const float *buf = t->what == RF_TAP_VALUE ? n->value : t->what == RF_TAP_GRAD ? n->grad
                           : own                   ? n->probe_aux
                                                   : n->aux;
        if (buf == NULL || (t->what == RF_TAP_AUX && !own && rf_op_infos[n->op]->probe_aux_floats != NULL))
            continue;
        if (ps->sample == RF_PROBE_ALL_ROWS)
            memcpy(v->data, buf + t->offset, (size_t)(ps->rows * per_sample) * sizeof(float));
        else
            memcpy(v->data, buf + t->offset + (own ? 0 : ps->sample * per_sample),
                   (size_t)per_sample * sizeof(float));
        v->filled = true;
    }
}

void rf_probe_attach(rf_graph *g, rf_probe_set *ps)
{
    rf_graph_set_probe(g, ps != NULL ? copy_taps : NULL, ps, ps != NULL && ps->sample > 0 ? ps->sample : 0);
}
