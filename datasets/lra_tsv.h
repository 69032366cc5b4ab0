/* The Long Range Arena's ListOps files (data.task = lra_tsv).
 *
 * data.path is the folder holding basic_train.tsv, basic_val.tsv and
 * basic_test.tsv (or train.tsv, val.tsv, test.tsv), each with the header
 * line "Source<TAB>Target" and then one "source<TAB>target" row per
 * expression: the source in LRA's text, e.g. "( ( [MAX 2 ) 3 ) ] )",
 * tokenised by rf_listops_tokenize (token ids as listops.h), the target an
 * integer 0..9. Sources longer than data.max_len tokens are cut to max_len,
 * as LRA does, and counted (rf_lra_tsv_truncated). Any malformed row is an
 * error naming file:line. With data.concat = k > 1 each (cut) source e is
 * read as [MAX e e ... e ], exactly as listops does (rf_listops_concat_*).
 *
 * The token ids are listops.h's: a model trained on the generator
 * (data.task = listops) reads these files and the other way round.
 *
 * Splits: the files' own; each split keeps its file's first
 * data.{train,val,test}_size rows (later rows are not read). */
#ifndef RF_DATASETS_LRA_TSV_H
#define RF_DATASETS_LRA_TSV_H

#include <stdint.h>

#include "../core/config.h"
#include "../core/data.h"

rf_dataset *rf_lra_tsv_open(const rf_config *cfg, rf_status *st);

/* Rows cut to data.max_len tokens while loading (0 for other data sets). */
int64_t rf_lra_tsv_truncated(const rf_dataset *ds);

#endif
