/* The matrix-product choices' cache file (see gemm_cache.h). */
#include "gemm_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache_file.h"

#define HEADER "rangefinder gemm choices 1"
/* Far more than any set of graphs declares: a bigger file is not ours. */
#define MAX_LINES 100000
#define MAX_DIM (1 << 30)

char *rf_gemm_cache_path(void)
{
    return rf_cache_file_path("gemm-choices.tsv");
}

/* One line (without its newline) into *c; NULL or the problem. */
static const char *parse_line(char *line, rf_gemm_cached *c)
{
    char *field[9];
    if (!rf_cache_fields(line, field, 9))
        return "not 9 tab-separated fields";
    if (field[0][0] == '\0' || strlen(field[0]) >= sizeof c->cpu)
        return "no CPU model, or one too long";
    snprintf(c->cpu, sizeof c->cpu, "%s", field[0]);
    const char *t = field[1];
    if (strlen(t) != 2 || (t[0] != 'N' && t[0] != 'T') || (t[1] != 'N' && t[1] != 'T'))
        return "transposes not NN, NT, TN or TT";
    c->shape.ta = t[0] == 'T';
    c->shape.tb = t[1] == 'T';
    if (!rf_cache_parse_int(field[2], 1, MAX_DIM, &c->shape.m) ||
        !rf_cache_parse_int(field[3], 1, MAX_DIM, &c->shape.n) ||
        !rf_cache_parse_int(field[4], 1, MAX_DIM, &c->shape.k) ||
        !rf_cache_parse_int(field[5], 1, MAX_DIM, &c->shape.batch))
        return "a dimension not in 1..2^30";
    if (strcmp(field[6], "openblas") == 0)
        c->lib = RF_GEMM_OPENBLAS;
    else if (strcmp(field[6], "onednn") == 0)
        c->lib = RF_GEMM_ONEDNN;
    else
        return "library not openblas or onednn";
    if (!rf_cache_parse_seconds(field[7], &c->seconds[RF_GEMM_OPENBLAS]) ||
        !rf_cache_parse_seconds(field[8], &c->seconds[RF_GEMM_ONEDNN]))
        return "a timing not a positive number of seconds";
    rf_gemm_lib faster = c->seconds[RF_GEMM_ONEDNN] < c->seconds[RF_GEMM_OPENBLAS] ? RF_GEMM_ONEDNN : RF_GEMM_OPENBLAS;
    if (c->lib != faster)
        return "the library is not the faster of its own timings";
    return NULL;
}

static const char *parse_record(char *line, void *record)
{
    return parse_line(line, record);
}

bool rf_gemm_cache_read(const char *path, rf_gemm_cached **out, int *count, rf_status *st)
{
    void *lines;
    bool ok = rf_cache_records_read(path, HEADER, MAX_LINES, sizeof **out, parse_record, &lines, count, st);
    *out = lines;
    return ok;
}

static int format_line(const void *record, char *buf, size_t size)
{
    const rf_gemm_cached *l = record;
    return snprintf(buf, size, "%s\t%c%c\t%d\t%d\t%d\t%d\t%s\t%.9g\t%.9g\n", l->cpu, l->shape.ta ? 'T' : 'N',
                    l->shape.tb ? 'T' : 'N', l->shape.m, l->shape.n, l->shape.k, l->shape.batch,
                    rf_gemm_lib_name(l->lib), l->seconds[RF_GEMM_OPENBLAS], l->seconds[RF_GEMM_ONEDNN]);
}

bool rf_gemm_cache_write(const char *path, const rf_gemm_cached *lines, int count, rf_status *st)
{
    return rf_cache_records_write(path, HEADER, lines, count, sizeof *lines, format_line, st);
}
