/* Transformer-LS long-short attention (SPEC §2), fused: every query attends
 * with one joint softmax to its local window band and to the global keys.
 *
 * q: [B, N, D] with N a multiple of `window` (w; the mixer pads).
 * k, v: [B, N + G, D]: rows [0, N) are the local keys/values (one per
 * position), rows [N, N + G) the G global keys/values (the dynamic
 * projections K̄, V̄ and, with a CLS, its key/value). Local and global rows
 * share one tensor because a node has at most four inputs.
 * key_mask: [B, N] or RF_NONE, 1 valid, 0 padding; it masks the local keys
 * and the queries (a padded position's output row is zero). The global keys
 * are always valid.
 * Heads split D into `heads` contiguous groups of dk = D / heads. With
 * e = max(w/2, 1) and L = w + 2e, the query at position t, segment
 * s = t / w, sees the local keys at positions s*w - e + j for j in [0, L)
 * (those outside [0, N) or padded are masked) and the G global keys:
 *     H_t = softmax(scale * q_t [K_band; K_glob]^T) [V_band; V_glob]
 * in f32; a row with no valid key outputs zeros. Out [B, N, D].
 * aux: the probabilities, in two blocks
 *     local  [B, heads, N, L] at offset 0 (column j = key position s*w - e + j),
 *     global [B, heads, N, G] at offset B * heads * N * L,
 * O(N * (L + G)) floats: no N x N matrix exists anywhere.
 * ia = {heads, window}, fa[0] = scale.
 */
#ifndef RF_OPS_LS_ATTENTION_H
#define RF_OPS_LS_ATTENTION_H

#include "../graph.h"

rf_id rf_ls_attention(rf_graph *g, rf_id q, rf_id k, rf_id v, rf_id key_mask, int heads, int window,
                      float scale);

/* The band geometry of a window w: e = max(w/2, 1) keys on each side of the
 * segment, L = w + 2e keys in all. */
static inline int rf_ls_extent(int window) { return window / 2 > 1 ? window / 2 : 1; }
static inline int rf_ls_band(int window) { return window + 2 * rf_ls_extent(window); }

#endif
