/* The CUDA kernels (the .cu files in kernels/) against the CPU backend, op by op.
 *
 * Each case builds the op with the engine's graph API on the CPU backend,
 * fills the inputs, runs forward and backward (seeded with random R), and
 * runs the kernels' launchers on copies of the same inputs: every forward
 * value, every saved tensor (aux) and every gradient is compared. Backward
 * launchers get the CPU's forward results, so each direction is checked on
 * its own. Gradient buffers start at random values `pre` rather than zero,
 * so a kernel that overwrites (=) instead of accumulating (+=), or adds
 * into the wrong element, fails.
 *
 * Built twice: against the CPU emulator (tests/cuda_emu, every build, where
 * the sanitizers also watch the kernels' indexing), and, where nvcc is
 * found, against the real runtime and kernels (test_cuda_kernels_gpu, which
 * reports a skip on a machine without a GPU).
 *
 * Bounds (tests/tolerance.h, u = 2^-24). Two implementations each within e
 * of the exact value differ by at most 2e. A sum of k terms in any order
 * (warp trees, atomics, the CPU's lanes or doubles) is within
 * tol_sum(k, Σ|terms|). An element-wise chain of a few roundings and
 * libm calls (the GPU's libm is within 2 ulp, the CPU's rf_expf/rf_erff
 * within 4u) is within TOL_CHAIN·u of the largest term it handles. Each
 * case states its terms; where both sides do one correctly rounded
 * operation on the same operands the result must be exact. A gradient
 * lands on pre with one more rounding: TOL_U·(|pre| + |increment|). */
#include <math.h>
#include <stdio.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

extern "C" {
#include "../core/config.h"
#include "../core/exec.h"
#include "../core/optim.h"
#include "../core/params.h"
}
#include "../kernels/cuda_compat.h"
#include "../kernels/dropout_keep.h"
#include "../kernels/kernels.h"
#include "tap.h"
#include "tolerance.h"

static_assert(RF_UNARY_GELU == 0 && RF_UNARY_RELU == 1 && RF_UNARY_ELU == 2 && RF_UNARY_SOFTPLUS == 3 &&
                  RF_UNARY_SIGMOID == 4,
              "kernels.h numbers the unary kinds as rf_unary_kind");

typedef std::vector<float> vec;

static rf_rng rng = {2024};

static vec normal(int64_t n, double scale = 1.0)
{
    vec v(n);
    for (float &x : v)
        x = (float)(scale * rf_rng_normal(&rng));
    return v;
}

static vec zeros(int64_t n) { return vec(n); }

static int64_t numel(rf_shape s) { return rf_shape_numel(s); }

static rf_cuda_shape cs(rf_shape s)
{
    rf_cuda_shape c = {s.ndim, {1, 1, 1, 1}};
    for (int i = 0; i < s.ndim; i++)
        c.dim[i] = s.dim[i];
    return c;
}

static std::string shape_str(rf_shape s)
{
    char buf[64];
    return rf_shape_str(s, buf, sizeof buf);
}

/* ---- device buffers ---- */

/* A device copy of host data, freed with the object. */
template <class T> struct dev {
    T *p = nullptr;
    size_t n;
    explicit dev(const std::vector<T> &h) : n(h.size())
    {
        cudaMalloc(&p, n * sizeof(T));
        cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
    }
    ~dev() { cudaFree(p); }
    dev(const dev &) = delete;
    dev &operator=(const dev &) = delete;
    std::vector<T> get() const
    {
        std::vector<T> h(n);
        cudaDeviceSynchronize();
        cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost);
        return h;
    }
};
typedef dev<float> dbuf;

/* ---- comparisons ---- */

/* One TAP line: |got[i] - want[i]| <= bound(i) for every i (bound 0: the
 * same float), and no CUDA error since the last check. */
static bool expect(const std::string &name, const vec &got, const std::vector<double> &want,
                   const std::function<double(int64_t)> &bound)
{
    cudaError_t err = cudaGetLastError();
    double worst = 0;
    int64_t at = -1;
    for (size_t i = 0; i < want.size() && got.size() == want.size(); i++) {
        double e = fabs((double)got[i] - want[i]), b = bound((int64_t)i);
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

static std::vector<double> widen(const vec &v) { return std::vector<double>(v.begin(), v.end()); }

static bool expect_values(const std::string &name, const vec &got, const vec &want,
                          const std::function<double(int64_t)> &bound)
{
    return expect(name, got, widen(want), bound);
}

/* A gradient: got = pre + inc within inc_bound(i) and the rounding onto pre. */
static bool expect_grad(const std::string &name, const vec &got, const vec &pre, const vec &inc,
                        const std::function<double(int64_t)> &inc_bound)
{
    std::vector<double> want(pre.size());
    for (size_t i = 0; i < pre.size() && i < inc.size(); i++)
        want[i] = (double)pre[i] + inc[i];
    return expect(name, got, want,
                  [&](int64_t i) { return inc_bound(i) + TOL_U * (fabs(pre[i]) + fabs(inc[i])); });
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
    rf_id param(const char *name, rf_shape s) { return rf_param(g, name, s, RF_INIT_ZEROS, 0); }
    /* plan and allocate with `out` as the loss; false (and a failed check) if the graph is wrong */
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
    vec value(rf_id id) { return vec(rf_value(g, id), rf_value(g, id) + numel(rf_node_shape(g, id))); }
    vec grad(rf_id id) { return vec(rf_grad(g, id), rf_grad(g, id) + numel(rf_node_shape(g, id))); }
    vec aux(rf_id id)
    {
        const rf_node *n = rf_graph_node(g, id);
        return vec(n->aux, n->aux + n->aux_floats);
    }
    rf_exec exec(bool training)
    {
        rf_exec x;
        rf_exec_init(&x, g, NULL, 1234, 7, training);
        return x;
    }
    void forward(bool training = false)
    {
        rf_exec x = exec(training);
        rf_graph_forward(g, &x);
    }
    void backward(const vec &seed, bool training = false)
    {
        rf_exec x = exec(training);
        rf_params_zero_grads(params);
        rf_graph_backward(g, &x, seed.data());
    }
};

/* ---- element-wise ---- */

/* Forward: one correctly rounded operation on the same floats, exact. The
 * gradient of a broadcast operand sums k = numel(out) / numel(operand)
 * terms (dout, or dout * other for mul), atomics adding onto pre: a sum of
 * k + 1 terms; the CPU rounds its double sum once more. The terms' Σ|t|
 * per element: the CPU's own backward on |inputs| and |seed|. */
static void test_binary(rf_cuda_binary op, rf_shape as, rf_shape bs)
{
    static const char *names[] = {"add", "sub", "mul"};
    std::string name = std::string(names[op]) + " " + shape_str(as) + " " + shape_str(bs);
    cpu_op c[2];   /* the values, and the magnitudes */
    rf_id a[2], b[2], o[2];
    for (int k = 0; k < 2; k++) {
        a[k] = c[k].input(as, true);
        b[k] = c[k].input(bs, true);
        o[k] = op == RF_CUDA_ADD ? rf_add(c[k].g, a[k], b[k])
             : op == RF_CUDA_SUB ? rf_sub(c[k].g, a[k], b[k])
                                 : rf_mul(c[k].g, a[k], b[k]);
        if (!c[k].prepare(o[k], name))
            return;
    }
    rf_shape os = rf_node_shape(c[0].g, o[0]);
    vec va = normal(numel(as)), vb = normal(numel(bs)), seed = normal(numel(os));
    auto abs_of = [](vec v) {
        for (float &x : v)
            x = fabsf(x);
        return v;
    };
    c[0].set(a[0], va);
    c[0].set(b[0], vb);
    c[1].set(a[1], abs_of(va));
    c[1].set(b[1], abs_of(vb));
    for (int k = 0; k < 2; k++) {
        c[k].forward();
        c[k].backward(k == 0 ? seed : abs_of(seed));
    }
    dbuf da(va), db(vb), dout(zeros(numel(os))), dseed(seed);
    rf_cuda_binary_forward(op, da.p, cs(as), db.p, cs(bs), dout.p, cs(os), 0);
    expect_values(name + ": forward, exact", dout.get(), c[0].value(o[0]), exact);

    vec pre_a = normal(numel(as)), pre_b = normal(numel(bs));
    dbuf ga(pre_a), gb(pre_b);
    rf_cuda_binary_backward(op, dseed.p, cs(os), da.p, cs(as), ga.p, db.p, cs(bs), gb.p, 0);
    const rf_id ins[2][2] = {{a[0], b[0]}, {a[1], b[1]}};
    const vec *pres[2] = {&pre_a, &pre_b};
    dbuf *grads[2] = {&ga, &gb};
    for (int k = 0; k < 2; k++) {
        vec inc = c[0].grad(ins[0][k]), mag = abs_of(c[1].grad(ins[1][k]));
        double terms = (double)numel(os) / (double)inc.size();
        expect_grad(name + ": gradient of " + (k ? "b" : "a"), grads[k]->get(), *pres[k], inc, [&](int64_t i) {
            return tol_sum(terms + 1, fabs((*pres[k])[i]) + mag[i]) + TOL_U * (mag[i] + fabs(inc[i]));
        });
    }
}

/* scale: one rounding each way, on both sides: exact; the gradient's s * dy
 * may be fused with the += on a GPU (TOL_U·|inc|). */
static void test_scale(int64_t n, float s)
{
    std::string name = "scale n=" + std::to_string(n);
    cpu_op c;
    rf_id x = c.input(rf_shape1(n), true);
    if (!c.prepare(rf_scale(c.g, x, s), name))
        return;
    vec vx = normal(n), seed = normal(n), pre = normal(n);
    c.set(x, vx);
    c.forward();
    c.backward(seed);
    dbuf dx(vx), dy(zeros(n)), dseed(seed), g(pre);
    rf_cuda_scale_forward(dx.p, dy.p, n, s, 0);
    expect_values(name + ": forward, exact", dy.get(), c.value(c.out), exact);
    rf_cuda_scale_forward(dx.p, dx.p, n, s, 0);
    expect_values(name + ": forward in place, exact", dx.get(), c.value(c.out), exact);
    rf_cuda_scale_backward(dseed.p, g.p, n, s, 0);
    vec inc = c.grad(x);
    expect_grad(name + ": gradient", g.get(), pre, inc, [&](int64_t i) { return TOL_U * fabs(inc[i]); });
}

/* fill: every element the value, nothing past n (a canary stays). */
static void test_fill(int64_t n, float v)
{
    vec canary = normal(n + 1);
    dbuf y(canary);
    rf_cuda_fill(y.p, n, v, 0);
    vec want(canary);
    std::fill(want.begin(), want.begin() + n, v);
    expect_values("fill n=" + std::to_string(n) + ", exact", y.get(), want, exact);
}

/* The activations on x ~ 3 N(0, 1) (GELU's and sigmoid's tails included).
 * Each is a chain of a few roundings and libm calls; GELU's 1 + erf and
 * sigmoid's 1 - s cancel, so their errors are absolute: a few u of |x|
 * forward and of |dy| backward. Bounds: TOL_CHAIN·u·(|y| + |x|) and
 * TOL_CHAIN·u·(|inc| + |dy|). ReLU's are exact. */
static void test_unary(int kind, int64_t n)
{
    static const char *names[] = {"gelu", "relu", "elu", "softplus", "sigmoid"};
    std::string name = std::string(names[kind]) + " n=" + std::to_string(n);
    cpu_op c;
    rf_id x = c.input(rf_shape2(n / 3, 3), true);
    if (!c.prepare(rf_unary(c.g, x, (rf_unary_kind)kind), name))
        return;
    vec vx = normal(n, 3.0), seed = normal(n), pre = normal(n);
    vx[0] = 0.0f;   /* relu's kink */
    c.set(x, vx);
    c.forward();
    c.backward(seed);
    vec y = c.value(c.out), inc = c.grad(x);
    bool relu = kind == RF_UNARY_RELU;
    dbuf dx(vx), dy(zeros(n)), dseed(seed), g(pre);
    rf_cuda_unary_forward(kind, dx.p, dy.p, n, 0);
    expect_values(name + ": forward", dy.get(), y,
                  [&](int64_t i) { return relu ? 0 : TOL_CHAIN * TOL_U * (fabs(y[i]) + fabs(vx[i])); });
    rf_cuda_unary_backward(kind, dx.p, dseed.p, g.p, n, 0);
    expect_grad(name + ": gradient", g.get(), pre, inc,
                [&](int64_t i) { return relu ? 0 : TOL_CHAIN * TOL_U * (fabs(inc[i]) + fabs(seed[i])); });
}

/* GLU [rows, 2d] -> [rows, d]: a sigmoid and a product per element on each
 * side, the same formula; bounds as the sigmoid's (TOL_CHAIN u of |y| + |a|
 * forward, of |inc| + |dy| |a| backward, the product's chain included). */
static void test_glu(int64_t rows, int64_t d)
{
    std::string name = "glu " + std::to_string(rows) + " x " + std::to_string(2 * d);
    cpu_op c;
    rf_id x = c.input(rf_shape2(rows, 2 * d), true);
    if (!c.prepare(rf_glu(c.g, x), name))
        return;
    int64_t n = rows * d;
    vec vx = normal(2 * n, 3.0), seed = normal(n), pre = normal(2 * n);
    c.set(x, vx);
    c.forward();
    c.backward(seed);
    vec y = c.value(c.out), inc = c.grad(x);
    dbuf dx(vx), dy(zeros(n)), dseed(seed), g(pre);
    rf_cuda_glu_forward(dx.p, dy.p, n, d, 0);
    expect_values(name + ": forward", dy.get(), y, [&](int64_t i) {
        int64_t a = i / d * 2 * d + i % d;
        return TOL_CHAIN * TOL_U * (fabs(y[i]) + fabs(vx[a]));
    });
    rf_cuda_glu_backward(dx.p, dseed.p, g.p, n, d, 0);
    expect_grad(name + ": gradient", g.get(), pre, inc, [&](int64_t i) {
        int64_t r = i / (2 * d), j = i % (2 * d) % d;
        double a = fabs(vx[r * 2 * d + j]), s = fabs(seed[r * d + j]);
        return TOL_CHAIN * TOL_U * (fabs(inc[i]) + s * (1.0 + a));
    });
}

/* ---- softmax ---- */

/* Softmax: y_j = e_j / S, e_j = exp(x_j - max). On each side e_j and S are
 * within a chain of roundings, plus u·|x_j - max| from rounding exp's
 * argument, S's sum within tol_sum(M, S); relative to y_j:
 * tol_sum(M, 1) + TOL_CHAIN·u + 2u·range, range = the row's valid spread.
 * Backward, dot = Σ y·dy within tol_sum(M, Σ|y·dy|), then a chain on
 * y_j (dy_j - dot). Masked entries are 0 on both sides, exactly. */
static void test_softmax(rf_shape xs, const rf_shape *ms)
{
    std::string name = "softmax " + shape_str(xs) + (ms ? " mask " + shape_str(*ms) : "");
    cpu_op c;
    rf_id x = c.input(xs, true), m = ms ? c.input(*ms, false) : RF_NONE;
    if (!c.prepare(rf_softmax(c.g, x, m), name))
        return;
    int64_t n = numel(xs), M = xs.dim[xs.ndim - 1], rows = n / M;
    vec vx = normal(n, 2.0), vm, seed = normal(n), pre = normal(n);
    c.set(x, vx);
    if (ms) {
        vm.resize(numel(*ms));
        for (float &v : vm)
            v = rf_rng_uniform(&rng) < 0.3 ? 0.0f : 1.0f;
        if (ms->ndim > 1)   /* the mask's first row empty: fully masked rows */
            std::fill(vm.begin(), vm.begin() + ms->dim[ms->ndim - 1], 0.0f);
        c.set(m, vm);
    }
    c.forward();
    vec y = c.value(c.out);
    c.backward(seed);
    vec inc = c.grad(x);
    std::vector<double> range(rows), dot(rows), dot_mag(rows);
    for (int64_t r = 0; r < rows; r++) {
        float lo = INFINITY, hi = -INFINITY;
        for (int64_t j = r * M; j < (r + 1) * M; j++)
            if (y[j] > 0) {
                lo = std::min(lo, vx[j]);
                hi = std::max(hi, vx[j]);
                dot[r] += (double)y[j] * seed[j];
                dot_mag[r] += fabs((double)y[j] * seed[j]);
            }
        range[r] = hi > lo ? hi - lo : 0;
    }
    dbuf dx(vx), dm(ms ? vm : vec(1)), dy(zeros(n)), dseed(seed), dyc(y), g(pre);
    rf_cuda_softmax_forward(dx.p, cs(xs), ms ? dm.p : nullptr, ms ? cs(*ms) : cs(xs), dy.p, 0);
    expect_values(name + ": forward", dy.get(), y, [&](int64_t i) {
        return 2 * y[i] * (tol_sum((double)M, 1) + TOL_CHAIN * TOL_U + 2 * TOL_U * range[i / M]);
    });
    rf_cuda_softmax_backward(dyc.p, dseed.p, g.p, rows, M, 0);
    expect_grad(name + ": gradient", g.get(), pre, inc, [&](int64_t i) {
        int64_t r = i / M;
        return 2 * y[i] * (tol_sum((double)M, dot_mag[r]) + TOL_CHAIN * TOL_U * (fabs(seed[i]) + fabs(dot[r])));
    });
}

/* Log-softmax: y_j = (x_j - max) - L, L = log S, |y_j| = |x_j - max| + L.
 * S relative within tol_sum(M, 1) + u·range + a chain, which is L's
 * absolute error; the subtractions round within u·|y_j| each. Backward,
 * T = Σ dy within tol_sum(M, Σ|dy|), then a chain on dy_j - p_j T. */
static void test_log_softmax(int64_t rows, int64_t M)
{
    std::string name = "log_softmax [" + std::to_string(rows) + ", " + std::to_string(M) + "]";
    cpu_op c;
    rf_id x = c.input(rf_shape2(rows, M), true);
    if (!c.prepare(rf_log_softmax(c.g, x), name))
        return;
    int64_t n = rows * M;
    vec vx = normal(n, 2.0), seed = normal(n), pre = normal(n);
    c.set(x, vx);
    c.forward();
    vec y = c.value(c.out);
    c.backward(seed);
    vec inc = c.grad(x);
    std::vector<double> range(rows), sum(rows), sum_mag(rows);
    for (int64_t r = 0; r < rows; r++) {
        auto [lo, hi] = std::minmax_element(vx.begin() + r * M, vx.begin() + (r + 1) * M);
        range[r] = *hi - *lo;
        for (int64_t j = r * M; j < (r + 1) * M; j++) {
            sum[r] += seed[j];
            sum_mag[r] += fabs(seed[j]);
        }
    }
    dbuf dx(vx), dy(zeros(n)), dseed(seed), dyc(y), g(pre);
    rf_cuda_log_softmax_forward(dx.p, dy.p, rows, M, 0);
    expect_values(name + ": forward", dy.get(), y, [&](int64_t i) {
        return 2 * (tol_sum((double)M, 1) + TOL_U * range[i / M] + TOL_CHAIN * TOL_U * (1 + fabs(y[i])));
    });
    rf_cuda_log_softmax_backward(dyc.p, dseed.p, g.p, rows, M, 0);
    expect_grad(name + ": gradient", g.get(), pre, inc, [&](int64_t i) {
        double p = exp((double)y[i]);
        int64_t r = i / M;
        return 2 * (p * tol_sum((double)M, sum_mag[r]) + TOL_CHAIN * TOL_U * (fabs(seed[i]) + p * fabs(sum[r])));
    });
}

/* ---- layer normalisation ---- */

/* Forward, per row of D: the mean within dm = tol_sum(D, Σ|x|)/D + u|m|;
 * the variance, a sum of D positive terms, relative tol_sum(D, 1) plus a
 * chain (the mean's error enters it only squared), so xhat = (x - m) s is
 * within |xhat| (tol_sum(D, 1) + TOL_CHAIN·u) + s·dm; then gamma, beta
 * and a chain on y. Backward (the CPU's mean and 1/std given): dn = dy γ,
 * means A = Σdn/D and B = Σ dn·xhat/D within tol_sum over their terms;
 * dx = s (dn - A - xhat B), a chain. dgamma and dbeta sum R rows onto pre
 * (R + 1 terms). */
static void test_layernorm(int64_t R, int64_t D, bool has_gamma, bool has_beta)
{
    std::string name = "layernorm [" + std::to_string(R) + ", " + std::to_string(D) + "]" +
                       (has_gamma ? " gamma" : "") + (has_beta ? " beta" : "");
    const float eps = 1e-5f;
    cpu_op c;
    rf_id x = c.input(rf_shape2(R, D), true);
    rf_id gm = has_gamma ? c.param("ln.gamma", rf_shape1(D)) : RF_NONE;
    rf_id bt = has_beta ? c.param("ln.beta", rf_shape1(D)) : RF_NONE;
    if (!c.prepare(rf_layernorm(c.g, x, gm, bt, eps), name))
        return;
    vec vx = normal(R * D, 3.0), vg = normal(D), vb = normal(D), seed = normal(R * D);
    for (int64_t i = 0; i < R * D; i++)
        vx[i] += 5.0f;   /* an offset the mean must take away */
    vec ones(D, 1.0f);
    c.set(x, vx);
    if (has_gamma)
        c.set(gm, vg);
    if (has_beta)
        c.set(bt, vb);
    const vec &gamma = has_gamma ? vg : ones;
    c.forward();
    vec y = c.value(c.out), aux = c.aux(c.out);
    c.backward(seed);
    std::vector<double> dm(R), dn_mag(R), dnx_mag(R), A(R), B(R);
    std::vector<double> pg_mag(D), pb_mag(D);
    for (int64_t r = 0; r < R; r++) {
        double abs_x = 0, mean = aux[r], s = aux[R + r];
        for (int64_t j = 0; j < D; j++) {
            int64_t i = r * D + j;
            double xhat = (vx[i] - mean) * s, dn = (double)seed[i] * gamma[j];
            abs_x += fabs(vx[i]);
            A[r] += dn / D;
            B[r] += dn * xhat / D;
            dn_mag[r] += fabs(dn);
            dnx_mag[r] += fabs(dn * xhat);
            pg_mag[j] += fabs(seed[i] * xhat);
            pb_mag[j] += fabs(seed[i]);
        }
        dm[r] = tol_sum((double)D, abs_x) / D + TOL_U * fabs(mean);
    }
    dbuf dx(vx), dg(vg), db(vb), dy(zeros(R * D)), daux(zeros(2 * R)), dauxc(aux), dseed(seed);
    rf_cuda_layernorm_forward(dx.p, has_gamma ? dg.p : nullptr, has_beta ? db.p : nullptr, dy.p, daux.p, R, D, eps, 0);
    const double rel = tol_sum((double)D, 1) + TOL_CHAIN * TOL_U;
    expect_values(name + ": forward", dy.get(), y, [&](int64_t i) {
        int64_t r = i / D;
        double xhat = (vx[i] - aux[r]) * aux[R + r];
        return 2 * (fabs(gamma[i % D]) * (fabs(xhat) * rel + aux[R + r] * dm[r]) + TOL_CHAIN * TOL_U * fabs(y[i]));
    });
    expect_values(name + ": mean and 1/std (aux)", daux.get(), aux,
                  [&](int64_t i) { return i < R ? 2 * dm[i] : 2 * aux[i] * rel; });

    vec pre_x = normal(R * D), pre_g = normal(D), pre_b = normal(D);
    dbuf gx(pre_x), gg(pre_g), gb(pre_b);
    rf_cuda_layernorm_backward(dx.p, has_gamma ? dg.p : nullptr, dauxc.p, dseed.p, gx.p, has_gamma ? gg.p : nullptr,
                               has_beta ? gb.p : nullptr, R, D, 0);
    vec inc = c.grad(x);
    expect_grad(name + ": gradient of x", gx.get(), pre_x, inc, [&](int64_t i) {
        int64_t r = i / D;
        double s = aux[R + r], xhat = (vx[i] - aux[r]) * s, dn = (double)seed[i] * gamma[i % D];
        return 2 * s *
               (tol_sum((double)D, dn_mag[r]) / D + fabs(xhat) * tol_sum((double)D, dnx_mag[r]) / D +
                TOL_CHAIN * TOL_U * (fabs(dn) + fabs(A[r]) + fabs(xhat * B[r])));
    });
    if (has_gamma) {
        vec ginc = c.grad(gm);
        expect_grad(name + ": gradient of gamma", gg.get(), pre_g, ginc, [&](int64_t j) {
            return tol_sum((double)R + 1, fabs(pre_g[j]) + pg_mag[j]) + TOL_CHAIN * TOL_U * pg_mag[j];
        });
    }
    if (has_beta) {
        vec binc = c.grad(bt);
        expect_grad(name + ": gradient of beta", gb.get(), pre_b, binc, [&](int64_t j) {
            return tol_sum((double)R + 1, fabs(pre_b[j]) + pb_mag[j]) + TOL_U * fabs(binc[j]);
        });
    }
}

/* ---- embedding ---- */

/* Forward is a copy: exact. Backward: table row v gathers the k_v output
 * rows whose id is v, in any order on both sides (atomics onto pre: k_v + 1
 * terms; the CPU: k_v terms in id order). */
static void test_embedding(rf_shape ids_shape, int64_t V, int64_t D)
{
    std::string name = "embedding ids " + shape_str(ids_shape) + " V=" + std::to_string(V) + " D=" + std::to_string(D);
    cpu_op c;
    rf_id ids = c.input(ids_shape, false), table = c.param("embed.weight", rf_shape2(V, D));
    if (!c.prepare(rf_embedding(c.g, ids, table), name))
        return;
    int64_t rows = numel(ids_shape);
    vec vids(rows), vt = normal(V * D), seed = normal(rows * D), pre = normal(V * D);
    for (float &v : vids)
        v = (float)rf_rng_int(&rng, 0, V - 1);
    vids[rows - 1] = (float)(V - 1);   /* the last row of the table */
    c.set(ids, vids);
    c.set(table, vt);
    c.forward();
    c.backward(seed);
    std::vector<double> k(V), mag(V * D);
    for (int64_t r = 0; r < rows; r++) {
        int64_t v = (int64_t)vids[r];
        k[v]++;
        for (int64_t j = 0; j < D; j++)
            mag[v * D + j] += fabs(seed[r * D + j]);
    }
    dbuf dids(vids), dt(vt), dout(zeros(rows * D)), dseed(seed), g(pre);
    rf_cuda_embedding_forward(dids.p, dt.p, dout.p, rows, D, 0);
    expect_values(name + ": forward, exact", dout.get(), c.value(c.out), exact);
    rf_cuda_embedding_backward(dids.p, dseed.p, g.p, rows, D, 0);
    expect_grad(name + ": gradient of the table", g.get(), pre, c.grad(table), [&](int64_t i) {
        double kv = k[i / D];
        return tol_sum(kv + 1, fabs(pre[i]) + mag[i]) + tol_sum(kv, mag[i]);
    });
}

/* ---- reductions ---- */

/* Each output sums A terms (times the mean's 1/A): tol_sum(A, Σ|terms|)
 * on each side plus the final scaling's rounding; backward, scale * dy is
 * one rounding (fused with the += on a GPU: TOL_U·|inc|). */
static void test_reduce(rf_shape xs, int axis, bool mean)
{
    std::string name = std::string(mean ? "mean " : "sum ") + shape_str(xs) + " axis " + std::to_string(axis);
    cpu_op c;
    rf_id x = c.input(xs, true);
    if (!c.prepare(mean ? rf_mean(c.g, x, axis) : rf_sum(c.g, x, axis), name))
        return;
    int64_t n = numel(xs), outer = 1, A = 1, inner = 1;
    for (int i = 0; i < xs.ndim; i++)
        (axis < 0 || i == axis ? A : i < axis ? outer : inner) *= xs.dim[i];
    vec vx = normal(n), seed = normal(n / A), pre = normal(n);
    c.set(x, vx);
    c.forward();
    c.backward(seed);
    vec y = c.value(c.out), inc = c.grad(x);
    double scale = mean ? 1.0 / A : 1.0;
    std::vector<double> mag(outer * inner);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t a = 0; a < A; a++)
            for (int64_t i = 0; i < inner; i++)
                mag[o * inner + i] += scale * fabs(vx[(o * A + a) * inner + i]);
    dbuf dx(vx), dy(zeros(outer * inner)), dseed(seed), g(pre);
    dev<double> work(std::vector<double>(RF_CUDA_PARTIALS));
    rf_cuda_reduce_forward(dx.p, cs(xs), axis, mean, dy.p, work.p, 0);
    expect_values(name + ": forward", dy.get(), y,
                  [&](int64_t i) { return 2 * (tol_sum((double)A, mag[i]) + 2 * TOL_U * fabs(y[i])); });
    rf_cuda_reduce_backward(dseed.p, cs(xs), axis, mean, g.p, 0);
    expect_grad(name + ": gradient", g.get(), pre, inc, [&](int64_t i) { return TOL_U * fabs(inc[i]); });
}

/* Masked mean: weights w = 1/count (one correctly rounded division: exact)
 * and y = Σ w x over the valid tokens (a sum of count products);
 * backward w * dy, one rounding. Row 0 has no valid token, row 1 one. */
static void test_masked_mean(int64_t B, int64_t N, int64_t D)
{
    std::string name = "masked_mean [" + std::to_string(B) + ", " + std::to_string(N) + ", " + std::to_string(D) + "]";
    cpu_op c;
    rf_id x = c.input(rf_shape3(B, N, D), true), m = c.input(rf_shape2(B, N), false);
    if (!c.prepare(rf_masked_mean(c.g, x, m), name))
        return;
    vec vx = normal(B * N * D), vm(B * N), seed = normal(B * D), pre = normal(B * N * D);
    for (float &v : vm)
        v = rf_rng_uniform(&rng) < 0.4 ? 0.0f : 1.0f;
    std::fill(vm.begin(), vm.begin() + 2 * N, 0.0f);
    vm[N + N / 2] = 1.0f;
    c.set(x, vx);
    c.set(m, vm);
    c.forward();
    vec y = c.value(c.out), w = c.aux(c.out);
    c.backward(seed);
    vec inc = c.grad(x);
    std::vector<double> mag(B * D), count(B);
    for (int64_t b = 0; b < B; b++)
        for (int64_t t = 0; t < N; t++) {
            count[b] += w[b * N + t] != 0;
            for (int64_t d = 0; d < D; d++)
                mag[b * D + d] += w[b * N + t] * fabs(vx[(b * N + t) * D + d]);
        }
    dbuf dx(vx), dm(vm), dy(zeros(B * D)), dw(zeros(B * N)), dwc(w), dseed(seed), g(pre);
    rf_cuda_masked_mean_forward(dx.p, dm.p, dy.p, dw.p, B, N, D, 0);
    expect_values(name + ": token weights (aux), exact", dw.get(), w, exact);
    expect_values(name + ": forward", dy.get(), y,
                  [&](int64_t i) { return 2 * tol_sum(count[i / D], mag[i]); });
    rf_cuda_masked_mean_backward(dwc.p, dseed.p, g.p, B, N, D, 0);
    expect_grad(name + ": gradient", g.get(), pre, inc, [&](int64_t i) { return TOL_U * fabs(inc[i]); });
}

/* ---- loss ---- */

/* Cross-entropy: each row's loss max + log S - z_label has S's relative
 * error (as softmax) in log S, and a chain of roundings of its three
 * terms; the mean in double adds nothing to speak of but its final
 * rounding. The probabilities (aux): softmax's bound. Backward (the CPU's
 * probabilities given): g p - g at the label, g = dloss / B: a chain on
 * |g p| + |g|. */
static void test_cross_entropy(int64_t B, int64_t C)
{
    std::string name = "cross_entropy [" + std::to_string(B) + ", " + std::to_string(C) + "]";
    cpu_op c;
    rf_id z = c.input(rf_shape2(B, C), true), labels = c.input(rf_shape1(B), false);
    if (!c.prepare(rf_cross_entropy(c.g, z, labels), name))
        return;
    vec vz = normal(B * C, 2.0), vl(B), seed = {0.7f}, pre = normal(B * C);
    for (float &v : vl)
        v = (float)rf_rng_int(&rng, 0, C - 1);
    c.set(z, vz);
    c.set(labels, vl);
    c.forward();
    vec loss = c.value(c.out), aux = c.aux(c.out);
    c.backward(seed);
    vec inc = c.grad(z);
    double loss_bound = TOL_U * fabs(loss[0]);
    std::vector<double> range(B);
    for (int64_t b = 0; b < B; b++) {
        auto [lo, hi] = std::minmax_element(vz.begin() + b * C, vz.begin() + (b + 1) * C);
        double S = 0;
        for (int64_t j = 0; j < C; j++)
            S += exp((double)vz[b * C + j] - *hi);
        range[b] = *hi - *lo;
        loss_bound += 2.0 / B *
                      (tol_sum((double)C, 1) + TOL_U * range[b] +
                       TOL_CHAIN * TOL_U * (fabs(*hi) + log(S) + fabs(vz[b * C + (int64_t)vl[b]]) + 1));
    }
    dbuf dz(vz), dl(vl), dloss(zeros(1)), daux(zeros(aux.size())), dauxc(aux), work(zeros(B)), dseed(seed), g(pre);
    rf_cuda_cross_entropy_forward(dz.p, dl.p, dloss.p, daux.p, work.p, B, C, 0);
    expect_values(name + ": loss", dloss.get(), loss, [&](int64_t) { return loss_bound; });
    expect_values(name + ": probabilities and labels (aux)", daux.get(), aux, [&](int64_t i) {
        return i < B * C ? 2 * aux[i] * (tol_sum((double)C, 1) + TOL_CHAIN * TOL_U + 2 * TOL_U * range[i / C]) : 0;
    });
    rf_cuda_cross_entropy_backward(dauxc.p, dseed.p, g.p, B, C, 0);
    double gs = seed[0] / B;
    expect_grad(name + ": gradient", g.get(), pre, inc,
                [&](int64_t i) { return TOL_CHAIN * TOL_U * (fabs(gs * aux[i]) + fabs(gs)); });
}

/* Binary cross-entropy on logits. Forward: each of the n terms
 * max(z, 0) - z t + log1p(e^-|z|) takes a few roundings (a chain on the
 * terms' magnitudes), the sum is in double on both sides (its order only
 * moves the last bits), then the mean rounds once. Backward: g (sigmoid(z)
 * - t) and -g z, a chain on |g| (1 + |t|) and |g z|. */
static void test_bce_logits(int64_t B, int64_t C)
{
    std::string name = "bce_logits [" + std::to_string(B) + ", " + std::to_string(C) + "]";
    int64_t n = B * C;
    cpu_op c;
    rf_id z = c.input(rf_shape2(B, C), true), t = c.input(rf_shape2(B, C), true);
    if (!c.prepare(rf_bce_logits(c.g, z, t), name))
        return;
    vec vz = normal(n, 4.0), vt(n), seed = {0.7f}, prez = normal(n), pret = normal(n);
    for (float &v : vt)
        v = (float)rf_rng_uniform(&rng);
    c.set(z, vz);
    c.set(t, vt);
    c.forward();
    vec loss = c.value(c.out);
    c.backward(seed);
    vec incz = c.grad(z), inct = c.grad(t);
    double terms = 0;
    for (int64_t e = 0; e < n; e++)
        terms += fmax(vz[e], 0.0) + fabs((double)vz[e] * vt[e]) + log1p(exp(-fabs(vz[e])));
    double loss_bound = TOL_CHAIN * TOL_U * terms / n + TOL_U * fabs(loss[0]);
    dbuf dz(vz), dt(vt), dloss(zeros(1)), dseed(seed), gz(prez), gt(pret);
    rf_cuda_bce_logits_forward(dz.p, dt.p, dloss.p, n, 0);
    expect_values(name + ": loss", dloss.get(), loss, [&](int64_t) { return loss_bound; });
    rf_cuda_bce_logits_backward(dz.p, dt.p, dseed.p, gz.p, gt.p, n, 0);
    double g = seed[0] / n;
    expect_grad(name + ": gradient of the logits", gz.get(), prez, incz,
                [&](int64_t i) { return TOL_CHAIN * TOL_U * fabs(g) * (1 + fabs(vt[i])); });
    expect_grad(name + ": gradient of the targets", gt.get(), pret, inct,
                [&](int64_t i) { return TOL_CHAIN * TOL_U * fabs(g * vz[i]); });
}

/* ---- dropout ---- */

/* The ported hash must give the CPU's keep decision for any arguments. */
static void test_dropout_keep(void)
{
    int64_t differ = 0, dropped = 0;
    const int64_t trials = 100000;
    for (int64_t k = 0; k < trials; k++) {
        uint64_t seed = rf_rng_next(&rng), step = rf_rng_next(&rng) % 100000;
        int32_t node = (int32_t)rf_rng_int(&rng, -1, 5000);
        int64_t i = (int64_t)(rf_rng_next(&rng) >> 24);
        float p = (float)rf_rng_uniform(&rng);
        bool keep = rf_cuda_dropout_keep(seed, step, node, i, p);
        differ += keep != rf_dropout_keep(seed, step, node, i, p);
        dropped += !keep;
    }
    tap_ok(differ == 0 && dropped > trials / 3 && dropped < 2 * trials / 3,
           "dropout: the ported keep decision equals rf_dropout_keep on %lld random arguments (%lld differ)",
           (long long)trials, (long long)differ);
}

/* Forward and backward are exact: the same keep decisions, the same scale
 * 1/(1 - p), one product (the += may be fused on a GPU: TOL_U·|inc|).
 * Backward reads its step from device memory (a captured step's clock),
 * its by-value step wrong, so it matches only if that step is read. */
static void test_dropout(int64_t n, float p, bool training)
{
    std::string name = "dropout n=" + std::to_string(n) + " p=" + std::to_string(p) + (training ? "" : " eval");
    cpu_op c;
    rf_id x = c.input(rf_shape1(n), true);
    if (!c.prepare(rf_dropout(c.g, x, p), name))
        return;
    vec vx = normal(n), seed = normal(n), pre = normal(n);
    c.set(x, vx);
    c.forward(training);
    c.backward(seed, training);
    vec inc = c.grad(x);
    dbuf dx(vx), dy(zeros(n)), dseed(seed), g(pre);
    dev<uint64_t> step(std::vector<uint64_t>{7});
    rf_cuda_dropout_forward(dx.p, dy.p, n, p, training, 1234, 7, NULL, c.out, 0, 0);
    expect_values(name + ": forward, exact", dy.get(), c.value(c.out), exact);
    rf_cuda_dropout_backward(dseed.p, g.p, n, p, training, 1234, 8, step.p, c.out, 0, 0);
    expect_grad(name + ": gradient", g.get(), pre, inc, [&](int64_t i) { return TOL_U * fabs(inc[i]); });
}

/* ---- optimiser ---- */

/* A parameter store with decayed and undecayed tensors, random gradients. */
static rf_params *make_params(void)
{
    rf_params *p = rf_params_new(3);
    rf_status st = {};
    rf_params_register(p, "enc.weight", rf_shape2(7, 37), RF_INIT_NORMAL, 0.5f, &st);   /* decayed */
    rf_params_register(p, "enc.bias", rf_shape1(37), RF_INIT_NORMAL, 0.5f, &st);
    rf_params_register(p, "enc.norm.weight", rf_shape2(3, 5), RF_INIT_NORMAL, 0.5f, &st);
    rf_params_register(p, "head.weight", rf_shape2(300, 2), RF_INIT_NORMAL, 0.5f, &st);
    rf_params_allocate(p, &st);
    return p;
}

/* AdamW, three steps (t = 1..3), each from the CPU's state (step 2 takes
 * its scalars from device memory, a captured step's clock, its by-value
 * ones zero): every element
 * is a chain of roundings of the same operations in the same order (a GPU
 * may fuse some), within TOL_CHAIN·u of its terms: m: |m| + |g|;
 * v: |v| + g^2; w: |w| + |w - w_new|. Then the sum of squares behind the
 * global gradient norm: both sides sum in double, within n·2^-53 of the
 * sum relative; and the non-finite count, exact. */
static void test_optimiser(void)
{
    rf_params *p = make_params();
    rf_config cfg;
    rf_config_defaults(&cfg);
    cfg.train.weight_decay = 0.1f;
    size_t n = p->total;
    std::vector<rf_cuda_param> table;
    int64_t max_numel = 0;
    int decayed = 0;
    for (int e = 0; e < p->count; e++) {
        table.push_back({(int64_t)p->entries[e].offset, p->entries[e].numel, p->entries[e].decay});
        max_numel = std::max(max_numel, p->entries[e].numel);
        decayed += p->entries[e].decay;
    }
    dev<rf_cuda_param> dtable(table);
    for (int64_t t = 1; t <= 3; t++) {
        vec g = normal((int64_t)n, 0.1);
        std::copy(g.begin(), g.end(), p->grad);
        vec w(p->value, p->value + n), m(p->m, p->m + n), v(p->v, p->v + n);
        dbuf dw(w), dg(g), dm(m), dv(v);
        double lr = 1e-2;
        rf_adamw_step(p, &cfg, lr, t, NULL);
        rf_cuda_adamw_args a = {(float)lr, cfg.train.beta1, cfg.train.beta2, cfg.train.eps, cfg.train.weight_decay,
                                (float)(1.0 - pow(cfg.train.beta1, (double)t)),
                                (float)(1.0 - pow(cfg.train.beta2, (double)t))};
        dev<rf_cuda_adamw_args> da(std::vector<rf_cuda_adamw_args>{a});
        if (t == 2)
            rf_cuda_adamw(dw.p, dg.p, dm.p, dv.p, dtable.p, p->count, max_numel, rf_cuda_adamw_args{}, da.p, NULL, 0);
        else
            rf_cuda_adamw(dw.p, dg.p, dm.p, dv.p, dtable.p, p->count, max_numel, a, NULL, NULL, 0);
        std::string step = "adamw step " + std::to_string(t) + " (" + std::to_string(decayed) + " of " +
                           std::to_string(p->count) + " tensors decayed)";
        expect_values(step + ": m", dm.get(), vec(p->m, p->m + n),
                      [&](int64_t i) { return TOL_CHAIN * TOL_U * (fabs(m[i]) + fabs(g[i])); });
        expect_values(step + ": v", dv.get(), vec(p->v, p->v + n),
                      [&](int64_t i) { return TOL_CHAIN * TOL_U * (fabs(v[i]) + g[i] * g[i]); });
        expect_values(step + ": weights", dw.get(), vec(p->value, p->value + n),
                      [&](int64_t i) { return TOL_CHAIN * TOL_U * (fabs(w[i]) + fabs(w[i] - p->value[i])); });
    }
    dbuf dg(vec(p->grad, p->grad + n));
    dev<double> out(std::vector<double>(1)), work(std::vector<double>(RF_CUDA_PARTIALS));
    rf_cuda_sum_squares(dg.p, (int64_t)n, out.p, work.p, 0);
    double want = rf_grad_norm(p), got = sqrt(out.get()[0]);
    tap_ok(fabs(got - want) <= want * (double)n * 0x1p-53 && cudaGetLastError() == cudaSuccess,
           "sum of squares of %zu gradients: sqrt %.17g, rf_grad_norm %.17g", n, got, want);
    rf_params_free(p);

    vec x = normal(1000);
    x[0] = NAN;
    x[999] = INFINITY;
    x[517] = -INFINITY;
    x[3] = 3.4e38f;   /* finite */
    dbuf dx(x);
    dev<int> count(std::vector<int>{5});
    rf_cuda_count_nonfinite(dx.p, 1000, count.p, 0);
    int counted = count.get()[0];
    tap_ok(counted == 8 && cudaGetLastError() == cudaSuccess,
           "non-finite count adds 3 (NaN, +Inf, -Inf; not FLT_MAX-sized) to 5: %d", counted);
}

int main(void)
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("1..0 # SKIP no CUDA device\n");
        return 0;
    }
    const rf_shape s235 = rf_shape3(2, 3, 37), s1x1 = rf_shape3(2, 1, 37), s_d = rf_shape1(37);
    const rf_shape s_col = rf_shape3(2, 3, 1), s_big = rf_shape3(3, 150, 5), s_bias = rf_shape1(5);
    for (int op = RF_CUDA_ADD; op <= RF_CUDA_MUL; op++) {
        test_binary((rf_cuda_binary)op, s235, s235);
        test_binary((rf_cuda_binary)op, s235, s_d);        /* a bias */
        test_binary((rf_cuda_binary)op, s1x1, s_col);      /* both broadcast */
        test_binary((rf_cuda_binary)op, s_big, s_bias);    /* 450 terms: two row chunks */
    }
    test_binary(RF_CUDA_MUL, rf_shape_scalar(), s235);     /* a scalar times a tensor */
    test_scale(1000, -0.37f);
    test_fill(1000, 1.0f);   /* over 256-thread blocks, the last one partial */
    for (int kind = 0; kind < RF_UNARY_COUNT; kind++)
        test_unary(kind, 999);
    test_glu(37, 19);   /* 703 outputs over 256-thread blocks, odd halves */

    const rf_shape sm_x = rf_shape4(2, 3, 5, 37), sm_keys = rf_shape4(2, 1, 1, 37), sm_rows = rf_shape2(5, 1);
    const rf_shape sm_1d = rf_shape1(37), sm_m1 = rf_shape2(7, 1);
    test_softmax(sm_x, nullptr);
    test_softmax(sm_x, &sm_keys);    /* a key mask per batch, broadcast over heads and queries */
    test_softmax(sm_x, &sm_rows);    /* one flag per query row */
    test_softmax(sm_x, &sm_1d);
    test_softmax(rf_shape2(9, 100), nullptr);
    test_softmax(sm_m1, &sm_m1);     /* rows of one */
    test_log_softmax(7, 37);
    test_log_softmax(5, 1);
    test_log_softmax(3, 300);

    test_layernorm(5, 37, true, true);
    test_layernorm(3, 70, true, false);
    test_layernorm(300, 7, false, true);   /* two row chunks in dgamma's sums */
    test_layernorm(6, 1, false, false);

    test_embedding(rf_shape2(3, 7), 11, 37);
    test_embedding(rf_shape1(1), 1, 5);
    test_embedding(rf_shape1(3000), 1, 1);   /* every row into one element: contended atomics */

    const rf_shape r3 = rf_shape3(3, 5, 37);
    for (int axis = -1; axis < 3; axis++) {
        test_reduce(r3, axis, false);
        test_reduce(r3, axis, true);
    }
    test_reduce(rf_shape1(70000), -1, false);   /* 256 partial sums */
    test_masked_mean(5, 9, 37);
    test_masked_mean(2, 700, 3);   /* more tokens than a block has threads */

    test_cross_entropy(7, 10);
    test_cross_entropy(5, 45);
    test_cross_entropy(1, 3);
    test_bce_logits(7, 3);
    test_bce_logits(33, 41);   /* more elements than the block's threads */
    test_bce_logits(1, 1);

    test_dropout_keep();
    test_dropout(1000, 0.3f, true);
    test_dropout(1000, 0.3f, false);
    test_dropout(333, 0.0f, true);

    test_optimiser();
    return tap_done();
}
