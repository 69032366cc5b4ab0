/* Transformer-LS's fused long-short attention op (SPEC §2) against a naive
 * reference: full attention over all N local keys plus the G global keys
 * under an explicit (N x (N + G)) band-plus-globals mask, softmax in
 * double; gradients of q and of the stacked local/global k and v against
 * finite differences; shape errors; the same bits for any thread count.
 * The mixer built on it is test_mech_ls.c's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/exec.h"
#include "../core/ops/ls_attention.h"
#include "../core/rng.h"
#include "ls_reference.h"
#include "opcheck.h"
#include "tap.h"
#include "tolerance.h"

typedef struct {
    int B, N, G, D, H, w;
    float scale;
    bool mask;
} op_case;

static rf_id build_op(rf_graph *g, const rf_id *in, const void *ctx)
{
    const op_case *c = ctx;
    return rf_ls_attention(g, in[0], in[1], in[2], c->mask ? in[3] : RF_NONE, c->H, c->w, c->scale);
}

/* allowed [N, N + G] for one batch item: query t sees local key j iff both
 * are valid and j lies in [s*w - e, (s+1)*w + e), s = t / w; it sees every
 * global key iff it is valid itself. */
static void op_allowed(const op_case *c, const double *mask, unsigned char *allowed)
{
    int e = extent(c->w), M = c->N + c->G;
    for (int t = 0; t < c->N; t++)
        for (int j = 0; j < M; j++) {
            int s = t / c->w;
            bool ok = mask == NULL || mask[t] != 0;
            if (j < c->N)
                ok = ok && j >= s * c->w - e && j < (s + 1) * c->w + e && (mask == NULL || mask[j] != 0);
            allowed[t * M + j] = ok;
        }
}

/* in: q [B, N, D], k, v [B, N + G, D], mask [B, N] -> out [B, N, D] */
static void ref_op(const double *const *in, double *out, const void *ctx)
{
    const op_case *c = ctx;
    int M = c->N + c->G, dk = c->D / c->H;
    unsigned char *allowed = malloc((size_t)c->N * M);
    double *p = malloc((size_t)M * sizeof *p);
    for (int b = 0; b < c->B; b++) {
        op_allowed(c, c->mask ? in[3] + b * c->N : NULL, allowed);
        const double *q = in[0] + b * c->N * c->D, *k = in[1] + b * M * c->D, *v = in[2] + b * M * c->D;
        for (int h = 0; h < c->H; h++)
            for (int t = 0; t < c->N; t++) {
                /* only the allowed keys: the finite differences call this
                 * twice per input element, and most keys lie outside the band */
                const unsigned char *ok = allowed + t * M;
                for (int j = 0; j < M; j++)
                    p[j] = ok[j] ? c->scale * dot(q + t * c->D + h * dk, k + j * c->D + h * dk, dk) : 0.0;
                softmax_masked(p, ok, M);
                for (int i = 0; i < dk; i++) {
                    double s = 0;
                    for (int j = 0; j < M; j++)
                        if (ok[j])
                            s += p[j] * v[j * c->D + h * dk + i];
                    out[(b * c->N + t) * c->D + h * dk + i] = s;
                }
            }
    }
    free(allowed);
    free(p);
}

static void run_op(const char *name, op_case c, uint64_t seed)
{
    opcheck_case oc = {
        .name = name,
        .n_in = c.mask ? 4 : 3,
        .shape = {rf_shape3(c.B, c.N, c.D), rf_shape3(c.B, c.N + c.G, c.D), rf_shape3(c.B, c.N + c.G, c.D),
                  rf_shape2(c.B, c.N)},
        .kind = {OPCHECK_NORMAL, OPCHECK_NORMAL, OPCHECK_NORMAL, OPCHECK_MASK},
        .build = build_op,
        .reference = ref_op,
        .ctx = &c,
        .seed = seed,
    };
    opcheck_run(&oc);
}

static void test_op(void)
{
    run_op("ls_attention N=12 w=4 G=3, 2 heads, mask", (op_case){2, 12, 3, 6, 2, 4, 0.7f, true}, 0);
    run_op("ls_attention odd w=3 N=9 G=2, 1 head, mask", (op_case){2, 9, 2, 4, 1, 3, 0.5f, true}, 3);
    run_op("ls_attention w=1 (e=1) N=5 G=2, 2 heads, mask", (op_case){2, 5, 2, 4, 2, 1, 0.9f, true}, 5);
    run_op("ls_attention w=5 odd, one segment wider than N", (op_case){1, 5, 1, 6, 3, 5, 0.6f, true}, 7);
    run_op("ls_attention w=2 G=0 (window only), no mask", (op_case){2, 6, 0, 4, 2, 2, 0.8f, false}, 9);
    run_op("ls_attention w=6 N=18 G=4, three segments", (op_case){1, 18, 4, 4, 2, 6, 0.5f, true}, 11);
    run_op("ls_attention N=1 w=1: a single query, its band clipped at both ends",
           (op_case){2, 1, 2, 4, 2, 1, 0.8f, true}, 17);
    /* The band kernel (core/cpu/band_product.c, AVX-512 only: on an
     * emulated CPU it declines, and these are the BLAS path of the cases
     * above, so they run natively only): its whole blocks of rows, rows of
     * two vectors (the band of 32 keys) and of two vectors with a tail (dk =
     * 17), and a run of two interior segments in one call; ListOps' window,
     * one head (more heads add cost here, no path). */
    if (tap_portable_run)
        return;
    run_op("ls_attention ListOps' window: w=16 (band 32), dk=17, N=64 G=2, mask",
           (op_case){1, 64, 2, 17, 1, 16, 0.24f, true}, 13);
    /* the comparison settings' geometry: heads of exactly 8 floats (the
     * band kernel's 256-bit path at full width), w = 8 (a band of 16: one
     * softmax mask per segment), interior segments in one run */
    run_op("ls_attention w=8 (band 16), dk=8, N=40 G=3, 2 heads, mask", (op_case){1, 40, 3, 16, 2, 8, 0.35f, true}, 19);
    /* a band wider than the band kernel takes (66 > RF_BAND_N): the BLAS path */
    run_op("ls_attention w=33 (band 66), dk=4, N=66 G=1, mask", (op_case){1, 66, 1, 4, 1, 33, 0.45f, true}, 15);
}

/* A fully padded batch item: zero outputs (no NaN) and zero gradients for
 * its q, local k and v, while the other item is untouched. */
static void test_op_padded_item(void)
{
    const int B = 2, N = 6, G = 2, D = 4, H = 2, w = 2;
    rf_graph *g = rf_graph_new(NULL);
    rf_id q = rf_input(g, "q", rf_shape3(B, N, D), true);
    rf_id k = rf_input(g, "k", rf_shape3(B, N + G, D), true);
    rf_id v = rf_input(g, "v", rf_shape3(B, N + G, D), true);
    rf_id m = rf_input(g, "m", rf_shape2(B, N), false);
    rf_id out = rf_ls_attention(g, q, k, v, m, H, w, 0.5f);
    rf_graph_keep(g, out);
    rf_status st = {0};
    if (!tap_ok(rf_graph_prepare(g, out, 2, NULL, &st), "padded item case prepares")) {
        tap_diag("%s", st.msg);
        rf_graph_free(g);
        return;
    }
    rf_rng rng = {21};
    rf_id ins[3] = {q, k, v};
    for (int i = 0; i < 3; i++)
        for (int64_t j = 0; j < rf_shape_numel(rf_node_shape(g, ins[i])); j++)
            rf_value(g, ins[i])[j] = (float)rf_rng_normal(&rng);
    for (int t = 0; t < B * N; t++)
        rf_value(g, m)[t] = t < N ? 1.0f : 0.0f;
    rf_exec x;
    rf_exec_init(&x, g, NULL, 1, 0, false);
    rf_graph_forward(g, &x);
    rf_graph_backward(g, &x, NULL);
    bool zero_out = true, finite = true, zero_grad = true, live = false;
    for (int i = 0; i < N * D; i++) {
        zero_out &= rf_value(g, out)[N * D + i] == 0.0f;
        live |= rf_value(g, out)[i] != 0.0f;
    }
    for (int i = 0; i < 3; i++) {
        int64_t n = rf_shape_numel(rf_node_shape(g, ins[i])), half = n / B;
        for (int64_t j = 0; j < n; j++)
            finite &= isfinite(rf_grad(g, ins[i])[j]) != 0;
        for (int64_t j = half; j < half + N * D; j++)
            zero_grad &= rf_grad(g, ins[i])[j] == 0.0f;
    }
    tap_ok(zero_out && live, "a fully padded item outputs zeros, the valid item does not");
    tap_ok(finite && zero_grad, "gradients are finite, and zero for the padded item's q, local k and v");
    rf_graph_free(g);
}

/* ---- shape errors ---- */

static void expect_error(rf_graph *g, rf_id got, const char *what)
{
    const char *err = rf_graph_error(g);
    if (tap_ok(got == RF_NONE && !rf_graph_ok(g) && strstr(err, "ls_attention") != NULL, "rejects %s", what))
        tap_diag("%s", err);
}

typedef struct {
    const char *what;
    rf_shape q, kv, mask;   /* mask ndim 0: none */
    int heads, window;
    bool mask_grad;
} bad_case;

static void check_bad(const bad_case *c)
{
    rf_graph *g = rf_graph_new(NULL);
    rf_id q = rf_input(g, "q", c->q, true), k = rf_input(g, "k", c->kv, true), v = rf_input(g, "v", c->kv, true);
    rf_id m = c->mask.ndim == 0 ? RF_NONE : rf_input(g, "m", c->mask, c->mask_grad);
    expect_error(g, rf_ls_attention(g, q, k, v, m, c->heads, c->window, 1.0f), c->what);
    rf_graph_free(g);
}

static void test_op_errors(void)
{
    const rf_shape none = {0, {1, 1, 1, 1}};
    const bad_case cases[] = {
        {"a 2-D q", rf_shape2(8, 6), rf_shape3(1, 10, 6), none, 2, 4, false},
        {"k with fewer rows than q", rf_shape3(1, 8, 6), rf_shape3(1, 7, 6), none, 2, 4, false},
        {"k of another width", rf_shape3(1, 8, 6), rf_shape3(1, 10, 4), none, 2, 4, false},
        {"a length that is not a multiple of the window", rf_shape3(1, 9, 6), rf_shape3(1, 11, 6), none, 2, 4, false},
        {"window 0", rf_shape3(1, 8, 6), rf_shape3(1, 10, 6), none, 2, 0, false},
        {"heads that do not divide D", rf_shape3(1, 8, 6), rf_shape3(1, 10, 6), none, 4, 4, false},
        {"a mask over N + G keys", rf_shape3(1, 8, 6), rf_shape3(1, 10, 6), rf_shape2(1, 10), 2, 4, false},
        {"a mask that needs a gradient", rf_shape3(1, 8, 6), rf_shape3(1, 10, 6), rf_shape2(1, 8), 2, 4, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_bad(&cases[i]);
}

/* ---- thread-count independence at a size the pool splits ---- */

typedef struct {
    float *out, *grad[3];
} op_run;

static bool run_threads(int threads, op_run *r)
{
    const int B = 2, N = 96, G = 5, D = 16, H = 4, w = 8;
    rf_graph *g = rf_graph_new(NULL);
    rf_id in[4] = {rf_input(g, "q", rf_shape3(B, N, D), true), rf_input(g, "k", rf_shape3(B, N + G, D), true),
                   rf_input(g, "v", rf_shape3(B, N + G, D), true), rf_input(g, "m", rf_shape2(B, N), false)};
    rf_id out = rf_ls_attention(g, in[0], in[1], in[2], in[3], H, w, 0.5f);
    rf_graph_keep(g, out);
    rf_status st = {0};
    if (!rf_graph_prepare(g, out, threads, NULL, &st)) {
        rf_graph_free(g);
        return false;
    }
    rf_rng rng = {31};
    for (int i = 0; i < 4; i++)
        for (int64_t j = 0; j < rf_shape_numel(rf_node_shape(g, in[i])); j++)
            rf_value(g, in[i])[j] = i == 3 ? (rf_rng_uniform(&rng) < 0.2 ? 0.0f : 1.0f) : (float)rf_rng_normal(&rng);
    float *seed = malloc((size_t)B * N * D * sizeof *seed);
    for (int j = 0; j < B * N * D; j++)
        seed[j] = (float)rf_rng_normal(&rng);
    rf_pool *pool = threads > 1 ? rf_pool_new(threads) : NULL;
    rf_exec x;
    rf_exec_init(&x, g, pool, 1, 0, true);
    rf_graph_forward(g, &x);
    rf_graph_backward(g, &x, seed);
    r->out = malloc((size_t)B * N * D * sizeof(float));
    memcpy(r->out, rf_value(g, out), (size_t)B * N * D * sizeof(float));
    for (int i = 0; i < 3; i++) {
        size_t bytes = (size_t)rf_shape_numel(rf_node_shape(g, in[i])) * sizeof(float);
        r->grad[i] = malloc(bytes);
        memcpy(r->grad[i], rf_grad(g, in[i]), bytes);
    }
    rf_pool_free(pool);
    free(seed);
    rf_graph_free(g);
    return true;
}

static void test_op_threads(void)
{
    op_run one, many;
    if (!tap_ok(run_threads(1, &one) && run_threads(3, &many), "ls_attention N=96 w=8 G=5 builds"))
        return;
    bool same = memcmp(one.out, many.out, 2 * 96 * 16 * sizeof(float)) == 0;
    size_t sizes[3] = {2 * 96 * 16, 2 * 101 * 16, 2 * 101 * 16};
    for (int i = 0; i < 3; i++)
        same &= memcmp(one.grad[i], many.grad[i], sizes[i] * sizeof(float)) == 0;
    tap_ok(same, "ls_attention: 1 and 3 threads give bitwise equal outputs and gradients");
    free(one.out);
    free(many.out);
    for (int i = 0; i < 3; i++) {
        free(one.grad[i]);
        free(many.grad[i]);
    }
}

int main(int argc, char **argv)
{
    /* --portable (suite `portable`): the op (its softmax-gradient clones, the
     * band kernel or its fallback) and a padded item */
    bool portable = tap_portable(argc, argv);
    test_op();
    test_op_padded_item();
    if (!portable) {
        test_op_errors();
        test_op_threads();
    }
    return tap_done();
}
