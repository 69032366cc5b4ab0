#include <string.h>

#include "encoder.h"

static const rf_encoder_info encoders[] = {
    {"full", "full multi-head attention, O(N^2) (SPEC 1)", rf_mixer_full, NULL},
    {"ls", "Transformer-LS long-short attention, O(N(2w+r)) (SPEC 2)", rf_mixer_ls, NULL},
    {"linear", "kernelised linear attention, O(N D^2) (SPEC 4)", rf_mixer_linear, NULL},
    {"talk", "TaLK time-aware large-kernel convolution, O(N D) (SPEC 5)", rf_mixer_talk, NULL},
    {"blrp", "BLRP bidirectional long-range parser (SPEC 3)", NULL, rf_encoder_blrp},
    {"maelre", "MAELRE token merging + linear attention (SPEC 4)", NULL, rf_encoder_maelre},
};

const rf_encoder_info *rf_encoder_find(const char *name)
{
    for (size_t i = 0; i < sizeof encoders / sizeof encoders[0]; i++)
        if (strcmp(encoders[i].name, name) == 0)
            return &encoders[i];
    return NULL;
}
