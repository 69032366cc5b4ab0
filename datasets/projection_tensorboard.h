/* A projection's files: the coordinates as CSV, and TensorBoard's embedding
 * projector format (its plugin reads a folder holding
 * projector_config.pbtxt, which names tensors.tsv, one vector a row,
 * tab-separated, and metadata.tsv, a header row and one row a sample).
 * Every file is written atomically. */
#ifndef RF_DATASETS_PROJECTION_TENSORBOARD_H
#define RF_DATASETS_PROJECTION_TENSORBOARD_H

#include "../core/pca.h"
#include "projection.h"

/* index,label,prediction,correct,length,pc1..pcN: one row a sample. */
bool rf_projection_write_csv(const rf_projection *p, const float *coords, int dims, const char *path,
                             rf_status *st);
/* tensors.tsv, metadata.tsv (index, label, prediction, correct, length) and
 * projector_config.pbtxt in `dir` (made if missing). */
bool rf_projection_write_tensorboard(const rf_projection *p, const char *dir, rf_status *st);

#endif
