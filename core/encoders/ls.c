/* PLACEHOLDER */
#include "../op.h"
#include "encoder.h"
rf_id rf_mixer_ls(const rf_encoder_ctx *e, int layer, rf_id x)
{
    (void)layer;
    (void)x;
    return rf_graph_fail(e->g, "encoder not built yet");
}
