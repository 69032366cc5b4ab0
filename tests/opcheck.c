#include "opcheck.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/exec.h"
#include "../core/params.h"
#include "../core/rng.h"
#include "tap.h"
#include "tolerance.h"

static bool differentiable(opcheck_kind k)
{
    return k == OPCHECK_NORMAL || k == OPCHECK_POSITIVE || k == OPCHECK_PARAM;
}

static void fill(float *x, int64_t n, opcheck_kind kind, int range, rf_rng *rng)
{
    for (int64_t i = 0; i < n; i++) {
        switch (kind) {
        case OPCHECK_NORMAL:
        case OPCHECK_PARAM: x[i] = (float)rf_rng_normal(rng); break;
        case OPCHECK_POSITIVE: x[i] = (float)(0.5 + 1.5 * rf_rng_uniform(rng)); break;
        case OPCHECK_IDS: x[i] = (float)rf_rng_int(rng, 0, range - 1); break;
        case OPCHECK_MASK: x[i] = rf_rng_uniform(rng) < 0.25 ? 0.0f : 1.0f; break;
        case OPCHECK_PROB: x[i] = (float)rf_rng_uniform(rng); break;
        }
    }
}

typedef struct {
    double worst;       /* worst ratio err / bound */
    int64_t at;
    double got, want;
} compare_result;

/* Compare got with want element-wise against bound[i]; an element whose
 * bound is 0 must match exactly. */
static compare_result compare(const float *got, const double *want, const double *bound, int64_t n)
{
    compare_result r = {0, -1, 0, 0};
    for (int64_t i = 0; i < n; i++) {
        double err = fabs((double)got[i] - want[i]);
        double ratio = err == 0 ? 0 : err / bound[i];
        if (!(ratio <= r.worst)) {   /* catches NaN too */
            r.worst = isnan(ratio) ? INFINITY : ratio;
            r.at = i;
            r.got = got[i];
            r.want = want[i];
        }
    }
    return r;
}

/* What the central differences of the reference tell about one output
 * element o, summed over every differentiable input element j:
 * mag = Σ |∂f_o/∂x_j · x_j| (the componentwise condition: how far f32's
 * rounding of the inputs and of the intermediate sums can move f_o) and
 * terms = how many x_j f_o depends on (the length of its longest sum). */
typedef struct {
    double mag;
    double terms;
} sensitivity;

/* Forward bound (tests/tolerance.h): the sums behind f_o, plus the
 * element-wise chain after them. */
static double forward_bound(sensitivity s, double want)
{
    return tol_sum(s.terms, s.mag) + TOL_CHAIN * TOL_U * (fabs(want) + s.mag);
}

bool opcheck_run(const opcheck_case *c)
{
    rf_params *params = rf_params_new(42);
    rf_graph *g = rf_graph_new(params);
    rf_id in[OPCHECK_MAX_IN];
    for (int k = 0; k < c->n_in; k++) {
        char name[32];
        snprintf(name, sizeof name, "in%d", k);
        if (c->kind[k] == OPCHECK_PARAM)
            in[k] = rf_param(g, name, c->shape[k], RF_INIT_ZEROS, 0);
        else
            in[k] = rf_input(g, name, c->shape[k], differentiable(c->kind[k]));
    }
    rf_id out = c->build(g, in, c->ctx);
    rf_status st = {0};
    bool all = true;
    if (!rf_graph_ok(g) || out == RF_NONE) {
        all = tap_ok(false, "%s: build failed: %s", c->name, rf_graph_error(g));
        goto done;
    }
    rf_graph_keep(g, out);
    if (!rf_graph_prepare(g, out, 2, NULL, &st)) {
        all = tap_ok(false, "%s: prepare failed: %s", c->name, st.msg);
        goto done;
    }

    /* inputs */
    rf_rng rng = {c->seed ? c->seed : 99};
    double *din[OPCHECK_MAX_IN];
    int64_t numel[OPCHECK_MAX_IN];
    for (int k = 0; k < c->n_in; k++) {
        numel[k] = rf_shape_numel(c->shape[k]);
        float *v = rf_value(g, in[k]);
        fill(v, numel[k], c->kind[k], c->range[k], &rng);
        din[k] = malloc((size_t)numel[k] * sizeof(double));
        for (int64_t i = 0; i < numel[k]; i++)
            din[k][i] = v[i];
    }
    int64_t n_out = rf_shape_numel(rf_node_shape(g, out));
    double *want = malloc((size_t)n_out * sizeof(double));
    double *seed = malloc((size_t)n_out * sizeof(double));
    float *fseed = malloc((size_t)n_out * sizeof(float));
    for (int64_t i = 0; i < n_out; i++) {
        fseed[i] = (float)rf_rng_normal(&rng);
        seed[i] = fseed[i];
    }

    /* central differences of the reference (double, step 1e-6): the
     * numeric gradient of sum(R * f) for every differentiable input, and
     * the sensitivities that give each comparison its bound */
    const double h = 1e-6;
    const float grad_offset = 0.25f;   /* see backward, below */
    double *fp = malloc((size_t)n_out * sizeof(double)), *fm = malloc((size_t)n_out * sizeof(double));
    sensitivity *sens = calloc((size_t)n_out, sizeof *sens);
    double *num[OPCHECK_MAX_IN] = {0}, *gbound[OPCHECK_MAX_IN] = {0};
    double obj_mag = 0;   /* Σ|R_o f_o|: the scale of the objective's rounding */
    c->reference((const double *const *)din, want, c->ctx);
    for (int64_t o = 0; o < n_out; o++)
        obj_mag += fabs(seed[o] * want[o]);
    for (int k = 0; k < c->n_in; k++) {
        if (!differentiable(c->kind[k]))
            continue;
        num[k] = malloc((size_t)numel[k] * sizeof(double));
        gbound[k] = malloc((size_t)numel[k] * sizeof(double));
        for (int64_t i = 0; i < numel[k]; i++) {
            double keep = din[k][i], sp = 0, sm = 0, gmag = 0, gterms = 0, gout = 0;
            din[k][i] = keep + h;
            c->reference((const double *const *)din, fp, c->ctx);
            din[k][i] = keep - h;
            c->reference((const double *const *)din, fm, c->ctx);
            din[k][i] = keep;
            for (int64_t o = 0; o < n_out; o++) {
                sp += seed[o] * fp[o];
                sm += seed[o] * fm[o];
                double jac = (fp[o] - fm[o]) / (2 * h);
                if (jac != 0) {
                    sens[o].mag += fabs(jac * keep);
                    sens[o].terms += 1;
                    gmag += fabs(seed[o] * jac);
                    gout += fabs(seed[o] * want[o]);
                    gterms += 1;
                }
            }
            num[k][i] = (sp - sm) / (2 * h);
            /* the backward's f32 sum of gterms products R_o ∂f_o/∂x, each
             * from an element-wise chain; the forward values it reads (an
             * output like sigmoid's s, whose 1 - s cancels) carry a rounding
             * of TOL_CHAIN·u·|f_o|, met with weight R_o; a parameter's
             * gradient is accumulated onto grad_offset and the offset taken
             * off again (2 roundings of u·(offset + |g|)); the difference
             * quotient's own error: double rounding of the objective
             * (2^-52 Σ|R f| over 2h, with a factor 100 for the reference's
             * internal roundings) */
            gbound[k][i] = tol_sum(gterms, gmag) + TOL_CHAIN * TOL_U * (gmag + gout) +
                           (c->kind[k] == OPCHECK_PARAM ? 2 * TOL_U * (grad_offset + gmag) : 0) +
                           100 * 0x1p-52 * obj_mag / (2 * h);
        }
    }
    double *fbound = malloc((size_t)n_out * sizeof(double));
    for (int64_t o = 0; o < n_out; o++)
        fbound[o] = forward_bound(sens[o], want[o]);

    /* forward */
    rf_pool *pool = rf_pool_new(2);
    rf_exec x;
    rf_exec_init(&x, g, pool, OPCHECK_EXEC_SEED, OPCHECK_EXEC_STEP, c->training);
    rf_graph_forward(g, &x);
    compare_result r = compare(rf_value(g, out), want, fbound, n_out);
    if (!tap_ok(r.worst <= 1.0, "%s: forward matches the reference", c->name)) {
        tap_diag("element %lld: got %.8g want %.8g (%.3g of its bound)", (long long)r.at, r.got, r.want, r.worst);
        all = false;
    }

    /* backward, twice: the first leaves its gradients (or, where the
     * arena reuses their memory, the next forward's values) in the input
     * grads, which the executor must zero before the second or the kernel
     * overwrite (rf_exec.fresh); so a kernel that adds to a gradient it was
     * told is fresh is caught. Parameter grads start at a known offset, so a
     * kernel that overwrites (=) instead of accumulating (+=) is caught. */
    rf_graph_backward(g, &x, fseed);
    rf_graph_forward(g, &x);
    for (size_t i = 0; i < params->total; i++)
        params->grad[i] = grad_offset;
    rf_graph_backward(g, &x, fseed);
    for (int k = 0; k < c->n_in; k++)
        if (c->kind[k] == OPCHECK_PARAM) {
            float *grad = rf_grad(g, in[k]);
            for (int64_t i = 0; i < numel[k]; i++)
                grad[i] -= grad_offset;
        }
    for (int k = 0; k < c->n_in; k++) {
        if (!differentiable(c->kind[k]))
            continue;
        r = compare(rf_grad(g, in[k]), num[k], gbound[k], numel[k]);
        if (!tap_ok(r.worst <= 1.0, "%s: gradient of input %d matches finite differences", c->name, k)) {
            tap_diag("element %lld: analytic %.8g numeric %.8g (%.3g of its bound)", (long long)r.at, r.got, r.want,
                     r.worst);
            all = false;
        }
        free(num[k]);
        free(gbound[k]);
    }
    free(fp);
    free(fm);
    free(sens);
    free(fbound);
    rf_pool_free(pool);
    for (int k = 0; k < c->n_in; k++)
        free(din[k]);
    free(want);
    free(seed);
    free(fseed);
done:
    rf_graph_free(g);
    rf_params_free(params);
    return all;
}
