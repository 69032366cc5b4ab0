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
    if (!rf_attn_tile_parse(field[3], &c->tile))
        return "a tile not QBxKB or QBxKB-lanes";
    c->timed = 0;
    int fastest = -1;
    for (char *save = NULL, *t = strtok_r(field[4], " ", &save); t != NULL; t = strtok_r(NULL, " ", &save)) {
        char *colon = strchr(t, ':');
        if (c->timed == RF_TILES_CACHED_MAX)
            return "too many timings";
        if (colon == NULL)
            return "a timing not TILE:SECONDS";
        *colon = '\0';
        if (!rf_attn_tile_parse(t, &c->tiles[c->timed]) || !rf_cache_parse_seconds(colon + 1, &c->seconds[c->timed]))
            return "a timing not TILE:SECONDS";
        if (fastest < 0 || c->seconds[c->timed] < c->seconds[fastest])
            fastest = c->timed;
        c->timed++;
    }
    if (fastest < 0 || !rf_attn_tile_same(c->tiles[fastest], c->tile))
        return "the tile is not the fastest of its own timings";
    return NULL;
}

static const char *parse_record(char *line, void *record)
{
    return parse_line(line, record);
}

bool rf_tiles_cache_read(const char *path, rf_tiles_cached **out, int *count, rf_status *st)
{
    void *lines;
    bool ok = rf_cache_records_read(path, HEADER, MAX_LINES, sizeof **out, parse_record, &lines, count, st);
    *out = lines;
    return ok;
}

static int format_line(const void *record, char *buf, size_t size)
{
    const rf_tiles_cached *l = record;
    char name[48];
    int len = snprintf(buf, size, "%s\tattention\t%d\t%s\t", l->cpu, l->dk, rf_attn_tile_name(l->tile, name, sizeof name));
    for (int t = 0; t < l->timed && len >= 0 && (size_t)len < size; t++)
        len += snprintf(buf + len, size - (size_t)len, "%s%s:%.9g", t > 0 ? " " : "",
                        rf_attn_tile_name(l->tiles[t], name, sizeof name), l->seconds[t]);
    if (len >= 0 && (size_t)len < size)
        len += snprintf(buf + len, size - (size_t)len, "\n");
    return len;
}

bool rf_tiles_cache_write(const char *path, const rf_tiles_cached *lines, int count, rf_status *st)
{
    return rf_cache_records_write(path, HEADER, lines, count, sizeof *lines, format_line, st);
}
