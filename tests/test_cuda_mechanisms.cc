/* The mechanism kernels (kernels/attention.cu, ls_attention.cu,
 * linear_attention.cu, talk.cu) against the CPU backend's ops.
 *
 * Each case builds the op with the graph API on the CPU backend, fills its
 * inputs, runs forward and backward (seeded with random R) and runs the
 * launchers on device copies of the same inputs. Outputs, aux and work
 * start as NaN, so an element left unwritten or read before it is written
 * shows; gradient buffers start at random `pre`, so = instead of +=, or an
 * add into the wrong element, shows. Forward values, everything the CPU op
 * keeps in aux, and every gradient are compared; backward launchers get
 * the CPU's forward results (its aux and output; for the flash attention,
 * the exact log-sum-exp rounded to f32), so each direction is checked on
 * its own. Shapes are odd on purpose: lengths 1, 17, 33 and 70 (not
 * multiples of a tile or a warp), 1 and 3 heads, head widths 5 and 37 (one
 * and two column passes of a warp), masks with a hole and a padded tail
 * and a batch item whose keys are all padded, windows longer than the
 * sequence.
 *
 * Built against the CPU emulator (tests/cuda_emu) in every build, where
 * the sanitizers also watch the kernels' indexing.
 *
 * Bounds (tests/tolerance.h, u = 2^-24), from the exact values computed
 * here in double. Two implementations each within e of the exact result
 * differ by at most 2e; each case derives e from its stages: a sum of k
 * terms in any order (warp trees, tiles, atomics, the CPU's sgemm) is
 * within tol_sum(k, Σ|terms|) plus what its terms carry in from earlier
 * stages; an element-wise chain (exp, log, the rescaling by a new running
 * max) within TOL_CHAIN·u of its size. A gradient lands on pre with one
 * more rounding: TOL_U·(|pre| + |increment|). */
#include <math.h>
#include <stdio.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

extern "C" {
#include "../core/exec.h"
#include "../core/ops/linear_attention.h"
#include "../core/ops/ls_attention.h"
#include "../core/ops/talk.h"
#include "../core/params.h"
#include "../core/rng.h"
}
#include "../kernels/cublas_compat.h"
#include "../kernels/kernels.h"
#include "tap.h"
#include "tolerance.h"

typedef std::vector<float> vec;
typedef std::vector<double> dvec;

static rf_rng rng = {1111};
static cublasHandle_t blas;

static vec normal(int64_t n, double scale = 1.0)
{
    vec v((size_t)n);
    for (float &x : v)
        x = (float)(scale * rf_rng_normal(&rng));
    return v;
}

static vec nans(int64_t n) { return vec((size_t)n, NAN); }

/* 1 = valid. Every batch item but the last: a hole and a padded tail (a
 * third, never position 0); the last: all padding. */
static vec padded_mask(int64_t B, int64_t len)
{
    vec m((size_t)(B * len), 1.0f);
    for (int64_t b = 0; b < B; b++)
        for (int64_t j = 0; j < len; j++)
            if (b == B - 1 || (j > 0 && (j >= len - len / 3 || (len >= 6 && j == len / 2 - 1))))
                m[b * len + j] = 0.0f;
    return m;
}

/* ---- device buffers and comparisons ---- */

struct dbuf {
    float *p = nullptr;
    size_t n;
    explicit dbuf(const vec &h) : n(h.size())
    {
        cudaMalloc(&p, n * sizeof(float));
        cudaMemcpy(p, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    }
    ~dbuf() { cudaFree(p); }
    dbuf(const dbuf &) = delete;
    dbuf &operator=(const dbuf &) = delete;
    vec get() const
    {
        vec h(n);
        cudaDeviceSynchronize();
        cudaMemcpy(h.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost);
        return h;
    }
};

/* One TAP line: |got[i] - want[i]| <= bound(i) for every i (bound 0: the
 * same float), and no CUDA error since the last check. */
static bool expect(const std::string &name, const vec &got, const dvec &want,
                   const std::function<double(int64_t)> &bound)
{
    cudaError_t err = cudaGetLastError();
    double worst = 0;
    int64_t at = -1;
    for (size_t i = 0; i < want.size() && got.size() == want.size(); i++) {
        double e = got[i] == want[i] ? 0 : fabs((double)got[i] - want[i]), b = bound((int64_t)i);   /* infinities too */
        double ratio = e == 0 ? 0 : e / b;
        if (!(ratio <= worst)) {   /* NaN too */
            worst = isnan(ratio) ? INFINITY : ratio;
            at = (int64_t)i;
        }
    }
    bool ok = err == cudaSuccess && got.size() == want.size() && worst <= 1;
    if (!tap_ok(ok, "%s", name.c_str())) {
        if (err != cudaSuccess)
            tap_diag("CUDA error: %s", cudaGetErrorString(err));
        else if (got.size() != want.size())
            tap_diag("%zu values, want %zu", got.size(), want.size());
        else
            tap_diag("element %lld: got %.9g want %.9g (%.3g of its bound %.3g)", (long long)at, got[at], want[at],
                     worst, bound(at));
    }
    return ok;
}

static dvec widen(const vec &v) { return dvec(v.begin(), v.end()); }

/* A gradient: got = pre + inc within bound(i) and the rounding onto pre. */
static bool expect_grad(const std::string &name, const vec &got, const vec &pre, const vec &inc,
                        const std::function<double(int64_t)> &bound)
{
    dvec want(pre.size());
    for (size_t i = 0; i < pre.size() && i < inc.size(); i++)
        want[i] = (double)pre[i] + inc[i];
    return expect(name, got, want, [&](int64_t i) { return bound(i) + TOL_U * (fabs(pre[i]) + fabs(inc[i])); });
}

static double exact(int64_t) { return 0; }

/* ---- the CPU side: one op in a graph ---- */

struct cpu_op {
    rf_params *params = rf_params_new(7);
    rf_graph *g = rf_graph_new(params);
    rf_id out = RF_NONE;
    ~cpu_op()
    {
        rf_graph_free(g);
        rf_params_free(params);
    }
    rf_id input(rf_shape s, bool grad) { return rf_input(g, "", s, grad); }
    bool prepare(rf_id o, const std::string &name)
    {
        out = o;
        rf_status st = {};
        if (!rf_graph_ok(g) || o == RF_NONE)
            return tap_ok(false, "%s: build: %s", name.c_str(), rf_graph_error(g));
        rf_graph_keep(g, o);
        if (!rf_graph_prepare(g, o, 1, NULL, &st))
            return tap_ok(false, "%s: prepare: %s", name.c_str(), st.msg);
        return true;
    }
    void set(rf_id id, const vec &v) { std::copy(v.begin(), v.end(), rf_value(g, id)); }
    vec value(rf_id id) { return vec(rf_value(g, id), rf_value(g, id) + rf_shape_numel(rf_node_shape(g, id))); }
    vec grad(rf_id id) { return vec(rf_grad(g, id), rf_grad(g, id) + rf_shape_numel(rf_node_shape(g, id))); }
    vec aux(rf_id id)
    {
        const rf_node *n = rf_graph_node(g, id);
        return vec(n->aux, n->aux + n->aux_floats);
    }
    void run(const vec &seed)
    {
        rf_exec x;
        rf_exec_init(&x, g, NULL, 1234, 7, true);
        rf_graph_forward(g, &x);
        rf_params_zero_grads(params);
        rf_graph_backward(g, &x, seed.data());
    }
};

/* ---- multi-head inputs and exact softmax rows ---- */

/* q [B, N, D], k and v [B, M, D] (M = N + G for ls), heads of dk columns;
 * mask [B, mlen] or empty. */
struct mha {
    int64_t B, N, M, D, H, dk;
    float scale;
    vec q, k, v, mask;
    int64_t mlen;
    double Q(int64_t b, int64_t i, int64_t h, int64_t c) const { return q[(b * N + i) * D + h * dk + c]; }
    double K(int64_t b, int64_t j, int64_t h, int64_t c) const { return k[(b * M + j) * D + h * dk + c]; }
    double V(int64_t b, int64_t j, int64_t h, int64_t c) const { return v[(b * M + j) * D + h * dk + c]; }
    bool ok(int64_t b, int64_t j) const { return mask.empty() || mask[b * mlen + j] != 0.0f; }
    rf_cuda_heads dims() const { return {B, N, M, D, (int)H, scale}; }
};

static mha make_mha(int64_t B, int64_t N, int64_t M, int64_t H, int64_t dk, float scale, int64_t mlen, bool masked)
{
    mha a = {B, N, M, H * dk, H, dk, scale, normal(B * N * H * dk), normal(B * M * H * dk), normal(B * M * H * dk),
             masked ? padded_mask(B, mlen) : vec(), mlen};
    return a;
}

/* How a kernel's products round. f32: operands exact, sums within tol_sum.
 * TF32 (the tensor-core kernels, kernels/mma.cuh): each operand rounded to
 * nearest (cvt.rna) within u_t = 2^-11 relatively, so a product of two
 * within w = 2 u_t + u_t^2 of |x y|; products exact in f32, summed in an
 * order and with a rounding PTX leaves open (the hardware's adders may
 * truncate, so the errors need not have mean zero): the worst case,
 * tol_gamma(k) of the terms' magnitudes. */
struct operands {
    double w;
    bool worst_case;
    double sum(double k, double mag) const { return worst_case ? tol_gamma(k) * mag : tol_sum(k, mag); }
};
static const operands F32 = {0.0, false};
static const operands TF32 = {2 * 0x1p-11 + 0x1p-22, true};

/* One query row of one head: its columns (the k/v row each reads, -1 for
 * none), which are valid, and exactly: the scaled scores, the softmax
 * probabilities (0 at invalid columns), the log-sum-exp; sigma, the bound
 * on one side's error in any score (a sum of dk products, scaled:
 * sum(dk, |scale| Σ|q k|) + w |scale| Σ|q k| + u|s| for the operands'
 * rounding), and the valid scores' spread. */
struct srow {
    int64_t b, h, i;
    std::vector<int64_t> key;
    std::vector<char> ok;
    dvec s, p;
    double lse = -INFINITY, sigma = 0, range = 0;
};

static void finish_row(const mha &a, srow &r, const operands &op = F32)
{
    size_t C = r.key.size();
    r.s.assign(C, 0.0);
    r.p.assign(C, 0.0);
    double mx = -INFINITY, mn = INFINITY;
    for (size_t c = 0; c < C; c++) {
        if (!r.ok[c])
            continue;
        double dot = 0, mag = 0;
        for (int64_t e = 0; e < a.dk; e++) {
            double t = a.Q(r.b, r.i, r.h, e) * a.K(r.b, r.key[c], r.h, e);
            dot += t;
            mag += fabs(t);
        }
        r.s[c] = a.scale * dot;
        r.sigma = std::max(r.sigma, op.sum((double)a.dk, fabs(a.scale) * mag) + op.w * fabs(a.scale) * mag +
                                        TOL_U * fabs(r.s[c]));
        mx = std::max(mx, r.s[c]);
        mn = std::min(mn, r.s[c]);
    }
    if (mx == -INFINITY)
        return;
    double sum = 0;
    for (size_t c = 0; c < C; c++)
        sum += r.ok[c] ? exp(r.s[c] - mx) : 0.0;
    for (size_t c = 0; c < C; c++)
        r.p[c] = r.ok[c] ? exp(r.s[c] - mx) / sum : 0.0;
    r.lse = mx + log(sum);
    r.range = mx - mn;
}

/* Attention's rows: every key a column, valid where the mask says. */
static std::vector<srow> attention_rows(const mha &a, const operands &op = F32)
{
    std::vector<srow> rows;
    for (int64_t b = 0; b < a.B; b++)
        for (int64_t h = 0; h < a.H; h++)
            for (int64_t i = 0; i < a.N; i++) {
                srow r = {b, h, i, {}, {}, {}, {}};
                for (int64_t j = 0; j < a.M; j++) {
                    r.key.push_back(j);
                    r.ok.push_back(a.ok(b, j));
                }
                finish_row(a, r, op);
                rows.push_back(r);
            }
    return rows;
}

/* Long-short attention's rows (core/ops/ls_attention.h): band column c is
 * key t / w * w - e + c (none outside [0, N)), then the G globals; a padded
 * query has no valid column, a padded band key is not valid. */
static std::vector<srow> ls_rows(const mha &a, int w)
{
    const int64_t e = rf_ls_extent(w), L = rf_ls_band(w), G = a.M - a.N;
    std::vector<srow> rows;
    for (int64_t b = 0; b < a.B; b++)
        for (int64_t h = 0; h < a.H; h++)
            for (int64_t t = 0; t < a.N; t++) {
                srow r = {b, h, t, {}, {}, {}, {}};
                for (int64_t c = 0; c < L + G; c++) {
                    int64_t key = c < L ? t / w * w - e + c : a.N + (c - L);
                    bool inside = c >= L || (key >= 0 && key < a.N);
                    r.key.push_back(inside ? key : -1);
                    r.ok.push_back(a.ok(b, t) && inside && (c >= L || a.ok(b, key)));
                }
                finish_row(a, r);
                rows.push_back(r);
            }
    return rows;
}

/* One side's relative error in a probability of row r: the scores' errors
 * move it by 2 sigma (softmax is shift-invariant, so the max's own error
 * cancels), rounding exp's argument by u·range, the normaliser's sum by
 * tol_sum(C, 1), and `chains` element-wise chains (exp, the division; the
 * flash kernel's rescaling once per tile). */
static double prob_error(const srow &r, double chains)
{
    return 2 * r.sigma + TOL_U * r.range + tol_sum((double)r.key.size(), 1) + chains * TOL_CHAIN * TOL_U;
}

/* out[b, i, h, c] = Σ p v: one side is within rho·A + tol_sum(C, A), A = Σ p|v|,
 * and a chain for the final scaling by 1/sum. */
static dvec output_bounds(const mha &a, const std::vector<srow> &rows, const dvec &rho)
{
    dvec bound((size_t)(a.B * a.N * a.D));
    for (size_t ri = 0; ri < rows.size(); ri++) {
        const srow &r = rows[ri];
        for (int64_t c = 0; c < a.dk; c++) {
            double A = 0;
            for (size_t col = 0; col < r.key.size(); col++)
                A += r.p[col] * fabs(r.key[col] >= 0 ? a.V(r.b, r.key[col], r.h, c) : 0.0);
            bound[(r.b * a.N + r.i) * a.D + r.h * a.dk + c] =
                2 * (rho[ri] * A + tol_sum((double)r.key.size(), A) + TOL_CHAIN * TOL_U * A);
        }
    }
    return bound;
}

/* Backward of softmax attention over rows, with g = dO [B, N, D]:
 *   dP_c = g.v_c (exact here; one side within tau_c = tol_sum(dk, Σ|g v|)),
 *   D = Σ p dP (one side within eD, which the caller derives),
 *   dS_c = p (dP_c - D), within eS_c = p (pe |dP_c - D| + tau_c + eD) with
 *     pe one side's relative error in p,
 *   dq = scale Σ_c dS_c k_c, dk_c = scale Σ_rows dS_c q, dv_c = Σ_rows p g,
 * each within what its terms carry (Σ eS|k|, Σ eS|q|, Σ p pe|g|) plus
 * the sum's bound over its terms and the operands' rounding (w of the
 * terms' magnitudes; `op`); two sides: twice that. */
struct grad_bounds {
    dvec q, k, v;
};

typedef std::function<double(const srow &, const dvec &dP, const dvec &tau)> d_error;

static grad_bounds backward_bounds(const mha &a, const std::vector<srow> &rows, const vec &g, const dvec &pe,
                                   const d_error &eD_of, const operands &op = F32)
{
    const size_t nq = (size_t)(a.B * a.N * a.D), nkv = (size_t)(a.B * a.M * a.D);
    grad_bounds gb = {dvec(nq), dvec(nkv), dvec(nkv)};
    dvec kerr(gb.k.size()), kmag(gb.k.size()), kcnt(gb.k.size()), verr(gb.v.size()), vmag(gb.v.size());
    auto G = [&](const srow &r, int64_t c) { return (double)g[(r.b * a.N + r.i) * a.D + r.h * a.dk + c]; };
    for (size_t ri = 0; ri < rows.size(); ri++) {
        const srow &r = rows[ri];
        size_t C = r.key.size();
        dvec dP(C), tau(C), dS(C), eS(C);
        double D = 0;
        for (size_t col = 0; col < C; col++) {
            if (r.key[col] < 0)
                continue;
            double mag = 0;
            for (int64_t c = 0; c < a.dk; c++) {
                dP[col] += G(r, c) * a.V(r.b, r.key[col], r.h, c);
                mag += fabs(G(r, c) * a.V(r.b, r.key[col], r.h, c));
            }
            tau[col] = op.sum((double)a.dk, mag) + op.w * mag;
            D += r.p[col] * dP[col];
        }
        double eD = eD_of(r, dP, tau);
        for (size_t col = 0; col < C; col++) {
            dS[col] = r.p[col] * (dP[col] - D);
            eS[col] = r.p[col] * (pe[ri] * fabs(dP[col] - D) + tau[col] + eD);
        }
        for (int64_t c = 0; c < a.dk; c++) {
            double qerr = 0, qmag = 0;
            for (size_t col = 0; col < C; col++) {
                if (r.key[col] < 0)
                    continue;
                size_t kv = (size_t)((r.b * a.M + r.key[col]) * a.D + r.h * a.dk + c);
                double kc = a.K(r.b, r.key[col], r.h, c), qc = a.Q(r.b, r.i, r.h, c);
                qerr += eS[col] * fabs(kc);
                qmag += fabs(dS[col] * kc);
                kerr[kv] += eS[col] * fabs(qc);
                kmag[kv] += fabs(dS[col] * qc);
                kcnt[kv] += 1;
                verr[kv] += r.p[col] * pe[ri] * fabs(G(r, c));
                vmag[kv] += r.p[col] * fabs(G(r, c));
            }
            gb.q[(r.b * a.N + r.i) * a.D + r.h * a.dk + c] =
                2 * fabs(a.scale) * (qerr + op.sum((double)C, qmag) + (op.w + TOL_CHAIN * TOL_U) * qmag);
        }
    }
    for (size_t e = 0; e < gb.k.size(); e++) {
        gb.k[e] = 2 * fabs(a.scale) * (kerr[e] + op.sum(kcnt[e], kmag[e]) + (op.w + TOL_CHAIN * TOL_U) * kmag[e]);
        gb.v[e] = 2 * (verr[e] + op.sum(kcnt[e], vmag[e]) + (op.w + TOL_CHAIN * TOL_U) * vmag[e]);
    }
    return gb;
}

/* q, k, v and the mask as inputs of a CPU graph, the values of `a`. */
struct qkv_graph {
    cpu_op c;
    rf_id q, k, v, mask;
    qkv_graph(const mha &a, rf_shape mask_shape)
    {
        q = c.input(rf_shape3(a.B, a.N, a.D), true);
        k = c.input(rf_shape3(a.B, a.M, a.D), true);
        v = c.input(rf_shape3(a.B, a.M, a.D), true);
        mask = a.mask.empty() ? RF_NONE : c.input(mask_shape, false);
    }
    void fill(const mha &a)
    {
        c.set(q, a.q);
        c.set(k, a.k);
        c.set(v, a.v);
        if (mask != RF_NONE)
            c.set(mask, a.mask);
    }
};

/* Gradients of q, k, v on the device, from random pre; `want` says which. */
struct qkv_grads {
    vec pq, pk, pv;
    dbuf gq, gk, gv;
    bool wq, wk, wv;
    qkv_grads(const mha &a, bool want_q, bool want_k, bool want_v)
        : pq(normal(a.B * a.N * a.D)), pk(normal(a.B * a.M * a.D)), pv(normal(a.B * a.M * a.D)), gq(pq), gk(pk),
          gv(pv), wq(want_q), wk(want_k), wv(want_v)
    {
    }
    float *q() { return wq ? gq.p : nullptr; }
    float *k() { return wk ? gk.p : nullptr; }
    float *v() { return wv ? gv.p : nullptr; }
    /* each wanted gradient against the CPU's; the others untouched */
    void check(const std::string &name, qkv_graph &g, const grad_bounds &b)
    {
        const struct {
            const char *what;
            dbuf &got;
            const vec &pre;
            rf_id id;
            const dvec &bound;
            bool want;
        } all[3] = {{"q", gq, pq, g.q, b.q, wq}, {"k", gk, pk, g.k, b.k, wk}, {"v", gv, pv, g.v, b.v, wv}};
        for (const auto &x : all) {
            if (x.want)
                expect_grad(name + ": gradient of " + x.what, x.got.get(), x.pre, g.c.grad(x.id),
                            [&](int64_t i) { return x.bound[i]; });
            else
                expect(name + ": no gradient of " + x.what + ", untouched", x.got.get(), widen(x.pre), exact);
        }
    }
};

/* ---- attention ---- */

/* Forward, one side: the CPU's probabilities, and the flash kernel's online
 * softmax (T = ceil(M / 32) tiles, one rescaling chain each), within
 * prob_error(r, T + 1) of the exact ones relatively; out within
 * output_bounds. lse (against the exact value): the scores move it by at
 * most sigma (log-sum-exp is 1-Lipschitz in the max norm), the sum of
 * exponentials by its relative error, then log and + max round. probs from
 * the kernel's lse: exp(s - lse) within sigma + lse's error + u|s - lse|
 * and a chain; the CPU's within prob_error.
 *
 * Backward gets lse rounded to f32 (u|lse|) and the CPU's output. One
 * side's p is then within pe = max(CPU's prob_error, sigma + u|lse| +
 * u|s - lse| + chain). D: the kernel's dO.O with the CPU's O (its
 * forward error Σ|g| e_O plus a sum of dk terms), the CPU's Σ p dP (Σ p (pe
 * |dP| + tau) plus a sum of M terms); eD is the larger.
 *
 * With tf32, the tensor-core pair (attention_tf32.cu) with TF32's bounds
 * (`operands`): the scores' sigma grows by w |scale| Σ|q k| and its sum's
 * bound is the worst case; a probability's relative error e becomes
 * expm1(e) (no longer small enough to take as linear); out's terms p v
 * carry w more and their sum the worst case, tol_gamma(M); every
 * backward product likewise. */
static void test_attention(int64_t N, int64_t M, int64_t H, int64_t dk, bool masked, bool all_grads = true,
                           bool tf32 = false)
{
    const operands &op = tf32 ? TF32 : F32;
    std::string name = std::string(tf32 ? "attention (tf32)" : "attention") + " N=" + std::to_string(N) +
                       " M=" + std::to_string(M) + " heads=" + std::to_string(H) + " dk=" + std::to_string(dk) +
                       (masked ? " mask" : "");
    const mha a = make_mha(2, N, M, H, dk, 1.0f / sqrtf((float)dk), M, masked);
    qkv_graph g(a, rf_shape2(a.B, M));
    if (!g.c.prepare(rf_attention(g.c.g, g.q, g.k, g.v, g.mask, (int)H, a.scale, 0.0f), name))
        return;
    g.fill(a);
    vec seed = normal(a.B * N * a.D);
    g.c.run(seed);
    vec out = g.c.value(g.c.out), cpu_lse = g.c.aux(g.c.out);

    std::vector<srow> rows = attention_rows(a, op);
    const double tiles = (double)((M + 31) / 32);   /* the kernel's; the CPU's blocks of keys are fewer */
    dvec rho(rows.size()), lse_err(rows.size()), lse(rows.size());
    for (size_t ri = 0; ri < rows.size(); ri++) {
        const srow &r = rows[ri];
        rho[ri] = tf32 ? expm1(prob_error(r, tiles + 1)) + op.w + tol_gamma((double)M) : prob_error(r, tiles + 1);
        lse[ri] = r.lse;
        lse_err[ri] = r.sigma + tol_sum((double)M, 1) + TOL_U * r.range + (tiles + 1) * TOL_CHAIN * TOL_U +
                    2 * TOL_U * fabs(r.lse);
    }
    dbuf dq(a.q), dk_(a.k), dv(a.v), dm(masked ? a.mask : vec(1)), dout(nans(a.B * N * a.D)), dlse(nans(rows.size()));
    const float *mask = masked ? dm.p : nullptr;
    (tf32 ? rf_cuda_attention_forward_tf32 : rf_cuda_attention_forward)(dq.p, dk_.p, dv.p, mask, dout.p, dlse.p,
                                                                          a.dims(), 0);
    dvec ob = output_bounds(a, rows, rho);
    expect(name + ": forward", dout.get(), widen(out), [&](int64_t i) { return ob[i]; });
    expect(name + ": log-sum-exp (the flash aux)", dlse.get(), lse,
           [&](int64_t i) { return isinf(lse[i]) ? 0 : lse_err[i]; });
    expect(name + ": the CPU's log-sum-exp (its aux)", cpu_lse, lse,
           [&](int64_t i) { return isinf(lse[i]) ? 0 : lse_err[i]; });

    dbuf probs(nans(a.B * H * N * M));
    rf_cuda_attention_probs(dq.p, dk_.p, mask, dlse.p, probs.p, a.dims(), 0);
    dvec P(probs.get().size());
    for (size_t e = 0; e < P.size(); e++)
        P[e] = rows[e / M].p[e % M];
    expect(name + ": probabilities in the layout of the CPU's probe", probs.get(), P, [&](int64_t e) {
        const srow &r = rows[e / M];
        double p = r.p[e % M];
        return p * (r.sigma + lse_err[e / M] + TOL_U * fabs(r.s[e % M] - r.lse) + TOL_CHAIN * TOL_U);
    });

    vec lse_f(lse.begin(), lse.end());
    dvec pe(rows.size());
    for (size_t ri = 0; ri < rows.size(); ri++) {
        const srow &r = rows[ri];
        double spread = 0;
        for (size_t c = 0; c < r.s.size(); c++)
            spread = std::max(spread, r.ok[c] ? fabs(r.s[c] - r.lse) : 0.0);
        pe[ri] = std::max(prob_error(r, 1), r.sigma + TOL_U * (fabs(r.lse) + spread) + TOL_CHAIN * TOL_U);
        pe[ri] = tf32 ? expm1(pe[ri]) : pe[ri];
    }
    auto eD = [&](const srow &r, const dvec &dP, const dvec &tau) {
        size_t ri = (size_t)((r.b * H + r.h) * N + r.i);
        double gpu = 0, gmag = 0, cpu = 0, cmag = 0;
        for (int64_t c = 0; c < dk; c++) {
            size_t o = (size_t)((r.b * N + r.i) * a.D + r.h * dk + c);
            gmag += fabs(seed[o] * out[o]);
            gpu += fabs(seed[o]) * ob[o] / 2;
        }
        for (size_t col = 0; col < dP.size(); col++) {
            cpu += r.p[col] * (pe[ri] * fabs(dP[col]) + tau[col]);
            cmag += r.p[col] * fabs(dP[col]);
        }
        return std::max(gpu + tol_sum((double)dk, gmag), cpu + tol_sum((double)M, cmag));
    };
    grad_bounds gb = backward_bounds(a, rows, seed, pe, eD, op);
    dbuf dcout(out), dlse_f(lse_f), dseed(seed), work(nans(rows.size()));
    qkv_grads grads(a, all_grads, true, all_grads);
    (tf32 ? rf_cuda_attention_backward_tf32 : rf_cuda_attention_backward)(
        dq.p, dk_.p, dv.p, mask, dcout.p, dlse_f.p, dseed.p, grads.q(), grads.k(), grads.v(), work.p, a.dims(), 0);
    grads.check(name, g, gb);
}

/* ---- long-short attention ---- */

/* Forward: both sides form the same scores, one softmax over the row's
 * L + G columns and the weighted sum: probabilities within prob_error(r, 1)
 * each, out within output_bounds. Backward gets the CPU's P, so p is the
 * same on both sides (pe = 0) and D = Σ p dP differs only by the dP errors
 * and its sum of L + G terms. */
static void test_ls_attention(int64_t N, int w, int64_t G, int64_t H, int64_t dk, bool masked, bool all_grads = true)
{
    std::string name = "ls_attention N=" + std::to_string(N) + " w=" + std::to_string(w) + " G=" + std::to_string(G) +
                       " heads=" + std::to_string(H) + " dk=" + std::to_string(dk) + (masked ? " mask" : "");
    const mha a = make_mha(2, N, N + G, H, dk, 1.0f / sqrtf((float)dk), N, masked);
    qkv_graph g(a, rf_shape2(a.B, N));
    if (!g.c.prepare(rf_ls_attention(g.c.g, g.q, g.k, g.v, g.mask, (int)H, w, a.scale), name))
        return;
    g.fill(a);
    vec seed = normal(a.B * N * a.D);
    g.c.run(seed);
    vec out = g.c.value(g.c.out), P = g.c.aux(g.c.out);

    const int64_t L = rf_ls_band(w);
    std::vector<srow> rows = ls_rows(a, w);
    dvec rho(rows.size());
    for (size_t ri = 0; ri < rows.size(); ri++)
        rho[ri] = prob_error(rows[ri], 1);
    const int64_t local = a.B * H * N * L;   /* aux: the band block [rows, L], then the globals' [rows, G] */
    auto prob_bound = [&](int64_t e) {
        int64_t ri = e < local ? e / L : (e - local) / G, col = e < local ? e % L : L + (e - local) % G;
        return 2 * rows[ri].p[col] * rho[ri];
    };

    dbuf dq(a.q), dk_(a.k), dv(a.v), dm(masked ? a.mask : vec(1)), dout(nans(a.B * N * a.D));
    dbuf daux(nans((int64_t)P.size()));
    rf_cuda_ls_attention_forward(dq.p, dk_.p, dv.p, masked ? dm.p : nullptr, dout.p, daux.p, a.dims(), w, 0);
    dvec ob = output_bounds(a, rows, rho);
    expect(name + ": forward", dout.get(), widen(out), [&](int64_t i) { return ob[i]; });
    expect(name + ": probabilities (aux: band, then globals)", daux.get(), widen(P), prob_bound);

    auto eD = [&](const srow &r, const dvec &dP, const dvec &tau) {
        double err = 0, mag = 0;
        for (size_t col = 0; col < dP.size(); col++) {
            err += r.p[col] * tau[col];
            mag += r.p[col] * fabs(dP[col]);
        }
        return err + tol_sum((double)dP.size(), mag);
    };
    grad_bounds gb = backward_bounds(a, rows, seed, dvec(rows.size()), eD);
    dbuf dP(P), dseed(seed), work(nans((int64_t)P.size()));
    qkv_grads grads(a, all_grads, all_grads, true);
    int st = rf_cuda_ls_attention_backward(dq.p, dk_.p, dv.p, dP.p, dseed.p, grads.q(), grads.k(), grads.v(), work.p,
                                           a.dims(), w, blas, 0);
    tap_ok(st == CUBLAS_STATUS_SUCCESS, "%s: backward's products ran (cuBLAS status %d)", name.c_str(), st);
    grads.check(name, g, gb);
}

/* ---- linear attention ---- */

/* s phi'(v), from f = phi(v) (core/cpu/linear_attention.c) */
static double dphi(rf_kernel_map map, double s, double f)
{
    switch (map) {
    case RF_KMAP_ELU1: return s * std::min(f, 1.0);
    case RF_KMAP_RELU: return f > 0 ? s : 0;
    default: return s * (1 - exp(-f));
    }
}

/* A linear-attention case after the CPU ran it: the inputs, the seed, the
 * output and the aux, read through the op's layout. */
struct la_case {
    mha a;
    rf_kernel_map map;
    vec seed, out, aux;
    rf_linear_attention_layout l;
    int64_t at(int64_t b, int64_t i, int64_t h, int64_t c, int64_t len) const
    {
        return (b * len + i) * a.D + h * a.dk + c;
    }
    double fq(int64_t b, int64_t i, int64_t h, int64_t c) const { return aux[l.phi_q + at(b, i, h, c, a.N)]; }
    double fk(int64_t b, int64_t j, int64_t h, int64_t c) const { return aux[l.phi_k + at(b, j, h, c, a.M)]; }
    double g(int64_t b, int64_t i, int64_t h, int64_t c) const { return seed[at(b, i, h, c, a.N)]; }
    double kv(int64_t bh, int64_t r, int64_t c) const { return aux[l.kv + (bh * a.dk + r) * a.dk + c]; }
    double ksum(int64_t bh, int64_t r) const { return aux[l.ksum + bh * a.dk + r]; }
    double den(int64_t bh, int64_t i) const { return aux[l.den + bh * a.N + i]; }
    double inv(int64_t bh, int64_t i) const { return den(bh, i) > 0 ? 1 / den(bh, i) : 0.0; }
    double t(int64_t b) const { return aux[l.inv_tau + b]; }
};

/* One side's forward errors, with the CPU's aux for magnitudes: KV and
 * Ksum are sums of M terms scaled by t, carrying the features' chain (and
 * a rounding per chunk of partial sums); den = Fq.Ksum and U = Fq KV sums
 * of dk terms carrying Ksum's and KV's errors; O = U / den within
 * (e_U + |O| e_den) / den. */
struct la_errors {
    dvec kv, ksum, den, out;
};

static la_errors la_forward_errors(const la_case &k)
{
    const mha &a = k.a;
    const int64_t dk = a.dk;
    const double chain = TOL_CHAIN * TOL_U;
    la_errors e = {dvec((size_t)(a.B * a.H * dk * dk)), dvec((size_t)(a.B * a.H * dk)), dvec((size_t)(a.B * a.H * a.N)),
                   dvec(k.out.size())};
    for (int64_t b = 0; b < a.B; b++)
        for (int64_t h = 0; h < a.H; h++) {
            int64_t bh = b * a.H + h;
            for (int64_t r = 0; r < dk; r++) {
                double smag = 0;
                for (int64_t j = 0; j < a.M; j++)
                    smag += fabs(k.fk(b, j, h, r));
                e.ksum[bh * dk + r] = k.t(b) * (tol_sum((double)a.M, smag) + 2 * chain * smag);
                for (int64_t c = 0; c < dk; c++) {
                    double mag = 0;
                    for (int64_t j = 0; j < a.M; j++)
                        mag += fabs(k.fk(b, j, h, r) * a.V(b, j, h, c));
                    e.kv[(bh * dk + r) * dk + c] = k.t(b) * (tol_sum((double)a.M, mag) + 2 * chain * mag);
                }
            }
            for (int64_t i = 0; i < a.N; i++) {
                double dmag = 0, derr = 0;
                for (int64_t r = 0; r < dk; r++) {
                    dmag += fabs(k.fq(b, i, h, r) * k.ksum(bh, r));
                    derr += fabs(k.fq(b, i, h, r)) * e.ksum[bh * dk + r];
                }
                e.den[bh * a.N + i] = derr + tol_sum((double)dk, dmag) + chain * dmag;
                for (int64_t c = 0; c < dk; c++) {
                    double umag = 0, uerr = 0;
                    for (int64_t r = 0; r < dk; r++) {
                        umag += fabs(k.fq(b, i, h, r) * k.kv(bh, r, c));
                        uerr += fabs(k.fq(b, i, h, r)) * e.kv[(bh * dk + r) * dk + c];
                    }
                    size_t o = (size_t)k.at(b, i, h, c, a.N);
                    double eu = uerr + tol_sum((double)dk, umag) + chain * umag, den = k.den(bh, i);
                    e.out[o] = den > 0 ? (eu + fabs(k.out[o]) * e.den[bh * a.N + i]) / den + 2 * TOL_U * fabs(k.out[o])
                                       : 0;
                }
            }
        }
    return e;
}

/* Backward's sums, exactly, with one side's errors (the CPU's aux and
 * output given to both): dden = -(dO.O) / den, a sum of dk terms (dU = dO
 * / den is the same rounding on both sides); dKV and dKsum sums of N terms
 * (and a rounding per chunk), dKsum carrying dden's errors. */
struct la_sums {
    dvec dden, edden, dkv, edkv, dks, edks;
};

static la_sums la_backward_sums(const la_case &k)
{
    const mha &a = k.a;
    const int64_t dk = a.dk, BH = a.B * a.H;
    la_sums s = {dvec((size_t)(BH * a.N)), dvec((size_t)(BH * a.N)), dvec((size_t)(BH * dk * dk)),
                 dvec((size_t)(BH * dk * dk)), dvec((size_t)(BH * dk)), dvec((size_t)(BH * dk))};
    for (int64_t b = 0; b < a.B; b++)
        for (int64_t h = 0; h < a.H; h++) {
            int64_t bh = b * a.H + h;
            for (int64_t i = 0; i < a.N; i++) {
                double go = 0, mag = 0;
                for (int64_t c = 0; c < dk; c++) {
                    go += k.g(b, i, h, c) * k.out[k.at(b, i, h, c, a.N)];
                    mag += fabs(k.g(b, i, h, c) * k.out[k.at(b, i, h, c, a.N)]);
                }
                s.dden[bh * a.N + i] = -go * k.inv(bh, i);
                s.edden[bh * a.N + i] = k.inv(bh, i) * tol_sum((double)dk, mag) + TOL_U * fabs(s.dden[bh * a.N + i]);
            }
            for (int64_t r = 0; r < dk; r++) {
                double mag = 0, err = 0;
                for (int64_t i = 0; i < a.N; i++) {
                    s.dks[bh * dk + r] += k.fq(b, i, h, r) * s.dden[bh * a.N + i];
                    mag += fabs(k.fq(b, i, h, r) * s.dden[bh * a.N + i]);
                    err += fabs(k.fq(b, i, h, r)) * s.edden[bh * a.N + i];
                }
                s.edks[bh * dk + r] = err + tol_sum((double)a.N + 2, mag);
                for (int64_t c = 0; c < dk; c++) {
                    double cmag = 0;
                    for (int64_t i = 0; i < a.N; i++) {
                        double t = k.fq(b, i, h, r) * k.g(b, i, h, c) * k.inv(bh, i);
                        s.dkv[(bh * dk + r) * dk + c] += t;
                        cmag += fabs(t);
                    }
                    s.edkv[(bh * dk + r) * dk + c] = tol_sum((double)a.N + 2, cmag) + TOL_U * cmag;
                }
            }
        }
    return s;
}

/* The gradients, two sides: dFq = dU KV^T + dden Ksum and dFk = t (V dKV^T
 * + dKsum) sums of dk + 1 terms carrying dden's, dKV's and dKsum's errors,
 * times s phi'; dv = t Fk dKV a sum of dk terms carrying dKV's. */
static grad_bounds la_backward_bounds(const la_case &k)
{
    const mha &a = k.a;
    const int64_t dk = a.dk;
    const double chain = TOL_CHAIN * TOL_U;
    const la_sums s = la_backward_sums(k);
    grad_bounds gb = {dvec(k.out.size()), dvec(a.k.size()), dvec(a.v.size())};
    for (int64_t b = 0; b < a.B; b++)
        for (int64_t h = 0; h < a.H; h++) {
            int64_t bh = b * a.H + h;
            for (int64_t i = 0; i < a.N; i++)
                for (int64_t r = 0; r < dk; r++) {
                    double mag = fabs(s.dden[bh * a.N + i] * k.ksum(bh, r));
                    for (int64_t c = 0; c < dk; c++)
                        mag += fabs(k.g(b, i, h, c) * k.inv(bh, i) * k.kv(bh, r, c));
                    double e = tol_sum((double)dk + 1, mag) + s.edden[bh * a.N + i] * fabs(k.ksum(bh, r));
                    gb.q[k.at(b, i, h, r, a.N)] = 2 * fabs(dphi(k.map, a.scale, k.fq(b, i, h, r))) * (e + chain * mag);
                }
            for (int64_t j = 0; j < a.M; j++)
                for (int64_t r = 0; r < dk; r++) {
                    double vmag = 0, verr = 0, kmag = fabs(s.dks[bh * dk + r]), kerr = s.edks[bh * dk + r];
                    for (int64_t c = 0; c < dk; c++) {
                        vmag += fabs(k.fk(b, j, h, c) * s.dkv[(bh * dk + c) * dk + r]);
                        verr += fabs(k.fk(b, j, h, c)) * s.edkv[(bh * dk + c) * dk + r];
                        kmag += fabs(a.V(b, j, h, c) * s.dkv[(bh * dk + r) * dk + c]);
                        kerr += fabs(a.V(b, j, h, c)) * s.edkv[(bh * dk + r) * dk + c];
                    }
                    size_t o = (size_t)k.at(b, j, h, r, a.M);
                    gb.v[o] = 2 * k.t(b) * (verr + tol_sum((double)dk, vmag) + chain * vmag);
                    gb.k[o] = 2 * fabs(dphi(k.map, a.scale, k.fk(b, j, h, r))) * k.t(b) *
                              (kerr + tol_sum((double)dk + 1, kmag) + chain * kmag);
                }
        }
    return gb;
}

/* Forward: features within a chain (TOL_CHAIN·u relative) on each side;
 * 1/tau exact (a count, sqrtf and a division, each correctly rounded);
 * KV, Ksum, den and O as la_forward_errors. Backward: la_backward_bounds. */
static void test_linear_attention(int64_t N, int64_t M, int64_t H, int64_t dk, rf_kernel_map map, bool masked,
                                  bool all_grads = true)
{
    static const char *maps[] = {"elu", "relu", "softplus"};
    std::string name = "linear_attention N=" + std::to_string(N) + " M=" + std::to_string(M) + " heads=" +
                       std::to_string(H) + " dk=" + std::to_string(dk) + " " + maps[map] + (masked ? " mask" : "");
    la_case k = {make_mha(2, N, M, H, dk, 0.6f, M, masked), map, {}, {}, {}, {}};
    const mha &a = k.a;
    qkv_graph g(a, rf_shape2(a.B, M));
    if (!g.c.prepare(rf_linear_attention(g.c.g, g.q, g.k, g.v, g.mask, (int)H, map, a.scale), name))
        return;
    g.fill(a);
    k.seed = normal(a.B * N * a.D);
    g.c.run(k.seed);
    k.out = g.c.value(g.c.out);
    k.aux = g.c.aux(g.c.out);
    k.l = rf_linear_attention_aux_layout(a.B, N, M, a.D, H);
    const la_errors e = la_forward_errors(k);

    dbuf dq(a.q), dk_(a.k), dv(a.v), dm(masked ? a.mask : vec(1)), dout(nans(a.B * N * a.D));
    dbuf daux(nans((int64_t)k.aux.size()));
    const float *mask = masked ? dm.p : nullptr;
    rf_cuda_linear_attention_forward(dq.p, dk_.p, dv.p, mask, dout.p, daux.p, a.dims(), map, 0);
    expect(name + ": forward", dout.get(), widen(k.out), [&](int64_t i) { return 2 * e.out[i]; });
    const rf_linear_attention_layout &l = k.l;
    expect(name + ": saved features, KV, Ksum, den, 1/tau (aux)", daux.get(), widen(k.aux), [&](int64_t i) {
        return i < l.kv ? 2 * TOL_CHAIN * TOL_U * fabs(k.aux[i])
             : i < l.ksum ? 2 * e.kv[i - l.kv]
             : i < l.den ? 2 * e.ksum[i - l.ksum]
             : i < l.inv_tau ? 2 * e.den[i - l.den]
                             : 0.0;
    });

    dbuf dA(k.aux), dO(k.out), dseed(k.seed), work(nans(a.B * H * (dk * dk + dk)));
    qkv_grads grads(a, all_grads, true, all_grads);
    rf_cuda_linear_attention_backward(dv.p, mask, dA.p, dO.p, dseed.p, grads.q(), grads.k(), grads.v(), work.p,
                                      a.dims(), map, 0);
    grads.check(name, g, la_backward_bounds(k));
}

/* ---- TaLK ---- */

/* A TaLK case after the CPU ran it (aux: S, the bounds, the mask). */
struct talk_case {
    int64_t B, N, H, R, D;
    int lmax, rmax;
    vec x, off, mask, seed, out, aux;
    double inv_k() const { return 1.0 / (lmax + rmax + 1); }
    int64_t nb() const { return B * N * 2 * H; }
    double S(int64_t b, int64_t j, int64_t ch) const { return aux[(b * N + j) * D + ch]; }
    double bound(int64_t b, int64_t i, int64_t k) const { return aux[B * N * D + (b * N + i) * 2 * H + k]; }
    /* the four taps of token i's window in head h (core/cpu/talk.c's taps_of) */
    void taps(int64_t b, int64_t i, int64_t h, int64_t row[4], double w[4]) const
    {
        double al = bound(b, i, h), ar = bound(b, i, H + h);
        int64_t fl = (int64_t)al, fr = (int64_t)ar, cl = fl + ((double)fl < al), cr = fr + ((double)fr < ar);
        int64_t rows[4] = {fl - 1, cl - 1, fr, cr};
        double ws[4] = {-(cl - al), cl - al - 1, 1 - (ar - fr), ar - fr};
        for (int k = 0; k < 4; k++) {
            row[k] = rows[k] < 0 ? 0 : rows[k];
            w[k] = rows[k] < 0 ? 0 : ws[k];
        }
    }
};

/* One side's forward errors, two sides' bound: S_j, a sum of j + 1 terms
 * m x / K (each a rounded product), within tol_sum(j + 1, Σ|x|/K) + u
 * Σ|x|/K; the bounds i ∓ ã·max within one rounding (u (i + ã·max)), which
 * moves the output by at most that times the interpolation's slope (at
 * most 2 max|x| / K); the output, four weighted rows of S, carries their
 * errors and a sum of four terms. Into out_bound, and aux_bound (the mask
 * copy is exact). */
static void talk_forward_bounds(const talk_case &k, dvec &out_bound, dvec &aux_bound)
{
    const int64_t N = k.N, D = k.D, H = k.H;
    dvec slope((size_t)(k.B * D));
    aux_bound.assign(k.aux.size(), 0.0);
    out_bound.assign(k.out.size(), 0.0);
    for (int64_t b = 0; b < k.B; b++)
        for (int64_t ch = 0; ch < D; ch++) {
            double mag = 0, mx = 0;
            for (int64_t j = 0; j < N; j++) {
                double t = k.mask[b * N + j] != 0 ? fabs(k.x[(b * N + j) * D + ch]) * k.inv_k() : 0;
                mag += t;
                mx = std::max(mx, t);
                aux_bound[(b * N + j) * D + ch] = 2 * (tol_sum((double)j + 1, mag) + TOL_U * mag);
            }
            slope[b * D + ch] = 2 * mx;
        }
    for (int64_t b = 0; b < k.B; b++)
        for (int64_t i = 0; i < N; i++) {
            if (k.mask[b * N + i] == 0)
                continue;   /* a padded position: zeros and zero bounds, exactly */
            for (int64_t h = 0; h < H; h++) {
                const float *o = &k.off[(b * N + i) * 2 * H];
                double ea = TOL_U * (i + o[h] * k.lmax), eb = TOL_U * (i + o[H + h] * k.rmax);
                aux_bound[k.B * N * D + (b * N + i) * 2 * H + h] = 2 * ea;
                aux_bound[k.B * N * D + (b * N + i) * 2 * H + H + h] = 2 * eb;
                int64_t row[4];
                double w[4];
                k.taps(b, i, h, row, w);
                for (int64_t ch = h * k.R; ch < (h + 1) * k.R; ch++) {
                    double err = (ea + eb) * slope[b * D + ch], mag = 0;
                    for (int t = 0; t < 4; t++) {
                        err += fabs(w[t]) * aux_bound[(b * N + row[t]) * D + ch] / 2;
                        mag += fabs(w[t] * k.S(b, row[t], ch));
                    }
                    out_bound[(b * N + i) * D + ch] = 2 * (err + tol_sum(4, mag));
                }
            }
        }
}

/* Backward's terms, for bounds from the CPU's aux given to both sides:
 * each offset's gradient sums 2R terms lmax g (|S| + |S|); dx_j sums every
 * tap's term w g that lands at or after row j (the suffix sum), in any
 * order on the two sides. */
struct talk_terms {
    dvec off_mag, x_mag, x_count;
};

static talk_terms talk_backward_terms(const talk_case &k)
{
    const int64_t N = k.N, D = k.D, H = k.H;
    talk_terms t = {dvec((size_t)k.nb()), dvec((size_t)(k.B * N * D)), dvec((size_t)(k.B * N * D))};
    for (int64_t b = 0; b < k.B; b++)
        for (int64_t i = 0; i < N; i++) {
            if (k.mask[b * N + i] == 0)
                continue;   /* a padded position passes nothing back */
            for (int64_t h = 0; h < H; h++) {
                int64_t row[4];
                double w[4];
                k.taps(b, i, h, row, w);
                for (int64_t ch = h * k.R; ch < (h + 1) * k.R; ch++) {
                    double g = fabs(k.seed[(b * N + i) * D + ch]);
                    auto S = [&](int r) { return fabs(k.S(b, row[r], ch)); };
                    t.off_mag[(b * N + i) * 2 * H + h] += k.lmax * g * (S(0) + S(1));
                    t.off_mag[(b * N + i) * 2 * H + H + h] += k.rmax * g * (S(2) + S(3));
                    for (int r = 0; r < 4; r++) {
                        t.x_mag[(b * N + row[r]) * D + ch] += fabs(w[r]) * g;
                        t.x_count[(b * N + row[r]) * D + ch] += 1;
                    }
                }
            }
        }
    for (int64_t b = 0; b < k.B; b++)
        for (int64_t j = N - 2; j >= 0; j--)
            for (int64_t ch = 0; ch < D; ch++) {
                t.x_mag[(b * N + j) * D + ch] += t.x_mag[(b * N + j + 1) * D + ch];
                t.x_count[(b * N + j) * D + ch] += t.x_count[(b * N + j + 1) * D + ch];
            }
    return t;
}

/* Offsets: sigmoid outputs, a few past 1 (the clamp), a few exactly 0
 * (integer bounds, where the gradient is 0 by convention). */
static void test_talk(int64_t N, int64_t H, int64_t R, int lmax, int rmax, bool masked, bool all_grads = true)
{
    std::string name = "talk N=" + std::to_string(N) + " heads=" + std::to_string(H) + " R=" + std::to_string(R) +
                       " lmax=" + std::to_string(lmax) + " rmax=" + std::to_string(rmax) + (masked ? " mask" : "");
    const int64_t B = 2, D = H * R;
    talk_case k = {B, N, H, R, D, lmax, rmax, normal(B * N * D), vec(B * N * 2 * H),
                   masked ? padded_mask(B, N) : vec(B * N, 1.0f), normal(B * N * D), {}, {}};
    for (float &o : k.off)
        o = rf_rng_uniform(&rng) < 0.1 ? 0.0f : (float)(1.3 * rf_rng_uniform(&rng));
    cpu_op c;
    rf_id x = c.input(rf_shape3(B, N, D), true), off = c.input(rf_shape3(B, N, 2 * H), true);
    rf_id m = masked ? c.input(rf_shape2(B, N), false) : RF_NONE;
    if (!c.prepare(rf_talk(c.g, x, off, m, lmax, rmax), name))
        return;
    c.set(x, k.x);
    c.set(off, k.off);
    if (masked)
        c.set(m, k.mask);
    c.run(k.seed);
    k.out = c.value(c.out);
    k.aux = c.aux(c.out);

    dvec out_bound, aux_bound;
    talk_forward_bounds(k, out_bound, aux_bound);
    dbuf dx(k.x), doff(k.off), dm(k.mask), dout(nans(B * N * D)), daux(nans((int64_t)k.aux.size()));
    rf_cuda_talk_forward(dx.p, doff.p, masked ? dm.p : nullptr, dout.p, daux.p, B, N, D, (int)H, lmax, rmax, 0);
    expect(name + ": forward", dout.get(), widen(k.out), [&](int64_t i) { return out_bound[i]; });
    expect(name + ": prefix sums, bounds, mask (aux)", daux.get(), widen(k.aux),
           [&](int64_t i) { return aux_bound[i]; });

    const talk_terms t = talk_backward_terms(k);
    vec pre_x = normal(B * N * D), pre_off = normal(k.nb());
    dbuf gx(pre_x), goff(pre_off), dA(k.aux), dseed(k.seed), work(nans(B * N * D));
    rf_cuda_talk_backward(dA.p, dseed.p, all_grads ? gx.p : nullptr, goff.p, work.p, B, N, D, (int)H, lmax, rmax, 0);
    if (all_grads)
        expect_grad(name + ": gradient of x", gx.get(), pre_x, c.grad(x), [&](int64_t i) {
            return 2 * k.inv_k() * (tol_sum(t.x_count[i] + N, t.x_mag[i]) + TOL_U * t.x_mag[i]);
        });
    else
        expect(name + ": no gradient of x, untouched", gx.get(), widen(pre_x), exact);
    expect_grad(name + ": gradient of the offsets", goff.get(), pre_off, c.grad(off), [&](int64_t i) {
        return 2 * (tol_sum((double)(2 * R), t.off_mag[i]) + TOL_U * t.off_mag[i]);
    });
}

int main(void)
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("1..0 # SKIP no CUDA device\n");
        return 0;
    }
    if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) {   /* LS's global keys' products */
        tap_ok(false, "cublasCreate");
        return tap_done();
    }
    test_attention(1, 1, 1, 37, false);
    test_attention(17, 17, 3, 5, true);
    test_attention(33, 33, 1, 37, true);
    test_attention(70, 70, 1, 5, true);
    test_attention(33, 70, 1, 8, false);
    test_attention(1, 33, 3, 5, true, false);   /* dq and dv not wanted: NULL */
    /* on tensor cores: lengths not multiples of 16 (a warp's rows) nor of
     * 32 (a tile), head widths 8 to 128 and ones padded to the k-step (5, 37) */
    test_attention(1, 1, 1, 37, false, true, true);
    test_attention(17, 33, 3, 8, true, true, true);
    test_attention(70, 45, 1, 24, true, true, true);
    test_attention(33, 70, 2, 64, false, true, true);
    test_attention(21, 37, 1, 128, true, true, true);
    test_attention(1, 33, 3, 5, true, false, true);

    test_ls_attention(1, 1, 0, 1, 37, false);     /* the band (3 keys) is longer than the sequence */
    test_ls_attention(17, 17, 2, 3, 5, true);     /* one segment, band 33 */
    test_ls_attention(17, 17, 2, 1, 5, true, false);
    test_ls_attention(33, 3, 3, 1, 37, true);
    test_ls_attention(70, 7, 0, 1, 5, true);
    test_ls_attention(70, 35, 2, 1, 8, false);

    test_linear_attention(1, 1, 1, 37, RF_KMAP_ELU1, false);
    test_linear_attention(17, 17, 3, 5, RF_KMAP_RELU, true);
    test_linear_attention(17, 17, 3, 5, RF_KMAP_RELU, true, false);
    test_linear_attention(33, 33, 1, 37, RF_KMAP_SOFTPLUS, true);
    test_linear_attention(70, 70, 1, 5, RF_KMAP_ELU1, true);
    test_linear_attention(70, 17, 1, 5, RF_KMAP_SOFTPLUS, false);
    test_linear_attention(17, 70, 1, 8, RF_KMAP_ELU1, true);

    test_talk(1, 1, 37, 3, 3, false);
    test_talk(17, 3, 5, 100, 100, true);   /* windows longer than the sequence */
    test_talk(17, 3, 5, 100, 100, true, false);
    test_talk(33, 1, 37, 4, 0, true);      /* causal */
    test_talk(70, 3, 5, 7, 12, true);
    test_talk(70, 1, 37, 200, 50, false);
    return tap_done();
}
