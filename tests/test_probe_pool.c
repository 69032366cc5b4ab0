/* Pooled probes (core/probe.h, rf_probe_window): a window of a tap's map
 * reduced to at most rows x cols cells by max or mean.
 *  - full attention's probabilities, computed on demand block by block
 *    (core/cpu/attention_pool.c), equal the naive softmax pooled naively,
 *    for windows that do not fall on the kernel's blocks, with a key mask
 *    and two heads; at one cell per position they are the exact map;
 *  - a map a tap reads from a buffer (the long-short windows, BLRP's
 *    latents go this way) pools the same way, and so do TaLK's window
 *    bounds, a view into the op's saved tensors at an offset, against
 *    the exact probe of them;
 *  - at N = 32,768 a pooled request allocates nothing near N x N floats
 *    (the largest malloc is watched; plain builds only, where the test
 *    owns malloc) and the set holds only its cells;
 *  - a streamed set hands its reader what a copying set keeps, and holds
 *    nothing itself; detaching the probe frees the map's on-demand space
 *    (plain builds, from glibc's count);
 *  - a window outside the map is refused, naming the probe. */
#include <malloc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../core/exec.h"
#include "../core/ops/talk.h"
#include "../core/probe.h"
#include "../core/rng.h"
#include "tap.h"

#if defined(__SANITIZE_ADDRESS__)
#define WATCH_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WATCH_MALLOC 0
#endif
#endif
#ifndef WATCH_MALLOC
#define WATCH_MALLOC 1
#endif

#if WATCH_MALLOC
/* The largest single request since the last reset, through glibc's own
 * allocator (free, calloc and realloc stay glibc's). */
extern void *__libc_malloc(size_t size);
static size_t largest_malloc;
void *malloc(size_t size)
{
    size_t seen = __atomic_load_n(&largest_malloc, __ATOMIC_RELAXED);
    while (size > seen && !__atomic_compare_exchange_n(&largest_malloc, &seen, size, true, __ATOMIC_RELAXED,
                                                       __ATOMIC_RELAXED))
        ;
    return __libc_malloc(size);
}
#endif

static void fill(float *v, int64_t n, bool mask, rf_rng *rng)
{
    for (int64_t i = 0; i < n; i++)
        v[i] = mask ? (rf_rng_uniform(rng) < 0.25 ? 0.0f : 1.0f) : (float)rf_rng_normal(rng);
}

/* The naive pooling of plane [.., m] over w: every cell's max or mean. */
static void naive_pool(const double *plane, int64_t m, const rf_probe_window *w, double *out)
{
    int64_t R = w->rows < w->r1 - w->r0 ? w->rows : w->r1 - w->r0;
    int64_t C = w->cols < w->c1 - w->c0 ? w->cols : w->c1 - w->c0;
    for (int64_t i = 0; i < R; i++)
        for (int64_t j = 0; j < C; j++) {
            int64_t a0 = w->r0 + i * (w->r1 - w->r0) / R, a1 = w->r0 + (i + 1) * (w->r1 - w->r0) / R;
            int64_t b0 = w->c0 + j * (w->c1 - w->c0) / C, b1 = w->c0 + (j + 1) * (w->c1 - w->c0) / C;
            double mx = -INFINITY, sum = 0;
            for (int64_t a = a0; a < a1; a++)
                for (int64_t b = b0; b < b1; b++) {
                    mx = fmax(mx, plane[a * m + b]);
                    sum += plane[a * m + b];
                }
            out[i * C + j] = w->reduce == RF_POOL_MAX ? mx : sum / (double)((a1 - a0) * (b1 - b0));
        }
}

/* Worst |got - want| / (tol (|want| + 1e-6)) over n cells. */
static double worst_error(const float *got, const double *want, int64_t n, double tol)
{
    double worst = 0;
    for (int64_t i = 0; i < n; i++)
        worst = fmax(worst, fabs(got[i] - want[i]) / (tol * (fabs(want[i]) + 1e-6)));
    return worst;
}

/* ---- full attention ---- */

typedef struct attn_graph {
    rf_graph *g;
    rf_id q, k, m, a;
    int64_t B, N, M, D, H;
    float scale;
} attn_graph;

static bool attn_build(attn_graph *t, int64_t B, int64_t N, int64_t M, int64_t D, int64_t H, uint64_t seed)
{
    *t = (attn_graph){.g = rf_graph_new(NULL), .B = B, .N = N, .M = M, .D = D, .H = H, .scale = 0.7f};
    rf_graph *g = t->g;
    t->q = rf_input(g, "q", rf_shape3(B, N, D), false);
    t->k = rf_input(g, "k", rf_shape3(B, M, D), false);
    rf_id v = rf_input(g, "v", rf_shape3(B, M, D), false);
    t->m = rf_input(g, "m", rf_shape2(B, M), false);
    t->a = rf_attention(g, t->q, t->k, v, t->m, (int)H, t->scale, 0.0f);
    rf_graph_keep(g, t->a);
    rf_status st = {0};
    if (!rf_tap_add(g, "probs", t->a, RF_TAP_AUX, rf_shape4(B, H, N, M), 0) ||
        !rf_tap_add(g, "out", t->a, RF_TAP_VALUE, rf_shape3(B, N, D), 0) || !rf_graph_prepare(g, RF_NONE, 2, NULL, &st))
        return false;
    rf_rng rng = {seed};
    fill(rf_value(g, t->q), B * N * D, false, &rng);
    fill(rf_value(g, t->k), B * M * D, false, &rng);
    fill(rf_value(g, v), B * M * D, false, &rng);
    fill(rf_value(g, t->m), B * M, true, &rng);
    return true;
}

/* Sample s's probabilities [H, N, M], in double, the softmax of its scores. */
static double *naive_probs(const attn_graph *t, int64_t s)
{
    const float *q = rf_value(t->g, t->q), *k = rf_value(t->g, t->k), *m = rf_value(t->g, t->m);
    int64_t N = t->N, M = t->M, D = t->D, dk = D / t->H;
    double *p = malloc((size_t)(t->H * N * M) * sizeof *p);
    for (int64_t h = 0; h < t->H; h++)
        for (int64_t i = 0; i < N; i++) {
            double *row = p + (h * N + i) * M, mx = -INFINITY, sum = 0;
            for (int64_t j = 0; j < M; j++) {
                double dot = 0;
                for (int64_t c = 0; c < dk; c++)
                    dot += (double)q[(s * N + i) * D + h * dk + c] * k[(s * M + j) * D + h * dk + c];
                row[j] = m[s * M + j] != 0.0f ? t->scale * dot : -INFINITY;
                mx = fmax(mx, row[j]);
            }
            for (int64_t j = 0; j < M; j++)
                sum += row[j] == -INFINITY ? 0 : exp(row[j] - mx);
            for (int64_t j = 0; j < M; j++)
                row[j] = row[j] == -INFINITY ? 0 : exp(row[j] - mx) / sum;
        }
    return p;
}

/* One forward with the probe attached; false if it was not filled. */
static bool probe_forward(rf_graph *g, rf_probe_set *ps, rf_pool *pool)
{
    rf_exec x;
    rf_exec_init(&x, g, pool, 1, 1, false);
    rf_probe_attach(g, ps);
    rf_graph_forward(g, &x);
    rf_probe_attach(g, NULL);
    return ps->values[0].filled;
}

static void test_attention_windows(rf_pool *pool)
{
    const int64_t S = 1;
    attn_graph t;
    if (!tap_ok(attn_build(&t, 2, 301, 613, 8, 2, 5), "full attention N = 301, M = 613, 2 heads, a key mask")) {
        rf_graph_free(t.g);
        return;
    }
    double *exact = naive_probs(&t, S);
    /* the exact probe path, which pooling at one cell per position must give */
    const char *exact_name[] = {"probs"};
    rf_status est = {0};
    rf_probe_set *whole = rf_probe_set_new(t.g, exact_name, 1, (int)S, &est);
    if (whole == NULL || !probe_forward(t.g, whole, pool)) {
        tap_ok(false, "the exact map of sample %d", (int)S);
        rf_probe_set_free(whole);
        free(exact);
        rf_graph_free(t.g);
        return;
    }
    const struct {
        int64_t r0, r1, c0, c1, rows, cols;
        const char *what;
    } cases[] = {
        {0, 301, 0, 613, 19, 23, "the whole map into 19 x 23 cells"},
        {37, 290, 5, 600, 17, 41, "a window off the blocks into 17 x 41"},
        {3, 250, 100, 613, 1000, 1000, "a window smaller than the cells asked: one cell per position"},
        {0, 301, 0, 613, 301, 613, "the whole map at one cell per position"},
        {290, 291, 7, 9, 5, 5, "one query, two keys"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int reduce = RF_POOL_MAX; reduce <= RF_POOL_MEAN; reduce++) {
            rf_probe_window w = {cases[c].r0, cases[c].r1, cases[c].c0, cases[c].c1, cases[c].rows, cases[c].cols,
                                 (rf_pool_reduce)reduce};
            const rf_probe_window *ws[] = {&w};
            const char *names[] = {"probs"};
            rf_status st = {0};
            rf_probe_set *ps = rf_probe_set_new_pooled(t.g, names, ws, 1, (int)S, &st);
            int64_t R, C;
            rf_probe_window_cells(&w, &R, &C);
            bool ok = ps != NULL && probe_forward(t.g, ps, pool) && ps->values[0].shape.ndim == 3 &&
                      ps->values[0].shape.dim[0] == t.H && ps->values[0].shape.dim[1] == R &&
                      ps->values[0].shape.dim[2] == C;
            double worst = INFINITY;
            if (ok) {
                double *want = malloc((size_t)(t.H * R * C) * sizeof *want);
                for (int64_t h = 0; h < t.H; h++)
                    naive_pool(exact + h * t.N * t.M, t.M, &w, want + h * R * C);
                worst = worst_error(ps->values[0].data, want, t.H * R * C, 1e-5);
                free(want);
            }
            tap_ok(ok && worst <= 1, "attention, %s, %s: [2, %lld, %lld] equals the naive map pooled (worst %.3g of "
                   "a 1e-5 relative bound)", cases[c].what, reduce == RF_POOL_MAX ? "max" : "mean", (long long)R,
                   (long long)C, worst);
            if (ok && R == w.r1 - w.r0 && C == w.c1 - w.c0) {
                float diff = 0;
                for (int64_t h = 0; h < t.H; h++)
                    for (int64_t i = 0; i < R; i++)
                        for (int64_t j = 0; j < C; j++)
                            diff = fmaxf(diff, fabsf(ps->values[0].data[(h * R + i) * C + j] -
                                                     whole->values[0].data[(h * t.N + w.r0 + i) * t.M + w.c0 + j]));
                tap_ok(diff <= 1e-7f, "  one cell per position: the exact probe's map (largest difference %.3g)",
                       (double)diff);
            }
            tap_ok(rf_graph_node(t.g, t.a)->probe_aux == NULL,
                   "  the kernel left no [heads, N, M] map: the hook pooled from q, k and the log-sum-exps");
            rf_probe_set_free(ps);
        }
    rf_probe_set_free(whole);
    free(exact);
    rf_graph_free(t.g);
}

/* A map a tap reads from a buffer: a value [B, N, M] pooled per sample. */
static void test_buffer_tap(rf_pool *pool)
{
    const int64_t B = 3, N = 517, M = 7, S = 2;
    rf_graph *g = rf_graph_new(NULL);
    rf_id x = rf_input(g, "x", rf_shape3(B, N, M), false);
    rf_id y = rf_sigmoid(g, x);
    rf_status st = {0};
    bool built = rf_tap_add(g, "bounds", y, RF_TAP_VALUE, rf_shape3(B, N, M), 0);
    rf_graph_keep(g, y);
    if (!tap_ok(built && rf_graph_prepare(g, RF_NONE, 2, NULL, &st), "a value tap [3, 517, 7]")) {
        rf_graph_free(g);
        return;
    }
    rf_rng rng = {9};
    fill(rf_value(g, x), B * N * M, false, &rng);
    double *plane = malloc((size_t)(N * M) * sizeof *plane);
    for (int64_t i = 0; i < N * M; i++)
        plane[i] = 1.0 / (1.0 + exp(-(double)rf_value(g, x)[S * N * M + i]));
    for (int reduce = RF_POOL_MAX; reduce <= RF_POOL_MEAN; reduce++) {
        rf_probe_window w = {11, 500, 1, 7, 40, 3, (rf_pool_reduce)reduce};
        const rf_probe_window *ws[] = {&w};
        const char *names[] = {"bounds"};
        rf_probe_set *ps = rf_probe_set_new_pooled(g, names, ws, 1, (int)S, &st);
        bool ok = ps != NULL && probe_forward(g, ps, pool) && ps->values[0].shape.ndim == 2 &&
                  ps->values[0].shape.dim[0] == 40 && ps->values[0].shape.dim[1] == 3;
        double want[40 * 3], worst = INFINITY;
        if (ok) {
            naive_pool(plane, M, &w, want);
            worst = worst_error(ps->values[0].data, want, 40 * 3, 1e-5);
        }
        tap_ok(ok && worst <= 1, "a buffer's map, tokens [11, 500) x columns [1, 7) into 40 x 3, %s: equals the naive "
               "pooling (worst %.3g of its bound)", reduce == RF_POOL_MAX ? "max" : "mean", worst);
        rf_probe_set_free(ps);
    }
    free(plane);
    rf_graph_free(g);
}

/* RF_POOL_SPAN the plain way: per cell and column, every token's bound
 * less its position, the least of the left bounds (first half of the
 * columns), the greatest of the right ones. */
static void naive_span(const double *plane, int64_t m, const rf_probe_window *w, double *out)
{
    for (int64_t i = 0; i < w->rows; i++)
        for (int64_t j = 0; j < m; j++) {
            double best = j < m / 2 ? INFINITY : -INFINITY;
            for (int64_t t = rf_pool_edge(w->r0, w->r1, w->rows, i); t < rf_pool_edge(w->r0, w->r1, w->rows, i + 1);
                 t++)
                best = j < m / 2 ? fmin(best, plane[t * m + j] - (double)t) : fmax(best, plane[t * m + j] - (double)t);
            out[i * m + j] = best;
        }
}

/* TaLK's bounds [B, N, 2H], an RF_TAP_AUX view at an offset into aux. */
static void test_talk_bounds(rf_pool *pool)
{
    const int64_t B = 2, N = 403, D = 12, H = 3, S = 1;
    rf_graph *g = rf_graph_new(NULL);
    rf_id x = rf_input(g, "x", rf_shape3(B, N, D), false), z = rf_input(g, "z", rf_shape3(B, N, 2 * H), false);
    rf_id c = rf_talk(g, x, rf_sigmoid(g, z), RF_NONE, 9, 4);
    rf_status st = {0};
    bool built = c != RF_NONE &&
                 rf_tap_add(g, "bounds", c, RF_TAP_AUX, rf_shape3(B, N, 2 * H), rf_talk_bounds_offset(g, c));
    rf_graph_keep(g, c);
    if (!tap_ok(built && rf_graph_prepare(g, RF_NONE, 2, NULL, &st), "TaLK's bounds tap [2, 403, 6]")) {
        rf_graph_free(g);
        return;
    }
    rf_rng rng = {21};
    fill(rf_value(g, x), B * N * D, false, &rng);
    fill(rf_value(g, z), B * N * 2 * H, false, &rng);
    const char *names[] = {"bounds"};
    rf_probe_set *whole = rf_probe_set_new(g, names, 1, (int)S, &st);
    if (!tap_ok(whole != NULL && probe_forward(g, whole, pool), "the exact bounds of sample %d", (int)S)) {
        rf_probe_set_free(whole);
        rf_graph_free(g);
        return;
    }
    double *plane = malloc((size_t)(N * 2 * H) * sizeof *plane);
    for (int64_t i = 0; i < N * 2 * H; i++)
        plane[i] = whole->values[0].data[i];
    static const char *const reducer[] = {"max", "mean", "span"};
    for (int reduce = RF_POOL_MAX; reduce <= RF_POOL_SPAN; reduce++) {
        rf_probe_window w = {5, 398, 0, 2 * H, 31, 2 * H, (rf_pool_reduce)reduce};
        const rf_probe_window *ws[] = {&w};
        rf_probe_set *ps = rf_probe_set_new_pooled(g, names, ws, 1, (int)S, &st);
        bool ok = ps != NULL && probe_forward(g, ps, pool) && ps->values[0].shape.dim[0] == 31 &&
                  ps->values[0].shape.dim[1] == 2 * H;
        double want[31 * 6], worst = INFINITY;
        if (ok) {
            if (reduce == RF_POOL_SPAN)
                naive_span(plane, 2 * H, &w, want);
            else
                naive_pool(plane, 2 * H, &w, want);
            worst = worst_error(ps->values[0].data, want, 31 * 2 * H, 1e-6);
        }
        tap_ok(ok && worst <= 1, "TaLK's bounds, tokens [5, 398) into 31 cells, every bound kept, %s: the exact "
               "bounds pooled (worst %.3g of its bound)", reducer[reduce], worst);
        rf_probe_set_free(ps);
    }
    rf_probe_window pooled_cols = {0, N, 0, 2 * H, 31, H, RF_POOL_SPAN};
    const rf_probe_window *pc[] = {&pooled_cols};
    rf_probe_set *refused = rf_probe_set_new_pooled(g, names, pc, 1, (int)S, &st);
    tap_ok(refused == NULL && strstr(st.msg, "probe 'bounds'") != NULL && strstr(st.msg, "unpooled") != NULL,
           "span with the bounds' columns pooled is refused: %s", st.msg);
    rf_probe_set_free(refused);
    free(plane);
    rf_probe_set_free(whole);
    rf_graph_free(g);
}

static void test_bad_windows(void)
{
    attn_graph t;
    if (!attn_build(&t, 1, 70, 90, 4, 1, 3)) {
        tap_ok(false, "a small attention graph");
        rf_graph_free(t.g);
        return;
    }
    const char *names[] = {"probs"};
    rf_probe_window outside = {0, 71, 0, 90, 10, 10, RF_POOL_MAX}, empty = {5, 5, 0, 90, 10, 10, RF_POOL_MAX},
                    no_cells = {0, 70, 0, 90, 0, 10, RF_POOL_MEAN}, span = {0, 70, 0, 90, 10, 90, RF_POOL_SPAN};
    const rf_probe_window *cases[] = {&outside, &empty, &no_cells, &span};
    const char *what[] = {"rows past the map", "an empty window", "no cells", "span on attention"};
    const char *word[] = {"not inside its 70 x 90 map", "not inside its 70 x 90 map", "at least one cell",
                          "not span"};
    for (int c = 0; c < 4; c++) {
        rf_status st = {0};
        const rf_probe_window *ws[] = {cases[c]};
        rf_probe_set *ps = rf_probe_set_new_pooled(t.g, names, ws, 1, 0, &st);
        tap_ok(ps == NULL && strstr(st.msg, "probe 'probs'") != NULL && strstr(st.msg, word[c]) != NULL,
               "a window with %s is refused: %s", what[c], st.msg);
        rf_probe_set_free(ps);
    }
    rf_graph_free(t.g);
}

/* What a streamed set's reader saw: each value's view, copied here. */
typedef struct streamed_views {
    float *view[2];
    int64_t n[2];
} streamed_views;

static void keep_view(void *ctx, int value, const float *view, int64_t n)
{
    streamed_views *s = ctx;
    s->view[value] = malloc((size_t)n * sizeof(float));
    memcpy(s->view[value], view, (size_t)n * sizeof(float));
    s->n[value] = n;
}

/* A streamed set hands its reader the same floats a copying set keeps,
 * for a value and for a map computed on demand, and holds nothing itself. */
static void test_streamed(rf_pool *pool)
{
    attn_graph t;
    if (!tap_ok(attn_build(&t, 3, 37, 29, 8, 2, 5), "full attention [3, 37 x 29], two heads, for a streamed probe")) {
        rf_graph_free(t.g);
        return;
    }
    const char *names[] = {"probs", "out"};
    rf_status st = {0};
    streamed_views seen = {0};
    rf_probe_set *copy = rf_probe_set_new(t.g, names, 2, 1, &st);
    rf_probe_set *streamed = rf_probe_set_new_streamed(t.g, names, 2, 1, keep_view, &seen, &st);
    bool ran = copy != NULL && streamed != NULL && probe_forward(t.g, copy, pool) && probe_forward(t.g, streamed, pool);
    bool same = ran && streamed->values[1].filled;
    for (int i = 0; same && i < 2; i++) {
        int64_t n = rf_shape_numel(copy->values[i].shape);
        same = seen.n[i] == n && memcmp(seen.view[i], copy->values[i].data, (size_t)n * sizeof(float)) == 0;
    }
    tap_ok(same, "a streamed set's reader gets sample 1's probabilities (computed on demand) and output, bit for bit "
           "the copying set's");
    tap_ok(ran && rf_probe_set_bytes(streamed) == 0 && streamed->values[0].data == NULL &&
               rf_probe_set_bytes(copy) == (size_t)(2 * 37 * 29 + 37 * 8) * sizeof(float),
           "  and holds no bytes, where the copying set holds its %zu", copy != NULL ? rf_probe_set_bytes(copy) : 0);
    rf_probe_set *all = rf_probe_set_new_streamed(t.g, names, 2, RF_PROBE_ALL_ROWS, keep_view, &seen, &st);
    tap_ok(all == NULL && strstr(st.msg, "one sample") != NULL, "a streamed set of every row is refused (%s)", st.msg);
    rf_probe_set_free(copy);
    rf_probe_set_free(streamed);
    free(seen.view[0]);
    free(seen.view[1]);
    rf_graph_free(t.g);
}

/* The on-demand map's space (here 2 x 512 x 512 floats) is the kernel's
 * while the probe is attached and goes back when it is detached. */
static void test_space_released(rf_pool *pool)
{
#if !WATCH_MALLOC
    (void)pool;
    tap_skip("the map's space freed on detaching", "the heap's own count (mallinfo2) is not kept under the address "
             "sanitizer");
#else
    attn_graph t;
    if (!tap_ok(attn_build(&t, 1, 512, 512, 8, 2, 7), "full attention [1, 512 x 512], two heads, probed on demand")) {
        rf_graph_free(t.g);
        return;
    }
    const char *names[] = {"probs"};
    rf_status st = {0};
    streamed_views seen = {0};
    rf_probe_set *ps = rf_probe_set_new_streamed(t.g, names, 1, 0, keep_view, &seen, &st);
    rf_exec x;
    rf_exec_init(&x, t.g, pool, 1, 1, false);
    rf_probe_attach(t.g, ps);
    rf_graph_forward(t.g, &x);
    free(seen.view[0]);
    struct mallinfo2 attached = mallinfo2();
    rf_probe_attach(t.g, NULL);
    struct mallinfo2 detached = mallinfo2();
    double map = 2.0 * 512 * 512 * sizeof(float),
           freed = (double)(attached.uordblks + attached.hblkhd) - (double)(detached.uordblks + detached.hblkhd);
    tap_ok(ps != NULL && seen.n[0] == 2 * 512 * 512 && freed >= map,
           "detaching the probe frees the %.0f bytes of the map it computed on demand (freed %.0f)", map, freed);
    rf_probe_set_free(ps);
    rf_graph_free(t.g);
#endif
}

/* Taps asked against their nodes' order (the later node first): the
 * hook's index of the set by node still finds both. */
static void test_reverse_order(rf_pool *pool)
{
    rf_graph *g = rf_graph_new(NULL);
    rf_id x = rf_input(g, "x", rf_shape2(2, 5), false);
    rf_id y = rf_sigmoid(g, x), z = rf_sigmoid(g, y);
    rf_graph_keep(g, y);
    rf_graph_keep(g, z);
    rf_status st = {0};
    bool built = rf_tap_add(g, "y", y, RF_TAP_VALUE, rf_shape2(2, 5), 0) &&
                 rf_tap_add(g, "z", z, RF_TAP_VALUE, rf_shape2(2, 5), 0) && rf_graph_prepare(g, RF_NONE, 2, NULL, &st);
    const char *names[] = {"z", "y"};
    rf_probe_set *ps = built ? rf_probe_set_new(g, names, 2, 1, &st) : NULL;
    rf_rng rng = {3};
    if (built)
        fill(rf_value(g, x), 10, false, &rng);
    bool read = ps != NULL && probe_forward(g, ps, pool) && ps->values[1].filled &&
                memcmp(ps->values[0].data, rf_value(g, z) + 5, 5 * sizeof(float)) == 0 &&
                memcmp(ps->values[1].data, rf_value(g, y) + 5, 5 * sizeof(float)) == 0;
    tap_ok(read, "taps asked in the reverse of their nodes' order are both read, each its own node's sample 1");
    rf_probe_set_free(ps);
    rf_graph_free(g);
}

/* A long sequence: nothing N x N is allocated, the set holds its cells. */
static void test_long_sequence(rf_pool *pool)
{
#if WATCH_MALLOC
    const int64_t N = 32768;
#else
    const int64_t N = 8192;   /* the allocation is not watched here: keep it quick */
#endif
    const int64_t R = 300, C = 400, full_bytes = N * N * (int64_t)sizeof(float);
#if WATCH_MALLOC
    /* If the map were allocated after all, let that fail rather than fill the machine. */
    struct rlimit lim;
    getrlimit(RLIMIT_AS, &lim);
    struct rlimit cap = {(rlim_t)3 << 30, lim.rlim_max};
    setrlimit(RLIMIT_AS, &cap);
#endif
    attn_graph t;
    if (!tap_ok(attn_build(&t, 1, N, N, 8, 1, 17), "full attention at N = %lld, one head of 8", (long long)N)) {
        rf_graph_free(t.g);
        return;
    }
    rf_probe_window w = {0, N, 0, N, R, C, RF_POOL_MAX};
    const rf_probe_window *ws[] = {&w};
    const char *names[] = {"probs"};
    rf_status st = {0};
#if WATCH_MALLOC
    largest_malloc = 0;
#endif
    rf_probe_set *ps = rf_probe_set_new_pooled(t.g, names, ws, 1, 0, &st);
    bool filled = ps != NULL && probe_forward(t.g, ps, pool);
    tap_ok(filled && rf_probe_set_bytes(ps) == (size_t)(R * C) * sizeof(float),
           "a pooled %lld x %lld request at N = %lld holds %zu bytes (its map would be %lld)", (long long)R,
           (long long)C, (long long)N, ps != NULL ? rf_probe_set_bytes(ps) : 0, (long long)full_bytes);
#if WATCH_MALLOC
    tap_ok(largest_malloc < (size_t)full_bytes / 64,
           "  and its largest allocation is %zu bytes, under 1/64 of the N x N map", largest_malloc);
    setrlimit(RLIMIT_AS, &lim);
#else
    tap_skip("the largest allocation at N = 32,768", "a sanitiser owns malloc in this build");
#endif
    /* every row of a softmax sums to 1 over valid keys: each row's cells
     * hold its largest probability somewhere, above the uniform 1/N */
    int64_t low = 0;
    for (int64_t i = 0; filled && i < R; i++) {
        float mx = 0;
        for (int64_t j = 0; j < C; j++)
            mx = fmaxf(mx, ps->values[0].data[i * C + j]);
        low += mx < 1.0f / (float)N;
    }
    tap_ok(filled && low == 0, "  every pooled row's max is at least 1/N (%lld below)", (long long)low);
    rf_probe_set_free(ps);
    rf_graph_free(t.g);
}

int main(void)
{
    rf_pool *pool = rf_pool_new(2);
    test_attention_windows(pool);
    test_buffer_tap(pool);
    test_streamed(pool);
    test_reverse_order(pool);
    test_space_released(pool);
    test_talk_bounds(pool);
    test_bad_windows();
    test_long_sequence(pool);
    rf_pool_free(pool);
    return tap_done();
}
