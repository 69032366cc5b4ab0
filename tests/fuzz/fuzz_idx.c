/* IDX files (datasets/idx.c through zlib): the input is read as an IDX
 * file of 1, 2 and 3 dimensions (plain, or gzip when it starts like one);
 * each read either succeeds with exactly the bytes the header promises or
 * fails with a message naming the file. */
#include "fuzz_common.h"
#include "idx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[8192];
    snprintf(path, sizeof path, "%s", fuzz_file("in-idx3-ubyte.gz", data, size));
    for (int ndim = 1; ndim <= RF_IDX_MAX_DIMS; ndim++) {
        rf_idx idx;
        rf_status st = {0};
        if (!rf_idx_read(path, ndim, &idx, &st)) {
            FUZZ_CHECK(st.failed && strstr(st.msg, path) != NULL, "refused without naming the file: %s", st.msg);
            FUZZ_CHECK(idx.data == NULL, "a refused file left data");
            continue;
        }
        size_t bytes = 1;
        for (int d = 0; d < ndim; d++)
            bytes *= (size_t)idx.dims[d];
        FUZZ_CHECK(idx.ndim == ndim && idx.bytes == bytes, "%zu bytes for dims whose product is %zu", idx.bytes,
                   bytes);
        volatile uint8_t sink = 0;
        for (size_t i = 0; i < idx.bytes; i++)
            sink ^= idx.data[i];
        (void)sink;
        free(idx.data);
    }
    return 0;
}
