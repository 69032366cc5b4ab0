/* The thread pool. Jobs come one after another in quick succession (a
 * BLRP step runs thousands), so a worker that has finished one first polls
 * for the next for a short while (SPIN_POLLS) before sleeping on the
 * condition variable, and the caller polls for the workers' completion the
 * same way: a futex wake-up costs tens of microseconds, a poll a few
 * nanoseconds. generation and pending change under the lock, as atomics so
 * the polls may read them without it. */
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
    int64_t generation;     /* atomic */
    int64_t pending;        /* atomic */
    bool quit;
    bool serial;            /* rf_pool_set_serial */
    int64_t handoffs;       /* rf_pool_handoffs; the calling thread's */
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

/* Poll until *v is 0 or the polls run out. */
static void spin_until_zero(const int64_t *v)
{
    for (int i = 0; i < SPIN_POLLS && __atomic_load_n(v, __ATOMIC_ACQUIRE) != 0; i++)
        cpu_relax();
}

static void chunk(int64_t n, int parts, int i, int64_t *b, int64_t *e)
{
    *b = n * i / parts;
    *e = n * (i + 1) / parts;
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
        int64_t b, e;
        chunk(pool->n, pool->threads, index, &b, &e);
        pthread_mutex_unlock(&pool->lock);
        if (e > b)
            fn(ctx, b, e, index);
        pthread_mutex_lock(&pool->lock);
        if (__atomic_sub_fetch(&pool->pending, 1, __ATOMIC_ACQ_REL) == 0)
            pthread_cond_signal(&pool->work_done);
        pthread_mutex_unlock(&pool->lock);
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

int64_t rf_pool_handoffs(const rf_pool *pool) { return pool != NULL ? pool->handoffs : 0; }

void rf_pool_set_serial(rf_pool *pool, bool serial)
{
    if (pool != NULL)
        pool->serial = serial;
}

void rf_pool_run(rf_pool *pool, int64_t n, int64_t grain, rf_pool_fn fn, void *ctx)
{
    if (n <= 0)
        return;
    if (pool == NULL || pool->threads == 1 || pool->serial || n < 2 * (grain > 0 ? grain : 1)) {
        fn(ctx, 0, n, 0);
        return;
    }
    pool->handoffs++;
    pthread_mutex_lock(&pool->lock);
    pool->fn = fn;
    pool->ctx = ctx;
    pool->n = n;
    __atomic_store_n(&pool->pending, pool->threads - 1, __ATOMIC_RELEASE);
    __atomic_add_fetch(&pool->generation, 1, __ATOMIC_ACQ_REL);
    pthread_cond_broadcast(&pool->work_ready);
    pthread_mutex_unlock(&pool->lock);

    int64_t b, e;
    chunk(n, pool->threads, 0, &b, &e);
    if (e > b)
        fn(ctx, b, e, 0);

    spin_until_zero(&pool->pending);
    pthread_mutex_lock(&pool->lock);
    while (__atomic_load_n(&pool->pending, __ATOMIC_ACQUIRE) > 0)
        pthread_cond_wait(&pool->work_done, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
}
