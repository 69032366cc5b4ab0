#include "json_line.h"

#include <math.h>
#include <stdio.h>

static void append_string(GString *s, const char *text)
{
    g_string_append_c(s, '"');
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++) {
        switch (*p) {
        case '"': g_string_append(s, "\\\""); break;
        case '\\': g_string_append(s, "\\\\"); break;
        case '\n': g_string_append(s, "\\n"); break;
        case '\r': g_string_append(s, "\\r"); break;
        case '\t': g_string_append(s, "\\t"); break;
        default:
            if (*p < 0x20)
                g_string_append_printf(s, "\\u%04x", *p);
            else
                g_string_append_c(s, (char)*p);
        }
    }
    g_string_append_c(s, '"');
}

static void append_key(rf_json_line *j, const char *key)
{
    if (j->text->len > 1)
        g_string_append_c(j->text, ',');
    append_string(j->text, key);
    g_string_append_c(j->text, ':');
}

void rf_json_begin(rf_json_line *j)
{
    j->text = g_string_new("{");
}

void rf_json_str(rf_json_line *j, const char *key, const char *value)
{
    append_key(j, key);
    if (value == NULL)
        g_string_append(j->text, "null");
    else
        append_string(j->text, value);
}

void rf_json_int(rf_json_line *j, const char *key, int64_t value)
{
    append_key(j, key);
    g_string_append_printf(j->text, "%" G_GINT64_FORMAT, (gint64)value);
}

static void append_number(GString *s, double value)
{
    if (!isfinite(value)) {
        g_string_append(s, "null");
        return;
    }
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_string_append(s, g_ascii_formatd(buf, sizeof buf, "%.6g", value));
}

void rf_json_num(rf_json_line *j, const char *key, double value)
{
    append_key(j, key);
    append_number(j->text, value);
}

void rf_json_num_array(rf_json_line *j, const char *key, const float *values, int n)
{
    append_key(j, key);
    g_string_append_c(j->text, '[');
    for (int i = 0; i < n; i++) {
        if (i > 0)
            g_string_append_c(j->text, ',');
        append_number(j->text, values[i]);
    }
    g_string_append_c(j->text, ']');
}

void rf_json_raw(rf_json_line *j, const char *key, const char *json)
{
    append_key(j, key);
    g_string_append(j->text, json);
}

char *rf_json_end(rf_json_line *j)
{
    g_string_append_c(j->text, '}');
    char *text = g_string_free(j->text, FALSE);
    j->text = NULL;
    return text;
}

void rf_json_print(rf_json_line *j)
{
    g_autofree char *text = rf_json_end(j);
    printf("%s\n", text);
    fflush(stdout);
}
