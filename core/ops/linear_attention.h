/* Kernelised linear attention (MAELRE, SPEC 4), fused.
 *
 * q: [B, N, D], k and v: [B, M, D], key_mask: [B, M] or RF_NONE (padded keys
 * contribute nothing: their phi(K) rows are zero). Per head (D split into
 * `heads` contiguous groups of dk = D/heads):
 *     O = phi(s*Q) (phi(s*K)^T V) / (phi(s*Q) (phi(s*K)^T 1))
 * with s = `scale` (> 0) and phi the feature map. A query whose denominator
 * is exactly zero (every key masked, or ReLU features with no overlap)
 * outputs zeros; no epsilon is added, so the op is the exact ratio above.
 * O(N * D^2 / heads) time, O(dk^2) extra memory per head, no N x M matrix.
 * Out [B, N, D]. ia = {heads, map}, fa[0] = scale.
 *
 * The kernel divides phi(sK)^T V and phi(sK)^T 1 by tau = sqrt(valid keys of
 * the batch row), the paper's tau = sqrt(N_b) (MAELRE eq. 2). It cancels in
 * the ratio; it only keeps the [dk x dk] sums at the scale of one token.
 *
 * Saved for backward (aux, see rf_linear_attention_aux_layout): phi(sQ),
 * the masked phi(sK), per head KV = phi(sK)^T V / tau [dk, dk] and
 * Ksum = phi(sK)^T 1 / tau [dk], the denominators, 1/tau per batch row.
 */
#ifndef RF_OPS_LINEAR_ATTENTION_H
#define RF_OPS_LINEAR_ATTENTION_H

#include "../graph.h"

typedef enum rf_kernel_map {
    RF_KMAP_ELU1,       /* elu(x) + 1 */
    RF_KMAP_RELU,
    RF_KMAP_SOFTPLUS,
    RF_KMAP_COUNT
} rf_kernel_map;

rf_id rf_linear_attention(rf_graph *g, rf_id q, rf_id k, rf_id v, rf_id key_mask, int heads, rf_kernel_map map,
                          float scale);

/* "elu" | "relu" | "softplus" -> map; false for anything else. */
bool rf_kernel_map_parse(const char *name, rf_kernel_map *out);

/* Where each saved tensor starts in the node's aux (floats), for the kernels
 * and for probes. */
typedef struct rf_linear_attention_layout {
    int64_t phi_q;      /* [B, N, D] phi(s q) */
    int64_t phi_k;      /* [B, M, D] phi(s k), zero rows at padded keys */
    int64_t kv;         /* [B, heads, dk, dk] phi(sK)^T V / tau */
    int64_t ksum;       /* [B, heads, dk] phi(sK)^T 1 / tau */
    int64_t den;        /* [B, heads, N] phi(sQ) . Ksum */
    int64_t inv_tau;    /* [B] */
    int64_t total;
} rf_linear_attention_layout;

/* The CPU kernels run heads up to this wide a row at a time, forming their
 * sums over rows (KV, Ksum and their gradients) per chunk of
 * RF_LINEAR_ATTENTION_CHUNK rows, then adding the chunks in order; wider
 * heads run as one BLAS product per head. */
#define RF_LINEAR_ATTENTION_ROW_HEADS 32
#define RF_LINEAR_ATTENTION_CHUNK 256

rf_linear_attention_layout rf_linear_attention_aux_layout(int64_t B, int64_t N, int64_t M, int64_t D,
                                                          int64_t heads);

#endif
