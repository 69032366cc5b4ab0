/* LRA ListOps TSV files (datasets/lra_tsv.c): the input is written as
 * basic_train.tsv, basic_val.tsv and basic_test.tsv (the input split at
 * form feeds, '\f', when it holds two; else the same text three times);
 * the data set opens or is refused with a message, and every sample of one
 * that opens reads back within its bounds. data.max_len comes from the
 * first byte, so truncation is exercised too. */
#include "fuzz_tsv_common.h"
#include "lra_tsv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[3] = {"basic_train.tsv", "basic_val.tsv", "basic_test.tsv"};
    const uint8_t *part[3] = {data, data, data};
    size_t len[3] = {size, size, size};
    const uint8_t *ff1 = memchr(data, '\f', size), *ff2 = ff1 ? memchr(ff1 + 1, '\f', size - (size_t)(ff1 + 1 - data)) : NULL;
    if (ff2 != NULL) {
        part[1] = ff1 + 1;
        part[2] = ff2 + 1;
        len[0] = (size_t)(ff1 - data);
        len[1] = (size_t)(ff2 - part[1]);
        len[2] = size - (size_t)(part[2] - data);
    }
    for (int i = 0; i < 3; i++)
        fuzz_file(names[i], part[i], len[i]);
    rf_config cfg;
    rf_config_defaults(&cfg);
    snprintf(cfg.data.path, sizeof cfg.data.path, "%s", fuzz_path(""));
    snprintf(cfg.data.task, sizeof cfg.data.task, "lra_tsv");
    cfg.data.max_len = size > 0 ? 1 + data[0] % 64 : 2000;
    rf_status st = {0};
    rf_dataset *ds = rf_lra_tsv_open(&cfg, &st);
    if (ds == NULL) {
        FUZZ_CHECK(st.failed && st.msg[0] != '\0', "refused without a message");
        return 0;
    }
    FUZZ_CHECK(ds->seq_len <= cfg.data.max_len, "seq_len %d above data.max_len %d", ds->seq_len, cfg.data.max_len);
    fuzz_read_every_sample(ds);
    rf_dataset_free(ds);
    return 0;
}
