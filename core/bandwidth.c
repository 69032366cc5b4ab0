/* Memory copy bandwidth (core/bandwidth.h). */
#include "bandwidth.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Large enough to leave any L3 these machines have (up to 105 MB shared on
 * a Sapphire Rapids socket) well behind. */
#define COPY_BYTES ((size_t)128 << 20)
#define PAGE 4096

typedef struct copy_job {
    char *dst;
    const char *src;
} copy_job;

static void copy_pages(void *ctx, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    copy_job *job = ctx;
    memcpy(job->dst + begin * PAGE, job->src + begin * PAGE, (size_t)(end - begin) * PAGE);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double rf_copy_bandwidth(rf_pool *pool)
{
    char *src = malloc(COPY_BYTES), *dst = malloc(COPY_BYTES);
    double best = 0;
    if (src != NULL && dst != NULL) {
        memset(src, 1, COPY_BYTES);
        copy_job job = {dst, src};
        int64_t pages = (int64_t)(COPY_BYTES / PAGE);
        for (int i = 0; i < 6; i++) {
            double t0 = now();
            rf_pool_run(pool, pages, pages / 64, copy_pages, &job);
            double s = now() - t0;
            if (i > 0 && s > 0 && 2.0 * COPY_BYTES / s > best)
                best = 2.0 * COPY_BYTES / s;
        }
    }
    free(src);
    free(dst);
    return best;
}
