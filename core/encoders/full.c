/* Full multi-head attention (SPEC §1): the O(N²) baseline (in time; its
 * memory is linear in N, core/cpu/attention.c). */
#include <math.h>
#include <stdio.h>

#include "../probe.h"
#include "encoder.h"

rf_id rf_mixer_full(const rf_encoder_ctx *e, int layer, rf_id x)
{
    rf_graph *g = e->g;
    int d = e->cfg->model.dim, heads = e->cfg->model.heads;
    char name[RF_NAME_LEN];
    snprintf(name, sizeof name, "layer%d.attn.q", layer);
    rf_id q = rf_dense(g, x, d, d, name, true);
    snprintf(name, sizeof name, "layer%d.attn.k", layer);
    rf_id k = rf_dense(g, x, d, d, name, true);
    snprintf(name, sizeof name, "layer%d.attn.v", layer);
    rf_id v = rf_dense(g, x, d, d, name, true);
    rf_id a = rf_attention(g, q, k, v, e->mask, heads, 1.0f / sqrtf((float)(d / heads)), e->cfg->model.attn_dropout);
    snprintf(name, sizeof name, "layer%d.attn.probs", layer);
    rf_tap_add(g, name, a, RF_TAP_AUX, rf_shape4(e->batch, heads, e->tokens, e->tokens), 0);
    snprintf(name, sizeof name, "layer%d.attn.out", layer);
    return rf_dense(g, a, d, d, name, true);
}
