/* Model-level finite-difference check (see modelcheck.h). */
#include "modelcheck.h"

#include <math.h>
#include <stdio.h>

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
