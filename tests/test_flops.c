/* The planner's FLOPs of a training step (core/flops.h) against counts by
 * hand: a dense-only classifier (two linear layers and a GELU, written out
 * below with the textbook costs of a product and its two gradients), the
 * same with an input that needs no gradient, forward-only plans, full
 * attention's flash-style backward, and the FLOPs its CPU kernel runs when
 * whole blocks of keys are padding. */
#include <math.h>

#include "../core/exec.h"
#include "../core/flops.h"
#include "../core/params.h"
#include "../core/rng.h"
#include "tap.h"

enum { B = 6, IN = 10, HID = 7, CLASSES = 3 };

/* x [B, IN] -> linear(IN, HID) -> GELU -> linear(HID, CLASSES) -> cross-entropy */
static rf_graph *dense_model(rf_params *p, bool x_grad, rf_id *loss)
{
    rf_graph *g = rf_graph_new(p);
    rf_id x = rf_input(g, "x", rf_shape2(B, IN), x_grad), y = rf_input(g, "y", rf_shape1(B), false);
    rf_id w1 = rf_param(g, "w1", rf_shape2(IN, HID), RF_INIT_NORMAL, 0.1f);
    rf_id b1 = rf_param(g, "b1", rf_shape1(HID), RF_INIT_ZEROS, 0);
    rf_id w2 = rf_param(g, "w2", rf_shape2(HID, CLASSES), RF_INIT_NORMAL, 0.1f);
    rf_id b2 = rf_param(g, "b2", rf_shape1(CLASSES), RF_INIT_ZEROS, 0);
    rf_id h = rf_gelu(g, rf_linear(g, x, w1, b1));
    *loss = rf_cross_entropy(g, rf_linear(g, h, w2, b2), y);
    return g;
}

/* A product [m, k] x [k, n] costs 2mkn FLOPs; its backward one such product
 * per input that gets a gradient (dX = dY W^T, dW = X^T dY). AdamW and the
 * gradient norm: 16 + 2 per parameter. */
static double hand_count(bool x_grad, bool training)
{
    double layer1 = 2.0 * B * IN * HID, layer2 = 2.0 * B * HID * CLASSES;
    double params = IN * HID + HID + HID * CLASSES + CLASSES;
    if (!training)
        return layer1 + layer2;
    double forward = layer1 + layer2;
    double backward = layer1 * (x_grad ? 2 : 1) + layer2 * 2;   /* dW1 (and dX); dW2 and dH */
    return forward + backward + 18 * params;
}

static void check_dense(bool x_grad, bool training)
{
    rf_params *p = rf_params_new(1);
    rf_id loss;
    rf_graph *g = dense_model(p, x_grad, &loss);
    rf_status st = {0};
    rf_step_flops f;
    bool planned = rf_graph_plan(g, training ? loss : RF_NONE, 1, NULL, &st);
    if (planned)
        rf_graph_step_flops(g, training ? IN * HID + HID + HID * CLASSES + CLASSES : 0, &f);
    double want = hand_count(x_grad, training);
    tap_ok(planned && f.total == want && f.forward[RF_OP_LINEAR] == 2.0 * B * (IN * HID + HID * CLASSES) &&
               rf_step_flops_of(&f, RF_OP_UNARY) == 0,
           "dense model, %s, %s: %.0f FLOPs per step, by hand %.0f", training ? "training" : "forward only",
           x_grad ? "x needs a gradient" : "x needs none", planned ? f.total : -1.0, want);
    rf_graph_free(g);
    rf_params_free(p);
}

/* Full attention [B, N, D] x [B, M, D]: QK^T and PV forward (2BNMD
 * multiply-adds each); backward recomputes the scores, forms dP = dO V^T,
 * dQ, dK and dV: five products, four without the query's gradient. */
static void check_attention(bool q_grad)
{
    const int64_t b = 2, n = 5, m = 9, d = 8;
    rf_graph *g = rf_graph_new(NULL);
    rf_id q = rf_input(g, "q", rf_shape3(b, n, d), q_grad), k = rf_input(g, "k", rf_shape3(b, m, d), true);
    rf_id v = rf_input(g, "v", rf_shape3(b, m, d), true);
    rf_id a = rf_attention(g, q, k, v, RF_NONE, 2, 0.5f, 0.0f);
    rf_status st = {0};
    rf_step_flops f;
    bool planned = rf_graph_plan(g, a, 1, NULL, &st);
    if (planned)
        rf_graph_step_flops(g, 0, &f);
    double product = 2.0 * b * n * m * d;
    double want_bwd = product * (q_grad ? 5 : 4);
    tap_ok(planned && f.forward[RF_OP_ATTENTION] == 2 * product && f.backward[RF_OP_ATTENTION] == want_bwd &&
               f.optimizer == 0,
           "attention %s: forward %.0f (by hand %.0f), backward %.0f (by hand %.0f)",
           q_grad ? "with dQ" : "without dQ", planned ? f.forward[RF_OP_ATTENTION] : -1.0, 2 * product,
           planned ? f.backward[RF_OP_ATTENTION] : -1.0, want_bwd);
    rf_graph_free(g);
}

/* What the CPU's full attention ran with padded keys: the key blocks of a
 * row whose keys are all masked are skipped, forward and backward, so the
 * FLOPs run count only the others (whole blocks of the tile's kb keys). */
static void check_attention_padding(void)
{
    enum { KB = RF_ATTN_DEFAULT_KB };   /* the tests pin the default tile (RF_TILES=default) */
    const int64_t b = 2, n = 3, m = 2 * KB + 10, d = 8;
    const int64_t valid[2] = {KB + 44, 100};   /* row 0 runs 2 blocks (2 KB keys), row 1 one (KB) */
    rf_graph *g = rf_graph_new(NULL);
    rf_id q = rf_input(g, "q", rf_shape3(b, n, d), true), k = rf_input(g, "k", rf_shape3(b, m, d), true);
    rf_id v = rf_input(g, "v", rf_shape3(b, m, d), true), mask = rf_input(g, "mask", rf_shape2(b, m), false);
    rf_id a = rf_attention(g, q, k, v, mask, 2, 0.5f, 0.0f);
    rf_status st = {0};
    bool planned = rf_graph_prepare(g, a, 1, NULL, &st);
    rf_step_flops planned_f = {0}, ran = {0};
    if (planned) {
        rf_rng rng = {5};
        for (rf_id in = q; in <= v; in++)
            for (int64_t i = 0; i < rf_shape_numel(rf_node_shape(g, in)); i++)
                rf_value(g, in)[i] = (float)rf_rng_normal(&rng);
        for (int64_t r = 0; r < b; r++)
            for (int64_t j = 0; j < m; j++)
                rf_value(g, mask)[r * m + j] = j < valid[r] ? 1.0f : 0.0f;
        rf_exec ex;
        rf_exec_init(&ex, g, NULL, 1, 0, true);
        rf_graph_forward(g, &ex);
        rf_graph_step_flops(g, 0, &planned_f);
        rf_graph_step_flops_ran(g, 0, &ran);
    }
    double keys_ran = 2 * KB + KB, product = 2.0 * n * keys_ran * d;
    tap_ok(planned && planned_f.forward[RF_OP_ATTENTION] == 2 * 2.0 * b * n * m * d &&
               fabs(ran.forward[RF_OP_ATTENTION] - 2 * product) < 1e-6 * product &&
               fabs(ran.backward[RF_OP_ATTENTION] - 5 * product) < 1e-6 * product,
           "attention with padded keys: %.0f FLOPs run forward of %.0f planned (by hand %.0f: %g of %lld keys in "
           "blocks that are not all padding), backward %.0f (by hand %.0f)",
           ran.forward[RF_OP_ATTENTION], planned_f.forward[RF_OP_ATTENTION], 2 * product, keys_ran,
           (long long)(b * m), ran.backward[RF_OP_ATTENTION], 5 * product);
    rf_graph_free(g);
}

int main(void)
{
    check_dense(false, true);
    check_dense(true, true);
    check_dense(false, false);
    check_attention(true);
    check_attention(false);
    check_attention_padding();
    return tap_done();
}
