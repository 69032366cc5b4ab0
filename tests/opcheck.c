#include "opcheck.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/exec.h"
#include "../core/params.h"
#include "../core/rng.h"
#include "tap.h"

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
    double worst;       /* worst ratio err / tolerance */
    int64_t at;
    double got, want;
} compare_result;

static compare_result compare(const float *got, const double *want, int64_t n, double atol, double rtol)
{
    compare_result r = {0, -1, 0, 0};
    for (int64_t i = 0; i < n; i++) {
        double err = fabs((double)got[i] - want[i]);
        double ratio = err / (atol + rtol * fabs(want[i]));
        if (!(ratio <= r.worst)) {   /* catches NaN too */
            r.worst = isnan(ratio) ? INFINITY : ratio;
            r.at = i;
            r.got = got[i];
            r.want = want[i];
        }
    }
    return r;
}

static double objective(const opcheck_case *c, double **in, double *out, int64_t n_out, const double *seed)
{
    c->reference((const double *const *)in, out, c->ctx);
    double s = 0;
    for (int64_t i = 0; i < n_out; i++)
        s += seed[i] * out[i];
    return s;
}

bool opcheck_run(const opcheck_case *c)
{
    double atol = c->atol > 0 ? c->atol : 1e-4;
    double rtol = c->rtol > 0 ? c->rtol : 1e-3;
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

    /* forward */
    rf_pool *pool = rf_pool_new(2);
    rf_exec x;
    rf_exec_init(&x, g, pool, OPCHECK_EXEC_SEED, OPCHECK_EXEC_STEP, c->training);
    rf_graph_forward(g, &x);
    c->reference((const double *const *)din, want, c->ctx);
    compare_result r = compare(rf_value(g, out), want, n_out, atol, rtol);
    if (!tap_ok(r.worst <= 1.0, "%s: forward matches the reference", c->name)) {
        tap_diag("element %lld: got %.8g want %.8g", (long long)r.at, r.got, r.want);
        all = false;
    }

    /* backward; parameter grads start at a known offset, so a kernel that
     * overwrites (=) instead of accumulating (+=) is caught */
    const float grad_offset = 0.25f;
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
        double *num = malloc((size_t)numel[k] * sizeof(double));
        const double h = 1e-6;
        for (int64_t i = 0; i < numel[k]; i++) {
            double keep = din[k][i];
            din[k][i] = keep + h;
            double fp = objective(c, din, want, n_out, seed);
            din[k][i] = keep - h;
            double fm = objective(c, din, want, n_out, seed);
            din[k][i] = keep;
            num[i] = (fp - fm) / (2 * h);
        }
        const float *grad = rf_grad(g, in[k]);
        r = compare(grad, num, numel[k], atol * 10, rtol * 10);
        if (!tap_ok(r.worst <= 1.0, "%s: gradient of input %d matches finite differences", c->name, k)) {
            tap_diag("element %lld: analytic %.8g numeric %.8g", (long long)r.at, r.got, r.want);
            all = false;
        }
        free(num);
    }
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
