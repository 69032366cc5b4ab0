/* Shared pieces of the featurise hooks (see featurise.h). */
#include "featurise.h"

#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib.h>
#include <sndfile.h>
#include <stdio.h>
#include <string.h>

#include "npy_input.h"
#include "text_input.h"

#define NAME_CHARS 40
#define SNIFF_BYTES 4096

bool rf_dataset_featurise(const rf_dataset *ds, const char *path, const char *text, float *x, int *len,
                          rf_status *st)
{
    char name[128];
    if (ds->featurise == NULL)
        return rf_fail(st, "%s: the %s data set cannot featurise an outside input", rf_input_name(path, text, name,
                       sizeof name), ds->name);
    memset(x, 0, (size_t)ds->seq_len * (size_t)(ds->feat_dim > 0 ? ds->feat_dim : 1) * sizeof *x);
    if (path != NULL && rf_npy_input_is(path))   /* already the model's input, for every data set */
        return rf_npy_input_read(ds, path, x, len, st);
    return ds->featurise(ds, path, text, x, len, st);
}

const char *rf_input_name(const char *path, const char *text, char *buf, size_t size)
{
    if (path != NULL) {
        snprintf(buf, size, "%s", path);
        return buf;
    }
    /* one line, cut at a character boundary */
    g_autofree char *valid = g_utf8_make_valid(text, -1);
    size_t n = strcspn(valid, "\r\n");
    const char *end = valid + n;
    if (g_utf8_strlen(valid, (gssize)n) > NAME_CHARS)
        end = g_utf8_offset_to_pointer(valid, NAME_CHARS);
    snprintf(buf, size, "the text '%.*s%s'", (int)(end - valid), valid, *end != '\0' ? "..." : "");
    return buf;
}

static char *audio_kind(const char *path)
{
    SF_INFO info = {0};
    SNDFILE *f = sf_open(path, SFM_READ, &info);
    if (f == NULL)
        return NULL;
    SF_FORMAT_INFO format = {.format = info.format & SF_FORMAT_TYPEMASK};
    sf_command(f, SFC_GET_FORMAT_INFO, &format, sizeof format);
    sf_close(f);
    return g_strdup_printf("an audio clip (%s)", format.extension != NULL ? format.extension : "audio");
}

char *rf_input_kind(const char *path)
{
    int w, h;
    GdkPixbufFormat *image = gdk_pixbuf_get_file_info(path, &w, &h);
    if (image != NULL) {
        g_autofree char *name = gdk_pixbuf_format_get_name(image);
        return g_strdup_printf("an image (%s)", name);
    }
    char *audio = audio_kind(path);
    if (audio != NULL)
        return audio;
    char head[SNIFF_BYTES];
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    if (n >= 6 && memcmp(head, "\x93NUMPY", 6) == 0)
        return g_strdup("a NumPy array");
    g_autofree char *problem = rf_text_problem(head, n, 1);
    /* a multi-byte character cut by the sniff's end is still text */
    return g_strdup(problem == NULL || n == sizeof head ? "text" : "binary data");
}

char *rf_input_text(const rf_dataset *ds, const char *path, const char *text, const char *wants, rf_status *st)
{
    if (path == NULL) {
        char *problem = rf_text_problem(text, strlen(text), 1);
        if (problem != NULL) {
            char name[128];
            rf_fail(st, "%s: %s; this %s model takes text (%s)", rf_input_name(path, text, name, sizeof name),
                    problem, ds->name, wants);
            g_free(problem);
            return NULL;
        }
        return g_strdup(text);
    }
    GError *err = NULL;
    size_t len = 0;
    char *content = rf_text_read_file(path, RF_INPUT_MAX_TEXT, &len, &err);
    if (content == NULL) {
        rf_fail(st, "%s", err->message);
        g_error_free(err);
        return NULL;
    }
    char *problem = rf_text_problem(content, len, 1);
    if (problem != NULL) {
        g_autofree char *kind = rf_input_kind(path);
        if (kind == NULL || strcmp(kind, "text") == 0 || strcmp(kind, "binary data") == 0)
            rf_fail(st, "%s:%s: this %s model takes text (%s)", path, problem, ds->name, wants);
        else
            rf_fail(st, "%s is %s, but this %s model takes text (%s)", path, kind, ds->name, wants);
        g_free(problem);
        g_free(content);
        return NULL;
    }
    return content;
}

char *rf_input_line(const rf_dataset *ds, const char *path, const char *text, const char *wants, rf_status *st)
{
    char *all = rf_input_text(ds, path, text, wants, st);
    if (all == NULL)
        return NULL;
    char **lines = g_strsplit(all, "\n", -1);
    char *line = NULL;
    bool ok = true;
    for (char **l = lines; ok && *l != NULL; l++) {
        g_strchomp(*l);   /* "\r" and trailing blanks; tabs inside stay */
        if (**l == '\0')
            continue;
        if (line != NULL) {
            char name[128];
            ok = rf_fail(st, "%s: more than one line; this %s model takes one line (%s)",
                         rf_input_name(path, text, name, sizeof name), ds->name, wants);
        }
        line = *l;
    }
    if (ok && line == NULL) {
        char name[128];
        ok = rf_fail(st, "%s: empty; this %s model takes one line (%s)", rf_input_name(path, text, name, sizeof name),
                     ds->name, wants);
    }
    char *result = ok ? g_strdup(line) : NULL;
    g_strfreev(lines);
    g_free(all);
    return result;
}

bool rf_input_needs_file(const rf_dataset *ds, const char *path, const char *text, const char *wants,
                         rf_status *st)
{
    if (path != NULL)
        return true;
    char name[128];
    return rf_fail(st, "%s is text, but this %s model takes %s", rf_input_name(path, text, name, sizeof name),
                   ds->name, wants);
}
