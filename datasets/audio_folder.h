/* PLACEHOLDER header: data.task = audio_folder */
#ifndef RF_DATASETS_AUDIO_FOLDER_H
#define RF_DATASETS_AUDIO_FOLDER_H
#include "../core/config.h"
#include "../core/data.h"
rf_dataset *rf_audio_folder_open(const rf_config *cfg, rf_status *st);
#endif
