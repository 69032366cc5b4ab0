/* The tile choices' cache file (see tiles_cache.h). */
#include "tiles_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache_file.h"

#define HEADER "rangefinder tile choices 1"
/* Far more than the head widths of any set of models: a bigger file is not ours. */
#define MAX_LINES 10000
#define MAX_BLOCK 65536

char *rf_tiles_cache_path(void)
{
    return rf_cache_file_path("tile-choices.tsv");
}

/* "QBxKB" (the whole text) into *t. */
static bool parse_tile(const char *text, rf_attn_tile *t)
{
    char buf[32], *x;
    if (strlen(text) >= sizeof buf)
        return false;
    snprintf(buf, sizeof buf, "%s", text);
    if ((x = strchr(buf, 'x')) == NULL)
        return false;
    *x = '\0';
    return rf_cache_parse_int(buf, 1, MAX_BLOCK, &t->qb) && rf_cache_parse_int(x + 1, 1, MAX_BLOCK, &t->kb);
}

static bool same_tile(rf_attn_tile a, rf_attn_tile b)
{
    return a.qb == b.qb && a.kb == b.kb;
}

/* One line (without its newline) into *c; NULL or the problem. */
static const char *parse_line(char *line, rf_tiles_cached *c)
{
    char *field[5];
    if (!rf_cache_fields(line, field, 5))
        return "not 5 tab-separated fields";
    if (field[0][0] == '\0' || strlen(field[0]) >= sizeof c->cpu)
        return "no CPU, or one too long";
    snprintf(c->cpu, sizeof c->cpu, "%s", field[0]);
    if (strcmp(field[1], "attention") != 0)
        return "a kernel other than attention";
    if (!rf_cache_parse_int(field[2], 1, MAX_BLOCK, &c->dk))
        return "a head width not in 1..65536";
    if (!parse_tile(field[3], &c->tile))
        return "a tile not QBxKB";
    c->timed = 0;
    int fastest = -1;
    for (char *save = NULL, *t = strtok_r(field[4], " ", &save); t != NULL; t = strtok_r(NULL, " ", &save)) {
        char *colon = strchr(t, ':');
        if (c->timed == RF_TILES_CACHED_MAX)
            return "too many timings";
        if (colon == NULL)
            return "a timing not QBxKB:SECONDS";
        *colon = '\0';
        if (!parse_tile(t, &c->tiles[c->timed]) || !rf_cache_parse_seconds(colon + 1, &c->seconds[c->timed]))
            return "a timing not QBxKB:SECONDS";
        if (fastest < 0 || c->seconds[c->timed] < c->seconds[fastest])
            fastest = c->timed;
        c->timed++;
    }
    if (fastest < 0 || !same_tile(c->tiles[fastest], c->tile))
        return "the tile is not the fastest of its own timings";
    return NULL;
}

typedef struct {
    rf_tiles_cached *lines;
    int count, cap;
} read_ctx;

static const char *add_line(char *line, void *ctx)
{
    read_ctx *r = ctx;
    if (r->count == r->cap) {
        int cap = r->cap ? 2 * r->cap : 16;
        rf_tiles_cached *grown = realloc(r->lines, (size_t)cap * sizeof *grown);
        if (grown == NULL)
            return "out of memory";
        r->lines = grown;
        r->cap = cap;
    }
    const char *problem = parse_line(line, &r->lines[r->count]);
    r->count += problem == NULL;
    return problem;
}

bool rf_tiles_cache_read(const char *path, rf_tiles_cached **out, int *count, rf_status *st)
{
    read_ctx r = {0};
    bool ok = rf_cache_file_read(path, HEADER, MAX_LINES, add_line, &r, st);
    if (!ok) {
        free(r.lines);
        r = (read_ctx){0};
    }
    *out = r.lines;
    *count = r.count;
    return ok;
}

typedef struct {
    const rf_tiles_cached *lines;
    int count;
} fill_ctx;

static bool fill(int fd, void *ctx)
{
    const fill_ctx *c = ctx;
    if (!rf_write_all(fd, HEADER "\n", strlen(HEADER "\n")))
        return false;
    for (int i = 0; i < c->count; i++) {
        const rf_tiles_cached *l = &c->lines[i];
        char buf[1024];
        int len = snprintf(buf, sizeof buf, "%s\tattention\t%d\t%dx%d\t", l->cpu, l->dk, l->tile.qb, l->tile.kb);
        for (int t = 0; t < l->timed; t++)
            len += snprintf(buf + len, sizeof buf - (size_t)len, "%s%dx%d:%.9g", t > 0 ? " " : "", l->tiles[t].qb,
                            l->tiles[t].kb, l->seconds[t]);
        len += snprintf(buf + len, sizeof buf - (size_t)len, "\n");
        if (!rf_write_all(fd, buf, (size_t)len))
            return false;
    }
    return true;
}

bool rf_tiles_cache_write(const char *path, const rf_tiles_cached *lines, int count, rf_status *st)
{
    fill_ctx c = {lines, count};
    return rf_cache_file_write(path, fill, &c, st);
}
