/* Shared by the TSV targets: each sample of every split is read back
 * (into a buffer of exactly seq_len * max(1, feat_dim) floats, so ASan sees
 * a sample longer than the data set says) and described. */
#ifndef RF_FUZZ_TSV_COMMON_H
#define RF_FUZZ_TSV_COMMON_H

#include "data.h"
#include "fuzz_common.h"

static void fuzz_read_every_sample(rf_dataset *ds)
{
    FUZZ_CHECK(ds->seq_len >= 1 && ds->classes >= 2, "seq_len %d, %d classes", ds->seq_len, ds->classes);
    int width = ds->feat_dim > 0 ? ds->feat_dim : 1;
    float *x = malloc((size_t)ds->seq_len * (size_t)width * sizeof *x);
    char text[256];
    for (int s = 0; s < RF_SPLIT_COUNT; s++)
        for (int64_t i = 0; i < ds->size[s]; i++) {
            int len = -1, label = -1;
            rf_status st = {0};
            FUZZ_CHECK(ds->get(ds, (rf_split)s, i, x, &len, &label, &st), "sample %lld: %s", (long long)i, st.msg);
            FUZZ_CHECK(len >= 1 && len <= ds->seq_len && label >= 0 && label < ds->classes,
                       "sample %lld: length %d of %d, label %d of %d", (long long)i, len, ds->seq_len, label,
                       ds->classes);
            if (ds->feat_dim == 0)
                for (int t = 0; t < len; t++)
                    FUZZ_CHECK(x[t] >= 1 && x[t] < ds->vocab, "token %g outside [1, %d)", x[t], ds->vocab);
            if (ds->describe != NULL) {
                ds->describe(ds, (rf_split)s, i, text, sizeof text);
                FUZZ_CHECK(strlen(text) < sizeof text, "describe overran");
            }
        }
    free(x);
}

#endif
