/* PLACEHOLDER header: data.task = image_folder */
#ifndef RF_DATASETS_IMAGE_FOLDER_H
#define RF_DATASETS_IMAGE_FOLDER_H
#include "../core/config.h"
#include "../core/data.h"
rf_dataset *rf_image_folder_open(const rf_config *cfg, rf_status *st);
#endif
