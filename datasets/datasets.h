/* Opening the data set a config names (data.task). */
#ifndef RF_DATASETS_H
#define RF_DATASETS_H

#include "../core/config.h"
#include "../core/data.h"

/* Build the data set for cfg->data.task ("listops", "random"). Uses
 * cfg->train.seed for generation. The caller frees it with rf_dataset_free. */
rf_dataset *rf_dataset_open(const rf_config *cfg, rf_status *st);

#endif
