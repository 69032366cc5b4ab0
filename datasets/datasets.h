/* Opening the data set a config names (data.task). */
#ifndef RF_DATASETS_H
#define RF_DATASETS_H

#include "../core/config.h"
#include "../core/data.h"

/* Build the data set for cfg->data.task ("listops", "random"). Uses
 * cfg->train.seed for generation. The caller frees it with rf_dataset_free. */
rf_dataset *rf_dataset_open(const rf_config *cfg, rf_status *st);

/* One line on what a folder task read: "image_folder: 120 images (100 png,
 * 20 jpeg), 3 files skipped"; "audio_folder: 40 clips, 52.1 s (30 wav, 10
 * flac)". False (buf untouched) for the other tasks. */
bool rf_dataset_summary(const rf_dataset *ds, char *buf, size_t size);

/* The splits the data made shorter than `cfg` (the config it was opened
 * with) asked: "validation: 9 of 2000 asked · test: 0 of 2000 asked".
 * False (buf "") when every split has what was asked. */
bool rf_dataset_shortfall(const rf_dataset *ds, const rf_config *cfg, char *buf, size_t size);

#endif
