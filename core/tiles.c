/* The kernels' tiles, chosen per CPU (tiles.h). */
#include "tiles.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache_file.h"
#include "cpu/cpu_features.h"
#include "exec.h"
#include "graph_private.h"
#include "pool.h"
#include "tiles_cache.h"

/* 64 x 256 first: the block the kernel was tuned with on a Zen 4/5 (a
 * block of scores, 64 KiB, and its gradient stay in L2 between the
 * products and the softmax). The others keep a block of at most 64 KiB and
 * change its shape: 128 x 128 loads each key block for twice the queries
 * (fewer passes over K and V); 32 x 512 makes wider products for a BLAS
 * (heads the short-head kernel does not take, or CPUs without AVX-512,
 * where every product goes to OpenBLAS; 512 keys are past the short-head
 * kernel's 256, so on AVX-512 it runs the products on OpenBLAS too);
 * 64 x 128 halves the block, for smaller L2 caches (Zen 2's 512 KiB).
 * The two "-lanes" candidates run P V and dS K with each key a lane
 * (rf_small_head_pv): on an Intel Xeon (family 6 model 207) that product
 * ran at 128 GFLOP/s on one thread against 67 for the output-row kernel,
 * whose 256-bit FMAs issue there at half a 512-bit one's rate; on a Zen 4
 * a 512-bit FMA is two 256-bit ones, and the timing decides. */
const rf_attn_tile rf_attn_tiles[RF_ATTN_TILES] = {
    {RF_ATTN_DEFAULT_QB, RF_ATTN_DEFAULT_KB, 0}, {128, 128, 0}, {32, 512, 0}, {64, 128, 0},
    {RF_ATTN_DEFAULT_QB, RF_ATTN_DEFAULT_KB, 1}, {128, 128, 1}};

/* The representative head the candidates are timed on: long enough that
 * every candidate runs several blocks each way, as at the long sequences
 * where the kernel's time matters; one head, one thread (a block's cost
 * does not depend on the thread count: the threads take whole heads or
 * query groups). */
enum { TIMING_LEN = 1024, TIMING_RUNS = 3 };

size_t rf_attn_thread_floats(rf_attn_tile t, int64_t n)
{
    if (t.qb == 0)
        return (size_t)(2 * RF_ATTN_BLOCK_MAX + 3 * RF_ATTN_QB_MAX) + (size_t)n +
               (size_t)((n + RF_ATTN_QB_MIN - 1) / RF_ATTN_QB_MIN);
    return (size_t)(2 * t.qb * t.kb + 3 * t.qb) + (size_t)n + (size_t)((n + t.qb - 1) / t.qb);
}

const char *rf_attn_tile_name(rf_attn_tile t, char *buf, size_t size)
{
    snprintf(buf, size, "%dx%d%s", t.qb, t.kb, t.lanes ? "-lanes" : "");
    return buf;
}

/* text[0 .. len) as a block size, 1 to 65,536: digits only (strtol alone
 * would take a sign or leading spaces). */
static bool block_size(const char *text, size_t len, int *out)
{
    char buf[8];
    if (len == 0 || len >= sizeof buf || strspn(text, "0123456789") < len)
        return false;
    memcpy(buf, text, len);
    buf[len] = '\0';
    return rf_cache_parse_int(buf, 1, 65536, out);
}

bool rf_attn_tile_parse(const char *text, rf_attn_tile *t)
{
    const char *x = strchr(text, 'x');
    if (x == NULL)
        return false;
    const char *dash = strchr(x, '-');
    size_t kb_len = dash != NULL ? (size_t)(dash - x - 1) : strlen(x + 1);
    if (dash != NULL && strcmp(dash, "-lanes") != 0)
        return false;
    rf_attn_tile r = {.lanes = dash != NULL};
    if (!block_size(text, (size_t)(x - text), &r.qb) || !block_size(x + 1, kb_len, &r.kb))
        return false;
    *t = r;
    return true;
}

bool rf_attn_tile_same(rf_attn_tile a, rf_attn_tile b)
{
    return a.qb == b.qb && a.kb == b.kb && a.lanes == b.lanes;
}

static int candidate(rf_attn_tile t)
{
    for (int i = 0; i < RF_ATTN_TILES; i++)
        if (rf_attn_tile_same(rf_attn_tiles[i], t))
            return i;
    return -1;
}

enum { MODE_AUTO = -2, MODE_DEFAULT = -1 };   /* or a candidate's index, forced */

static struct {
    pthread_mutex_t lock;
    bool mode_set;
    int mode;
    char mode_name[64];
    rf_tile_entry entries[64];   /* one per head width met (more: the default, unrecorded) */
    int count;
    bool file_read;
    rf_tiles_cached *file;       /* the cache file's lines, every CPU's */
    int file_count;
} S = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* RF_TILES, once (under the lock). */
static void mode_from_env(void)
{
    if (S.mode_set)
        return;
    S.mode_set = true;
    S.mode = MODE_AUTO;
    snprintf(S.mode_name, sizeof S.mode_name, "auto");
    const char *env = getenv("RF_TILES");
    if (env == NULL || strcmp(env, "auto") == 0)
        return;
    if (strcmp(env, "default") == 0) {
        S.mode = MODE_DEFAULT;
        snprintf(S.mode_name, sizeof S.mode_name, "default");
        return;
    }
    rf_attn_tile t;
    int i = -1;
    if (strncmp(env, "attention=", 10) == 0 && rf_attn_tile_parse(env + 10, &t))
        i = candidate(t);
    char name[32];
    if (i >= 0) {
        S.mode = i;
        snprintf(S.mode_name, sizeof S.mode_name, "attention=%s", rf_attn_tile_name(t, name, sizeof name));
        return;
    }
    fprintf(stderr, "rangefinder: RF_TILES=%s: not auto, default or attention=TILE with one of", env);
    for (int c = 0; c < RF_ATTN_TILES; c++)
        fprintf(stderr, " %s", rf_attn_tile_name(rf_attn_tiles[c], name, sizeof name));
    fprintf(stderr, "; using the default\n");
    S.mode = MODE_DEFAULT;
    snprintf(S.mode_name, sizeof S.mode_name, "default");
}

const char *rf_tiles_mode(void)
{
    pthread_mutex_lock(&S.lock);
    mode_from_env();
    const char *name = S.mode_name;
    pthread_mutex_unlock(&S.lock);
    return name;
}

static const rf_tile_entry *find(int dk)
{
    for (int i = 0; i < S.count; i++)
        if (S.entries[i].dk == dk)
            return &S.entries[i];
    return NULL;
}

static rf_attn_tile record(const rf_tile_entry *e)
{
    if (S.count < (int)(sizeof S.entries / sizeof *S.entries))
        S.entries[S.count++] = *e;
    return e->tile;
}

/* This CPU's cached choice for dk, when the line timed exactly this
 * build's candidates (another list is timed again); seconds per candidate. */
static bool cached(int dk, rf_tile_entry *e)
{
    const char *cpu = rf_cpu_key();
    for (int i = 0; i < S.file_count; i++) {
        const rf_tiles_cached *l = &S.file[i];
        if (strcmp(l->cpu, cpu) != 0 || l->dk != dk || l->timed != RF_ATTN_TILES)
            continue;
        bool all = true;
        for (int t = 0; t < l->timed && all; t++) {
            int c = candidate(l->tiles[t]);
            all = c >= 0;
            if (all)
                e->seconds[c] = l->seconds[t];
        }
        if (all) {
            e->tile = l->tile;
            return true;
        }
    }
    return false;
}

/* Read the cache file once (under the lock); an untrusted one is dropped
 * with a warning, and the next save rewrites it with this run's lines. */
static void read_cache(const char *path)
{
    if (S.file_read || path == NULL)
        return;
    S.file_read = true;
    rf_status st = {0};
    if (!rf_tiles_cache_read(path, &S.file, &S.file_count, &st)) {
        fprintf(stderr, "rangefinder: %s; the tile cache is ignored and rebuilt\n", st.msg);
    }
}

/* Replace this CPU's line for e->dk with e's timings and write the file. */
static void save_cache(const char *path, const rf_tile_entry *e)
{
    const char *cpu = rf_cpu_key();
    int kept = 0;
    for (int i = 0; i < S.file_count; i++)
        if (strcmp(S.file[i].cpu, cpu) != 0 || S.file[i].dk != e->dk)
            S.file[kept++] = S.file[i];
    rf_tiles_cached *all = realloc(S.file, (size_t)(kept + 1) * sizeof *all);
    if (all == NULL)
        return;
    rf_tiles_cached *l = &all[kept];
    *l = (rf_tiles_cached){.dk = e->dk, .tile = e->tile, .timed = RF_ATTN_TILES};
    snprintf(l->cpu, sizeof l->cpu, "%s", cpu);
    for (int c = 0; c < RF_ATTN_TILES; c++) {
        l->tiles[c] = rf_attn_tiles[c];
        l->seconds[c] = e->seconds[c];
    }
    S.file = all;
    S.file_count = kept + 1;
    rf_status st = {0};
    if (!rf_tiles_cache_write(path, S.file, S.file_count, &st))
        fprintf(stderr, "rangefinder: %s (the tile choices are not cached)\n", st.msg);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One head of TIMING_LEN queries and keys, dk wide, with its attention
 * node on tile t (set before prepare, so rf_tiles_prepare leaves it). */
static rf_graph *timing_graph(int dk, rf_attn_tile t)
{
    rf_graph *g = rf_graph_new(NULL);
    rf_id in[3];
    for (int i = 0; i < 3; i++)
        in[i] = rf_input(g, i == 0 ? "q" : i == 1 ? "k" : "v", rf_shape3(1, TIMING_LEN, dk), true);
    rf_id a = rf_attention(g, in[0], in[1], in[2], RF_NONE, 1, 1.0f / sqrtf((float)dk), 0.0f);
    rf_status st = {0};
    if (!rf_graph_ok(g)) {
        rf_graph_free(g);
        return NULL;
    }
    rf_graph_node(g, a)->tile = t;
    if (!rf_graph_prepare(g, a, 1, NULL, &st)) {
        rf_graph_free(g);
        return NULL;
    }
    for (int i = 0; i < 3; i++) {
        float *v = rf_value(g, in[i]);
        for (int64_t e = 0; e < (int64_t)TIMING_LEN * dk; e++)
            v[e] = (float)((int)((e * (7 + 2 * i)) % 17) - 8) / 8.0f;
    }
    return g;
}

/* Every candidate's best forward-and-backward time on heads of dk into
 * seconds; false when a graph could not be made (out of memory). */
static bool time_candidates(int dk, double *seconds)
{
    rf_graph *g[RF_ATTN_TILES];
    bool ok = true;
    for (int c = 0; c < RF_ATTN_TILES; c++) {
        g[c] = timing_graph(dk, rf_attn_tiles[c]);
        ok &= g[c] != NULL;
        seconds[c] = INFINITY;
    }
    rf_pool *pool = rf_pool_new(1);
    for (int run = -1; ok && run < TIMING_RUNS; run++)   /* run -1 warms every candidate up */
        for (int c = 0; c < RF_ATTN_TILES; c++) {
            rf_exec x;
            rf_exec_init(&x, g[c], pool, 1, 1, false);
            double t0 = now_s();
            rf_graph_forward(g[c], &x);
            rf_graph_backward(g[c], &x, NULL);
            double t = now_s() - t0;
            if (run >= 0 && t < seconds[c])
                seconds[c] = t;
        }
    rf_pool_free(pool);
    for (int c = 0; c < RF_ATTN_TILES; c++)
        rf_graph_free(g[c]);
    return ok;
}

rf_attn_tile rf_tiles_attention(int dk)
{
    pthread_mutex_lock(&S.lock);
    mode_from_env();
    const rf_tile_entry *known = find(dk);
    rf_tile_entry e = {.dk = dk, .tile = rf_attn_tiles[0], .origin = RF_TILE_DEFAULT};
    if (known != NULL || S.mode != MODE_AUTO) {
        rf_attn_tile t = known != NULL           ? known->tile
                         : S.mode == MODE_DEFAULT ? rf_attn_tiles[0]
                                                  : rf_attn_tiles[S.mode];
        if (known == NULL) {
            e.tile = t;
            e.origin = S.mode == MODE_DEFAULT ? RF_TILE_DEFAULT : RF_TILE_FORCED;
            record(&e);
        }
        pthread_mutex_unlock(&S.lock);
        return t;
    }
    char *path = rf_tiles_cache_path();
    read_cache(path);
    if (cached(dk, &e)) {
        e.origin = RF_TILE_CACHED;
        rf_attn_tile t = record(&e);
        pthread_mutex_unlock(&S.lock);
        free(path);
        return t;
    }
    pthread_mutex_unlock(&S.lock);

    /* time outside the lock: other graphs may run meanwhile */
    bool timed = time_candidates(dk, e.seconds);
    int best = 0;
    for (int c = 1; timed && c < RF_ATTN_TILES; c++)
        if (e.seconds[c] < e.seconds[best])
            best = c;

    pthread_mutex_lock(&S.lock);
    known = find(dk);   /* another thread may have chosen meanwhile: the first choice holds */
    rf_attn_tile t = known != NULL ? known->tile : rf_attn_tiles[best];
    if (known == NULL && timed) {
        e.tile = t;
        e.origin = RF_TILE_TIMED;
        record(&e);
        if (path != NULL)
            save_cache(path, &e);
    } else if (known == NULL) {
        for (int c = 0; c < RF_ATTN_TILES; c++)
            e.seconds[c] = 0;
        record(&e);   /* untimed: the default */
    }
    pthread_mutex_unlock(&S.lock);
    free(path);
    return t;
}

void rf_tiles_prepare(rf_graph *g)
{
    for (int i = 0; i < g->count; i++) {
        rf_node *n = &g->nodes[i];
        if (n->op == RF_OP_ATTENTION && n->tile.qb == 0)
            n->tile = rf_tiles_attention((int)(n->shape.dim[2] / n->ia[0]));
    }
}

int rf_tiles_entries(rf_tile_entry *out, int max)
{
    pthread_mutex_lock(&S.lock);
    int n = S.count;
    memcpy(out, S.entries, (size_t)(n < max ? n : max) * sizeof *out);
    pthread_mutex_unlock(&S.lock);
    return n;
}

void rf_tiles_forget(void)
{
    pthread_mutex_lock(&S.lock);
    free(S.file);
    S.file = NULL;
    S.file_count = S.count = 0;
    S.file_read = S.mode_set = false;
    pthread_mutex_unlock(&S.lock);
}

const char *rf_tile_origin_name(rf_tile_origin o)
{
    static const char *const name[] = {"default", "forced", "timed now", "from the cache"};
    return name[o];
}

void rf_tiles_report(FILE *f)
{
    pthread_mutex_lock(&S.lock);
    fprintf(f, "%-22s %12s  ", "attention tile (dk)", "tile");
    char name[32];
    for (int c = 0; c < RF_ATTN_TILES; c++)
        fprintf(f, "%14s ms", rf_attn_tile_name(rf_attn_tiles[c], name, sizeof name));
    fprintf(f, "  choice\n");
    for (int i = 0; i < S.count; i++) {
        const rf_tile_entry *e = &S.entries[i];
        char dk[32];
        snprintf(dk, sizeof dk, "dk = %d", e->dk);
        fprintf(f, "%-22s %12s  ", dk, rf_attn_tile_name(e->tile, name, sizeof name));
        for (int c = 0; c < RF_ATTN_TILES; c++)
            if (e->seconds[c] > 0)
                fprintf(f, "%17.3f", 1e3 * e->seconds[c]);
            else
                fprintf(f, "%17s", "-");
        fprintf(f, "  %s\n", rf_tile_origin_name(e->origin));
    }
    pthread_mutex_unlock(&S.lock);
}
