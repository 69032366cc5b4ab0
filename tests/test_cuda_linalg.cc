/* The linear algebra, convolution and shape launchers (kernels/linalg.cu,
 * conv.cu, shape.cu) against the CPU backend, op by op.
 *
 * Each case builds the op with the graph API on the CPU backend, its
 * differentiable inputs as parameters, fills the inputs, runs forward, sets
 * the parameters' gradients to random values `pre` and runs backward
 * seeded with random R. The launchers run on device copies of the same
 * inputs: outputs and the work buffer start as NaN (an element left
 * unwritten, or read before it is written, shows), gradient buffers start
 * at the same `pre` (so = instead of +=, or an add into the wrong element,
 * shows), and an input the case gives no gradient gets NULL. Every output
 * and every gradient is compared, and every call's cuBLAS status and the
 * CUDA error state are checked.
 *
 * Built twice: against the CPU emulator (tests/cuda_emu, every build, where
 * the sanitizers also watch the kernels' indexing), and, where nvcc is
 * found, against the real runtime, cuBLAS and kernels (test_cuda_linalg_gpu,
 * which reports a skip on a machine without a GPU).
 *
 * Bounds (tests/tolerance.h, u = 2^-24). Shape ops move floats: forward is
 * exact, and each gradient element is pre plus the same values in the same
 * order on both sides (one add; two for an input given twice to concat),
 * so exact too. The products, bias sums and col2im are sums of k terms in
 * an order neither side promises (cuBLAS's or OpenBLAS's blocking, atomics
 * across blocks), each within tol_sum(k, Σ|terms|) of the exact sum, so the
 * two sides within twice that; a gradient's sum has pre as one term more.
 * Σ|terms| comes from the same CPU graph run on |inputs|, |pre| and |R|:
 * every term is a product of input entries, so that run's outputs and
 * gradients are the sums of |terms|, computed in f32 within a factor
 * 1 ± γ(k) (no cancellation): divided by 1 - γ(k) they bound the true
 * ones. */
#include <math.h>
#include <stdio.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

extern "C" {
#include "../core/exec.h"
#include "../core/params.h"
#include "../core/rng.h"
}
#include "../kernels/cublas_compat.h"
#include "../kernels/kernels.h"
#include "tap.h"
#include "tolerance.h"

typedef std::vector<float> vec;

static rf_rng rng = {1107};
static cublasHandle_t blas;

static vec normal(int64_t n)
{
    vec v((size_t)n);
    for (float &x : v)
        x = (float)rf_rng_normal(&rng);
    return v;
}

static vec abs_of(vec v)
{
    for (float &x : v)
        x = fabsf(x);
    return v;
}

static rf_cuda_shape cs(rf_shape s)
{
    rf_cuda_shape c = {s.ndim, {1, 1, 1, 1}};
    for (int i = 0; i < s.ndim; i++)
        c.dim[i] = s.dim[i];
    return c;
}

static std::string str(rf_shape s)
{
    char buf[64];
    return rf_shape_str(s, buf, sizeof buf);
}

/* A device copy of host data (none for an empty vector), freed with the object. */
struct dbuf {
    float *p = nullptr;
    size_t n;
    explicit dbuf(const vec &h) : n(h.size())
    {
        if (n > 0) {
            cudaMalloc(&p, n * sizeof(float));
            cudaMemcpy(p, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
        }
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

/* One op under test. The launchers get device pointers: in[k], the output
 * (forward) or R (backward), din[k] (nullptr for an input without a
 * gradient) and `work` floats of NaN. */
typedef std::vector<float *> ptrs;
struct op_case {
    std::string name;
    std::vector<rf_shape> shapes;
    std::vector<bool> grad;   /* input k has a gradient */
    std::function<rf_id(rf_graph *, const std::vector<rf_id> &)> build;
    std::function<int(const ptrs &in, float *out, float *work)> forward;
    std::function<int(const ptrs &in, const float *dout, const ptrs &din, float *work)> backward;
    double out_terms = 0;             /* terms in each output's sum; 0: exact */
    std::vector<double> grad_terms;   /* terms in each of input k's gradient sums, pre aside; 0: exact */
    int64_t work = 0;
};

/* The CPU side: the op in a graph, inputs with a gradient as parameters. */
struct cpu_graph {
    rf_params *params = rf_params_new(7);
    rf_graph *g = rf_graph_new(params);
    std::vector<rf_id> in;
    rf_id out = RF_NONE;
    ~cpu_graph()
    {
        rf_graph_free(g);
        rf_params_free(params);
    }
    bool build(const op_case &c)
    {
        for (size_t k = 0; k < c.shapes.size(); k++) {
            std::string name = "in" + std::to_string(k);
            in.push_back(c.grad[k] ? rf_param(g, name.c_str(), c.shapes[k], RF_INIT_ZEROS, 0)
                                   : rf_input(g, name.c_str(), c.shapes[k], false));
        }
        out = c.build(g, in);
        rf_status st = {};
        if (!rf_graph_ok(g) || out == RF_NONE)
            return tap_ok(false, "%s: build: %s", c.name.c_str(), rf_graph_error(g));
        rf_graph_keep(g, out);
        if (!rf_graph_prepare(g, out, 1, NULL, &st))
            return tap_ok(false, "%s: prepare: %s", c.name.c_str(), st.msg);
        return true;
    }
    int64_t numel(rf_id id) { return rf_shape_numel(rf_node_shape(g, id)); }
    vec get(const float *p, rf_id id) { return vec(p, p + numel(id)); }
    /* forward on `values`, backward from `pre` seeded with `seed` */
    void run(const std::vector<vec> &values, const std::vector<vec> &pre, const vec &seed)
    {
        for (size_t k = 0; k < in.size(); k++) {
            std::copy(values[k].begin(), values[k].end(), rf_value(g, in[k]));
            if (rf_grad(g, in[k]) != nullptr)
                std::copy(pre[k].begin(), pre[k].end(), rf_grad(g, in[k]));
        }
        rf_exec x;
        rf_exec_init(&x, g, NULL, 1, 1, false);
        rf_graph_forward(g, &x);
        rf_graph_backward(g, &x, seed.data());
    }
};

/* One TAP line: the launcher's cuBLAS status, no CUDA error, and
 * |got - want| <= bound(i) for every element (bound 0: the same float). */
static void expect(const std::string &name, int status, const vec &got, const vec &want,
                   const std::function<double(size_t)> &bound)
{
    cudaError_t err = cudaGetLastError();
    double worst = 0;
    size_t at = 0;
    for (size_t i = 0; i < want.size() && got.size() == want.size(); i++) {
        double e = fabs((double)got[i] - want[i]), ratio = e == 0 ? 0 : e / bound(i);
        if (!(ratio <= worst)) {   /* NaN too */
            worst = isnan(ratio) ? INFINITY : ratio;
            at = i;
        }
    }
    bool ok = status == CUBLAS_STATUS_SUCCESS && err == cudaSuccess && got.size() == want.size() && worst <= 1;
    if (tap_ok(ok, "%s", name.c_str()))
        return;
    if (status != CUBLAS_STATUS_SUCCESS)
        tap_diag("cuBLAS: %s", cublasGetStatusString((cublasStatus_t)status));
    else if (err != cudaSuccess)
        tap_diag("CUDA: %s", cudaGetErrorString(err));
    else if (got.size() != want.size())
        tap_diag("%zu values, want %zu", got.size(), want.size());
    else
        tap_diag("element %zu: got %.9g want %.9g (%.3g of its bound %.3g)", at, got[at], want[at], worst, bound(at));
}

/* Two sums of k terms whose |terms| add up to at most mag / (1 - γ(k)) (see the top). */
static double two_sums(double k, double mag)
{
    return k == 0 ? 0 : 2 * tol_sum(k, mag / (1 - tol_gamma(k)));
}

static void run_case(const op_case &c)
{
    cpu_graph val, mag;
    if (!val.build(c) || !mag.build(c))
        return;
    size_t n_in = c.shapes.size();
    std::vector<vec> values, pre, abs_values, abs_pre;
    for (size_t k = 0; k < n_in; k++) {
        values.push_back(normal(rf_shape_numel(c.shapes[k])));
        pre.push_back(c.grad[k] ? normal(rf_shape_numel(c.shapes[k])) : vec());
        abs_values.push_back(abs_of(values[k]));
        abs_pre.push_back(abs_of(pre[k]));
    }
    int64_t n_out = val.numel(val.out);
    vec seed = normal(n_out);
    val.run(values, pre, seed);
    mag.run(abs_values, abs_pre, abs_of(seed));

    std::vector<std::unique_ptr<dbuf>> in_bufs, grads;
    ptrs in, din;
    for (size_t k = 0; k < n_in; k++) {
        in_bufs.emplace_back(new dbuf(values[k]));
        in.push_back(in_bufs.back()->p);
    }
    dbuf out(vec(n_out, NAN)), dseed(seed), work(vec(c.work, NAN));
    int st = c.forward(in, out.p, work.p);
    vec want = val.get(rf_value(val.g, val.out), val.out), m = mag.get(rf_value(mag.g, mag.out), mag.out);
    expect(c.name + ": forward", st, out.get(), want, [&](size_t i) { return two_sums(c.out_terms, m[i]); });

    for (size_t k = 0; k < n_in; k++) {
        grads.emplace_back(c.grad[k] ? new dbuf(pre[k]) : nullptr);
        din.push_back(c.grad[k] ? grads.back()->p : nullptr);
    }
    st = c.backward(in, dseed.p, din, work.p);
    for (size_t k = 0; k < n_in; k++) {
        if (!c.grad[k])
            continue;
        vec g = val.get(rf_grad(val.g, val.in[k]), val.in[k]), gm = mag.get(rf_grad(mag.g, mag.in[k]), mag.in[k]);
        double terms = c.grad_terms[k] == 0 ? 0 : c.grad_terms[k] + 1;
        expect(c.name + ": gradient of input " + std::to_string(k), st, grads[k]->get(), g,
               [&](size_t i) { return two_sums(terms, gm[i]); });
    }
}

static std::vector<rf_shape> shapes_of(std::initializer_list<rf_shape> s) { return s; }

/* ---- matmul and linear ---- */

/* out [..., m, n]: k terms; da: n terms each; db: m per batch, summed over
 * the batches when b is shared */
static void test_matmul(rf_shape as, rf_shape bs, bool ta, bool tb, bool grad_a = true, bool grad_b = true)
{
    op_case c;
    c.name = "matmul " + str(as) + (ta ? "^T" : "") + " x " + str(bs) + (tb ? "^T" : "") +
             (grad_a ? "" : ", no da") + (grad_b ? "" : ", no db");
    c.shapes = shapes_of({as, bs});
    c.grad = {grad_a, grad_b};
    int nd = as.ndim;
    double m = (double)as.dim[nd - (ta ? 1 : 2)], k = (double)as.dim[nd - (ta ? 2 : 1)];
    double n = (double)bs.dim[bs.ndim - (tb ? 2 : 1)];
    double batch = (double)rf_shape_numel(as) / (m * k);
    c.build = [=](rf_graph *g, const std::vector<rf_id> &i) { return rf_matmul(g, i[0], i[1], ta, tb); };
    c.forward = [=](const ptrs &i, float *out, float *) {
        return rf_cuda_matmul_forward(i[0], cs(as), i[1], cs(bs), ta, tb, out, blas, 0);
    };
    c.backward = [=](const ptrs &i, const float *dout, const ptrs &d, float *) {
        return rf_cuda_matmul_backward(i[0], cs(as), i[1], cs(bs), ta, tb, dout, d[0], d[1], blas, 0);
    };
    c.out_terms = k;
    c.grad_terms = {n, bs.ndim == 2 ? m * batch : m};
    run_case(c);
}

/* x [..., k] w [k, n] (bias [n]): out k (+ 1) terms, dx n, dw and dbias rows */
static void test_linear(rf_shape xs, int64_t n, bool bias, bool grad_x = true, bool grad_w = true,
                        bool grad_bias = true)
{
    int64_t k = xs.dim[xs.ndim - 1], rows = rf_shape_numel(xs) / k;
    op_case c;
    c.name = "linear " + str(xs) + " x " + str(rf_shape2(k, n)) + (bias ? " + bias" : "") + (grad_x ? "" : ", no dx") +
             (grad_w ? "" : ", no dw") + (grad_bias ? "" : ", no dbias");
    c.shapes = bias ? shapes_of({xs, rf_shape2(k, n), rf_shape1(n)}) : shapes_of({xs, rf_shape2(k, n)});
    c.grad = {grad_x, grad_w, grad_bias};
    c.build = [=](rf_graph *g, const std::vector<rf_id> &i) { return rf_linear(g, i[0], i[1], bias ? i[2] : RF_NONE); };
    c.forward = [=](const ptrs &i, float *out, float *) {
        return rf_cuda_linear_forward(i[0], i[1], bias ? i[2] : nullptr, out, rows, k, n, blas, 0);
    };
    c.backward = [=](const ptrs &i, const float *dout, const ptrs &d, float *) {
        return rf_cuda_linear_backward(i[0], i[1], dout, d[0], d[1], bias ? d[2] : nullptr, rows, k, n, blas, 0);
    };
    c.out_terms = (double)k + (bias ? 1 : 0);
    c.grad_terms = {(double)n, (double)rows, (double)rows};
    run_case(c);
}

/* ---- convolution ---- */

/* x [B, Cin, (H,) W], w [Cout, Cin, (KH,) KW]. out: Cin·KH·KW (+ 1) terms;
 * dx: at most Cout·KH·KW (the taps that reach a pixel); dw and dbias:
 * B·OH·OW. work: the CPU op's scratch. */
static void test_conv(rf_shape xs, rf_shape ws, int sh, int sw, int ph, int pw, bool bias, bool grad_x = true)
{
    bool two = xs.ndim == 4;
    op_case c;
    c.name = std::string(two ? "conv2d " : "conv1d ") + str(xs) + " * " + str(ws) + " stride " +
             (two ? std::to_string(sh) + "," : "") + std::to_string(sw) + " pad " +
             (two ? std::to_string(ph) + "," : "") + std::to_string(pw) + (bias ? " + bias" : "") +
             (grad_x ? "" : ", no dx");
    c.shapes = bias ? shapes_of({xs, ws, rf_shape1(ws.dim[0])}) : shapes_of({xs, ws});
    c.grad = {grad_x, true, true};
    c.build = [=](rf_graph *g, const std::vector<rf_id> &i) {
        rf_id b = bias ? i[2] : RF_NONE;
        return two ? rf_conv2d(g, i[0], i[1], b, sh, sw, ph, pw) : rf_conv1d(g, i[0], i[1], b, sw, pw);
    };
    c.forward = [=](const ptrs &i, float *out, float *work) {
        const float *b = bias ? i[2] : nullptr;
        return two ? rf_cuda_conv2d_forward(i[0], cs(xs), i[1], cs(ws), b, out, sh, sw, ph, pw, work, blas, 0)
                   : rf_cuda_conv1d_forward(i[0], cs(xs), i[1], cs(ws), b, out, sw, pw, work, blas, 0);
    };
    c.backward = [=](const ptrs &i, const float *dout, const ptrs &d, float *work) {
        float *db = bias ? d[2] : nullptr;
        return two ? rf_cuda_conv2d_backward(i[0], cs(xs), i[1], cs(ws), dout, d[0], d[1], db, sh, sw, ph, pw, work,
                                             blas, 0)
                   : rf_cuda_conv1d_backward(i[0], cs(xs), i[1], cs(ws), dout, d[0], d[1], db, sw, pw, work, blas, 0);
    };
    int64_t kh = two ? ws.dim[2] : 1, kw = ws.dim[ws.ndim - 1];
    int64_t oh = two ? (xs.dim[2] + 2 * ph - kh) / sh + 1 : 1, ow = (xs.dim[xs.ndim - 1] + 2 * pw - kw) / sw + 1;
    bool pointwise = kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0;
    c.work = pointwise ? 0 : ws.dim[1] * kh * kw * oh * ow;
    c.out_terms = (double)(ws.dim[1] * kh * kw) + (bias ? 1 : 0);
    double positions = (double)(xs.dim[0] * oh * ow);
    c.grad_terms = {(double)(ws.dim[0] * kh * kw), positions, positions};
    run_case(c);
}

/* ---- shape ops: exact ---- */

static op_case exact_case(const std::string &name, std::vector<rf_shape> shapes)
{
    op_case c;
    c.name = name;
    c.grad = std::vector<bool>(shapes.size(), true);
    c.grad_terms = std::vector<double>(shapes.size(), 0);
    c.shapes = std::move(shapes);
    return c;
}

static void test_reshape(rf_shape xs, rf_shape to)
{
    op_case c = exact_case("reshape " + str(xs) + " to " + str(to), {xs});
    int64_t n = rf_shape_numel(xs);
    c.build = [=](rf_graph *g, const std::vector<rf_id> &i) { return rf_reshape(g, i[0], to); };
    c.forward = [=](const ptrs &i, float *out, float *) {
        rf_cuda_reshape_forward(i[0], out, n, 0);
        return 0;
    };
    c.backward = [=](const ptrs &, const float *dout, const ptrs &d, float *) {
        rf_cuda_reshape_backward(dout, d[0], n, 0);
        return 0;
    };
    run_case(c);
}

static void test_permute(rf_shape xs, std::vector<int> perm)
{
    std::string p;
    /* appended piece by piece: GCC 12's -Wrestrict misfires on
       "literal" + std::string at -O3 (GCC bug 105651) */
    for (int a : perm) {
        if (!p.empty())
            p += ',';
        p += std::to_string(a);
    }
    op_case c = exact_case("permute " + str(xs) + " by (" + p + ")", {xs});
    c.build = [=](rf_graph *g, const std::vector<rf_id> &i) { return rf_permute(g, i[0], perm.data()); };
    c.forward = [=](const ptrs &i, float *out, float *) {
        rf_cuda_permute_forward(i[0], cs(xs), perm.data(), out, 0);
        return 0;
    };
    c.backward = [=](const ptrs &, const float *dout, const ptrs &d, float *) {
        rf_cuda_permute_backward(dout, cs(xs), perm.data(), d[0], 0);
        return 0;
    };
    run_case(c);
}

/* every order of xs's axes */
static void test_permutations(rf_shape xs)
{
    std::vector<int> perm(xs.ndim);
    for (int i = 0; i < xs.ndim; i++)
        perm[i] = i;
    do
        test_permute(xs, perm);
    while (std::next_permutation(perm.begin(), perm.end()));
}

/* `which` lists the inputs by index into `shapes`, so one may come twice */
static void test_concat(std::vector<rf_shape> shapes, std::vector<int> which, int axis)
{
    std::string name = "concat";
    for (int k : which) {
        name += ' ';
        name += std::to_string(k);
        name += ':';
        name += str(shapes[k]);
    }
    op_case c = exact_case(name + " along " + std::to_string(axis), shapes);
    rf_shape os = shapes[which[0]];
    os.dim[axis] = 0;
    std::vector<int64_t> lens;
    for (int k : which) {
        lens.push_back(shapes[k].dim[axis]);
        os.dim[axis] += shapes[k].dim[axis];
    }
    int n = (int)which.size();
    c.build = [=](rf_graph *g, const std::vector<rf_id> &i) {
        std::vector<rf_id> xs;
        for (int k : which)
            xs.push_back(i[k]);
        return rf_concat(g, xs.data(), n, axis);
    };
    c.forward = [=](const ptrs &i, float *out, float *) {
        std::vector<const float *> xs;
        for (int k : which)
            xs.push_back(i[k]);
        rf_cuda_concat_forward(xs.data(), lens.data(), n, cs(os), axis, out, 0);
        return 0;
    };
    c.backward = [=](const ptrs &, const float *dout, const ptrs &d, float *) {
        std::vector<float *> dxs;
        for (int k : which)
            dxs.push_back(d[k]);
        rf_cuda_concat_backward(dout, lens.data(), n, cs(os), axis, dxs.data(), 0);
        return 0;
    };
    run_case(c);
}

static void test_slice(rf_shape xs, int axis, int64_t start, int64_t len)
{
    op_case c = exact_case("slice " + str(xs) + " axis " + std::to_string(axis) + " [" + std::to_string(start) + ", " +
                               std::to_string(start + len) + ")",
                           {xs});
    c.build = [=](rf_graph *g, const std::vector<rf_id> &i) { return rf_slice(g, i[0], axis, start, len); };
    c.forward = [=](const ptrs &i, float *out, float *) {
        rf_cuda_slice_forward(i[0], cs(xs), axis, start, len, out, 0);
        return 0;
    };
    c.backward = [=](const ptrs &, const float *dout, const ptrs &d, float *) {
        rf_cuda_slice_backward(dout, cs(xs), axis, start, len, d[0], 0);
        return 0;
    };
    run_case(c);
}

/* rf_sort_rows by a mask of relu(normal) values (about half zeros, so the
 * rows' valid counts differ and tie), against the CPU's order exactly */
static void test_sort_rows(rf_shape xs, int64_t cols, bool inverse)
{
    op_case c = exact_case(std::string("sort_rows ") + str(xs) + (inverse ? " inverse" : "") + " by a mask of " +
                               std::to_string(cols) + " columns",
                           {xs, rf_shape2(xs.dim[0], cols)});
    c.grad = {true, false};
    int64_t rows = xs.dim[0], cells = rows * cols;
    c.work = cells + 2 * rows;   /* the mask, the order, the counts */
    c.build = [=](rf_graph *g, const std::vector<rf_id> &i) {
        return rf_sort_rows(g, i[0], rf_relu(g, i[1]), inverse);
    };
    c.forward = [=](const ptrs &i, float *out, float *work) {
        rf_cuda_unary_forward(RF_UNARY_RELU, i[1], work, cells, 0);
        rf_cuda_sort_rows_forward(i[0], work, cs(xs), cols, inverse, false, work + cells, work + cells + rows, out, 0);
        return 0;
    };
    c.backward = [=](const ptrs &, const float *dout, const ptrs &d, float *work) {
        rf_cuda_sort_rows_backward(dout, work + cells, cs(xs), inverse, d[0], 0);
        return 0;
    };
    run_case(c);
}

static void test_pad(rf_shape xs, int axis, int64_t before, int64_t after, float value)
{
    op_case c = exact_case("pad " + str(xs) + " axis " + std::to_string(axis) + " by " + std::to_string(before) + ", " +
                               std::to_string(after),
                           {xs});
    c.build = [=](rf_graph *g, const std::vector<rf_id> &i) { return rf_pad(g, i[0], axis, before, after, value); };
    c.forward = [=](const ptrs &i, float *out, float *) {
        rf_cuda_pad_forward(i[0], cs(xs), axis, before, after, value, out, 0);
        return 0;
    };
    c.backward = [=](const ptrs &, const float *dout, const ptrs &d, float *) {
        rf_cuda_pad_backward(dout, cs(xs), axis, before, after, d[0], 0);
        return 0;
    };
    run_case(c);
}

/* A launcher given no elements launches nothing: the emulator (and a GPU)
 * would refuse an empty grid with an error. */
static void test_empty(void)
{
    rf_cuda_shape e3 = {3, {0, 2, 5, 1}}, w3 = {3, {4, 2, 3, 1}};
    int perm[3] = {2, 0, 1};
    int64_t lens[2] = {0, 0};
    const float *xs[2] = {nullptr, nullptr};
    float *dxs[2] = {nullptr, nullptr};
    float dummy = 0;
    rf_cuda_shape b2 = {2, {5, 3, 1, 1}};
    int st = rf_cuda_matmul_forward(nullptr, e3, nullptr, b2, false, false, nullptr, blas, 0);
    st |= rf_cuda_linear_forward(nullptr, nullptr, &dummy, nullptr, 0, 3, 4, blas, 0);
    st |= rf_cuda_linear_backward(nullptr, nullptr, nullptr, nullptr, nullptr, &dummy, 0, 3, 4, blas, 0);
    st |= rf_cuda_conv1d_forward(nullptr, e3, nullptr, w3, &dummy, nullptr, 1, 1, nullptr, blas, 0);
    st |= rf_cuda_conv1d_backward(nullptr, e3, nullptr, w3, nullptr, &dummy, &dummy, &dummy, 1, 1, nullptr, blas, 0);
    rf_cuda_reshape_backward(nullptr, &dummy, 0, 0);
    rf_cuda_permute_forward(nullptr, e3, perm, nullptr, 0);
    rf_cuda_permute_backward(nullptr, e3, perm, &dummy, 0);
    rf_cuda_concat_forward(xs, lens, 2, e3, 1, nullptr, 0);
    rf_cuda_concat_backward(nullptr, lens, 2, e3, 1, dxs, 0);
    rf_cuda_slice_forward(nullptr, e3, 2, 1, 2, nullptr, 0);
    rf_cuda_pad_forward(nullptr, e3, 2, 1, 1, 0.0f, nullptr, 0);
    rf_cuda_pad_backward(nullptr, e3, 2, 1, 1, &dummy, 0);
    expect("launchers given no elements launch nothing", st, {}, {}, [](size_t) { return 0.0; });
}

int main(void)
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("1..0 # SKIP no CUDA device\n");
        return 0;
    }
    if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) {
        tap_ok(false, "cublasCreate");
        return tap_done();
    }

    for (int t = 0; t < 4; t++) {
        bool ta = t & 1, tb = t & 2;
        test_matmul(ta ? rf_shape2(45, 37) : rf_shape2(37, 45), tb ? rf_shape2(33, 45) : rf_shape2(45, 33), ta, tb);
        test_matmul(ta ? rf_shape4(2, 3, 20, 37) : rf_shape4(2, 3, 37, 20),
                    tb ? rf_shape4(2, 3, 11, 20) : rf_shape4(2, 3, 20, 11), ta, tb);
        /* a 2-D b shared by the batches: stacked rows, or (ta) one product per batch */
        test_matmul(ta ? rf_shape3(3, 19, 7) : rf_shape3(3, 7, 19), tb ? rf_shape2(13, 19) : rf_shape2(19, 13), ta,
                    tb);
    }
    test_matmul(rf_shape3(1, 9, 17), rf_shape3(1, 17, 5), false, false);    /* batch 1 */
    test_matmul(rf_shape3(4, 1, 6), rf_shape3(4, 6, 1), false, false);      /* m = n = 1 */
    test_matmul(rf_shape2(1, 1), rf_shape2(1, 1), true, true);
    test_matmul(rf_shape3(3, 1, 5), rf_shape2(1, 7), true, false);          /* k = 1 */
    test_matmul(rf_shape3(2, 6, 9), rf_shape3(2, 4, 9), false, true, false, true);
    test_matmul(rf_shape3(2, 6, 9), rf_shape2(9, 4), false, false, true, false);

    test_linear(rf_shape3(5, 7, 37), 45, true);
    test_linear(rf_shape3(5, 7, 37), 45, false);
    test_linear(rf_shape2(1, 33), 3, true);                  /* one row */
    test_linear(rf_shape2(600, 1), 1, true);                 /* k = n = 1; 600 rows: 3 row chunks in dbias */
    test_linear(rf_shape2(3, 300), 17, true, false, true);   /* no dx */
    test_linear(rf_shape2(4, 10), 6, true, true, false);     /* no dw */
    test_linear(rf_shape2(4, 10), 6, true, true, true, false);

    test_conv(rf_shape3(2, 3, 29), rf_shape3(5, 3, 4), 1, 1, 0, 0, true);
    test_conv(rf_shape3(2, 3, 29), rf_shape3(5, 3, 4), 1, 2, 0, 3, true);
    test_conv(rf_shape3(3, 4, 17), rf_shape3(2, 4, 3), 1, 3, 0, 1, false);
    test_conv(rf_shape3(2, 3, 29), rf_shape3(5, 3, 1), 1, 1, 0, 0, true);    /* pointwise: batched */
    test_conv(rf_shape3(3, 1, 3000), rf_shape3(2, 1, 1), 1, 1, 0, 0, true);  /* 9000 positions: 2 chunks in dbias */
    test_conv(rf_shape3(2, 3, 29), rf_shape3(5, 3, 1), 1, 2, 0, 0, true);    /* 1 wide, strided: im2col */
    test_conv(rf_shape3(1, 1, 10), rf_shape3(1, 1, 10), 1, 1, 0, 0, true);   /* one output */
    test_conv(rf_shape3(2, 3, 29), rf_shape3(5, 3, 4), 1, 2, 0, 1, true, false);
    test_conv(rf_shape4(2, 3, 9, 11), rf_shape4(4, 3, 3, 2), 1, 1, 0, 0, true);
    test_conv(rf_shape4(2, 3, 9, 11), rf_shape4(4, 3, 3, 2), 2, 3, 1, 2, true);
    test_conv(rf_shape4(2, 3, 9, 11), rf_shape4(4, 3, 3, 3), 2, 1, 0, 1, false);
    test_conv(rf_shape4(2, 5, 6, 7), rf_shape4(3, 5, 1, 1), 1, 1, 0, 0, true);   /* pointwise */
    test_conv(rf_shape4(1, 1, 5, 5), rf_shape4(2, 1, 5, 5), 1, 1, 2, 2, true);   /* padding past half the kernel */
    test_conv(rf_shape4(2, 2, 7, 5), rf_shape4(3, 2, 2, 3), 3, 2, 1, 0, true, false);

    test_reshape(rf_shape3(3, 5, 7), rf_shape2(15, 7));
    test_reshape(rf_shape1(37), rf_shape3(1, 37, 1));

    /* through shared-memory tiles where the innermost axis moves and both
     * innermost axes have 16 or more entries, else a plain gather */
    test_permutations(rf_shape3(3, 37, 33));   /* tiles cut at 32 */
    test_permutations(rf_shape3(1, 5, 1));
    test_permutations(rf_shape4(2, 3, 5, 7));
    test_permutations(rf_shape4(1, 17, 1, 20));
    test_permute(rf_shape4(2, 17, 3, 20), {3, 0, 2, 1});   /* tiles with both other axes longer than 1: */
    test_permute(rf_shape4(2, 17, 3, 20), {0, 3, 2, 1});   /* the source's innermost lands on axis 0, 1, 2 */
    test_permute(rf_shape4(2, 17, 3, 20), {0, 2, 3, 1});
    test_permutations(rf_shape2(37, 45));
    test_permute(rf_shape1(7), {0});

    const rf_shape c1 = rf_shape3(2, 3, 5), c2 = rf_shape3(2, 4, 5), c3 = rf_shape3(2, 1, 5);
    test_concat({c1, c2, c3}, {0, 1, 2}, 1);
    test_concat({c1, c2}, {0, 0}, 1);   /* one input twice: both gradients land */
    test_concat({rf_shape2(1, 5), rf_shape2(2, 5)}, {0, 1}, 0);
    test_concat({rf_shape2(3, 7), rf_shape2(3, 30)}, {0, 1}, 1);
    test_concat({rf_shape4(2, 1, 3, 2), rf_shape4(2, 1, 3, 5), rf_shape4(2, 1, 3, 1), rf_shape4(2, 1, 3, 33)},
                {0, 1, 2, 3}, 3);

    test_sort_rows(rf_shape3(9, 4, 3), 6, false);
    test_sort_rows(rf_shape2(33, 5), 3, true);
    test_slice(rf_shape3(4, 37, 5), 1, 3, 30);
    test_slice(rf_shape3(4, 37, 5), 0, 0, 1);
    test_slice(rf_shape3(4, 37, 5), 2, 4, 1);   /* the last element */
    test_slice(rf_shape2(3, 7), 1, 0, 7);       /* all of it */

    test_pad(rf_shape3(3, 5, 7), 1, 2, 3, -1.5f);
    test_pad(rf_shape3(3, 5, 7), 2, 0, 4, 0.0f);
    test_pad(rf_shape3(3, 5, 7), 0, 3, 0, 2.0f);
    test_pad(rf_shape1(1), 0, 5, 5, 0.5f);

    test_empty();
    cublasDestroy(blas);
    return tap_done();
}
