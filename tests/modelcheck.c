/* Model-level finite-difference check (see modelcheck.h). */
#include "modelcheck.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/model.h"
#include "../core/rng.h"
#include "tap.h"

#define CHECK_ALL 256       /* every element of a parameter this small */
#define CHECK_SAMPLE 256    /* else this many, drawn with a fixed seed */
#define KAPPA 4.0           /* a loss evaluation's rounding error, in u·C (see atol_of) */
#define RTOL 1e-2           /* relative: truncation of the differences, rounding of the gradient */

/* What the finite differences of one check share. */
typedef struct {
    rf_graph *g;
    rf_id loss;
    rf_exec *x;
    float h;
    double f0;              /* the loss at the unperturbed parameters */
    double atol;
} diff_ctx;

typedef struct {
    int checked, bad;
    double worst;           /* largest error / bound */
    char worst_name[2 * RF_NAME_LEN];
} grad_report;

static double loss_of(rf_graph *g, rf_id loss, rf_exec *x)
{
    rf_graph_forward(g, x);
    return rf_value(g, loss)[0];
}

/* The loss at *w + s and *w - s; *w is left as it was. */
static void loss_pair(const diff_ctx *pr, float *w, float s, double *plus, double *minus)
{
    float keep = *w;
    *w = keep + s;
    *plus = loss_of(pr->g, pr->loss, pr->x);
    *w = keep - s;
    *minus = loss_of(pr->g, pr->loss, pr->x);
    *w = keep;
}

/* The rounding error of a central difference. Rounding every parameter by
 * u = 2^-24 moves the f32 loss L by up to u·C, C = |L| + Σ|w·∂L/∂w| (L's
 * componentwise condition number in the parameters), and the roundings
 * inside the forward pass move it by comparable amounts; allowing κ·u·C for
 * each evaluation, a central difference with step h is off by up to
 * κ·u·C / h. (On these tests' models, where the loss is smooth, the
 * differences stay within 0.4·u·C / h of the analytic gradients.) */
static double atol_of(const rf_params *p, double loss, float h)
{
    double c = fabs(loss);
    for (size_t i = 0; i < p->total; i++)
        c += fabs((double)p->value[i] * p->grad[i]);
    return KAPPA * 0x1p-24 * c / h;
}

/* err / bound for the analytic gradient `ana` of element *w; *num gets the
 * difference it was compared with. The central difference D(h) must match
 * within atol + RTOL·|D(h)|. Where it does not, the loss is curved or kinked
 * (TaLK's interpolated bounds) inside [w - h, w + h], and the closer of two
 * fallbacks counts: the Richardson value (4·D(h/2) - D(h)) / 3, whose
 * rounding error is up to 3·atol, allowing its error estimate
 * |D(h/2) - D(h)| more; or a one-sided difference, whose rounding error is
 * up to 2·atol (at a kink the analytic gradient is one side's slope). A zero
 * gradient passes only where the differences cannot tell it from zero. */
static double element_error(const diff_ctx *pr, float *w, double ana, double *num)
{
    double fp, fm;
    loss_pair(pr, w, pr->h, &fp, &fm);
    double d1 = (fp - fm) / (2 * pr->h);
    double err = fabs(d1 - ana) / (pr->atol + RTOL * fabs(d1));
    *num = d1;
    if (err <= 1)
        return err;
    double fp2, fm2;
    loss_pair(pr, w, pr->h / 2, &fp2, &fm2);
    double d2 = (fp2 - fm2) / pr->h, rich = (4 * d2 - d1) / 3;
    double cand[3] = {rich, (fp - pr->f0) / pr->h, (pr->f0 - fm) / pr->h};
    double bound[3] = {3 * pr->atol + fabs(d2 - d1), 2 * pr->atol, 2 * pr->atol};
    for (int k = 0; k < 3; k++) {
        double e = fabs(cand[k] - ana) / (bound[k] + RTOL * fabs(cand[k]));
        if (e < err) {
            err = e;
            *num = cand[k];
        }
    }
    return err;
}

/* Every element of a small parameter, else a fixed sample of CHECK_SAMPLE
 * drawn by selection sampling (each remaining element with probability
 * still wanted / still left: exactly that many, all distinct). */
static void compare_entry(const diff_ctx *pr, rf_params *p, int e, grad_report *r)
{
    const rf_param_entry *pe = &p->entries[e];
    int64_t n = pe->numel, want = n <= CHECK_ALL ? n : CHECK_SAMPLE;
    rf_rng rng = {(uint64_t)e};
    for (int64_t i = 0, taken = 0; taken < want; i++) {
        if ((double)(want - taken) <= rf_rng_uniform(&rng) * (double)(n - i))
            continue;
        taken++;
        double ana = p->grad[pe->offset + i], num;
        double err = element_error(pr, p->value + pe->offset + i, ana, &num);
        r->checked++;
        r->bad += err > 1;
        if (err > r->worst) {
            r->worst = err;
            snprintf(r->worst_name, sizeof r->worst_name, "%s[%lld] analytic %g numeric %g", pe->name,
                     (long long)i, ana, num);
        }
    }
}

/* Forward and backward once, then the comparison: of every parameter, or
 * (zeroed >= 0) of that one only after replacing its gradient by zeros. */
static grad_report compare_grads(rf_params *p, rf_graph *g, rf_id loss, rf_exec *x, float h, int zeroed,
                                 double *atol)
{
    diff_ctx pr = {g, loss, x, h, loss_of(g, loss, x), 0};
    rf_params_zero_grads(p);
    rf_graph_backward(g, x, NULL);
    pr.atol = *atol = atol_of(p, pr.f0, h);
    grad_report r = {0};
    if (zeroed >= 0) {
        const rf_param_entry *pe = &p->entries[zeroed];
        memset(p->grad + pe->offset, 0, (size_t)pe->numel * sizeof *p->grad);
        compare_entry(&pr, p, zeroed, &r);
        return r;
    }
    for (int e = 0; e < p->count; e++)
        compare_entry(&pr, p, e, &r);
    return r;
}

bool modelcheck_param_grads(const char *what, rf_params *p, rf_graph *g, rf_id loss, rf_exec *x, float h)
{
    double atol;
    grad_report r = compare_grads(p, g, loss, x, h, -1, &atol);
    if (!tap_ok(r.bad == 0, "%s: %d gradients of %d parameters match finite differences (within %.2g + %g)",
                what, r.checked, p->count, atol, RTOL)) {
        tap_diag("%d bad, worst %s (%.3g times the bound)", r.bad, r.worst_name, r.worst);
        return false;
    }
    return true;
}

bool modelcheck_zeroed_grad_fails(const char *what, rf_params *p, rf_graph *g, rf_id loss, rf_exec *x, float h,
                                  const char *name)
{
    int e = rf_params_find(p, name);
    double atol;
    grad_report r = {0};
    if (e >= 0)
        r = compare_grads(p, g, loss, x, h, e, &atol);
    return tap_ok(r.bad > 0, "%s: the check fails when %s's gradient is zeroed (%d of %d elements, worst %s)",
                  what, name, r.bad, r.checked, r.worst_name);
}

bool modelcheck_padding(const char *what, const rf_config *cfg, const float *ids, int len, int padded)
{
    rf_status st = {0};
    rf_params *p = rf_params_new(5);
    rf_model *a = rf_model_new(cfg, 1, len, 0, 11, 5, p, true, &st);
    rf_model *b = a != NULL ? rf_model_new(cfg, 1, padded, 0, 11, 5, p, true, &st) : NULL;
    bool same = false;
    if (tap_ok(a != NULL && b != NULL, "%s: lengths %d and %d build over one parameter store", what, len, padded)) {
        for (int t = 0; t < padded; t++) {
            if (t < len) {
                rf_value(a->graph, a->x)[t] = ids[t];
                rf_value(a->graph, a->mask)[t] = 1;
            }
            rf_value(b->graph, b->x)[t] = t < len ? ids[t] : 0;
            rf_value(b->graph, b->mask)[t] = t < len ? 1 : 0;
        }
        rf_value(a->graph, a->labels)[0] = rf_value(b->graph, b->labels)[0] = 2;
        rf_exec xa, xb;
        rf_exec_init(&xa, a->graph, NULL, 1, 0, false);
        rf_exec_init(&xb, b->graph, NULL, 1, 0, false);
        rf_graph_forward(a->graph, &xa);
        rf_graph_forward(b->graph, &xb);
        double diff = 0;
        for (int c = 0; c < 5; c++)
            diff = fmax(diff, fabs(rf_value(a->graph, a->logits)[c] - rf_value(b->graph, b->logits)[c]));
        same = tap_ok(diff < 1e-5, "%s: padding a sample from %d to %d tokens leaves its logits unchanged (max "
                      "diff %g)", what, len, padded, diff);
    } else {
        tap_diag("%s", st.msg);
    }
    rf_model_free(a);
    rf_model_free(b);
    rf_params_free(p);
    return same;
}

/* Planned bytes (arena and scratch) of cfg's classifier for `batch` samples
 * of `len` tokens (vocabulary 16, 10 classes), built without allocating;
 * one TAP line that it was built. */
static size_t planned_bytes(const char *what, const rf_config *cfg, int batch, int len)
{
    rf_status st = {0};
    rf_params *p = rf_params_new(1);
    rf_model *m = rf_model_new(cfg, batch, len, 0, 16, 10, p, false, &st);
    size_t bytes = m != NULL && !st.failed ? m->plan.arena_bytes + m->plan.scratch_bytes : 0;
    if (!tap_ok(bytes > 0, "%s: the planner builds N = %d (%.1f MiB)", what, len, bytes / 1048576.0))
        tap_diag("%s", st.failed ? st.msg : "a plan of 0 bytes");
    rf_model_free(m);
    rf_params_free(p);
    return bytes;
}

bool modelcheck_memory_growth(const char *what, const rf_config *cfg, int batch, int small, int large,
                              double max_ratio)
{
    size_t a = planned_bytes(what, cfg, batch, small), b = planned_bytes(what, cfg, batch, large);
    if (a == 0 || b == 0)
        return tap_ok(false, "%s: planned bytes at N = %d against N = %d: a plan is missing", what, large, small);
    double ratio = (double)b / (double)a;
    return tap_ok(ratio <= max_ratio, "%s: planned bytes at N = %d are %.1fx those at N = %d (at most %g)", what,
                  large, ratio, small, max_ratio);
}
