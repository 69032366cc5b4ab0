#include "config_file.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/atomic_file.h"
#include "../datasets/text_input.h"

G_DEFINE_QUARK(rf-config-file-error-quark, rf_config_file_error)

static gboolean fail(GError **error, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

static gboolean fail(GError **error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error_literal(error, RF_CONFIG_FILE_ERROR, RF_CONFIG_FILE_ERROR_FAILED, msg);
    return FALSE;
}

gboolean rf_config_apply_ini(rf_config *cfg, const char *path, GError **error)
{
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GError) local = NULL;
    if (!rf_text_load_key_file(kf, path, &local))
        return fail(error, "%s", local->message);

    g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
    for (char **g = groups; *g != NULL; g++) {
        g_auto(GStrv) keys = g_key_file_get_keys(kf, *g, NULL, NULL);
        for (char **k = keys; k != NULL && *k != NULL; k++) {
            g_autofree char *value = g_key_file_get_string(kf, *g, *k, &local);
            if (value == NULL)
                return fail(error, "%s: [%s] %s: %s", path, *g, *k, local->message);
            /* GKeyFile keeps trailing blanks, which no number or choice has. */
            g_strchomp(value);
            rf_status st = {0};
            if (!rf_config_set2(cfg, *g, *k, value, &st))
                return fail(error, "%s: [%s] %s: %s", path, *g, *k, st.msg);
        }
    }
    return TRUE;
}

gboolean rf_config_apply_sets(rf_config *cfg, const char *const *sets, GError **error)
{
    for (const char *const *s = sets; s != NULL && *s != NULL; s++) {
        if (!g_utf8_validate(*s, -1, NULL)) {
            g_autofree char *shown = g_utf8_make_valid(*s, -1);
            return fail(error, "--set '%s': not UTF-8 text", shown);
        }
        rf_status st = {0};
        if (!rf_config_apply_override(cfg, *s, &st)) {
            /* Core names --set itself when the assignment is malformed. */
            if (g_str_has_prefix(st.msg, "--set"))
                return fail(error, "%s", st.msg);
            return fail(error, "--set %s: %s", *s, st.msg);
        }
    }
    return TRUE;
}

gboolean rf_config_check(const rf_config *cfg, const char *source, GError **error)
{
    rf_status st = {0};
    if (!rf_config_validate(cfg, &st))
        return fail(error, "%s: %s", source, st.msg);
    return TRUE;
}

gboolean rf_config_load_ini(const char *path, const char *const *sets, rf_config *cfg, GError **error)
{
    rf_config_defaults(cfg);
    return rf_config_apply_ini(cfg, path, error) && rf_config_apply_sets(cfg, sets, error) &&
           rf_config_check(cfg, path, error);
}

void rf_config_format_value(const rf_config *cfg, const rf_config_key *k, char *buf, size_t size)
{
    if (k->type == RF_KEY_FLOAT) {
        float v = *(const float *)((const char *)cfg + k->offset);
        for (int digits = 1; digits <= 9; digits++) {
            snprintf(buf, size, "%.*g", digits, (double)v);
            if (strtof(buf, NULL) == v)
                return;
        }
        return;
    }
    char dotted[160];
    snprintf(dotted, sizeof dotted, "%s.%s", k->section, k->key);
    if (rf_config_get(cfg, dotted, buf, size) == NULL)
        g_assert_not_reached();
}

char *rf_config_to_ini(const rf_config *cfg, const char *comment)
{
    g_autoptr(GKeyFile) kf = g_key_file_new();
    char value[RF_STR_LEN + 32];
    for (const rf_config_key *k = rf_config_keys; k->section != NULL; k++) {
        rf_config_format_value(cfg, k, value, sizeof value);
        g_key_file_set_string(kf, k->section, k->key, value);
    }
    if (comment != NULL)
        g_key_file_set_comment(kf, NULL, NULL, comment, NULL);
    return g_key_file_to_data(kf, NULL, NULL);
}

gboolean rf_config_write_ini(const rf_config *cfg, const char *path, const char *comment, GError **error)
{
    g_autofree char *text = rf_config_to_ini(cfg, comment);
    rf_status st = {0};
    if (!rf_atomic_write_bytes(path, text, strlen(text), &st))
        return fail(error, "%s", st.msg);
    return TRUE;
}

char **rf_config_differing_keys(const rf_config *const *cfgs, guint n)
{
    GPtrArray *keys = g_ptr_array_new();
    char first[RF_STR_LEN + 32], other[RF_STR_LEN + 32];
    for (const rf_config_key *k = rf_config_keys; k->section != NULL && n > 1; k++) {
        rf_config_format_value(cfgs[0], k, first, sizeof first);
        for (guint i = 1; i < n; i++) {
            rf_config_format_value(cfgs[i], k, other, sizeof other);
            if (strcmp(first, other) != 0) {
                g_ptr_array_add(keys, g_strdup_printf("%s.%s", k->section, k->key));
                break;
            }
        }
    }
    g_ptr_array_add(keys, NULL);
    return (char **)g_ptr_array_free(keys, FALSE);
}
