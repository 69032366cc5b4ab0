/* What the two sets of linear attention kernels share (private to
 * core/cpu): the op's geometry, the feature map phi and its derivative,
 * 1/tau. linear_attention.c runs heads up to RF_LINEAR_ATTENTION_ROW_HEADS
 * wide a row at a time; linear_attention_wide.c runs wider heads as one
 * BLAS product per head. */
#ifndef RF_CPU_LINEAR_ATTENTION_KERNELS_H
#define RF_CPU_LINEAR_ATTENTION_KERNELS_H

#include <math.h>
#include <string.h>

#include "../op.h"
#include "../ops/linear_attention.h"
#include "vecmath.h"

#define TASK_FLOATS 16384   /* about this many floats per pool task */

typedef struct {
    int64_t B, N, M, D, H, dk;
    rf_kernel_map map;
    float scale;
    rf_linear_attention_layout l;
} la_geom;

static inline la_geom la_geometry(rf_exec *x, const rf_node *n)
{
    la_geom a = {.B = n->shape.dim[0], .N = n->shape.dim[1], .M = rf_in(x, n, 1)->shape.dim[1],
                 .D = n->shape.dim[2], .H = n->ia[0], .map = (rf_kernel_map)n->ia[1], .scale = n->fa[0]};
    a.dk = a.D / a.H;
    a.l = rf_linear_attention_aux_layout(a.B, a.N, a.M, a.D, a.H);
    return a;
}

static inline int64_t row_grain(int64_t row_floats)
{
    return row_floats >= TASK_FLOATS ? 1 : TASK_FLOATS / row_floats;
}

/* f[j] = phi(s x[j]) for j < n; the map is chosen once per span so each
 * loop is branch-free apart from the map's own */
RF_VEC_INLINE void phi_span(rf_kernel_map map, float s, const float *restrict x, float *restrict f, int64_t n)
{
    switch (map) {
    case RF_KMAP_ELU1:
        /* both sides formed, one selected: the loop vectorises */
        for (int64_t j = 0; j < n; j++) {
            float v = s * x[j];
            f[j] = rf_select(v > 0, v + 1.0f, rf_expf(v));
        }
        break;
    case RF_KMAP_RELU:
        for (int64_t j = 0; j < n; j++) {
            float v = s * x[j];
            f[j] = v > 0 ? v : 0.0f;
        }
        break;
    default:
        for (int64_t j = 0; j < n; j++) {
            float v = s * x[j];
            f[j] = fmaxf(v, 0.0f) + log1pf(expf(-fabsf(v)));
        }
        break;
    }
}

/* gx[j] += s phi'(v_j) d[j] (= when fresh), with phi'(v) recovered from
 * f = phi(v): elu+1 has phi' = 1 above 0 and e^v = f below; ReLU 1 where
 * f > 0; softplus sigmoid(v) = 1 - e^-f. */
RF_VEC_INLINE void dphi_span(rf_kernel_map map, float s, const float *restrict f, const float *restrict d,
                             float *restrict gx, int64_t n, bool fresh)
{
    /* selections as bit masks (vecmath.h), so the loops vectorise */
#define DPHI_LOOP(expr)                     \
    if (fresh)                              \
        for (int64_t j = 0; j < n; j++)     \
            gx[j] = (expr);                 \
    else                                    \
        for (int64_t j = 0; j < n; j++)     \
            gx[j] += (expr);
    switch (map) {
    case RF_KMAP_ELU1: DPHI_LOOP(s * rf_select(f[j] > 1.0f, 1.0f, f[j]) * d[j]); break;
    case RF_KMAP_RELU: DPHI_LOOP(rf_select(f[j] > 0.0f, s * d[j], 0.0f)); break;
    default: DPHI_LOOP(-(s * expm1f(-f[j]) * d[j])); break;
    }
#undef DPHI_LOOP
}

/* ---- row helpers ---- */

/* 1/tau = 1/sqrt(valid keys) per batch row (1 when none is valid) */
static inline void inverse_tau(const la_geom *a, const float *mask, float *inv_tau)
{
    for (int64_t b = 0; b < a->B; b++) {
        int64_t valid = a->M;
        if (mask != NULL) {
            valid = 0;
            for (int64_t m = 0; m < a->M; m++)
                valid += mask[b * a->M + m] != 0.0f;
        }
        inv_tau[b] = valid > 0 ? 1.0f / sqrtf((float)valid) : 1.0f;
    }
}

void rf_cpu_linear_attention_wide_forward(rf_exec *x, rf_node *n, const la_geom *a);
void rf_cpu_linear_attention_wide_backward(rf_exec *x, rf_node *n, const la_geom *a);

#endif
