/* Text inputs (see text_input.h). */
#include "text_input.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

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

char *rf_text_check_table(FILE *f, const char *path)
{
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0)
        return g_strdup_printf("%s: cannot stat (%s)", path, g_strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return g_strdup_printf("%s: not a regular file", path);
    if ((int64_t)sb.st_size > RF_TEXT_MAX_TABLE)
        return g_strdup_printf("%s: %lld bytes; a table is at most %lld", path, (long long)sb.st_size,
                               (long long)RF_TEXT_MAX_TABLE);
    return NULL;
}

char *rf_text_table_line(const char *path, char *line_text, ssize_t *n, int64_t line)
{
    if ((size_t)*n > RF_TEXT_MAX_LINE)
        return g_strdup_printf("%s:%lld: a line of %zd bytes; lines are at most %zu", path, (long long)line, *n,
                               RF_TEXT_MAX_LINE);
    g_autofree char *problem = rf_text_problem(line_text, (size_t)*n, line);
    if (problem != NULL)
        return g_strdup_printf("%s:%s", path, problem);
    while (*n > 0 && (line_text[*n - 1] == '\n' || line_text[*n - 1] == '\r'))
        line_text[--*n] = '\0';
    return NULL;
}

char *rf_text_table_each(const char *path, rf_text_row_fn row, void *ctx, int64_t *lines)
{
    *lines = 0;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return g_strdup_printf("%s: cannot open (%s)", path, g_strerror(errno));
    char *problem = rf_text_check_table(f, path);
    char *text = NULL;
    size_t cap = 0;
    ssize_t n;
    int64_t blank = 0;
    while (problem == NULL && (n = getline(&text, &cap, f)) != -1) {
        ++*lines;
        problem = rf_text_table_line(path, text, &n, *lines);
        if (problem != NULL)
            break;
        if (n == 0)
            blank = blank != 0 ? blank : *lines;
        else if (blank != 0)
            problem = g_strdup_printf("%s:%lld: blank line inside the table", path, (long long)blank);
        else if (!row(ctx, *lines, text))
            break;
    }
    if (problem == NULL && ferror(f))
        problem = g_strdup_printf("%s: read error (%s)", path, g_strerror(errno));
    free(text);
    fclose(f);
    return problem;
}

char *rf_text_read_file(const char *path, size_t max, size_t *len, GError **error)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        int saved = errno;
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(saved), "%s: cannot open: %s", path,
                    g_strerror(saved));
        return NULL;
    }
    size_t cap = max < 65536 ? max + 1 : 65536, used = 0;
    char *text = g_malloc(cap + 1);
    for (;;) {
        used += fread(text + used, 1, cap - used, f);
        if (used < cap || cap == max + 1)
            break;
        cap = cap * 2 <= max + 1 ? cap * 2 : max + 1;   /* grown as data arrives, never past max + 1 */
        text = g_realloc(text, cap + 1);
    }
    int failed = ferror(f) ? errno : 0;
    fclose(f);
    if (failed != 0 || used > max) {
        if (failed != 0)
            g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(failed), "%s: read error: %s", path,
                        g_strerror(failed));
        else
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: more than %zu bytes (the limit for this "
                        "kind of file)", path, max);
        g_free(text);
        return NULL;
    }
    text[used] = '\0';
    *len = used;
    return text;
}

gboolean rf_text_load_key_file(GKeyFile *kf, const char *path, GError **error)
{
    gsize len = 0;
    g_autoptr(GError) local = NULL;
    g_autofree char *text = rf_text_read_file(path, RF_TEXT_MAX_CONFIG, &len, error);
    if (text == NULL)
        return FALSE;
    g_autofree char *problem = rf_text_problem(text, len, 1);
    if (problem != NULL) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s:%s", path, problem);
        return FALSE;
    }
    if (g_key_file_load_from_data(kf, text, len, G_KEY_FILE_NONE, &local))
        return TRUE;
    g_set_error(error, local->domain, local->code, "%s: %s", path, local->message);
    return FALSE;
}
