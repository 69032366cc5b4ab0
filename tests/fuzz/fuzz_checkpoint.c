/* Checkpoints (core/checkpoint.c): the config and step of any file, then
 * its tensors into a small fixed parameter store (the one the seed corpus
 * was written for: embed.weight [4, 3], head.bias [3]). A file either loads
 * or is refused with a message and leaves the store as it was; a config
 * that reads validates or is refused, and one that loads saves and loads
 * again to the same values. */
#include <math.h>

#include "checkpoint.h"
#include "fuzz_common.h"

static void ignore_warning(const char *msg, void *ctx)
{
    (void)msg;
    (void)ctx;
}

static rf_params *small_store(void)
{
    rf_params *p = rf_params_new(1);
    rf_status st = {0};
    FUZZ_CHECK(rf_params_register(p, "embed.weight", rf_shape2(4, 3), RF_INIT_NORMAL, 0.5f, &st) >= 0 &&
               rf_params_register(p, "head.bias", rf_shape1(3), RF_INIT_ZEROS, 0.0f, &st) >= 0 &&
               rf_params_allocate(p, &st), "%s", st.msg);
    return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rf_set_warn_handler(ignore_warning, NULL);
    char path[8192], again[8192];
    snprintf(path, sizeof path, "%s", fuzz_file("in.safetensors", data, size));
    snprintf(again, sizeof again, "%s", fuzz_path("again.safetensors"));

    rf_config cfg;
    int64_t step = -1;
    rf_status st = {0};
    if (rf_checkpoint_read_config(path, &cfg, &step, &st)) {
        FUZZ_CHECK(step >= 0, "negative step %lld", (long long)step);
        rf_status why = {0};
        if (!rf_config_validate(&cfg, &why))
            FUZZ_CHECK(why.msg[0] != '\0', "config refused without a message");
    } else {
        FUZZ_CHECK(st.failed && st.msg[0] != '\0', "config refused without a message");
        rf_config_defaults(&cfg);
    }

    rf_params *p = small_store();
    size_t bytes = p->total * sizeof(float);
    float *before = malloc(3 * bytes);
    memcpy(before, p->value, bytes);
    memcpy(before + p->total, p->m, bytes);
    memcpy(before + 2 * p->total, p->v, bytes);
    rf_status_clear(&st);
    if (!rf_checkpoint_load(path, p, &step, &st)) {
        FUZZ_CHECK(st.failed && st.msg[0] != '\0', "checkpoint refused without a message");
        FUZZ_CHECK(memcmp(before, p->value, bytes) == 0 && memcmp(before + p->total, p->m, bytes) == 0 &&
                   memcmp(before + 2 * p->total, p->v, bytes) == 0, "a refused checkpoint changed the store");
    } else {
        for (size_t i = 0; i < p->total; i++)
            FUZZ_CHECK(isfinite(p->value[i]) && isfinite(p->m[i]) && isfinite(p->v[i]),
                       "a loaded checkpoint holds a non-finite value at %zu", i);
        FUZZ_CHECK(rf_checkpoint_save(again, &cfg, p, step, &st), "a loaded checkpoint does not save: %s", st.msg);
        rf_params *q = small_store();
        int64_t step2 = -1;
        FUZZ_CHECK(rf_checkpoint_load(again, q, &step2, &st), "a saved checkpoint does not load: %s", st.msg);
        FUZZ_CHECK(step2 == step && memcmp(q->value, p->value, bytes) == 0 && memcmp(q->m, p->m, bytes) == 0 &&
                   memcmp(q->v, p->v, bytes) == 0, "a checkpoint changed through save and load");
        rf_params_free(q);
    }
    free(before);
    rf_params_free(p);
    return 0;
}
