/* The cache files' shared rules (cache_file.h). */
#include "cache_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *rf_cache_file_path(const char *name)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    const char *base = xdg != NULL && xdg[0] == '/' ? xdg : NULL;
    const char *sub = base != NULL ? "" : "/.cache";
    if (base == NULL && (home == NULL || home[0] != '/'))
        return NULL;
    if (base == NULL)
        base = home;
    size_t n = strlen(base) + strlen(sub) + strlen("/rangefinder/") + strlen(name) + 1;
    char *path = malloc(n);
    if (path != NULL)
        snprintf(path, n, "%s%s/rangefinder/%s", base, sub, name);
    return path;
}

bool rf_cache_file_read(const char *path, const char *header, int max_lines, rf_cache_line_fn parse, void *ctx,
                        rf_status *st)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return errno == ENOENT ? true : rf_fail(st, "%s: %s", path, strerror(errno));
    char line[1024];
    const char *problem = NULL;
    int lineno = 1, n = 0;
    size_t header_len = strlen(header);
    if (fgets(line, sizeof line, f) == NULL || strncmp(line, header, header_len) != 0 ||
        strcmp(line + header_len, "\n") != 0)
        problem = "the first line is not the header";
    while (problem == NULL && fgets(line, sizeof line, f) != NULL) {
        lineno++;
        size_t len = strlen(line);
        if (len == 0 || line[len - 1] != '\n')
            problem = "a line cut short or too long";
        else if (n++ == max_lines)
            problem = "too many lines";
        else {
            line[len - 1] = '\0';
            problem = parse(line, ctx);
        }
    }
    fclose(f);
    if (problem != NULL && lineno == 1)
        return rf_fail(st, "%s: line 1: %s '%s'", path, problem, header);
    return problem == NULL || rf_fail(st, "%s: line %d: %s", path, lineno, problem);
}

/* mkdir -p of the folders above `path`. */
static bool make_parents(const char *path, rf_status *st)
{
    char *dir = strdup(path);
    if (dir == NULL)
        return rf_fail(st, "%s: out of memory", path);
    bool ok = true;
    for (char *p = dir + 1; ok && (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            ok = rf_fail(st, "%s: cannot create the folder: %s", dir, strerror(errno));
        *p = '/';
    }
    free(dir);
    return ok;
}

bool rf_cache_file_write(const char *path, rf_atomic_fill fill, void *ctx, rf_status *st)
{
    return make_parents(path, st) && rf_atomic_write(path, fill, ctx, st);
}

typedef struct {
    rf_cache_record_fn parse;
    size_t size;
    char *records;
    int count, cap;
} read_ctx;

static const char *add_record(char *line, void *ctx)
{
    read_ctx *r = ctx;
    if (r->count == r->cap) {
        int cap = r->cap ? 2 * r->cap : 16;
        char *grown = realloc(r->records, (size_t)cap * r->size);
        if (grown == NULL)
            return "out of memory";
        r->records = grown;
        r->cap = cap;
    }
    const char *problem = r->parse(line, r->records + (size_t)r->count * r->size);
    r->count += problem == NULL;
    return problem;
}

bool rf_cache_records_read(const char *path, const char *header, int max_lines, size_t size,
                           rf_cache_record_fn parse, void **out, int *count, rf_status *st)
{
    read_ctx r = {parse, size, NULL, 0, 0};
    bool ok = rf_cache_file_read(path, header, max_lines, add_record, &r, st);
    if (!ok) {
        free(r.records);
        r.records = NULL;
        r.count = 0;
    }
    *out = r.records;
    *count = r.count;
    return ok;
}

typedef struct {
    const char *header;
    const char *records;
    int count;
    size_t size;
    rf_cache_format_fn format;
} write_ctx;

static bool fill_records(int fd, void *ctx)
{
    const write_ctx *w = ctx;
    char buf[1024];
    if (!rf_write_all(fd, w->header, strlen(w->header)) || !rf_write_all(fd, "\n", 1))
        return false;
    for (int i = 0; i < w->count; i++) {
        int len = w->format(w->records + (size_t)i * w->size, buf, sizeof buf);
        if (len < 0 || (size_t)len >= sizeof buf || !rf_write_all(fd, buf, (size_t)len))
            return false;
    }
    return true;
}

bool rf_cache_records_write(const char *path, const char *header, const void *records, int count, size_t size,
                            rf_cache_format_fn format, rf_status *st)
{
    write_ctx w = {header, records, count, size, format};
    return rf_cache_file_write(path, fill_records, &w, st);
}

bool rf_cache_fields(char *line, char **field, int n)
{
    int got = 0;
    for (char *p = line; p != NULL; got++) {
        if (got == n)
            return false;
        field[got] = p;
        p = strchr(p, '\t');
        if (p != NULL)
            *p++ = '\0';
    }
    return got == n;
}

bool rf_cache_parse_int(const char *text, int lo, int hi, int *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

bool rf_cache_parse_seconds(const char *text, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !isfinite(v) || v <= 0)
        return false;
    *out = v;
    return true;
}
