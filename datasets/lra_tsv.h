/* PLACEHOLDER header: data.task = lra_tsv */
#ifndef RF_DATASETS_LRA_TSV_H
#define RF_DATASETS_LRA_TSV_H
#include "../core/config.h"
#include "../core/data.h"
rf_dataset *rf_lra_tsv_open(const rf_config *cfg, rf_status *st);
#endif
