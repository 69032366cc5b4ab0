/* Text inputs (see text_input.h). */
#include "text_input.h"

char *rf_text_problem(const char *text, size_t len, int64_t first_line)
{
    const char *end = NULL;
    if (g_utf8_validate_len(text, len, &end))
        return NULL;
    int64_t line = first_line;
    const char *line_start = text;
    for (const char *p = text; p < end; p++)
        if (*p == '\n') {
            line++;
            line_start = p + 1;
        }
    long long column = (long long)(end - line_start) + 1;
    if (*end == '\0')
        return g_strdup_printf("%lld:%lld: a NUL byte (not a text file?)", (long long)line, column);
    return g_strdup_printf("%lld:%lld: byte 0x%02x is not UTF-8 text", (long long)line, column,
                           (unsigned)(unsigned char)*end);
}

gboolean rf_text_load_key_file(GKeyFile *kf, const char *path, GError **error)
{
    g_autofree char *text = NULL;
    gsize len = 0;
    g_autoptr(GError) local = NULL;
    if (g_file_get_contents(path, &text, &len, &local)) {
        g_autofree char *problem = rf_text_problem(text, len, 1);
        if (problem != NULL) {
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s:%s", path, problem);
            return FALSE;
        }
        if (g_key_file_load_from_data(kf, text, len, G_KEY_FILE_NONE, &local))
            return TRUE;
    }
    g_set_error(error, local->domain, local->code, "%s: %s", path, local->message);
    return FALSE;
}
