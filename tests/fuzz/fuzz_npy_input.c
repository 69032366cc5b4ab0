/* The .npy reader for outside inputs (datasets/npy_input.c, behind
 * rf_dataset_featurise): any file is read into at most seq_len positions of
 * feat_dim values (ASan sees a write past them), all finite and, for a
 * token model, ids within the vocabulary; or refused with a message naming
 * the file. Each input is tried against four data set shapes (token ids,
 * one feature, patches of 4 and of 49 values). */
#include "fuzz_common.h"
#include "npy_input.h"

#include <math.h>

static const rf_dataset shapes[] = {
    {.name = "tokens", .seq_len = 8, .feat_dim = 0, .vocab = 16},
    {.name = "series", .seq_len = 32, .feat_dim = 1},
    {.name = "patches", .seq_len = 16, .feat_dim = 4},
    {.name = "pixels", .seq_len = 16, .feat_dim = 49},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("in.npy", data, size);
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        const rf_dataset *ds = &shapes[k];
        size_t room = (size_t)ds->seq_len * (size_t)(ds->feat_dim > 0 ? ds->feat_dim : 1);
        float *x = malloc(room * sizeof *x);
        int len = -1;
        rf_status st = {0};
        if (rf_npy_input_read(ds, path, x, &len, &st)) {
            FUZZ_CHECK(len >= 1 && len <= ds->seq_len, "%s: length %d", ds->name, len);
            for (size_t i = 0; i < (size_t)len * (size_t)(ds->feat_dim > 0 ? ds->feat_dim : 1); i++) {
                FUZZ_CHECK(isfinite(x[i]), "%s: value %zu is not finite", ds->name, i);
                FUZZ_CHECK(ds->feat_dim > 0 || (x[i] >= 1 && x[i] < ds->vocab), "%s: id %g", ds->name, x[i]);
            }
        } else {
            FUZZ_CHECK(strstr(st.msg, path) != NULL, "%s: refused without naming the file: %s", ds->name, st.msg);
        }
        free(x);
    }
    return 0;
}
