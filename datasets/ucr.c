/* PLACEHOLDER: data.task = ucr */
#include "ucr.h"
rf_dataset *rf_ucr_open(const rf_config *cfg, rf_status *st)
{
    (void)cfg;
    rf_fail(st, "data.task = ucr is not built yet");
    return NULL;
}
