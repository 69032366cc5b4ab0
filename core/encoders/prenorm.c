#include <math.h>
#include <stdio.h>

#include "encoder.h"

/* A Linear layer's weight [in, out] and bias [out], PyTorch's default
 * initialisation range U(-1/sqrt(in), 1/sqrt(in)). */
rf_id rf_dense(rf_graph *g, rf_id x, int in, int out, const char *name, bool bias)
{
    char wname[RF_NAME_LEN], bname[RF_NAME_LEN];
    snprintf(wname, sizeof wname, "%s.weight", name);
    snprintf(bname, sizeof bname, "%s.bias", name);
    float bound = 1.0f / sqrtf((float)in);
    rf_id w = rf_param(g, wname, rf_shape2(in, out), RF_INIT_UNIFORM, bound);
    rf_id b = bias ? rf_param(g, bname, rf_shape1(out), RF_INIT_UNIFORM, bound) : RF_NONE;
    return rf_linear(g, x, w, b);
}

static rf_id layernorm(rf_graph *g, rf_id x, int dim, const char *name)
{
    char gname[RF_NAME_LEN], bname[RF_NAME_LEN];
    snprintf(gname, sizeof gname, "%s.weight", name);
    snprintf(bname, sizeof bname, "%s.bias", name);
    rf_id gamma = rf_param(g, gname, rf_shape1(dim), RF_INIT_ONES, 0);
    rf_id beta = rf_param(g, bname, rf_shape1(dim), RF_INIT_ZEROS, 0);
    return rf_layernorm(g, x, gamma, beta, 1e-5f);
}

rf_id rf_prenorm_stack(const rf_encoder_ctx *e, rf_mixer_fn mixer, rf_id x)
{
    rf_graph *g = e->g;
    const rf_config *cfg = e->cfg;
    int d = cfg->model.dim, f = cfg->model.ff;
    char name[RF_NAME_LEN];
    for (int l = 0; l < cfg->model.layers; l++) {
        rf_graph_region(g, RF_REGION_LAYER);   /* train.recompute = layers recomputes each block */
        snprintf(name, sizeof name, "layer%d.norm1", l);
        rf_id h = mixer(e, l, layernorm(g, x, d, name));
        if (cfg->model.dropout > 0)
            h = rf_dropout(g, h, cfg->model.dropout);
        x = rf_add(g, x, h);

        snprintf(name, sizeof name, "layer%d.norm2", l);
        h = layernorm(g, x, d, name);
        snprintf(name, sizeof name, "layer%d.mlp.fc1", l);
        h = rf_gelu(g, rf_dense(g, h, d, f, name, true));
        snprintf(name, sizeof name, "layer%d.mlp.fc2", l);
        h = rf_dense(g, h, f, d, name, true);
        if (cfg->model.dropout > 0)
            h = rf_dropout(g, h, cfg->model.dropout);
        x = rf_add(g, x, h);
    }
    rf_graph_region(g, RF_REGION_NONE);
    return x;
}
