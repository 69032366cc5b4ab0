#include "grad_sync.h"

#include <stdlib.h>
#include <time.h>

typedef struct bucket {
    size_t begin, end;         /* floats of the gradient block */
    int waiting_for;           /* parameters on backward (fixed) */
    int pending;               /* of those, not yet complete this step */
    bool started;
} bucket;

struct rf_grad_sync {
    rf_graph *g;
    rf_params *p;
    rf_collective *c;
    bucket *buckets;
    int count;
    int *bucket_of;            /* parameter index -> bucket */
    rf_id *ready_at;           /* parameter index -> the node at which its gradient is complete, or RF_NONE */
    rf_grad_sync_stats stats;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

rf_grad_sync *rf_grad_sync_new(rf_graph *g, rf_params *p, rf_collective *c, size_t bucket_floats)
{
    rf_grad_sync *s = calloc(1, sizeof *s);
    s->g = g;
    s->p = p;
    s->c = c;
    s->buckets = calloc((size_t)p->count + 1, sizeof *s->buckets);
    s->bucket_of = malloc(((size_t)p->count + 1) * sizeof *s->bucket_of);
    s->ready_at = malloc(((size_t)p->count + 1) * sizeof *s->ready_at);
    /* Parameters lie in the block in registration order: cut it after a
     * parameter once the bucket holds bucket_floats. */
    size_t begin = 0;
    for (int e = 0; e < p->count; e++) {
        s->bucket_of[e] = s->count;
        s->ready_at[e] = RF_NONE;
        size_t end = e + 1 < p->count ? p->entries[e + 1].offset : p->total;
        if (end - begin >= bucket_floats || e + 1 == p->count) {
            s->buckets[s->count++] = (bucket){.begin = begin, .end = end};
            begin = end;
        }
    }
    /* A parameter used by several nodes is complete at the first of them. */
    int nodes = rf_graph_size(g);
    for (rf_id i = 0; i < nodes; i++) {
        const rf_node *n = rf_graph_cnode(g, i);
        if (n->op == RF_OP_PARAM && rf_graph_runs_backward(g, i) &&
            (s->ready_at[n->param_index] == RF_NONE || i < s->ready_at[n->param_index]))
            s->ready_at[n->param_index] = i;
    }
    for (int e = 0; e < p->count; e++)
        if (s->ready_at[e] != RF_NONE)
            s->buckets[s->bucket_of[e]].waiting_for++;
    s->stats.buckets = s->count;
    s->stats.floats = p->total;
    return s;
}

void rf_grad_sync_free(rf_grad_sync *s)
{
    if (s == NULL)
        return;
    rf_graph_set_param_ready(s->g, NULL, NULL);
    free(s->buckets);
    free(s->bucket_of);
    free(s->ready_at);
    free(s);
}

static void start(rf_grad_sync *s, bucket *b)
{
    b->started = true;
    if (b->end > b->begin)
        s->c->sum_start(s->c, s->p->grad + b->begin, b->end - b->begin);
}

static void on_param_ready(void *ctx, rf_graph *g, rf_id id)
{
    rf_grad_sync *s = ctx;
    int e = rf_graph_node(g, id)->param_index;
    if (s->ready_at[e] == id) {
        bucket *b = &s->buckets[s->bucket_of[e]];
        if (--b->pending == 0) {
            start(s, b);
            s->stats.started_in_backward++;
        }
    }
    s->c->progress(s->c);
}

void rf_grad_sync_begin(rf_grad_sync *s)
{
    for (int k = 0; k < s->count; k++) {
        s->buckets[k].pending = s->buckets[k].waiting_for;
        s->buckets[k].started = false;
    }
    s->stats.started_in_backward = 0;
    rf_graph_set_param_ready(s->g, on_param_ready, s);
}

static void finish(rf_grad_sync *s)
{
    for (int k = 0; k < s->count; k++)
        if (!s->buckets[k].started)
            start(s, &s->buckets[k]);
    s->c->sum_wait(s->c);
    float scale = 1.0f / (float)s->c->ranks;
    float *grad = s->p->grad;
    for (size_t i = 0; i < s->p->total; i++)
        grad[i] *= scale;
}

void rf_grad_sync_end(rf_grad_sync *s)
{
    rf_graph_set_param_ready(s->g, NULL, NULL);
    double t0 = now_s();
    finish(s);
    s->stats.wait_seconds += now_s() - t0;
    s->stats.steps++;
}

rf_grad_sync_stats rf_grad_sync_stats_get(const rf_grad_sync *s)
{
    return s->stats;
}

double rf_grad_sync_time_alone(rf_grad_sync *s)
{
    for (int k = 0; k < s->count; k++)
        s->buckets[k].started = false;
    double t0 = now_s();
    finish(s);
    return now_s() - t0;
}
