/* The .npy reader (datasets/npy_read.c) and the npy data set
 * (datasets/npy_task.c): the input is parsed in memory, and when it parses
 * every value is read (ASan sees a read past the data) and the data must be
 * exactly what the shape says; then it is written as x.npy beside a y.npy of
 * matching labels (0, 1, 0, ...) and opened as a data set, which opens or is
 * refused with a message; one that opens reads every sample back within
 * its bounds, and the input itself is featurised as an outside sample
 * (accepted, or refused with a message). The first byte's low bits pick
 * data.max_len, so cutting is exercised too. */
#include <glib.h>
#include <glib/gstdio.h>

#include "fuzz_tsv_common.h"
#include "npy_read.h"
#include "npy_task.h"

/* y.npy of n int64 labels 0, 1, 0, ... */
static void write_labels(int64_t n)
{
    char header[128];
    int len = snprintf(header, sizeof header, "{'descr': '<i8', 'fortran_order': False, 'shape': (%lld,), }",
                       (long long)n);
    int hlen = (10 + len + 1 + 63) / 64 * 64 - 10;
    size_t size = 10 + (size_t)hlen + (size_t)n * 8;
    uint8_t *b = calloc(size, 1);
    memcpy(b, "\x93NUMPY\x01\x00", 8);
    b[8] = (uint8_t)hlen;
    b[9] = (uint8_t)(hlen >> 8);
    memset(b + 10, ' ', (size_t)hlen);
    memcpy(b + 10, header, (size_t)len);
    b[10 + hlen - 1] = '\n';
    for (int64_t i = 0; i < n; i++)
        b[10 + hlen + i * 8] = (uint8_t)(i % 2);
    fuzz_file("y.npy", b, size);
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rf_npy_array a = {0};
    rf_status st = {0};
    if (!rf_npy_parse("in.npy", data, size, &a, &st)) {
        FUZZ_CHECK(st.failed && strncmp(st.msg, "in.npy: ", 8) == 0, "refused without naming the file: %s", st.msg);
        return 0;
    }
    FUZZ_CHECK(a.data + a.count * a.item == data + size, "the data is not the file's end");
    double sum = 0;
    for (int64_t i = 0; i < a.count; i++)
        sum += rf_npy_value(&a, i);
    (void)sum;
    if (a.ndim < 1 || a.shape[0] > 100000)
        return 0;
    char *x = g_strdup(fuzz_file("x.npy", data, size));
    write_labels(a.shape[0]);
    rf_config cfg;
    rf_config_defaults(&cfg);
    snprintf(cfg.data.path, sizeof cfg.data.path, "%s", fuzz_path(""));
    snprintf(cfg.data.task, sizeof cfg.data.task, "npy");
    cfg.data.max_len = 1 + data[size - 1] % 64;
    cfg.data.val_size = 1;
    cfg.data.test_size = 1;
    rf_dataset *ds = rf_npy_task_open(&cfg, &st);
    if (ds == NULL) {
        FUZZ_CHECK(st.failed && st.msg[0] != '\0', "refused without a message");
    } else {
        FUZZ_CHECK(ds->seq_len <= cfg.data.max_len, "seq_len %d above data.max_len %d", ds->seq_len,
                   cfg.data.max_len);
        fuzz_read_every_sample(ds);
        float *in = malloc((size_t)ds->seq_len * (size_t)(ds->feat_dim > 0 ? ds->feat_dim : 1) * sizeof *in);
        int len = -1;
        rf_status fst = {0};
        if (ds->featurise(ds, x, NULL, in, &len, &fst))
            FUZZ_CHECK(len >= 1 && len <= ds->seq_len, "featurised length %d of %d", len, ds->seq_len);
        else
            FUZZ_CHECK(fst.msg[0] != '\0', "featurise refused without a message");
        free(in);
        rf_dataset_free(ds);
    }
    g_free(x);
    return 0;
}
