/* The pool and small ops on one thread (core/op_cost.h,
 * rf_pool_set_serial): a job's chunks have fixed bounds and the caller
 * claims a chunk a sleeping worker has not; the pool runs a job inline
 * while serial is set; a BLRP training step gives the
 * loss and every parameter gradient bit for bit whether its ops split over
 * two threads, run serially (then it hands the pool no job), or choose by
 * the default limit (fewer jobs); and at the
 * ListOps shapes the default limit sends most ops of a batch of one to one
 * thread and few of a batch of 32. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/exec.h"
#include "../core/model.h"
#include "../core/op_cost.h"
#include "../core/params.h"
#include "../core/pool.h"
#include "tap.h"

/* ---- the pool ---- */

typedef struct calls {
    pthread_mutex_t lock;
    pthread_t caller;
    int count;
    bool all_on_caller;       /* every call on the caller as thread 0 */
    int64_t n, items;         /* the job's size; items seen over all calls */
    int64_t first_end;        /* the end of the call that began at 0 */
} calls;

static void record(void *ctx, int64_t begin, int64_t end, int thread)
{
    calls *c = ctx;
    pthread_mutex_lock(&c->lock);
    c->count++;
    c->all_on_caller &= pthread_equal(pthread_self(), c->caller) && thread == 0;
    c->items += end - begin;
    if (begin == 0)
        c->first_end = end;
    pthread_mutex_unlock(&c->lock);
}

static calls run_job(rf_pool *pool, int64_t n)
{
    calls c = {PTHREAD_MUTEX_INITIALIZER, pthread_self(), 0, true, n, 0, -1};
    rf_pool_run(pool, n, 1, record, &c);
    return c;
}

static void pause_ms(int ms)
{
    struct timespec t = {0, ms * 1000000L};
    nanosleep(&t, NULL);
}

static void check_pool(void)
{
    rf_pool *pool = rf_pool_new(2);
    calls split = run_job(pool, 1000);
    rf_pool_set_serial(pool, true);
    calls serial = run_job(pool, 1000);
    rf_pool_set_serial(pool, false);
    calls again = run_job(pool, 1000);
    tap_ok(split.count == 2 && split.first_end == 500 && split.items == 1000,
           "a job of 1,000 items runs as two chunks, [0, 500) and [500, 1000), each once");
    tap_ok(serial.count == 1 && serial.all_on_caller && serial.first_end == 1000,
           "while serial, it runs as one call over [0, 1000) on the calling thread (%d calls)", serial.count);
    tap_ok(again.count == 2 && again.first_end == 500, "cleared, it splits again");
    /* chunks are claimed, not assigned: a worker that has gone to sleep
     * (its polls run out within a millisecond) wakes too late to claim a
     * chunk of two trivial ones, and the caller runs both */
    int alone = 0, whole = 0;
    for (int i = 0; i < 50; i++) {
        pause_ms(2);
        calls c = run_job(pool, 2);
        alone += c.count == 2 && c.all_on_caller;
        whole += c.count == 2 && c.items == 2;
    }
    tap_ok(whole == 50 && alone >= 1,
           "after the worker has slept, the caller claims both chunks itself in %d of 50 jobs (at least 1)", alone);
    rf_pool_free(pool);
}

/* ---- a BLRP step, split and serial ---- */

enum { BATCH = 4, SEQ = 256, VOCAB = 11, CLASSES = 5 };

/* Large enough that element-wise ops, LayerNorms, GELUs and attention
 * split over two threads when allowed; dropout on; rows of 256, 200, 90
 * and 17 tokens (the row scopes skip rows). */
static rf_config blrp_config(void)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.model.encoder, "blrp");
    cfg.model.dim = 32;
    cfg.model.heads = 4;
    cfg.model.ff = 64;
    cfg.model.layers = 2;
    cfg.model.dropout = 0.1f;
    cfg.model.segment = 32;
    cfg.model.latent = 16;
    strcpy(cfg.model.pos, "none");
    cfg.data.classes = CLASSES;
    cfg.data.vocab = VOCAB;
    cfg.train.threads = 2;
    return cfg;
}

typedef struct step_result {
    float loss;
    float *grads;
    size_t floats;
    int64_t handoffs;   /* jobs the step handed to the pool's worker */
} step_result;

static bool train_step(rf_pool *pool, double limit, step_result *out)
{
    rf_config cfg = blrp_config();
    rf_status st = {0};
    rf_params *p = rf_params_new(3);
    rf_model *m = rf_model_new(&cfg, BATCH, SEQ, 0, VOCAB, CLASSES, p, true, &st);
    if (m == NULL) {
        tap_diag("%s", st.msg);
        rf_params_free(p);
        return false;
    }
    rf_graph *g = m->graph;
    float *x = rf_value(g, m->x), *mask = rf_value(g, m->mask), *labels = rf_value(g, m->labels);
    static const int len[BATCH] = {SEQ, 200, 90, 17};
    for (int b = 0; b < BATCH; b++) {
        for (int t = 0; t < SEQ; t++) {
            x[b * SEQ + t] = t < len[b] ? (float)(1 + (7 * b + 3 * t) % (VOCAB - 1)) : 0.0f;
            mask[b * SEQ + t] = t < len[b] ? 1.0f : 0.0f;
        }
        labels[b] = (float)(b % CLASSES);
    }
    rf_op_set_serial_limit(limit);
    rf_params_zero_grads(p);
    rf_exec ex;
    rf_exec_init(&ex, g, pool, 5, 2, true);
    int64_t before = rf_pool_handoffs(pool);
    rf_graph_forward(g, &ex);
    rf_graph_backward(g, &ex, NULL);
    out->handoffs = rf_pool_handoffs(pool) - before;
    rf_op_set_serial_limit(-1);
    out->loss = rf_value(g, m->loss)[0];
    out->floats = p->total;
    out->grads = malloc(p->total * sizeof(float));
    memcpy(out->grads, p->grad, p->total * sizeof(float));
    rf_model_free(m);
    rf_params_free(p);
    return true;
}

/* The step with `limit` against the one that splits every op; it hands
 * the pool at most `most` jobs. */
static void check_same_bits(rf_pool *pool, const step_result *split, double limit, const char *what, int64_t most)
{
    step_result r;
    if (!tap_ok(train_step(pool, limit, &r), "a BLRP step runs with %s", what))
        return;
    tap_ok(r.handoffs <= most, "with %s it hands the pool %lld jobs (at most %lld)", what, (long long)r.handoffs,
           (long long)most);
    size_t first = split->floats;
    for (size_t i = 0; i < split->floats && first == split->floats; i++)
        if (memcmp(&split->grads[i], &r.grads[i], sizeof(float)) != 0)
            first = i;
    tap_ok(r.floats == split->floats && memcmp(&r.loss, &split->loss, sizeof(float)) == 0 && first == split->floats,
           "%s gives the loss and all %zu gradient floats of the split step bit for bit", what, split->floats);
    if (first < split->floats)
        tap_diag("gradient float %zu: %.9g split, %.9g with %s", first, (double)split->grads[first],
                 (double)r.grads[first], what);
    free(r.grads);
}

static void check_blrp_bits(void)
{
    rf_pool *pool = rf_pool_new(2);
    step_result split;
    if (!tap_ok(train_step(pool, 0, &split), "a BLRP step runs with every op split")) {
        rf_pool_free(pool);
        return;
    }
    bool nonzero = false;
    for (size_t i = 0; i < split.floats; i++)
        nonzero |= split.grads[i] != 0.0f;
    tap_ok(nonzero && split.handoffs > 100, "the split step has nonzero gradients and hands the pool %lld jobs",
           (long long)split.handoffs);
    check_same_bits(pool, &split, 1e30, "every op serial", 0);
    check_same_bits(pool, &split, RF_SERIAL_NS, "the default limit", split.handoffs - 1);
    free(split.grads);
    rf_pool_free(pool);
}

/* ---- which ops the default limit sends to one thread ---- */

/* The share of a planned BLRP training step's kernel calls (forward and
 * backward of every op node) that run serially at compare.sh's shapes. */
static double serial_share(int batch)
{
    rf_config cfg = blrp_config();
    cfg.model.dim = 64;
    cfg.model.heads = 8;
    cfg.model.ff = 128;
    cfg.model.segment = 100;
    cfg.model.latent = 100;
    cfg.model.dropout = 0;
    cfg.data.classes = 10;
    cfg.data.vocab = 20;
    rf_status st = {0};
    rf_params *p = rf_params_new(1);
    rf_model *m = rf_model_new(&cfg, batch, 2000, 0, 20, 10, p, false, &st);
    if (m == NULL) {
        tap_diag("%s", st.msg);
        rf_params_free(p);
        return -1;
    }
    rf_op_set_serial_limit(RF_SERIAL_NS);   /* the built-in limit, whatever the environment says */
    int serial = 0, ops = 0;
    for (rf_id i = 0; i < rf_graph_size(m->graph); i++) {
        const rf_node *n = rf_graph_cnode(m->graph, i);
        if (n->op == RF_OP_INPUT || n->op == RF_OP_PARAM)
            continue;
        for (int backward = 0; backward < 2; backward++) {
            ops++;
            serial += rf_op_runs_serial(m->graph, n, backward);
        }
    }
    rf_op_set_serial_limit(-1);
    rf_model_free(m);
    rf_params_free(p);
    return ops > 0 ? (double)serial / ops : -1;
}

static void check_default_limit(void)
{
    double one = serial_share(1), many = serial_share(32);
    tap_ok(one >= 0.2, "batch 1 at 2,000 tokens: %.0f%% of the kernel calls run serially (at least 20%%)", 100 * one);
    tap_ok(many >= 0 && many <= 0.1, "batch 32: %.0f%% of them (at most 10%%)", 100 * many);
}

int main(void)
{
    check_pool();
    check_blrp_bits();
    check_default_limit();
    return tap_done();
}
