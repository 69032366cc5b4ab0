/* Graph storage and the leaf constructors. Op constructors live in core/ops/. */
#include "graph.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_private.h"
#include "op.h"
#include "params.h"
#include "probe.h"

int64_t rf_shape_numel(rf_shape s)
{
    int64_t n = 1;
    for (int i = 0; i < s.ndim; i++)
        n *= s.dim[i];
    return n;
}

bool rf_shape_equal(rf_shape a, rf_shape b)
{
    if (a.ndim != b.ndim)
        return false;
    for (int i = 0; i < a.ndim; i++)
        if (a.dim[i] != b.dim[i])
            return false;
    return true;
}

const char *rf_shape_str(rf_shape s, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < s.ndim && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, i ? ", %lld" : "%lld", (long long)s.dim[i]);
    if (used < size)
        snprintf(buf + used, size - used, "]");
    return buf;
}

rf_graph *rf_graph_new(rf_params *params)
{
    rf_graph *g = calloc(1, sizeof *g);
    if (g != NULL) {
        g->params = params;
        g->backend = &rf_cpu_backend;
        g->row_scope = RF_NONE;
        g->region = -1;
    }
    return g;
}

/* Node names' text, in chunks that live as long as the graph. */
typedef struct rf_name_chunk {
    struct rf_name_chunk *next;
    size_t used;
    char text[];
} rf_name_chunk;

#define NAME_CHUNK_BYTES 65536

void rf_graph_free(rf_graph *g)
{
    if (g == NULL)
        return;
    rf_graph_release(g);
    free(g->nodes);
    free(g->keep);
    while (g->names != NULL) {
        rf_name_chunk *next = g->names->next;
        free(g->names);
        g->names = next;
    }
    free(g->taps);
    free(g->region_kind);
    free(g);
}

int rf_graph_size(const rf_graph *g) { return g->count; }

size_t rf_graph_own_bytes(const rf_graph *g)
{
    /* the nodes in use: the doubling array's pages past them are never
     * touched, so they take no memory */
    size_t bytes = sizeof *g + (size_t)g->count * (sizeof *g->nodes + sizeof *g->keep) +
                   (size_t)g->tap_count * sizeof *g->taps + (size_t)g->region_count * sizeof *g->region_kind;
    for (const rf_name_chunk *c = g->names; c != NULL; c = c->next)
        bytes += sizeof *c + NAME_CHUNK_BYTES;
    if (g->on_backward != NULL)
        bytes += ((size_t)g->count + 1) * (sizeof *g->on_backward + sizeof *g->first_writer);
    return bytes + (size_t)g->step_count * sizeof *g->steps;
}

rf_params *rf_graph_params(rf_graph *g) { return g->params; }

rf_node *rf_graph_node(rf_graph *g, rf_id id)
{
    return (id >= 0 && id < g->count) ? &g->nodes[id] : NULL;
}

const rf_node *rf_graph_cnode(const rf_graph *g, rf_id id)
{
    return (id >= 0 && id < g->count) ? &g->nodes[id] : NULL;
}

float *rf_value(rf_graph *g, rf_id id)
{
    assert(g->nodes[id].dtype == RF_F32 && "rf_value reads floats: this node's value is bf16");
    return g->nodes[id].value;
}
float *rf_grad(rf_graph *g, rf_id id) { return g->nodes[id].grad; }
rf_shape rf_node_shape(const rf_graph *g, rf_id id) { return g->nodes[id].shape; }

rf_id rf_graph_find(const rf_graph *g, const char *name)
{
    for (int i = 0; i < g->count; i++)
        if (strcmp(g->nodes[i].name, name) == 0)
            return i;
    return RF_NONE;
}

static void name_node(rf_graph *g, rf_id id, const char *name)
{
    size_t len = strnlen(name, RF_NAME_LEN - 1);
    if (len == 0) {
        g->nodes[id].name = "";
        return;
    }
    rf_name_chunk *c = g->names;
    if (c == NULL || NAME_CHUNK_BYTES - c->used < len + 1) {
        if ((c = malloc(sizeof *c + NAME_CHUNK_BYTES)) == NULL) {
            rf_graph_fail(g, "out of memory naming node %d", id);
            return;
        }
        *c = (rf_name_chunk){.next = g->names};
        g->names = c;
    }
    char *text = c->text + c->used;
    memcpy(text, name, len);
    text[len] = '\0';
    c->used += len + 1;
    g->nodes[id].name = text;
}

void rf_set_name(rf_graph *g, rf_id id, const char *fmt, ...)
{
    if (id < 0 || id >= g->count)
        return;
    char name[RF_NAME_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    name_node(g, id, name);
}

bool rf_graph_ok(const rf_graph *g) { return !g->failed; }
const char *rf_graph_error(const rf_graph *g) { return g->error; }

rf_id rf_graph_fail(rf_graph *g, const char *fmt, ...)
{
    if (!g->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(g->error, sizeof g->error, fmt, ap);
        va_end(ap);
        g->failed = true;
    }
    return RF_NONE;
}

bool rf_graph_inputs_ok(const rf_graph *g, const rf_id *in, int n_in)
{
    if (g->failed)
        return false;
    for (int i = 0; i < n_in; i++)
        if (in[i] < 0 || in[i] >= g->count)
            return false;
    return true;
}

static rf_id append_node(rf_graph *g, rf_op op, rf_shape shape)
{
    if (g->prepared) {
        rf_graph_fail(g, "node added after the graph was prepared");
        return RF_NONE;
    }
    if (g->count == g->capacity) {
        int cap = g->capacity ? 2 * g->capacity : 256;
        /* each array kept as soon as it has moved: a failure leaves both
         * valid for rf_graph_free */
        rf_node *nodes = realloc(g->nodes, (size_t)cap * sizeof *nodes);
        if (nodes == NULL)
            return rf_graph_fail(g, "out of memory building the graph");
        g->nodes = nodes;
        bool *keep = realloc(g->keep, (size_t)cap * sizeof *keep);
        if (keep == NULL)
            return rf_graph_fail(g, "out of memory building the graph");
        g->keep = keep;
        g->capacity = cap;
    }
    rf_id id = g->count++;
    rf_node *n = &g->nodes[id];
    memset(n, 0, sizeof *n);
    n->op = op;
    n->shape = shape;
    n->name = "";
    n->param_index = -1;
    n->rows_by = RF_NONE;
    n->region = g->region;
    n->recompute_as = n->recompute_of = RF_NONE;
    g->keep[id] = false;
    return id;
}

rf_id rf_graph_append_copy(rf_graph *g, rf_id of)
{
    rf_id id = append_node(g, g->nodes[of].op, g->nodes[of].shape);
    if (id == RF_NONE)
        return RF_NONE;
    rf_node *n = &g->nodes[id];
    *n = g->nodes[of];
    n->name = "";
    n->region = -1;
    n->recompute_as = n->recompute_of = RF_NONE;
    return id;
}

void rf_graph_region(rf_graph *g, rf_region_kind kind)
{
    if (g->failed)
        return;
    if (kind == RF_REGION_NONE) {
        g->region = -1;
        return;
    }
    rf_region_kind *kinds = realloc(g->region_kind, (size_t)(g->region_count + 1) * sizeof *kinds);
    if (kinds == NULL) {
        rf_graph_fail(g, "out of memory building the graph");
        return;
    }
    g->region_kind = kinds;
    g->region_kind[g->region_count] = kind;
    g->region = g->region_count++;
}

rf_id rf_graph_add_op(rf_graph *g, rf_op op, const rf_id *in, int n_in, rf_shape shape)
{
    if (!rf_graph_inputs_ok(g, in, n_in))
        return RF_NONE;
    for (int i = 0; i < shape.ndim; i++)
        if (shape.dim[i] <= 0) {
            char buf[64];
            return rf_graph_fail(g, "op %s would make an empty tensor %s", rf_op_infos[op]->name,
                                 rf_shape_str(shape, buf, sizeof buf));
        }
    rf_id id = append_node(g, op, shape);
    if (id == RF_NONE)
        return RF_NONE;
    rf_node *n = &g->nodes[id];
    n->n_in = n_in;
    n->rows_by = g->row_scope;
    for (int i = 0; i < n_in; i++) {
        n->in[i] = in[i];
        n->needs_grad |= g->nodes[in[i]].needs_grad;
    }
    return id;
}

/* Whether node n may run on fewer batch rows (rf_graph_row_scope). */
static bool row_wise(const rf_graph *g, const rf_node *n, int64_t batch)
{
    switch (n->op) {
    case RF_OP_LINEAR:
    case RF_OP_ADD:
    case RF_OP_SUB:
    case RF_OP_MUL:
    case RF_OP_SCALE:
    case RF_OP_UNARY:
    case RF_OP_RESHAPE:
    case RF_OP_LAYERNORM:
    case RF_OP_DROPOUT:
    case RF_OP_ATTENTION:
        break;
    case RF_OP_CONCAT:
    case RF_OP_SLICE:
    case RF_OP_PAD:
        if (n->ia[0] == 0)
            return false;
        break;
    default:
        return false;
    }
    if (n->shape.ndim < 1 || n->shape.dim[0] != batch)
        return false;
    for (int k = 0; k < n->n_in; k++) {
        const rf_node *in = &g->nodes[n->in[k]];
        if (in->op != RF_OP_PARAM && (in->shape.ndim < 1 || in->shape.dim[0] != batch))
            return false;
    }
    return true;
}

void rf_graph_row_scope(rf_graph *g, rf_id rows_by)
{
    if (g->failed)
        return;
    if (g->row_scope != RF_NONE) {   /* closing: check what was added */
        int64_t batch = g->nodes[g->row_scope].shape.dim[0];
        for (rf_id i = g->row_scope_start; i < g->count; i++) {
            rf_node *n = &g->nodes[i];
            if (n->rows_by != RF_NONE && !row_wise(g, n, batch)) {
                rf_graph_fail(g, "row scope: %s node %d is not a row-wise op on [%lld, ...] tensors",
                              rf_op_infos[n->op]->name, i, (long long)batch);
                return;
            }
        }
    }
    if (rows_by != RF_NONE && (rows_by < 0 || rows_by >= g->count || g->nodes[rows_by].shape.ndim < 1)) {
        rf_graph_fail(g, "row scope: rows_by %d is not a [B, ...] node of the graph", rows_by);
        return;
    }
    g->row_scope = rows_by;
    g->row_scope_start = g->count;
}

rf_id rf_input(rf_graph *g, const char *name, rf_shape shape, bool needs_grad)
{
    if (g->failed)
        return RF_NONE;
    rf_id id = append_node(g, RF_OP_INPUT, shape);
    if (id == RF_NONE)
        return RF_NONE;
    name_node(g, id, name);
    g->nodes[id].needs_grad = needs_grad;
    return id;
}

rf_id rf_param(rf_graph *g, const char *name, rf_shape shape, rf_init init, float scale)
{
    if (g->failed)
        return RF_NONE;
    if (g->params == NULL)
        return rf_graph_fail(g, "parameter %s needs a graph with a parameter store", name);
    rf_status st = {0};
    int index = rf_params_register(g->params, name, shape, init, scale, &st);
    if (index < 0)
        return rf_graph_fail(g, "%s", st.msg);
    rf_id id = append_node(g, RF_OP_PARAM, shape);
    if (id == RF_NONE)
        return RF_NONE;
    name_node(g, id, name);
    g->nodes[id].needs_grad = !g->params_frozen;
    g->nodes[id].param_index = index;
    return id;
}

void rf_graph_freeze_params(rf_graph *g)
{
    g->params_frozen = true;
}
