/* Kernelised linear attention: the constructor and op info.
 * Kernels: core/cpu/linear_attention.c. */
#include "linear_attention.h"

#include <math.h>
#include <string.h>

#include "../op.h"

rf_linear_attention_layout rf_linear_attention_aux_layout(int64_t B, int64_t N, int64_t M, int64_t D,
                                                          int64_t heads)
{
    int64_t dk = D / heads;
    rf_linear_attention_layout l;
    l.phi_q = 0;
    l.phi_k = l.phi_q + B * N * D;
    l.kv = l.phi_k + B * M * D;
    l.ksum = l.kv + B * heads * dk * dk;
    l.den = l.ksum + B * heads * dk;
    l.inv_tau = l.den + B * heads * N;
    l.total = l.inv_tau + B;
    return l;
}

static rf_linear_attention_layout node_layout(const rf_graph *g, const rf_node *n)
{
    return rf_linear_attention_aux_layout(n->shape.dim[0], n->shape.dim[1], rf_node_shape(g, n->in[1]).dim[1],
                                          n->shape.dim[2], n->ia[0]);
}

static size_t linear_attention_aux(const rf_graph *g, const rf_node *n)
{
    return (size_t)node_layout(g, n).total;
}

/* The CPU kernels' scratch (core/cpu/linear_attention*.c). Heads a row at
 * a time: for each batch row and chunk of rows, that chunk's sums (heads x
 * [dk, dk] and [D]); the sums of each batch row and their per-head
 * transposes; per thread a row of D and a transposed [dk, dk] per head.
 * Wider heads, backward: dU = dO / den [B, N, D], a product buffer
 * [B, max(N, M), D], dden [B, heads, N], dKV [B, heads, dk, dk], dKsum
 * [B, heads, dk]. Nothing grows with N * M. */
static size_t linear_attention_scratch(const rf_graph *g, const rf_node *n, int threads)
{
    int64_t B = n->shape.dim[0], N = n->shape.dim[1], D = n->shape.dim[2], H = n->ia[0];
    int64_t M = rf_node_shape(g, n->in[1]).dim[1], dk = D / H, hkk = H * dk * dk;
    if (dk > RF_LINEAR_ATTENTION_ROW_HEADS) {
        int64_t rows = N > M ? N : M;
        return (size_t)(B * N * D + B * rows * D + B * H * N + B * hkk + B * H * dk);
    }
    int64_t chunks_n = (N + RF_LINEAR_ATTENTION_CHUNK - 1) / RF_LINEAR_ATTENTION_CHUNK;
    int64_t chunks_m = (M + RF_LINEAR_ATTENTION_CHUNK - 1) / RF_LINEAR_ATTENTION_CHUNK;
    int64_t sums = hkk + D;
    return (size_t)(B * (chunks_n > chunks_m ? chunks_n : chunks_m) * sums + B * (sums + hkk) +
                    (threads > 0 ? threads : 1) * (D + hkk));
}

/* Backward reads v and the mask (inputs) and O (its own output). */
const rf_op_info rf_info_linear_attention = {"linear_attention", RF_BWD_READS_INPUTS | RF_BWD_READS_OUTPUT,
                                             linear_attention_aux, linear_attention_scratch, NULL};

bool rf_kernel_map_parse(const char *name, rf_kernel_map *out)
{
    static const char *const names[RF_KMAP_COUNT] = {"elu", "relu", "softplus"};
    for (int i = 0; i < RF_KMAP_COUNT; i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (rf_kernel_map)i;
            return true;
        }
    return false;
}

rf_id rf_linear_attention(rf_graph *g, rf_id q, rf_id k, rf_id v, rf_id key_mask, int heads, rf_kernel_map map,
                          float scale)
{
    rf_id in[4] = {q, k, v, key_mask};
    int n_in = key_mask == RF_NONE ? 3 : 4;
    if (!rf_graph_inputs_ok(g, in, n_in) || !rf_qkv_shapes_ok(g, "linear_attention", q, k, v, key_mask, heads))
        return RF_NONE;
    if ((int)map < 0 || map >= RF_KMAP_COUNT)
        return rf_graph_fail(g, "linear_attention: unknown feature map %d", (int)map);
    if (!(scale > 0.0f) || !isfinite(scale))
        return rf_graph_fail(g, "linear_attention: the scale of Q and K must be positive and finite, not %g",
                             (double)scale);
    rf_id id = rf_graph_add_op(g, RF_OP_LINEAR_ATTENTION, in, n_in, rf_node_shape(g, q));
    if (id == RF_NONE)
        return RF_NONE;
    rf_node *n = rf_graph_node(g, id);
    n->ia[0] = heads;
    n->ia[1] = map;
    n->fa[0] = scale;
    return id;
}
