/* Tests for the basic ops: add/sub/mul, scale, the unary activations and
 * the GLU, reshape, permute/transpose, concat, slice and pad (the matrix
 * products are test_ops_products.c's).
 *
 * Every op runs through opcheck (forward against a naive double reference
 * written here, backward against finite differences of it) on small odd
 * shapes, in every variant; then invalid shapes must be rejected with a
 * message, and a chain of all the ops on large tensors must give bit-equal
 * values and gradients with 1 and 3 pool threads.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cpu/vecmath.h"
#include "../core/exec.h"
#include "../core/params.h"
#include "opcheck.h"
#include "tap.h"

static int64_t numel(rf_shape s)
{
    int64_t n = 1;
    for (int i = 0; i < s.ndim; i++)
        n *= s.dim[i];
    return n;
}

/* ---- add, sub, mul ---- */

enum { ADD, SUB, MUL };
static const char *const binary_names[] = {"add", "sub", "mul"};

typedef struct {
    int op;
    rf_shape a, b, out;
} binary_ctx;

static rf_id build_binary(rf_graph *g, const rf_id *in, const void *ctx)
{
    const binary_ctx *c = ctx;
    rf_id (*fn[])(rf_graph *, rf_id, rf_id) = {rf_add, rf_sub, rf_mul};
    return fn[c->op](g, in[0], in[1]);
}

/* Index into `s` (right-aligned to a 4-D output index) with broadcasting. */
static int64_t bcast_index(rf_shape s, const int64_t idx[4])
{
    int64_t off = 0;
    for (int i = 0; i < s.ndim; i++) {
        int64_t d = s.dim[i], v = idx[4 - s.ndim + i];
        off = off * d + (d == 1 ? 0 : v);
    }
    return off;
}

static void ref_binary(const double *const *in, double *out, const void *ctx)
{
    const binary_ctx *c = ctx;
    int64_t d[4] = {1, 1, 1, 1}, idx[4], o = 0;
    for (int i = 0; i < c->out.ndim; i++)
        d[4 - c->out.ndim + i] = c->out.dim[i];
    for (idx[0] = 0; idx[0] < d[0]; idx[0]++)
        for (idx[1] = 0; idx[1] < d[1]; idx[1]++)
            for (idx[2] = 0; idx[2] < d[2]; idx[2]++)
                for (idx[3] = 0; idx[3] < d[3]; idx[3]++, o++) {
                    double a = in[0][bcast_index(c->a, idx)], b = in[1][bcast_index(c->b, idx)];
                    out[o] = c->op == ADD ? a + b : c->op == SUB ? a - b : a * b;
                }
}

static void test_binary(void)
{
    struct {
        const char *what;
        rf_shape a, b, out;
    } pats[] = {
        {"same shape", rf_shape3(3, 5, 7), rf_shape3(3, 5, 7), rf_shape3(3, 5, 7)},
        {"b [D] along leading dims", rf_shape3(3, 5, 7), rf_shape1(7), rf_shape3(3, 5, 7)},
        {"a [D] along leading dims", rf_shape1(7), rf_shape3(3, 5, 7), rf_shape3(3, 5, 7)},
        {"b [N, 1] along rows", rf_shape3(3, 5, 7), rf_shape2(5, 1), rf_shape3(3, 5, 7)},
        {"b [B, 1, D] (middle dim)", rf_shape3(3, 5, 7), rf_shape3(3, 1, 7), rf_shape3(3, 5, 7)},
        {"both broadcast", rf_shape3(3, 1, 7), rf_shape2(5, 1), rf_shape3(3, 5, 7)},
        {"both broadcast, interleaved", rf_shape3(1, 5, 1), rf_shape3(3, 1, 7), rf_shape3(3, 5, 7)},
        {"b scalar", rf_shape3(3, 5, 7), rf_shape_scalar(), rf_shape3(3, 5, 7)},
        {"4-D mixed", rf_shape4(2, 3, 1, 5), rf_shape3(3, 4, 1), rf_shape4(2, 3, 4, 5)},
        {"b [67] with 67 columns", rf_shape2(3, 67), rf_shape1(67), rf_shape2(3, 67)},
    };
    for (size_t p = 0; p < sizeof pats / sizeof pats[0]; p++)
        for (int op = 0; op < 3; op++) {
            binary_ctx c = {op, pats[p].a, pats[p].b, pats[p].out};
            char name[96];
            snprintf(name, sizeof name, "%s %s", binary_names[op], pats[p].what);
            opcheck_case oc = {name, 2, {c.a, c.b}, {OPCHECK_NORMAL, p == 1 ? OPCHECK_PARAM : OPCHECK_NORMAL},
                               {0}, build_binary, ref_binary, &c, .seed = 31 + p};
            opcheck_run(&oc);
        }
}

/* x op x: the same input on both sides */
typedef struct {
    int op;
} self_ctx;

static rf_id build_self(rf_graph *g, const rf_id *in, const void *ctx)
{
    const self_ctx *c = ctx;
    return c->op == ADD ? rf_add(g, in[0], in[0]) : rf_mul(g, in[0], in[0]);
}

static void ref_self(const double *const *in, double *out, const void *ctx)
{
    const self_ctx *c = ctx;
    for (int i = 0; i < 35; i++)
        out[i] = c->op == ADD ? 2 * in[0][i] : in[0][i] * in[0][i];
}

static void test_binary_self(void)
{
    const int ops[2] = {ADD, MUL};
    for (int i = 0; i < 2; i++) {
        int op = ops[i];
        self_ctx c = {op};
        char name[64];
        snprintf(name, sizeof name, "%s x x (same input twice)", binary_names[op]);
        opcheck_case oc = {name, 1, {rf_shape2(5, 7)}, {OPCHECK_NORMAL}, {0}, build_self, ref_self, &c, .seed = 41};
        opcheck_run(&oc);
    }
}

/* ---- scale ---- */

static rf_id build_scale(rf_graph *g, const rf_id *in, const void *ctx)
{
    (void)ctx;
    return rf_scale(g, in[0], -1.7f);
}

static void ref_scale(const double *const *in, double *out, const void *ctx)
{
    (void)ctx;
    for (int i = 0; i < 3 * 5 * 7; i++)
        out[i] = (double)-1.7f * in[0][i];
}

static void test_scale(void)
{
    opcheck_case a = {"scale by -1.7", 1, {rf_shape3(3, 5, 7)}, {OPCHECK_NORMAL}, {0}, build_scale, ref_scale, NULL,
                      .seed = 51};
    opcheck_run(&a);
    opcheck_case b = {"scale by -1.7 (param)", 1, {rf_shape3(3, 5, 7)}, {OPCHECK_PARAM}, {0}, build_scale,
                      ref_scale, NULL, .seed = 52};
    opcheck_run(&b);
}

/* ---- unary ---- */

typedef struct {
    rf_unary_kind kind;
    double pre;    /* input multiplier (an rf_scale before the activation), 1 = none */
    int64_t n;
} unary_ctx;

static rf_id build_unary(rf_graph *g, const rf_id *in, const void *ctx)
{
    const unary_ctx *c = ctx;
    rf_id (*fn[])(rf_graph *, rf_id) = {rf_gelu, rf_relu, rf_elu, rf_softplus, rf_sigmoid};
    rf_id x = c->pre != 1.0 ? rf_scale(g, in[0], (float)c->pre) : in[0];
    return fn[c->kind](g, x);
}

static double ref_activation(rf_unary_kind kind, double v)
{
    switch (kind) {
    case RF_UNARY_GELU: return 0.5 * v * (1.0 + erf(v / sqrt(2.0)));
    case RF_UNARY_RELU: return v > 0 ? v : 0;
    case RF_UNARY_ELU: return v > 0 ? v : exp(v) - 1.0;
    case RF_UNARY_SOFTPLUS: return v > 0 ? v + log1p(exp(-v)) : log1p(exp(v));   /* exact in double for any v */
    default: return 1.0 / (1.0 + exp(-v));
    }
}

static void ref_unary(const double *const *in, double *out, const void *ctx)
{
    const unary_ctx *c = ctx;
    for (int64_t i = 0; i < c->n; i++)
        out[i] = ref_activation(c->kind, (double)(float)c->pre * in[0][i]);
}

/* GLU: [a | b] per row of the last axis -> a * sigmoid(b) */
static rf_id build_glu(rf_graph *g, const rf_id *in, const void *ctx)
{
    (void)ctx;
    return rf_glu(g, in[0]);
}

static void ref_glu(const double *const *in, double *out, const void *ctx)
{
    const int64_t *rd = ctx;   /* rows, d */
    for (int64_t r = 0; r < rd[0]; r++)
        for (int64_t j = 0; j < rd[1]; j++) {
            double a = in[0][r * 2 * rd[1] + j], b = in[0][r * 2 * rd[1] + rd[1] + j];
            out[r * rd[1] + j] = a / (1.0 + exp(-b));
        }
}

/* glu(x) + a / 2: the slice of a is made after the glu, so its backward
 * writes x's gradient first and the glu kernel must add to it */
static rf_id build_glu_plus_a(rf_graph *g, const rf_id *in, const void *ctx)
{
    const int64_t *rd = ctx;
    rf_id y = rf_glu(g, in[0]);
    return rf_add(g, y, rf_scale(g, rf_slice(g, in[0], 2, 0, rd[1]), 0.5f));
}

static void ref_glu_plus_a(const double *const *in, double *out, const void *ctx)
{
    const int64_t *rd = ctx;
    ref_glu(in, out, ctx);
    for (int64_t r = 0; r < rd[0]; r++)
        for (int64_t j = 0; j < rd[1]; j++)
            out[r * rd[1] + j] += 0.5 * in[0][r * 2 * rd[1] + j];
}

static void test_glu(void)
{
    const int64_t rd[2] = {3 * 5, 7};
    opcheck_case oc = {"glu [3, 5, 14] -> [3, 5, 7]", 1, {rf_shape3(3, 5, 14)}, {OPCHECK_NORMAL}, {0},
                       build_glu, ref_glu, rd, .seed = 81};
    opcheck_run(&oc);
    opcheck_case plus = {"glu [3, 5, 14] plus a / 2 (x's gradient added to)", 1, {rf_shape3(3, 5, 14)},
                         {OPCHECK_NORMAL}, {0}, build_glu_plus_a, ref_glu_plus_a, rd, .seed = 82};
    opcheck_run(&plus);
    rf_graph *g = rf_graph_new(NULL);
    rf_glu(g, rf_input(g, "x", rf_shape2(2, 5), true));
    tap_ok(!rf_graph_ok(g) && strstr(rf_graph_error(g), "even") != NULL, "glu of an odd last axis is refused (%s)",
           rf_graph_error(g));
    rf_graph_free(g);
}

static void test_unary(void)
{
    static const char *const names[] = {"gelu", "relu", "elu", "softplus", "sigmoid"};
    for (int k = 0; k < RF_UNARY_COUNT; k++) {
        unary_ctx c = {(rf_unary_kind)k, 1.0, 3 * 5 * 7};
        char name[64];
        snprintf(name, sizeof name, "unary %s", names[k]);
        opcheck_case oc = {name, 1, {rf_shape3(3, 5, 7)}, {k == 0 ? OPCHECK_PARAM : OPCHECK_NORMAL}, {0},
                           build_unary, ref_unary, &c, .seed = 61 + k};
        opcheck_run(&oc);
    }
    /* inputs up to about +-90, where exp overflows float: the stable forms */
    for (int k = RF_UNARY_ELU; k <= RF_UNARY_SIGMOID; k++) {
        unary_ctx c = {(rf_unary_kind)k, 30.0, 5 * 7};
        char name[64];
        snprintf(name, sizeof name, "unary %s of 30 x (large inputs)", names[k]);
        opcheck_case oc = {name, 1, {rf_shape2(5, 7)}, {OPCHECK_NORMAL}, {0}, build_unary, ref_unary, &c,
                           .seed = 71 + k};
        opcheck_run(&oc);
    }
}

/* ---- reshape ---- */

typedef struct {
    rf_shape to;
} reshape_ctx;

static rf_id build_reshape(rf_graph *g, const rf_id *in, const void *ctx)
{
    const reshape_ctx *c = ctx;
    return rf_reshape(g, in[0], c->to);
}

static void ref_reshape(const double *const *in, double *out, const void *ctx)
{
    const reshape_ctx *c = ctx;
    for (int64_t i = 0; i < numel(c->to); i++)
        out[i] = in[0][i];
}

static void test_reshape(void)
{
    reshape_ctx a = {rf_shape2(7, 15)}, b = {rf_shape1(105)}, s = {rf_shape_scalar()};
    opcheck_case ca = {"reshape [3,5,7] -> [7,15] (param)", 1, {rf_shape3(3, 5, 7)}, {OPCHECK_PARAM}, {0},
                       build_reshape, ref_reshape, &a, .seed = 81};
    opcheck_case cb = {"reshape [3,5,1,7] -> [105]", 1, {rf_shape4(3, 5, 1, 7)}, {OPCHECK_NORMAL}, {0},
                       build_reshape, ref_reshape, &b, .seed = 82};
    opcheck_case cs = {"reshape [1,1] -> scalar", 1, {rf_shape2(1, 1)}, {OPCHECK_NORMAL}, {0}, build_reshape,
                       ref_reshape, &s, .seed = 83};
    opcheck_run(&ca);
    opcheck_run(&cb);
    opcheck_run(&cs);
}

/* ---- permute / transpose ---- */

typedef struct {
    rf_shape in;
    int perm[RF_MAX_DIMS];
    int swap0, swap1;    /* >= 0: build with rf_transpose(swap0, swap1) instead */
} permute_ctx;

static rf_id build_permute(rf_graph *g, const rf_id *in, const void *ctx)
{
    const permute_ctx *c = ctx;
    return c->swap0 >= 0 ? rf_transpose(g, in[0], c->swap0, c->swap1) : rf_permute(g, in[0], c->perm);
}

static void ref_permute(const double *const *in, double *out, const void *ctx)
{
    const permute_ctx *c = ctx;
    int nd = c->in.ndim;
    int64_t stride[RF_MAX_DIMS], od[RF_MAX_DIMS], idx[RF_MAX_DIMS] = {0}, s = 1;
    for (int j = nd - 1; j >= 0; j--) {
        stride[j] = s;
        s *= c->in.dim[j];
    }
    for (int i = 0; i < nd; i++)
        od[i] = c->in.dim[c->perm[i]];
    for (int64_t o = 0; o < numel(c->in); o++) {
        int64_t rem = o, src = 0;
        for (int i = nd - 1; i >= 0; i--) {
            idx[i] = rem % od[i];
            rem /= od[i];
            src += idx[i] * stride[c->perm[i]];
        }
        out[o] = in[0][src];
    }
}

static void check_permute(const char *name, rf_shape s, const int *perm, int swap0, int swap1, opcheck_kind kind)
{
    permute_ctx c = {s, {0}, swap0, swap1};
    for (int i = 0; i < s.ndim; i++)
        c.perm[i] = perm[i];
    opcheck_case oc = {name, 1, {s}, {kind}, {0}, build_permute, ref_permute, &c, .seed = 91};
    opcheck_run(&oc);
}

static void test_permute(void)
{
    rf_shape s3 = rf_shape3(3, 5, 7), s4 = rf_shape4(2, 3, 4, 5);
    check_permute("permute [5,7] {1,0}", rf_shape2(5, 7), (const int[]){1, 0}, -1, -1, OPCHECK_NORMAL);
    check_permute("permute [3,5,7] {2,0,1}", s3, (const int[]){2, 0, 1}, -1, -1, OPCHECK_PARAM);
    check_permute("permute [3,5,7] {1,0,2}", s3, (const int[]){1, 0, 2}, -1, -1, OPCHECK_NORMAL);
    check_permute("permute [3,5,7] {0,2,1}", s3, (const int[]){0, 2, 1}, -1, -1, OPCHECK_NORMAL);
    check_permute("permute [3,5,7] {1,2,0}", s3, (const int[]){1, 2, 0}, -1, -1, OPCHECK_NORMAL);
    check_permute("permute [2,3,4,5] {0,2,1,3}", s4, (const int[]){0, 2, 1, 3}, -1, -1, OPCHECK_NORMAL);
    check_permute("permute [2,3,4,5] {3,1,0,2}", s4, (const int[]){3, 1, 0, 2}, -1, -1, OPCHECK_NORMAL);
    check_permute("permute [2,3,4,5] {2,3,0,1}", s4, (const int[]){2, 3, 0, 1}, -1, -1, OPCHECK_NORMAL);
    check_permute("transpose [3,5,7] axes 0 and 2 (param)", s3, (const int[]){2, 1, 0}, 0, 2, OPCHECK_PARAM);
    check_permute("transpose [2,3,4,5] axes 3 and 1", s4, (const int[]){0, 3, 2, 1}, 3, 1, OPCHECK_NORMAL);
    /* the last two axes swapped, both at least a tile (16): the tiled path,
     * with partial tiles */
    check_permute("permute [2,37,19] {0,2,1} (tiled)", rf_shape3(2, 37, 19), (const int[]){0, 2, 1}, -1, -1,
                  OPCHECK_NORMAL);
    check_permute("permute [2,3,17,18] {1,0,3,2} (tiled)", rf_shape4(2, 3, 17, 18), (const int[]){1, 0, 3, 2}, -1,
                  -1, OPCHECK_PARAM);
}

/* ---- concat, slice, pad: [outer, D, inner] views ---- */

static void split_axis(rf_shape s, int axis, int64_t *outer, int64_t *inner)
{
    *outer = *inner = 1;
    for (int i = 0; i < axis; i++)
        *outer *= s.dim[i];
    for (int i = axis + 1; i < s.ndim; i++)
        *inner *= s.dim[i];
}

typedef struct {
    int n, axis;
    rf_shape s[4];
    bool twice;    /* one input given twice */
} concat_ctx;

static rf_id build_concat(rf_graph *g, const rf_id *in, const void *ctx)
{
    const concat_ctx *c = ctx;
    rf_id xs[4] = {in[0], c->twice ? in[0] : in[1], in[2], in[3]};
    return rf_concat(g, xs, c->n, c->axis);
}

static void ref_concat(const double *const *in, double *out, const void *ctx)
{
    const concat_ctx *c = ctx;
    int64_t outer, inner, total = 0;
    split_axis(c->s[0], c->axis, &outer, &inner);
    for (int k = 0; k < c->n; k++)
        total += c->s[k].dim[c->axis];
    for (int64_t o = 0; o < outer; o++) {
        int64_t at = 0;
        for (int k = 0; k < c->n; k++) {
            const double *src = in[c->twice ? 0 : k];
            int64_t d = c->s[k].dim[c->axis];
            for (int64_t a = 0; a < d; a++)
                for (int64_t i = 0; i < inner; i++)
                    out[(o * total + at + a) * inner + i] = src[(o * d + a) * inner + i];
            at += d;
        }
    }
}

static void check_concat(const char *name, int n, int axis, const rf_shape *s, opcheck_kind kind1, bool twice)
{
    concat_ctx c = {n, axis, {{0}}, twice};
    opcheck_case oc = {name, twice ? 1 : n, {{0}}, {OPCHECK_NORMAL, kind1, OPCHECK_NORMAL, OPCHECK_NORMAL}, {0},
                       build_concat, ref_concat, &c, .seed = 101};
    for (int k = 0; k < n; k++)
        c.s[k] = oc.shape[k] = s[k];
    opcheck_run(&oc);
}

static void test_concat(void)
{
    check_concat("concat 2 inputs, axis 0", 2, 0, (const rf_shape[]){rf_shape2(3, 5), rf_shape2(4, 5)},
                 OPCHECK_NORMAL, false);
    check_concat("concat 3 inputs, axis 1 (param)", 3, 1,
                 (const rf_shape[]){rf_shape3(3, 2, 7), rf_shape3(3, 5, 7), rf_shape3(3, 1, 7)}, OPCHECK_PARAM,
                 false);
    check_concat("concat 4 inputs, last axis", 4, 2,
                 (const rf_shape[]){rf_shape3(2, 3, 1), rf_shape3(2, 3, 4), rf_shape3(2, 3, 2), rf_shape3(2, 3, 3)},
                 OPCHECK_NORMAL, false);
    check_concat("concat x with itself, axis 1", 2, 1, (const rf_shape[]){rf_shape2(3, 5), rf_shape2(3, 5)},
                 OPCHECK_NORMAL, true);
}

typedef struct {
    rf_shape in;
    int axis;
    int64_t start, len;    /* slice; for pad: before, after */
    float fill;
} window_ctx;

static rf_id build_slice(rf_graph *g, const rf_id *in, const void *ctx)
{
    const window_ctx *c = ctx;
    return rf_slice(g, in[0], c->axis, c->start, c->len);
}

static void ref_slice(const double *const *in, double *out, const void *ctx)
{
    const window_ctx *c = ctx;
    int64_t outer, inner, d = c->in.dim[c->axis];
    split_axis(c->in, c->axis, &outer, &inner);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t a = 0; a < c->len; a++)
            for (int64_t i = 0; i < inner; i++)
                out[(o * c->len + a) * inner + i] = in[0][(o * d + c->start + a) * inner + i];
}

static rf_id build_pad(rf_graph *g, const rf_id *in, const void *ctx)
{
    const window_ctx *c = ctx;
    return rf_pad(g, in[0], c->axis, c->start, c->len, c->fill);
}

static void ref_pad(const double *const *in, double *out, const void *ctx)
{
    const window_ctx *c = ctx;
    int64_t outer, inner, d = c->in.dim[c->axis], dout = d + c->start + c->len;
    split_axis(c->in, c->axis, &outer, &inner);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t a = 0; a < dout; a++)
            for (int64_t i = 0; i < inner; i++) {
                int64_t src = a - c->start;
                out[(o * dout + a) * inner + i] = src >= 0 && src < d ? in[0][(o * d + src) * inner + i] : c->fill;
            }
}

static void check_window(const char *name, bool pad, window_ctx c, opcheck_kind kind)
{
    opcheck_case oc = {name, 1, {c.in}, {kind}, {0}, pad ? build_pad : build_slice, pad ? ref_pad : ref_slice, &c,
                       .seed = 111};
    opcheck_run(&oc);
}

static void test_slice_pad(void)
{
    check_window("slice axis 0 [2, 6) of [7,5]", false, (window_ctx){rf_shape2(7, 5), 0, 2, 4, 0}, OPCHECK_NORMAL);
    check_window("slice axis 1, whole axis", false, (window_ctx){rf_shape3(3, 13, 5), 1, 0, 13, 0}, OPCHECK_NORMAL);
    check_window("slice last axis [5, 12) (param)", false, (window_ctx){rf_shape3(3, 5, 13), 2, 5, 7, 0},
                 OPCHECK_PARAM);
    check_window("pad axis 0, 2 before with 0", true, (window_ctx){rf_shape2(5, 7), 0, 2, 0, 0.0f}, OPCHECK_NORMAL);
    check_window("pad last axis 1 before 3 after with -1.5 (param)", true,
                 (window_ctx){rf_shape3(3, 5, 7), 2, 1, 3, -1.5f}, OPCHECK_PARAM);
    check_window("pad middle axis 2 after with 0.5", true, (window_ctx){rf_shape3(3, 5, 7), 1, 0, 2, 0.5f},
                 OPCHECK_NORMAL);
}

/* ---- invalid shapes ---- */

static void expect_error(const char *what, rf_graph *g, rf_id id, const char *op)
{
    const char *msg = rf_graph_error(g);
    if (!tap_ok(id == RF_NONE && !rf_graph_ok(g) && strstr(msg, op) == msg, "%s is rejected", what))
        tap_diag("id %d, message \"%s\"", id, msg);
    else
        tap_diag("%s", msg);
    rf_graph_free(g);
}

static void test_invalid(void)
{
    rf_graph *g;
    rf_id a, b, c;
#define FRESH() (g = rf_graph_new(NULL))
#define IN(name, shape) rf_input(g, name, shape, true)

    FRESH(), a = IN("a", rf_shape2(3, 5)), b = IN("b", rf_shape2(4, 7));
    expect_error("matmul with K 5 vs 4", g, rf_matmul(g, a, b, false, false), "matmul");
    FRESH(), a = IN("a", rf_shape3(2, 3, 5)), b = IN("b", rf_shape3(3, 5, 7));
    expect_error("matmul with batch 2 vs 3", g, rf_matmul(g, a, b, false, false), "matmul");
    FRESH(), a = IN("a", rf_shape2(3, 5)), b = IN("b", rf_shape3(2, 5, 7));
    expect_error("matmul of 2-D a with batched b", g, rf_matmul(g, a, b, false, false), "matmul");
    FRESH(), a = IN("a", rf_shape1(5)), b = IN("b", rf_shape2(5, 7));
    expect_error("matmul of a 1-D input", g, rf_matmul(g, a, b, false, false), "matmul");
    FRESH(), a = IN("x", rf_shape2(3, 5)), b = IN("w", rf_shape2(4, 7));
    expect_error("linear with x [3,5] and w [4,7]", g, rf_linear(g, a, b, RF_NONE), "linear");
    FRESH(), a = IN("x", rf_shape2(3, 5)), b = IN("w", rf_shape2(5, 7)), c = IN("bias", rf_shape1(5));
    expect_error("linear with bias [5] for N 7", g, rf_linear(g, a, b, c), "linear");
    FRESH(), a = IN("a", rf_shape2(3, 5)), b = IN("b", rf_shape1(4));
    expect_error("add of [3,5] and [4]", g, rf_add(g, a, b), "add");
    FRESH(), a = IN("a", rf_shape3(2, 3, 5)), b = IN("b", rf_shape3(3, 3, 5));
    expect_error("mul of [2,3,5] and [3,3,5]", g, rf_mul(g, a, b), "mul");
    FRESH(), a = IN("x", rf_shape2(3, 5));
    expect_error("unary of an unknown kind", g, rf_unary(g, a, RF_UNARY_COUNT), "unary");
    FRESH(), a = IN("x", rf_shape2(3, 5));
    expect_error("reshape of 15 elements to 16", g, rf_reshape(g, a, rf_shape2(4, 4)), "reshape");
    FRESH(), a = IN("x", rf_shape3(3, 5, 7));
    expect_error("permute {0,0,1}", g, rf_permute(g, a, (const int[]){0, 0, 1}), "permute");
    FRESH(), a = IN("x", rf_shape3(3, 5, 7));
    expect_error("transpose of axis 3 of a 3-D tensor", g, rf_transpose(g, a, 0, 3), "transpose");
    FRESH(), a = IN("a", rf_shape2(3, 5)), b = IN("b", rf_shape2(4, 6));
    expect_error("concat of [3,5] and [4,6] on axis 0", g, rf_concat(g, (const rf_id[]){a, b}, 2, 0), "concat");
    FRESH(), a = IN("a", rf_shape2(3, 5));
    expect_error("concat of one input", g, rf_concat(g, &a, 1, 0), "concat");
    FRESH(), a = IN("x", rf_shape2(3, 5));
    expect_error("slice [3, 6) of an axis of 5", g, rf_slice(g, a, 1, 3, 3), "slice");
    FRESH(), a = IN("x", rf_shape2(3, 5));
    expect_error("pad with -1 after", g, rf_pad(g, a, 0, 1, -1, 0.0f), "pad");
#undef FRESH
#undef IN
}

/* ---- large tensors: pooled paths, thread-count independence ---- */

typedef struct {
    rf_graph *g;
    rf_params *params;
    rf_id x, out;
    rf_id watch[16];    /* nodes whose gradient is compared */
    int n_watch;
} chain;

/* Every op of this file on tensors big enough to split across threads. */
static bool chain_build(chain *c)
{
    c->params = rf_params_new(7);
    rf_graph *g = c->g = rf_graph_new(c->params);
    const int64_t B = 24, N = 37, K = 131, D = 67;
    rf_id x = c->x = rf_input(g, "x", rf_shape3(B, N, K), true);
    rf_id w = rf_param(g, "w", rf_shape2(K, D), RF_INIT_NORMAL, 0.1f);
    rf_id bias = rf_param(g, "bias", rf_shape1(D), RF_INIT_NORMAL, 0.1f);
    rf_id pos = rf_param(g, "pos", rf_shape2(N, D), RF_INIT_NORMAL, 0.1f);
    rf_id gate = rf_param(g, "gate", rf_shape3(B, N, 1), RF_INIT_NORMAL, 1.0f);
    rf_id mid = rf_param(g, "mid", rf_shape3(B, 1, D), RF_INIT_NORMAL, 1.0f);
    rf_id wt = rf_param(g, "wt", rf_shape2(N, N), RF_INIT_NORMAL, 0.2f);
    rf_id h = rf_linear(g, x, w, bias);                       /* [B, N, D] */
    h = rf_add(g, h, pos);
    h = rf_mul(g, h, gate);
    h = rf_sub(g, h, mid);
    h = rf_gelu(g, h);
    rf_id ht = rf_transpose(g, h, 1, 2);                      /* [B, D, N] */
    rf_id t = rf_matmul(g, ht, wt, false, true);              /* shared b */
    t = rf_matmul(g, t, ht, true, false);                     /* [B, N, N] batched */
    t = rf_sigmoid(g, rf_scale(g, t, 0.05f));
    rf_id cat = rf_concat(g, (const rf_id[]){h, t, h}, 3, 2); /* [B, N, 2D + N] */
    cat = rf_pad(g, rf_slice(g, cat, 2, 3, 2 * D), 1, 2, 1, 0.25f);
    cat = rf_permute(g, cat, (const int[]){2, 0, 1});
    c->out = rf_reshape(g, rf_softplus(g, cat), rf_shape2(2 * D, B * (N + 3)));
    rf_id watch[] = {x, w, bias, pos, gate, mid, wt};
    c->n_watch = (int)(sizeof watch / sizeof watch[0]);
    memcpy(c->watch, watch, sizeof watch);
    rf_graph_keep(g, c->out);
    rf_status st = {0};
    return rf_graph_ok(g) && rf_graph_prepare(g, c->out, 3, NULL, &st);
}

/* Forward and backward with `threads` pool threads; returns a copy of the
 * output followed by every watched gradient. */
static float *chain_run(chain *c, int threads, int64_t *len)
{
    rf_graph *g = c->g;
    int64_t n_out = numel(rf_node_shape(g, c->out)), total = n_out;
    for (int i = 0; i < c->n_watch; i++)
        total += numel(rf_node_shape(g, c->watch[i]));
    float *seed = malloc((size_t)n_out * sizeof *seed), *res = malloc((size_t)total * sizeof *res);
    float *xv = rf_value(g, c->x);
    for (int64_t i = 0; i < numel(rf_node_shape(g, c->x)); i++)
        xv[i] = sinf(0.37f * (float)i);
    for (int64_t i = 0; i < n_out; i++)
        seed[i] = cosf(0.11f * (float)i);
    rf_pool *pool = rf_pool_new(threads);
    rf_exec x;
    rf_exec_init(&x, g, pool, 1, 1, true);
    rf_params_zero_grads(c->params);
    rf_graph_forward(g, &x);
    rf_graph_backward(g, &x, seed);
    memcpy(res, rf_value(g, c->out), (size_t)n_out * sizeof *res);
    int64_t at = n_out;
    for (int i = 0; i < c->n_watch; i++) {
        int64_t n = numel(rf_node_shape(g, c->watch[i]));
        memcpy(res + at, rf_grad(g, c->watch[i]), (size_t)n * sizeof *res);
        at += n;
    }
    rf_pool_free(pool);
    free(seed);
    *len = total;
    return res;
}

static void test_threads(void)
{
    chain c;
    if (!tap_ok(chain_build(&c), "large chain of every op builds and prepares")) {
        tap_diag("%s", rf_graph_error(c.g));
        rf_graph_free(c.g);
        rf_params_free(c.params);
        return;
    }
    int64_t n1, n3;
    float *one = chain_run(&c, 1, &n1), *three = chain_run(&c, 3, &n3);
    bool finite = true;
    for (int64_t i = 0; i < n1; i++)
        finite &= isfinite(one[i]) != 0;
    tap_ok(finite, "large chain: values and gradients are finite");
    tap_ok(n1 == n3 && memcmp(one, three, (size_t)n1 * sizeof *one) == 0,
           "large chain: 1 and 3 threads give bit-identical values and gradients");
    free(one);
    free(three);
    rf_graph_free(c.g);
    rf_params_free(c.params);
}

/* ---- the vectorisable exp and erf (core/cpu/vecmath.h) against libm ---- */

static void test_vecmath(void)
{
    double worst = 0.0, at = 0.0;
    for (int i = -60000; i <= 60000; i++) {   /* [-6, 6] in steps of 1e-4 */
        float x = (float)i * 1e-4f;
        double e = fabs((double)rf_erff(x) - erf((double)x));
        if (e > worst) {
            worst = e;
            at = x;
        }
    }
    if (!tap_ok(worst < 1.5e-7, "rf_erff within 1.5e-7 of erf on [-6, 6]"))
        tap_diag("worst %.3g at %.6f", worst, at);
    bool ends = rf_erff(INFINITY) == 1.0f && rf_erff(-INFINITY) == -1.0f && rf_erff(9.0f) == 1.0f &&
                rf_erff(0.0f) == 0.0f && isnan(rf_erff(NAN));
    tap_ok(ends, "rf_erff: +-1 at +-inf and 9, 0 at 0, NaN at NaN");
    worst = 0.0;
    for (int i = -86999; i <= 88000; i++) {   /* (-87, 88] in steps of 1e-3 */
        float x = (float)i * 1e-3f;
        double w = exp((double)x), e = fabs((double)rf_expf(x) - w) / w;
        if (e > worst) {
            worst = e;
            at = x;
        }
    }
    if (!tap_ok(worst < 2.5e-7, "rf_expf within 2.5e-7 relative of exp on (-87, 88]"))
        tap_diag("worst %.3g at %.6f", worst, at);
    ends = rf_expf(-INFINITY) == 0.0f && rf_expf(-88.0f) == 0.0f && rf_expf(0.0f) == 1.0f &&
           isinf(rf_expf(INFINITY)) && isnan(rf_expf(NAN));
    tap_ok(ends, "rf_expf: 0 below -87 and at -inf, 1 at 0, inf at inf, NaN at NaN");
    /* a row loop (vectorised) gives what the scalar calls give */
    enum { LEN = 1003 };
    static float in[LEN], out[LEN];
    for (int i = 0; i < LEN; i++)
        in[i] = 0.013f * (float)(i - LEN / 2);
    for (int i = 0; i < LEN; i++)
        out[i] = rf_erff(in[i]) + rf_expf(in[i]);
    bool same = true;
    for (int i = 0; i < LEN; i++) {
        volatile float v = in[i];
        same &= out[i] == rf_erff(v) + rf_expf(v);
    }
    tap_ok(same, "rf_erff, rf_expf: a loop over a row equals element-wise calls");
}

int main(int argc, char **argv)
{
    /* --portable (suite `portable`): the row functions' clones (unary, GLU)
     * and the vector math */
    bool portable = tap_portable(argc, argv);
    test_vecmath();
    test_unary();
    test_glu();
    if (!portable) {
        test_binary();
        test_binary_self();
        test_scale();
        test_reshape();
        test_permute();
        test_concat();
        test_slice_pad();
        test_invalid();
        test_threads();
    }
    return tap_done();
}
