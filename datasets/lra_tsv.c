/* PLACEHOLDER: data.task = lra_tsv */
#include "lra_tsv.h"
rf_dataset *rf_lra_tsv_open(const rf_config *cfg, rf_status *st)
{
    (void)cfg;
    rf_fail(st, "data.task = lra_tsv is not built yet");
    return NULL;
}
