/* The sequence classifier (SPEC §0): embedding + position -> encoder ->
 * pooling (mean over valid tokens, or CLS) -> LayerNorm -> Linear -> logits,
 * with softmax cross-entropy as the loss. One graph per (batch, length).
 */
#ifndef RF_MODEL_H
#define RF_MODEL_H

#include "config.h"
#include "exec.h"
#include "params.h"

typedef struct rf_model {
    rf_config cfg;
    rf_graph *graph;
    rf_params *params;           /* borrowed */
    int batch, seq_len, feat_dim;
    int grid_h, grid_w;          /* positions as a 2-D raster, or 0, 0 */
    rf_id x;                     /* [B, N] ids or [B, N, F] features; for attribution
                                    (rf_model_new_attribution) [B, N, D] token embeddings
                                    or [B, N, F] features, with a gradient */
    rf_id mask;                  /* [B, N] */
    rf_id labels;                /* [B] */
    rf_id logits;                /* [B, classes] */
    rf_id loss;                  /* scalar */
    rf_id pos_table;             /* sinusoidal constants [N, D], or RF_NONE */
    rf_id cls_zeros;             /* [B, 1, D] zeros to broadcast the CLS token, or RF_NONE */
    rf_id cls_mask;              /* [B, 1] ones, or RF_NONE */
    rf_graph_plan_info plan;
} rf_model;

/* Build the graph (registering parameters in `params`). With allocate =
 * false nothing is allocated (for the memory planner); otherwise the graph
 * is prepared and its constants are filled. */
rf_model *rf_model_new(const rf_config *cfg, int batch, int seq_len, int feat_dim, int vocab, int classes,
                       rf_params *params, bool allocate, rf_status *st);
/* The same for positions that form a grid_h x grid_w raster (images,
 * spectrograms): 2-D sinusoidal positions, and the grid handed to encoders
 * that merge tokens in 2-D (MAELRE). */
rf_model *rf_model_new_grid(const rf_config *cfg, int batch, int seq_len, int feat_dim, int vocab, int classes,
                            int grid_h, int grid_w, rf_params *params, bool allocate, rf_status *st);
/* Built and allocated for forward passes only (inference): the graph is
 * planned without its loss, so no activation gradient or tensor saved for
 * backward is allocated and activations share memory as soon as their last
 * reader has run. rf_graph_backward does nothing on it. (The parameter
 * store still holds gradients and AdamW moments: a checkpoint fills them.) */
rf_model *rf_model_new_forward(const rf_config *cfg, int batch, int seq_len, int feat_dim, int vocab, int classes,
                               int grid_h, int grid_w, rf_params *params, rf_status *st);
/* Built for attribution: backward runs from the logits (seeded by the
 * caller, e.g. one-hot on a target class per row) to the input, which has
 * a gradient. Token models take their embeddings as input (m->x is
 * [B, N, D]: ids are discrete, so gradients are taken after the embedding
 * table, which the graph does not hold); feature models their features.
 * With a values-only parameter store no parameter gradient is computed. */
rf_model *rf_model_new_attribution(const rf_config *cfg, int batch, int seq_len, int feat_dim, int vocab,
                                   int classes, int grid_h, int grid_w, rf_params *params, rf_status *st);
/* rf_model_new_forward's plan without allocating anything (m->plan: the
 * forward-only arena and scratch), for the memory planner. */
rf_model *rf_model_plan_forward(const rf_config *cfg, int batch, int seq_len, int feat_dim, int vocab, int classes,
                                int grid_h, int grid_w, rf_params *params, rf_status *st);
/* The same model forward-only for inputs of at most seq_len positions
 * (<= host's, 1-D inputs only), on host's parameters and inside host's
 * arena (rf_graph_prepare_inside): length buckets for inference, which
 * compute no padding beyond a batch's longest input for the price of the
 * graph's tables. It and host overwrite each other's buffers: call
 * rf_model_refill_constants on the one about to run after the other ran.
 * Free it before host. */
rf_model *rf_model_new_forward_inside(const rf_model *host, int seq_len, int vocab, int classes, rf_status *st);
/* Rewrite the constants a model keeps in its arena (sinusoidal positions,
 * the CLS broadcast). Done when the model is built. */
void rf_model_refill_constants(rf_model *m);
/* Whether a graph for seq_len positions gives every input that fits it the
 * same outputs as one for full_len: true wherever padding is masked out,
 * false where the encoder's structure follows the padded length (MAELRE
 * picks linear or dot-product attention per block from it). */
bool rf_model_length_invariant(const rf_config *cfg, int seq_len, int full_len);
void rf_model_free(rf_model *m);

/* Number of trainable floats. */
int64_t rf_model_param_count(const rf_model *m);

/* An estimate of the forward pass's floating-point operations per sample:
 * 2 x the multiply-adds of the matrix products only (matmul, linear,
 * convolutions, the fused attention ops); elementwise work is not counted.
 * Works on a model built with allocate = false. Backward costs about twice
 * as much again. */
double rf_model_flops_per_sample(const rf_model *m);

/* The FLOPs of one training step (forward, backward and the optimizer) by
 * op kind, as core/flops.h counts them. */
struct rf_step_flops;
void rf_model_step_flops(const rf_model *m, struct rf_step_flops *out);
/* What its last step ran (rf_graph_step_flops_ran). */
void rf_model_step_flops_ran(const rf_model *m, struct rf_step_flops *out);

#endif
