/* bf16 storage (core/bf16_storage.h): which values the planner keeps in
 * bf16 and at what size; each op that writes or reads a bf16 value against
 * the same op with f32 storage (bit for bit, since the products rounded
 * those values anyway) and against the f32 op (within bf16's rounding);
 * a few training steps of every encoder with the pass on and off, bit for
 * bit; the engine's measured peak against the smaller plan; probes reading
 * a bf16 run; and no bf16 value where the CPU lacks bf16 (RF_BF16=off). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "../core/alloc.h"
#include "../core/bf16_storage.h"
#include "../core/exec.h"
#include "../core/gemm.h"
#include "../core/gemm_bf16.h"
#include "../core/model.h"
#include "../core/params.h"
#include "../core/probe.h"
#include "../core/traffic.h"
#include "../core/train.h"
#include "../datasets/datasets.h"
#include "tap.h"
#include "tolerance.h"

#define BF16_U 0x1p-8   /* bf16's unit roundoff (8 significant bits) */

/* ---- the rule: which values become bf16 ---- */

typedef struct rule_graph {
    rf_graph *g;
    rf_params *p;
    rf_id x, only_products, also_add, moved, moved_to_add, named, kept, loss;
} rule_graph;

static rf_id ln(rf_graph *g, rf_id x, const char *name)
{
    char gn[64], bn[64];
    snprintf(gn, sizeof gn, "%s.weight", name);
    snprintf(bn, sizeof bn, "%s.bias", name);
    return rf_layernorm(g, x, rf_param(g, gn, rf_shape1(32), RF_INIT_ONES, 0),
                        rf_param(g, bn, rf_shape1(32), RF_INIT_ZEROS, 0), 1e-5f);
}

static rf_id dense(rf_graph *g, rf_id x, int in, int out, const char *name)
{
    return rf_linear(g, x, rf_param(g, name, rf_shape2(in, out), RF_INIT_UNIFORM, 0.2f), RF_NONE);
}

/* x [2, 16, 32] through layer norms whose outputs are read in every way
 * the rule tells apart. */
static rule_graph rule_build(void)
{
    rule_graph r = {0};
    r.p = rf_params_new(3);
    rf_graph *g = r.g = rf_graph_new(r.p);
    r.x = rf_input(g, "x", rf_shape3(2, 16, 32), true);
    r.only_products = ln(g, r.x, "ln0");               /* two linears: bf16 */
    rf_id h = rf_add(g, dense(g, r.only_products, 32, 32, "a"), dense(g, r.only_products, 32, 32, "b"));
    r.also_add = ln(g, h, "ln1");                      /* a linear and an add: f32 */
    h = rf_add(g, r.also_add, dense(g, r.also_add, 32, 32, "c"));
    rf_id t = ln(g, h, "ln2");
    r.moved = rf_permute(g, t, (const int[]){0, 2, 1});   /* into a matmul: bf16, and ln2 too */
    rf_id mm = rf_matmul(g, r.moved, r.moved, true, false);   /* [2, 16, 16] */
    h = rf_add(g, h, rf_scale(g, rf_matmul(g, mm, h, false, false), 0.01f));
    rf_id u = ln(g, h, "ln3");
    r.moved_to_add = rf_reshape(g, u, rf_shape2(32, 32));   /* into an add: f32, and ln3 too */
    h = rf_add(g, h, rf_reshape(g, rf_add(g, r.moved_to_add, dense(g, r.moved_to_add, 32, 32, "d")),
                                rf_shape3(2, 16, 32)));
    r.named = ln(g, h, "ln4");
    rf_set_name(g, r.named, "ln4.out");                /* a probe may read it: f32 */
    r.kept = rf_gelu(g, dense(g, r.named, 32, 32, "e"));
    rf_graph_keep(g, r.kept);                          /* its caller reads it: f32 */
    r.loss = rf_sum(g, dense(g, r.kept, 32, 1, "f"), -1);
    return r;
}

static void rule_free(rule_graph *r)
{
    rf_graph_free(r->g);
    rf_params_free(r->p);
}

static rf_dtype dtype(const rule_graph *r, rf_id id)
{
    return rf_graph_cnode(r->g, id)->dtype;
}

/* The floats node id's value buffer takes in the plan. */
static size_t planned_floats(rf_graph *g, rf_id loss, rf_id id)
{
    rf_plan_buffer *buf = NULL;
    int count = 0;
    rf_status st = {0};
    size_t floats = 0;
    if (rf_graph_plan_buffers(g, loss, 1, &buf, &count, &st))
        for (int b = 0; b < count; b++)
            if (buf[b].node == id && buf[b].kind == 0)
                floats = buf[b].floats;
    free(buf);
    return floats;
}

static void test_rule(void)
{
    rule_graph r = rule_build();
    tap_ok(rf_graph_ok(r.g), "the rule's graph builds%s%s", rf_graph_ok(r.g) ? "" : ": ", rf_graph_error(r.g));
    rf_status st = {0};
    rf_graph_plan_info off, on;
    rf_graph_plan(r.g, r.loss, 1, &off, &st);
    rf_step_bytes bytes_off, bytes_on;
    rf_graph_step_bytes(r.g, &bytes_off);
    size_t f32_floats = planned_floats(r.g, r.loss, r.only_products);
    tap_ok(rf_graph_bf16_nodes(r.g) == 0, "bf16 storage is off until the model asks for it");

    rf_graph_set_bf16_storage(r.g, true);
    rf_graph_plan(r.g, r.loss, 1, &on, &st);
    rf_id ln2 = rf_graph_cnode(r.g, r.moved)->in[0], ln3 = rf_graph_cnode(r.g, r.moved_to_add)->in[0];
    tap_ok(dtype(&r, r.only_products) == RF_BF16, "a layer norm only linears read is kept in bf16");
    tap_ok(dtype(&r, r.also_add) == RF_F32, "one an add reads too stays f32");
    tap_ok(dtype(&r, r.moved) == RF_BF16 && dtype(&r, ln2) == RF_BF16,
           "a permute into a matmul's two operands is bf16, and the layer norm it moves");
    tap_ok(dtype(&r, r.moved_to_add) == RF_F32 && dtype(&r, ln3) == RF_F32,
           "a reshape into an add is f32, and so the layer norm it moves");
    tap_ok(dtype(&r, r.named) == RF_F32 && dtype(&r, r.kept) == RF_F32 && dtype(&r, r.x) == RF_F32 &&
               dtype(&r, r.loss) == RF_F32,
           "named (probed) and kept values, inputs and the loss stay f32");
    int products = 0;
    for (rf_id i = 0; i < rf_graph_size(r.g); i++) {
        const rf_node *n = rf_graph_cnode(r.g, i);
        products += (n->op == RF_OP_LINEAR || n->op == RF_OP_MATMUL || n->op == RF_OP_PARAM) && n->dtype == RF_BF16;
    }
    tap_ok(products == 0, "products and parameters write f32");
    size_t bf16_floats = planned_floats(r.g, r.loss, r.only_products);
    tap_ok(bf16_floats == 2 * 16 * 32 / 2 && f32_floats == 2 * 16 * 32,
           "its buffer is planned at half the bytes: %zu floats for %d elements (%zu in f32)", bf16_floats,
           2 * 16 * 32, f32_floats);
    tap_ok(on.buffer_bytes < off.buffer_bytes, "the plan's buffers shrink: %zu bytes, %zu in f32",
           on.buffer_bytes, off.buffer_bytes);
    rf_graph_step_bytes(r.g, &bytes_on);
    /* 2 bf16 layer norms (ln0, ln2) of 1024 elements write 2 bytes each instead of 4 */
    tap_ok(bytes_off.forward[RF_OP_LAYERNORM] - bytes_on.forward[RF_OP_LAYERNORM] == 2 * 1024 * 2,
           "the step's traffic counts their writes at 2 bytes an element (%.0f bytes less for the layer norms)",
           bytes_off.forward[RF_OP_LAYERNORM] - bytes_on.forward[RF_OP_LAYERNORM]);

    setenv("RF_BF16_STORAGE", "off", 1);
    rf_graph_plan(r.g, r.loss, 1, &on, &st);
    tap_ok(rf_graph_bf16_nodes(r.g) == 0 && on.buffer_bytes == off.buffer_bytes,
           "RF_BF16_STORAGE=off keeps every value f32");
    unsetenv("RF_BF16_STORAGE");
    rule_free(&r);
}

/* ---- each op: bf16 storage against f32 storage, and against the f32 op ---- */

enum { OP_LAYERNORM, OP_GELU, OP_RELU, OP_ELU, OP_SOFTPLUS, OP_SIGMOID, OP_GLU, OP_DROPOUT, OP_RESHAPE, OP_PERMUTE,
       OP_MOVES, OP_MATMUL, OP_CASES };
static const char *const case_names[OP_CASES] = {"layernorm", "gelu", "relu", "elu", "softplus", "sigmoid", "glu",
                                                  "dropout", "reshape", "permute",
                                                  "reshape of a permute of a layer norm", "matmul of a layer norm"};

#define B 3
#define N 40
#define D 64
#define OUT 48

typedef struct op_run {
    rf_graph *g;
    rf_params *p;
    rf_id x, op, product, w, loss;
    int64_t rows, k;   /* the product's rows and sum length (linear cases) */
    void *op_value;    /* copies made after forward (backward reuses their buffers) */
    float *product_value;
} op_run;

/* x [B, N, D] -> the op -> a linear of OUT columns (a matmul for
 * OP_MATMUL) -> the sum as the loss. */
static op_run op_build(int which)
{
    op_run r = {0};
    r.p = rf_params_new(11);
    rf_graph *g = r.g = rf_graph_new(r.p);
    r.x = rf_input(g, "x", rf_shape3(B, N, D), true);
    static const rf_unary_kind kinds[] = {RF_UNARY_GELU, RF_UNARY_RELU, RF_UNARY_ELU, RF_UNARY_SOFTPLUS,
                                          RF_UNARY_SIGMOID};
    switch (which) {
    case OP_LAYERNORM:
    case OP_MATMUL:
    case OP_MOVES:
        r.op = rf_layernorm(g, r.x, rf_param(g, "ln.weight", rf_shape1(D), RF_INIT_UNIFORM, 1.0f),
                            rf_param(g, "ln.bias", rf_shape1(D), RF_INIT_UNIFORM, 0.5f), 1e-5f);
        if (which == OP_MOVES)   /* both moves reading bf16 */
            r.op = rf_reshape(g, rf_permute(g, r.op, (const int[]){1, 0, 2}), rf_shape2(N * B, D));
        break;
    case OP_GLU: r.op = rf_glu(g, r.x); break;
    case OP_DROPOUT: r.op = rf_dropout(g, r.x, 0.25f); break;
    case OP_RESHAPE: r.op = rf_reshape(g, r.x, rf_shape2(B * N, D)); break;
    case OP_PERMUTE: r.op = rf_permute(g, r.x, (const int[]){0, 2, 1}); break;
    default: r.op = rf_unary(g, r.x, kinds[which - OP_GELU]); break;
    }
    rf_shape s = rf_node_shape(g, r.op);
    r.k = s.dim[s.ndim - 1];
    r.rows = rf_shape_numel(s) / r.k;
    if (which == OP_MATMUL) {
        r.product = rf_matmul(g, r.op, r.op, false, true);   /* both operands the bf16 value */
    } else {
        r.w = rf_param(g, "w", rf_shape2(r.k, OUT), RF_INIT_UNIFORM, 0.3f);
        r.product = rf_linear(g, r.op, r.w, rf_param(g, "bias", rf_shape1(OUT), RF_INIT_UNIFORM, 0.3f));
    }
    r.loss = rf_sum(g, r.product, -1);
    return r;
}

/* Build, prepare (bf16 storage on or off, in the precision in force) and
 * run one training step's forward and backward on fixed inputs. */
static op_run op_step(int which, bool storage)
{
    op_run r = op_build(which);
    rf_status st = {0};
    rf_graph_set_bf16_storage(r.g, storage);
    if (!rf_graph_prepare(r.g, r.loss, 2, NULL, &st)) {
        tap_diag("%s: %s", case_names[which], st.msg);
        return r;
    }
    float *x = rf_value(r.g, r.x);
    for (int64_t i = 0; i < B * N * D; i++)
        x[i] = 2.0f * sinf(0.37f * (float)i + 0.1f * (float)(i % 7)) + 0.01f * (float)(i % 13);
    rf_pool *pool = rf_pool_new(2);
    rf_exec ex;
    rf_exec_init(&ex, r.g, pool, 5, 1, true);
    rf_params_zero_grads(r.p);
    rf_graph_forward(r.g, &ex);
    const rf_node *op = rf_graph_cnode(r.g, r.op), *product = rf_graph_cnode(r.g, r.product);
    size_t size = op->dtype == RF_BF16 ? sizeof(uint16_t) : sizeof(float);
    r.op_value = g_memdup2(op->value, (size_t)rf_shape_numel(op->shape) * size);
    r.product_value = g_memdup2(product->value, (size_t)rf_shape_numel(product->shape) * sizeof(float));
    rf_graph_backward(r.g, &ex, NULL);
    rf_pool_free(pool);
    return r;
}

static void op_free(op_run *r)
{
    rf_graph_free(r->g);
    rf_params_free(r->p);
    g_free(r->op_value);
    g_free(r->product_value);
}

static bool same_floats(const float *a, const float *b, int64_t n)
{
    return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

/* A graph planned in bf16 and run after the precision went back to f32:
 * its products read the bf16 values widened (the weights unrounded), so
 * they are within bf16's rounding of the activation of the f32 op. */
static void check_widened(op_run *on, const op_run *f32)
{
    rf_gemm_set_precision("f32", NULL);
    rf_exec ex;
    rf_exec_init(&ex, on->g, NULL, 5, 1, true);
    rf_graph_forward(on->g, &ex);
    rf_gemm_set_precision("bf16", NULL);
    const float *a = f32->op_value, *w = rf_value(f32->g, f32->w);
    const float *y = rf_graph_cnode(on->g, on->product)->value;
    const float *bias = rf_value(f32->g, rf_graph_cnode(f32->g, f32->product)->in[2]);
    double worst = 0;
    for (int64_t r = 0; r < on->rows; r++)
        for (int64_t j = 0; j < OUT; j++) {
            double abs_sum = 0;
            for (int64_t t = 0; t < on->k; t++)
                abs_sum += fabs((double)a[r * on->k + t] * w[t * OUT + j]);
            double bound = BF16_U * abs_sum + 2 * tol_sum((double)on->k + 1, abs_sum + fabs(bias[j]));
            double err = fabs((double)y[r * OUT + j] - f32->product_value[r * OUT + j]);
            if (err / bound > worst)
                worst = err / bound;
        }
    tap_ok(worst <= 1.0, "run in f32 precision, a graph planned in bf16 reads its bf16 values widened (worst %.3f "
           "of the bound)", worst);
}

static void test_op(int which)
{
    const char *name = case_names[which];
    op_run on = op_step(which, true), off = op_step(which, false);
    rf_gemm_set_precision("f32", NULL);
    op_run f32 = op_step(which, false);   /* the f32 op */
    rf_gemm_set_precision("bf16", NULL);
    const rf_node *op_on = rf_graph_cnode(on.g, on.op), *op_off = rf_graph_cnode(off.g, off.op);
    const rf_node *op_f32 = rf_graph_cnode(f32.g, f32.op);
    tap_ok(op_on->dtype == RF_BF16 && op_off->dtype == RF_F32 && op_f32->dtype == RF_F32,
           "%s: its value is kept in bf16 with storage on (f32 with it off)", name);
    if (op_on->dtype != RF_BF16) {
        op_free(&on);
        op_free(&off);
        op_free(&f32);
        return;
    }

    /* forward: exactly the f32 value rounded to nearest even */
    int64_t numel = rf_shape_numel(op_on->shape), wrong = 0;
    uint16_t *want = malloc((size_t)numel * sizeof *want);
    rf_bf16_round(off.op_value, want, (size_t)numel);
    for (int64_t i = 0; i < numel; i++)
        wrong += ((const uint16_t *)on.op_value)[i] != want[i];
    free(want);
    tap_ok(wrong == 0, "%s: forward writes the f32 op's value rounded to nearest even (%lld of %lld differ)", name,
           (long long)wrong, (long long)numel);

    /* what reads it, and every gradient: the same bits as with f32 storage */
    int64_t out = rf_shape_numel(rf_graph_cnode(on.g, on.product)->shape);
    bool same = same_floats(on.product_value, off.product_value, out) &&
                same_floats(rf_grad(on.g, on.x), rf_grad(off.g, off.x), B * N * D) &&
                same_floats(on.p->grad, off.p->grad, (int64_t)on.p->total) &&
                same_floats(op_on->grad, op_off->grad, numel);
    tap_ok(same, "%s: the product reading it, its gradient, the input's and the parameters' gradients equal "
           "those with f32 storage bit for bit", name);

    /* against the f32 op in f32 precision: within bf16's rounding of the
     * product's operands (each product term off by at most 2u + u^2), plus
     * f32 sums in both runs */
    double worst_fwd = 0, worst_dw = 0;
    const float *a = f32.op_value;
    if (which == OP_MATMUL) {
        int64_t n = N, k = D;
        for (int b = 0; b < B; b++)
            for (int64_t i = 0; i < n; i++)
                for (int64_t j = 0; j < n; j++) {
                    double abs_sum = 0;
                    for (int64_t t = 0; t < k; t++)
                        abs_sum += fabs((double)a[(b * n + i) * k + t] * a[(b * n + j) * k + t]);
                    double bound = (2 * BF16_U + BF16_U * BF16_U) * abs_sum + 2 * tol_sum((double)k, abs_sum);
                    int64_t e = (b * n + i) * n + j;
                    double err = fabs((double)on.product_value[e] - f32.product_value[e]);
                    if (err / bound > worst_fwd)
                        worst_fwd = err / bound;
                }
    } else {
        const float *w = rf_value(f32.g, f32.w), *bias = rf_value(f32.g, rf_graph_cnode(f32.g, f32.product)->in[2]);
        const float *y32 = f32.product_value;
        const float *dw = rf_grad(on.g, on.w), *dw32 = rf_grad(f32.g, f32.w);
        for (int64_t r = 0; r < on.rows; r++)
            for (int64_t j = 0; j < OUT; j++) {
                double abs_sum = 0;
                for (int64_t t = 0; t < on.k; t++)
                    abs_sum += fabs((double)a[r * on.k + t] * w[t * OUT + j]);
                double bound = (2 * BF16_U + BF16_U * BF16_U) * abs_sum +
                               2 * tol_sum((double)on.k + 1, abs_sum + fabs(bias[j]));
                double err = fabs((double)on.product_value[r * OUT + j] - y32[r * OUT + j]);
                if (err / bound > worst_fwd)
                    worst_fwd = err / bound;
            }
        /* dW = x^T dy with dy = 1: each term is x's, rounded once */
        for (int64_t t = 0; t < on.k; t++)
            for (int64_t j = 0; j < OUT; j++) {
                double abs_sum = 0;
                for (int64_t r = 0; r < on.rows; r++)
                    abs_sum += fabs((double)a[r * on.k + t]);
                double bound = BF16_U * abs_sum + 2 * tol_sum((double)on.rows, abs_sum) + 1e-30;
                double err = fabs((double)dw[t * OUT + j] - dw32[t * OUT + j]);
                if (err / bound > worst_dw)
                    worst_dw = err / bound;
            }
    }
    bool moved = false;
    for (int64_t e = 0; e < out && !moved; e++)
        moved = on.product_value[e] != f32.product_value[e];
    tap_ok(worst_fwd <= 1.0 && worst_dw <= 1.0 && moved,
           "%s: against the f32 op the product is within bf16's bound (worst %.3f of it) and so is dW (%.3f), "
           "and not equal to it", name, worst_fwd, worst_dw);
    if (which == OP_LAYERNORM)
        check_widened(&on, &f32);
    op_free(&on);
    op_free(&off);
    op_free(&f32);
}

/* ---- every encoder: a few steps with the pass on and off, bit for bit ---- */

static rf_config small_model(const char *encoder)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.data.task, "random");
    cfg.data.batch = 4;
    cfg.data.max_len = 64;
    cfg.data.min_len = 8;
    cfg.data.train_size = 8;
    cfg.data.val_size = cfg.data.test_size = 4;
    cfg.model.dim = 32;
    cfg.model.heads = 2;
    cfg.model.ff = 64;
    cfg.model.segment = 16;
    cfg.model.latent = 8;
    cfg.model.dropout = 0.1f;
    cfg.train.threads = 2;
    strcpy(cfg.model.encoder, encoder);
    strcpy(cfg.train.precision, "bf16");
    return cfg;
}

enum { STEPS = 3 };

typedef struct encoder_run {
    double loss[STEPS];
    float *grads[STEPS];
    float *weights;
    size_t floats;
    int bf16_nodes;
    size_t activations;
    bool ok;
} encoder_run;

static encoder_run run_encoder(const rf_config *cfg, const rf_dataset *ds, bool storage)
{
    encoder_run r = {0};
    if (!storage)
        setenv("RF_BF16_STORAGE", "off", 1);
    rf_status st = {0};
    rf_gemm_forget();
    rf_trainer *t = rf_trainer_new(cfg, ds, &st);
    unsetenv("RF_BF16_STORAGE");
    r.ok = t != NULL;
    if (t == NULL) {
        tap_diag("%s: %s", cfg->model.encoder, st.msg);
        return r;
    }
    const rf_params *p = rf_trainer_params(t);
    r.floats = p->total;
    r.bf16_nodes = rf_graph_bf16_nodes(rf_trainer_model(t)->graph);
    r.activations = rf_trainer_plan(t)->activations;
    for (int s = 0; s < STEPS && r.ok; s++) {
        rf_metrics m = {0};
        r.ok = rf_trainer_step(t, &m, &st);
        r.loss[s] = m.loss;
        r.grads[s] = g_memdup2(p->grad, r.floats * sizeof(float));
    }
    r.weights = g_memdup2(p->value, r.floats * sizeof(float));
    rf_trainer_free(t);
    return r;
}

static void free_run(encoder_run *r)
{
    for (int s = 0; s < STEPS; s++)
        g_free(r->grads[s]);
    g_free(r->weights);
}

static void test_encoders(void)
{
    static const char *const encoders[] = {"full", "ls", "linear", "talk", "blrp", "maelre"};
    for (size_t i = 0; i < sizeof encoders / sizeof *encoders; i++) {
        rf_config cfg = small_model(encoders[i]);
        rf_status st = {0};
        rf_dataset *ds = rf_dataset_open(&cfg, &st);
        encoder_run on = run_encoder(&cfg, ds, true), off = run_encoder(&cfg, ds, false);
        bool same = on.ok && off.ok && on.floats == off.floats;
        for (int s = 0; same && s < STEPS; s++)
            same = on.loss[s] == off.loss[s] && memcmp(on.grads[s], off.grads[s], on.floats * sizeof(float)) == 0;
        same = same && memcmp(on.weights, off.weights, on.floats * sizeof(float)) == 0;
        tap_ok(same && on.bf16_nodes > 0 && off.bf16_nodes == 0,
               "%s: %d training steps with %d values in bf16 give the losses (%.6f ...), gradients and weights of "
               "the same steps with every value f32, bit for bit", encoders[i], STEPS, on.bf16_nodes, on.loss[0]);
        tap_ok(on.activations < off.activations, "%s: the planned activations shrink from %.2f to %.2f MiB",
               encoders[i], off.activations / 1048576.0, on.activations / 1048576.0);
        free_run(&on);
        free_run(&off);
        rf_dataset_free(ds);
    }
}

/* ---- the plan against the engine's measured peak ---- */

static void test_peak(void)
{
    rf_config cfg = small_model("full");
    cfg.model.dim = 128;
    cfg.model.ff = 512;
    cfg.model.dropout = 0;
    int batch = 4, len = 512;
    rf_params *planned = rf_params_new(1);
    rf_status st = {0};
    rf_model *dry = rf_model_new(&cfg, batch, len, 0, 16, 10, planned, false, &st);
    size_t plan = dry->plan.arena_bytes + dry->plan.scratch_bytes + 4 * rf_params_bytes(planned);
    int bf16_nodes = rf_graph_bf16_nodes(dry->graph);
    rf_model_free(dry);
    rf_params_free(planned);

    rf_alloc_reset_peak();
    size_t before = rf_alloc_live_bytes();
    rf_params *p = rf_params_new(1);
    rf_model *m = rf_model_new(&cfg, batch, len, 0, 16, 10, p, true, &st);
    float *x = rf_value(m->graph, m->x), *mask = rf_value(m->graph, m->mask);
    for (int i = 0; i < batch * len; i++) {
        x[i] = (float)(1 + i % 15);
        mask[i] = 1.0f;
    }
    memset(rf_value(m->graph, m->labels), 0, (size_t)batch * sizeof(float));
    rf_exec ex;
    rf_exec_init(&ex, m->graph, NULL, 1, 0, true);
    for (int step = 0; step < 2; step++) {
        rf_graph_forward(m->graph, &ex);
        rf_params_zero_grads(p);
        rf_graph_backward(m->graph, &ex, NULL);
    }
    size_t peak = rf_alloc_peak_bytes() - before;
    double ratio = (double)peak / (double)plan;
    tap_ok(bf16_nodes > 0 && ratio > 0.9 && ratio < 1.1,
           "with %d values in bf16 the measured peak %.1f MiB is within 10%% of the plan %.1f MiB", bf16_nodes,
           peak / 1048576.0, plan / 1048576.0);
    rf_model_free(m);
    rf_params_free(p);
}

/* ---- probes read a bf16 run ---- */

/* Every tap of the full encoder for sample 1, as one run gives them. */
static float *probe_all(const rf_config *cfg, const rf_dataset *ds, bool storage, size_t *floats)
{
    if (!storage)
        setenv("RF_BF16_STORAGE", "off", 1);
    rf_status st = {0};
    rf_trainer *t = rf_trainer_new(cfg, ds, &st);
    unsetenv("RF_BF16_STORAGE");
    if (t == NULL)
        return NULL;
    rf_graph *g = rf_trainer_model(t)->graph;
    int n = rf_tap_count(g);
    const char **names = calloc((size_t)n + 1, sizeof *names);
    for (int i = 0; i < n; i++)
        names[i] = rf_tap_get(g, i)->name;
    rf_probe_set *ps = rf_probe_set_new(g, names, n, 0, &st);
    rf_inspection in = {0};
    float *all = NULL;
    *floats = 0;
    if (ps != NULL && rf_trainer_inspect(t, RF_SPLIT_TEST, 1, ps, &in, &st)) {
        for (int i = 0; i < ps->count; i++)
            *floats += (size_t)rf_shape_numel(ps->values[i].shape);
        all = malloc(*floats * sizeof *all + 1);
        size_t at = 0;
        for (int i = 0; i < ps->count; i++) {
            size_t k = (size_t)rf_shape_numel(ps->values[i].shape);
            memcpy(all + at, ps->values[i].data, k * sizeof *all);
            at += k;
        }
    } else {
        tap_diag("inspect: %s", st.msg);
    }
    rf_probe_set_free(ps);
    free(names);
    rf_trainer_free(t);
    return all;
}

/* A tap on a layer norm that would be kept in bf16: the tap keeps it f32,
 * the probe reads the f32 op's values and the product is unchanged. */
static void test_tapped_value(void)
{
    op_run plain = op_step(OP_LAYERNORM, true);
    op_run r = op_build(OP_LAYERNORM);
    bool added = rf_tap_add(r.g, "ln.out", r.op, RF_TAP_VALUE, rf_shape3(B, N, D), 0);
    rf_status st = {0};
    rf_graph_set_bf16_storage(r.g, true);
    bool ok = added && rf_graph_prepare(r.g, r.loss, 2, NULL, &st);
    rf_probe_set *ps = ok ? rf_probe_set_new(r.g, (const char *const[]){"ln.out"}, 1, 2, &st) : NULL;
    if (ps != NULL) {
        float *x = rf_value(r.g, r.x);
        for (int64_t i = 0; i < B * N * D; i++)
            x[i] = 2.0f * sinf(0.37f * (float)i + 0.1f * (float)(i % 7)) + 0.01f * (float)(i % 13);
        rf_probe_attach(r.g, ps);
        rf_exec ex;
        rf_exec_init(&ex, r.g, NULL, 5, 1, true);
        rf_graph_forward(r.g, &ex);
        rf_probe_attach(r.g, NULL);
    }
    const rf_node *ln = rf_graph_cnode(r.g, r.op);
    /* the plain run's layer norm is bf16: its f32 values are not kept, so
     * compare with the rounding of the probed ones and the product */
    bool same = ps != NULL && ps->values[0].filled && ln->dtype == RF_F32;
    int64_t wrong = 0;
    for (int64_t i = 0; same && i < N * D; i++) {
        uint16_t h;
        rf_bf16_round(&ps->values[0].data[i], &h, 1);
        wrong += h != ((const uint16_t *)plain.op_value)[2 * N * D + i];
    }
    same = same && wrong == 0 &&
           memcmp(rf_graph_cnode(r.g, r.product)->value, plain.product_value,
                  (size_t)B * N * OUT * sizeof(float)) == 0;
    tap_ok(same, "a tapped layer norm stays f32: the probe reads its f32 values (those the bf16 run rounds) and "
           "the product reading it is unchanged%s%s", st.failed ? ": " : "", st.msg);
    rf_probe_set_free(ps);
    op_free(&r);
    op_free(&plain);
}

static void test_probes(void)
{
    rf_config cfg = small_model("full");
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    size_t n_on = 0, n_off = 0;
    float *on = probe_all(&cfg, ds, true, &n_on), *off = probe_all(&cfg, ds, false, &n_off);
    tap_ok(on != NULL && off != NULL && n_on == n_off && n_on > 0 && memcmp(on, off, n_on * sizeof *on) == 0,
           "every tap of a bf16 run reads the f32 values of the run without bf16 storage (%zu floats)", n_on);
    free(on);
    free(off);
    rf_dataset_free(ds);
}

/* ---- a CPU without bf16 ---- */

static void test_no_bf16(void)
{
    setenv("RF_BF16", "off", 1);
    rf_config cfg = small_model("full");
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    rf_trainer *t = rf_trainer_new_forward(&cfg, ds, &st);
    rf_metrics m = {0};
    bool ok = t != NULL && rf_trainer_evaluate(t, RF_SPLIT_TEST, 1, &m, &st);
    tap_ok(ok && rf_graph_bf16_nodes(rf_trainer_model(t)->graph) == 0 && isfinite(m.loss),
           "without bf16 a bf16 run's model is evaluated with every value f32 (loss %.4f)%s%s", m.loss,
           st.failed ? ": " : "", st.msg);
    rf_trainer_free(t);
    rf_dataset_free(ds);
    unsetenv("RF_BF16");
}

int main(void)
{
    char *dir = g_dir_make_tmp("rf-bf16-storage-XXXXXX", NULL);
    setenv("XDG_CACHE_HOME", dir, 1);
    if (!rf_bf16_supported()) {
        tap_skip("bf16 storage", "this CPU has no AVX512-BF16");
        test_no_bf16();
        g_free(dir);
        return tap_done();
    }
    rf_status st = {0};
    rf_gemm_set_precision("bf16", &st);
    test_rule();
    for (int which = 0; which < OP_CASES; which++)
        test_op(which);
    test_encoders();
    rf_gemm_set_precision("bf16", &st);
    test_peak();
    test_tapped_value();
    test_probes();
    rf_gemm_set_precision("f32", &st);
    test_no_bf16();
    g_free(dir);
    return tap_done();
}
