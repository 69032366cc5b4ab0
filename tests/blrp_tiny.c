/* A tiny BLRP classifier for the encoder's tests (blrp_tiny.h). */
#include "blrp_tiny.h"

#include <string.h>

#include "../core/rng.h"
#include "tap.h"

rf_config blrp_tiny_config(const char *direction, const char *init, const char *phi, const char *share)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.model.encoder, "blrp");
    cfg.model.dim = 8;
    cfg.model.heads = 2;
    cfg.model.ff = 12;
    cfg.model.layers = 2;
    cfg.model.segment = 3;
    cfg.model.latent = 2;
    strcpy(cfg.model.direction, direction);
    strcpy(cfg.model.latent_init, init);
    strcpy(cfg.model.phi, phi);
    strcpy(cfg.model.share_directions, share);
    strcpy(cfg.model.pos, "none");   /* SPEC §3: positions only inside each segment */
    cfg.data.classes = 5;
    cfg.data.vocab = 11;
    cfg.train.threads = 2;
    return cfg;
}

rf_model *blrp_tiny_model(const rf_config *cfg, int B, int N, rf_params *p)
{
    rf_status st = {0};
    rf_model *m = rf_model_new(cfg, B, N, 0, 11, 5, p, true, &st);
    if (m == NULL)
        tap_diag("%s", st.msg);
    return m;
}

/* Rows of lengths N, N-2, N-4, ... (at least 1) */
void blrp_tiny_tokens(rf_model *m, uint64_t seed)
{
    rf_graph *g = m->graph;
    rf_rng rng = {seed};
    float *x = rf_value(g, m->x), *mask = rf_value(g, m->mask), *labels = rf_value(g, m->labels);
    for (int b = 0; b < m->batch; b++) {
        int len = m->seq_len - 2 * b > 1 ? m->seq_len - 2 * b : 1;
        for (int t = 0; t < m->seq_len; t++) {
            x[b * m->seq_len + t] = t < len ? (float)rf_rng_int(&rng, 1, 10) : 0.0f;
            mask[b * m->seq_len + t] = t < len ? 1.0f : 0.0f;
        }
        labels[b] = (float)rf_rng_int(&rng, 0, 4);
    }
}

double blrp_tiny_loss(rf_model *m, rf_exec *x)
{
    rf_graph_forward(m->graph, x);
    return rf_value(m->graph, m->loss)[0];
}

/* One forward and backward pass of tokens from `seed` with `ps` attached. */
void blrp_tiny_probe_step(rf_model *m, rf_params *p, rf_probe_set *ps, uint64_t seed)
{
    rf_graph *g = m->graph;
    blrp_tiny_tokens(m, seed);
    rf_probe_attach(g, ps);
    rf_exec x;
    rf_exec_init(&x, g, NULL, 1, 0, false);
    blrp_tiny_loss(m, &x);
    rf_params_zero_grads(p);
    rf_graph_backward(g, &x, NULL);
    rf_probe_attach(g, NULL);
}
