/* Config files (config/config_file.c through GKeyFile, core/config.c's key
 * table): any file is read or refused with a message naming it; a config
 * that reads writes back to INI (rf_config_to_ini) and reads again to the
 * same values. */
#include <glib.h>

#include "config_file.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[8192], again[8192];
    snprintf(path, sizeof path, "%s", fuzz_file("in.ini", data, size));
    rf_config cfg;
    GError *err = NULL;
    if (!rf_config_load_ini(path, NULL, &cfg, &err)) {
        FUZZ_CHECK(err != NULL && strstr(err->message, path) != NULL, "refused without naming the file: %s",
                   err ? err->message : "(no error)");
        g_error_free(err);
        return 0;
    }
    char *ini = rf_config_to_ini(&cfg, "written back");
    snprintf(again, sizeof again, "%s", fuzz_file("again.ini", ini, strlen(ini)));
    rf_config cfg2;
    FUZZ_CHECK(rf_config_load_ini(again, NULL, &cfg2, &err), "a config written back does not read: %s",
               err->message);
    char *a = rf_config_to_json(&cfg), *b = rf_config_to_json(&cfg2);
    FUZZ_CHECK(strcmp(a, b) == 0, "config changed through INI: %s\nvs %s", a, b);
    rf_config cfg3;
    rf_config_defaults(&cfg3);
    rf_status st = {0};
    FUZZ_CHECK(rf_config_from_json(&cfg3, a, &st), "config JSON does not read back: %s", st.msg);
    char *c = rf_config_to_json(&cfg3);
    FUZZ_CHECK(strcmp(a, c) == 0, "config changed through JSON");
    free(a);
    free(b);
    free(c);
    g_free(ini);
    return 0;
}
