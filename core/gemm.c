/* The matrix-product libraries and the choice per shape (see gemm.h). */
#include "gemm.h"

#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blas.h"
#include "gemm_bf16.h"
#include "cpu/cpu_features.h"
#include "gemm_cache.h"
#include "pool.h"

/* The OpenMP API (libgomp, which oneDNN's Debian build runs on). */
void omp_set_num_threads(int n);

/* Operands of a timed batch stay under this many floats (64 MiB). */
#define TIMING_FLOATS ((size_t)16 << 20)
/* Each library is timed at least this many runs and this long, alternating. */
#define TIMING_RUNS 3
#define TIMING_SECONDS 0.01
#define TIMING_MAX_RUNS 50

const char *rf_gemm_lib_name(rf_gemm_lib lib)
{
    return lib == RF_GEMM_BF16 ? "onednn-bf16" : lib == RF_GEMM_ONEDNN ? "onednn" : "openblas";
}

/* A bf16 operand's stored block (rows x cols, ld apart) widened to packed
 * f32 for the f32 libraries; NULL when out of memory. */
static float *widened(const void *x, int rows, int cols, int ld)
{
    float *y = malloc((size_t)rows * cols * sizeof *y + 1);
    for (int r = 0; y != NULL && r < rows; r++)
        rf_bf16_widen((const uint16_t *)x + (size_t)r * ld, y + (size_t)r * cols, (size_t)cols);
    return y;
}

void rf_gemm1_mixed(rf_gemm_lib lib, bool ta, bool tb, int m, int n, int k, float alpha, const void *A, bool a16,
                    int lda, const void *B, bool b16, int ldb, float beta, float *C, int ldc)
{
    /* oneDNN leaves C unscaled by beta when k = 0, and refuses leading
     * dimensions that BLAS accepts for empty matrices (lda = 0 when m = 0):
     * those products run on OpenBLAS */
    if (lib != RF_GEMM_OPENBLAS && k > 0 && (lib == RF_GEMM_BF16 || (!a16 && !b16))) {
        /* one OpenMP thread per calling thread: the engine's pool is the parallelism */
        static _Thread_local bool single;
        if (!single) {
            omp_set_num_threads(1);
            single = true;
        }
        /* oneDNN 2.6's JIT sgemm kernels point the stack pointer into a heap
         * workspace (oneDNN issue 4845, fixed in 3.12): a signal handler run
         * on this thread meanwhile would write its frame over the heap. So
         * signals wait until the call returns (about 0.5 us a call). */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        bool done = (lib == RF_GEMM_BF16 && m > 0 && n > 0 &&
                     rf_gemm_bf16(ta, tb, m, n, k, alpha, A, a16, lda, B, b16, ldb, beta, C, ldc)) ||
                    (lib == RF_GEMM_ONEDNN &&
                     dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, A, lda, B, ldb, beta, C, ldc) ==
                         dnnl_success);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (done)
            return;
    }
    /* an f32 library given a bf16 operand (a graph prepared in bf16 run
     * after the precision went back to f32, or a product oneDNN refused)
     * reads it widened */
    float *wa = a16 ? (ta ? widened(A, k, m, lda) : widened(A, m, k, lda)) : NULL;
    float *wb = b16 ? (tb ? widened(B, n, k, ldb) : widened(B, k, n, ldb)) : NULL;
    if ((a16 && wa == NULL) || (b16 && wb == NULL)) {
        fprintf(stderr, "rangefinder: out of memory widening a bf16 operand\n");
        abort();
    }
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha,
                a16 ? wa : A, a16 ? (ta ? m : k) : lda, b16 ? wb : B, b16 ? (tb ? k : n) : ldb, beta, C, ldc);
    free(wa);
    free(wb);
}

void rf_gemm1(rf_gemm_lib lib, bool ta, bool tb, int m, int n, int k, float alpha, const float *A, int lda,
              const float *B, int ldb, float beta, float *C, int ldc)
{
    rf_gemm1_mixed(lib, ta, tb, m, n, k, alpha, A, false, lda, B, false, ldb, beta, C, ldc);
}

static bool same_shape(const rf_gemm_shape *a, const rf_gemm_shape *b)
{
    return a->ta == b->ta && a->tb == b->tb && a->m == b->m && a->n == b->n && a->k == b->k && a->batch == b->batch;
}

void rf_gemm_list_add(rf_gemm_list *l, bool ta, bool tb, int64_t m, int64_t n, int64_t k, int64_t batch)
{
    rf_gemm_shape s = {ta, tb, (int)m, (int)n, (int)k, (int)batch};
    for (int i = 0; i < l->count; i++)
        if (same_shape(&l->items[i], &s))
            return;
    if (l->count == l->capacity) {
        int cap = l->capacity ? 2 * l->capacity : 16;
        rf_gemm_shape *grown = realloc(l->items, (size_t)cap * sizeof *grown);
        if (grown == NULL)
            return;   /* the shape goes unplanned: OpenBLAS, still correct */
        l->items = grown;
        l->capacity = cap;
    }
    l->items[l->count++] = s;
}

void rf_gemm_list_free(rf_gemm_list *l)
{
    free(l->items);
    *l = (rf_gemm_list){0};
}

/* ---- the choices ---- */

enum { MODE_AUTO = -1 };

static struct {
    pthread_mutex_t lock;
    bool mode_set;
    int mode;                  /* MODE_AUTO or the forced rf_gemm_lib */
    bool bf16;                 /* train.precision = bf16: every product on RF_GEMM_BF16 */
    rf_gemm_entry *entries;    /* this CPU's */
    int count, capacity;
    bool file_read;
    rf_gemm_cached *file;      /* the cache file's lines, every CPU's, and this run's timings */
    int file_count;
} S = {.lock = PTHREAD_MUTEX_INITIALIZER};

static bool parse_mode(const char *text, int *out)
{
    if (strcmp(text, "auto") == 0)
        *out = MODE_AUTO;
    else if (strcmp(text, "openblas") == 0)
        *out = RF_GEMM_OPENBLAS;
    else if (strcmp(text, "onednn") == 0)
        *out = RF_GEMM_ONEDNN;
    else
        return false;
    return true;
}

/* RF_GEMM, once (under the lock): false when it is set to something else. */
static bool mode_from_env(void)
{
    if (S.mode_set)
        return true;
    S.mode_set = true;
    S.mode = MODE_AUTO;
    const char *env = getenv("RF_GEMM");
    if (env != NULL && !parse_mode(env, &S.mode)) {
        fprintf(stderr, "rangefinder: RF_GEMM=%s: not auto, openblas or onednn; using auto\n", env);
        return false;
    }
    return true;
}

bool rf_gemm_set_mode(const char *mode, rf_status *st)
{
    int m;
    if (!parse_mode(mode, &m))
        return rf_fail(st, "train.gemm = '%s': not auto, openblas or onednn", mode);
    const char *env = getenv("RF_GEMM");
    int forced;
    pthread_mutex_lock(&S.lock);
    S.mode_set = true;
    S.mode = env != NULL && parse_mode(env, &forced) ? forced : m;
    pthread_mutex_unlock(&S.lock);
    return true;
}

bool rf_gemm_set_precision(const char *precision, rf_status *st)
{
    bool bf16 = strcmp(precision, "bf16") == 0;
    if (!bf16 && strcmp(precision, "f32") != 0)
        return rf_fail(st, "train.precision = '%s': not f32 or bf16", precision);
    if (bf16 && !rf_bf16_supported())
        return rf_fail(st, "train.precision = bf16: this CPU (%s) has neither AVX512-BF16 nor AMX-BF16; use f32",
                       rf_cpu_key());
    pthread_mutex_lock(&S.lock);
    S.bf16 = bf16;
    pthread_mutex_unlock(&S.lock);
    return true;
}

const char *rf_gemm_precision(void)
{
    pthread_mutex_lock(&S.lock);
    bool bf16 = S.bf16;
    pthread_mutex_unlock(&S.lock);
    return bf16 ? "bf16" : "f32";
}

/* The library every product is forced onto, or MODE_AUTO (under the lock). */
static int forced_lib(void)
{
    return S.bf16 ? RF_GEMM_BF16 : S.mode;
}

const char *rf_gemm_mode(void)
{
    pthread_mutex_lock(&S.lock);
    mode_from_env();
    int m = S.mode;
    pthread_mutex_unlock(&S.lock);
    return m == MODE_AUTO ? "auto" : rf_gemm_lib_name(m);
}

/* The entry for a shape in the current mode (forced entries count a forced
 * library's calls, the others are auto's choices), or NULL. */
static rf_gemm_entry *find(const rf_gemm_shape *s)
{
    for (int i = 0; i < S.count; i++) {
        rf_gemm_entry *e = &S.entries[i];
        bool forced = e->origin == RF_GEMM_FORCED;
        if (same_shape(&e->shape, s) &&
            (forced_lib() == MODE_AUTO ? !forced : forced && (int)e->lib == forced_lib()))
            return e;
    }
    return NULL;
}

static rf_gemm_entry *add(const rf_gemm_entry *e)
{
    if (S.count == S.capacity) {
        int cap = S.capacity ? 2 * S.capacity : 32;
        rf_gemm_entry *grown = realloc(S.entries, (size_t)cap * sizeof *grown);
        if (grown == NULL)
            return NULL;
        S.entries = grown;
        S.capacity = cap;
    }
    S.entries[S.count] = *e;
    return &S.entries[S.count++];
}

/* The timed or cached choice for a shape equal to s but for m or batch,
 * nearest to s in m x batch (ties: the first found); NULL if none. */
static const rf_gemm_entry *nearest(const rf_gemm_shape *s)
{
    const rf_gemm_entry *best = NULL;
    double size = (double)s->m * s->batch, gap = INFINITY;
    for (int i = 0; i < S.count; i++) {
        const rf_gemm_entry *e = &S.entries[i];
        const rf_gemm_shape *t = &e->shape;
        if ((e->origin != RF_GEMM_TIMED && e->origin != RF_GEMM_CACHED) || t->ta != s->ta || t->tb != s->tb ||
            t->n != s->n || t->k != s->k || (t->m != s->m && t->batch != s->batch))
            continue;
        double d = fabs((double)t->m * t->batch - size);
        if (d < gap) {
            gap = d;
            best = e;
        }
    }
    return best;
}

rf_gemm_lib rf_gemm_choice(const rf_gemm_shape *s)
{
    pthread_mutex_lock(&S.lock);
    mode_from_env();
    rf_gemm_entry *e = find(s);
    if (e == NULL) {
        int lib = forced_lib();
        rf_gemm_entry fresh = {*s, lib == MODE_AUTO ? RF_GEMM_OPENBLAS : (rf_gemm_lib)lib, {0, 0},
                               lib == MODE_AUTO ? RF_GEMM_UNPLANNED : RF_GEMM_FORCED, 0};
        const rf_gemm_entry *near = lib == MODE_AUTO ? nearest(s) : NULL;
        if (near != NULL) {
            fresh.lib = near->lib;
            fresh.origin = RF_GEMM_NEAREST;
        }
        e = add(&fresh);
    }
    rf_gemm_lib lib = e != NULL ? e->lib : RF_GEMM_OPENBLAS;
    if (e != NULL)
        e->calls++;
    pthread_mutex_unlock(&S.lock);
    return lib;
}

/* Record an auto choice (timed or from the cache), replacing an unplanned one. */
static void choose(const rf_gemm_shape *s, const double *seconds, rf_gemm_origin origin)
{
    rf_gemm_lib lib = seconds[RF_GEMM_ONEDNN] < seconds[RF_GEMM_OPENBLAS] ? RF_GEMM_ONEDNN : RF_GEMM_OPENBLAS;
    rf_gemm_entry *e = NULL;
    for (int i = 0; i < S.count && e == NULL; i++)
        if (S.entries[i].origin != RF_GEMM_FORCED && same_shape(&S.entries[i].shape, s))
            e = &S.entries[i];
    if (e == NULL) {
        rf_gemm_entry fresh = {.shape = *s};
        e = add(&fresh);
    }
    if (e == NULL)
        return;
    e->lib = lib;
    e->origin = origin;
    e->seconds[RF_GEMM_OPENBLAS] = seconds[RF_GEMM_OPENBLAS];
    e->seconds[RF_GEMM_ONEDNN] = seconds[RF_GEMM_ONEDNN];
}

static bool chosen(const rf_gemm_shape *s)
{
    for (int i = 0; i < S.count; i++)
        if ((S.entries[i].origin == RF_GEMM_TIMED || S.entries[i].origin == RF_GEMM_CACHED) &&
            same_shape(&S.entries[i].shape, s))
            return true;
    return false;
}

/* Read the cache file once (under the lock); an untrusted file is dropped
 * with a warning and rewritten at the next save. Returns whether it must be
 * rewritten. */
static bool read_cache(const char *path)
{
    if (S.file_read || path == NULL)
        return false;
    S.file_read = true;
    rf_status st = {0};
    if (!rf_gemm_cache_read(path, &S.file, &S.file_count, &st)) {
        fprintf(stderr, "rangefinder: %s; the matrix-product cache is ignored and rebuilt\n", st.msg);
        return true;
    }
    const char *cpu = rf_cpu_key();
    for (int i = 0; i < S.file_count; i++)
        if (strcmp(S.file[i].cpu, cpu) == 0 && !chosen(&S.file[i].shape))
            choose(&S.file[i].shape, S.file[i].seconds, RF_GEMM_CACHED);
    return false;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Both libraries' best time for one product of shape s on one thread (a
 * batch is run whole, or as many of its products as fit TIMING_FLOATS). */
static bool time_shape(rf_pool *pool, const rf_gemm_shape *s, double *seconds)
{
    size_t a = (size_t)s->m * s->k, b = (size_t)s->k * s->n, c = (size_t)s->m * s->n;
    int batch = s->batch;
    while (batch > 1 && (size_t)batch * (a + b + c) > TIMING_FLOATS)
        batch /= 2;
    float *A = malloc((size_t)batch * a * sizeof *A), *B = malloc((size_t)batch * b * sizeof *B),
          *C = calloc((size_t)batch * c, sizeof *C);
    bool ok = A != NULL && B != NULL && C != NULL;
    for (size_t i = 0; ok && i < (size_t)batch * a; i++)
        A[i] = (float)((int)(i % 17) - 8) / 8.0f;
    for (size_t i = 0; ok && i < (size_t)batch * b; i++)
        B[i] = (float)((int)(i % 13) - 6) / 6.0f;
    int lda = s->ta ? s->m : s->k, ldb = s->tb ? s->k : s->n;
    double best[RF_GEMM_LIBS] = {1e30, 1e30}, spent = 0;
    for (int run = -1; ok && run < TIMING_MAX_RUNS && (run < TIMING_RUNS || spent < TIMING_SECONDS); run++) {
        for (int lib = 0; lib < RF_GEMM_LIBS; lib++) {
            double t0 = now_s();
            if (s->batch == 1)
                rf_sgemm_on(pool, lib, s->ta, s->tb, s->m, s->n, s->k, 1.0f, A, lda, B, ldb, 1.0f, C, s->n);
            else
                rf_sgemm_batched_on(pool, lib, s->ta, s->tb, s->m, s->n, s->k, batch, A, (int64_t)a, B, (int64_t)b,
                                    1.0f, C, (int64_t)c);
            double t = now_s() - t0;
            if (run >= 0 && t < best[lib])   /* run -1 warms both up */
                best[lib] = t;
            if (run >= 0)
                spent += t;
        }
    }
    for (int lib = 0; ok && lib < RF_GEMM_LIBS; lib++)
        seconds[lib] = best[lib] * s->batch / batch;
    free(A);
    free(B);
    free(C);
    return ok;
}

/* Append this CPU's new timings to the file's lines and write it. */
static void save_cache(const char *path, const rf_gemm_cached *fresh, int n)
{
    rf_gemm_cached *all = realloc(S.file, (size_t)(S.file_count + n + 1) * sizeof *all);
    if (all == NULL)
        return;
    memcpy(all + S.file_count, fresh, (size_t)n * sizeof *fresh);
    S.file = all;
    S.file_count += n;
    rf_status st = {0};
    if (!rf_gemm_cache_write(path, S.file, S.file_count, &st))
        fprintf(stderr, "rangefinder: %s (the matrix-product choices are not cached)\n", st.msg);
}

void rf_gemm_plan(const rf_gemm_shape *shapes, int count)
{
    char *path = rf_gemm_cache_path();
    pthread_mutex_lock(&S.lock);
    mode_from_env();
    bool timing = forced_lib() == MODE_AUTO;
    bool rewrite = timing && read_cache(path);
    rf_gemm_shape *untimed = malloc((size_t)(count + 1) * sizeof *untimed);
    int n = 0;
    for (int i = 0; timing && untimed != NULL && i < count; i++)
        if (!chosen(&shapes[i]))
            untimed[n++] = shapes[i];
    pthread_mutex_unlock(&S.lock);

    /* time outside the lock: products may run meanwhile */
    rf_gemm_cached *fresh = calloc((size_t)n + 1, sizeof *fresh);
    rf_pool *pool = n > 0 ? rf_pool_new(1) : NULL;
    int timed = 0;
    for (int i = 0; fresh != NULL && i < n; i++) {
        rf_gemm_cached *c = &fresh[timed];
        snprintf(c->cpu, sizeof c->cpu, "%s", rf_cpu_key());
        c->shape = untimed[i];
        if (!time_shape(pool, &untimed[i], c->seconds))
            continue;
        c->lib = c->seconds[RF_GEMM_ONEDNN] < c->seconds[RF_GEMM_OPENBLAS] ? RF_GEMM_ONEDNN : RF_GEMM_OPENBLAS;
        timed++;
    }
    rf_pool_free(pool);

    pthread_mutex_lock(&S.lock);
    for (int i = 0; i < timed; i++)
        choose(&fresh[i].shape, fresh[i].seconds, RF_GEMM_TIMED);
    if (path != NULL && (timed > 0 || rewrite))
        save_cache(path, fresh, timed);
    pthread_mutex_unlock(&S.lock);
    free(fresh);
    free(untimed);
    free(path);
}

int rf_gemm_entries(rf_gemm_entry *out, int max)
{
    pthread_mutex_lock(&S.lock);
    int n = S.count;
    for (int i = 0; i < n && i < max; i++)
        out[i] = S.entries[i];
    pthread_mutex_unlock(&S.lock);
    return n;
}

void rf_gemm_reset_calls(void)
{
    pthread_mutex_lock(&S.lock);
    for (int i = 0; i < S.count; i++)
        S.entries[i].calls = 0;
    pthread_mutex_unlock(&S.lock);
}

void rf_gemm_forget(void)
{
    pthread_mutex_lock(&S.lock);
    free(S.entries);
    free(S.file);
    S.entries = NULL;
    S.file = NULL;
    S.count = S.capacity = S.file_count = 0;
    S.file_read = false;
    pthread_mutex_unlock(&S.lock);
}

void rf_gemm_report(FILE *f, int steps)
{
    static const char *const origin[] = {"timed now", "from the cache", "forced", "not declared: default",
                                         "fewer rows: nearest"};
    pthread_mutex_lock(&S.lock);
    fprintf(f, "%-38s %11s %10s %11s %11s  %s\n", "product m x n x k (op), batch", "library", "calls/step", "openblas ms",
            "onednn ms", "choice");
    for (int i = 0; i < S.count; i++) {
        const rf_gemm_entry *e = &S.entries[i];
        if (e->calls == 0)
            continue;
        char shape[64];
        snprintf(shape, sizeof shape, "%d x %d x %d (%c%c), %d", e->shape.m, e->shape.n, e->shape.k,
                 e->shape.ta ? 'T' : 'N', e->shape.tb ? 'T' : 'N', e->shape.batch);
        bool timed = e->origin == RF_GEMM_TIMED || e->origin == RF_GEMM_CACHED;
        char ob[16] = "-", od[16] = "-";
        if (timed) {
            snprintf(ob, sizeof ob, "%.3f", 1e3 * e->seconds[RF_GEMM_OPENBLAS]);
            snprintf(od, sizeof od, "%.3f", 1e3 * e->seconds[RF_GEMM_ONEDNN]);
        }
        fprintf(f, "%-38s %11s %10.1f %11s %11s  %s\n", shape, rf_gemm_lib_name(e->lib),
                (double)e->calls / (steps > 0 ? steps : 1), ob, od,
                e->lib == RF_GEMM_BF16 ? "train.precision = bf16" : origin[e->origin]);
    }
    pthread_mutex_unlock(&S.lock);
}
