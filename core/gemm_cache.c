/* The matrix-product choices' cache file (see gemm_cache.h). */
#include "gemm_cache.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic_file.h"

#define HEADER "rangefinder gemm choices 1"
/* Far more than any set of graphs declares: a bigger file is not ours. */
#define MAX_LINES 100000
#define MAX_DIM (1 << 30)

char *rf_gemm_cache_path(void)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    const char *base = xdg != NULL && xdg[0] == '/' ? xdg : NULL;
    const char *sub = base != NULL ? "" : "/.cache";
    if (base == NULL && (home == NULL || home[0] != '/'))
        return NULL;
    if (base == NULL)
        base = home;
    size_t n = strlen(base) + strlen(sub) + sizeof "/rangefinder/gemm-choices.tsv";
    char *path = malloc(n);
    if (path != NULL)
        snprintf(path, n, "%s%s/rangefinder/gemm-choices.tsv", base, sub);
    return path;
}

const char *rf_gemm_cpu_model(void)
{
    static char model[128];
    if (model[0] != '\0')
        return model;
    snprintf(model, sizeof model, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "model name", 10) != 0 || strchr(line, ':') == NULL)
            continue;
        const char *v = strchr(line, ':') + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        size_t len = strcspn(v, "\t\n");
        if (len > 0 && len < sizeof model)
            snprintf(model, sizeof model, "%.*s", (int)len, v);
        break;
    }
    if (f != NULL)
        fclose(f);
    return model;
}

static bool parse_int(const char *text, int lo, int hi, int *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

static bool parse_seconds(const char *text, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !isfinite(v) || v <= 0)
        return false;
    *out = v;
    return true;
}

/* One line (without its newline) into *c; NULL or the problem. */
static const char *parse_line(char *line, rf_gemm_cached *c)
{
    char *field[9];
    int n = 0;
    for (char *p = line; n < 9; n++) {
        field[n] = p;
        char *tab = strchr(p, '\t');
        if (tab == NULL) {
            n++;
            break;
        }
        *tab = '\0';
        p = tab + 1;
    }
    if (n != 9 || strchr(field[8], '\t') != NULL)
        return "not 9 tab-separated fields";
    if (field[0][0] == '\0' || strlen(field[0]) >= sizeof c->cpu)
        return "no CPU model, or one too long";
    snprintf(c->cpu, sizeof c->cpu, "%s", field[0]);
    const char *t = field[1];
    if (strlen(t) != 2 || (t[0] != 'N' && t[0] != 'T') || (t[1] != 'N' && t[1] != 'T'))
        return "transposes not NN, NT, TN or TT";
    c->shape.ta = t[0] == 'T';
    c->shape.tb = t[1] == 'T';
    if (!parse_int(field[2], 1, MAX_DIM, &c->shape.m) || !parse_int(field[3], 1, MAX_DIM, &c->shape.n) ||
        !parse_int(field[4], 1, MAX_DIM, &c->shape.k) || !parse_int(field[5], 1, MAX_DIM, &c->shape.batch))
        return "a dimension not in 1..2^30";
    if (strcmp(field[6], "openblas") == 0)
        c->lib = RF_GEMM_OPENBLAS;
    else if (strcmp(field[6], "onednn") == 0)
        c->lib = RF_GEMM_ONEDNN;
    else
        return "library not openblas or onednn";
    if (!parse_seconds(field[7], &c->seconds[RF_GEMM_OPENBLAS]) ||
        !parse_seconds(field[8], &c->seconds[RF_GEMM_ONEDNN]))
        return "a timing not a positive number of seconds";
    rf_gemm_lib faster = c->seconds[RF_GEMM_ONEDNN] < c->seconds[RF_GEMM_OPENBLAS] ? RF_GEMM_ONEDNN : RF_GEMM_OPENBLAS;
    if (c->lib != faster)
        return "the library is not the faster of its own timings";
    return NULL;
}

bool rf_gemm_cache_read(const char *path, rf_gemm_cached **out, int *count, rf_status *st)
{
    *out = NULL;
    *count = 0;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return errno == ENOENT ? true : rf_fail(st, "%s: %s", path, strerror(errno));
    char line[1024];
    const char *problem = NULL;
    int lineno = 1, n = 0, cap = 0;
    rf_gemm_cached *lines = NULL;
    if (fgets(line, sizeof line, f) == NULL || strcmp(line, HEADER "\n") != 0)
        problem = "not a gemm choices file (header)";
    while (problem == NULL && fgets(line, sizeof line, f) != NULL) {
        lineno++;
        size_t len = strlen(line);
        if (len == 0 || line[len - 1] != '\n') {
            problem = "a line cut short or too long";
            break;
        }
        line[len - 1] = '\0';
        if (n == MAX_LINES) {
            problem = "too many lines";
            break;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            rf_gemm_cached *grown = realloc(lines, (size_t)cap * sizeof *lines);
            if (grown == NULL) {
                problem = "out of memory";
                break;
            }
            lines = grown;
        }
        problem = parse_line(line, &lines[n]);
        n += problem == NULL;
    }
    fclose(f);
    if (problem != NULL) {
        free(lines);
        return rf_fail(st, "%s: line %d: %s", path, lineno, problem);
    }
    *out = lines;
    *count = n;
    return true;
}

typedef struct {
    const rf_gemm_cached *lines;
    int count;
} fill_ctx;

static bool fill(int fd, void *ctx)
{
    const fill_ctx *c = ctx;
    char buf[512];
    if (!rf_write_all(fd, HEADER "\n", strlen(HEADER "\n")))
        return false;
    for (int i = 0; i < c->count; i++) {
        const rf_gemm_cached *l = &c->lines[i];
        int len = snprintf(buf, sizeof buf, "%s\t%c%c\t%d\t%d\t%d\t%d\t%s\t%.9g\t%.9g\n", l->cpu, l->shape.ta ? 'T' : 'N', l->shape.tb ? 'T' : 'N', l->shape.m, l->shape.n, l->shape.k,
                           l->shape.batch, rf_gemm_lib_name(l->lib), l->seconds[RF_GEMM_OPENBLAS],
                           l->seconds[RF_GEMM_ONEDNN]);
        if (!rf_write_all(fd, buf, (size_t)len))
            return false;
    }
    return true;
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

bool rf_gemm_cache_write(const char *path, const rf_gemm_cached *lines, int count, rf_status *st)
{
    fill_ctx c = {lines, count};
    return make_parents(path, st) && rf_atomic_write(path, fill, &c, st);
}
