/* The safetensors reader (core/safetensors.c): any file is read or refused
 * with a message; every tensor of a file that reads lies inside the data
 * section (ASan checks each float); the same file opened without its data
 * (rf_safetensors_open) gives each tensor the same bytes and the same crc32;
 * a file that reads writes back and reads again to the same tensors. */
#include <math.h>

#include "fuzz_common.h"
#include "safetensors.h"

static void ignore_warning(const char *msg, void *ctx)
{
    (void)msg;
    (void)ctx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rf_set_warn_handler(ignore_warning, NULL);
    char path[8192], again[8192];
    snprintf(path, sizeof path, "%s", fuzz_file("in.safetensors", data, size));
    snprintf(again, sizeof again, "%s", fuzz_path("again.safetensors"));
    rf_status st = {0};
    rf_safetensors *f = rf_safetensors_read(path, &st);
    if (f == NULL) {
        FUZZ_CHECK(st.failed && st.msg[0] != '\0', "refused without a message");
        return 0;
    }
    int n = rf_safetensors_count(f);
    rf_st_tensor *copy = calloc((size_t)n + 1, sizeof *copy);
    FUZZ_CHECK(copy != NULL, "out of memory");
    size_t data_size = 0, covered = 0;
    rf_safetensors_data(f, &data_size);
    volatile float sink = 0;
    for (int i = 0; i < n; i++) {
        const rf_st_tensor *t = rf_safetensors_tensor(f, i);
        FUZZ_CHECK(t->ndim >= 0 && t->ndim <= RF_MAX_DIMS, "tensor '%s' ndim %d", t->name, t->ndim);
        size_t numel = 1;
        for (int d = 0; d < t->ndim; d++)
            numel *= (size_t)t->shape[d];
        for (size_t k = 0; k < numel; k++)
            sink += t->data[k];
        covered += numel * sizeof(float);
        FUZZ_CHECK(rf_safetensors_find(f, t->name) == t, "tensor '%s' not found by name", t->name);
        copy[i] = *t;
    }
    (void)sink;
    FUZZ_CHECK(covered == data_size, "tensors cover %zu of %zu data bytes", covered, data_size);
    rf_safetensors *lazy = rf_safetensors_open(path, &st);
    FUZZ_CHECK(lazy != NULL && rf_safetensors_count(lazy) == n, "a file that reads does not open: %s", st.msg);
    for (int i = 0; i < n; i++) {
        const rf_st_tensor *t = rf_safetensors_tensor(f, i), *u = rf_safetensors_find(lazy, t->name);
        size_t bytes = 1;
        for (int d = 0; d < t->ndim; d++)
            bytes *= (size_t)t->shape[d];
        bytes *= sizeof(float);
        float *got = malloc(bytes + 1);
        FUZZ_CHECK(got != NULL && u != NULL && rf_safetensors_read_tensor(lazy, u, got, &st) &&
                       (bytes == 0 || memcmp(got, t->data, bytes) == 0),
                   "tensor '%s' read from the opened file differs", t->name);
        free(got);
    }
    unsigned long crc_whole = 0, crc_lazy = 0;
    FUZZ_CHECK(rf_safetensors_data_crc32(f, &crc_whole, &st) && rf_safetensors_data_crc32(lazy, &crc_lazy, &st) &&
                   crc_whole == crc_lazy, "the crc32 of the data differs between whole and opened reads");
    rf_safetensors_free(lazy);
    const char *config = rf_safetensors_meta(f, "config");
    rf_st_meta meta[1] = {{"config", config}};
    bool wrote = rf_safetensors_write(again, copy, n, meta, config != NULL, &st);
    FUZZ_CHECK(wrote, "a file that reads does not write: %s", st.msg);
    rf_safetensors *g = rf_safetensors_read(again, &st);
    FUZZ_CHECK(g != NULL, "a written file does not read: %s", st.msg);
    FUZZ_CHECK(rf_safetensors_count(g) == n, "%d tensors written, %d read", n, rf_safetensors_count(g));
    for (int i = 0; i < n; i++) {
        const rf_st_tensor *t = rf_safetensors_find(g, copy[i].name);
        FUZZ_CHECK(t != NULL && t->ndim == copy[i].ndim, "tensor '%s' lost or reshaped", copy[i].name);
        size_t numel = 1;
        for (int d = 0; d < t->ndim; d++) {
            FUZZ_CHECK(t->shape[d] == copy[i].shape[d], "tensor '%s' reshaped", t->name);
            numel *= (size_t)t->shape[d];
        }
        FUZZ_CHECK(numel == 0 || memcmp(t->data, copy[i].data, numel * sizeof(float)) == 0,
                   "tensor '%s' changed", t->name);
    }
    const char *config2 = rf_safetensors_meta(g, "config");
    FUZZ_CHECK((config == NULL) == (config2 == NULL) && (config == NULL || strcmp(config, config2) == 0),
               "metadata config changed");
    rf_safetensors_free(g);
    rf_safetensors_free(f);
    free(copy);
    return 0;
}
