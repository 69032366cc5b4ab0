/* The thread pool (core/pool.h): a job's chunks have fixed bounds, each
 * run once, and the caller claims a chunk a sleeping worker has not. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

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

static calls run_job(rf_pool *pool, int64_t n, int64_t grain)
{
    calls c = {PTHREAD_MUTEX_INITIALIZER, pthread_self(), 0, true, n, 0, -1};
    rf_pool_run(pool, n, grain, record, &c);
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
    calls split = run_job(pool, 1000, 1);
    tap_ok(split.count == 2 && split.first_end == 500 && split.items == 1000,
           "a job of 1,000 items runs as two chunks, [0, 500) and [500, 1000), each once");
    calls small = run_job(pool, 1000, 600);
    tap_ok(small.count == 1 && small.all_on_caller && small.first_end == 1000,
           "a job of 1,000 items with a grain of 600 runs inline, one call on the calling thread (%d calls)",
           small.count);
    /* chunks are claimed, not assigned: a worker that has gone to sleep
     * (its polls run out within a millisecond) wakes too late to claim a
     * chunk of two trivial ones, and the caller runs both */
    int alone = 0, whole = 0;
    for (int i = 0; i < 50; i++) {
        pause_ms(2);
        calls c = run_job(pool, 2, 1);
        alone += c.count == 2 && c.all_on_caller;
        whole += c.count == 2 && c.items == 2;
    }
    tap_ok(whole == 50 && alone >= 1,
           "after the worker has slept, the caller claims both chunks itself in %d of 50 jobs (at least 1)", alone);
    rf_pool_free(pool);
}

int main(void)
{
    check_pool();
    return tap_done();
}
