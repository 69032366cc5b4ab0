#include <string.h>

#include "encoder.h"

static const rf_encoder_info encoders[] = {
    {"full", "full multi-head attention, O(N^2) (SPEC 1)", rf_mixer_full, NULL},
};

const rf_encoder_info *rf_encoder_find(const char *name)
{
    for (size_t i = 0; i < sizeof encoders / sizeof encoders[0]; i++)
        if (strcmp(encoders[i].name, name) == 0)
            return &encoders[i];
    return NULL;
}
