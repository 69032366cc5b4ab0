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
    int64_t generation;
    int pending;
    bool quit;
};

typedef struct {
    rf_pool *pool;
    int index;
} worker_arg;

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
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (!pool->quit && pool->generation == seen)
            pthread_cond_wait(&pool->work_ready, &pool->lock);
        if (pool->quit)
            break;
        seen = pool->generation;
        rf_pool_fn fn = pool->fn;
        void *ctx = pool->ctx;
        int64_t b, e;
        chunk(pool->n, pool->threads, index, &b, &e);
        pthread_mutex_unlock(&pool->lock);
        if (e > b)
            fn(ctx, b, e, index);
        pthread_mutex_lock(&pool->lock);
        if (--pool->pending == 0)
            pthread_cond_signal(&pool->work_done);
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
    free(pool);
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
    pool->pending = pool->threads - 1;
    pool->generation++;
    pthread_cond_broadcast(&pool->work_ready);
    pthread_mutex_unlock(&pool->lock);

    int64_t b, e;
    chunk(n, pool->threads, 0, &b, &e);
    if (e > b)
        fn(ctx, b, e, 0);

    pthread_mutex_lock(&pool->lock);
    while (pool->pending > 0)
        pthread_cond_wait(&pool->work_done, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
}
