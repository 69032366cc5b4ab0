/* PLACEHOLDER header: data.task = ucr */
#ifndef RF_DATASETS_UCR_H
#define RF_DATASETS_UCR_H
#include "../core/config.h"
#include "../core/data.h"
rf_dataset *rf_ucr_open(const rf_config *cfg, rf_status *st);
#endif
