/* PLACEHOLDER */
#include "../op.h"
#include "encoder.h"
rf_id rf_encoder_maelre(const rf_encoder_ctx *e, rf_id x, rf_id *out_mask)
{
    (void)x;
    (void)out_mask;
    return rf_graph_fail(e->g, "encoder not built yet");
}
