/* UCR time-series TSV files (datasets/ucr.c): the input is written as
 * X_TRAIN.tsv and X_TEST.tsv (split at the first form feed, '\f'; without
 * one, the same text twice); the data set opens or is refused with a
 * message, and every sample of one that opens reads back within its bounds
 * with finite values. */
#include <math.h>

#include "fuzz_tsv_common.h"
#include "ucr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *ff = memchr(data, '\f', size);
    size_t train = ff ? (size_t)(ff - data) : size;
    fuzz_file("X_TRAIN.tsv", data, train);
    if (ff != NULL)
        fuzz_file("X_TEST.tsv", ff + 1, size - train - 1);
    else
        fuzz_file("X_TEST.tsv", data, size);
    rf_config cfg;
    rf_config_defaults(&cfg);
    snprintf(cfg.data.task, sizeof cfg.data.task, "ucr");
    snprintf(cfg.data.path, sizeof cfg.data.path, "%s", fuzz_path("X"));
    cfg.data.val_size = size > 0 ? data[size - 1] % 8 + 1 : 1;
    rf_status st = {0};
    rf_dataset *ds = rf_ucr_open(&cfg, &st);
    if (ds == NULL) {
        FUZZ_CHECK(st.failed && st.msg[0] != '\0', "refused without a message");
        return 0;
    }
    FUZZ_CHECK(ds->feat_dim == 1, "feat_dim %d", ds->feat_dim);
    fuzz_read_every_sample(ds);
    rf_dataset_free(ds);
    return 0;
}
