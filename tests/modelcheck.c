/* Model-level finite-difference check (see modelcheck.h). */
#include "modelcheck.h"

#include <math.h>
#include <stdio.h>

#include "../core/model.h"
#include "tap.h"

static double loss_of(rf_graph *g, rf_id loss, rf_exec *x)
{
    rf_graph_forward(g, x);
    return rf_value(g, loss)[0];
}

bool modelcheck_param_grads(const char *what, rf_params *p, rf_graph *g, rf_id loss, rf_exec *x, float h)
{
    loss_of(g, loss, x);
    rf_params_zero_grads(p);
    rf_graph_backward(g, x, NULL);
    int checked = 0, bad = 0;
    double worst = 0;
    char worst_name[2 * RF_NAME_LEN] = "";
    for (int e = 0; e < p->count; e++) {
        const rf_param_entry *pe = &p->entries[e];
        int64_t stride = pe->numel > 6 ? pe->numel / 6 : 1;
        for (int64_t i = 0; i < pe->numel; i += stride) {
            float *w = p->value + pe->offset + i, keep = *w;
            *w = keep + h;
            double fp = loss_of(g, loss, x);
            *w = keep - h;
            double fm = loss_of(g, loss, x);
            *w = keep;
            double num = (fp - fm) / (2 * h), ana = p->grad[pe->offset + i];
            double err = fabs(num - ana) / (2e-3 + 5e-2 * fabs(num));
            checked++;
            if (err > 1) {
                bad++;
                if (err > worst) {
                    worst = err;
                    snprintf(worst_name, sizeof worst_name, "%s[%lld] analytic %g numeric %g", pe->name,
                             (long long)i, ana, num);
                }
            }
        }
    }
    if (!tap_ok(bad == 0, "%s: %d gradients of %d parameters match finite differences", what, checked, p->count)) {
        tap_diag("%d bad, worst %s", bad, worst_name);
        return false;
    }
    return true;
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
