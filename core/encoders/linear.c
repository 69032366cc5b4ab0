/* Kernelised linear attention as a per-layer mixer (SPEC 4, MAELRE eq. 2),
 * and the attention sublayer MAELRE's blocks share with it. */
#include <math.h>
#include <stdio.h>

#include "../op.h"
#include "../ops/linear_attention.h"
#include "../probe.h"
#include "maelre.h"

float rf_linear_attention_qk_scale(const rf_config *cfg, int head_dim)
{
    return cfg->model.linear_scale / powf((float)head_dim, 0.25f);
}

/* x [B, T, width] -> [B, T, width] */
rf_id rf_attention_sublayer(const rf_encoder_ctx *e, int layer, rf_id x, rf_id mask, int width, int heads,
                            bool linear)
{
    rf_graph *g = e->g;
    int dk = width / heads;
    char name[RF_NAME_LEN];
    snprintf(name, sizeof name, "layer%d.attn.q", layer);
    rf_id q = rf_dense(g, x, width, width, name, true);
    snprintf(name, sizeof name, "layer%d.attn.k", layer);
    rf_id k = rf_dense(g, x, width, width, name, true);
    snprintf(name, sizeof name, "layer%d.attn.v", layer);
    rf_id v = rf_dense(g, x, width, width, name, true);
    rf_id a;
    if (linear) {
        rf_kernel_map map;
        if (!rf_kernel_map_parse(e->cfg->model.kernel_map, &map))
            return rf_graph_fail(g, "linear attention: model.kernel_map = '%s' is not elu, relu or softplus",
                                 e->cfg->model.kernel_map);
        a = rf_linear_attention(g, q, k, v, mask, heads, map, rf_linear_attention_qk_scale(e->cfg, dk));
        if (a != RF_NONE) {
            rf_shape s = rf_node_shape(g, a);
            rf_linear_attention_layout l = rf_linear_attention_aux_layout(s.dim[0], s.dim[1], s.dim[1], width, heads);
            snprintf(name, sizeof name, "layer%d.attn.kv", layer);
            rf_tap_add(g, name, a, RF_TAP_AUX, rf_shape4(s.dim[0], heads, dk, dk), l.kv);
        }
    } else {
        a = rf_attention(g, q, k, v, mask, heads, 1.0f / sqrtf((float)dk), 0.0f);
        if (a != RF_NONE) {
            rf_shape s = rf_node_shape(g, a);
            snprintf(name, sizeof name, "layer%d.attn.probs", layer);
            rf_tap_add(g, name, a, RF_TAP_AUX, rf_shape4(s.dim[0], heads, s.dim[1], s.dim[1]), 0);
        }
    }
    snprintf(name, sizeof name, "layer%d.attn.out", layer);
    return rf_dense(g, a, width, width, name, true);
}

rf_id rf_mixer_linear(const rf_encoder_ctx *e, int layer, rf_id x)
{
    return rf_attention_sublayer(e, layer, x, e->mask, e->cfg->model.dim, e->cfg->model.heads, true);
}
