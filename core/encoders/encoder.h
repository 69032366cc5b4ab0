/* The encoder interface: how a long-range mechanism plugs into the model.
 *
 * A per-layer mechanism (full attention, and later Transformer-LS windows,
 * TaLK, linear attention) provides a mixer: [B, N, D] -> [B, N, D] on the
 * normalised input of one layer; the generic pre-LN stack in prenorm.c wraps
 * it with residuals and the MLP. A whole-encoder mechanism (BLRP, MAELRE)
 * provides `encoder` and builds everything between the embeddings and the
 * pooling itself. Parameter names start with "layer<i>." so checkpoints are
 * readable.
 */
#ifndef RF_ENCODER_H
#define RF_ENCODER_H

#include "../config.h"
#include "../graph.h"

typedef struct rf_encoder_ctx {
    rf_graph *g;
    const rf_config *cfg;
    rf_id mask;          /* [B, N], 1 valid, 0 padding */
    int batch, tokens;        /* positions entering the encoder (CLS included) */
    int grid_h, grid_w;       /* 2-D token grid (images, spectrograms) in raster order,
                                 tokens == grid_h * grid_w (+1 with CLS); 0 for 1-D */
} rf_encoder_ctx;

/* x: [B, N, D] (already layer-normed). Returns [B, N, D]. */
typedef rf_id (*rf_mixer_fn)(const rf_encoder_ctx *e, int layer, rf_id x);
/* x: [B, N, D] embeddings. Returns [B, N', D'] token states and may replace
 * e->mask's meaning by writing *out_mask ([B, N'] or RF_NONE = all valid). */
typedef rf_id (*rf_encoder_fn)(const rf_encoder_ctx *e, rf_id x, rf_id *out_mask);

typedef struct rf_encoder_info {
    const char *name;
    const char *summary;
    rf_mixer_fn mixer;       /* exactly one of mixer / encoder is set */
    rf_encoder_fn encoder;
} rf_encoder_info;

const rf_encoder_info *rf_encoder_find(const char *name);

/* The generic pre-LN stack: for each layer, x = x + mixer(LN(x)); x = x + MLP(LN(x)). */
rf_id rf_prenorm_stack(const rf_encoder_ctx *e, rf_mixer_fn mixer, rf_id x);

/* Shared pieces for mixers. */
rf_id rf_dense(rf_graph *g, rf_id x, int in, int out, const char *name, bool bias);  /* Linear with init */
/* The mechanisms (one file each in core/encoders/). */
rf_id rf_mixer_full(const rf_encoder_ctx *e, int layer, rf_id x);
rf_id rf_mixer_ls(const rf_encoder_ctx *e, int layer, rf_id x);
rf_id rf_mixer_linear(const rf_encoder_ctx *e, int layer, rf_id x);
rf_id rf_mixer_talk(const rf_encoder_ctx *e, int layer, rf_id x);
rf_id rf_encoder_blrp(const rf_encoder_ctx *e, rf_id x, rf_id *out_mask);
rf_id rf_encoder_maelre(const rf_encoder_ctx *e, rf_id x, rf_id *out_mask);

#endif
