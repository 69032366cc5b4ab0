/* Kernelised linear attention (MAELRE, SPEC 4), fused.
 *
 * q: [B, N, D], k and v: [B, M, D], key_mask: [B, M] or RF_NONE (padded keys
 * contribute nothing). Per head (D split into `heads` groups of D/heads):
 *     O = phi(s*Q) (phi(s*K)^T V) / (phi(s*Q) (phi(s*K)^T 1))
 * with s = `scale` and phi the feature map. O(N * D^2 / heads) time, no N x M
 * matrix. Out [B, N, D]. ia = {heads, map}, fa[0] = scale.
 */
#ifndef RF_OPS_LINEAR_ATTENTION_H
#define RF_OPS_LINEAR_ATTENTION_H

#include "../graph.h"

typedef enum rf_kernel_map {
    RF_KMAP_ELU1,       /* elu(x) + 1 */
    RF_KMAP_RELU,
    RF_KMAP_SOFTPLUS,
} rf_kernel_map;

rf_id rf_linear_attention(rf_graph *g, rf_id q, rf_id k, rf_id v, rf_id key_mask, int heads, rf_kernel_map map,
                          float scale);

/* "elu" | "relu" | "softplus" -> map; false for anything else. */
bool rf_kernel_map_parse(const char *name, rf_kernel_map *out);

#endif
