/* Full attention with train.precision = bf16 (its products on
 * core/cpu/small_head_bf16.h's kernels) against a double reference of the
 * exact attention, within a bound derived from bf16's rounding, for the
 * output and the three gradients; and not equal to the f32 op (the bf16
 * kernels did run, RF_BF16_ATTENTION=on). With RF_BF16_ATTENTION=off the
 * op in bf16 precision is the f32 op bit for bit, and without it the
 * CPU's vendor decides (core/cpu/small_head_bf16.h).
 *
 * The bound, with u = 2^-8 (bf16's unit roundoff) and ε = 2u + u² (a
 * product of two rounded operands): a score is off by at most δ_ij = ε
 * scale Σ_d |q_d k_d|, so a probability by at most ρ_i P_ij with ρ_i =
 * e^(2 max_j δ_ij) - 1 + 2 10^-4 (softmax moves by the spread of its
 * inputs' errors, and its exponentials are rf_exp16_coarse's, each within
 * 10^-4).
 * Each output then sums terms off by that and by ε (P and V rounded):
 *     |ΔO_ie| <= Σ_j P_ij |V_je| (ρ_i + (1 + ρ_i) ε),
 * and likewise dV_je with dO in place of V. The score gradient dS = P (dP
 * - D) takes dP's rounding error ε Σ_e |dO_ie V_je| and D = rowsum(dO O)'s
 * error from O's bound η_i, so
 *     |ΔdS_ij| <= σ_ij = P_ij (ρ_i |dP_ij - D_i| + (1 + ρ_i)(ε Σ_e |dO_ie V_je| + η_i)),
 * and dQ_id = scale Σ_j dS_ij K_jd is off by at most scale Σ_j (σ_ij + ε
 * (|dS_ij| + σ_ij)) |K_jd| (dK: Q in place of K, summed over i). Each
 * bound also allows the f32 arithmetic its tol_sum and element-wise chain
 * (tests/tolerance.h). Shapes: 2 heads of 8, 300 queries against 270
 * keys (query blocks of 64 and a tail, a key block of 256 and a tail), with
 * a key mask that leaves 233 keys of the second sequence. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cpu/small_head_bf16.h"
#include "../core/exec.h"
#include "../core/gemm.h"
#include "../core/graph.h"
#include "../core/params.h"
#include "../core/pool.h"
#include "tap.h"
#include "tolerance.h"

#define BF16_U 0x1p-8
#define EPS (2 * BF16_U + BF16_U * BF16_U)
#define COARSE_EXP 1e-4   /* rf_exp16_coarse's relative error bound (core/cpu/exp16.h) */

enum { B = 2, NQ = 300, NK = 270, H = 2, DK = 8, D = H * DK, VALID_KEYS = 233 };
static const float SCALE = 0.35355339f;   /* 1 / sqrt(8) */

typedef struct {
    float *out, *dq, *dk, *dv;
} attention_run;

static float q_in[B * NQ * D], k_in[B * NK * D], v_in[B * NK * D], mask_in[B * NK], dout_in[B * NQ * D];

/* Uniform in [-1, 1) from a fixed sequence: neighbouring rows unrelated,
 * so a product that pairs the wrong rows shows. */
static float uniform(void)
{
    static uint64_t state = 0x9e3779b97f4a7c15u;
    state = state * 6364136223846793005u + 1442695040888963407u;
    return (float)(state >> 40) * 0x1p-23f - 1.0f;
}

static void fill_inputs(void)
{
    for (int i = 0; i < B * NQ * D; i++) {
        q_in[i] = 1.5f * uniform();
        dout_in[i] = uniform();
    }
    for (int i = 0; i < B * NK * D; i++) {
        k_in[i] = 1.5f * uniform();
        v_in[i] = uniform() + 0.25f;
    }
    for (int b = 0; b < B; b++)
        for (int j = 0; j < NK; j++)
            mask_in[b * NK + j] = b == 0 || j < VALID_KEYS ? 1.0f : 0.0f;
}

static float *copy(const float *x, int rows)
{
    float *y = malloc(sizeof(float) * B * rows * D);
    memcpy(y, x, sizeof(float) * B * rows * D);
    return y;
}

/* One forward and backward of the attention op in `precision`, dO seeded. */
static attention_run run(const char *precision)
{
    rf_gemm_set_precision(precision, NULL);
    rf_params *p = rf_params_new(3);
    rf_graph *g = rf_graph_new(p);
    rf_id q = rf_input(g, "q", rf_shape3(B, NQ, D), true), k = rf_input(g, "k", rf_shape3(B, NK, D), true);
    rf_id v = rf_input(g, "v", rf_shape3(B, NK, D), true), mask = rf_input(g, "mask", rf_shape2(B, NK), false);
    rf_id out = rf_attention(g, q, k, v, mask, H, SCALE, 0.0f);
    rf_status st = {0};
    attention_run r = {0};
    if (!rf_graph_prepare(g, out, 2, NULL, &st)) {
        tap_diag("%s", st.msg);
        return r;
    }
    memcpy(rf_value(g, q), q_in, sizeof q_in);
    memcpy(rf_value(g, k), k_in, sizeof k_in);
    memcpy(rf_value(g, v), v_in, sizeof v_in);
    memcpy(rf_value(g, mask), mask_in, sizeof mask_in);
    rf_pool *pool = rf_pool_new(2);
    rf_exec ex;
    rf_exec_init(&ex, g, pool, 1, 1, true);
    rf_graph_forward(g, &ex);
    rf_graph_backward(g, &ex, dout_in);
    r = (attention_run){copy(rf_value(g, out), NQ), copy(rf_grad(g, q), NQ), copy(rf_grad(g, k), NK),
                        copy(rf_grad(g, v), NK)};
    rf_pool_free(pool);
    rf_graph_free(g);
    rf_params_free(p);
    rf_gemm_set_precision("f32", NULL);
    return r;
}

static void free_run(attention_run *r)
{
    free(r->out);
    free(r->dq);
    free(r->dk);
    free(r->dv);
}

/* Row i, dimension e of head h of batch item b: of a query-side tensor
 * (q, out, dO) and of a key-side one (k, v). */
static int atq(int b, int i, int h, int e)
{
    return (b * NQ + i) * D + h * DK + e;
}

static int atk(int b, int j, int h, int e)
{
    return (b * NK + j) * D + h * DK + e;
}

/* The worst |got - exact| / bound of each result over every head. */
typedef struct {
    double out, dq, dk, dv;
} worst;

static void update(double *w, double got, double exact, double bound)
{
    double e = fabs(got - exact) / bound;
    *w = isnan(e) ? INFINITY : fmax(*w, e);
}

/* Every result of head (b, h) against the double reference. */
static void check_head(const attention_run *r, int b, int h, worst *w)
{
    static double P[NQ][NK], dS[NQ][NK], sigma[NQ][NK], rho[NQ];
    int keys = b == 0 ? NK : VALID_KEYS;
    double chain = TOL_CHAIN * TOL_U;
    for (int i = 0; i < NQ; i++) {
        double s[NK], mx = -INFINITY, sum = 0, delta = 0;
        for (int j = 0; j < keys; j++) {
            double dot = 0, mag = 0;
            for (int e = 0; e < DK; e++) {
                dot += (double)q_in[atq(b, i, h, e)] * k_in[atk(b, j, h, e)];
                mag += fabs((double)q_in[atq(b, i, h, e)] * k_in[atk(b, j, h, e)]);
            }
            s[j] = SCALE * dot;
            mx = fmax(mx, s[j]);
            delta = fmax(delta, EPS * SCALE * mag + tol_sum(DK + 2, SCALE * mag));
        }
        for (int j = 0; j < NK; j++) {
            P[i][j] = j < keys ? exp(s[j] - mx) : 0.0;
            sum += P[i][j];
        }
        for (int j = 0; j < NK; j++)
            P[i][j] /= sum;
        rho[i] = expm1(2 * delta) + 2 * COARSE_EXP;   /* a ratio of the coarse exponentials */

        /* O, its bound, D = rowsum(dO O) and D's error from O's */
        double Di = 0, eta = 0;
        for (int e = 0; e < DK; e++) {
            double o = 0, mag = 0;
            for (int j = 0; j < keys; j++) {
                o += P[i][j] * v_in[atk(b, j, h, e)];
                mag += P[i][j] * fabs(v_in[atk(b, j, h, e)]);
            }
            double bound = mag * (rho[i] + (1 + rho[i]) * EPS) + 2 * tol_sum(keys, mag) + chain * mag + 1e-30;
            update(&w->out, r->out[atq(b, i, h, e)], o, bound);
            Di += (double)dout_in[atq(b, i, h, e)] * o;
            eta += fabs((double)dout_in[atq(b, i, h, e)]) * bound;
        }
        for (int j = 0; j < keys; j++) {
            double dp = 0, mag = 0;
            for (int e = 0; e < DK; e++) {
                dp += (double)dout_in[atq(b, i, h, e)] * v_in[atk(b, j, h, e)];
                mag += fabs((double)dout_in[atq(b, i, h, e)] * v_in[atk(b, j, h, e)]);
            }
            dS[i][j] = P[i][j] * (dp - Di);
            sigma[i][j] = P[i][j] * (rho[i] * fabs(dp - Di) + (1 + rho[i]) * (EPS * mag + eta + tol_sum(DK + 2, mag))) +
                          chain * fabs(dS[i][j]);
        }
    }
    for (int i = 0; i < NQ; i++)   /* dQ_i = scale Σ_j dS_ij K_j */
        for (int e = 0; e < DK; e++) {
            double g = 0, bound = 0, mag = 0;
            for (int j = 0; j < keys; j++) {
                double kj = fabs((double)k_in[atk(b, j, h, e)]);
                g += SCALE * dS[i][j] * k_in[atk(b, j, h, e)];
                bound += SCALE * (sigma[i][j] + EPS * (fabs(dS[i][j]) + sigma[i][j])) * kj;
                mag += SCALE * fabs(dS[i][j]) * kj;
            }
            update(&w->dq, r->dq[atq(b, i, h, e)], g, bound + 2 * tol_sum(keys, mag) + 1e-30);
        }
    for (int j = 0; j < NK; j++)   /* dK_j = scale Σ_i dS_ij Q_i, dV_j = Σ_i P_ij dO_i; masked keys get 0 */
        for (int e = 0; e < DK; e++) {
            double gk = 0, bk = 0, mk = 0, gv = 0, bv = 0, mv = 0;
            for (int i = 0; j < keys && i < NQ; i++) {
                double qi = fabs((double)q_in[atq(b, i, h, e)]), doi = fabs((double)dout_in[atq(b, i, h, e)]);
                gk += SCALE * dS[i][j] * q_in[atq(b, i, h, e)];
                bk += SCALE * (sigma[i][j] + EPS * (fabs(dS[i][j]) + sigma[i][j])) * qi;
                mk += SCALE * fabs(dS[i][j]) * qi;
                gv += P[i][j] * dout_in[atq(b, i, h, e)];
                bv += P[i][j] * doi * (rho[i] + (1 + rho[i]) * EPS);
                mv += P[i][j] * doi;
            }
            update(&w->dk, r->dk[atk(b, j, h, e)], gk, bk + 2 * tol_sum(NQ, mk) + 1e-30);
            update(&w->dv, r->dv[atk(b, j, h, e)], gv, bv + 2 * tol_sum(NQ, mv) + chain * mv + 1e-30);
        }
}

static bool differ(const float *a, const float *b, int rows)
{
    return memcmp(a, b, sizeof(float) * B * rows * D) != 0;
}

int main(void)
{
    fill_inputs();
    rf_status st = {0};
    if (!rf_sh16_available() || !rf_gemm_set_precision("bf16", &st)) {
        tap_skip("full attention in bf16", "this CPU has no AVX512-BF16 (%s)",
                 rf_sh16_available() ? st.msg : "the kernels decline");
        return tap_done();
    }
    /* the bf16 kernels wherever they can run, whatever the vendor */
    setenv("RF_BF16_ATTENTION", "on", 1);
    attention_run bf16 = run("bf16"), f32 = run("f32");
    setenv("RF_BF16_ATTENTION", "off", 1);
    attention_run declined = run("bf16");
    if (bf16.out == NULL || f32.out == NULL || declined.out == NULL)
        return tap_ok(false, "the attention graph prepares"), tap_done();
    worst w = {0};
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            check_head(&bf16, b, h, &w);
    tap_ok(w.out <= 1.0, "bf16 output within bf16's bound of the exact attention (worst %.3f of it)", w.out);
    tap_ok(w.dq <= 1.0 && w.dk <= 1.0 && w.dv <= 1.0,
           "bf16 gradients within their bounds: dQ %.3f, dK %.3f, dV %.3f of them", w.dq, w.dk, w.dv);
    tap_ok(differ(bf16.out, f32.out, NQ) && differ(bf16.dq, f32.dq, NQ) && differ(bf16.dk, f32.dk, NK) &&
               differ(bf16.dv, f32.dv, NK),
           "the output and every gradient differ from the f32 op's (the bf16 kernels ran)");
    tap_ok(!differ(declined.out, f32.out, NQ) && !differ(declined.dq, f32.dq, NQ) &&
               !differ(declined.dk, f32.dk, NK) && !differ(declined.dv, f32.dv, NK),
           "with RF_BF16_ATTENTION=off, bf16 precision gives the f32 op's output and gradients bit for bit");
    /* without the override the vendor decides: AMD's VDPBF16PS pays, Intel's does not */
    unsetenv("RF_BF16_ATTENTION");
    __builtin_cpu_init();
    bool amd = __builtin_cpu_is("amd") != 0, intel = __builtin_cpu_is("intel") != 0;
    tap_ok(rf_sh16_for_attention() == amd,
           "by default attention takes the bf16 kernels on %s (this CPU is %s)", amd ? "AMD: yes" : "Intel: no",
           amd ? "AMD" : intel ? "Intel" : "neither");
    free_run(&bf16);
    free_run(&f32);
    free_run(&declined);
    return tap_done();
}
