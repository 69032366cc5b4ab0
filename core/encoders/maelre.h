/* MAELRE (SPEC 4): token merging between blocks, linear attention while a
 * block has more tokens than channels, dot-product attention after.
 *
 * The block plan is a pure function of the config and the input length, so
 * the GUI and the CLI can show it without building a graph:
 *
 *     rf_maelre_block blk[RF_MAELRE_MAX_BLOCKS];
 *     int nb = rf_maelre_blocks(cfg, 2000, 0, 0, blk, RF_MAELRE_MAX_BLOCKS);
 *     // dim 64, blocks "1,1,1", reduce 4: tokens 2000, 500, 125;
 *     // widths 64, 128, 256; heads 2, 4, 8 (heads 8); linear, linear, dot
 */
#ifndef RF_MAELRE_H
#define RF_MAELRE_H

#include "encoder.h"

#define RF_MAELRE_MAX_BLOCKS 8

typedef struct rf_maelre_block {
    int layers;         /* pre-LN layers (MHSA + MLP) in the block */
    int tokens;         /* N_b, merged tokens (a CLS token is not counted) */
    int grid_h, grid_w; /* the block's token grid; 0, 0 for 1-D */
    int width;          /* D_b = model.dim * 2^b */
    int heads;          /* model.heads / 2^(blocks-1-b), at least 1 */
    int ff;             /* MLP hidden width, model.ff * 2^b */
    bool linear;        /* linear attention (N_b > D_b), else dot-product */
} rf_maelre_block;

/* The block plan for `tokens` stem tokens (CLS not counted); grid_h, grid_w
 * give a 2-D token grid in raster order (tokens == grid_h * grid_w), or
 * 0, 0 for a 1-D sequence. Between blocks, 1-D sequences merge with stride
 * nu = model.reduce (N' = ceil(N / nu)), grids with stride 2 on each axis.
 * Returns the number of blocks written to out, or -1 if model.blocks does
 * not parse (comma-separated layer counts >= 1, at most `max` blocks, widths
 * up to 2^20) or the geometry is inconsistent. */
int rf_maelre_blocks(const rf_config *cfg, int tokens, int grid_h, int grid_w, rf_maelre_block *out, int max);

/* The multi-head attention sublayer of the linear mixer and of MAELRE's
 * layers: x [B, T, width] -> [B, T, width] through Q, K, V projections,
 * linear or dot-product attention over the keys valid in mask ([B, T] or
 * RF_NONE), and the output projection. Parameters "layer<i>.attn.{q,k,v,out}";
 * taps "layer<i>.attn.kv" (linear: per-head phi(sK)^T V / tau, [B, heads,
 * dk, dk]) or "layer<i>.attn.probs" (dot: [B, heads, T, T]). Defined in
 * linear.c. */
rf_id rf_attention_sublayer(const rf_encoder_ctx *e, int layer, rf_id x, rf_id mask, int width, int heads,
                            bool linear);

/* The scale s applied to Q and K inside phi: model.linear_scale / dk^(1/4),
 * so that (sQ).(sK) = model.linear_scale^2 Q.K / sqrt(dk), the temperature
 * of the dot-product attention it replaces. */
float rf_linear_attention_qk_scale(const rf_config *cfg, int head_dim);

#endif
