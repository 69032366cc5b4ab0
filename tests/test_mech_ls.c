/* Transformer-LS's mixer (SPEC §2): padding to a multiple of w, DualLN,
 * dynamic projection, the optional CLS, against a plain double
 * implementation of SPEC §2 written here from the parameter store's values:
 * forward, the input gradient and every parameter gradient against finite
 * differences of that reference, padding invariance, the probes, and the
 * ls classifier end to end. The fused op it is built on is test_ls_op.c's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/encoders/encoder.h"
#include "../core/exec.h"
#include "../core/model.h"
#include "../core/params.h"
#include "../core/probe.h"
#include "../core/rng.h"
#include "ls_reference.h"
#include "opcheck.h"
#include "modelcheck.h"
#include "tap.h"
#include "tolerance.h"

static rf_config mixer_config(int window, int rank, const char *dual_ln, const char *proj_from, const char *cls)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.model.encoder, "ls");
    cfg.model.dim = 8;
    cfg.model.heads = 2;
    cfg.model.layers = 1;
    cfg.model.window = window;
    cfg.model.rank = rank;
    strcpy(cfg.model.dual_ln, dual_ln);
    strcpy(cfg.model.proj_from, proj_from);
    strcpy(cfg.model.cls, cls);
    strcpy(cfg.model.pool, strcmp(cls, "last_layer") == 0 ? "cls" : "mean");
    return cfg;
}

/* The mixer of layer 0 on x [B, N, d] with a padding mask [B, N]. */
typedef struct {
    rf_graph *g;
    rf_id x, mask, out;
    int B, N, d;
} mixer_graph;

static bool mixer_build(mixer_graph *m, const rf_config *cfg, rf_params *p, int B, int N)
{
    m->B = B;
    m->N = N;
    m->d = cfg->model.dim;
    m->g = rf_graph_new(p);
    m->x = rf_input(m->g, "x", rf_shape3(B, N, m->d), true);
    m->mask = rf_input(m->g, "mask", rf_shape2(B, N), false);
    rf_encoder_ctx e = {m->g, cfg, m->mask, B, N, 0, 0};
    m->out = rf_mixer_ls(&e, 0, m->x);
    rf_status st = {0};
    if (!rf_graph_ok(m->g)) {
        tap_diag("%s", rf_graph_error(m->g));
        return false;
    }
    rf_graph_keep(m->g, m->out);
    if (!rf_graph_prepare(m->g, m->out, 2, NULL, &st)) {
        tap_diag("%s", st.msg);
        return false;
    }
    return true;
}

/* x: N(0, 1) everywhere (padding too), mask: row b valid for t < lens[b] */
static void mixer_fill(mixer_graph *m, const int *lens, uint64_t seed)
{
    rf_rng rng = {seed};
    for (int i = 0; i < m->B * m->N * m->d; i++)
        rf_value(m->g, m->x)[i] = (float)rf_rng_normal(&rng);
    for (int b = 0; b < m->B; b++)
        for (int t = 0; t < m->N; t++)
            rf_value(m->g, m->mask)[b * m->N + t] = t < lens[b] ? 1.0f : 0.0f;
}

/* ---- the reference: SPEC §2 in double, plain loops ---- */

typedef struct {
    const rf_config *cfg;
    const rf_params *p;
    const double *pv;       /* parameter values, at the store's offsets */
    int B, N;
    const double *x, *mask; /* [B, N, d], [B, N] */
} mixer_ref;

static const double *ref_param(const mixer_ref *m, const char *part)
{
    char name[RF_NAME_LEN];
    snprintf(name, sizeof name, "layer0.ls.%s", part);
    int i = rf_params_find(m->p, name);
    return i < 0 ? NULL : m->pv + m->p->entries[i].offset;
}

/* y [n, out] = x [n, in] W [in, out] + b */
static void ref_linear(const mixer_ref *m, const char *part, const double *x, int n, int in, int out, double *y)
{
    char wn[64], bn[64];
    snprintf(wn, sizeof wn, "%s.weight", part);
    snprintf(bn, sizeof bn, "%s.bias", part);
    const double *w = ref_param(m, wn), *b = ref_param(m, bn);
    for (int i = 0; i < n; i++)
        for (int o = 0; o < out; o++) {
            double s = b[o];
            for (int k = 0; k < in; k++)
                s += x[i * in + k] * w[k * out + o];
            y[i * out + o] = s;
        }
}

/* LayerNorm of each of n rows of width d, eps 1e-5, in place */
static void ref_layernorm(const mixer_ref *m, const char *part, double *x, int n, int d)
{
    char wn[64], bn[64];
    snprintf(wn, sizeof wn, "%s.weight", part);
    snprintf(bn, sizeof bn, "%s.bias", part);
    const double *gamma = ref_param(m, wn), *beta = ref_param(m, bn);
    for (int i = 0; i < n; i++) {
        double *r = x + i * d, mean = 0, var = 0;
        for (int k = 0; k < d; k++)
            mean += r[k] / d;
        for (int k = 0; k < d; k++)
            var += (r[k] - mean) * (r[k] - mean) / d;
        for (int k = 0; k < d; k++)
            r[k] = (r[k] - mean) / sqrt(var + 1e-5) * gamma[k] + beta[k];
    }
}

typedef struct {
    int d, h, dk, r, w, n, G;   /* n tokens (the CLS excluded), G global keys */
    bool dual, keys, cls;
    double *q, *k, *v, *proj, *kg, *vg, *hid, *rows, *s;
    unsigned char *ok;
} ref_work;

/* P [n, h*r] = softmax over the valid tokens of z W^P, per column */
static void ref_projection(const mixer_ref *m, ref_work *w, const double *xt, const double *mt)
{
    int cols = w->h * w->r;
    ref_linear(m, "proj", w->keys ? w->k : xt, w->n, w->d, cols, w->proj);
    for (int c = 0; c < cols; c++) {
        for (int t = 0; t < w->n; t++) {
            w->s[t] = w->proj[t * cols + c];
            w->ok[t] = mt[t] != 0;
        }
        softmax_masked(w->s, w->ok, w->n);
        for (int t = 0; t < w->n; t++)
            w->proj[t * cols + c] = w->s[t];
    }
}

/* Global rows (CLS first, if any) of kg, vg [G, d]: P_i^T K_i per head. */
static void ref_globals(const mixer_ref *m, ref_work *w, const double *xc)
{
    int off = w->cls ? 1 : 0, cols = w->h * w->r;
    if (w->cls) {
        ref_linear(m, "k", xc, 1, w->d, w->d, w->kg);
        ref_linear(m, "v", xc, 1, w->d, w->d, w->vg);
    }
    for (int i = 0; i < w->h; i++)
        for (int rho = 0; rho < w->r; rho++)
            for (int c = i * w->dk; c < (i + 1) * w->dk; c++) {
                double sk = 0, sv = 0;
                for (int t = 0; t < w->n; t++) {
                    sk += w->proj[t * cols + i * w->r + rho] * w->k[t * w->d + c];
                    sv += w->proj[t * cols + i * w->r + rho] * w->v[t * w->d + c];
                }
                w->kg[(off + rho) * w->d + c] = sk;
                w->vg[(off + rho) * w->d + c] = sv;
            }
    if (w->dual) {
        ref_layernorm(m, "ln_global", w->kg, w->G, w->d);
        ref_layernorm(m, "ln_global", w->vg, w->G, w->d);
    }
}

/* hid [n, d]: every valid query t, per head, over all tokens j in its band
 * [s*w - e, (s+1)*w + e) that are valid, and all G globals. */
static void ref_attend(ref_work *w, const double *mt)
{
    int e = extent(w->w);
    double scale = 1.0 / sqrt((double)w->dk);
    for (int t = 0; t < w->n; t++)
        for (int i = 0; i < w->h; i++) {
            int s = t / w->w, c0 = i * w->dk;
            for (int j = 0; j < w->n + w->G; j++) {
                const double *key = j < w->n ? w->k + j * w->d : w->kg + (j - w->n) * w->d;
                w->s[j] = scale * dot(w->q + t * w->d + c0, key + c0, w->dk);
                w->ok[j] = mt[t] != 0 &&
                           (j >= w->n || (mt[j] != 0 && j >= s * w->w - e && j < (s + 1) * w->w + e));
            }
            softmax_masked(w->s, w->ok, w->n + w->G);
            for (int c = c0; c < c0 + w->dk; c++) {
                double o = 0;
                for (int j = 0; j < w->n + w->G; j++)
                    o += w->s[j] * (j < w->n ? w->v[j * w->d + c] : w->vg[(j - w->n) * w->d + c]);
                w->hid[t * w->d + c] = o;
            }
        }
}

/* rows[0] = the CLS output: per head softmax(q_c [k_c; H]^T / sqrt(dk)) [v_c; H]
 * over the CLS and the valid tokens */
static void ref_cls(const mixer_ref *m, ref_work *w, const double *xc, const double *mt)
{
    double qc[64], kc[64], vc[64];
    ref_linear(m, "q", xc, 1, w->d, w->d, qc);
    ref_linear(m, "k", xc, 1, w->d, w->d, kc);
    ref_linear(m, "v", xc, 1, w->d, w->d, vc);
    double scale = 1.0 / sqrt((double)w->dk);
    for (int i = 0; i < w->h; i++) {
        int c0 = i * w->dk;
        w->s[0] = scale * dot(qc + c0, kc + c0, w->dk);
        w->ok[0] = 1;
        for (int t = 0; t < w->n; t++) {
            w->s[1 + t] = scale * dot(qc + c0, w->hid + t * w->d + c0, w->dk);
            w->ok[1 + t] = mt[t] != 0;
        }
        softmax_masked(w->s, w->ok, 1 + w->n);
        for (int c = c0; c < c0 + w->dk; c++) {
            double o = w->s[0] * vc[c];
            for (int t = 0; t < w->n; t++)
                o += w->s[1 + t] * w->hid[t * w->d + c];
            w->rows[c] = o;
        }
    }
}

/* One batch item: x [N, d], mask [N] -> out [N, d]. */
static void ref_mixer_item(const mixer_ref *m, ref_work *w, const double *x, const double *mask, double *out)
{
    int off = w->cls ? 1 : 0;
    const double *xt = x + off * w->d, *mt = mask + off;
    ref_linear(m, "q", xt, w->n, w->d, w->d, w->q);
    ref_linear(m, "k", xt, w->n, w->d, w->d, w->k);
    ref_linear(m, "v", xt, w->n, w->d, w->d, w->v);
    if (w->dual) {
        ref_layernorm(m, "ln_local", w->k, w->n, w->d);
        ref_layernorm(m, "ln_local", w->v, w->n, w->d);
    }
    ref_projection(m, w, xt, mt);
    ref_globals(m, w, x);
    ref_attend(w, mt);
    if (w->cls)
        ref_cls(m, w, x, mt);
    memcpy(w->rows + off * w->d, w->hid, (size_t)w->n * w->d * sizeof(double));
    ref_linear(m, "out", w->rows, m->N, w->d, w->d, out);
}

/* The whole mixer: out [B, N, d]. */
static void ref_mixer(const mixer_ref *m, double *out)
{
    const rf_config *cfg = m->cfg;
    ref_work w = {.d = cfg->model.dim,
                  .h = cfg->model.heads,
                  .dk = cfg->model.dim / cfg->model.heads,
                  .r = cfg->model.rank,
                  .w = cfg->model.window,
                  .dual = strcmp(cfg->model.dual_ln, "on") == 0,
                  .keys = strcmp(cfg->model.proj_from, "keys") == 0,
                  .cls = strcmp(cfg->model.cls, "last_layer") == 0};
    w.n = m->N - (w.cls ? 1 : 0);
    w.G = w.r + (w.cls ? 1 : 0);
    size_t nd = (size_t)m->N * w.d;
    double *buf = malloc((3 * nd + (size_t)m->N * w.h * w.r + 2 * (size_t)w.G * w.d + 2 * nd + nd + w.G + 1) *
                         sizeof(double));
    w.q = buf;
    w.k = w.q + nd;
    w.v = w.k + nd;
    w.proj = w.v + nd;
    w.kg = w.proj + (size_t)m->N * w.h * w.r;
    w.vg = w.kg + (size_t)w.G * w.d;
    w.hid = w.vg + (size_t)w.G * w.d;
    w.rows = w.hid + nd;
    w.s = w.rows + nd;
    w.ok = malloc(nd + w.G + 1);
    for (int b = 0; b < m->B; b++)
        ref_mixer_item(m, &w, m->x + b * nd, m->mask + b * m->N, out + b * nd);
    free(buf);
    free(w.ok);
}

/* ---- the checks ---- */

typedef struct {
    mixer_ref ref;
    double *x, *mask, *pv, *seed, *out;
    int64_t n_out;
} mixer_fd;

static double fd_objective(mixer_fd *f)
{
    ref_mixer(&f->ref, f->out);
    return dot(f->seed, f->out, (int)f->n_out);
}

/* Central difference of sum(seed * ref) at vals[i], step 1e-6, in double. */
static double fd_at(mixer_fd *f, double *vals, int64_t i)
{
    const double h = 1e-6;
    double keep = vals[i];
    vals[i] = keep + h;
    double fp = fd_objective(f);
    vals[i] = keep - h;
    double fm = fd_objective(f);
    vals[i] = keep;
    return (fp - fm) / (2 * h);
}

/* The error bound of the mixer's f32 result, from tests/tolerance.h: about
 * ten stages (DualLN, projections, the landmark softmax over N, K̄ and V̄,
 * their LayerNorm, scores, the joint softmax, the weighted sum, the output
 * projection), each a sum of at most max(d, N, 2w + r) terms of size up to
 * the output's; `passes` is 1 for values, 2 for gradients (the backward
 * walks the stages again). */
typedef struct {
    double atol, rtol;
} bound;

static bound mixer_bound(const rf_config *cfg, int d, int N, int passes, const double *out, int64_t n)
{
    double stages = 10.0 * passes, k = fmax(fmax(d, N), 2.0 * cfg->model.window + cfg->model.rank), scale = 1;
    for (int64_t i = 0; i < n; i++)
        scale = fmax(scale, fabs(out[i]));
    return (bound){tol_stages(stages, k, scale), tol_stages_rel(stages)};
}

/* Each element of `analytic` against FD within `b`; returns the count of
 * mismatches and describes the worst in `worst`. */
static int fd_compare(mixer_fd *f, double *vals, const float *analytic, int64_t n, bound b, const char *what,
                      char *worst, size_t size, double *worst_ratio)
{
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double num = fd_at(f, vals, i), err = fabs(num - analytic[i]) / (b.atol + b.rtol * fabs(num));
        if (!(err <= 1)) {
            bad++;
            if (!(err <= *worst_ratio)) {
                *worst_ratio = err;
                snprintf(worst, size, "%s[%lld]: analytic %.8g numeric %.8g", what, (long long)i, analytic[i], num);
            }
        }
    }
    return bad;
}

static void check_mixer(const char *label, const rf_config *cfg, int B, int N, const int *lens)
{
    rf_params *p = rf_params_new(17);
    mixer_graph m;
    if (!tap_ok(mixer_build(&m, cfg, p, B, N), "%s: the mixer builds", label))
        goto done;
    mixer_fill(&m, lens, 5);
    mixer_fd f = {.n_out = (int64_t)B * N * m.d};
    f.x = malloc((size_t)f.n_out * sizeof(double));
    f.mask = malloc((size_t)B * N * sizeof(double));
    f.pv = malloc(p->total * sizeof(double));
    f.seed = malloc((size_t)f.n_out * sizeof(double));
    f.out = malloc((size_t)f.n_out * sizeof(double));
    float *fseed = malloc((size_t)f.n_out * sizeof(float));
    rf_rng rng = {77};
    for (int64_t i = 0; i < f.n_out; i++) {
        f.x[i] = rf_value(m.g, m.x)[i];
        fseed[i] = (float)rf_rng_normal(&rng);
        f.seed[i] = fseed[i];
    }
    for (int i = 0; i < B * N; i++)
        f.mask[i] = rf_value(m.g, m.mask)[i];
    for (size_t i = 0; i < p->total; i++)
        f.pv[i] = p->value[i];
    f.ref = (mixer_ref){cfg, p, f.pv, B, N, f.x, f.mask};

    /* forward */
    rf_pool *pool = rf_pool_new(2);
    rf_exec x;
    rf_exec_init(&x, m.g, pool, 1, 0, false);
    rf_graph_forward(m.g, &x);
    ref_mixer(&f.ref, f.out);
    double worst = 0;
    int64_t at = 0;
    bound fb = mixer_bound(cfg, m.d, N, 1, f.out, f.n_out), gb = mixer_bound(cfg, m.d, N, 2, f.out, f.n_out);
    for (int64_t i = 0; i < f.n_out; i++) {
        double err = fabs(rf_value(m.g, m.out)[i] - f.out[i]) / (fb.atol + fb.rtol * fabs(f.out[i]));
        if (!(err <= worst)) {
            worst = err;
            at = i;
        }
    }
    if (!tap_ok(worst <= 1, "%s: forward matches the SPEC §2 reference", label))
        tap_diag("element %lld: got %.8g want %.8g", (long long)at, rf_value(m.g, m.out)[at], f.out[at]);

    /* backward, then every input and parameter gradient against FD */
    rf_params_zero_grads(p);
    rf_graph_backward(m.g, &x, fseed);
    char desc[256] = "";
    double ratio = 0;
    int bad = fd_compare(&f, f.x, rf_grad(m.g, m.x), f.n_out, gb, "x", desc, sizeof desc, &ratio);
    if (!tap_ok(bad == 0, "%s: the input gradient matches finite differences", label))
        tap_diag("%d bad, worst %s", bad, desc);
    bad = 0;
    ratio = 0;
    int64_t checked = 0;
    for (int e = 0; e < p->count; e++) {
        const rf_param_entry *pe = &p->entries[e];
        bad += fd_compare(&f, f.pv + pe->offset, p->grad + pe->offset, pe->numel, gb, pe->name, desc,
                          sizeof desc, &ratio);
        checked += pe->numel;
    }
    if (!tap_ok(bad == 0, "%s: all %lld parameter gradients (%d tensors) match finite differences", label,
                (long long)checked, p->count))
        tap_diag("%d bad, worst %s", bad, desc);
    rf_pool_free(pool);
    free(f.x);
    free(f.mask);
    free(f.pv);
    free(f.seed);
    free(f.out);
    free(fseed);
done:
    rf_graph_free(m.g);
    rf_params_free(p);
}

static void test_mixer(void)
{
    const int lens[2] = {7, 4};
    rf_config on = mixer_config(3, 2, "on", "input", "off");
    check_mixer("ls mixer w=3 r=2 DualLN, N=7 padded to 9", &on, 2, 7, lens);
    rf_config off = mixer_config(3, 2, "off", "input", "off");
    check_mixer("ls mixer DualLN off", &off, 2, 7, lens);
    rf_config keys = mixer_config(3, 2, "on", "keys", "off");
    check_mixer("ls mixer projection from the keys", &keys, 2, 7, lens);
    rf_config even = mixer_config(4, 3, "on", "input", "off");
    const int lens10[2] = {10, 6};
    check_mixer("ls mixer w=4 r=3, N=10 padded to 12", &even, 2, 10, lens10);
    rf_config exact = mixer_config(2, 1, "off", "keys", "off");
    const int lens6[2] = {6, 3};
    check_mixer("ls mixer w=2 r=1, N=6 needs no padding", &exact, 2, 6, lens6);
    rf_config cls = mixer_config(3, 2, "on", "input", "last_layer");
    const int lens8[2] = {8, 5};   /* the CLS is token 0 */
    check_mixer("ls mixer with the CLS (last layer), 7 tokens padded to 9", &cls, 2, 8, lens8);
}

/* Appending padding tokens (with arbitrary values) leaves valid rows alone. */
static void check_padding_invariance(const char *label, const rf_config *cfg, int n_short, int n_long)
{
    rf_params *p = rf_params_new(23);
    mixer_graph a, b;
    bool built = mixer_build(&a, cfg, p, 2, n_short) && mixer_build(&b, cfg, p, 2, n_long);
    if (!tap_ok(built, "%s: lengths %d and %d build over one store", label, n_short, n_long))
        return;
    const int lens[2] = {n_short, n_short - 2};
    mixer_fill(&a, lens, 3);
    mixer_fill(&b, lens, 4);   /* other values everywhere, then the valid tokens copied */
    int d = cfg->model.dim;
    for (int s = 0; s < 2; s++)
        for (int t = 0; t < lens[s]; t++)
            memcpy(rf_value(b.g, b.x) + (s * n_long + t) * d, rf_value(a.g, a.x) + (s * n_short + t) * d,
                   (size_t)d * sizeof(float));
    rf_exec xa, xb;
    rf_exec_init(&xa, a.g, NULL, 1, 0, false);
    rf_exec_init(&xb, b.g, NULL, 1, 0, false);
    rf_graph_forward(a.g, &xa);
    rf_graph_forward(b.g, &xb);
    double diff = 0;
    for (int s = 0; s < 2; s++)
        for (int t = 0; t < lens[s]; t++)
            for (int c = 0; c < d; c++)
                diff = fmax(diff, fabs(rf_value(a.g, a.out)[(s * n_short + t) * d + c] -
                                       rf_value(b.g, b.out)[(s * n_long + t) * d + c]));
    /* both runs are within the mixer's bound of the exact result (padding
     * changes the summation order only) */
    double out_scale = 1;
    for (int64_t i = 0; i < (int64_t)2 * n_short * d; i++)
        out_scale = fmax(out_scale, fabs(rf_value(a.g, a.out)[i]));
    double tol = 2 * tol_stages(10, fmax(d, fmax(n_long, 2.0 * cfg->model.window + cfg->model.rank)), out_scale);
    tap_ok(diff <= tol, "%s: padding %d tokens to %d leaves the valid outputs unchanged (max diff %g, bound %.3g)",
           label, n_short, n_long, diff, tol);
    rf_graph_free(a.g);
    rf_graph_free(b.g);
    rf_params_free(p);
}

static void test_padding(void)
{
    rf_config on = mixer_config(3, 2, "on", "input", "off");
    check_padding_invariance("ls mixer", &on, 7, 13);
    check_padding_invariance("ls mixer, no internal padding then some", &on, 6, 8);
    rf_config keys = mixer_config(4, 2, "off", "keys", "off");
    check_padding_invariance("ls mixer, projection from keys", &keys, 5, 12);
    rf_config cls = mixer_config(3, 2, "on", "input", "last_layer");
    check_padding_invariance("ls mixer with the CLS", &cls, 8, 14);
}

/* The probes exist with the documented shapes, the local band and global
 * probabilities of a valid query sum to 1, those of a padded query are 0,
 * and each projection row sums to 1 over the valid tokens. */
static void test_probes(void)
{
    rf_config cfg = mixer_config(4, 3, "on", "input", "off");
    rf_params *p = rf_params_new(29);
    mixer_graph m;
    if (!tap_ok(mixer_build(&m, &cfg, p, 2, 10), "probe graph builds"))
        return;
    const int lens[2] = {10, 6};
    mixer_fill(&m, lens, 8);
    rf_exec x;
    rf_exec_init(&x, m.g, NULL, 1, 0, false);
    rf_graph_forward(m.g, &x);
    const int N = 12, H = 2, L = 8, r = 3;   /* padded length, band w + 2e */
    const rf_tap *loc = rf_tap_find(m.g, "layer0.ls.local"), *glo = rf_tap_find(m.g, "layer0.ls.global");
    const rf_tap *proj = rf_tap_find(m.g, "layer0.ls.projection");
    bool shapes = loc && glo && proj && rf_shape_equal(loc->shape, rf_shape4(2, H, N, L)) &&
                  rf_shape_equal(glo->shape, rf_shape4(2, H, N, r)) &&
                  rf_shape_equal(proj->shape, rf_shape4(2, H, r, N));
    if (!tap_ok(shapes, "probes layer0.ls.local [2, 2, 12, 8], .global [2, 2, 12, 3], .projection [2, 2, 3, 12]"))
        goto done;
    const float *pl = rf_graph_node(m.g, loc->node)->aux + loc->offset;
    const float *pg = rf_graph_node(m.g, glo->node)->aux + glo->offset;
    const float *pp = rf_value(m.g, proj->node) + proj->offset;
    double worst = 0;
    for (int b = 0; b < 2; b++)
        for (int h = 0; h < H; h++) {
            for (int t = 0; t < N; t++) {
                double s = 0;
                for (int j = 0; j < L; j++)
                    s += pl[((b * H + h) * N + t) * L + j];
                for (int j = 0; j < r; j++)
                    s += pg[((b * H + h) * N + t) * r + j];
                worst = fmax(worst, fabs(s - (t < lens[b] ? 1.0 : 0.0)));
            }
            for (int j = 0; j < r; j++) {
                double s = 0, pad = 0;
                for (int t = 0; t < N; t++)
                    *(t < lens[b] ? &s : &pad) += pp[((b * H + h) * r + j) * N + t];
                worst = fmax(worst, fmax(fabs(s - 1.0), pad));
            }
        }
    /* each probability carries TOL_CHAIN·u of itself; a row sums L + r (or
     * N) of them in double, to 1 */
    tap_ok(worst <= TOL_CHAIN * TOL_U, "probe rows sum to 1 (valid) or 0 (padded); projection rows sum to 1 over valid "
           "tokens (worst %.3g)", worst);
done:
    rf_graph_free(m.g);
    rf_params_free(p);
}

static void test_mixer_errors(void)
{
    rf_config cfg = mixer_config(3, 2, "on", "input", "last_layer");
    strcpy(cfg.model.pool, "mean");
    rf_params *p = rf_params_new(1);
    rf_graph *g = rf_graph_new(p);
    rf_id x = rf_input(g, "x", rf_shape3(1, 5, 8), true), mask = rf_input(g, "mask", rf_shape2(1, 5), false);
    rf_encoder_ctx e = {g, &cfg, mask, 1, 5, 0, 0};
    rf_id out = rf_mixer_ls(&e, 0, x);
    if (tap_ok(out == RF_NONE && strstr(rf_graph_error(g), "model.pool = cls") != NULL,
               "rejects model.cls = last_layer without CLS pooling"))
        tap_diag("%s", rf_graph_error(g));
    rf_graph_free(g);

    rf_config plain = mixer_config(3, 2, "on", "input", "off");
    g = rf_graph_new(p);
    x = rf_input(g, "x", rf_shape3(1, 5, 8), true);
    e = (rf_encoder_ctx){g, &plain, RF_NONE, 1, 5, 0, 0};
    out = rf_mixer_ls(&e, 0, x);
    if (tap_ok(out == RF_NONE && strstr(rf_graph_error(g), "padding mask") != NULL,
               "rejects padding 5 tokens to 6 without a padding mask"))
        tap_diag("%s", rf_graph_error(g));
    rf_graph_free(g);
    rf_params_free(p);
}

/* ================= the classifier ================= */

static rf_config model_config(void)
{
    rf_config cfg = mixer_config(3, 2, "on", "input", "last_layer");
    cfg.model.ff = 12;
    cfg.model.layers = 2;
    cfg.data.classes = 5;
    cfg.data.vocab = 11;
    cfg.train.threads = 2;
    return cfg;
}

/* The ls classifier (2 layers, CLS in the last): its parameter gradients
 * against central differences in f32, as tests/test_model.c. */
static void test_model_gradients(void)
{
    rf_config cfg = model_config();
    rf_status st = {0};
    rf_params *p = rf_params_new(3);
    rf_model *m = rf_model_new(&cfg, 3, 7, 0, 11, 5, p, true, &st);
    if (!tap_ok(m != NULL, "ls classifier builds")) {
        tap_diag("%s", st.msg);
        rf_params_free(p);
        return;
    }
    rf_rng rng = {7};
    for (int b = 0; b < 3; b++) {
        for (int t = 0; t < 7; t++) {
            bool valid = t < 7 - 2 * b;
            rf_value(m->graph, m->x)[b * 7 + t] = valid ? (float)rf_rng_int(&rng, 1, 10) : 0.0f;
            rf_value(m->graph, m->mask)[b * 7 + t] = valid ? 1.0f : 0.0f;
        }
        rf_value(m->graph, m->labels)[b] = (float)rf_rng_int(&rng, 0, 4);
    }
    rf_exec x;
    rf_exec_init(&x, m->graph, NULL, 1, 0, false);
    modelcheck_param_grads("ls classifier", p, m->graph, m->loss, &x, 1e-2f);
    rf_model_free(m);
    rf_params_free(p);
}

/* Planned memory grows linearly in N: 16K tokens within 20x of 1K, at the
 * LRA width (d 64, 8 heads, w 8, r 32). */
static void test_model_memory(void)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.model.encoder, "ls");
    cfg.model.dim = 64;
    cfg.model.heads = 8;
    cfg.model.ff = 128;
    cfg.model.layers = 2;
    cfg.model.window = 8;
    cfg.model.rank = 32;
    strcpy(cfg.model.cls, "last_layer");
    strcpy(cfg.model.pool, "cls");
    cfg.train.threads = 2;
    modelcheck_memory_growth("ls classifier", &cfg, 2, 1000, 16000, 20);
}

int main(int argc, char **argv)
{
    /* --portable (suite `portable`): the mixer's cases */
    bool portable = tap_portable(argc, argv);
    test_mixer();
    if (!portable) {
        test_padding();
        test_probes();
        test_mixer_errors();
        test_model_gradients();
        test_model_memory();
    }
    return tap_done();
}
