/* BLRP's taps (core/encoders/blrp.c, core/probe.h): every latent, segment
 * and attention-map tap with its shape, a probe set over all of them filled
 * by one step, and the series blrp.latent.<pass>.norms and .grad_norms
 * against the per-segment taps' norms, whole and pooled. The token-state
 * taps against the reference are in test_mech_blrp.c. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "blrp_tiny.h"
#include "tap.h"

static bool tap_is(const rf_graph *g, const char *name, rf_tap_what what, rf_shape want)
{
    const rf_tap *t = rf_tap_find(g, name);
    if (t == NULL || t->what != what || !rf_shape_equal(t->shape, want)) {
        char a[64];
        tap_diag("tap %s: %s", name, t == NULL ? "missing" : rf_shape_str(t->shape, a, sizeof a));
        return false;
    }
    return true;
}

static void check_probes(void)
{
    rf_config cfg = blrp_tiny_config("bidirectional", "phi_residual", "separate", "on");
    const int B = 2, N = 8, T = 3, t = 3, l = 2, H = 2, d = 8;
    rf_params *p = rf_params_new(2);
    rf_model *m = blrp_tiny_model(&cfg, B, N, p);
    if (!tap_ok(m != NULL, "probe model builds")) {
        rf_params_free(p);
        return;
    }
    rf_graph *g = m->graph;
    bool all = true;
    const char *names[64];
    char store[64][RF_NAME_LEN];
    int n = 0;
    for (int i = 1; i <= T; i++) {
        const char *pass[2] = {"fwd", "bwd"};
        for (int k = 0; k < 2; k++) {
            /* Θ_L keys: forward t (i = 1) or t + l; backward 2t (i = T) or 2t + l */
            int keys = k == 0 ? (i == 1 ? t : t + l) : (i == T ? 2 * t : 2 * t + l);
            snprintf(store[n], RF_NAME_LEN, "blrp.latent.%s.%d", pass[k], i);
            all &= tap_is(g, store[n], RF_TAP_VALUE, rf_shape3(B, l, d));
            names[n] = store[n], n++;
            snprintf(store[n], RF_NAME_LEN, "blrp.latent.%s.%d.grad", pass[k], i);
            all &= tap_is(g, store[n], RF_TAP_GRAD, rf_shape3(B, l, d));
            names[n] = store[n], n++;
            snprintf(store[n], RF_NAME_LEN, "blrp.segment.%s.%d", pass[k], i);
            all &= tap_is(g, store[n], RF_TAP_VALUE, rf_shape3(B, t, d));
            snprintf(store[n], RF_NAME_LEN, "blrp.segment.%s.%d.reads_latent", pass[k], i);
            all &= tap_is(g, store[n], RF_TAP_AUX, rf_shape4(B, H, t, l));
            names[n] = store[n], n++;
            snprintf(store[n], RF_NAME_LEN, "blrp.latent.%s.%d.reads_segment", pass[k], i);
            all &= tap_is(g, store[n], RF_TAP_AUX, rf_shape4(B, H, l, keys));
            names[n] = store[n], n++;
        }
    }
    all &= tap_is(g, "blrp.self.0.probs", RF_TAP_AUX, rf_shape4(B, T * H, t, t));
    all &= tap_is(g, "blrp.self.1.out", RF_TAP_VALUE, rf_shape3(B, T * t, d));
    all &= tap_is(g, "blrp.latent.init.fwd", RF_TAP_VALUE, rf_shape3(B, l, d));
    all &= tap_is(g, "blrp.latent.init.bwd", RF_TAP_VALUE, rf_shape3(B, l, d));
    tap_ok(all, "latent and segment states, the latent's gradients and the attention maps are tapped with the right "
                "shapes");

    rf_status st = {0};
    rf_probe_set *ps = rf_probe_set_new(g, names, n, 1, &st);
    blrp_tiny_probe_step(m, p, ps, 4);
    bool filled = ps != NULL;
    for (int i = 0; filled && i < ps->count; i++)
        filled = ps->values[i].filled;
    tap_ok(filled, "a probe set over all %d taps is filled by one step", n);
    /* sample 1 has 6 tokens: its segment 3 is padding, so L_3^F = L_2^F and
     * its attention to segment 3's keys is zero */
    bool carried = filled && memcmp(ps->values[4 * 2].data, ps->values[4 * 4].data, (size_t)l * d * sizeof(float)) == 0;
    tap_ok(carried, "an all-padding segment leaves the forward latent unchanged");
    rf_probe_set_free(ps);
    rf_model_free(m);
    rf_params_free(p);
}

/* The series blrp.latent.<pass>.norms and .grad_norms (core/probe.h)
 * against the norms of the whole per-segment taps of the same pass, taken
 * here in double: whole (a row a segment), and pooled along the segments,
 * max and mean, over windows that do not start at 0 or divide evenly. A
 * norm is rounded to float once (FLT_EPSILON); a mean of k adds k float
 * terms, so each cell may be off by k + 1 roundings of its value. */
static void check_latent_series(void)
{
    rf_config cfg = blrp_tiny_config("bidirectional", "phi_residual", "separate", "off");
    enum { B = 2, T = 7, t = 3, l = 2, d = 8, N = T * t, SAMPLE = 1 };
    rf_params *p = rf_params_new(2);
    rf_model *m = blrp_tiny_model(&cfg, B, N, p);
    if (!tap_ok(m != NULL, "series model builds")) {
        rf_params_free(p);
        return;
    }
    rf_graph *g = m->graph;
    const char *pass[2] = {"fwd", "bwd"};
    bool shaped = true;
    for (int k = 0; k < 2; k++) {
        char name[RF_NAME_LEN];
        snprintf(name, sizeof name, "blrp.latent.%s.norms", pass[k]);
        shaped &= tap_is(g, name, RF_TAP_VALUE, rf_shape3(B, T, 1));
        snprintf(name, sizeof name, "blrp.latent.%s.grad_norms", pass[k]);
        shaped &= tap_is(g, name, RF_TAP_GRAD, rf_shape3(B, T, 1));
    }
    tap_ok(shaped, "each pass has a series of its %d latent norms and gradient norms", T);
    /* the whole taps of every segment, then 4 series values per pass and kind */
    enum { WHOLE = 2 * 2 * T, SERIES = 2 * 2 * 3 };
    char store[WHOLE + SERIES][RF_NAME_LEN];
    const char *names[WHOLE + SERIES];
    const rf_probe_window *windows[WHOLE + SERIES] = {0};
    rf_probe_window kinds[3] = {{0, 0, 0, 0, 0, 0, RF_POOL_MAX},
                                {1, T, 0, RF_POOL_END, 4, 1, RF_POOL_MAX},
                                {0, RF_POOL_END, 0, 1, 3, 1, RF_POOL_MEAN}};
    int n = 0;
    for (int k = 0; k < 2; k++)
        for (int i = 1; i <= T; i++) {
            snprintf(store[n], RF_NAME_LEN, "blrp.latent.%s.%d", pass[k], i), names[n] = store[n], n++;
            snprintf(store[n], RF_NAME_LEN, "blrp.latent.%s.%d.grad", pass[k], i), names[n] = store[n], n++;
        }
    for (int k = 0; k < 2; k++)
        for (int grad = 0; grad < 2; grad++)
            for (int w = 0; w < 3; w++) {
                snprintf(store[n], RF_NAME_LEN, "blrp.latent.%s.%s", pass[k], grad ? "grad_norms" : "norms");
                names[n] = store[n];
                windows[n++] = w == 0 ? NULL : &kinds[w];
            }
    rf_status st = {0};
    rf_probe_set *ps = rf_probe_set_new_pooled(g, names, windows, n, SAMPLE, &st);
    if (!tap_ok(ps != NULL, "a probe set over the whole latents and their series (%s)", st.msg)) {
        rf_model_free(m);
        rf_params_free(p);
        return;
    }
    blrp_tiny_probe_step(m, p, ps, 5);
    for (int k = 0; k < 2; k++)
        for (int grad = 0; grad < 2; grad++) {
            double norms[T];
            for (int i = 0; i < T; i++) {
                const rf_probe_value *v = &ps->values[k * 2 * T + 2 * i + grad];
                double sum = 0;
                for (int e = 0; e < l * d; e++)
                    sum += (double)v->data[e] * v->data[e];
                norms[i] = v->filled ? sqrt(sum) : NAN;
            }
            for (int w = 0; w < 3; w++) {
                const rf_probe_value *v = &ps->values[WHOLE + (k * 2 + grad) * 3 + w];
                const rf_probe_window *win = &v->window;
                int64_t cells = v->shape.dim[0];
                double worst = v->filled && v->shape.dim[1] == 1 ? 0 : INFINITY;
                for (int64_t c = 0; c < cells && isfinite(worst); c++) {
                    int64_t r0 = rf_pool_edge(win->r0, win->r1, cells, c);
                    int64_t r1 = rf_pool_edge(win->r0, win->r1, cells, c + 1);
                    double want = win->reduce == RF_POOL_MAX ? -INFINITY : 0;
                    for (int64_t r = r0; r < r1; r++)
                        want = win->reduce == RF_POOL_MAX ? fmax(want, norms[r]) : want + norms[r] / (double)(r1 - r0);
                    double bound = (double)(r1 - r0 + 1) * FLT_EPSILON * fabs(want) + FLT_MIN;
                    worst = fmax(worst, fabs(v->data[c] - want) / bound);
                }
                tap_ok(worst <= 1 && cells == (w == 0 ? T : w == 1 ? 4 : 3),
                       "%s %s, %s: %lld cells over segments %lld-%lld equal the per-segment taps' norms (worst %.3g "
                       "of its bound)", pass[k], grad ? "gradient norms" : "norms",
                       w == 0 ? "whole" : win->reduce == RF_POOL_MAX ? "max" : "mean", (long long)cells,
                       (long long)win->r0 + 1, (long long)win->r1, worst);
            }
        }
    rf_probe_set_free(ps);
    /* a set of the series alone holds their cells and member indexes, no latent */
    rf_probe_set *series = rf_probe_set_new_pooled(g, names + WHOLE, windows + WHOLE, SERIES, SAMPLE, &st);
    size_t want_bytes = (size_t)2 * 2 * ((T + 4 + 3) * sizeof(float) + 3 * T * sizeof(rf_series_member));
    tap_ok(series != NULL && rf_probe_set_bytes(series) == want_bytes,
           "a set of the series alone holds %zu bytes: cells and member indexes, no %d x %d latent", want_bytes, l, d);
    rf_probe_set_free(series);
    const rf_probe_window span = {0, T, 0, 1, T, 1, RF_POOL_SPAN};
    const rf_probe_window *spans[] = {&span};
    rf_probe_set *refused = rf_probe_set_new_pooled(g, names + WHOLE, spans, 1, SAMPLE, &st);
    tap_ok(refused == NULL && strstr(st.msg, "max or mean") != NULL, "a series is not pooled by span: %s", st.msg);
    rf_model_free(m);
    rf_params_free(p);
}

int main(void)
{
    check_probes();
    check_latent_series();
    return tap_done();
}
