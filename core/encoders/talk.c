/* TaLK convolution as a per-layer mixer (SPEC §5, the published encoder
 * layer): Linear(d, 2d) + GLU (or Linear(d, d) with model.glu = off) ->
 * TaLK with this layer's lmax / rmax -> Linear(d, d). The window offsets are
 * sigmoid(Linear(d, 2H)) of the layer's normalised input (the published
 * module takes them from the GLU output instead), optionally with dropout;
 * H = model.offset_heads, or model.heads when that is 0. The pre-LN stack
 * adds the residual and the MLP. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../op.h"
#include "../ops/talk.h"
#include "../probe.h"
#include "encoder.h"

/* Largest window bound a config may ask for. */
#define TALK_MAX_BOUND 1000000

/* `text` is one value for every layer or a comma list with one per layer
 * ("1,3,7,15"); writes the value of `layer` to *out. On a bad value or a
 * list of the wrong length, fails the graph naming model.<key>. */
static bool layer_bound(const rf_encoder_ctx *e, const char *key, const char *text, int layer, int *out)
{
    int layers = e->cfg->model.layers, count = 0;
    const char *p = text;
    for (;;) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        while (*end == ' ')
            end++;
        if (end == p || errno != 0 || v < 0 || v > TALK_MAX_BOUND || (*end != ',' && *end != '\0')) {
            rf_graph_fail(e->g, "model.%s = '%s': expected integers in [0, %d], one value or one per layer",
                          key, text, TALK_MAX_BOUND);
            return false;
        }
        if (count == layer || count == 0)
            *out = (int)v;
        count++;
        if (*end == '\0')
            break;
        p = end + 1;
    }
    if (count != 1 && count != layers) {
        rf_graph_fail(e->g, "model.%s = '%s' lists %d values but model.layers = %d", key, text, count, layers);
        return false;
    }
    return true;
}

/* x [B, N, d] -> the convolution's input [B, N, d]: GLU(Linear(d, 2d)) or Linear(d, d). */
static rf_id input_projection(const rf_encoder_ctx *e, int layer, rf_id x, int d)
{
    rf_graph *g = e->g;
    bool glu = strcmp(e->cfg->model.glu, "on") == 0;
    char name[RF_NAME_LEN];
    snprintf(name, sizeof name, "layer%d.talk.in", layer);
    rf_id h = rf_dense(g, x, d, glu ? 2 * d : d, name, true);
    if (!glu)
        return h;
    return rf_glu(g, h);   /* first half * sigmoid(second half), as torch.nn.GLU */
}

/* x [B, N, d] -> [B, N, d] */
rf_id rf_mixer_talk(const rf_encoder_ctx *e, int layer, rf_id x)
{
    rf_graph *g = e->g;
    const rf_config *cfg = e->cfg;
    int d = cfg->model.dim;
    int heads = cfg->model.offset_heads > 0 ? cfg->model.offset_heads : cfg->model.heads;
    int lmax = 0, rmax = 0;
    if (!layer_bound(e, "lmax", cfg->model.lmax, layer, &lmax) ||
        !layer_bound(e, "rmax", cfg->model.rmax, layer, &rmax))
        return RF_NONE;
    if (heads < 1 || d % heads != 0)
        return rf_graph_fail(g, "talk: %d offset heads (model.offset_heads, or model.heads when 0) do not divide "
                                "model.dim = %d", heads, d);
    char name[RF_NAME_LEN];
    rf_id h = input_projection(e, layer, x, d);

    /* offsets [B, N, 2H]: ã^l per head, then ã^r per head */
    snprintf(name, sizeof name, "layer%d.talk.offsets", layer);
    rf_id off = rf_sigmoid(g, rf_dense(g, x, d, 2 * heads, name, true));
    if (cfg->model.dropout > 0)
        off = rf_dropout(g, off, cfg->model.dropout);

    rf_id c = rf_talk(g, h, off, e->mask, lmax, rmax);
    if (c == RF_NONE)
        return RF_NONE;
    snprintf(name, sizeof name, "layer%d.talk.bounds", layer);
    rf_tap_add(g, name, c, RF_TAP_AUX, rf_shape3(e->batch, e->tokens, 2 * heads), rf_talk_bounds_offset(g, c));
    snprintf(name, sizeof name, "layer%d.talk.out", layer);
    return rf_dense(g, c, d, d, name, true);
}
