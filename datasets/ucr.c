/* UCR/UEA time-series archives (see ucr.h). */
#include "ucr.h"

#include <float.h>
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "featurise.h"
#include "text_input.h"

#define UCR_STREAM 0x5543525661ull   /* "UCRVa": the validation draw */
#define TRAIN_FILE 0
#define TEST_FILE 1

typedef struct series {
    int64_t offset;   /* into values */
    int32_t len, label;
    int64_t line;
    int file;         /* TRAIN_FILE or TEST_FILE */
} series;

typedef struct ucr {
    rf_dataset ds;
    float *values;                   /* every series back to back */
    series *rows;                    /* the training file's rows, then the test file's */
    int64_t rows_in[2];              /* rows per file */
    int64_t *order;                  /* row of each sample: train, then val, then test */
    int64_t first[RF_SPLIT_COUNT];
    char *file_name[2];              /* base names, for describe() */
    char **class_names;              /* NULL-terminated */
} ucr;

/* Rows while parsing, with the labels as read. */
typedef struct parse {
    GArray *values;   /* float */
    GArray *rows;     /* series */
    GArray *labels;   /* double, one per row */
} parse;

/* The whole field is one number (surrounding spaces allowed); NaN and
 * infinities parse too. */
static bool parse_number(const char *text, double *v)
{
    char *end = NULL;
    *v = g_ascii_strtod(text, &end);
    if (end == text)
        return false;
    while (g_ascii_isspace(*end))
        end++;
    return *end == '\0';
}

static bool parse_values(parse *p, const char *path, int64_t line, char **fields, int columns, series *s,
                         rf_status *st)
{
    bool ended = false;
    for (int c = 1; c < columns; c++) {
        double v;
        if (!parse_number(fields[c], &v))
            return rf_fail(st, "%s:%lld:%d: '%.40s' is not a number", path, (long long)line, c + 1, fields[c]);
        if (isnan(v)) {
            ended = true;
            continue;
        }
        if (ended)
            return rf_fail(st, "%s:%lld:%d: a value after NaN (NaN may only pad the end of a variable-length "
                               "series; missing values inside a series are not supported)",
                           path, (long long)line, c + 1);
        if (!(fabs(v) <= FLT_MAX))
            return rf_fail(st, "%s:%lld:%d: '%.40s' is out of range for a float", path, (long long)line, c + 1,
                           fields[c]);
        float f = (float)v;
        g_array_append_val(p->values, f);
        s->len++;
    }
    if (s->len == 0)
        return rf_fail(st, "%s:%lld: the series has no values before NaN", path, (long long)line);
    return true;
}

/* One table row; *columns is set by the file's first row and checked after. */
static bool parse_line(parse *p, const char *path, int64_t line, const char *text, int file, int *columns,
                       rf_status *st)
{
    size_t tabs = 0;
    for (const char *t = strchr(text, '\t'); t != NULL; t = strchr(t + 1, '\t'))
        tabs++;
    if (tabs > RF_UCR_MAX_VALUES)   /* before splitting: each field costs a string */
        return rf_fail(st, "%s:%lld: %zu values; a series has at most %d", path, (long long)line, tabs,
                       RF_UCR_MAX_VALUES);
    char **fields = g_strsplit(text, "\t", -1);
    int n = (int)g_strv_length(fields);
    double label = 0;
    series s = {.offset = (int64_t)p->values->len, .line = line, .file = file};
    bool ok = true;
    if (*columns == 0 && n < 2)
        ok = rf_fail(st, "%s:%lld: one column; expected a label and values separated by tabs", path, (long long)line);
    else if (*columns != 0 && n != *columns)
        ok = rf_fail(st, "%s:%lld: %d columns, expected %d as on the first line", path, (long long)line, n, *columns);
    else if (!parse_number(fields[0], &label) || !isfinite(label))
        ok = rf_fail(st, "%s:%lld:1: label '%.40s' is not a finite number", path, (long long)line, fields[0]);
    else
        ok = parse_values(p, path, line, fields, n, &s, st);
    if (ok) {
        *columns = n;
        g_array_append_val(p->rows, s);
        g_array_append_val(p->labels, label);
    }
    g_strfreev(fields);
    return ok;
}

/* One file's reading, a row at a time. */
typedef struct file_parse {
    parse *p;
    const char *path;
    int file, columns;
    bool failed;
    rf_status *st;
} file_parse;

static gboolean parse_row(void *ctx, int64_t line, char *text)
{
    file_parse *f = ctx;
    f->failed = !parse_line(f->p, f->path, line, text, f->file, &f->columns, f->st);
    return !f->failed;
}

static bool parse_file(parse *p, const char *path, int file, rf_status *st)
{
    file_parse f = {.p = p, .path = path, .file = file, .st = st};
    int64_t lines = 0, before = (int64_t)p->rows->len;
    char *problem = rf_text_table_each(path, parse_row, &f, &lines);
    bool ok = problem == NULL || rf_fail(st, "%s", problem);
    g_free(problem);
    if (ok && !f.failed && (int64_t)p->rows->len == before)
        return rf_fail(st, "%s: no series in the file", path);
    return ok && !f.failed;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Labels to 0..C-1 in increasing order, and the class names. */
static bool map_labels(ucr *u, const parse *p, const char *where, rf_status *st)
{
    guint n = p->labels->len, classes = 0;
    double *sorted = g_memdup2(p->labels->data, n * sizeof(double));
    qsort(sorted, n, sizeof *sorted, compare_doubles);
    for (guint i = 0; i < n; i++)
        if (i == 0 || sorted[i] != sorted[classes - 1])
            sorted[classes++] = sorted[i];
    bool ok = classes >= 2 || rf_fail(st, "%s: every series has the label %g; a classifier needs at least two "
                                          "classes", where, sorted[0]);
    if (ok) {
        u->class_names = g_new0(char *, classes + 1);
        for (guint c = 0; c < classes; c++)
            u->class_names[c] = g_strdup_printf("%.15g", sorted[c]);
        for (guint i = 0; i < n; i++) {
            const double *hit = bsearch(&g_array_index(p->labels, double, i), sorted, classes, sizeof *sorted,
                                        compare_doubles);
            u->rows[i].label = (int32_t)(hit - sorted);
        }
        u->ds.classes = (int)classes;
        u->ds.class_names = (const char *const *)u->class_names;
    }
    g_free(sorted);
    return ok;
}

/* Val drawn from the training file by a seeded shuffle; train the rest in file order. */
static bool make_splits(ucr *u, const rf_config *cfg, const char *where, rf_status *st)
{
    int64_t ntrain = u->rows_in[TRAIN_FILE], ntest = u->rows_in[TEST_FILE], val = cfg->data.val_size;
    if (val > ntrain - 1) {
        val = val < ntrain / 4 ? val : ntrain / 4;
        rf_status_warn(st, "%s: %lld training series; data.val_size capped to %lld to leave a training split",
                       where, (long long)ntrain, (long long)val);
    }
    int64_t size[RF_SPLIT_COUNT] = {
        ntrain - val < cfg->data.train_size ? ntrain - val : cfg->data.train_size,
        val,
        ntest < cfg->data.test_size ? ntest : cfg->data.test_size,
    };
    int64_t *perm = malloc((size_t)ntrain * sizeof *perm);
    bool *is_val = calloc((size_t)ntrain, sizeof *is_val);
    u->order = malloc((size_t)(size[0] + size[1] + size[2] + 1) * sizeof *u->order);
    bool ok = perm != NULL && is_val != NULL && u->order != NULL;
    if (ok) {
        for (int64_t i = 0; i < ntrain; i++)
            perm[i] = i;
        rf_rng rng = {rf_hash3(cfg->train.seed, UCR_STREAM, 0)};
        for (int64_t i = ntrain - 1; i > 0; i--) {
            int64_t j = rf_rng_int(&rng, 0, i), swap = perm[i];
            perm[i] = perm[j];
            perm[j] = swap;
        }
        for (int64_t i = 0; i < val; i++)
            is_val[perm[i]] = true;
        int64_t *o = u->order;
        for (int64_t i = 0, taken = 0; i < ntrain && taken < size[RF_SPLIT_TRAIN]; i++)
            if (!is_val[i]) {
                *o++ = i;
                taken++;
            }
        for (int64_t i = 0; i < val; i++)
            *o++ = perm[i];
        for (int64_t i = 0; i < size[RF_SPLIT_TEST]; i++)
            *o++ = ntrain + i;
        int64_t at = 0;
        for (int s = 0; s < RF_SPLIT_COUNT; s++) {
            u->first[s] = at;
            u->ds.size[s] = size[s];
            at += size[s];
        }
    }
    free(perm);
    free(is_val);
    return ok || rf_fail(st, "%s: out of memory", where);
}

static int64_t locate(const ucr *u, rf_split split, int64_t index)
{
    if ((unsigned)split >= RF_SPLIT_COUNT || index < 0 || index >= u->ds.size[split])
        return -1;
    return u->order[u->first[split] + index];
}

static bool ucr_get(const rf_dataset *ds, rf_split split, int64_t index, float *x, int *len, int *label,
                    rf_status *st)
{
    const ucr *u = ds->impl;
    int64_t r = locate(u, split, index);
    if (r < 0)
        return rf_fail(st, "ucr has no %s sample %lld", rf_split_name(split), (long long)index);
    const series *s = &u->rows[r];
    memcpy(x, u->values + s->offset, (size_t)s->len * sizeof *x);
    *len = s->len;
    *label = s->label;
    return true;
}

/* "train #3: Adiac_TRAIN.tsv line 12, class 5, 176 values". */
static bool ucr_describe(const rf_dataset *ds, rf_split split, int64_t index, char *buf, size_t size)
{
    const ucr *u = ds->impl;
    int64_t r = locate(u, split, index);
    if (r < 0 || size == 0)
        return false;
    const series *s = &u->rows[r];
    snprintf(buf, size, "%s #%lld: %s line %lld, class %s, %d values", rf_split_name(split), (long long)index,
             u->file_name[s->file], (long long)s->line, u->class_names[s->label], s->len);
    return true;
}

/* One line in the files' format (a label, which is not used, then the
 * values), parsed by the loader's own parse_line. */
static bool ucr_featurise(const rf_dataset *ds, const char *path, const char *text, float *x, int *len,
                          rf_status *st)
{
    static const char wants[] = "a line of the archive's TSV: a label, then the values, tab-separated";
    char *line = rf_input_line(ds, path, text, wants, st);
    if (line == NULL)
        return false;
    char name[128];
    rf_input_name(path, text, name, sizeof name);
    parse p = {g_array_new(FALSE, FALSE, sizeof(float)), g_array_new(FALSE, FALSE, sizeof(series)),
               g_array_new(FALSE, FALSE, sizeof(double))};
    int columns = 0;
    bool ok = parse_line(&p, name, 1, line, TRAIN_FILE, &columns, st);
    if (ok && (int64_t)p.values->len > ds->seq_len)
        ok = rf_fail(st, "%s: %u values; this ucr model takes series of at most %d", name, p.values->len,
                     ds->seq_len);
    if (ok) {
        memcpy(x, p.values->data, p.values->len * sizeof *x);
        *len = (int)p.values->len;
    }
    g_array_free(p.values, TRUE);
    g_array_free(p.rows, TRUE);
    g_array_free(p.labels, TRUE);
    g_free(line);
    return ok;
}

static void ucr_destroy(rf_dataset *ds)
{
    ucr *u = ds->impl;
    g_free(u->values);
    g_free(u->rows);
    free(u->order);
    g_free(u->file_name[0]);
    g_free(u->file_name[1]);
    g_strfreev(u->class_names);
    g_free(u);
}

/* The two files data.path names: a folder with one pair, the NAME prefix or the _TRAIN.tsv file. */
static bool find_files(const char *path, char *files[2], rf_status *st)
{
    if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
        GError *err = NULL;
        GDir *d = g_dir_open(path, 0, &err);
        if (d == NULL) {
            rf_fail(st, "%s: cannot read the folder (%s)", path, err->message);
            g_error_free(err);
            return false;
        }
        int found[2] = {0, 0};
        for (const char *name; (name = g_dir_read_name(d)) != NULL;)
            for (int f = 0; f < 2; f++)
                if (g_str_has_suffix(name, f == TRAIN_FILE ? "_TRAIN.tsv" : "_TEST.tsv") && found[f]++ == 0)
                    files[f] = g_build_filename(path, name, NULL);
        g_dir_close(d);
        if (found[0] != 1 || found[1] != 1)
            return rf_fail(st, "%s: expected exactly one *_TRAIN.tsv and one *_TEST.tsv, found %d and %d", path,
                           found[0], found[1]);
        return true;
    }
    size_t n = strlen(path);
    if (g_str_has_suffix(path, "_TRAIN.tsv"))
        n -= strlen("_TRAIN.tsv");
    files[TRAIN_FILE] = g_strdup_printf("%.*s_TRAIN.tsv", (int)n, path);
    files[TEST_FILE] = g_strdup_printf("%.*s_TEST.tsv", (int)n, path);
    return true;
}

static bool load(ucr *u, const rf_config *cfg, char *files[2], rf_status *st)
{
    const char *where = cfg->data.path;
    if (!find_files(where, files, st))
        return false;
    parse p = {g_array_new(FALSE, FALSE, sizeof(float)), g_array_new(FALSE, FALSE, sizeof(series)),
               g_array_new(FALSE, FALSE, sizeof(double))};
    bool ok = parse_file(&p, files[TRAIN_FILE], TRAIN_FILE, st);
    u->rows_in[TRAIN_FILE] = p.rows->len;
    ok = ok && parse_file(&p, files[TEST_FILE], TEST_FILE, st);
    u->rows_in[TEST_FILE] = (int64_t)p.rows->len - u->rows_in[TRAIN_FILE];
    u->values = (float *)(void *)g_array_free(p.values, FALSE);
    u->rows = (series *)(void *)g_array_free(p.rows, FALSE);
    ok = ok && map_labels(u, &p, where, st) && make_splits(u, cfg, where, st);
    g_array_free(p.labels, TRUE);
    if (ok) {
        for (int f = 0; f < 2; f++)
            u->file_name[f] = g_path_get_basename(files[f]);
        for (int64_t i = 0; i < u->rows_in[0] + u->rows_in[1]; i++)
            u->ds.seq_len = u->rows[i].len > u->ds.seq_len ? u->rows[i].len : u->ds.seq_len;
    }
    return ok;
}

rf_dataset *rf_ucr_open(const rf_config *cfg, rf_status *st)
{
    if (cfg->data.path[0] == '\0') {
        rf_fail(st, "ucr needs data.path: a folder with NAME_TRAIN.tsv and NAME_TEST.tsv, or the NAME prefix");
        return NULL;
    }
    ucr *u = g_new0(ucr, 1);
    u->ds.name = "ucr";
    u->ds.feat_dim = 1;
    u->ds.get = ucr_get;
    u->ds.describe = ucr_describe;
    u->ds.featurise = ucr_featurise;
    u->ds.destroy = ucr_destroy;
    u->ds.impl = u;
    char *files[2] = {NULL, NULL};
    bool ok = load(u, cfg, files, st);
    g_free(files[0]);
    g_free(files[1]);
    if (!ok) {
        ucr_destroy(&u->ds);
        return NULL;
    }
    return &u->ds;
}
