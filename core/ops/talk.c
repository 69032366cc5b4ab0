/* TaLK convolution: the constructor and op info (SPEC §5).
 * Kernels: core/cpu/talk.c. */
#include "talk.h"

#include "../op.h"

/* S [B, N, D], bounds [B, N, 2H] and a copy of the mask [B, N]: backward
 * needs nothing else, so it reads neither its inputs nor its output. */
static size_t talk_aux(const rf_graph *g, const rf_node *n)
{
    (void)g;
    int64_t B = n->shape.dim[0], N = n->shape.dim[1], D = n->shape.dim[2], H = n->ia[0];
    return (size_t)(B * N * (D + 2 * H + 1));
}

/* Backward: the prefix-sum gradient of one kernel task's channels,
 * [N, G*R], per thread. */
static size_t talk_scratch(const rf_graph *g, const rf_node *n, int threads)
{
    (void)g;
    int64_t N = n->shape.dim[1], R = n->shape.dim[2] / n->ia[0];
    return (size_t)(threads * N * n->ia[3] * R);
}

const rf_op_info rf_info_talk = {"talk", 0, talk_aux, talk_scratch, NULL};

int64_t rf_talk_bounds_offset(const rf_graph *g, rf_id talk)
{
    rf_shape s = rf_node_shape(g, talk);
    return s.dim[0] * s.dim[1] * s.dim[2];
}

/* Heads per kernel task: at least the smallest divisor of H whose heads
 * span 32 channels (whole cache lines of every row a task touches), and
 * then as many as still leave MIN_TASKS tasks, so that a batch of many
 * items gives whole rows to a task: a task that reads part of each row
 * streams its rows at about half the speed (the TaLK op at compare.sh's
 * shape: 15-21 ms forward on one thread in halves of rows, 9-10 ms in
 * whole rows), while a small batch (one sequence of a million tokens)
 * still splits across threads. The result does not depend on G. */
#define MIN_TASKS 16
static int64_t heads_per_task(int64_t B, int64_t H, int64_t R)
{
    int64_t G = 1;
    while (G < H && (G * R < 32 || H % G != 0))
        G++;
    for (int64_t wider = G + 1; wider <= H; wider++)
        if (H % wider == 0 && B * (H / wider) >= MIN_TASKS)
            G = wider;
    return G;
}

static rf_id check_mask(rf_graph *g, rf_id key_mask, rf_shape sx)
{
    char a[64], b[64];
    rf_shape sm = rf_node_shape(g, key_mask);
    if (sm.ndim != 2 || sm.dim[0] != sx.dim[0] || sm.dim[1] != sx.dim[1])
        return rf_graph_fail(g, "talk: key mask %s must be [B, N] = [%lld, %lld] for x %s",
                             rf_shape_str(sm, a, sizeof a), (long long)sx.dim[0], (long long)sx.dim[1],
                             rf_shape_str(sx, b, sizeof b));
    if (rf_graph_cnode(g, key_mask)->needs_grad)
        return rf_graph_fail(g, "talk: the key mask must not need a gradient");
    return key_mask;
}

/* x [B, N, D], offsets [B, N, 2H], key_mask [B, N] -> [B, N, D] */
rf_id rf_talk(rf_graph *g, rf_id x, rf_id offsets, rf_id key_mask, int lmax, int rmax)
{
    rf_id in[3] = {x, offsets, key_mask};
    int n_in = key_mask == RF_NONE ? 2 : 3;
    if (!rf_graph_inputs_ok(g, in, n_in))
        return RF_NONE;
    rf_shape sx = rf_node_shape(g, x), so = rf_node_shape(g, offsets);
    char a[64], b[64];
    if (sx.ndim != 3 || so.ndim != 3 || so.dim[0] != sx.dim[0] || so.dim[1] != sx.dim[1])
        return rf_graph_fail(g, "talk: x %s and offsets %s must be [B, N, D] and [B, N, 2H]",
                             rf_shape_str(sx, a, sizeof a), rf_shape_str(so, b, sizeof b));
    int64_t H = so.dim[2] / 2;
    if (so.dim[2] % 2 != 0 || H < 1 || sx.dim[2] % H != 0)
        return rf_graph_fail(g, "talk: offsets %s must hold 2H values per token with H dividing the width of x %s",
                             rf_shape_str(so, a, sizeof a), rf_shape_str(sx, b, sizeof b));
    if (lmax < 0 || rmax < 0)
        return rf_graph_fail(g, "talk: lmax %d and rmax %d must not be negative", lmax, rmax);
    if (key_mask != RF_NONE && check_mask(g, key_mask, sx) == RF_NONE)
        return RF_NONE;
    rf_id id = rf_graph_add_op(g, RF_OP_TALK, in, n_in, sx);
    if (id == RF_NONE)
        return RF_NONE;
    rf_node *n = rf_graph_node(g, id);
    n->ia[0] = H;
    n->ia[1] = lmax;
    n->ia[2] = rmax;
    n->ia[3] = heads_per_task(sx.dim[0], H, sx.dim[2] / H);
    return id;
}
