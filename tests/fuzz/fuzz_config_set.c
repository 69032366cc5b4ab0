/* --set values (config/config_file.c's rf_config_apply_sets, core/config.c):
 * every line of the input is one "section.key=value" argument; they apply
 * or fail with a message, and a config they make goes through its JSON form
 * (as checkpoints keep it) unchanged. The whole input is also read as a
 * checkpoint's config JSON (rf_config_from_json). */
#include <glib.h>

#include "config_file.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = g_strndup((const char *)data, size);   /* argv strings end at a NUL */
    char **sets = g_strsplit(text, "\n", 64);
    rf_config cfg;
    rf_config_defaults(&cfg);
    GError *err = NULL;
    if (!rf_config_apply_sets(&cfg, (const char *const *)sets, &err)) {
        FUZZ_CHECK(err != NULL && err->message[0] != '\0', "refused without a message");
        g_clear_error(&err);
    } else {
        if (!rf_config_check(&cfg, "sets", &err)) {
            FUZZ_CHECK(err != NULL && g_str_has_prefix(err->message, "sets: "), "refused without a message");
            g_clear_error(&err);
        }
        char *a = rf_config_to_json(&cfg);
        rf_config back;
        rf_config_defaults(&back);
        rf_status st = {0};
        FUZZ_CHECK(rf_config_from_json(&back, a, &st), "config JSON does not read back: %s", st.msg);
        char *b = rf_config_to_json(&back);
        FUZZ_CHECK(strcmp(a, b) == 0, "config changed through JSON: %s\nvs %s", a, b);
        free(a);
        free(b);
    }
    rf_config json_cfg;
    rf_config_defaults(&json_cfg);
    rf_status st = {0};
    if (!rf_config_from_json(&json_cfg, text, &st))
        FUZZ_CHECK(st.failed && st.msg[0] != '\0', "config JSON refused without a message");
    g_strfreev(sets);
    g_free(text);
    return 0;
}
