/* Batches with one background prefetch thread.
 *
 * Two training slots: while the trainer uses slot s for step k, the worker
 * fills the other slot for step k+1. The epoch permutation is a
 * Fisher-Yates shuffle seeded by (seed, epoch), rebuilt when the epoch
 * changes (the worker owns it).
 */
#include "batcher.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"
#include "rng.h"

typedef struct {
    rf_batch batch;
    int64_t step;              /* which step this slot holds, -1 none */
    bool failed;
    rf_status st;
} slot;

struct rf_batcher {
    const rf_dataset *ds;
    int batch_size;
    int rank, ranks;           /* this batcher's slice of the global batch */
    uint64_t seed;
    int64_t *perm;             /* train permutation of the current epoch */
    int64_t perm_epoch;
    slot train[2];
    rf_batch eval;
    int64_t *by_length[RF_SPLIT_COUNT];   /* eval order per split, or NULL: in order */

    pthread_t worker;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int64_t wanted;            /* step the worker should prepare, -1 none */
    bool quit;
};

const char *rf_split_name(rf_split s)
{
    static const char *const names[] = {"train", "val", "test"};
    return s < RF_SPLIT_COUNT ? names[s] : "?";
}

size_t rf_batcher_bytes(int batch, int seq_len, int feat_dim)
{
    size_t per = (size_t)batch * seq_len * (size_t)(feat_dim > 0 ? feat_dim : 1) + (size_t)batch * seq_len + batch;
    return 3 * per * sizeof(float);    /* two training slots and one eval batch */
}

static bool batch_alloc(rf_batch *b, int batch, int seq_len, int feat_dim)
{
    size_t fd = feat_dim > 0 ? (size_t)feat_dim : 1;
    b->batch = batch;
    b->seq_len = seq_len;
    b->feat_dim = feat_dim;
    b->x = rf_alloc((size_t)batch * seq_len * fd * sizeof(float));
    b->mask = rf_alloc((size_t)batch * seq_len * sizeof(float));
    b->labels = rf_alloc((size_t)batch * sizeof(float));
    return b->x && b->mask && b->labels;
}

static void batch_free(rf_batch *b)
{
    rf_free(b->x);
    rf_free(b->mask);
    rf_free(b->labels);
}

/* Token ids become table rows through an integer conversion, defined only
 * for ids in range: every id must lie in [0, vocab) (which refuses NaN). */
static bool ids_in_range(const float *x, int len, int vocab)
{
    for (int t = 0; t < len; t++)
        if (!(x[t] >= 0.0f && x[t] < (float)vocab))
            return false;
    return true;
}

/* Fill `b` with the given sample indices of a split (count <= batch).
 * With `keys` (training only) samples come augmented, one key each. */
static bool fill(const rf_dataset *ds, rf_batch *b, rf_split split, const int64_t *index, const uint64_t *keys,
                 int count, rf_status *st)
{
    size_t fd = b->feat_dim > 0 ? (size_t)b->feat_dim : 1;
    size_t row = (size_t)b->seq_len * fd;
    memset(b->x, 0, (size_t)b->batch * row * sizeof(float));
    memset(b->mask, 0, (size_t)b->batch * b->seq_len * sizeof(float));
    memset(b->labels, 0, (size_t)b->batch * sizeof(float));
    b->longest = 0;
    for (int i = 0; i < count; i++) {
        int len = 0, label = 0;
        bool ok = keys != NULL ? ds->get_augmented(ds, index[i], keys[i], b->x + i * row, &len, &label, st)
                               : ds->get(ds, split, index[i], b->x + i * row, &len, &label, st);
        if (!ok)
            return false;
        if (len < 1 || len > b->seq_len || label < 0 || label >= ds->classes)
            return rf_fail(st, "%s %s sample %lld: length %d or label %d out of range", ds->name,
                           rf_split_name(split), (long long)index[i], len, label);
        if (b->feat_dim == 0 && !ids_in_range(b->x + i * row, len, ds->vocab))
            return rf_fail(st, "%s %s sample %lld: a token id outside [0, %d)", ds->name, rf_split_name(split),
                           (long long)index[i], ds->vocab);
        for (int t = 0; t < len; t++)
            b->mask[(size_t)i * b->seq_len + t] = 1.0f;
        b->labels[i] = (float)label;
        b->longest = len > b->longest ? len : b->longest;
    }
    b->count = count;
    return true;
}

static void shuffle_epoch(rf_batcher *b, int64_t epoch)
{
    int64_t n = b->ds->size[RF_SPLIT_TRAIN];
    rf_rng rng = {rf_hash3(b->seed, 0x5eedull, (uint64_t)epoch)};
    for (int64_t i = 0; i < n; i++)
        b->perm[i] = i;
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = rf_rng_int(&rng, 0, i);
        int64_t t = b->perm[i];
        b->perm[i] = b->perm[j];
        b->perm[j] = t;
    }
    b->perm_epoch = epoch;
}

static void fill_train(rf_batcher *b, slot *s, int64_t step)
{
    int64_t n = b->ds->size[RF_SPLIT_TRAIN];
    int64_t index[b->batch_size];
    uint64_t keys[b->batch_size];
    for (int i = 0; i < b->batch_size; i++) {
        /* position in the endless stream of global batches */
        int64_t k = (step * b->ranks + b->rank) * b->batch_size + i;
        int64_t epoch = k / n;
        if (epoch != b->perm_epoch)
            shuffle_epoch(b, epoch);
        index[i] = b->perm[k % n];
        keys[i] = rf_hash3(b->seed, 0xa097ull, (uint64_t)k);   /* a new augmentation every draw */
    }
    rf_status_clear(&s->st);
    s->failed = !fill(b->ds, &s->batch, RF_SPLIT_TRAIN, index, b->ds->get_augmented != NULL ? keys : NULL,
                      b->batch_size, &s->st);
    s->step = step;
}

static void *worker_main(void *arg)
{
    rf_batcher *b = arg;
    pthread_mutex_lock(&b->lock);
    for (;;) {
        while (!b->quit && b->wanted < 0)
            pthread_cond_wait(&b->cond, &b->lock);
        if (b->quit)
            break;
        int64_t step = b->wanted;
        slot *s = &b->train[step % 2];
        pthread_mutex_unlock(&b->lock);
        fill_train(b, s, step);
        pthread_mutex_lock(&b->lock);
        b->wanted = -1;
        pthread_cond_broadcast(&b->cond);
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

rf_batcher *rf_batcher_new(const rf_dataset *ds, int batch, uint64_t seed, rf_status *st)
{
    if (ds->size[RF_SPLIT_TRAIN] < 1) {
        rf_fail(st, "%s: the train split is empty", ds->name);
        return NULL;
    }
    rf_batcher *b = calloc(1, sizeof *b);
    b->ds = ds;
    b->batch_size = batch;
    b->ranks = 1;
    b->seed = seed;
    b->perm_epoch = -1;
    b->wanted = -1;
    b->perm = malloc((size_t)ds->size[RF_SPLIT_TRAIN] * sizeof *b->perm);
    bool ok = b->perm != NULL && batch_alloc(&b->eval, batch, ds->seq_len, ds->feat_dim);
    for (int i = 0; i < 2; i++) {
        ok = ok && batch_alloc(&b->train[i].batch, batch, ds->seq_len, ds->feat_dim);
        b->train[i].step = -1;
    }
    if (!ok) {
        rf_fail(st, "out of memory allocating batches of %d x %d", batch, ds->seq_len);
        rf_batcher_free(b);
        return NULL;
    }
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->cond, NULL);
    pthread_create(&b->worker, NULL, worker_main, b);
    return b;
}

void rf_batcher_set_shard(rf_batcher *b, int rank, int ranks)
{
    b->rank = rank;
    b->ranks = ranks;
}

void rf_batcher_free(rf_batcher *b)
{
    if (b == NULL)
        return;
    if (b->worker) {
        pthread_mutex_lock(&b->lock);
        b->quit = true;
        pthread_cond_broadcast(&b->cond);
        pthread_mutex_unlock(&b->lock);
        pthread_join(b->worker, NULL);
        pthread_mutex_destroy(&b->lock);
        pthread_cond_destroy(&b->cond);
    }
    for (int i = 0; i < 2; i++)
        batch_free(&b->train[i].batch);
    batch_free(&b->eval);
    for (int s = 0; s < RF_SPLIT_COUNT; s++)
        free(b->by_length[s]);
    free(b->perm);
    free(b);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

const rf_batch *rf_batcher_train(rf_batcher *b, int64_t step, double *wait_s, rf_status *st)
{
    double t0 = now_s();
    pthread_mutex_lock(&b->lock);
    while (b->wanted >= 0)          /* let a prefetch in flight finish */
        pthread_cond_wait(&b->cond, &b->lock);
    slot *s = &b->train[step % 2];
    if (s->step != step) {          /* not prefetched (first step, or a jump): fill now */
        b->wanted = step;
        pthread_cond_broadcast(&b->cond);
        while (b->wanted >= 0)
            pthread_cond_wait(&b->cond, &b->lock);
    }
    b->wanted = step + 1;           /* prefetch the next one into the other slot */
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->lock);
    if (wait_s != NULL)
        *wait_s = now_s() - t0;
    if (s->failed) {
        rf_fail(st, "%s", s->st.msg);
        return NULL;
    }
    return &s->batch;
}

int64_t rf_batcher_eval_batches(const rf_batcher *b, rf_split split)
{
    return (b->ds->size[split] + b->batch_size - 1) / b->batch_size;
}

typedef struct {
    int64_t index;
    int len;
} sized;

static int by_len_then_index(const void *pa, const void *pb)
{
    const sized *a = pa, *b = pb;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

static bool sort_by_length(rf_batcher *b, rf_split split, rf_status *st)
{
    if (b->by_length[split] != NULL)
        return true;
    const rf_dataset *ds = b->ds;
    int64_t n = ds->size[split];
    size_t row = (size_t)ds->seq_len * (size_t)(ds->feat_dim > 0 ? ds->feat_dim : 1);
    sized *s = malloc((size_t)(n > 0 ? n : 1) * sizeof *s);
    float *x = malloc(row * sizeof *x);
    int64_t *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    if (s == NULL || x == NULL || order == NULL) {
        free(s);
        free(x);
        free(order);
        return rf_fail(st, "out of memory sorting the %s split of %lld samples by length", rf_split_name(split),
                       (long long)n);
    }
    bool ok = true;
    for (int64_t i = 0; ok && i < n; i++) {
        int label = 0;
        s[i].index = i;
        ok = ds->get(ds, split, i, x, &s[i].len, &label, st);
    }
    if (ok) {
        qsort(s, (size_t)n, sizeof *s, by_len_then_index);
        for (int64_t i = 0; i < n; i++)
            order[i] = s[i].index;
        b->by_length[split] = order;
    } else {
        free(order);
    }
    free(s);
    free(x);
    return ok;
}

/* Batch `index` of `split` in the given order (NULL: the split's own). */
static const rf_batch *eval_batch(rf_batcher *b, rf_split split, const int64_t *order, int64_t index,
                                  rf_status *st)
{
    int64_t first = index * b->batch_size, n = b->ds->size[split];
    int count = (int)(n - first < b->batch_size ? n - first : b->batch_size);
    if (count <= 0 || index < 0) {
        rf_fail(st, "%s split has no batch %lld", rf_split_name(split), (long long)index);
        return NULL;
    }
    int64_t ids[b->batch_size];
    for (int i = 0; i < count; i++)
        ids[i] = order != NULL ? order[first + i] : first + i;
    return fill(b->ds, &b->eval, split, ids, NULL, count, st) ? &b->eval : NULL;
}

const rf_batch *rf_batcher_eval(rf_batcher *b, rf_split split, int64_t index, rf_status *st)
{
    return eval_batch(b, split, NULL, index, st);
}

const rf_batch *rf_batcher_eval_by_length(rf_batcher *b, rf_split split, int64_t index, rf_status *st)
{
    if (!sort_by_length(b, split, st))
        return NULL;
    return eval_batch(b, split, b->by_length[split], index, st);
}
