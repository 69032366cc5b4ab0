/* The thread pool. Jobs come one after another in quick succession (a
 * BLRP step runs thousands), so a worker that has finished one first polls
 * for the next for a short while (SPIN_POLLS) before sleeping on the
 * condition variable, and the caller polls for the workers' completion the
 * same way: a futex wake-up costs tens of microseconds, a poll a few
 * nanoseconds.
 *
 * A job is cut into one chunk per thread (fixed bounds), and the chunks are
 * claimed, not assigned: the caller and each worker take the next unclaimed
 * chunk until none is left. A worker that is slow to wake (asleep, or not
 * scheduled on a busy machine) thus never holds the caller up: the caller
 * runs the chunk itself and waits only for chunks a worker has started.
 * The chunk bounds do not depend on who runs a chunk, so neither do the
 * results; `thread` names the runner (its scratch). `claim` packs the
 * job's generation (high 32 bits) and the next chunk (low 32), so a worker
 * holding a finished job's description cannot claim a chunk of the next.
 * The job's fields change under the lock, before its generation is
 * published; claim and done are atomics. */
#include "pool.h"

#include <cblas.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

struct rf_pool {
    int threads;
    pthread_t *tids;
    pthread_mutex_t lock;
    pthread_cond_t work_ready;
    pthread_cond_t work_done;
    /* the job in flight */
    rf_pool_fn fn;
    void *ctx;
    int64_t n;
    int64_t generation;     /* atomic; the job's, as published to the workers */
    uint64_t claim;         /* atomic: generation << 32 | next chunk to claim */
    int64_t done;           /* atomic: chunks finished */
    bool caller_waits;      /* under the lock: the caller sleeps on work_done */
    bool quit;
    float *buffer;          /* rf_pool_buffer */
    size_t buffer_floats;
};

typedef struct {
    rf_pool *pool;
    int index;
} worker_arg;

/* About 50-100 microseconds of polling. */
#define SPIN_POLLS 2000

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Poll until *v != value or the polls run out. */
static void spin_while_equal(const int64_t *v, int64_t value)
{
    for (int i = 0; i < SPIN_POLLS && __atomic_load_n(v, __ATOMIC_ACQUIRE) == value; i++)
        cpu_relax();
}

/* Poll until *v reaches `target` or the polls run out. */
static void spin_until(const int64_t *v, int64_t target)
{
    for (int i = 0; i < SPIN_POLLS && __atomic_load_n(v, __ATOMIC_ACQUIRE) != target; i++)
        cpu_relax();
}

static void chunk(int64_t n, int parts, int i, int64_t *b, int64_t *e)
{
    *b = n * i / parts;
    *e = n * (i + 1) / parts;
}

/* Claim the next chunk of job `gen`: its index, or -1 when none is left
 * (or the job is no longer `gen`). */
static int claim_chunk(rf_pool *pool, int64_t gen)
{
    uint64_t c = __atomic_load_n(&pool->claim, __ATOMIC_ACQUIRE);
    for (;;) {
        uint32_t next = (uint32_t)c;
        if ((int64_t)(c >> 32) != (gen & 0xffffffff) || next >= (uint32_t)pool->threads)
            return -1;
        if (__atomic_compare_exchange_n(&pool->claim, &c, c + 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return (int)next;
    }
}

/* Run chunks of job `gen` until none is left to claim. */
static void run_chunks(rf_pool *pool, int64_t gen, rf_pool_fn fn, void *ctx, int64_t n, int thread)
{
    for (int i; (i = claim_chunk(pool, gen)) >= 0;) {
        int64_t b, e;
        chunk(n, pool->threads, i, &b, &e);
        if (e > b)
            fn(ctx, b, e, thread);
        if (__atomic_add_fetch(&pool->done, 1, __ATOMIC_ACQ_REL) == pool->threads) {
            pthread_mutex_lock(&pool->lock);
            if (pool->caller_waits)
                pthread_cond_signal(&pool->work_done);
            pthread_mutex_unlock(&pool->lock);
        }
    }
}

static void *worker_main(void *p)
{
    worker_arg *arg = p;
    rf_pool *pool = arg->pool;
    int index = arg->index;
    free(arg);
    int64_t seen = 0;
    for (;;) {
        spin_while_equal(&pool->generation, seen);
        pthread_mutex_lock(&pool->lock);
        while (!pool->quit && __atomic_load_n(&pool->generation, __ATOMIC_ACQUIRE) == seen)
            pthread_cond_wait(&pool->work_ready, &pool->lock);
        if (pool->quit)
            break;
        seen = __atomic_load_n(&pool->generation, __ATOMIC_ACQUIRE);
        rf_pool_fn fn = pool->fn;
        void *ctx = pool->ctx;
        int64_t n = pool->n;
        pthread_mutex_unlock(&pool->lock);
        run_chunks(pool, seen, fn, ctx, n, index);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

int rf_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void rf_blas_set_threads(int threads)
{
    openblas_set_num_threads(threads > 0 ? threads : rf_cpu_count());
}

void rf_blas_single_thread(void)
{
    openblas_set_num_threads(1);
}

rf_pool *rf_pool_new(int threads)
{
    rf_pool *pool = calloc(1, sizeof *pool);
    if (pool == NULL)
        return NULL;
    pool->threads = threads > 0 ? threads : rf_cpu_count();
    rf_blas_single_thread();
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->work_ready, NULL);
    pthread_cond_init(&pool->work_done, NULL);
    pool->tids = calloc((size_t)pool->threads, sizeof *pool->tids);
    for (int i = 1; i < pool->threads; i++) {
        worker_arg *arg = malloc(sizeof *arg);
        arg->pool = pool;
        arg->index = i;
        pthread_create(&pool->tids[i], NULL, worker_main, arg);
    }
    return pool;
}

void rf_pool_free(rf_pool *pool)
{
    if (pool == NULL)
        return;
    pthread_mutex_lock(&pool->lock);
    pool->quit = true;
    pthread_cond_broadcast(&pool->work_ready);
    pthread_mutex_unlock(&pool->lock);
    for (int i = 1; i < pool->threads; i++)
        pthread_join(pool->tids[i], NULL);
    pthread_mutex_destroy(&pool->lock);
    pthread_cond_destroy(&pool->work_ready);
    pthread_cond_destroy(&pool->work_done);
    free(pool->tids);
    free(pool->buffer);
    free(pool);
}

float *rf_pool_buffer(rf_pool *pool, size_t floats)
{
    if (pool->buffer_floats < floats) {
        float *b = realloc(pool->buffer, floats * sizeof *b);
        if (b == NULL)
            return NULL;
        pool->buffer = b;
        pool->buffer_floats = floats;
    }
    return pool->buffer;
}

int rf_pool_threads(const rf_pool *pool) { return pool != NULL ? pool->threads : 1; }

void rf_pool_run(rf_pool *pool, int64_t n, int64_t grain, rf_pool_fn fn, void *ctx)
{
    if (n <= 0)
        return;
    if (pool == NULL || pool->threads == 1 || n < 2 * (grain > 0 ? grain : 1)) {
        fn(ctx, 0, n, 0);
        return;
    }
    pthread_mutex_lock(&pool->lock);
    pool->fn = fn;
    pool->ctx = ctx;
    pool->n = n;
    int64_t gen = pool->generation + 1;
    __atomic_store_n(&pool->done, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&pool->claim, (uint64_t)(gen & 0xffffffff) << 32, __ATOMIC_RELEASE);
    __atomic_store_n(&pool->generation, gen, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&pool->work_ready);
    pthread_mutex_unlock(&pool->lock);

    run_chunks(pool, gen, fn, ctx, n, 0);

    /* only chunks a worker has claimed remain, and it is running them */
    spin_until(&pool->done, pool->threads);
    if (__atomic_load_n(&pool->done, __ATOMIC_ACQUIRE) == pool->threads)
        return;
    pthread_mutex_lock(&pool->lock);
    pool->caller_waits = true;
    while (__atomic_load_n(&pool->done, __ATOMIC_ACQUIRE) < pool->threads)
        pthread_cond_wait(&pool->work_done, &pool->lock);
    pool->caller_waits = false;
    pthread_mutex_unlock(&pool->lock);
}
