/* The memory planner and the executor.
 *
 * Time runs over 2n slots for a graph of n nodes: forward of node i at slot
 * i, backward of node i at slot 2n-1-i (with rf_graph_recompute's clones,
 * the backward pass's steps follow the forward slots one slot each, the
 * clones' recomputation among them: build_steps). Every buffer (a value, a saved aux
 * tensor, an activation gradient) gets a live interval [birth, death] of
 * slots; buffers whose intervals overlap may not share memory. A greedy
 * first-fit by decreasing size packs them into one arena (core/plan_pack.c,
 * in O(n log n) set operations). Parameters and
 * their grads live in the parameter store, not in the arena.
 */
#include "exec.h"
#include "pool.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"
#include "bf16_storage.h"
#include "gemm.h"
#include "graph_private.h"
#include "params.h"
#include "plan_pack.h"

void rf_graph_keep(rf_graph *g, rf_id id)
{
    if (id >= 0 && id < g->count)
        g->keep[id] = true;
}

void rf_graph_set_param_ready(rf_graph *g, rf_param_ready_fn fn, void *ctx)
{
    g->param_ready = fn;
    g->param_ready_ctx = ctx;
}

void rf_graph_set_probe(rf_graph *g, rf_probe_fn fn, void *ctx, int64_t sample)
{
    g->probe = fn;
    g->probe_ctx = ctx;
    g->probe_sample = sample;
    if (fn == NULL && g->probe_space != NULL) {
        for (int i = 0; i < g->count; i++)   /* the views pointed into it */
            g->nodes[i].probe_aux = NULL;
        free(g->probe_space);
        g->probe_space = NULL;
        g->probe_space_floats = 0;
    }
}

float *rf_graph_probe_space(rf_graph *g, size_t floats)
{
    if (floats > g->probe_space_floats) {
        free(g->probe_space);
        g->probe_space = malloc(floats * sizeof(float));
        g->probe_space_floats = g->probe_space != NULL ? floats : 0;
    }
    return g->probe_space;
}

/* The arena and scratch live where the graph's kernels run. */
static void *arena_alloc(const rf_graph *g, size_t bytes)
{
    return g->backend->alloc != NULL ? g->backend->alloc(bytes) : rf_alloc(bytes);
}

static void arena_free(const rf_graph *g, void *p)
{
    if (g->backend->free != NULL)
        g->backend->free(p);
    else
        rf_free(p);
}

/* Wait for a device backend's queued kernels before the host reads. */
static void sync_device(const rf_graph *g)
{
    if (g->backend->sync != NULL)
        g->backend->sync();
}

rf_op rf_backend_missing_op(const rf_backend *b, const rf_graph *g)
{
    for (int i = 0; i < g->count; i++) {
        rf_op op = g->nodes[i].op;
        if (op != RF_OP_INPUT && op != RF_OP_PARAM && (b->forward[op] == NULL || b->backward[op] == NULL))
            return op;
    }
    return RF_OP_COUNT;
}

bool rf_backend_accepts(const rf_backend *b, const rf_graph *g, char *why, size_t size)
{
    for (int i = 0; b->accepts != NULL && i < g->count; i++)
        if (!b->accepts(g, &g->nodes[i], why, size))
            return false;
    return true;
}

void rf_graph_set_backend(rf_graph *g, const rf_backend *b)
{
    assert(!g->prepared && "set the backend before prepare");
    g->backend = b;
}

const rf_backend *rf_graph_backend(const rf_graph *g)
{
    return g->backend;
}

void rf_graph_release(rf_graph *g)
{
    if (!g->borrowed) {
        arena_free(g, g->arena);
        arena_free(g, g->scratch);
    }
    g->borrowed = false;
    g->arena_bytes = 0;
    free(g->on_backward);
    free(g->first_writer);
    free(g->steps);
    g->steps = NULL;
    g->step_count = 0;
    free(g->probe_space);
    g->probe_space = NULL;
    g->probe_space_floats = 0;
    g->arena = g->scratch = NULL;
    g->on_backward = NULL;
    g->first_writer = NULL;
    g->prepared = false;
}

static size_t aux_floats(const rf_graph *g, const rf_node *n)
{
    if (g->backend->aux_floats != NULL)
        return g->backend->aux_floats(g, n);
    const rf_op_info *info = rf_op_infos[n->op];
    return info->aux_floats ? info->aux_floats(g, n) : 0;
}

static size_t scratch_floats(const rf_graph *g, const rf_node *n, int threads)
{
    if (g->backend->scratch_floats != NULL)
        return g->backend->scratch_floats(g, n, threads);
    const rf_op_info *info = rf_op_infos[n->op];
    return info->scratch_floats ? info->scratch_floats(g, n, threads) : 0;
}

/* The nodes before rf_graph_recompute's clones: those the forward pass runs. */
static int originals(const rf_graph *g)
{
    return g->originals > 0 ? g->originals : g->count;
}

/* The node whose gradient buffer node i uses: a clone shares its
 * original's, so that gradients reaching a region's outputs from outside
 * it are where the region's recomputed backward reads them. */
static rf_id grad_owner(const rf_graph *g, rf_id i)
{
    return g->nodes[i].recompute_of != RF_NONE ? g->nodes[i].recompute_of : i;
}

/* The backward pass's steps: each node's backward in reverse order, a node
 * of a recomputed region replaced by its clone, and just before the
 * backward of a region's last node the forward of all its clones (in
 * their order). Without clones step k is node n-1-k's backward (slot
 * 2n-1-i, as before recomputation existed). */
static bool build_steps(rf_graph *g, rf_id loss)
{
    int n = originals(g), clones = g->count - n, regions = g->region_count;
    free(g->steps);
    g->steps = malloc((size_t)(n + clones + 1) * sizeof *g->steps);
    rf_id *first_clone = malloc((size_t)(regions + 1) * sizeof *first_clone);
    rf_id *last_node = malloc((size_t)(regions + 1) * sizeof *last_node);
    if (g->steps == NULL || first_clone == NULL || last_node == NULL) {
        free(first_clone);
        free(last_node);
        return false;
    }
    for (int r = 0; r < regions; r++)
        first_clone[r] = last_node[r] = RF_NONE;
    for (rf_id i = 0; i < n; i++) {
        const rf_node *node = &g->nodes[i];
        if (node->recompute_as == RF_NONE)
            continue;
        if (first_clone[node->region] == RF_NONE)
            first_clone[node->region] = node->recompute_as;
        last_node[node->region] = i;
    }
    int k = 0;
    for (rf_id i = n - 1; i >= 0; i--) {
        const rf_node *node = &g->nodes[i];
        if (node->recompute_as != RF_NONE && loss != RF_NONE && last_node[node->region] == i)
            for (rf_id c = first_clone[node->region]; c <= node->recompute_as; c++)
                g->steps[k++] = (rf_step){c, true};
        g->steps[k++] = (rf_step){node->recompute_as != RF_NONE ? node->recompute_as : i, false};
    }
    g->step_count = k;
    free(first_clone);
    free(last_node);
    return true;
}

/* Which nodes get a gradient: ancestors of `loss` that need one, walking
 * the backward steps; and, for each gradient buffer (grad_owner), the
 * node whose backward writes it first. */
static void mark_backward(rf_graph *g, rf_id loss, bool *on_backward, rf_id *first_writer)
{
    int n = g->count;
    for (int i = 0; i < n; i++) {
        on_backward[i] = false;
        first_writer[i] = RF_NONE;
    }
    if (loss == RF_NONE || !g->nodes[loss].needs_grad)
        return;
    on_backward[loss] = true;
    for (int s = 0; s < g->step_count; s++) {
        rf_id i = g->steps[s].node;
        if (g->steps[s].forward)
            continue;
        on_backward[i] |= on_backward[grad_owner(g, i)];
        if (!on_backward[i])
            continue;
        const rf_node *node = &g->nodes[i];
        for (int k = 0; k < node->n_in; k++) {
            rf_id j = node->in[k];
            if (!g->nodes[j].needs_grad)
                continue;
            on_backward[j] = on_backward[grad_owner(g, j)] = true;
            if (first_writer[grad_owner(g, j)] == RF_NONE)
                first_writer[grad_owner(g, j)] = i;
        }
    }
}

/* Whether node i's backward kernel runs (a recomputed node's clone runs
 * in its place). */
static bool runs_backward(const rf_graph *g, const bool *on_backward, rf_id i)
{
    return on_backward[i] && g->nodes[i].recompute_as == RF_NONE;
}

bool rf_graph_runs_backward(const rf_graph *g, rf_id id)
{
    return g->on_backward != NULL && id >= 0 && id < g->count && runs_backward(g, g->on_backward, id);
}

bool rf_graph_gets_grad(const rf_graph *g, rf_id id)
{
    return g->on_backward != NULL && id >= 0 && id < g->count && g->on_backward[id];
}

/* Build the buffer list with live intervals. Returns the count. Time runs
 * over the forward pass's slots (node i at slot i) and then the backward
 * steps' (step k at slot n + k); clones' values are born at their
 * recomputation. */
static int list_buffers(rf_graph *g, rf_id loss, const bool *on_backward, const rf_id *first_writer,
                        rf_plan_buffer *buf)
{
    int n = originals(g), count = g->count, nb = 0;
    int end = n + g->step_count;
    bool training = loss != RF_NONE;
    int *fwd_slot = malloc((size_t)count * sizeof *fwd_slot);
    int *bwd_slot = malloc((size_t)count * sizeof *bwd_slot);
    for (int i = 0; i < count; i++) {
        fwd_slot[i] = i < n ? i : -1;
        bwd_slot[i] = -1;
    }
    for (int s = 0; s < g->step_count; s++) {
        if (g->steps[s].forward)
            fwd_slot[g->steps[s].node] = n + s;
        else
            bwd_slot[g->steps[s].node] = n + s;
    }
    for (int i = 0; i < count; i++) {
        const rf_node *node = &g->nodes[i];
        if (fwd_slot[i] < 0)
            continue;   /* a clone that never runs (no backward) */
        int fwd = fwd_slot[i], bwd = bwd_slot[i];
        bool runs = runs_backward(g, on_backward, i);
        if (node->op != RF_OP_PARAM) {
            /* value; inputs stay whole for the step, so a caller may run
             * forward again without refilling them */
            int death = node->op == RF_OP_INPUT ? end : fwd;
            if (runs && (rf_op_infos[node->op]->flags & RF_BWD_READS_OUTPUT))
                death = bwd;
            if (g->keep[i])
                death = end;
            buf[nb++] = (rf_plan_buffer){i, 0, node->op == RF_OP_INPUT ? 0 : fwd, death, rf_value_floats(node), 0};
        }
        size_t aux = aux_floats(g, node);
        if (aux > 0)
            buf[nb++] = (rf_plan_buffer){i, 2, fwd, runs ? bwd : fwd, aux, 0};
        /* one gradient buffer per original, read by its own backward or
         * its clone's */
        if (training && on_backward[i] && node->op != RF_OP_PARAM && node->recompute_of == RF_NONE) {
            rf_id reader = node->recompute_as != RF_NONE ? node->recompute_as : i;
            int birth = bwd_slot[i == loss ? reader : first_writer[i]];
            int death = node->op == RF_OP_INPUT ? end : bwd_slot[reader];
            buf[nb++] = (rf_plan_buffer){i, 1, birth, death, (size_t)rf_shape_numel(node->shape), 0};
        }
    }
    /* extend value lifetimes to their consumers' forward and backward uses */
    int *value_slot = malloc((size_t)count * sizeof *value_slot);
    for (int i = 0; i < count; i++)
        value_slot[i] = -1;
    for (int b = 0; b < nb; b++)
        if (buf[b].kind == 0)
            value_slot[buf[b].node] = b;
    for (int c = 0; c < count; c++) {
        const rf_node *node = &g->nodes[c];
        if (fwd_slot[c] < 0)
            continue;
        bool reads_inputs = runs_backward(g, on_backward, c) && (rf_op_infos[node->op]->flags & RF_BWD_READS_INPUTS);
        for (int k = 0; k < node->n_in; k++) {
            int b = value_slot[node->in[k]];
            if (b < 0)
                continue;
            int use = reads_inputs ? bwd_slot[c] : fwd_slot[c];
            if (use > buf[b].death)
                buf[b].death = use;
        }
        /* a recomputed scoped node reads its row count again (the forward
         * pass's nodes find theirs alive: the scope's mask outlives them) */
        int by = node->recompute_of != RF_NONE && node->rows_by != RF_NONE ? value_slot[node->rows_by] : -1;
        if (by >= 0 && fwd_slot[c] > buf[by].death)
            buf[by].death = fwd_slot[c];
    }
    free(value_slot);
    free(fwd_slot);
    free(bwd_slot);
    return nb;
}

static bool plan(rf_graph *g, rf_id loss, int threads, rf_graph_plan_info *out, rf_plan_buffer **buf_out,
                 int *nb_out, rf_status *st)
{
    if (g->failed)
        return rf_fail(st, "graph construction failed: %s", g->error);
    int n = g->count;
    if (loss != RF_NONE && (loss < 0 || loss >= n))
        return rf_fail(st, "loss node %d is not in the graph", loss);
    if (g->backend == &rf_cpu_backend)
        rf_tiles_prepare(g);   /* the kernels' tiles first: the scratch is sized for them */
    free(g->on_backward);
    free(g->first_writer);
    g->on_backward = calloc((size_t)n + 1, sizeof *g->on_backward);
    g->first_writer = calloc((size_t)n + 1, sizeof *g->first_writer);
    rf_plan_buffer *buf = malloc((size_t)(3 * n + 1) * sizeof *buf);
    if (g->on_backward == NULL || g->first_writer == NULL || buf == NULL || !build_steps(g, loss)) {
        free(buf);
        return rf_fail(st, "out of memory planning the graph");
    }
    if (loss != RF_NONE && g->nodes[loss].recompute_as != RF_NONE) {
        free(buf);
        return rf_fail(st, "the loss node %d is inside a recomputed region", loss);
    }
    mark_backward(g, loss, g->on_backward, g->first_writer);
    rf_graph_bf16_storage(g, loss);
    int nb = list_buffers(g, loss, g->on_backward, g->first_writer, buf);

    rf_graph_plan_info info = {0};
    for (int b = 0; b < nb; b++)
        info.buffer_bytes += buf[b].floats * sizeof(float);
    size_t arena_floats = rf_plan_pack(buf, (size_t)nb);
    if (arena_floats == SIZE_MAX) {
        free(buf);
        return rf_fail(st, "out of memory planning the graph");
    }
    info.arena_bytes = arena_floats * sizeof(float);
    size_t scratch = 0;
    for (int i = 0; i < n; i++) {
        bool bwd_only = rf_op_infos[g->nodes[i].op]->flags & RF_SCRATCH_BWD_ONLY;
        size_t s = bwd_only && !g->on_backward[i] ? 0 : scratch_floats(g, &g->nodes[i], threads > 0 ? threads : 1);
        if (s > scratch)
            scratch = s;
        info.backward_nodes += g->on_backward[i];
    }
    info.scratch_bytes = rf_plan_round_up(scratch) * sizeof(float);
    g->loss = loss;
    g->planned_threads = threads > 0 ? threads : 1;
    if (out != NULL)
        *out = info;
    if (buf_out != NULL) {
        *buf_out = buf;
        *nb_out = nb;
    } else {
        free(buf);
    }
    return true;
}

bool rf_graph_plan(rf_graph *g, rf_id loss, int threads, rf_graph_plan_info *out, rf_status *st)
{
    return plan(g, loss, threads, out, NULL, NULL, st);
}

bool rf_graph_plan_buffers(rf_graph *g, rf_id loss, int threads, rf_plan_buffer **buf, int *count, rf_status *st)
{
    return plan(g, loss, threads, NULL, buf, count, st);
}

/* Choose the library for every matrix product the kernels will run
 * (core/gemm.h), now rather than in the first step. */
static void plan_products(rf_graph *g)
{
    if (g->backend->products == NULL)
        return;
    rf_gemm_list products = {0};
    for (int i = 0; i < g->count; i++) {
        const rf_node *node = &g->nodes[i];
        if (node->op == RF_OP_INPUT || node->op == RF_OP_PARAM)
            continue;
        g->backend->products(g, node, false, &products);
        if (runs_backward(g, g->on_backward, i))
            g->backend->products(g, node, true, &products);
    }
    rf_gemm_plan(products.items, products.count);
    rf_gemm_list_free(&products);
}

/* Plan g and place its arena and scratch: allocated, or inside host's. */
static bool prepare(rf_graph *g, const rf_graph *host, rf_id loss, int threads, rf_graph_plan_info *out,
                    rf_status *st)
{
    rf_graph_release(g);
    rf_plan_buffer *buf;
    int nb;
    rf_graph_plan_info info;
    if (!plan(g, loss, threads, &info, &buf, &nb, st))
        return false;
    size_t arena_bytes = info.arena_bytes ? info.arena_bytes : 64;
    size_t scratch_n = info.scratch_bytes / sizeof(float);
    if (host != NULL && (!host->prepared || host->backend != g->backend || arena_bytes > host->arena_bytes ||
                         scratch_n > host->scratch_floats)) {
        free(buf);
        return rf_fail(st, "the graph needs %zu arena and %zu scratch bytes; the graph it would share holds %zu "
                       "and %zu", arena_bytes, info.scratch_bytes, host->arena_bytes,
                       host->scratch_floats * sizeof(float));
    }
    rf_params *p = g->params;
    if (p != NULL && !rf_params_allocate(p, st)) {
        free(buf);
        return false;
    }
    if (host != NULL) {
        g->arena = host->arena;
        g->scratch = host->scratch;
        g->borrowed = true;
    } else {
        g->arena = arena_alloc(g, arena_bytes);
        g->scratch = arena_alloc(g, info.scratch_bytes ? info.scratch_bytes : 64);
    }
    g->arena_bytes = arena_bytes;
    g->scratch_floats = scratch_n;
    if (g->arena == NULL || g->scratch == NULL) {
        free(buf);
        rf_graph_release(g);
        return rf_fail(st, "out of memory: the graph needs %.1f MiB of activations",
                       (double)info.arena_bytes / 1048576.0);
    }
    for (int i = 0; i < g->count; i++) {
        rf_node *node = &g->nodes[i];
        node->value = node->grad = node->aux = NULL;
        node->probe_aux = NULL;
        node->aux_floats = aux_floats(g, node);
        if (node->op == RF_OP_PARAM) {
            size_t off = p->entries[node->param_index].offset;
            node->value = p->value + off;
            /* NULL: values only, or frozen */
            node->grad = p->grad != NULL && node->needs_grad ? p->grad + off : NULL;
        }
    }
    for (int b = 0; b < nb; b++) {
        rf_node *node = &g->nodes[buf[b].node];
        float *ptr = g->arena + buf[b].offset;
        if (buf[b].kind == 0)
            node->value = ptr;
        else if (buf[b].kind == 1)
            node->grad = ptr;
        else
            node->aux = ptr;
    }
    free(buf);
    for (int i = 0; i < g->count; i++)
        if (g->nodes[i].recompute_of != RF_NONE)
            g->nodes[i].grad = g->nodes[g->nodes[i].recompute_of].grad;
    plan_products(g);
    g->prepared = true;
    if (out != NULL)
        *out = info;
    return true;
}

bool rf_graph_prepare(rf_graph *g, rf_id loss, int threads, rf_graph_plan_info *out, rf_status *st)
{
    return prepare(g, NULL, loss, threads, out, st);
}

bool rf_graph_prepare_inside(rf_graph *g, const rf_graph *host, rf_id loss, int threads, rf_graph_plan_info *out,
                             rf_status *st)
{
    return prepare(g, host, loss, threads, out, st);
}

void rf_exec_init(rf_exec *x, rf_graph *g, rf_pool *pool, uint64_t seed, uint64_t step, bool training)
{
    assert(rf_pool_threads(pool) <= g->planned_threads && "the pool has more threads than the plan");
    x->g = g;
    x->pool = pool;
    x->scratch = g->scratch;
    x->scratch_floats = g->scratch_floats;
    x->seed = seed;
    x->step = step;
    x->training = training;
    x->probing = false;
    x->probe_sample = 0;
    x->queued = false;
    x->shard = 0;
    memset(x->fresh, 0, sizeof x->fresh);
}

void rf_graph_set_profile(rf_graph *g, rf_op_profile *p)
{
    g->profile = p;
}

bool rf_graph_host_hooks(const rf_graph *g)
{
    return g->probe != NULL || g->param_ready != NULL || g->profile != NULL;
}

const char *rf_op_name(rf_op op)
{
    return op >= 0 && op < RF_OP_COUNT ? rf_op_infos[op]->name : "?";
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The clock under a profile: a device that queues its kernels is waited
 * for first, so a kernel's time is its own run on the device (one launch
 * included), not the host's return from queueing it. */
static double profile_now(const rf_graph *g)
{
    if (g->backend->sync != NULL)
        g->backend->sync();
    return now_s();
}

static void run_kernel(rf_graph *g, rf_exec *x, rf_node *node, bool backward)
{
    const rf_backend *b = g->backend;
    rf_kernel k = backward ? b->backward[node->op] : b->forward[node->op];
    if (g->profile == NULL) {
        k(x, node);
        return;
    }
    double t0 = profile_now(g);
    k(x, node);
    g->profile->seconds[node->op][backward] += profile_now(g) - t0;
    g->profile->calls[node->op][backward]++;
}

/* ---- row scopes (graph.h, rf_graph_row_scope) ---- */

/* The rows a scoped node computes this pass: 1 + the last row whose first
 * element of rows_by is nonzero; every row where scopes are off (a device
 * backend, which would have to wait for the value; a probe attached). */
static int64_t active_rows(const rf_graph *g, const rf_exec *x, const rf_node *n)
{
    int64_t batch = n->shape.dim[0];
    if (n->rows_by == RF_NONE || g->backend != &rf_cpu_backend || x->probing)
        return batch;
    const rf_node *by = &g->nodes[n->rows_by];
    int64_t width = rf_shape_numel(by->shape) / by->shape.dim[0];
    int64_t rows = by->shape.dim[0] < batch ? by->shape.dim[0] : batch;
    while (rows > 0 && by->value[(rows - 1) * width] == 0.0f)
        rows--;
    return rows;
}

/* Give the node and its inputs other than parameters `rows` batch rows
 * (they all have the scope's batch, graph.c checked). */
static void set_rows(rf_graph *g, rf_node *n, int64_t rows)
{
    n->shape.dim[0] = rows;
    for (int k = 0; k < n->n_in; k++) {
        rf_node *in = &g->nodes[n->in[k]];
        if (in->op != RF_OP_PARAM)
            in->shape.dim[0] = rows;
    }
}

/* Zero rows [from, batch) of a [batch, ...] buffer of `size`-byte elements. */
static void zero_rows(void *p, size_t size, rf_shape s, int64_t from)
{
    int64_t width = rf_shape_numel(s) / s.dim[0];
    memset((char *)p + (size_t)(from * width) * size, 0, (size_t)((s.dim[0] - from) * width) * size);
}

/* A scoped node's forward on its active rows, the others zero. */
static void forward_rows(rf_graph *g, rf_exec *x, rf_node *node)
{
    int64_t batch = node->shape.dim[0], rows = active_rows(g, x, node);
    node->rows_active = rows;
    if (rows == batch) {
        run_kernel(g, x, node, false);
        return;
    }
    if (rows > 0) {
        set_rows(g, node, rows);
        run_kernel(g, x, node, false);
        set_rows(g, node, batch);
    }
    zero_rows(node->value, node->dtype == RF_BF16 ? sizeof(uint16_t) : sizeof(float), node->shape, rows);
}

/* Its backward: nothing from rows >= the forward's active rows; an input
 * gradient the kernel was to write (fresh) gets zeros there. */
static void backward_rows(rf_graph *g, rf_exec *x, rf_node *node)
{
    int64_t batch = node->shape.dim[0], rows = node->rows_active;
    if (rows == batch) {
        run_kernel(g, x, node, true);
        return;
    }
    if (rows > 0) {
        set_rows(g, node, rows);
        run_kernel(g, x, node, true);
        set_rows(g, node, batch);
    }
    for (int k = 0; k < node->n_in; k++) {
        rf_node *in = &g->nodes[node->in[k]];
        if (x->fresh[k] && in->grad != NULL)
            zero_rows(in->grad, sizeof(float), in->shape, rows);
    }
}

void rf_graph_forward(rf_graph *g, rf_exec *x)
{
    x->probing = g->probe != NULL;
    x->probe_sample = g->probe_sample;
    for (int i = 0; i < originals(g); i++) {
        rf_node *node = &g->nodes[i];
        if (node->op == RF_OP_INPUT || node->op == RF_OP_PARAM)
            continue;
        if (node->rows_by != RF_NONE)
            forward_rows(g, x, node);
        else
            run_kernel(g, x, node, false);
        if (g->probe != NULL && node->name[0] != '\0') {
            sync_device(g);
            g->probe(g->probe_ctx, g, i, false);
        }
    }
    if (!x->queued)
        sync_device(g);
}

typedef struct zero_job {
    float *p;
} zero_job;

static void zero_task(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    memset(((zero_job *)ctx)->p + begin, 0, (size_t)(end - begin) * sizeof(float));
}

/* Zero each activation gradient that `node`'s backward is the first to
 * write (in parallel: these are whole activations, megabytes each), or,
 * where the backend's kernel for this op can write instead of adding, mark
 * it fresh (x->fresh) and leave it. */
static void zero_first_written(rf_graph *g, rf_exec *x, const rf_node *node, int i)
{
    double t0 = g->profile != NULL ? profile_now(g) : 0;
    for (int k = 0; k < node->n_in; k++) {
        x->fresh[k] = false;
        rf_node *in = &g->nodes[node->in[k]];
        if (in->op == RF_OP_PARAM || in->grad == NULL || g->first_writer[grad_owner(g, node->in[k])] != i)
            continue;
        bool seen = false, twice = false;   /* the same input twice: zero once, never fresh */
        for (int j = 0; j < node->n_in; j++) {
            seen |= j < k && node->in[j] == node->in[k];
            twice |= j != k && node->in[j] == node->in[k];
        }
        if (seen)
            continue;
        if (!twice && (g->backend->fresh_grads[node->op] >> k & 1u)) {
            x->fresh[k] = true;
            continue;
        }
        if (g->backend->zero != NULL) {
            g->backend->zero(in->grad, rf_shape_numel(in->shape));
        } else {
            zero_job z = {in->grad};
            rf_pool_run(x->pool, rf_shape_numel(in->shape), 1 << 15, zero_task, &z);
        }
    }
    if (g->profile != NULL)
        g->profile->zero_seconds += profile_now(g) - t0;
}

void rf_graph_backward(rf_graph *g, rf_exec *x, const float *seed)
{
    x->probing = g->probe != NULL;
    x->probe_sample = g->probe_sample;
    rf_id loss = g->loss;
    if (loss == RF_NONE || !g->on_backward[loss])
        return;
    rf_node *ln = &g->nodes[loss];
    int64_t numel = rf_shape_numel(ln->shape);
    if (seed == NULL && g->backend->fill != NULL) {
        /* a device's seed of ones is a kernel: a step captured as a graph holds it */
        g->backend->fill(ln->grad, numel, 1.0f);
    } else if (seed != NULL && g->backend->upload != NULL) {
        /* in stream order: a queued step may still read the last seed */
        size_t bytes = (size_t)numel * sizeof(float);
        g->backend->upload(1, &ln->grad, &seed, &bytes);
    } else {
        for (int64_t e = 0; e < numel; e++)
            ln->grad[e] = seed != NULL ? seed[e] : 1.0f;
    }
    for (int s = 0; s < g->step_count; s++) {
        rf_id i = g->steps[s].node;
        rf_node *node = &g->nodes[i];
        if (g->steps[s].forward) {   /* recomputing a clone's value (core/recompute.h) */
            if (node->rows_by != RF_NONE)
                forward_rows(g, x, node);
            else
                run_kernel(g, x, node, false);
            continue;
        }
        if (!g->on_backward[i])
            continue;
        /* a clone's gradient is its original's: probes see it there */
        rf_id named = grad_owner(g, i);
        if (g->probe != NULL && g->nodes[named].name[0] != '\0') {
            sync_device(g);
            g->probe(g->probe_ctx, g, named, true);
        }
        if (node->op == RF_OP_PARAM && g->param_ready != NULL)
            g->param_ready(g->param_ready_ctx, g, i);
        if (node->op == RF_OP_INPUT || node->op == RF_OP_PARAM)
            continue;
        zero_first_written(g, x, node, i);
        if (node->rows_by != RF_NONE)
            backward_rows(g, x, node);
        else
            run_kernel(g, x, node, true);
    }
    if (!x->queued)
        sync_device(g);
}
